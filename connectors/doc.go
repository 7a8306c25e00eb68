// Package connectors holds one sub-package per built-in connector: kafka
// (kafka and upsert-kafka), filesystem, datagen, print and blackhole. The
// formats they use (json, csv, raw) are in formats/.
//
// The packages to learn first: connectors/all (import it to register
// every built-in connector and format) and one connector, such as
// connectors/datagen (a source) or connectors/print (a sink), whose
// factory.go shows the whole declaration: options, metadata, changelog
// modes and the Describe hook. A connector is written against package
// factory (its declaration) and package connector (its readers and
// writers), as an embedder's would be.
package connectors
