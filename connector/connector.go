// Package connector defines what a table source or sink implements: the
// contract between connectors (built-in or an embedder's own) and the
// runtime that runs them. Factories (package factory) create Sources and
// Sinks from validated options; the runtime opens readers and writers in
// tasks, snapshots their positions at checkpoint barriers, and drives the
// two-phase commit of sinks.
//
// Interfaces here are small and blocking; the runtime owns goroutines,
// retries and shutdown. Optional capabilities are separate interfaces that
// the runtime discovers by type assertion.
//
// The types to learn first: [Source] and the [Reader] each source task
// opens on its splits ([Split]); [Sink] and its [Writer]; and, for
// exactly-once sinks, [TwoPhaseSink] with its [Committer].
// connector/connectortest checks an implementation against these
// contracts.
package connector

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/streamsql/streamsql/types"
)

// TaskInfo tells a reader or writer where it runs.
type TaskInfo struct {
	// Job is the job's name (docs/runtime.md, "Job identity"). It is stable across
	// restarts.
	Job string
	// Table is the catalog name of the table the task reads or writes.
	Table string
	// Sink is, for sink tasks, the sink's id in the job ("pipeline/table"):
	// unique within the job even when several INSERTs write one table,
	// and stable across restarts (checkpoints store committables under
	// it). It is empty for source tasks and when the caller is not the
	// runtime.
	Sink string
	// Index is the task's index among Parallelism tasks of its operator.
	Index int
	// Parallelism is the number of tasks of the operator.
	Parallelism int
	// Logger is the task's logger; never nil.
	Logger *slog.Logger
	// Commits reports the commit state of what a writer pre-committed. It
	// is set for sink tasks and nil for source tasks.
	Commits CommitTracker
	// RestoredCheckpoint is the id of the checkpoint this run restored, 0
	// when it started afresh. Checkpoint ids passed to PreCommit in this
	// run are greater.
	RestoredCheckpoint int64
	// MaxUncommitted is, for sink tasks, how many transactions the runtime
	// lets one task hold that are not committed: the open one, one per
	// checkpoint in flight (execution.checkpointing.max-concurrent-checkpoints)
	// and one per completed or failed checkpoint whose work waits for its
	// commit (max-uncommitted-checkpoints; the runtime stops triggering
	// checkpoints at that many). A writer with a pool of transactional
	// resources sizes it from this. 0: unknown.
	MaxUncommitted int
}

// CommitTracker tells a sink writer whether pre-committed work has been
// committed and whether that commit's acknowledgement is durable (it
// survives a crash: recovery will not commit that work again). A writer
// that reuses a resource per transaction, such as a Kafka transactional id,
// may reuse it only once Durable reports true for the checkpoint in which
// the resource's previous transaction was pre-committed; otherwise recovery
// could commit the old committable against the resource's newer work.
// Methods are safe for concurrent use.
type CommitTracker interface {
	// Durable reports whether every committable that any task of this
	// sink, in this run or an earlier one, pre-committed at a checkpoint
	// with an id <= checkpointID is committed with a durable
	// acknowledgement. Resources last used by an earlier run are safe to
	// reuse once Durable(TaskInfo.RestoredCheckpoint) is true.
	Durable(checkpointID int64) bool
}

// Split is a unit of parallel reading: a Kafka partition, a file, a
// generator's sequence. Splits are assigned to readers by the runtime.
type Split struct {
	// ID is stable across runs; checkpoint state is stored under it.
	ID string
}

// SplitState is a split and the reader's position in it, as stored in a
// checkpoint.
//
// State is nil when the split has no checkpointed position. Then Added
// tells the reader where to start:
//
//   - Added false: the run starts afresh (no checkpoint restored, or the
//     restored checkpoint holds nothing of this source). The reader starts
//     as its options say (for example 'scan.startup.mode').
//   - Added true: the run restored a checkpoint that holds this source's
//     positions, but not this split's: the split appeared after that
//     checkpoint (a partition added while the job was down, or discovered
//     during the run after the last checkpoint). The reader must read it
//     from its beginning, as Flink does (FLIP-288): starting it as the
//     options say (for example at the latest offset) would silently skip
//     what was written to it while the job did not read it. A connector
//     written before this field existed keeps its old behaviour (the
//     startup options); one that claims exactly-once should honour it.
//
// Added is a hint from the runtime for one Open call; it is never stored.
type SplitState struct {
	ID    string
	State []byte
	Added bool `json:"-"`
}

