// Package kafka is the Kafka connector: a sink with the delivery
// guarantees none, at-least-once and exactly-once, and a source reader
// with direct partition assignment, startup and bounded modes.
//
// # Exactly-once
//
// The exactly-once sink follows DESIGN.md ("Kafka exactly-once"). Each
// sink task writes one Kafka transaction per checkpoint on transactional
// ids <prefix>-<task>-<slot> drawn from a bounded pool (POOLING, the
// default) or one new id per transaction (INCREMENTING). PreCommit flushes
// and checks every produce promise, then returns a committable: the JSON
// object
//
//	{"transactionalId":"p-0-1","producerId":42,"epoch":3,"transactionVersion":2,"checkpointId":17}
//
// with the producer id and epoch taken from the produced records and the
// cluster's transaction.version the slot's client was pinned to. Empty
// transactions return no committable.
//
// The Committer commits on the slot's own client when this process still
// owns it, and otherwise — after a restart or an unconfirmed in-process
// commit — by a raw EndTxn from a non-transactional client whose EndTxn
// version matches the recorded transaction version (≤4 for 0/1, 5 for 2).
// A broker answer meaning the transaction was aborted becomes a
// *CommitLostError wrapping connector.ErrCommitLost. Recover commits the
// restored committables first, then aborts every open transaction of the
// prefix whose (producer id, epoch) is not restored.
//
// A slot is reused only when the AckTracker says the commit of its last
// committable is durably acknowledged; under transaction version 0/1 each
// reuse starts on a new client (a fresh InitProducerId). The pool is
// bounded: ExactlyOnceWriter.CheckpointReady reports when the runtime must
// hold checkpoints back, and Write fails with ErrSlotsExhausted if it is
// not honoured.
//
// # Runtime integration
//
// The runtime gives the exactly-once sink its tracker of durable commit
// acknowledgements (SetAckTracker, or SinkConfig.AckTracker) before it
// creates the Committer (once per run; Recover before any writer opens)
// and the writers. It should ask each ExactlyOnceWriter, from the
// coordinator's goroutine, CheckpointReady before triggering a checkpoint
// (false: hold the checkpoint back and warn with the reason) and
// OldestUncommitted to fail over before a transaction nears the
// transaction timeout (Sink.TransactionTimeout). A Commit error wrapping
// connector.ErrCommitLost is terminal.
//
// # Source
//
// The Source has one split per partition ("<topic>:<partition>"), read by
// direct assignment; a split's state is the next offset as decimal text.
// Startup modes resolve to concrete offsets when a reader opens; bounded
// modes give each partition an end offset (the last stable offset under
// read_committed) and the reader returns io.EOF when every partition
// reached it — control records are kept internally so that a trailing
// transaction marker moves the position. Rows are built by a Decoder (the
// formats) plus the requested metadata columns; offsets are committed to
// 'properties.group.id' when a checkpoint completes.
//
// # Client properties
//
// 'properties.*' options use the Java client's names and are mapped onto
// franz-go in one place (see SupportedProperties); any other property is a
// *PropertyError.
package kafka
