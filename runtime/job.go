package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// Job runs a JobSpec: it restores the latest checkpoint, runs the tasks
// and the checkpoint coordinator, and restarts after failures as the
// restart strategy allows.
type Job struct {
	spec JobSpec
	// graph is the job's graph: spec.Graph with the pipelines lowered
	// onto it.
	graph Graph
	log   *slog.Logger
	store checkpoint.Storage
	now   func() time.Time

	running  atomic.Bool
	restarts atomic.Int64
	// reassignments counts runs that stopped because a source's splits
	// were reassigned (pipeline.scale-out rebalances).
	reassignments atomic.Int64
	// reassignedAt is when the last reassignment stopped a run (unix
	// nanoseconds; 0 once the next run is running): the pause logged.
	reassignedAt atomic.Int64
	state        atomic.Value // State
	cur          atomic.Pointer[attempt]
	stats        statsState

	// recent keeps the latest warnings and errors of log for Status.
	recent recentLog
	// sameRecord counts runs in a row failed by one input record.
	sameRecord sameRecord
	// carried keeps the counters of ended runs (taskstats.go).
	carried carriedStats
	// ownRuns holds the ids of this Job's runs (reset.go).
	ownRuns sync.Map
	// graphStatus is the latest run's graph for Status (build).
	graphStatus atomic.Pointer[GraphStatus]
}

// CommitLostError is returned when a sink reports that pre-committed work
// is gone for good (it wraps connector.ErrCommitLost). It fails the job
// without restarts: a restart would restore the same checkpoint and fail
// again. The way on is to restore the fallback checkpoint
// (replaying its interval: nothing lost, possible duplicates in sinks
// whose commits succeeded) or to drop the pending committable from the
// latest checkpoint with checkpoint.DropPending (the CLI's checkpoint
// drop-pending), accepting the loss.
type CommitLostError struct {
	// Checkpoint is the checkpoint whose commit failed (the completed
	// checkpoint that carried the committable, or the restored one during
	// recovery).
	Checkpoint int64
	// Sink is the sink's id.
	Sink string
	// Key identifies the committable; Committable is its data.
	Key         checkpoint.Key
	Committable connector.Committable
	// Err is the sink's error.
	Err error
}

func (e *CommitLostError) Error() string {
	return fmt.Sprintf("checkpoint %d: sink %q lost committable %s (%q): %v; the job cannot go on by itself. %s",
		e.Checkpoint, e.Sink, e.Key, e.Committable, e.Err, wayOn([]checkpoint.Key{e.Key}))
}

// wayOn tells the operator the two ways on after lost commits.
func wayOn(keys []checkpoint.Key) string {
	tokens := make([]string, 0, len(keys))
	for _, k := range keys {
		if k.Sink != "" {
			tokens = append(tokens, "'"+k.Token()+"'")
		}
	}
	return "Either restore the fallback checkpoint (`streamsql checkpoint list` shows it; then `streamsql run --from-checkpoint FILE`): " +
		"it replays its interval, nothing is lost, sinks whose commits succeeded may get rows again; " +
		"or accept the loss: `streamsql checkpoint drop-pending JOB.sql " + strings.Join(tokens, " ") +
		"` (checkpoint.DropPending) drops the lost committables from the latest checkpoint, then start again"
}

// Unwrap returns the sink's error, which wraps connector.ErrCommitLost.
func (e *CommitLostError) Unwrap() error { return e.Err }

// CommitsLostError is returned when several commits are lost: the run
// committed and acknowledged every other pending committable first, so
// that it lists every lost one at once. errors.As finds each
// *CommitLostError in it.
type CommitsLostError struct {
	// Lost lists the lost commits in the order they were found.
	Lost []*CommitLostError
}

func (e *CommitsLostError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d commits lost; the job cannot go on by itself:", len(e.Lost))
	for _, l := range e.Lost {
		fmt.Fprintf(&b, "\n  - checkpoint %d: sink %q lost committable %s (%q): %v", l.Checkpoint, l.Sink, l.Key, l.Committable, l.Err)
	}
	keys := make([]checkpoint.Key, len(e.Lost))
	for i, l := range e.Lost {
		keys[i] = l.Key
	}
	b.WriteString("\n" + wayOn(keys))
	return b.String()
}

