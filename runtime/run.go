package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/types"
)

type msgKind uint8

const (
	msgData msgKind = iota
	msgBarrier
	msgEOF
	msgDeadLetters // dead letters for the sink writer's transaction (deadletter.go)
)

// message is what flows on a channel between tasks: a batch of rows, a
// checkpoint barrier, or the end of the input.
type message struct {
	kind  msgKind
	final bool
	input int32
	id    int64
	rows  []types.Row
	// pos travels with a barrier from a source task to the one sink task
	// that receives all its rows: the source's consumer group positions
	// at the barrier, for the writer to commit with its pre-committed work.
	pos *taskPositions
	// dl is the dead-letter sink of the source whose dead letters a
	// msgDeadLetters carries.
	dl *SinkSpec
}

// taskPositions are the group positions of source task (global index)
// task at a barrier.
type taskPositions struct {
	task int
	p    connector.GroupPositions
}

type sourceRT struct {
	id   string
	spec *SourceSpec
	pipe *pipeRT
}

type sinkRT struct {
	id        string
	index     int
	spec      *SinkSpec
	committer connector.Committer
	timeout   time.Duration // transaction timeout declared by the committer
	tasks     []*sinkTask
	// deadLetters is set when a source routes its dead letters to this
	// sink's writers (SourceSpec.DeadLettersInSink).
	deadLetters bool
}

type pipeRT struct {
	p     *Pipeline
	name  string
	sinks []*sinkRT
	// number of source tasks feeding the pipeline
	sourceTasks int
	// oneWriter is true when every row of a source task goes to one sink
	// task: the pipeline has one sink and does not re-partition rows by
	// key (source task i feeds sink task i mod n). Only then can a writer
	// commit the source's group positions with its own work.
	oneWriter bool
}

// attempt is one run of the job, from restore to the end or a failure.
type attempt struct {
	j          *Job
	run        string
	restored   *checkpoint.Metadata
	restoredID int64
	sources    []*sourceRT
	sinks      []*sinkRT
	srcTasks   []*sourceTask
	snkTasks   []*sinkTask
	tracker    *tracker
	coord      *coordinator
	mode       Mode
	// reassigned is set when a source's splits changed during the run
	// (connector.Reassigning): the run stopped gracefully to start again
	// over the new ones.
	reassigned atomic.Bool
}

// errReassigned ends a run that stopped because a source's splits were
// reassigned (connector.Reassigning); Run starts the next at once, and it
// counts as no failure.
var errReassigned = errors.New("source splits reassigned")

// releaseSources tells every Reassigning source that the run over its
// splits ended (last: the job ends).
func (j *Job) releaseSources(last bool) {
	for _, p := range j.spec.Pipelines {
		for _, s := range p.Sources {
			if r, ok := s.Source.(connector.Reassigning); ok {
				r.Released(last)
			}
		}
	}
}

