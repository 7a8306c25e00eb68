// Package clientprops maps the Kafka connector's 'properties.*' options —
// the Java client's property names, security.protocol, sasl.* and ssl.*
// included — onto franz-go client options. Start with Parse, which returns
// Settings: the []kgo.Opt of every client, of producers and of consumers,
// and the few values the connector interprets itself.
//
// The mapping never downgrades: a property it cannot honour is an error
// (*PropertyError, *SecurityError) naming it, and secrets (passwords, JAAS
// configurations, private keys) never appear in an error or a log line.
// DescribeAuthError and CheckConnection explain authentication and ACL
// failures in terms of the principal the properties configure.
//
// Package kafka re-exports the error types callers classify; nothing else
// imports this package.
package clientprops
