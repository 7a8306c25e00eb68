package runtime

import "context"

// FaultPoint names a place in the checkpoint protocol where tests can make
// the job fail (see package testkit).
type FaultPoint string

// The failure points.
const (
	// BeforePreCommit: a sink task got an aligned barrier and has not
	// called PreCommit yet.
	BeforePreCommit FaultPoint = "before-pre-commit"
	// AfterPreCommit: PreCommit returned; the coordinator has no ack yet.
	AfterPreCommit FaultPoint = "after-pre-commit"
	// AfterCheckpointWritten: the checkpoint is durable; nothing is
	// committed or notified yet.
	AfterCheckpointWritten FaultPoint = "after-checkpoint-written"
	// BetweenSinkCommits: the first sink's committables of a checkpoint
	// are committed, the next sink's are not (the seed's partial commit).
	BetweenSinkCommits FaultPoint = "between-sink-commits"
	// AfterCommit: a commit succeeded; its acknowledgement is not durable.
	AfterCommit FaultPoint = "after-commit"
	// DuringRecovery: the first sink's Recover committed the restored
	// committables; the job has not started.
	DuringRecovery FaultPoint = "during-recovery"
	// CommitDelay: the commits of a completed checkpoint are about to
	// start. An injector that blocks here delays the commit notification
	// (for several checkpoint intervals, say) while the job goes on.
	CommitDelay FaultPoint = "commit-delay"
	// DuringStateWrite: a task's state writer is writing an operator's
	// state: a file of it is durable, the write has not returned.
	DuringStateWrite FaultPoint = "during-state-write"
	// AfterStateWrite: a task's operator state is durable; the task has
	// not acknowledged the checkpoint yet.
	AfterStateWrite FaultPoint = "after-state-write"
	// BeforeCheckpointWrite: every task acknowledged the checkpoint; its
	// file is not written yet.
	BeforeCheckpointWrite FaultPoint = "before-checkpoint-write"
	// DuringPrune: state files that no retained checkpoint references are
	// being deleted: one was just deleted, others may not be yet.
	DuringPrune FaultPoint = "during-prune"
)

// FaultPoints lists every failure point.
func FaultPoints() []FaultPoint {
	return []FaultPoint{BeforePreCommit, AfterPreCommit, AfterCheckpointWritten,
		BetweenSinkCommits, AfterCommit, DuringRecovery, CommitDelay,
		DuringStateWrite, AfterStateWrite, BeforeCheckpointWrite, DuringPrune}
}

// OperatorState reports whether the point is on the path of operator
// state (its write and the deletion of its files): a job without a
// stateful operator never reaches it.
func (p FaultPoint) OperatorState() bool {
	switch p {
	case DuringStateWrite, AfterStateWrite, DuringPrune:
		return true
	}
	return false
}

// FaultInfo says where a failure point was reached.
type FaultInfo struct {
	// Checkpoint is the checkpoint concerned (during recovery: the
	// restored one, 0 when the job starts afresh).
	Checkpoint int64
	// Sink is the sink's id, when a sink is concerned.
	Sink string
	// Operator is the operator vertex's id, when an operator's state is
	// concerned.
	Operator string
	// Task is the sink's or operator's task index, when a task is
	// concerned.
	Task int
	// Final is set at the points of the final checkpoint of a stop or of
	// the end of the input (before-pre-commit, after-pre-commit,
	// during-state-write, after-state-write, before-checkpoint-write,
	// after-checkpoint-written).
	Final bool
}

// FaultInjector is consulted at each failure point. Hit returns an error
// to make the job fail there (the runtime treats it like any task error)
// or nil to go on; it may also block (to delay the protocol, until ctx is
// done) or kill the process. Hit is called from several goroutines.
type FaultInjector interface {
	Hit(ctx context.Context, p FaultPoint, info FaultInfo) error
}

func (j *Job) fault(ctx context.Context, p FaultPoint, info FaultInfo) error {
	if j.spec.Faults == nil {
		return nil
	}
	return j.spec.Faults.Hit(ctx, p, info)
}

// faultError wraps what an injector returned at a fault point where
// other errors are only warnings (the deletion of old state files), so
// that it fails the run as faults do elsewhere.
type faultError struct{ err error }

func (e *faultError) Error() string { return e.err.Error() }
func (e *faultError) Unwrap() error { return e.err }
