// Package kafka is the Kafka connector: a sink with the delivery
// guarantees none, at-least-once and exactly-once, and a source reader
// with direct partition assignment, startup and bounded modes.
//
// # Tables
//
// Importing the package registers the connectors 'kafka' and
// 'upsert-kafka' in factory.Default (Factory, UpsertFactory) with every
// option of Flink's, under Flink's names and defaults; the configuration
// reference (factory.Registry.WriteMarkdown) lists them. Validation checks
// options and their relationships (topic or topic-pattern; the specific
// offsets and timestamps each mode needs; 'key.format' with 'key.fields';
// a key prefix only with EXCEPT_KEY; round-robin without key fields;
// upsert-kafka's buffer options together; every 'properties.*' key mapped
// onto franz-go) and reports typed factory errors. 'sink.semantic' is the
// deprecated alias of 'sink.delivery-guarantee' (a warning; a conflicting
// value is a *factory.ConflictError). Checks that need the schema —
// upsert-kafka's PRIMARY KEY, key columns, metadata keys, the formats'
// column types — run when the source or sink is created.
//
// Deviations from Flink, all documented in the option descriptions:
// 'sink.transaction-naming-strategy' defaults to POOLING; an exactly-once
// sink without 'sink.transactional-id-prefix' derives one from the job
// name and the table (DefaultTransactionalIDPrefix, when the committer or
// a writer is created, since factory.Context has no job name; the planner
// shows it in EXPLAIN through TransactionalIDPrefix with
// TransactionalIDPrefixWarning); 'properties.transaction.timeout.ms'
// defaults to the brokers' maximum.
//
// Rows of a source have one field per physical and metadata column in
// schema order (computed columns are not the connector's); rows of a sink
// have one field per physical and non-virtual metadata column. The key
// format handles the 'key.fields' (upsert-kafka: the PRIMARY KEY) with
// 'key.fields-prefix' stripped from their names; the value format every
// physical column (ALL) or those not in the key (EXCEPT_KEY). Each reader
// and writer creates its own decoders and encoders. A decode error is
// wrapped with the record's topic, partition and offset; a record the
// format skips (factory.ErrSkipRecord) is counted by Reader.Skipped.
//
// upsert-kafka writes INSERT and UPDATE_AFTER rows as records and DELETE
// rows as tombstones, and drops UPDATE_BEFORE rows (ErrSkipRow); with
// 'sink.buffer-flush.*' an UpsertBuffer keeps the latest row per key. Its
// source reads from the earliest offset and produces an upsert changelog:
// a value is an INSERT when its key is new to the reader and an
// UPDATE_AFTER otherwise (readers remember the keys they saw, as Flink's
// changelog normalisation does; after a restore the first value of a key
// is an INSERT again), a tombstone a DELETE carrying only the key columns.
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