// Source is a table source created by a factory.
type Source interface {
	// Splits lists the splits to read. It is called once per run, before
	// any reader is opened.
	Splits(ctx context.Context) ([]Split, error)
	// Open returns a reader for the given splits, each with the state
	// restored from the checkpoint (nil state: start from the options, or
	// from the split's beginning when SplitState.Added is set).
	//
	// ctx is the run's: it ends when the run ends (on a failure as soon as
	// the run's tasks stop), never before the reader's Close on a normal
	// end. A goroutine, timer or request that the reader keeps beyond a
	// call is rooted in it, so that it cannot outlive the run, and Close
	// waits for it. The same holds for Sink.Open and
	// TwoPhaseSink.Committer.
	Open(ctx context.Context, task TaskInfo, splits []SplitState) (Reader, error)
	// Bounded reports whether every reader eventually returns io.EOF.
	Bounded() bool
}

// Reader reads rows from its assigned splits.
type Reader interface {
	// Read blocks until rows are available and returns them. It returns
	// io.EOF when a bounded reader is done, and ctx.Err() when ctx is done.
	// The returned rows belong to the caller: the reader must not modify
	// them afterwards.
	//
	// The runtime cancels ctx to interrupt a blocked Read when it must
	// inject a checkpoint barrier, and then calls Read again with a new
	// context: an interrupted Read must not lose rows (rows it had fetched
	// but not returned are returned by a later Read), and Snapshot must
	// describe the position after the last rows actually returned.
	Read(ctx context.Context) ([]types.Row, error)
	// Snapshot returns the position of every assigned split after the last
	// row returned by Read. The runtime calls it between Reads when it
	// injects a checkpoint barrier.
	Snapshot(checkpointID int64) ([]SplitState, error)
	// Close releases the reader's resources.
	Close() error
}

// InputEnder is implemented by writers that act when their input has ended
// for good: every upstream task read all its input (bounded sources
// returned io.EOF), as Flink's endInput. The runtime calls EndInput once,
// from the task's goroutine, after the writer's last row and before the
// PreCommit of the final checkpoint; it does not call it when a job stops
// for another reason (a graceful stop, a failure), whose input goes on in
// a later run. The filesystem sink commits its pending partitions then.
type InputEnder interface {
	EndInput(ctx context.Context) error
}

// WatermarkWriter is implemented by writers that act on event time: the
// runtime calls Watermark from the task's goroutine, between Writes, each
// time the event-time watermark of the rows the writer receives advances
// (milliseconds since the epoch; it never goes back within a run, and is
// math.MaxInt64 once a bounded input has ended), after every row that came
// before it. A writer that wants the watermark in a checkpoint records it
// in its PreCommit: the runtime calls neither between a barrier and the
// PreCommit of its checkpoint. A job whose sources declare no event time
// never calls it. The filesystem sink commits partitions by it (Flink's
// partition-time trigger).
type WatermarkWriter interface {
	Watermark(ctx context.Context, watermark int64) error
}

// CheckpointListener is implemented by readers and writers that want to
// know when a checkpoint is complete (durably written). Its commits may
// still be pending then: consumer group positions belong in
// GroupPositionReader, which the runtime calls only after the commits.
type CheckpointListener interface {
	CheckpointComplete(ctx context.Context, checkpointID int64) error
}

// GroupPositions are a reader's positions as a consumer group stores them:
// for each partition the next offset to read. The runtime never interprets
// them; it only moves them from a GroupPositionReader to a
// GroupPositionWriter, or back to the reader for a plain commit.
type GroupPositions struct {
	// Cluster identifies the cluster that holds the group (for Kafka: the
	// cluster id from its metadata). A writer stores positions with its own
	// work only when its cluster is the same.
	Cluster string
	// Group is the consumer group (for Kafka: 'properties.group.id').
	Group string
	// Generation, MemberID and InstanceID are the group membership the
	// positions are committed under: -1, "" and "" for a reader that is
	// not a member of the group (it assigns its partitions itself).
	Generation int32
	MemberID   string
	InstanceID string
	// Offsets lists the next offset to read of every partition the reader
	// holds.
	Offsets []PartitionOffset
	// Membership, when set, returns the membership to commit the
	// positions under at the time of the commit: a group member's
	// generation can move on between GroupPositions and the commit (a
	// rebalance that left the member its partitions), and the group
	// refuses the older one. ok is false when the member no longer holds
	// every partition of Offsets; Generation and MemberID apply then.
	Membership func() (memberID string, generation int32, ok bool)
}

