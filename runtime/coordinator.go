package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

type evKind uint8

const (
	// evTaskAck is a task's acknowledgement of a checkpoint, with all it
	// contributes: its reader's split states, its writer's committables.
	evTaskAck evKind = iota
	// evTaskDecline fails a checkpoint: a task could not write its
	// operator state (items: its committables, pre-committed already).
	evTaskDecline
	evSourceFinished
	evCommitted
	evCommitLost
	// evAllOpened says the last task of the run has opened: a final
	// checkpoint waiting for it can be triggered.
	evAllOpened
)

type event struct {
	kind       evKind
	checkpoint int64
	task       int
	source     string
	states     []connector.SplitState
	items      []item
	ops        []opState
	watermarks map[string]int64 // a reader's split watermarks
	key        checkpoint.Key
	lost       *CommitLostError
	err        error
}

// item is a committable in the coordinator's books.
type item struct {
	c      checkpoint.Committable
	sink   *sinkRT
	born   time.Time // when its transaction began: the task's first write after the previous pre-commit
	in     int64     // the completed checkpoint that carries it
	warned bool
	lost   bool // its sink reported the commit lost (CommitLostError)
}

type inflight struct {
	id    int64
	final bool
	// ended marks the final checkpoint of a run whose input ended
	// (checkpoint.Metadata.InputEnded): the tasks write no operator state.
	ended     bool
	started   time.Time
	acked     []bool // per task
	remaining int
	states    map[string][]connector.SplitState
	items     []item
	ops       map[string]checkpoint.OperatorState
	wms       map[string]map[string]int64
}

type commitJob struct {
	checkpoint int64
	items      []item
}

// coordinator triggers checkpoints, collects acks, writes completed
// checkpoints, and drives commits (commitLoop). Its state is owned by the
// run goroutine; other goroutines talk to it through events.
type coordinator struct {
	a      *attempt
	cfg    jobconfig.CheckpointConfig
	events chan event
	stop   chan struct{}
	// allCommitted is closed when the final checkpoint's commits are
	// acknowledged.
	allCommitted chan struct{}
	once         sync.Once

	// completed is the id of the latest completed checkpoint, read by
	// tasks to notify CheckpointListeners.
	completed atomic.Int64
	// committed is the id of the latest completed checkpoint whose commits,
	// and those of every earlier checkpoint, are durably acknowledged:
	// source tasks commit its group positions (publishCommitted).
	committed atomic.Int64

	nextID       int64
	inflight     []*inflight
	carried      []item // pre-committed for failed checkpoints
	uncommitted  []item // in completed checkpoints, commit not acked
	acked        []item // commit acked, not durable yet
	lastEnd      time.Time
	due          bool
	failedInARow int
	finished     int
	stopping     bool
	finalID      int64
	// finalWhy is the reason for a final checkpoint asked for while a
	// task was still opening; it is triggered once every task is open.
	finalWhy string
	// finalEnded says that the final checkpoint ends the input
	// (inflight.ended).
	finalEnded   bool
	finalDone    bool
	pausedWarned bool
	openWarned   map[*writerTail]int64 // open transactions warned about (by their openSince)
	health       map[*sinkRT]*unhealthy
	last         *checkpoint.Metadata
	// lost lists the commits reported lost. Once one is, no checkpoint
	// is triggered; the other commits go on, and when every one is
	// acknowledged or lost the acknowledgements are recorded and the run
	// fails with all of them (lostSettled).
	lost []*CommitLostError

	cmu    sync.Mutex
	cqueue []commitJob
	cclose bool
	cwake  chan struct{}
}

func newCoordinator(a *attempt, nextID int64, recovered []checkpoint.Committable) *coordinator {
	c := &coordinator{a: a, cfg: a.j.spec.Config.Checkpoint, nextID: nextID,
		events: make(chan event, 64), stop: make(chan struct{}), cwake: make(chan struct{}, 1),
		allCommitted: make(chan struct{}),
		last:         a.restored}
	for _, r := range recovered {
		i := 0
		for i < len(a.sinks) && a.sinks[i].id != r.Sink {
			i++
		}
		c.acked = append(c.acked, item{c: r, sink: a.sinks[i], in: a.restoredID})
	}
	if a.restored != nil {
		c.completed.Store(a.restored.ID)
	}
	return c
}

