// Package txn is the Kafka sink's transaction machinery: the exactly-once
// Writer and the Committer, made by a Sink that holds the process's pool of
// transactional ids. The Writer produces through package produce's
// Producer, the record path every writer of the sink shares, inside its
// transactions. Start with Sink, Writer and Committer; docs/exactly-once.md
// and package kafka's documentation describe the protocol.
//
// Package kafka configures it (Config) from the sink's options and
// re-exports the errors callers classify (CommitLostError,
// ErrSlotsExhausted); nothing else imports this package.
package txn