// Current returns p with the membership Membership reports now, or p
// itself when it has none or reports none.
func (p GroupPositions) Current() GroupPositions {
	if p.Membership == nil {
		return p
	}
	if id, gen, ok := p.Membership(); ok {
		p.MemberID, p.Generation = id, gen
	}
	return p
}

// PartitionOffset is the next offset to read of one partition.
type PartitionOffset struct {
	Topic     string
	Partition int32
	Offset    int64
}

// GroupPositionReader is implemented by readers whose positions can be
// committed to a consumer group, so that lag tools see them and a start
// without a checkpoint resumes from them (for Kafka: a reader with
// 'properties.group.id').
//
// The runtime calls GroupPositions right after each Snapshot and commits
// the positions of checkpoint N in one of two ways, never both for one
// reader:
//
//   - inside the sink's pre-committed work, when every row the reader
//     emits goes to one writer task and that writer is a
//     GroupPositionWriter that accepts them; the group's positions then
//     change exactly when that work is committed;
//   - otherwise with CommitGroupPositions, once every commit of checkpoint
//     N and of all earlier checkpoints is durably acknowledged (also for
//     the final checkpoint of a graceful stop), so that the group's
//     positions are never ahead of the committed output.
//
// A failed CommitGroupPositions is logged as a warning and counted; the
// job goes on (the checkpoint, not the group, is the truth while a
// checkpoint exists).
type GroupPositionReader interface {
	// GroupPositions returns the positions described by the last Snapshot;
	// ok is false when the reader has no group.
	GroupPositions() (p GroupPositions, ok bool)
	// CommitGroupPositions commits p (returned by GroupPositions) to its
	// group outside any transaction. It may be called from the task's
	// goroutine between Reads.
	CommitGroupPositions(ctx context.Context, p GroupPositions) error
}

// GroupPositionWriter is implemented by writers that can commit consumer
// group positions atomically with their pre-committed work (for the
// exactly-once Kafka sink: TxnOffsetCommit inside the transaction, so that
// a recovery commit of the transaction commits the positions too).
type GroupPositionWriter interface {
	// AcceptsGroupPositions reports whether positions of p's cluster can be
	// stored with this writer's work. The answer must not change during
	// the writer's life.
	AcceptsGroupPositions(p GroupPositions) bool
	// PreCommitWithPositions is PreCommit that also stores positions (each
	// accepted) with the pre-committed work. When the writer has no work
	// to pre-commit (the rows before the barrier produced nothing here)
	// it still stores positions that moved since the last ones it stored,
	// in pre-committed work of their own — the runtime commits them no
	// other way — and may return no committables when none moved. When
	// the work was
	// pre-committed but the positions could not be stored with it (for
	// example the group has members that do not know this writer), it
	// returns the committables together with an error wrapping
	// ErrGroupPositions; the runtime logs it as a warning, counts it and
	// goes on.
	PreCommitWithPositions(ctx context.Context, checkpointID int64, positions []GroupPositions) ([]Committable, error)
}

// ErrGroupPositions is wrapped by errors that mean consumer group positions
// were not stored while everything else succeeded.
var ErrGroupPositions = errors.New("consumer group positions not committed")

// Sink is a table sink created by a factory.
type Sink interface {
	// Open returns a writer for one sink task. ctx is the run's (see
	// Source.Open): what the writer starts in the background (a warm-up,
	// timed flushes) is rooted in it.
	Open(ctx context.Context, task TaskInfo) (Writer, error)
}

// Writer writes rows of one sink task.
type Writer interface {
	// Write writes rows. It may buffer, and keep rows, but must not modify
	// them: the same rows may go to several sinks.
	Write(ctx context.Context, rows []types.Row) error
	// PreCommit is phase one of two-phase commit, called when the task
	// receives the barrier of checkpoint checkpointID, after every row
	// before the barrier was passed to Write. A non-transactional writer
	// flushes and returns no committables; a transactional one completes
	// (but does not commit) its current transaction and returns its
	// handle. Any write failure since the last PreCommit must be returned
	// here, so that the checkpoint fails.
	PreCommit(ctx context.Context, checkpointID int64) ([]Committable, error)
	// Close releases the writer; work not pre-committed is discarded
	// (a transactional writer aborts its open transaction). When a job
	// ends normally (stop or end of input), Close is called after the
	// commits of the final checkpoint are acknowledged; after a failure it
	// may be called before pending commits are done, which then happen
	// through the Committer (in a later run's Recover if need be).
	Close() error
}