// watchReassign stops the run gracefully when a source's splits change.
func (a *attempt) watchReassign(done <-chan struct{}) {
	for _, sr := range a.sources {
		r, ok := sr.spec.Source.(connector.Reassigning)
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
	// Sources whose splits are assigned from outside learn when the run
	// over them has ended, whatever ended it.
	defer j.releaseSources(false)
	a := &attempt{j: j, run: newRunID(), restored: restored, mode: j.spec.Config.Checkpoint.Mode}
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
		t := time.NewTimer(j.spec.Config.StopTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			cancel(errStopTimeout)
		case <-stopCtx.Done():
		}
	})
	defer unregister()
	a.watchReassign(stopCtx.Done())

	g, gctx := errgroup.WithContext(actx)
	for _, t := range a.srcTasks {
		name := fmt.Sprintf("source %q task %d", t.src.id, t.index)
		if t.chain != nil {
			name += fmt.Sprintf(" (chained with sink %q task %d)", t.chain.sink.id, t.chain.index)
		}
		goSafe(g, name, func() error { return t.run(gctx) })
	}
	for _, t := range a.snkTasks {
		t.start(g, gctx)
	}
	goSafe(g, "commit loop", func() error { return a.coord.commitLoop(gctx) })
	goSafe(g, "checkpoint coordinator", func() error { return a.coord.run(gctx) })
	err = g.Wait()
	stopCancel()
	if cause := context.Cause(actx); errors.Is(cause, errStopTimeout) {
		return fmt.Errorf("job %q: %w after %s; pending commits are left to recovery", j.spec.Name, errStopTimeout, j.spec.Config.StopTimeout)
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

// build creates the runtime objects of sources, sinks and channels.
func (a *attempt) build() error {
	capacity := a.j.spec.Config.ChannelCapacity
	for pi := range a.j.spec.Pipelines {
		p := &a.j.spec.Pipelines[pi]
		pn := pipelineName(p, pi)
		pr := &pipeRT{p: p, name: pn}
		var pSources []*sourceRT
		for si := range p.Sources {
			s := &p.Sources[si]
			sr := &sourceRT{id: pn + "/" + s.Name, spec: s, pipe: pr}
			a.sources = append(a.sources, sr)
			pSources = append(pSources, sr)
			pr.sourceTasks += max(s.Parallelism, 1)
		}
		for si := range p.Sinks {
			s := &p.Sinks[si]
			sk := &sinkRT{id: pn + "/" + s.Name, index: len(a.sinks), spec: s}
			a.sinks = append(a.sinks, sk)
			pr.sinks = append(pr.sinks, sk)
		}
		chained := a.chainable(pr)
		for _, sk := range pr.sinks {
			for ti := range max(sk.spec.Parallelism, 1) {
				t := &sinkTask{a: a, sink: sk, index: ti, global: len(a.snkTasks), chained: chained,
					merged: make(chan message, capacity), notify: make(chan struct{}, 1)}
				for range pr.sourceTasks {
					if chained {
						break // run by source task ti (chain.go): no inputs
					}
					t.inputs = append(t.inputs, make(chan message, capacity))
					t.release = append(t.release, make(chan struct{}, 1))
				}
				sk.tasks = append(sk.tasks, t)
				a.snkTasks = append(a.snkTasks, t)
			}
		}
		pr.oneWriter = len(pr.sinks) == 1 && (p.Partition == nil || len(pr.sinks[0].tasks) == 1)
		input := 0
		for _, sr := range pSources {
			var dl *sinkRT
			if sr.spec.DeadLetter != nil && !sr.spec.DeadLettersInSink {
				dl = a.deadLetterSink(pn, sr)
			}
			a.recoveryOnlySink(pn, sr)
			for ti := range max(sr.spec.Parallelism, 1) {
				t := &sourceTask{a: a, src: sr, index: ti, global: len(a.srcTasks), pipeIndex: input,
					wake: make(chan struct{}, 1)}
				if dl != nil {
					t.dead = dl.tasks[ti].inputs[0]
				}
				if chained {
					t.chain = pr.sinks[0].tasks[input]
				}
				for _, sk := range pr.sinks {
					if chained {
						break
					}
					outs := make([]chan message, len(sk.tasks))
					for k, st := range sk.tasks {
						outs[k] = st.inputs[input]
					}
					t.outs = append(t.outs, outs)
				}
				routeDeadLettersToSink(t)
				a.srcTasks = append(a.srcTasks, t)
				input++
			}
		}
	}
	a.tracker = newTracker(len(a.sinks))
	return nil
}

// deadLetterSink adds the dead-letter sink of source sr of pipeline pn
// (SourceSpec.DeadLetter): one task per source task, each with that
// source task as its only input.
func (a *attempt) deadLetterSink(pn string, sr *sourceRT) *sinkRT {
	capacity := a.j.spec.Config.ChannelCapacity
	sk := &sinkRT{id: pn + "/" + sr.spec.DeadLetter.Name, index: len(a.sinks), spec: sr.spec.DeadLetter}
	a.sinks = append(a.sinks, sk)
	for ti := range max(sr.spec.Parallelism, 1) {
		t := &sinkTask{a: a, sink: sk, index: ti, global: len(a.snkTasks),
			merged: make(chan message, capacity), notify: make(chan struct{}, 1),
			inputs: []chan message{make(chan message, capacity)}, release: []chan struct{}{make(chan struct{}, 1)}}
		sk.tasks = append(sk.tasks, t)
		a.snkTasks = append(a.snkTasks, t)
	}
	return sk
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
	for pi := range j.spec.Pipelines {
		p := &j.spec.Pipelines[pi]
		for _, s := range p.Sources {
			id := pipelineName(p, pi) + "/" + s.Name
			have[id] = true
			if _, ok := restored.Sources[id]; !ok {
				fresh = append(fresh, id)
			}
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
	return fmt.Errorf("%w: %s", ErrInvalidSpec, msg)
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
		splits, err := sr.spec.Source.Splits(ctx)
		if err != nil {
			return fmt.Errorf("source %q: list splits: %w", sr.id, err)
		}
		// A split absent from a restored checkpoint that holds this
		// source appeared after that checkpoint: it is marked Added, and
		// the reader reads it from its beginning (connector.SplitState).
		states := map[string][]byte{}
		known := false
		if a.restored != nil {
			var restored []connector.SplitState
			restored, known = a.restored.Sources[sr.id]
			for _, st := range restored {
				states[st.ID] = st.State
			}
		}
		var tasks []*sourceTask
		for _, t := range a.srcTasks {
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

type barrierReq struct {
	id    int64
	final bool
}

// sourceTask reads one reader, applies the pipeline's transform and sends
// batches to the sink tasks. It injects barriers between Reads.
type sourceTask struct {
	a         *attempt
	src       *sourceRT
	index     int
	global    int
	pipeIndex int
	splits    []connector.SplitState
	outs      [][]chan message // per sink of the pipeline, per sink task
	dead      chan message     // the input of this task's dead-letter sink task, or nil
	deadTxn   chan message     // the input of the sink task whose transactions take this task's dead letters, or nil
	// chain is the sink task this task runs in its own loop (chain.go),
	// or nil; then outs is empty. cw is its open writer (task goroutine
	// only).
	chain *sinkTask
	cw    *chainedWriter
	// wakeOnComplete is set when the chained writer listens for completed
	// checkpoints: the coordinator then interrupts a blocked Read to tell
	// it at once, as it would wake a sink task of its own.
	wakeOnComplete atomic.Bool

	mu         sync.Mutex
	reqs       []barrierReq
	cancelRead context.CancelFunc
	wake       chan struct{}

	recordsIn, recordsOut atomic.Int64
	dropped               atomic.Int64 // rows the transform dropped (connector.ErrDropRow)
	badRecords            connector.BadRecordCounter
	bpMu                  sync.Mutex
	backpressure          time.Duration // blocked on full channels (sends that ended); bpMu
	blockedSince          time.Time     // start of the blocked send in progress (zero: none); bpMu
	bytes                 connector.ByteCounter
	lags                  connector.LagReporter
	notified              atomic.Int64

	// inTxn is set (for good) by the sink task that stored this task's
	// group positions with its pre-committed work: from then on they are
	// never committed directly, which could move the group back behind a
	// later transaction's commit.
	inTxn atomic.Bool
	// groupPending holds the group positions of checkpoints whose commits
	// are not yet durably acknowledged, oldest first (task goroutine only).
	groupPending []pendingPositions
	groupDone    int64
}

type pendingPositions struct {
	id int64
	p  connector.GroupPositions
}

// trigger asks the task to inject barrier id after its current batch.
func (t *sourceTask) trigger(id int64, final bool) {
	t.mu.Lock()
	t.reqs = append(t.reqs, barrierReq{id, final})
	t.mu.Unlock()
	t.interrupt()
}

func (t *sourceTask) run(ctx context.Context) (err error) {
	a := t.a
	info := connector.TaskInfo{Job: a.j.spec.Name, Table: t.src.spec.Name, Index: t.index,
		Parallelism: max(t.src.spec.Parallelism, 1), Logger: a.j.log.With("source", t.src.id, "task", t.index),
		RestoredCheckpoint: a.restoredID}
	var waitChained func() (*chainedWriter, error)
	if t.chain != nil {
		waitChained = t.openChained(ctx, t.chain)
	}
	r, err := t.src.spec.Source.Open(ctx, info, t.splits)
	if err != nil {
		if waitChained != nil {
			if cw, werr := waitChained(); werr == nil {
				_ = cw.close() // the open's error is the one to report
			}
		}
		return fmt.Errorf("source %q task %d: open: %w", t.src.id, t.index, err)
	}
	defer r.Close()
	// cw is the chained sink task's writer (chain.go), or nil.
	var cw *chainedWriter
	if waitChained != nil {
		if cw, err = waitChained(); err != nil {
			return err
		}
		t.cw = cw
		defer func() {
			if cerr := cw.close(); cerr != nil && err == nil {
				err = cerr
			}
		}()
	}
	if bc, ok := r.(connector.ByteCounter); ok {
		t.mu.Lock()
		t.bytes = bc
		t.mu.Unlock()
	}
	if lr, ok := r.(connector.LagReporter); ok {
		t.mu.Lock()
		t.lags = lr
		t.mu.Unlock()
	}
	if bc, ok := r.(connector.BadRecordCounter); ok {
		t.mu.Lock()
		t.badRecords = bc
		t.mu.Unlock()
	}
	listener, _ := r.(connector.CheckpointListener)
	positions, _ := r.(connector.GroupPositionReader)
	badRows, _ := r.(connector.BadRowHandler)
	deadLetters, _ := r.(connector.DeadLetterReader)
	pipe := t.src.pipe
	// The source's transform replaces the pipeline's; NewTransform gives
	// this task a transform of its own.
	tf, copies := t.src.spec.Transform, t.src.spec.TransformCopies
	if nt := t.src.spec.NewTransform; nt != nil {
		tf = nt()
	}
	if tf == nil {
		tf, copies = pipe.p.Transform, pipe.p.TransformCopies
		if nt := pipe.p.NewTransform; nt != nil {
			tf = nt()
		}
	}
	var recycler connector.RowRecycler
	if rr, ok := r.(connector.RowRecycler); ok && tf != nil && copies {
		recycler = rr
	}
	var readCtx context.Context
	var cancelRead context.CancelFunc = func() {}
	defer func() { cancelRead() }()
	eof := false
	for {
		t.mu.Lock()
		reqs := t.reqs
		t.reqs = nil
		if readCtx == nil || readCtx.Err() != nil {
			cancelRead()
			readCtx, cancelRead = context.WithCancel(ctx)
			t.cancelRead = cancelRead
		}
		t.mu.Unlock()
		if deadLetters != nil {
			// Before any snapshot: a position past a bad record goes
			// with its dead letter into the same checkpoint.
			if err := t.sendDeadLetters(ctx, deadLetters.DeadLetters()); err != nil {
				return err
			}
		}
		for _, b := range reqs {
			states, err := r.Snapshot(b.id)
			if err != nil {
				return fmt.Errorf("source %q task %d: snapshot for checkpoint %d: %w", t.src.id, t.index, b.id, err)
			}
			var pos *taskPositions
			if positions != nil {
				if p, ok := positions.GroupPositions(); ok {
					t.groupPending = append(t.groupPending, pendingPositions{b.id, p})
					if pipe.oneWriter {
						pos = &taskPositions{task: t.global, p: p}
					}
				}
			}
			if err := t.broadcastBarrier(ctx, message{kind: msgBarrier, id: b.id, final: b.final}, pos); err != nil {
				return err
			}
			if cw != nil {
				if err := cw.barrier(ctx, b.id, pos); err != nil {
					return err
				}
			}
			if err := a.coord.send(ctx, event{kind: evSourceAck, checkpoint: b.id, task: t.global, source: t.src.id, states: states}); err != nil {
				return err
			}
			if b.final {
				if err := t.broadcast(ctx, message{kind: msgEOF}); err != nil {
					return err
				}
				if positions == nil && cw == nil {
					return nil
				}
				// Commit the final checkpoint's positions once its commits
				// are acknowledged, or the group stays one checkpoint
				// behind the output; a chained writer stays open until
				// then too, as a sink task's does.
				select {
				case <-a.coord.allCommitted:
				case <-ctx.Done():
					return ctx.Err()
				}
				if positions != nil {
					t.commitGroup(ctx, positions)
				}
				return nil
			}
		}
		if positions != nil {
			t.commitGroup(ctx, positions)
		}
		if listener != nil {
			if done := a.coord.completed.Load(); done > t.notified.Load() {
				t.notified.Store(done)
				if err := listener.CheckpointComplete(ctx, done); err != nil {
					return fmt.Errorf("source %q task %d: checkpoint %d complete: %w", t.src.id, t.index, done, err)
				}
			}
		}
		if cw != nil {
			if err := cw.notify(ctx, a.coord.completed.Load()); err != nil {
				return err
			}
		}
		if eof {
			select {
			case <-t.wake:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		rows, err := r.Read(readCtx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				eof = true
				if err := a.coord.send(ctx, event{kind: evSourceFinished, task: t.global}); err != nil {
					return err
				}
				continue
			}
			if readCtx.Err() != nil && ctx.Err() == nil {
				continue // interrupted to inject a barrier
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("source %q task %d: read: %w", t.src.id, t.index, err)
		}
		if len(rows) == 0 {
			continue
		}
		t.recordsIn.Add(int64(len(rows)))
		out := rows
		if tf != nil {
			out = make([]types.Row, 0, len(rows))
			for i, row := range rows {
				if out, err = tf(row, out); err != nil {
					drop := errors.Is(err, connector.ErrDropRow)
					if badRows != nil && (drop || errors.Is(err, connector.ErrBadRow)) && badRows.RejectRow(i, err) {
						continue
					}
					if drop {
						t.dropped.Add(1)
						continue
					}
					return rowError(pipe.name, err, r, i)
				}
			}
			if recycler != nil {
				// The transform copied what it kept: the reader may reuse
				// the batch's memory for its next Read.
				recycler.Recycle(rows)
			}
		}
		if deadLetters != nil {
			if err := t.sendDeadLetters(ctx, deadLetters.DeadLetters()); err != nil {
				return err
			}
		}
		if len(out) == 0 {
			continue
		}
		t.recordsOut.Add(int64(len(out)))
		if cw != nil {
			if err := cw.write(ctx, out); err != nil {
				return err
			}
			continue
		}
		if err := t.route(ctx, out); err != nil {
			return err
		}
	}
}

// sendDeadLetters sends the dead letters of the last batch to the task's
// dead-letter sink task, ahead of the next barrier.
func (t *sourceTask) sendDeadLetters(ctx context.Context, rows []types.Row) error {
	if len(rows) == 0 {
		return nil
	}
	if t.deadTxn != nil {
		return t.sendDeadLettersToSink(ctx, rows)
	}
	if t.cw != nil && t.src.spec.DeadLettersInSink {
		return t.cw.writeDeadLetters(ctx, t.src.spec.DeadLetter, rows)
	}
	if t.dead == nil {
		return fmt.Errorf("source %q task %d: the reader set %d records aside as dead letters, but the source has no dead-letter sink (runtime.SourceSpec.DeadLetter)",
			t.src.id, t.index, len(rows))
	}
	return t.send(ctx, t.dead, message{kind: msgData, rows: rows})
}

func (t *sourceTask) route(ctx context.Context, rows []types.Row) error {
	part := t.src.pipe.p.Partition
	for _, outs := range t.outs {
		n := len(outs)
		if part == nil || n == 1 {
			if err := t.send(ctx, outs[t.pipeIndex%n], message{kind: msgData, rows: rows}); err != nil {
				return err
			}
			continue
		}
		buckets := make([][]types.Row, n)
		for _, row := range rows {
			k := part(row, n)
			if k < 0 || k >= n {
				return fmt.Errorf("pipeline partitioner returned %d for %d sink tasks", k, n)
			}
			buckets[k] = append(buckets[k], row)
		}
		for k, b := range buckets {
			if len(b) > 0 {
				if err := t.send(ctx, outs[k], message{kind: msgData, rows: b}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// commitGroup commits the group positions of the newest checkpoint whose
// commits (and all earlier ones) are durably acknowledged, unless a sink
// stores this task's positions in its transactions. A failure is a
// warning: the job goes on, and the next checkpoint commits newer
// positions.
func (t *sourceTask) commitGroup(ctx context.Context, r connector.GroupPositionReader) {
	done := t.a.coord.committed.Load()
	if done <= t.groupDone {
		return
	}
	t.groupDone = done
	n := 0
	for n < len(t.groupPending) && t.groupPending[n].id <= done {
		n++
	}
	if n == 0 {
		return
	}
	last := t.groupPending[n-1]
	clear(t.groupPending[:n])
	t.groupPending = append(t.groupPending[:0], t.groupPending[n:]...)
	if t.inTxn.Load() {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, groupCommitTimeout)
	defer cancel()
	if err := r.CommitGroupPositions(cctx, last.p); err != nil {
		if ctx.Err() != nil {
			return
		}
		t.a.j.stats.groupCommitFailed()
		t.a.j.log.Warn("cannot commit consumer group positions; the job goes on, the next checkpoint commits newer ones",
			"source", t.src.id, "task", t.index, "checkpoint", last.id, "group", last.p.Group, "err", err)
	}
}

// groupCommitTimeout bounds one commit of group positions, so that an
// unreachable group coordinator delays reading only so long.
const groupCommitTimeout = 30 * time.Second

// broadcastBarrier sends barrier m to every sink task, with pos to the one
// sink task that receives this task's rows (pipeline.oneWriter).
func (t *sourceTask) broadcastBarrier(ctx context.Context, m message, pos *taskPositions) error {
	if t.dead != nil {
		if err := t.send(ctx, t.dead, m); err != nil {
			return err
		}
	}
	for _, outs := range t.outs {
		for k, ch := range outs {
			mm := m
			if pos != nil && k == t.pipeIndex%len(outs) {
				mm.pos = pos
			}
			if err := t.send(ctx, ch, mm); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *sourceTask) broadcast(ctx context.Context, m message) error {
	if t.dead != nil {
		if err := t.send(ctx, t.dead, m); err != nil {
			return err
		}
	}
	for _, outs := range t.outs {
		for _, ch := range outs {
			if err := t.send(ctx, ch, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// send sends m, counting the time blocked on a full channel as
// backpressure.
func (t *sourceTask) send(ctx context.Context, ch chan message, m message) error {
	select {
	case ch <- m:
		return nil
	default:
	}
	t.bpMu.Lock()
	t.blockedSince = time.Now()
	t.bpMu.Unlock()
	defer func() {
		t.bpMu.Lock()
		t.backpressure += time.Since(t.blockedSince)
		t.blockedSince = time.Time{}
		t.bpMu.Unlock()
	}()
	select {
	case ch <- m:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sinkTask writes one writer. Its inputs (one channel per upstream source
// task) are merged by forwarders; under EXACTLY_ONCE a forwarder that
// passed barrier N blocks until every input has passed N (alignment). A
// task with one input reads it directly.
type sinkTask struct {
	a       *attempt
	sink    *sinkRT
	index   int
	global  int
	inputs  []chan message
	release []chan struct{}
	merged  chan message
	notify  chan struct{}
	// chained is set when source task index runs this task's writer in
	// its own loop (chain.go): the task has no goroutine and no inputs.
	chained bool

	recordsIn atomic.Int64
	// openSince is when the task first wrote after its last pre-commit
	// (unix nanoseconds; 0: nothing written since): the start of the
	// writer's open transaction, whose age the coordinator guards.
	openSince atomic.Int64
	mu        sync.Mutex
	bytes     connector.ByteCounter
	health    connector.HealthReporter // the writer's, when it reports
}

func (t *sinkTask) start(g *errgroup.Group, ctx context.Context) {
	if t.chained {
		return
	}
	if len(t.inputs) == 1 {
		// One input needs no merging and no alignment (the task pre-commits
		// at the barrier before it reads on): the task reads it directly,
		// one goroutine hand-off per batch fewer.
		t.merged, t.release = t.inputs[0], nil
		goSafe(g, fmt.Sprintf("sink %q task %d", t.sink.id, t.index), func() error { return t.run(ctx) })
		return
	}
	align := t.a.mode == ExactlyOnce
	for k, in := range t.inputs {
		g.Go(func() error {
			for {
				var m message
				select {
				case m = <-in:
				case <-ctx.Done():
					return ctx.Err()
				}
				m.input = int32(k)
				select {
				case t.merged <- m:
				case <-ctx.Done():
					return ctx.Err()
				}
				switch {
				case m.kind == msgEOF:
					return nil
				case m.kind == msgBarrier && align:
					select {
					case <-t.release[k]:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
			}
		})
	}
	goSafe(g, fmt.Sprintf("sink %q task %d", t.sink.id, t.index), func() error { return t.run(ctx) })
}

// open opens the task's writer and takes its counters.
func (t *sinkTask) open(ctx context.Context) (connector.Writer, error) {
	a := t.a
	info := connector.TaskInfo{Job: a.j.spec.Name, Table: t.sink.spec.Name, Sink: t.sink.id, Index: t.index,
		Parallelism: len(t.sink.tasks), Logger: a.j.log.With("sink", t.sink.id, "task", t.index),
		Commits: sinkTracker{a.tracker, t.sink.index}, RestoredCheckpoint: a.restoredID,
		MaxUncommitted: maxUncommitted(a.j.spec.Config.Checkpoint)}
	w, err := t.sink.spec.Sink.Open(ctx, info)
	if err != nil {
		return nil, fmt.Errorf("sink %q task %d: open: %w", t.sink.id, t.index, err)
	}
	if bc, ok := w.(connector.ByteCounter); ok {
		t.mu.Lock()
		t.bytes = bc
		t.mu.Unlock()
	}
	if h, ok := w.(connector.HealthReporter); ok {
		t.mu.Lock()
		t.health = h
		t.mu.Unlock()
	}
	if err := t.checkDeadLetterWriter(w); err != nil {
		_ = w.Close() // the check's error is the one to report
		return nil, err
	}
	return w, nil
}

// write writes rows to w, the task's writer.
func (t *sinkTask) write(ctx context.Context, w connector.Writer, rows []types.Row) error {
	t.recordsIn.Add(int64(len(rows)))
	if len(rows) > 0 && t.openSince.Load() == 0 {
		t.openSince.Store(time.Now().UnixNano())
	}
	if err := w.Write(ctx, rows); err != nil {
		return fmt.Errorf("sink %q task %d: write: %w", t.sink.id, t.index, err)
	}
	return nil
}

func (t *sinkTask) run(ctx context.Context) (err error) {
	a := t.a
	w, err := t.open(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("sink %q task %d: close: %w", t.sink.id, t.index, cerr)
		}
	}()
	listener, _ := w.(connector.CheckpointListener)
	var notified int64
	n := len(t.inputs)
	barriers := map[int64]int{}
	positions := map[int64][]taskPositions{}
	eofs := 0
	for {
		select {
		case m := <-t.merged:
			switch m.kind {
			case msgData:
				if err := t.write(ctx, w, m.rows); err != nil {
					return err
				}
			case msgDeadLetters:
				if err := t.writeDeadLetters(ctx, w, m); err != nil {
					return err
				}
			case msgBarrier:
				barriers[m.id]++
				if m.pos != nil {
					positions[m.id] = append(positions[m.id], *m.pos)
				}
				if barriers[m.id] < n {
					continue
				}
				delete(barriers, m.id)
				pos := positions[m.id]
				delete(positions, m.id)
				if err := t.preCommit(ctx, w, m.id, pos); err != nil {
					return err
				}
				if a.mode == ExactlyOnce {
					for _, r := range t.release {
						r <- struct{}{}
					}
				}
			case msgEOF:
				if eofs++; eofs == n {
					// Keep the writer open until the final checkpoint's
					// commits are acknowledged: a sink may commit through
					// its writers' clients.
					select {
					case <-a.coord.allCommitted:
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				}
			}
		case <-t.notify:
			if done := a.coord.completed.Load(); listener != nil && done > notified {
				notified = done
				if err := listener.CheckpointComplete(ctx, done); err != nil {
					return fmt.Errorf("sink %q task %d: checkpoint %d complete: %w", t.sink.id, t.index, done, err)
				}
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// preCommit pre-commits the writer's work of checkpoint id, with pos (the
// group positions of the source tasks whose rows all come here) when the
// writer takes them.
func (t *sinkTask) preCommit(ctx context.Context, w connector.Writer, id int64, pos []taskPositions) error {
	a := t.a
	fi := FaultInfo{Checkpoint: id, Sink: t.sink.id, Task: t.index}
	if err := a.j.fault(ctx, BeforePreCommit, fi); err != nil {
		return err
	}
	var cs []connector.Committable
	var err error
	if pw, ok := w.(connector.GroupPositionWriter); ok && len(pos) > 0 && acceptsAll(pw, pos) {
		ps := make([]connector.GroupPositions, len(pos))
		for i, p := range pos {
			ps[i] = p.p
			// Before the ack: the checkpoint cannot complete, and so no
			// direct commit of these positions can start, until it is set.
			a.srcTasks[p.task].inTxn.Store(true)
		}
		cs, err = pw.PreCommitWithPositions(ctx, id, ps)
		if err != nil && cs != nil && errors.Is(err, connector.ErrGroupPositions) {
			a.j.stats.groupCommitFailed()
			a.j.log.Warn("consumer group positions are not committed with the sink's transaction; the job goes on",
				"sink", t.sink.id, "task", t.index, "checkpoint", id, "err", err)
			err = nil
		}
	} else {
		cs, err = w.PreCommit(ctx, id)
	}
	if err != nil {
		return fmt.Errorf("sink %q task %d: pre-commit for checkpoint %d: %w", t.sink.id, t.index, id, err)
	}
	if len(cs) > 0 && t.sink.committer == nil {
		return fmt.Errorf("sink %q task %d returned committables but its sink is not a connector.TwoPhaseSink", t.sink.id, t.index)
	}
	// The transaction's age counts from its first write, not from now: a
	// broker's transaction timeout starts there (docs/exactly-once.md, "Timeout").
	born := time.Now()
	if ns := t.openSince.Swap(0); ns != 0 {
		born = time.Unix(0, ns)
	}
	if to := t.sink.timeout; len(cs) > 0 && to > 0 && time.Since(born) > to*4/5 {
		return fmt.Errorf("sink %q task %d: pre-commit for checkpoint %d: its transaction began %s ago, past 4/5 of the sink's transaction timeout %s (the other side may already have aborted it): failing over to the last completed checkpoint",
			t.sink.id, t.index, id, time.Since(born).Round(time.Millisecond), to)
	}
	items := make([]item, len(cs))
	for i, c := range cs {
		items[i] = item{c: checkpoint.Committable{Key: checkpoint.Key{Sink: t.sink.id, Run: a.run, Checkpoint: id, Task: t.index, Seq: i}, Data: c},
			sink: t.sink, born: born}
	}
	if len(cs) > 0 {
		a.tracker.add(t.sink.index, id, len(cs))
	}
	if err := a.j.fault(ctx, AfterPreCommit, fi); err != nil {
		return err
	}
	return a.coord.send(ctx, event{kind: evSinkAck, checkpoint: id, task: t.global, items: items})
}

func acceptsAll(w connector.GroupPositionWriter, pos []taskPositions) bool {
	for _, p := range pos {
		if !w.AcceptsGroupPositions(p.p) {
			return false
		}
	}
	return true
}

func sortItems(items []item) {
	slices.SortFunc(items, func(x, y item) int {
		return cmp.Or(cmp.Compare(x.sink.index, y.sink.index), x.c.Key.Compare(y.c.Key))
	})
}

// maxUncommitted bounds the transactions a sink task holds that are not
// committed (connector.TaskInfo.MaxUncommitted): the open one, one per
// checkpoint in flight, one per completed checkpoint waiting for its
// commits (triggering pauses at MaxUncommitted of them, carried work
// included), and the work carried over failed checkpoints (at most one
// per failure in a row that the job tolerates, plus the failure that
// fails the job).
func maxUncommitted(cp CheckpointConfig) int {
	return 1 + cp.MaxConcurrent + cp.MaxUncommitted + cp.TolerableFailed + 1
}