func (c *coordinator) requestStop() { c.once.Do(func() { close(c.stop) }) }

// send delivers an event to the coordinator.
func (c *coordinator) send(ctx context.Context, ev event) error {
	select {
	case c.events <- ev:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *coordinator) log() *slog.Logger { return c.a.j.log }

func (c *coordinator) run(ctx context.Context) (err error) {
	defer c.closeCommits()
	defer func() {
		// A failure while lost commits are being settled must not hide
		// them (they make the failure terminal).
		if err != nil && len(c.lost) > 0 && !errors.Is(err, connector.ErrCommitLost) {
			err = errors.Join(lostError(c.lost), err)
		}
	}()
	var tick <-chan time.Time
	if c.cfg.Interval > 0 {
		t := time.NewTicker(c.cfg.Interval)
		defer t.Stop()
		tick = t.C
	}
	hk := min(time.Second, c.cfg.Timeout/4)
	if c.cfg.Interval > 0 {
		hk = min(hk, c.cfg.Interval)
	}
	house := time.NewTicker(max(hk, 5*time.Millisecond))
	defer house.Stop()
	stop := c.stop
	for {
		select {
		case <-tick:
			c.due = true
		case ev := <-c.events:
			if err := c.handle(ctx, ev); err != nil {
				return err
			}
		case <-house.C:
			if err := c.housekeeping(); err != nil {
				return err
			}
		case <-stop:
			stop = nil
			c.startFinal("stop requested", false)
		case <-ctx.Done():
			return ctx.Err()
		}
		if len(c.lost) > 0 {
			if err := c.lostSettled(); err != nil {
				return err
			}
			continue
		}
		if len(c.uncommitted) == 0 || c.pausedWarned {
			if err := c.recordAcks(); err != nil {
				return err
			}
		}
		c.publishCommitted()
		if c.finalDone && len(c.uncommitted) == 0 {
			close(c.allCommitted)
			return nil
		}
		c.maybeTrigger()
	}
}

// publishCommitted advances committed: every checkpoint before the oldest
// one with a commit that is not durably acknowledged.
func (c *coordinator) publishCommitted() {
	w := c.completed.Load()
	for _, l := range [][]item{c.uncommitted, c.acked} {
		for _, it := range l {
			w = min(w, it.in-1)
		}
	}
	if w > c.committed.Load() {
		c.committed.Store(w)
	}
}

func (c *coordinator) startFinal(why string, ended bool) {
	if c.stopping {
		return
	}
	c.stopping = true
	c.finalWhy, c.finalEnded = why, ended
	c.triggerFinal()
}

// endsWithoutState reports whether the final checkpoint taken because
// every source read all its input may leave out the operators' state
// (checkpoint.Metadata.InputEnded): the retention deletes the checkpoints
// once the job finishes (a retained one may be restored to go on over
// more input, with its state), and no source's splits are assigned from
// outside the job (a later run could get more of them).
func (c *coordinator) endsWithoutState() bool {
	if c.cfg.Retention == jobconfig.RetainOnCancellation {
		return false
	}
	for _, s := range c.a.sources {
		if _, ok := s.v.Source.(connector.Reassigning); ok {
			return false
		}
	}
	return true
}

// triggerFinal triggers the final checkpoint asked for by startFinal once
// every task of the run has opened. As the periodic ones (maybeTrigger),
// a final checkpoint begun while a task is still opening would hold the
// other tasks' pre-committed transactions open until it can take part,
// and a sink task that never took part in any checkpoint would end the
// run without having committed what it wrote.
func (c *coordinator) triggerFinal() {
	if c.finalWhy == "" || c.a.unopened.Load() > 0 {
		return
	}
	c.finalID = c.trigger(true)
	c.log().Info("taking final checkpoint", "checkpoint", c.finalID, "reason", c.finalWhy, "operator_state", !c.finalEnded)
	c.finalWhy = ""
}

// uncommittedCheckpoints counts the completed checkpoints whose commits
// are pending, and the failed ones whose pre-committed work is carried:
// each holds a transaction of its sink tasks (a Kafka transactional id)
// until its commit.
func (c *coordinator) uncommittedCheckpoints() (int, *item) {
	n, last := 0, int64(-1)
	var oldest *item
	for i := range c.uncommitted {
		it := &c.uncommitted[i]
		if oldest == nil || it.born.Before(oldest.born) {
			oldest = it
		}
		if it.in != last { // items are appended in completion order
			n, last = n+1, it.in
		}
	}
	var carried []int64
	for i := range c.carried {
		it := &c.carried[i]
		if oldest == nil || it.born.Before(oldest.born) {
			oldest = it
		}
		if !slices.Contains(carried, it.c.Key.Checkpoint) {
			carried = append(carried, it.c.Key.Checkpoint)
		}
	}
	return n + len(carried), oldest
}

func (c *coordinator) maybeTrigger() {
	if !c.due || c.stopping || len(c.inflight) >= c.cfg.MaxConcurrent {
		return
	}
	// As Flink, no periodic checkpoint before every task is open: a task
	// still opening cannot take its part, and a checkpoint begun without
	// it holds the others' pre-committed transactions open until it can —
	// transactions that commit a consumer group's offsets, which a source
	// task still opening may be waiting to read as stable (the deadlock
	// fixed in the Kafka reader by 0447204; this closes the whole class).
	// The checkpoint stays due and is triggered at the first tick after.
	if c.a.unopened.Load() > 0 {
		return
	}
	if !c.lastEnd.IsZero() && time.Since(c.lastEnd) < c.cfg.MinPause {
		return
	}
	// Carried work counts, but alone it never pauses: only a completed
	// checkpoint commits it.
	if n, oldest := c.uncommittedCheckpoints(); n >= c.cfg.MaxUncommitted && len(c.uncommitted) > 0 {
		if !c.pausedWarned {
			c.pausedWarned = true
			c.a.j.stats.setPaused(true)
			c.log().Warn("commits lag: not triggering checkpoints until they catch up",
				"lagging_sink", oldest.sink.id, "uncommitted_checkpoints", n, "oldest", oldest.c.Key.String(), "age", time.Since(oldest.born).Round(time.Millisecond))
		}
		return
	}
	if c.pausedWarned {
		c.pausedWarned = false
		c.a.j.stats.setPaused(false)
		c.log().Info("commits caught up: checkpoints resume")
	}
	if len(c.lost) > 0 {
		return
	}
	c.due = false
	c.trigger(false)
}

func (c *coordinator) trigger(final bool) int64 {
	id := c.nextID
	c.nextID++
	a := c.a
	f := &inflight{id: id, final: final, ended: final && c.finalEnded, started: time.Now(), acked: make([]bool, len(a.tasks)),
		remaining: len(a.tasks), states: map[string][]connector.SplitState{}}
	if f.ended {
		// Before any barrier: the tasks read it at theirs.
		a.endedCheckpoint.Store(id)
	}
	for _, s := range a.sources {
		f.states[s.id] = []connector.SplitState{}
	}
	c.inflight = append(c.inflight, f)
	for _, r := range a.readers {
		r.trigger(id, final)
	}
	return id
}

func (c *coordinator) find(id int64) *inflight {
	for _, f := range c.inflight {
		if f.id == id {
			return f
		}
	}
	return nil
}

func (c *coordinator) handle(ctx context.Context, ev event) error {
	switch ev.kind {
	case evSourceFinished:
		if c.finished++; c.finished == len(c.a.readers) {
			c.startFinal("all sources finished", c.endsWithoutState())
		}
		return nil
	case evAllOpened:
		c.triggerFinal()
		return nil
	case evCommitted:
		for i := range c.uncommitted {
			if c.uncommitted[i].c.Key == ev.key {
				c.acked = append(c.acked, c.uncommitted[i])
				c.uncommitted = append(c.uncommitted[:i], c.uncommitted[i+1:]...)
				break
			}
		}
		c.a.j.stats.setPending(c.pendingStats())
		return nil
	case evCommitLost:
		for i := range c.uncommitted {
			if c.uncommitted[i].c.Key == ev.key {
				c.uncommitted[i].lost = true
			}
		}
		c.lost = append(c.lost, ev.lost)
		c.log().Error("commit lost; committing the other pending work, then the job fails",
			"checkpoint", ev.lost.Checkpoint, "committable", ev.key.String(), "err", ev.lost.Err)
		return nil
	}
	f := c.find(ev.checkpoint)
	if f == nil {
		// The checkpoint failed (timed out) before this ack: its
		// pre-committed work is carried into the next checkpoint.
		c.carried = append(c.carried, ev.items...)
		return nil
	}
	if ev.kind == evTaskDecline {
		c.remove(f)
		c.carried = append(c.carried, f.items...)
		c.carried = append(c.carried, ev.items...)
		return c.failed(f, ev.err)
	}
	if !f.acked[ev.task] {
		f.acked[ev.task] = true
		f.remaining--
		if ev.source != "" {
			f.states[ev.source] = append(f.states[ev.source], ev.states...)
			if len(ev.watermarks) > 0 {
				if f.wms == nil {
					f.wms = map[string]map[string]int64{}
				}
				if f.wms[ev.source] == nil {
					f.wms[ev.source] = map[string]int64{}
				}
				maps.Copy(f.wms[ev.source], ev.watermarks)
			}
		}
		f.items = append(f.items, ev.items...)
		for _, o := range ev.ops {
			if f.ops == nil {
				f.ops = map[string]checkpoint.OperatorState{}
			}
			op := f.ops[o.vertex]
			op.Tasks = append(op.Tasks, o.ts)
			f.ops[o.vertex] = op
		}
	}
	if f.remaining == 0 {
		return c.complete(ctx, f)
	}
	return nil
}

func (c *coordinator) remove(f *inflight) {
	for i, g := range c.inflight {
		if g == f {
			c.inflight = append(c.inflight[:i], c.inflight[i+1:]...)
			return
		}
	}
}

func (c *coordinator) complete(ctx context.Context, f *inflight) error {
	c.remove(f)
	a := c.a
	newItems := append(c.carried, f.items...)
	c.carried = nil
	sortItems(newItems)
	md := &checkpoint.Metadata{Version: checkpoint.FormatVersion, Job: a.j.spec.Name, ID: f.id, Run: a.run,
		Time: time.Now().UTC(), Sources: f.states, MaxParallelism: a.maxParallelism, Operators: f.ops, Watermarks: f.wms,
		InputEnded: f.ended}
	for _, op := range f.ops {
		slices.SortFunc(op.Tasks, func(x, y checkpoint.TaskState) int { return x.Task - y.Task })
	}
	for _, it := range c.uncommitted {
		md.Pending = append(md.Pending, it.c)
	}
	for _, it := range newItems {
		md.Pending = append(md.Pending, it.c)
	}
	for i := range newItems {
		newItems[i].in = f.id
	}
	durable := len(c.acked)
	if err := a.j.fault(ctx, BeforeCheckpointWrite, FaultInfo{Checkpoint: f.id, Final: f.final}); err != nil {
		return err
	}
	size, err := a.j.store.Write(md)
	if err != nil {
		c.carried = newItems
		if errors.Is(err, checkpoint.ErrDirGone) {
			return err // there is no file to delete; the job fails (terminal)
		}
		// A write that failed after its rename (the directory fsync)
		// may have left the file: it must not stay, or a later restore
		// would take it for the latest checkpoint although the job went
		// on (and acknowledged commits) without it.
		if rerr := a.j.store.Remove(f.id); rerr != nil {
			return fmt.Errorf("checkpoint %d failed (%w) and its file cannot be deleted: %w", f.id, err, rerr)
		}
		return c.failed(f, fmt.Errorf("write checkpoint %d: %w", f.id, err))
	}
	dur := time.Since(f.started)
	c.failedInARow = 0
	c.lastEnd = time.Now()
	prev := c.last
	if prev == nil {
		prev = a.restored
	}
	stateSize, stateWritten := stateSizes(md, prev)
	c.last = md
	for _, it := range c.acked[:durable] {
		a.tracker.durable(it.sink.index, it.c.Checkpoint)
	}
	c.acked = append(c.acked[:0], c.acked[durable:]...)
	c.uncommitted = append(c.uncommitted, newItems...)
	c.a.j.stats.completed(f.id, dur, size, stateSize, stateWritten, c.lastEnd)
	// Logged when the checkpoint is complete (its file durable), before
	// its commits start: a line never follows the output it commits.
	a.j.log.Info("checkpoint completed", "checkpoint", f.id, "duration", dur.Round(time.Microsecond).String(), "size", size,
		"new_committables", len(newItems), "pending_commits", len(c.uncommitted))
	c.a.j.stats.setPending(c.pendingStats())
	if err := a.j.fault(ctx, AfterCheckpointWritten, FaultInfo{Checkpoint: f.id, Final: f.final}); err != nil {
		return err
	}
	c.completed.Store(f.id)
	for _, t := range a.tasks {
		if t.wakeOnComplete.Load() {
			t.interrupt()
		}
	}
	if len(newItems) > 0 {
		c.enqueue(commitJob{checkpoint: f.id, items: newItems})
	}
	if f.final {
		c.finalDone = true
	}
	// Deleting old checkpoints (a directory listing, reading the newest
	// ones to find the fallback, unlinks) is not on the commits' path:
	// they are under way on the commit loop by now.
	return c.prune(ctx)
}

// prune deletes the checkpoints retention does not keep, and the state
// files no retained checkpoint references. A failure is a warning (the
// next prune tries again), a fault a failure.
func (c *coordinator) prune(ctx context.Context) error {
	a := c.a
	if err := a.j.store.Prune(c.cfg.NumRetained); err != nil {
		c.log().Warn("cannot delete old checkpoints", "err", err)
		return nil
	}
	if !a.stateful || c.last == nil {
		return nil
	}
	if err := a.collectState(ctx, c.last.ID); err != nil {
		var fe *faultError
		if errors.As(err, &fe) {
			return err
		}
		c.log().Warn("cannot delete the state files of old checkpoints", "err", err)
	}
	return nil
}

// lostSettled is called after each event once a commit is lost. While
// other commits of completed checkpoints are outstanding it returns nil
// (they go on). Then it abandons the checkpoints in flight (their
// pre-committed work is aborted by the next recovery, and their sources
// replay), records the acknowledgements durably — the lost committables
// stay pending in the checkpoint — and returns the lost commits.
func (c *coordinator) lostSettled() error {
	for _, it := range c.uncommitted {
		if !it.lost {
			return nil
		}
	}
	c.inflight = nil
	if err := c.recordAcks(); err != nil {
		return errors.Join(lostError(c.lost), err)
	}
	if len(c.acked) > 0 {
		c.log().Warn("the acknowledgements of the commits that succeeded could not be recorded; the next run commits them again (commits are idempotent)")
	}
	return lostError(c.lost)
}

// failed handles a checkpoint that failed while the job keeps running:
// its pre-committed work is already in c.carried.
func (c *coordinator) failed(f *inflight, cause error) error {
	c.a.j.stats.failed()
	c.lastEnd = time.Now()
	if f.final {
		return fmt.Errorf("final checkpoint %d failed: %w", f.id, cause)
	}
	c.failedInARow++
	if c.failedInARow > c.cfg.TolerableFailed {
		return fmt.Errorf("checkpoint %d failed (%d in a row, execution.checkpointing.tolerable-failed-checkpoints is %d): %w",
			f.id, c.failedInARow, c.cfg.TolerableFailed, cause)
	}
	c.log().Warn("checkpoint failed; its pre-committed work is carried into the next one",
		"checkpoint", f.id, "err", cause, "failed_in_a_row", c.failedInARow)
	return nil
}

func (c *coordinator) housekeeping() error {
	now := time.Now()
	for _, f := range append([]*inflight(nil), c.inflight...) {
		if now.Sub(f.started) > c.cfg.Timeout {
			c.remove(f)
			c.carried = append(c.carried, f.items...)
			if err := c.failed(f, fmt.Errorf("expired after execution.checkpointing.timeout (%s)", c.cfg.Timeout)); err != nil {
				return err
			}
		}
	}
	if err := c.guardOpen(now); err != nil {
		return err
	}
	c.watchHealth(now)
	c.publishHealth(now)
	for i := range c.uncommitted {
		c.warnAge(&c.uncommitted[i], now)
	}
	for i := range c.carried {
		it := &c.carried[i]
		c.warnAge(it, now)
		if t := it.sink.timeout; t > 0 && now.Sub(it.born) > t*4/5 {
			return fmt.Errorf("pre-committed work %s is %s old, near the sink's transaction timeout %s, and no checkpoint has completed to commit it: failing over to the last completed checkpoint",
				it.c.Key, now.Sub(it.born).Round(time.Millisecond), t)
		}
	}
	c.a.j.stats.setPending(c.pendingStats())
	return nil
}

// guardOpen watches the sink tasks' open transactions (written to, not yet
// pre-committed): past half of the sink's transaction timeout it warns,
// past 4/5 it fails over to the last completed checkpoint. An idle task's
// transaction is otherwise pre-committed at the next barrier however old
// it is, and the broker may have aborted it already.
func (c *coordinator) guardOpen(now time.Time) error {
	for _, t := range c.a.writers() {
		to := t.sink.timeout
		ns := t.openSince.Load()
		if to <= 0 || ns == 0 {
			continue
		}
		age := now.Sub(time.Unix(0, ns))
		if age > to*4/5 {
			return fmt.Errorf("sink %q task %d: its open transaction began %s ago, near the sink's transaction timeout %s, and no checkpoint has pre-committed it%s: failing over to the last completed checkpoint",
				t.sink.id, t.index, age.Round(time.Millisecond), to, c.inflightNote(now))
		}
		if age > to/2 && c.openWarned[t] != ns {
			if c.openWarned == nil {
				c.openWarned = map[*writerTail]int64{}
			}
			c.openWarned[t] = ns
			c.log().Warn("an open transaction is past half of the sink's transaction timeout and no checkpoint has pre-committed it",
				"sink", t.sink.id, "task", t.index, "age", age.Round(time.Millisecond), "timeout", to)
		}
	}
	return nil
}

// unhealthy is a sink whose writers report a problem
// (connector.HealthReporter).
type unhealthy struct {
	since, warned time.Time
	problem       string
	task          int // -1: the committer
}

// healthRepeat is how often a lasting problem is warned about again.
const healthRepeat = 30 * time.Second

// watchHealth polls the sink tasks' writers for problems (for Kafka:
// brokers that cannot be reached). A problem seen for a second is warned
// about with what waits (the checkpoint in flight and its age, pending
// commits), again every healthRepeat while it lasts, and its end is
// logged: an outage is visible in the log, not just a silent stall.
func (c *coordinator) watchHealth(now time.Time) {
	for _, s := range c.a.sinks {
		problem, task := "", -1
		if s.health != nil {
			problem = s.health.Unhealthy()
		}
		for _, t := range s.tasks {
			if problem != "" {
				break
			}
			t.mu.Lock()
			h := t.health
			t.mu.Unlock()
			if h == nil {
				continue
			}
			if p := h.Unhealthy(); p != "" {
				problem, task = p, t.index
				break
			}
		}
		st := c.health[s]
		if problem == "" {
			if st != nil && !st.warned.IsZero() {
				c.log().Info("sink recovered: its writers report no problem any more", "sink", s.id,
					"after", now.Sub(st.since).Round(100*time.Millisecond))
			}
			delete(c.health, s)
			continue
		}
		if st == nil {
			if c.health == nil {
				c.health = map[*sinkRT]*unhealthy{}
			}
			st = &unhealthy{since: now}
			c.health[s] = st
		}
		st.problem, st.task = problem, task
		if now.Sub(st.since) < time.Second || now.Sub(st.warned) < healthRepeat {
			continue
		}
		st.warned = now
		attrs := []any{"sink", s.id, "problem", problem, "for", now.Sub(st.since).Round(100 * time.Millisecond)}
		if task >= 0 {
			attrs = append(attrs, "task", task)
		}
		if len(c.inflight) > 0 {
			f := c.inflight[0]
			attrs = append(attrs, "waiting_checkpoint", f.id, "checkpoint_age", now.Sub(f.started).Round(100*time.Millisecond))
		} else {
			attrs = append(attrs, "waiting_checkpoint", "none")
		}
		if n, _ := c.pendingStats(); n > 0 {
			attrs = append(attrs, "pending_commits", n)
		}
		c.log().Warn("sink unhealthy: the job waits on it", attrs...)
	}
}

// inflightNote describes the oldest checkpoint in flight, for messages.
func (c *coordinator) inflightNote(now time.Time) string {
	if len(c.inflight) == 0 {
		return " (no checkpoint in flight)"
	}
	f := c.inflight[0]
	return fmt.Sprintf(" (checkpoint %d in flight for %s)", f.id, now.Sub(f.started).Round(time.Millisecond))
}

func (c *coordinator) warnAge(it *item, now time.Time) {
	if t := it.sink.timeout; t > 0 && !it.warned && now.Sub(it.born) > t/2 {
		it.warned = true
		c.log().Warn("pre-committed work is past half of the sink's transaction timeout and not committed",
			"committable", it.c.Key.String(), "age", now.Sub(it.born).Round(time.Millisecond), "timeout", t)
	}
}

func (c *coordinator) pendingStats() (int, time.Time) {
	n := len(c.uncommitted) + len(c.carried)
	var oldest time.Time
	for _, l := range [][]item{c.uncommitted, c.carried} {
		for _, it := range l {
			if oldest.IsZero() || it.born.Before(oldest) {
				oldest = it.born
			}
		}
	}
	return n, oldest
}

// finish runs after every task ended cleanly. It makes the last commit
// acknowledgements durable and applies the retention policy.
func (c *coordinator) finish(stopped bool) error {
	a := c.a
	ret := c.cfg.Retention
	clear := ret == jobconfig.DeleteOnCancellation || (!stopped && ret == jobconfig.NoExternalizedCheckpoints)
	if clear {
		// A bounded job that ran to its end leaves a finished record
		// before its checkpoints go: a run after a kill in between (or
		// any later run) must not process the input again.
		if d, ok := a.j.store.(checkpoint.Durable); ok && !stopped {
			last, err := d.MaxID()
			if err != nil {
				return fmt.Errorf("record that the job finished: %w", err)
			}
			if err := d.MarkFinished(checkpoint.Finished{Time: a.j.now().UTC(), LastCheckpoint: last}); err != nil {
				return fmt.Errorf("record that the job finished: %w", err)
			}
		}
		if err := a.j.store.Clear(); err != nil {
			return fmt.Errorf("delete checkpoints: %w", err)
		}
		return nil
	}
	return nil
}

// recordAcks makes the commit acknowledgements received since the last
// checkpoint durable without waiting for the next one: it writes a new
// revision of the latest completed checkpoint (same id and source
// positions) without the acknowledged committables, which supersedes the
// older revision. A checkpoint in flight does not matter: it gets a
// higher id, and it lists only committables not acknowledged yet.
func (c *coordinator) recordAcks() error {
	if len(c.acked) == 0 || c.last == nil {
		return nil
	}
	a := c.a
	acked := make(map[checkpoint.Key]bool, len(c.acked))
	for _, it := range c.acked {
		acked[it.c.Key] = true
	}
	md, err := writeAckRecord(a, c.last, acked)
	if err != nil {
		c.log().Warn("cannot record commit acknowledgements; the next checkpoint will", "err", err)
		return nil
	}
	for _, it := range c.acked {
		a.tracker.durable(it.sink.index, it.c.Checkpoint)
	}
	c.acked = c.acked[:0]
	c.last = md
	return c.prune(context.Background())
}

// writeAckRecord writes the acknowledgement record of base: its next
// revision, without the acknowledged committables.
func writeAckRecord(a *attempt, base *checkpoint.Metadata, acked map[checkpoint.Key]bool) (*checkpoint.Metadata, error) {
	md := *base
	md.Revision, md.Run, md.Time, md.Pending = base.Revision+1, a.run, time.Now().UTC(), nil
	for _, p := range base.Pending {
		if !acked[p.Key] {
			md.Pending = append(md.Pending, p)
		}
	}
	if _, err := a.j.store.Write(&md); err != nil {
		return nil, err
	}
	return &md, nil
}

// recordRecovered records, after a recovery that found lost commits, the
// acknowledgements of the restored committables that it did commit, so
// that the lost ones are what the checkpoint still lists as pending.
func (a *attempt) recordRecovered(recovered []checkpoint.Committable) {
	if a.restored == nil || len(recovered) == 0 {
		return
	}
	acked := make(map[checkpoint.Key]bool, len(recovered))
	for _, c := range recovered {
		acked[c.Key] = true
	}
	if _, err := writeAckRecord(a, a.restored, acked); err != nil {
		a.j.log.Warn("cannot record the commits recovery made; the next run commits them again (commits are idempotent)", "err", err)
	}
}

func (c *coordinator) enqueue(j commitJob) {
	c.cmu.Lock()
	c.cqueue = append(c.cqueue, j)
	c.cmu.Unlock()
	select {
	case c.cwake <- struct{}{}:
	default:
	}
}

func (c *coordinator) closeCommits() {
	c.cmu.Lock()
	c.cclose = true
	c.cmu.Unlock()
	select {
	case c.cwake <- struct{}{}:
	default:
	}
}

// commitLoop commits the committables of completed checkpoints in order,
// sink by sink, retrying failures with backoff, and acknowledges each
// commit to the coordinator.
func (c *coordinator) commitLoop(ctx context.Context) error {
	a := c.a
	for {
		c.cmu.Lock()
		var job commitJob
		ok, closed := len(c.cqueue) > 0, c.cclose
		if ok {
			job = c.cqueue[0]
			c.cqueue = c.cqueue[1:]
		}
		c.cmu.Unlock()
		if !ok {
			if closed {
				return nil
			}
			select {
			case <-c.cwake:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := a.j.fault(ctx, CommitDelay, FaultInfo{Checkpoint: job.checkpoint}); err != nil {
			return err
		}
		for i, it := range job.items {
			if i > 0 && job.items[i-1].sink != it.sink {
				if err := a.j.fault(ctx, BetweenSinkCommits, FaultInfo{Checkpoint: job.checkpoint, Sink: it.sink.id}); err != nil {
					return err
				}
			}
			if err := commitRetrying(ctx, c.a.j.log, job.checkpoint, it.sink, it.c); err != nil {
				// A lost commit must not take the others down with it:
				// report it and go on with the rest.
				var cl *CommitLostError
				if !errors.As(err, &cl) {
					return err
				}
				if err := c.send(ctx, event{kind: evCommitLost, key: it.c.Key, lost: cl}); err != nil {
					return err
				}
				continue
			}
			if err := a.j.fault(ctx, AfterCommit, FaultInfo{Checkpoint: job.checkpoint, Sink: it.sink.id, Task: it.c.Task}); err != nil {
				return err
			}
			if err := c.send(ctx, event{kind: evCommitted, key: it.c.Key}); err != nil {
				return err
			}
		}
	}
}

// commitRetrying commits one committable, retrying failures other than
// connector.ErrCommitLost with exponential backoff until ctx is done.
func commitRetrying(ctx context.Context, log *slog.Logger, ckpt int64, sink *sinkRT, c checkpoint.Committable) error {
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := sink.committer.Commit(ctx, c.Data)
		if err == nil {
			return nil
		}
		if errors.Is(err, connector.ErrCommitLost) {
			return &CommitLostError{Checkpoint: ckpt, Sink: sink.id, Key: c.Key, Committable: c.Data, Err: err}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		log.Warn("commit failed; retrying", "checkpoint", ckpt, "committable", c.Key.String(), "attempt", attempt, "err", err, "retry_in", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

// stateSizes returns the bytes of the state files md references, and of
// those among them that prev (the checkpoint before it, or the one the run
// restored; nil: none) does not reference: what md wrote.
func stateSizes(md, prev *checkpoint.Metadata) (total, written int64) {
	old := map[string]bool{}
	if prev != nil {
		for _, n := range prev.StateFiles() {
			old[n] = true
		}
	}
	for _, op := range md.Operators {
		for _, t := range op.Tasks {
			for _, f := range t.Handle.Files {
				total += f.Size
				if !old[f.Name] {
					written += f.Size
				}
			}
		}
	}
	return total, written
}
