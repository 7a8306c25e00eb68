package runtime

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// attempt is one run of the job, from restore to the end or a failure.
type attempt struct {
	j          *Job
	run        string
	restored   *checkpoint.Metadata
	restoredID int64
	// vertices are the graph's, with the internal dead-letter sinks of
	// sources after their sources.
	vertices []*vertexRT
	sources  []*sourceRT
	sinks    []*sinkRT
	tasks    []*task
	readers  []*readerHead // the heads of the tasks that read sources
	tracker  *tracker
	coord    *coordinator
	mode     jobconfig.Mode
	// maxParallelism is the job's number of key groups.
	maxParallelism int
	// oneProc is set when Go runs on one processor (GOMAXPROCS 1) as
	// the attempt starts: edges from one task into one task fuse
	// (attempt.oneToOne).
	oneProc bool
	// stateful is set when the run has stateful operators, or restored a
	// checkpoint with operator state: retention then deletes state files.
	stateful bool
	// reassigned is set when a source's splits changed during the run
	// (connector.Reassigning): the run stopped gracefully to start again
	// over the new ones.
	reassigned atomic.Bool
	// unopened counts the tasks whose reader, operators and writer are
	// not all open yet: no periodic checkpoint is triggered before every
	// task is open (see coordinator.maybeTrigger).
	unopened atomic.Int64
	// endedCheckpoint is the id of the final checkpoint taken because
	// every source read all its input, when it leaves out the operators'
	// state (checkpoint.Metadata.InputEnded); 0 when there is none.
	endedCheckpoint atomic.Int64
}

// errReassigned ends a run that stopped because a source's splits were
// reassigned (connector.Reassigning); Run starts the next at once, and it
// counts as no failure.
var errReassigned = errors.New("source splits reassigned")

// releaseSources tells every Reassigning source that the run over its
// splits ended (last: the job ends).
func (j *Job) releaseSources(last bool) {
	for _, v := range j.graph.Vertices {
		if v.Source == nil {
			continue
		}
		if r, ok := v.Source.Source.(connector.Reassigning); ok {
			r.Released(last)
		}
	}
}

// watchReassign stops the run gracefully when a source's splits change.
func (a *attempt) watchReassign(done <-chan struct{}) {
	for _, sr := range a.sources {
		r, ok := sr.v.Source.(connector.Reassigning)
		if !ok {
			continue
		}
		ch := r.Reassigned()
		if ch == nil {
			continue
		}
		go func() {
			select {
			case <-ch:
				a.j.log.Info("source splits reassigned; stopping the run with a final checkpoint to start again over the new ones", "source", sr.id)
				a.reassigned.Store(true)
				a.j.reassignedAt.CompareAndSwap(0, time.Now().UnixNano())
				a.coord.requestStop()
			case <-done:
			}
		}()
	}
}