// Committable is a small serializable handle on pre-committed work (for
// Kafka: transactional id, producer id, epoch and transaction version). The
// runtime stores it in the checkpoint and hands it back to the Committer.
type Committable []byte

// TwoPhaseSink is implemented by sinks whose writers return committables.
type TwoPhaseSink interface {
	Sink
	// Committer returns the sink's committer. It is created once per run,
	// before any writer is opened; ctx is the run's (see Source.Open).
	Committer(ctx context.Context, job string) (Committer, error)
}

// ScopedTwoPhaseSink is implemented by two-phase sinks whose committer must
// know which sink of the job it serves: for example to tell its own
// leftovers from those of another sink of the job (another INSERT into
// the same table) that writes to the same place. The runtime then calls
// ScopedCommitter instead of Committer, with sink as in TaskInfo.Sink.
type ScopedTwoPhaseSink interface {
	TwoPhaseSink
	ScopedCommitter(ctx context.Context, job, sink string) (Committer, error)
}

// Committer commits and aborts committables. All methods must be safe to
// call again after a failure or a crash: committing an already committed
// committable succeeds.
type Committer interface {
	// Commit is phase two. It returns an error wrapping ErrCommitLost when
	// the other side definitely discarded the work (it will never commit);
	// any other error is retried by the runtime with backoff.
	Commit(ctx context.Context, c Committable) error
	// Abort discards pre-committed work. Aborting what is already aborted
	// or unknown succeeds.
	Abort(ctx context.Context, c Committable) error
	// Recover is called once at start, before any writer is opened, with
	// the committables of the restored checkpoint that are not known to be
	// committed. It commits them, then aborts any work that earlier runs
	// left open and that is not among them. (The runtime has just
	// committed each of them with Commit, retrying, so that a lost one is
	// reported exactly; committing them again here is idempotent.)
	Recover(ctx context.Context, pending []Committable) error
	// Close releases the committer.
	Close() error
}

// TransactionTimeouter is implemented by Committers whose pre-committed
// work expires on the other side after a time (for Kafka:
// transaction.timeout.ms). The runtime warns when a pending committable's
// age passes half of it and fails over to the last completed checkpoint
// before a committable that is not yet in a completed checkpoint reaches
// four fifths of it.
type TransactionTimeouter interface {
	TransactionTimeout() time.Duration
}

// HealthReporter is implemented by readers and writers that can say why
// they may be stuck, for example because the brokers of their Kafka
// cluster cannot be reached. The runtime polls it about once a second,
// from another goroutine (it must be safe for concurrent use), and warns
// naming what waits on it, and again when it recovers.
type HealthReporter interface {
	// Unhealthy describes what is wrong now; "" when nothing is.
	Unhealthy() string
}

// RowPositioner is implemented by readers that know where each row of a
// batch came from, so that an error about a row (a NULL for a NOT NULL
// sink column, say) can name it. RowPosition(i) describes the source
// position of row i of the batch Read returned last, such as "topic 't'
// partition 0 offset 42", or returns "" when it is not known. It is called
// from the reading goroutine only, before the next Read.
type RowPositioner interface {
	RowPosition(i int) string
}

// RowSplitter is implemented by readers whose batches mix the rows of
// several splits (a Kafka reader's, of several partitions), so that the
// runtime can track event time per split: a split that lags behind the
// others then holds the watermark back instead of seeing its rows dropped
// as late. RowSplit(i) returns the index, among the splits Open was given,
// of the split row i of the batch Read returned last came from, or -1 when
// it is none of them (a partition discovered during the run). It is called
// from the reading goroutine only, before the next Read. A reader without
// it counts as one split for event time.
type RowSplitter interface {
	RowSplit(i int) int
}

// ErrDropRow is returned (possibly wrapped) by a pipeline's transform for a
// row it drops on purpose (a NULL for a NOT NULL sink column under
// table.exec.sink.not-null-enforcer = DROP): the runtime counts the row as
// dropped and goes on.
var ErrDropRow = errors.New("row dropped")