// Unwrap returns the lost commits' errors.
func (e *CommitsLostError) Unwrap() []error {
	errs := make([]error, len(e.Lost))
	for i, l := range e.Lost {
		errs[i] = l
	}
	return errs
}

// lostError returns the error for lost commits: the *CommitLostError of
// one, a *CommitsLostError of several.
func lostError(lost []*CommitLostError) error {
	if len(lost) == 1 {
		return lost[0]
	}
	return &CommitsLostError{Lost: slices.Clone(lost)}
}

// errStopTimeout is the cause when a graceful stop takes too long.
var errStopTimeout = errors.New("graceful stop timed out")

// NewJob validates spec and opens its checkpoint storage.
func NewJob(spec JobSpec) (*Job, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	j := &Job{spec: spec, graph: spec.graph(), log: spec.Logger, now: time.Now}
	if j.log == nil {
		j.log = slog.Default()
	}
	j.log = slog.New(&recentHandler{inner: j.log.Handler(), log: &j.recent}).With("job", spec.Name)
	for _, w := range spec.StartWarnings {
		j.recent.add(LogEntry{Time: j.now(), Level: slog.LevelWarn, Message: w})
	}
	if d := spec.Config.Checkpoint.Dir; d != "" {
		st, err := checkpoint.Open(d, spec.Name, j.storageOptions())
		if err != nil {
			return nil, err
		}
		j.store = st
	} else {
		j.store = &checkpoint.Memory{}
	}
	return j, nil
}

// storageOptions are what opening checkpoint storage needs besides the
// location.
func (j *Job) storageOptions() checkpoint.OpenOptions {
	return checkpoint.OpenOptions{S3: j.spec.Config.S3, Logger: j.log}
}

// Logger returns the job's log: JobSpec.Logger (or slog.Default()) with
// the job's name, whose warnings and errors Status.Recent lists.
// Connectors created before the job may log through it.
func (j *Job) Logger() *slog.Logger { return j.log }

// Run runs the job until its bounded sources are done, ctx is cancelled
// (graceful stop: a final checkpoint is taken and committed), or it fails
// and the restart strategy gives up. It returns nil after a finish or a
// graceful stop. A Job runs once at a time: Run returns an error while
// another Run of the same Job is in progress.
func (j *Job) Run(ctx context.Context) error {
	if !j.running.CompareAndSwap(false, true) {
		return fmt.Errorf("job %q is already running", j.spec.Name)
	}
	defer j.running.Store(false)
	defer j.releaseSources(true)
	if d, ok := j.store.(checkpoint.Durable); ok {
		unlock, err := d.Lock()
		if err != nil {
			return fmt.Errorf("job %q: %w", j.spec.Name, err)
		}
		defer unlock()
		if done, err := j.finishedBefore(d); done || err != nil {
			return err
		}
	}
	rs := newRestarter(j.spec.Config, j.now)
	first := true
	for {
		started := j.now()
		j.state.Store(StateRestoring)
		err := j.runOnceSafe(ctx, first)
		j.endRun(j.cur.Load())
		first = false
		if errors.Is(err, errReassigned) {
			j.reassignments.Add(1)
			continue
		}
		if err == nil {
			if ctx.Err() != nil {
				j.state.Store(StateStopped)
			} else {
				j.state.Store(StateFinished)
			}
			return nil
		}
		j.state.Store(StateFailed)
		if serr := j.sameRecord.failed(err, j.spec.Config.Restart.MaxFailuresPerRecord); serr != nil {
			err = serr
		}
		// The status lists each failure once: a failure the job restarts
		// after as the warning below, the one that ends it as this error.
		failed := func(err error) error {
			j.recent.add(LogEntry{Time: j.now(), Level: slog.LevelError, Message: "job failed", Attrs: "err=" + err.Error()})
			return err
		}
		// Restarting cannot help these: the same checkpoint or spec would
		// fail the same way.
		if errors.Is(err, ErrRecordKeepsFailing) || errors.Is(err, connector.ErrCommitLost) || errors.Is(err, connector.ErrUnrecoverable) || errors.Is(err, ErrInvalidSpec) ||
			errors.Is(err, checkpoint.ErrCorrupt) || errors.Is(err, checkpoint.ErrDirGone) || errors.Is(err, checkpoint.ErrLocked) ||
			errors.Is(err, errStopTimeout) {
			return failed(err)
		}
		if ctx.Err() != nil {
			return failed(err)
		}
		delay, ok := rs.next(started)
		if !ok {
			return failed(fmt.Errorf("job %q failed (restart strategy %s gives up): %w", j.spec.Name, j.spec.Config.EffectiveStrategy(), err))
		}
		j.restarts.Add(1)
		j.state.Store(StateRestarting)
		j.log.Warn("job failed; restarting", "err", err, "delay", delay, "strategy", j.spec.Config.EffectiveStrategy().String())
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err // listed already, as the restart's warning
		case <-t.C:
		}
	}
}