func (j *Job) runOnce(ctx context.Context, first bool) (err error) {
	restored, nextID, err := j.restore(first)
	if err != nil {
		return err
	}
	if err := j.checkRestoredSources(restored); err != nil {
		return err
	}
	if err := j.checkRestoredOperators(restored); err != nil {
		return err
	}
	if err := j.checkFreshSourcesIntoState(restored); err != nil {
		return err
	}
	// Sources whose splits are assigned from outside learn when the run
	// over them has ended, whatever ended it.
	defer j.releaseSources(false)
	a := &attempt{j: j, run: newRunID(), restored: restored, mode: j.spec.Config.Checkpoint.Mode,
		maxParallelism: j.maxParallelism(), oneProc: goruntime.GOMAXPROCS(0) == 1}
	j.ownRuns.Store(a.run, true)
	if restored != nil {
		a.restoredID = restored.ID
		j.log.Info("restoring checkpoint", "checkpoint", restored.ID, "revision", restored.Revision, "restored_from", restored.RestoredFrom,
			"pending_commits", len(restored.Pending), "storage", j.store.Location())
	}
	// The run's own context is not the caller's: cancelling the caller's
	// context requests a graceful stop, which still needs to run tasks.
	actx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)

	if err := a.build(); err != nil {
		return err
	}
	if restored != nil && len(restored.Operators) > 0 {
		a.stateful = true
	}
	defer func() {
		for _, s := range a.sinks {
			if s.committer != nil {
				if cerr := s.committer.Close(); cerr != nil && err == nil {
					err = fmt.Errorf("close committer of sink %q: %w", s.id, cerr)
				}
			}
		}
	}()
	if err := a.openCommitters(actx); err != nil {
		return err
	}
	// Recovery and split discovery stop at once when the caller stops the
	// job: nothing has been written yet, and the next start recovers
	// again.
	recovered, err := a.recover(ctx)
	if errors.Is(err, connector.ErrCommitLost) {
		a.recordRecovered(recovered)
		return err
	}
	if err == nil && restored != nil && restored.InputEnded {
		// The run that took it had read all its input, and its output is
		// committed now: the job is finished (the checkpoint holds no
		// operator state to go on with).
		j.log.Info("the restored checkpoint is the final one of a run that read all its input; its commits are done, the job is finished",
			"checkpoint", restored.ID)
		a.recordRecovered(recovered)
		return newCoordinator(a, nextID, recovered).finish(false)
	}
	if err == nil {
		err = a.assignSplits(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			j.log.Info("stopped during recovery", "err", err)
			return nil
		}
		return err
	}
	a.coord = newCoordinator(a, nextID, recovered)
	j.cur.Store(a)
	j.state.Store(StateRunning)
	if at := j.reassignedAt.Swap(0); at != 0 {
		j.log.Info("pipelines restarted over reassigned splits", "pause", time.Since(time.Unix(0, at)).Round(time.Millisecond))
	}

	stopCtx, stopCancel := context.WithCancel(context.Background())
	defer stopCancel()
	unregister := context.AfterFunc(ctx, func() {
		a.coord.requestStop()
		a.boundStop(stopCtx.Done(), cancel)
	})
	defer unregister()
	a.watchReassign(stopCtx.Done())

	g, gctx := errgroup.WithContext(actx)
	a.unopened.Store(int64(len(a.tasks)))
	for _, t := range a.tasks {
		t.start(g, gctx)
	}
	goSafe(g, "commit loop", func() error { return a.coord.commitLoop(gctx) })
	goSafe(g, "checkpoint coordinator", func() error { return a.coord.run(gctx) })
	err = g.Wait()
	stopCancel()
	if cause := context.Cause(actx); errors.Is(cause, errStopTimeout) {
		return stopTimedOut(j.spec.Name, cause)
	}
	if err != nil {
		return err
	}
	if a.reassigned.Load() && ctx.Err() == nil {
		if err := a.coord.finish(true); err != nil {
			return err
		}
		return errReassigned
	}
	return a.coord.finish(ctx.Err() != nil)
}

func (a *attempt) openCommitters(ctx context.Context) error {
	for _, s := range a.sinks {
		tp, ok := s.spec.Sink.(connector.TwoPhaseSink)
		if !ok {
			continue
		}
		var c connector.Committer
		var err error
		if sc, ok := tp.(connector.ScopedTwoPhaseSink); ok {
			c, err = sc.ScopedCommitter(ctx, a.j.spec.Name, s.id)
		} else {
			c, err = tp.Committer(ctx, a.j.spec.Name)
		}
		if err != nil {
			return fmt.Errorf("sink %q: create committer: %w", s.id, err)
		}
		s.committer = c
		s.health, _ = c.(connector.HealthReporter)
		if tt, ok := c.(connector.TransactionTimeouter); ok {
			s.timeout = tt.TransactionTimeout()
		}
	}
	return nil
}

