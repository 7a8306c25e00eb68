// Package kafka is the Kafka connector: a sink with the delivery
// guarantees none, at-least-once and exactly-once, and a source reader
// with direct partition assignment, startup and bounded modes.
//
// Users need two names: [Factory] and [UpsertFactory], the two
// connectors' declarations (every option is in factory.go); importing the
// package registers them. The other exported names are the errors callers
// classify: [CommitLostError], [TimeoutError], [ErrSlotsExhausted],
// [ErrDeliveryTimeout], and the client-property errors ([AuthError],
// [SecurityError], [PropertyError], [TLSError], [JAASError]).
//
// To change the connector, start with sink (sink.go: newSink returns a
// sink or an exactlyOnceSink) and source (source.go) with its reader:
// the record path in reader.go, where each split starts and ends in
// reader_offsets.go. The record path every writer shares (encoding,
// produce promises, the delivery timeout, the warm-up of a producing
// client) is package internal/produce (produce.Producer, produce.Warm);
// the transaction machinery — the pool of transactional ids, the
// exactly-once writer, the committer — is package internal/txn (txn.Sink,
// txn.Writer, txn.Committer); the mapping of Java client properties onto
// franz-go is package internal/clientprops.
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
// value is a *option.ConflictError). Checks that need the schema —
// upsert-kafka's PRIMARY KEY, key columns, metadata keys, the formats'
// column types — run when the source or sink is created.
//
// Deviations from Flink, all documented in the option descriptions:
// 'sink.transaction-naming-strategy' defaults to POOLING; an exactly-once
// sink without 'sink.transactional-id-prefix' derives one from the job
// name and the table's name (defaultTransactionalIDPrefix: the factories'
// Describe hook returns it as a derived option, which the planner passes
// to the sink and EXPLAIN shows with a warning; a sink created outside a
// job derives the same when its committer or a writer is created);
// 'properties.transaction.timeout.ms' defaults to the brokers' maximum.
//
// The factories declare the connectors' traits: readable and writable
// metadata, changelog modes (upsert-kafka: upsert, with a PRIMARY KEY),
// and through Describe the EXPLAIN summary, the delivery guarantee, the
// transactional-id prefix as a resource no two sinks of a job may share,
// the transaction-timeout check against the job's checkpoint settings
// (validateTransactionTimeout), and which consumer group a source resumes
// from, so that the planner can tell when an exactly-once sink commits its
// sources' offsets in its transactions.
//
// Rows of a source have one field per physical and metadata column in
// schema order (computed columns are not the connector's); rows of a sink
// have one field per physical and non-virtual metadata column. The key
// format handles the 'key.fields' (upsert-kafka: the PRIMARY KEY) with
// 'key.fields-prefix' stripped from their names; the value format every
// physical column (ALL) or those not in the key (EXCEPT_KEY). Each reader
// and writer creates its own decoders and encoders. A decode error is
// wrapped with the record's topic, partition and offset; a record the
// format skips (factory.ErrSkipRecord) is counted by reader.Skipped.
// 'scan.bad-record.policy' (badrecord.go) decides what a record with a
// factory.DecodeError, or with a row the pipeline rejects
// (connector.ErrBadRow), does: fail the job, skip it (counted, logged at a
// bounded rate), or become a dead letter — the original record with
// HeaderDeadLetter* headers — written by the pipeline's exactly-once Kafka
// sink inside its own transactions when it writes to the same cluster
// (txn.Writer implements connector.DeadLetterWriter, with the record path
// exactlyOnceSink.deadLetterProducer), else by the source's dead-letter
// sink (connector.DeadLetterSource), an ordinary sink of this package that
// the runtime commits with the pipeline's checkpoints.
//
// upsert-kafka writes INSERT and UPDATE_AFTER rows as records and DELETE
// rows as tombstones, and drops UPDATE_BEFORE rows (errSkipRow); with
// 'sink.buffer-flush.*' an upsertBuffer keeps the latest row per key. Its
// source reads from the earliest offset and produces an upsert changelog:
// a value is an INSERT when its key is new to the reader and an
// UPDATE_AFTER otherwise (readers remember the keys they saw, as Flink's
// changelog normalisation does; after a restore the first value of a key
// is an INSERT again), a tombstone a DELETE carrying only the key columns.
//
// # Exactly-once
//
// The exactly-once sink keeps the rules of docs/exactly-once.md. Each
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
// The committer (txn.Committer) commits on the slot's own client when this process still
// owns it, and otherwise — after a restart or an unconfirmed in-process
// commit — by a raw EndTxn from a non-transactional client whose EndTxn
// version matches the recorded transaction version (≤4 for 0/1, 5 for 2).
// A broker answer meaning the transaction was aborted becomes a
// *CommitLostError wrapping connector.ErrCommitLost. Recover commits the
// restored committables first, then aborts every open transaction of the
// prefix whose (producer id, epoch) is not restored.
//
// A slot is reused only when the commit of its last committable is
// durably acknowledged: under the runtime, when
// connector.TaskInfo.Commits reports Durable for the committable's
// checkpoint id (restored ids too: their committables carry theirs);
// writers opened without it use an ackTracker. Under transaction version
// 0/1 each reuse starts on a new client (a fresh InitProducerId). The pool
// is bounded: when every slot waits for a durable acknowledgement, Write
// waits for one (at most half the transaction timeout) and then fails with
// ErrSlotsExhausted. The runtime's
// execution.checkpointing.max-uncommitted-checkpoints (default 3, below the
// default pool of 8 ids per task) keeps commits from lagging that far; it
// does not call txn.Writer.CheckpointReady and OldestUncommitted,
// which report the same state for another driver that wants it.
//
// # Runtime integration
//
// The runtime creates the committer once per run (Committer(ctx, job),
// which also derives a missing transactional-id prefix from the job name),
// commits the restored committables and calls Recover before any writer
// opens. The committer implements connector.TransactionTimeouter, so the
// runtime warns when pending transactions age and fails over before one
// nears the timeout. A Commit error wrapping connector.ErrCommitLost is
// terminal. Readers with 'properties.group.id' implement
// connector.GroupPositionReader and the exactly-once writer implements
// connector.GroupPositionWriter: when every row of a source task goes to
// one exactly-once writer on the same cluster (same cluster id), the
// writer commits the source's offsets inside its transaction
// (AddOffsetsToTxn below transaction version 2, then TxnOffsetCommit), so
// that the group's offsets are exactly the committed output; otherwise the
// reader commits them after the checkpoint's commits are durably
// acknowledged. An interrupted Read (the runtime cancels its context to
// inject a barrier) returns the rows already fetched.
//
// # Source
//
// The source has one split per partition ("<topic>:<partition>"), read by
// direct assignment; a split's state is the next offset as decimal text.
// Startup modes resolve to concrete offsets when a reader opens; bounded
// modes give each partition an end offset (the last stable offset under
// read_committed) and the reader returns io.EOF when every partition
// reached it — control records are kept internally so that a trailing
// transaction marker moves the position. Rows are built by a decodeFunc (the
// formats) plus the requested metadata columns; offsets are committed to
// 'properties.group.id' with the checkpoint's commits (see above). Unbounded readers
// discover partitions added during a run every
// 'scan.topic-partition-discovery.interval': each new split goes to the
// task its id hashes to, starts at the earliest offset and is snapshotted
// like the others (the next run lists it among the splits).
//
// Readers and writers implement connector.ByteCounter (key and value
// bytes) for the runtime's metrics.
//
// # Client properties
//
// 'properties.*' options use the Java client's names and are mapped onto
// franz-go in one place, package internal/clientprops (see
// clientprops.SupportedProperties); any other property is a
// *PropertyError. Where a property is not set, franz-go's default applies,
// except for the source's fetch sizes (DefaultPartitionFetchBytes,
// DefaultFetchMaxBytes), which are smaller than the Java client's because
// franz-go holds a whole fetch decompressed; the reader takes every
// buffered record of a fetch at once, so that the client prefetches the
// next while this one is decoded.
package kafka