// runOnceSafe runs one attempt, turning a panic in its set-up (a
// connector's Committer, Recover or Splits) into a *PanicError.
func (j *Job) runOnceSafe(ctx context.Context, first bool) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Task: "job set-up", Value: v, Stack: debug.Stack()}
		}
	}()
	return j.runOnce(ctx, first)
}

func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// restore returns the checkpoint to restore (a file of the job's own
// storage) and the first id to use.
//
// On the first run with JobSpec.RestorePath, the explicitly given
// checkpoint is copied into the job's storage under a new id before
// anything else happens, so that it is the latest: restarts in the
// process (and after a crash) resume from it, not from the checkpoint the
// operator chose to leave. Its pending committables that a newer
// checkpoint of the storage no longer lists are durably committed: the
// copy leaves them out (committing them again could meet newer
// transactions on their ids, and report them lost).
func (j *Job) restore(first bool) (*checkpoint.Metadata, int64, error) {
	latest, err := j.store.Latest()
	if first && j.spec.RestorePath != "" {
		md, lerr := checkpoint.LoadFrom(j.spec.RestorePath, j.spec.Name, j.storageOptions())
		if lerr != nil {
			return nil, 0, fmt.Errorf("find checkpoint to restore: %w", lerr)
		}
		if err != nil {
			// The storage's latest is unreadable (a corrupt file): an
			// explicit restore is the way past it.
			j.log.Warn("cannot read the latest checkpoint of the storage; restoring the given one with all its pending commits", "err", err)
			latest = nil
		}
		if latest != nil && latest.Ref() == md.Ref() {
			return latest, latest.ID + 1, nil
		}
		maxID, err := j.store.MaxID()
		if err != nil {
			return nil, 0, err
		}
		// The state files it references come along (unless it is one
		// of the storage's own).
		src, err := checkpoint.PathFiles(j.spec.RestorePath, j.spec.Name)
		if err == nil {
			err = j.copyStateFiles(context.Background(), md, src)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("copy the restored checkpoint's state into %s: %w", j.store.Location(), err)
		}
		cp := *md
		cp.ID, cp.Revision, cp.Time = max(maxID, md.ID)+1, 0, time.Now().UTC()
		cp.RestoredFrom = fmt.Sprintf("%s (%s)", j.spec.RestorePath, md.Ref())
		done := checkpoint.KnownCommitted(md, latest)
		cp.Pending = nil
		for _, c := range md.Pending {
			if done[c.Key] {
				j.log.Info("restored checkpoint lists a commit that a newer checkpoint records as done; not committing it again",
					"checkpoint", md.ID, "committable", c.Key.String())
				continue
			}
			cp.Pending = append(cp.Pending, c)
		}
		if _, err := j.store.Write(&cp); err != nil {
			return nil, 0, fmt.Errorf("copy the restored checkpoint into %s: %w", j.store.Location(), err)
		}
		return &cp, cp.ID + 1, nil
	}
	if errors.Is(err, checkpoint.ErrCorrupt) {
		latest, err = j.previousIntact(err)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("find checkpoint to restore: %w", err)
	}
	maxID, err := j.store.MaxID()
	if err != nil {
		return nil, 0, err
	}
	if latest != nil {
		maxID = max(maxID, latest.ID)
	}
	return latest, maxID + 1, nil
}