// recover hands the restored checkpoint's pending committables to their
// sinks' committers, which commit them and abort leftovers. It returns the
// recovered committables: committed, but not durably acknowledged until
// the run's first checkpoint completes. A lost commit does not stop the
// others: every pending committable is committed, and then recover
// returns the recovered ones with the lost ones' error (see
// attempt.recordRecovered).
func (a *attempt) recover(ctx context.Context) ([]checkpoint.Committable, error) {
	bySink := map[string][]checkpoint.Committable{}
	if a.restored != nil {
		for _, c := range a.restored.Pending {
			bySink[c.Sink] = append(bySink[c.Sink], c)
		}
	}
	for id, cs := range bySink {
		i := slices.IndexFunc(a.sinks, func(s *sinkRT) bool { return s.id == id })
		if i < 0 || a.sinks[i].committer == nil {
			return nil, fmt.Errorf("%w: checkpoint %d has %d pending commits of sink %q, which is not a two-phase sink of this job; run the job with that sink or restore another checkpoint",
				ErrInvalidSpec, a.restoredID, len(cs), id)
		}
	}
	var recovered []checkpoint.Committable
	var lost []*CommitLostError
	for _, s := range a.sinks {
		if s.committer == nil {
			continue
		}
		cs := bySink[s.id]
		slices.SortFunc(cs, func(x, y checkpoint.Committable) int { return x.Key.Compare(y.Key) })
		data := make([]connector.Committable, len(cs))
		for i, c := range cs {
			data[i] = c.Data
		}
		// Commit each one first, retrying, so that a lost one is named
		// exactly; then Recover, which commits them again (a no-op) and
		// aborts the leftovers of earlier runs.
		var committed []checkpoint.Committable
		sinkLost := false
		for _, c := range cs {
			err := commitRetrying(ctx, a.j.log, a.restoredID, s, c)
			var cl *CommitLostError
			switch {
			case errors.As(err, &cl):
				lost, sinkLost = append(lost, cl), true
				continue
			case err != nil:
				return nil, err
			}
			committed = append(committed, c)
		}
		recovered = append(recovered, committed...)
		if sinkLost {
			// The run fails; leftovers are the next recovery's business.
			continue
		}
		for _, c := range cs {
			a.tracker.add(s.index, c.Checkpoint, 1)
		}
		if err := s.committer.Recover(ctx, data); err != nil {
			if errors.Is(err, connector.ErrCommitLost) {
				lost = append(lost, &CommitLostError{Checkpoint: a.restoredID, Sink: s.id, Err: err})
				continue
			}
			return nil, fmt.Errorf("sink %q: recover from checkpoint %d: %w", s.id, a.restoredID, err)
		}
		if err := a.j.fault(ctx, DuringRecovery, FaultInfo{Checkpoint: a.restoredID, Sink: s.id}); err != nil {
			return nil, err
		}
	}
	if len(lost) > 0 {
		return recovered, lostError(lost)
	}
	return recovered, nil
}