// RowRecycler is implemented by readers that can reuse the memory of the
// rows a Read returned. The runtime calls Recycle with the rows of the
// reader's last Read, from the goroutine that calls Read and before the
// next Read, once nothing refers to them or to their Fields any more (the
// pipeline's transform copied what it needed into rows of its own): the
// reader may then overwrite them. Rows the runtime passes on are never
// recycled.
type RowRecycler interface {
	Recycle(rows []types.Row)
}

// NestedRowRecycler is a RowRecycler that can also reuse the memory of
// the nested values (ROW, ARRAY and MAP values) in the rows a Read
// returned. The runtime calls RecycleNested instead of Recycle when the
// chain's first operator promises that its output refers to no nested
// value of its input either (runtime.Pipeline.TransformCopiesNested: its
// output columns are all scalars), with Recycle's other conditions: the
// reader may then overwrite the rows, their Fields and the nested values
// in them. Scalar values stay valid (a string or a byte slice is never
// overwritten by either method).
type NestedRowRecycler interface {
	RowRecycler
	RecycleNested(rows []types.Row)
}

// RowForgetter is implemented by writers that keep no reference to the
// rows slice of a Write, nor to the Fields slice of any row in it, once
// the Write returns (they encode, count or print the rows at once, as the
// blackhole, print and Kafka sinks do; a writer that buffers rows, such as
// JDBC's batches or an upsert buffer, must not claim it). Values copied
// out of the rows (strings, bytes, nested values) may still be kept: only
// the rows and their Fields are reused. When ForgetsRows returns true and
// the writer is fused right after a pipeline's transform, the runtime lets
// the transform reuse the memory of the rows it handed to one Write for
// those of the next (runtime.Pipeline.NewReusingTransform).
type RowForgetter interface {
	ForgetsRows() bool
}

// ByteCounter is implemented by readers and writers that count the bytes
// they read or wrote, for metrics. It must be safe for concurrent use: the
// runtime calls it from other goroutines.
type ByteCounter interface {
	Bytes() int64
}

// PartitionLag is where a reader stands in one partition of its input and
// how far that is from the partition's end, for status pages and metrics.
// An offset unknown so far (no fetch response seen yet) is -1.
type PartitionLag struct {
	// Topic and Partition name the partition.
	Topic     string
	Partition int32
	// Position is the next offset the reader returns.
	Position int64
	// HighWatermark and LastStableOffset are the partition's end offsets
	// as the latest fetch response reported them.
	HighWatermark, LastStableOffset int64
	// Lag counts the offsets between Position and the end the reader
	// reads up to (the last stable offset under read_committed, else the
	// high watermark; a bounded reader's end offset when that is lower).
	Lag int64
}

// LagReporter is implemented by readers that know their partitions'
// positions and end offsets. PartitionLags appends one entry per partition
// the reader is assigned to dst and returns it. It must be safe for
// concurrent use: the runtime calls it from other goroutines.
type LagReporter interface {
	PartitionLags(dst []PartitionLag) []PartitionLag
}

// ErrCommitLost is wrapped by Commit errors that mean the pre-committed
// work is gone for good (for Kafka: the broker aborted the transaction).
// The runtime fails the job with it instead of retrying or restarting.
var ErrCommitLost = errors.New("pre-committed work was lost")

// ErrUnrecoverable is wrapped by errors that retrying or restarting cannot
// fix, such as a setting the external system refuses (a Kafka transaction
// timeout above the brokers' maximum, or 'properties.auto.offset.reset' =
// 'none' with no committed offset). The runtime fails the job with it at
// once instead of restarting.
var ErrUnrecoverable = errors.New("unrecoverable")

// Reassigning is implemented by sources whose splits are assigned from
// outside the job and may change while it runs: in a scaled-out job
// (pipeline.scale-out), a Kafka source's splits are the partitions its
// consumer group assigns this process. Splits then returns the current
// assignment (waiting for the first one).
//
// When the assignment changes, the channel Reassigned returned after that
// Splits call is closed. The runtime then stops the run gracefully — a
// final checkpoint whose commits (and the positions committed with them)
// complete before the readers close — and calls Released(false); then it
// starts a new run, which calls Splits again. A source giving up splits
// may wait for Released before it lets them go (a Kafka source blocks its
// group's rebalance so), so that the next owner starts exactly where the
// committed output ends. Released is also called, with false, after a run
// that failed, and once with true when the job ends: the source then
// leaves its group and releases what it holds.
type Reassigning interface {
	Source
	Reassigned() <-chan struct{}
	Released(last bool)
}