// previousIntact decides what to restore when the newest checkpoint file
// cannot be read (corrupt: truncated, garbled, another job's). It is
// safe to restore the newest intact checkpoint before it only when no
// pending commit can be skipped by doing so: when the job has no
// two-phase sinks (its sinks are at-least-once, and replaying an interval
// is within their guarantee). With two-phase sinks the corrupt
// checkpoint's commits may have run already, and restoring the previous
// one could write its interval twice: then restore fails (terminal),
// naming the corrupt file and the previous checkpoint, and the operator
// decides (run --from-checkpoint with the previous file, or put a good
// copy of the file back).
func (j *Job) previousIntact(cause error) (*checkpoint.Metadata, error) {
	refs, err := j.store.List()
	if err != nil {
		return nil, errors.Join(cause, err)
	}
	var prev *checkpoint.Metadata
	var prevRef checkpoint.Ref
	for i := len(refs) - 2; i >= 0 && prev == nil; i-- {
		if md, err := j.store.Read(refs[i]); err == nil {
			prev, prevRef = md, refs[i]
		}
	}
	twoPhase := false
	for _, v := range j.graph.Vertices {
		if v.Sink == nil {
			continue
		}
		if _, ok := v.Sink.Sink.(connector.TwoPhaseSink); ok {
			twoPhase = true
		}
	}
	switch {
	case prev == nil:
		return nil, fmt.Errorf("%w; no intact checkpoint precedes it in %s: put a good copy of the file back, "+
			"or move it away to start the job without a checkpoint", cause, j.store.Location())
	case twoPhase:
		return nil, fmt.Errorf("%w; the previous %s (%s) is intact, but this job has two-phase (exactly-once) sinks and "+
			"the corrupt checkpoint's commits may have run: restoring the previous one could write that interval twice, "+
			"so the job does not do it by itself. Put a good copy of the file back, or restore the previous one explicitly "+
			"(streamsql run --from-checkpoint %s: nothing is lost, rows of the interval may be written twice); "+
			"streamsql checkpoint list shows every retained checkpoint", cause, prevRef, prevRef.Path, prevRef.Path)
	}
	j.log.Warn("the newest checkpoint file is corrupt; restoring the previous one (the job has no two-phase sinks: replaying its interval is within their guarantee)",
		"err", cause, "restoring", prevRef.Path)
	return prev, nil
}

// tracker implements connector.CommitTracker for all sinks of a run.
type tracker struct {
	mu      sync.Mutex
	pending []map[int64]int // per sink index: checkpoint id -> committables not durable
}

func newTracker(sinks int) *tracker {
	t := &tracker{pending: make([]map[int64]int, sinks)}
	for i := range t.pending {
		t.pending[i] = map[int64]int{}
	}
	return t
}

func (t *tracker) add(sink int, ckpt int64, n int) {
	t.mu.Lock()
	t.pending[sink][ckpt] += n
	t.mu.Unlock()
}

func (t *tracker) durable(sink int, ckpt int64) {
	t.mu.Lock()
	m := t.pending[sink]
	if m[ckpt]--; m[ckpt] <= 0 {
		delete(m, ckpt)
	}
	t.mu.Unlock()
}

type sinkTracker struct {
	t    *tracker
	sink int
}

func (s sinkTracker) Durable(ckpt int64) bool {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	for id := range s.t.pending[s.sink] {
		if id <= ckpt {
			return false
		}
	}
	return true
}

// finishedBefore reports whether the job's checkpoint folder holds a
// finished record: the job already ran to the end of its bounded input
// and committed it, so this run does nothing (a crash restart after the
// checkpoints were deleted cannot be told from a deliberate rerun).
func (j *Job) finishedBefore(d checkpoint.Durable) (bool, error) {
	f, err := d.Finished()
	if err != nil {
		return false, fmt.Errorf("job %q: %w; delete the file to run the job again from the start", j.spec.Name, err)
	}
	if f == nil {
		return false, nil
	}
	// A kill between the record and the deletion leaves checkpoints the
	// finish meant to delete: delete them now.
	if refs, err := d.List(); err == nil && len(refs) > 0 {
		if err := d.Clear(); err != nil {
			j.log.Warn("cannot delete the checkpoints of the finished job", "err", err)
		}
	}
	j.state.Store(StateFinished)
	msg := fmt.Sprintf("job already finished at %s: its input was fully processed and committed; this run does nothing. "+
		"To run it again from the start, run: streamsql checkpoint drop-finished <job file> (or delete %s)",
		f.Time.Format(time.RFC3339), d.FinishedPath())
	j.log.Warn(msg, "finished_at", f.Time, "last_checkpoint", f.LastCheckpoint, "record", d.FinishedPath())
	j.recent.add(LogEntry{Time: j.now(), Level: slog.LevelWarn, Message: msg})
	return true, nil
}

// maxParallelism returns the job's number of key groups.
func (j *Job) maxParallelism() int { return j.spec.Config.MaxParallelism }