// checkRestoredSources refuses a checkpoint that holds the positions of a
// source the job does not have (unless JobSpec.AllowNonRestoredState):
// the usual cause is a table or pipeline renamed in the job file, and the
// job's source under the new id would start from its startup mode and
// write again what the old one wrote (Flink refuses such a restore too).
func (j *Job) checkRestoredSources(restored *checkpoint.Metadata) error {
	if restored == nil || len(restored.Sources) == 0 {
		return nil
	}
	have := map[string]bool{}
	var fresh []string
	for _, v := range j.graph.Vertices {
		if v.Source == nil {
			continue
		}
		have[v.ID] = true
		if _, ok := restored.Sources[v.ID]; !ok {
			fresh = append(fresh, v.ID)
		}
	}
	var gone []string
	for id := range restored.Sources {
		if !have[id] {
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	slices.Sort(gone)
	if j.spec.AllowNonRestoredState {
		j.log.Warn("the restored checkpoint holds positions of sources this job does not have; dropping them (non-restored state allowed)",
			"checkpoint", restored.ID, "sources", strings.Join(gone, ", "))
		return nil
	}
	msg := fmt.Sprintf("checkpoint %d holds the positions of source(s) %s, which this job does not have (a table or INSERT renamed, or an INSERT removed?)",
		restored.ID, quoteAll(gone))
	if len(fresh) > 0 {
		slices.Sort(fresh)
		msg += fmt.Sprintf("; source(s) %s would start from their startup options and may write again what the old ones wrote", quoteAll(fresh))
	}
	msg += "; undo the rename, or run with --allow-non-restored-state (JobSpec.AllowNonRestoredState) to drop those positions"
	if h := j.spec.RestoreHint; h != "" {
		msg += "; " + h
	}
	return fmt.Errorf("%w: %s", ErrInvalidSpec, msg)
}

// checkFreshSourcesIntoState refuses a checkpoint whose operator state a
// source without positions in it would feed (unless
// JobSpec.AllowNonRestoredState, or the source is reset on purpose:
// JobSpec.ResetSources): that source starts from its startup options, so
// the operator would count again what its restored state already holds
// (or miss what it did not). A job planned otherwise than the one that
// took the checkpoint (its scans shared, or no longer) is the usual cause.
func (j *Job) checkFreshSourcesIntoState(restored *checkpoint.Metadata) error {
	if restored == nil || len(restored.Operators) == 0 || j.spec.AllowNonRestoredState {
		return nil
	}
	g := &j.graph
	next := make([][]int, len(g.Vertices))
	for _, e := range g.Edges {
		next[e.From] = append(next[e.From], e.To)
	}
	for i := range g.Vertices {
		v := &g.Vertices[i]
		if v.Source == nil {
			continue
		}
		if _, ok := restored.Sources[v.ID]; ok {
			continue
		}
		if rs := j.spec.ResetSources; slices.Contains(rs, "*") || slices.Contains(rs, v.ID) || slices.Contains(rs, v.name()) {
			continue
		}
		seen := map[int]bool{i: true}
		queue := []int{i}
		for len(queue) > 0 {
			k := queue[0]
			queue = queue[1:]
			w := &g.Vertices[k]
			if _, ok := restored.Operators[w.ID]; ok && w.Operator != nil && w.Operator.Stateful {
				msg := fmt.Sprintf("checkpoint %d restores the state of operator %q, and source %q, which feeds it, has no position in the checkpoint: "+
					"the source would start from its startup options and the operator count again what its state already holds; "+
					"restore the job that took the checkpoint, or run with --allow-non-restored-state (JobSpec.AllowNonRestoredState) to accept it",
					restored.ID, w.ID, v.ID)
				if h := j.spec.RestoreHint; h != "" {
					msg += "; " + h
				}
				return fmt.Errorf("%w: %s", ErrInvalidSpec, msg)
			}
			for _, n := range next[k] {
				if !seen[n] {
					seen[n] = true
					queue = append(queue, n)
				}
			}
		}
	}
	return nil
}

func quoteAll(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return strings.Join(q, ", ")
}

func (a *attempt) assignSplits(ctx context.Context) error {
	for _, sr := range a.sources {
		splits, err := sr.v.Source.Splits(ctx)
		if err != nil {
			return fmt.Errorf("source %q: list splits: %w", sr.id, err)
		}
		// A split absent from a restored checkpoint that holds this
		// source appeared after that checkpoint: it is marked Added, and
		// the reader reads it from its beginning (connector.SplitState).
		states := map[string][]byte{}
		known := false
		if a.restored != nil && !a.resetSource(sr) {
			var restored []connector.SplitState
			restored, known = a.restored.Sources[sr.id]
			for _, st := range restored {
				states[st.ID] = st.State
			}
		}
		var tasks []*readerHead
		for _, t := range a.readers {
			if t.src == sr {
				tasks = append(tasks, t)
			}
		}
		for i, sp := range splits {
			t := tasks[i%len(tasks)]
			st, ok := states[sp.ID]
			t.splits = append(t.splits, connector.SplitState{ID: sp.ID, State: st, Added: known && !ok})
		}
	}
	return nil
}

// PanicError is returned when a task (or a connector or transform called
// by it) panicked; the run fails like on any other error.
type PanicError struct {
	// Task names the task.
	Task string
	// Value is the panic's value; Stack the goroutine's stack.
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s panicked: %v\n%s", e.Task, e.Value, e.Stack)
}

// goSafe runs fn in g, turning a panic into a *PanicError.
func goSafe(g *errgroup.Group, task string, fn func() error) {
	g.Go(func() (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = &PanicError{Task: task, Value: v, Stack: debug.Stack()}
			}
		}()
		return fn()
	})
}
