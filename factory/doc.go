// Package factory is the dynamic table factory: registries of connector and
// format factories, typed option declarations and the one validation path
// every factory uses. It is the public extension point for embedders.
package factory
