package runtime

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
	"golang.org/x/sync/errgroup"
)

type msgKind uint8

const (
	msgData msgKind = iota
	msgBarrier
	// msgEOF ends a channel for good: the upstream task took its final
	// checkpoint (a stop, the end of the input, a reassignment) and ends.
	msgEOF
	msgDeadLetters // dead letters for the sink writer's transaction (deadletter.go)
	// msgEndInput says that the upstream task read all its input (a
	// bounded source returned io.EOF): it precedes the final barrier.
	msgEndInput
	// msgTimer is a head's own: an operator's processing-time timer is
	// due (or a split's idle timeout).
	msgTimer
	// msgWatermark carries the sender's event-time watermark (in id).
	msgWatermark
	// msgIdle says that the sender's inputs are all idle: the channel
	// holds no watermark back until its next row or watermark.
	msgIdle
)

// message is what flows on a channel between tasks: a batch of rows, a
// checkpoint barrier, the end of the input, or the end of the channel.
type message struct {
	kind  msgKind
	final bool
	input int32
	id    int64
	rows  []types.Row
	// pos travels with a barrier from a source task towards the one sink
	// task that receives all its rows: the source's consumer group
	// positions at the barrier, for the writer to commit with its
	// pre-committed work (sourceRT.oneWriter).
	pos []taskPositions
	// dl is the dead-letter sink of the source whose dead letters a
	// msgDeadLetters carries.
	dl *SinkSpec
	// arena, when set, holds the memory of a msgData's rows (a recycling
	// edge transform's output): the receiving task releases it once it
	// processed the rows.
	arena *slabArena
}

// taskPositions are the group positions of reader task (global index)
// task at a barrier.
type taskPositions struct {
	task int
	p    connector.GroupPositions
}

// head is where a task's elements come from: a source's reader
// (readerHead) or input channels (channelHead).
type head interface {
	// next blocks until the next element: rows, a barrier, the end of the
	// input, the end of every channel (msgEOF), a due timer.
	next(ctx context.Context) (message, error)
}

// task is one goroutine of a run: a head (a source's reader, or input
// channels), a chain of fused operators, and a tail (a sink's writer, or
// the exchanges towards the next vertices). Its one loop (run) handles
// every element for every kind of task: rows go through the chain; a
// barrier is aligned (channel heads), the operators prepare their
// snapshots, the reader is snapshotted, the barrier goes on downstream,
// the writer pre-commits, and the task acknowledges the checkpoint with
// all it contributes; the end of the input and of the channels go on
// downstream.
type task struct {
	a       *attempt
	global  int    // index in attempt.tasks
	name    string // for errors
	members []*member

	head head
	rd   *readerHead  // the head, when it is a reader
	ch   *channelHead // the head, when it is input channels
	nIn  int          // input channels (1 for a reader)

	sw   *stateWriter    // writes the cuts of stateful operators, or nil
	tf   *transformStage // the lowered transform right after the reader, or nil
	ops  []*opStage      // the chain's operators, in order
	w    *writerTail     // the tail's writer, or nil
	outs []*outEdge      // the tail's exchanges
	// arena holds the memory the last operator cuts the current call's
	// output from (opStage.cut), or nil: the messages that carry its rows
	// hold it.
	arena *slabArena
	// enter is the chain's entry.
	enter func(input int, rows []types.Row) error
	// dead is the input of the task's dead-letter sink task, or nil;
	// deadTxn the sink task's input whose transactions take this task's
	// dead letters (SourceSpec.DeadLettersInSink) when the sink is not
	// fused (deadletter.go).
	dead    chan message
	deadTxn chan message

	ctx context.Context // the run's, for the chain's callbacks

	// Alignment (channel heads): barriers and positions per checkpoint.
	barriers  map[int64]int
	positions map[int64][]taskPositions
	eofs      int
	ended     []int // channels whose input ended, per operator input
	endedAll  int

	// wm is the task's event-time watermark (stream.MinWatermark before
	// the first); idleSent is set while the task told downstream that it
	// is idle.
	wm       int64
	idleSent bool
	// wmOut is the watermark the task sent downstream last: its wm, or
	// less when an operator of its chain holds the watermark back
	// (stream.WatermarkHolder).
	wmOut int64
	// wmPub is wm for Status (other goroutines).
	wmPub atomic.Int64

	// wake interrupts the head: a barrier request or a completed
	// checkpoint to tell about (reader), a due timer (both).
	wake chan struct{}
	// wakeOnComplete is set when the task must hear of completed
	// checkpoints at once: a channel head (its writer may listen), a
	// reader whose writer listens (its blocked Read is interrupted).
	wakeOnComplete atomic.Bool
	mu             sync.Mutex
	timer          *time.Timer
	timerAt        atomic.Int64 // the earliest processing-time timer of the chain (0: none)

	bpMu         sync.Mutex
	backpressure time.Duration // blocked on full channels (sends that ended); bpMu
	blockedSince time.Time     // start of the blocked send in progress (zero: none); bpMu
}

// start starts the task's goroutines in g: its loop, and the forwarders
// of a head with several channels.
func (t *task) start(g *errgroup.Group, ctx context.Context) {
	if t.ch != nil {
		t.ch.start(g, ctx)
	}
	if t.sw != nil {
		t.sw.start(g, ctx)
	}
	goSafe(g, t.name, func() error { return t.run(ctx) })
}

// run opens the task's reader, operators and writer, and runs the loop.
func (t *task) run(ctx context.Context) (err error) {
	t.ctx = ctx
	closeAll, err := t.open(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if t.sw != nil {
			// What the task handed its state writer is still written
			// (the final checkpoint's state, say) before the backends
			// its cuts come from close.
			close(t.sw.jobs)
			if err == nil {
				select {
				case <-t.sw.done:
				case <-ctx.Done():
				}
			}
		}
		if cerr := closeAll(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	defer t.stopTimer()
	if t.a.unopened.Add(-1) == 0 {
		if err := t.a.coord.send(ctx, event{kind: evAllOpened, task: t.global}); err != nil {
			return err
		}
	}
	if t.rd != nil && t.rd.gen != nil {
		// A task with no split (or only idle ones) says so at once, and
		// its splits turn idle after the timeout even without a row.
		if err := t.sourceWatermark(ctx); err != nil {
			return err
		}
		t.armTimer()
	}
	for {
		m, err := t.head.next(ctx)
		if err != nil {
			return err
		}
		switch m.kind {
		case msgData:
			if err := t.data(ctx, int(m.input), m.rows); err != nil {
				return err
			}
			if m.arena != nil {
				// The task's first operator copied what it kept
				// (OperatorVertex.Copies): the rows' memory may go to
				// the sender's next batch.
				m.arena.release()
			}
		case msgDeadLetters:
			if err := t.w.writeDeadLetters(ctx, m); err != nil {
				return err
			}
		case msgBarrier:
			if err := t.barrier(ctx, m); err != nil {
				return err
			}
		case msgEndInput:
			if err := t.endInput(ctx, int(m.input)); err != nil {
				return err
			}
		case msgTimer:
			if err := t.timers(ctx); err != nil {
				return err
			}
		case msgWatermark, msgIdle:
			if err := t.channelWatermark(ctx, int(m.input), m); err != nil {
				return err
			}
		case msgEOF:
			if t.eofs++; t.eofs == t.nIn {
				return t.finish(ctx)
			}
		}
	}
}

// open opens the task's operators, then its reader and writer (both at
// once: opening a transactional writer takes round trips). It returns
// what closes them.
func (t *task) open(ctx context.Context) (func() error, error) {
	var closers []func() error
	closeAll := func() error {
		var first error
		for i := len(closers) - 1; i >= 0; i-- {
			if err := closers[i](); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	var waitWriter func() error
	if t.w != nil {
		ch := make(chan error, 1)
		// The goroutine ends when Open returns, which it does when ctx
		// ends at the latest.
		go func() { ch <- t.w.open(ctx) }()
		waitWriter = func() error {
			if err := <-ch; err != nil {
				return err
			}
			closers = append(closers, t.w.close)
			return nil
		}
	}
	fail := func(err error) (func() error, error) {
		if waitWriter != nil {
			_ = waitWriter() // the first error is the one to report
		}
		_ = closeAll()
		return nil, err
	}
	if err := t.openChain(ctx, &closers); err != nil {
		return fail(err)
	}
	if t.rd != nil {
		if err := t.rd.open(ctx); err != nil {
			return fail(err)
		}
		closers = append(closers, t.rd.close)
	}
	if waitWriter != nil {
		err := waitWriter()
		waitWriter = nil
		if err != nil {
			return fail(err)
		}
	}
	t.reuseOutput()
	return closeAll, nil
}

// reuseOutput makes the transform's function (transformStage.init) and
// lets the last stage of the chain (the transform, or the last operator)
// reuse the memory of the rows it hands on when they go to
// the task's writer alone and the writer keeps no row past its Write
// (connector.RowForgetter; Pipeline.NewReusingTransform,
// stream.OutputReuser), and any operator whose rows go to an operator
// that forgets its input (stream.InputForgetter).
func (t *task) reuseOutput() {
	// An operator whose rows go to one that forgets its input
	// (stream.InputForgetter: a Calc) may reuse them, wherever that
	// one's rows go.
	for k := 0; k+1 < len(t.ops); k++ {
		if f, ok := t.ops[k+1].op.(stream.InputForgetter); ok && f.ForgetsInput() {
			t.ops[k].reuse()
		}
	}
	forget := false
	if t.w != nil && len(t.outs) == 0 {
		f, ok := t.w.w.(connector.RowForgetter)
		forget = ok && f.ForgetsRows()
	}
	if t.tf != nil {
		t.tf.init(forget && len(t.ops) == 0)
	}
	if len(t.ops) == 0 {
		return
	}
	if forget {
		t.ops[len(t.ops)-1].reuse()
		return
	}
	if t.w == nil && t.outsForget() {
		t.ops[len(t.ops)-1].cut()
	}
}

// outsForget reports whether the task's rows go out only over exchanges
// that send each batch as it is (not spread over several tasks' buffers)
// to operators that copy what they keep (OperatorVertex.Copies, and no
// operator keeps a row past processing it): a batch's memory may then be
// reused once each task that got it processed it (slabArena).
func (t *task) outsForget() bool {
	if len(t.outs) == 0 {
		return false
	}
	for _, o := range t.outs {
		if op := o.to.v.Operator; o.tf != nil || o.spread() || op == nil || !op.Copies {
			return false
		}
	}
	return true
}

// cut lets the operator, the last of a chain whose rows go out over
// exchanges only (task.outsForget), cut its output rows' fields from
// arenas that the downstream tasks hand back (stream.OutputCutter): each
// call's output is cut from one arena, which the messages carrying its
// rows hold (task.arena) and the call's flush lets go of.
func (s *opStage) cut() {
	if s.release != nil {
		return
	}
	c, ok := s.op.(stream.OutputCutter)
	if !ok {
		return
	}
	pool := make(chan *slabArena, s.t.arenaCapacity())
	arena := func() *slabArena {
		t := s.t
		if t.arena == nil {
			select {
			case t.arena = <-pool:
				t.arena.reset()
			default:
				t.arena = &slabArena{pool: pool}
			}
			t.arena.refs.Store(1)
		}
		return t.arena
	}
	drop := c.CutOutputFrom(func(k int) []types.Value { return arena().take(k) })
	if drop == nil {
		return
	}
	s.drop = drop
	// The call's output batches are the arena's too.
	s.out.BatchesFrom(func(n int) []types.Row { return arena().batch(n) })
}

// arenaCapacity is how many arenas of the task's output a pool keeps: at
// most the messages of its channels and one call's on either side are in
// flight.
func (t *task) arenaCapacity() int {
	n := 2
	for _, o := range t.outs {
		n += len(o.chans) * cap(o.chans[0])
	}
	return n
}

// reuse asks the operator to reuse the rows it emits once handed on
// (stream.OutputReuser), and its Output to reuse its batches.
func (s *opStage) reuse() {
	if s.release != nil {
		return
	}
	if r, ok := s.op.(stream.OutputReuser); ok {
		if s.release = r.ReuseOutput(); s.release != nil {
			s.out.ReuseBatches()
		}
	}
}

// openChain creates and opens the task's operators and wires the chain:
// reader or channels → transform → operators → writer or exchanges.
func (t *task) openChain(ctx context.Context, closers *[]func() error) error {
	a := t.a
	next := func(_ int, rows []types.Row) error { return t.emit(rows) }
	// Wired from the tail back to the head.
	var stages []*opStage
	for i := len(t.members) - 1; i >= 0; i-- {
		m := t.members[i]
		v := m.v.v
		if v == nil || v.Operator == nil {
			continue
		}
		if v.transform != nil {
			t.tf = newTransformStage(v.transform, t.members[0], t.rd)
			down := next
			t.tf.next = func(rows []types.Row) error { return down(0, rows) }
			next = func(_ int, rows []types.Row) error { return t.tf.push(rows) }
			continue
		}
		s := &opStage{t: t, m: m}
		m.op = s
		down := next
		s.out = stream.NewOutput(outputBatch, func(rows []types.Row) error {
			m.recordsOut.Add(int64(len(rows)))
			return down(0, rows)
		})
		next = s.process
		stages = append(stages, s)
	}
	for i, j := 0, len(stages)-1; i < j; i, j = i+1, j-1 {
		stages[i], stages[j] = stages[j], stages[i]
	}
	t.ops, t.enter = stages, next
	for _, s := range stages {
		m := s.m
		info := stream.TaskInfo{Job: a.j.spec.Name, Vertex: m.v.id, Index: m.index, Parallelism: m.v.par,
			KeyGroups: state.KeyGroupRange{Start: 0, End: a.maxParallelism}, MaxParallelism: a.maxParallelism}
		if m.v.v.Operator.Stateful {
			info.KeyGroups = state.RangeOf(m.index, m.v.par, a.maxParallelism)
		}
		s.ctx = &stream.Context{Task: info, Logger: a.j.log.With("operator", m.v.id, "task", m.index),
			Metrics: &stream.Metrics{}, Watermark: func() int64 { return t.wm }, Now: nowMillis}
		m.metrics.Store(s.ctx.Metrics)
		if rd := t.rd; rd != nil && t.tf == nil && s == stages[0] {
			// The operator gets the reader's batches as they are: a row
			// it rejects goes by the source's bad-record policy, as a
			// pipeline transform's does (the reader opens after the
			// operators: its policy is looked up at the call).
			s.ctx.RejectRow = func(i int, err error) bool { return rd.bad != nil && rd.bad.RejectRow(i, err) }
		}
		if m.v.v.Operator.Stateful {
			closeState, err := a.openState(ctx, s)
			if err != nil {
				return err
			}
			*closers = append(*closers, closeState)
		}
		op, err := m.v.v.Operator.New(info)
		if err != nil {
			return fmt.Errorf("operator %q task %d: create: %w", m.v.id, m.index, err)
		}
		s.op = op
		if err := op.Open(s.ctx); err != nil {
			_ = op.Close() // the open's error is the one to report
			return fmt.Errorf("operator %q task %d: open: %w", m.v.id, m.index, err)
		}
		*closers = append(*closers, func() error {
			if err := op.Close(); err != nil {
				return fmt.Errorf("operator %q task %d: close: %w", m.v.id, m.index, err)
			}
			return nil
		})
	}
	t.armTimer()
	return nil
}

// outputBatch bounds the batches an operator's Output hands on.
const outputBatch = 512

func nowMillis() int64 { return time.Now().UnixMilli() }

// opStage is an operator of a task's chain.
type opStage struct {
	t   *task
	m   *member
	op  stream.Operator
	ctx *stream.Context
	out *stream.Output
	be  state.Backend // a stateful operator's keyed state, or nil
	// release, when set, hands the operator back the memory of the rows
	// it emitted, once they were handed on (stream.OutputReuser).
	release func()
	// drop, when set, makes the operator forget the arena memory it cuts
	// its output from (stream.OutputCutter, opStage.cut).
	drop func()
}

// watermark returns the operator's event-time watermark.
func (s *opStage) watermark() int64 { return s.ctx.Watermark() }

// process hands rows of input to the operator and what it emits on.
func (s *opStage) process(input int, rows []types.Row) error {
	s.m.recordsIn.Add(int64(len(rows)))
	if err := s.op.Process(input, rows, s.out); err != nil {
		return s.fail("process", err)
	}
	return s.flush()
}

// flush hands on what the operator emitted; the rows are then the
// operator's again when it reuses them.
func (s *opStage) flush() error {
	err := s.out.Flush()
	if s.release != nil && err == nil {
		s.release()
	}
	if s.drop != nil {
		// The call's rows went out, each message holding their arena:
		// the next call cuts from another.
		s.drop()
		if a := s.t.arena; a != nil {
			s.t.arena = nil
			a.release()
		}
	}
	return err
}

func (s *opStage) fail(what string, err error) error {
	if oerr := s.out.Err(); oerr != nil {
		return oerr // the downstream's failure, named there
	}
	return fmt.Errorf("operator %q task %d: %s: %w", s.m.v.id, s.m.index, what, err)
}

// call runs one call into the operator (fn) and flushes what it emitted.
func (s *opStage) call(what string, fn func() error) error {
	if err := fn(); err != nil {
		return s.fail(what, err)
	}
	return s.flush()
}

// data hands a batch of rows that arrived on channel input (0 for a
// reader) to the chain.
func (t *task) data(ctx context.Context, input int, rows []types.Row) error {
	if rd := t.rd; rd != nil {
		rd.m.recordsIn.Add(int64(len(rows)))
		if rd.gen != nil {
			if err := rd.gen.observe(rd, rows); err != nil {
				return err
			}
		}
		if err := t.enter(0, rows); err != nil {
			return err
		}
		switch {
		case rd.nested != nil:
			// The chain's first operator copied what it kept, scalars
			// only: the reader may reuse the batch's memory, nested values
			// included, for its next Read.
			rd.nested.RecycleNested(rows)
		case rd.recycler != nil:
			// The chain's first operator copied what it kept: the
			// reader may reuse the batch's memory for its next Read.
			rd.recycler.Recycle(rows)
		}
		if rd.deadLetters != nil {
			if err := t.sendDeadLetters(ctx, rd.deadLetters.DeadLetters()); err != nil {
				return err
			}
		}
		if rd.gen != nil {
			if err := t.sourceWatermark(ctx); err != nil {
				return err
			}
		}
	} else {
		if t.w != nil && len(t.ops) == 0 {
			return t.w.write(ctx, rows)
		}
		if cw := &t.ch.wms; cw.idle[input] {
			cw.idle[input], t.idleSent = false, false // rows make a channel active again
		}
		if err := t.enter(t.ch.inputOf[input], rows); err != nil {
			return err
		}
	}
	t.armTimer()
	// A channel head with more input waiting lets the exchanges' buffers
	// grow; otherwise they go out now.
	if t.ch == nil || len(t.ch.merged) == 0 {
		return t.flushOuts(ctx)
	}
	return nil
}

// emit hands rows to the tail: the writer, or every exchange.
func (t *task) emit(rows []types.Row) error {
	if t.w != nil {
		return t.w.write(t.ctx, rows)
	}
	for _, o := range t.outs {
		if err := o.send(t.ctx, rows); err != nil {
			return err
		}
	}
	return nil
}

func (t *task) flushOuts(ctx context.Context) error {
	for _, o := range t.outs {
		if err := o.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// barrier counts barrier m of one channel; once every channel delivered
// it (aligned), the task takes its part of the checkpoint and, under
// EXACTLY_ONCE, releases its channels.
func (t *task) barrier(ctx context.Context, m message) error {
	pos := m.pos
	if t.nIn > 1 {
		if t.barriers == nil {
			t.barriers, t.positions = map[int64]int{}, map[int64][]taskPositions{}
		}
		t.barriers[m.id]++
		if len(m.pos) > 0 {
			t.positions[m.id] = append(t.positions[m.id], m.pos...)
		}
		if t.barriers[m.id] < t.nIn {
			return nil
		}
		pos = t.positions[m.id]
		delete(t.barriers, m.id)
		delete(t.positions, m.id)
	}
	if err := t.checkpoint(ctx, m.id, m.final, pos); err != nil {
		return err
	}
	if t.ch != nil {
		t.ch.releaseAll()
	}
	return nil
}

// checkpoint takes the task's part of checkpoint id at its aligned barrier:
// the operators prepare their snapshots (and emit what they must), the
// reader is snapshotted, the barrier goes on downstream (with the group
// positions towards the one writer that takes them), the writer
// pre-commits, and the task acknowledges all it contributes.
func (t *task) checkpoint(ctx context.Context, id int64, final bool, pos []taskPositions) error {
	for _, s := range t.ops {
		if err := s.call("prepare snapshot", func() error { return s.op.PrepareSnapshot(id, s.out) }); err != nil {
			return err
		}
	}
	// The cut of each backend, in this goroutine: what the operators
	// hold now, after every row before the barrier. None in the final
	// checkpoint of a run whose input ended (checkpoint.Metadata.InputEnded):
	// the operators have processed all of it, and no run goes on from it.
	var cuts []stateCut
	ended := final && t.a.endedCheckpoint.Load() == id
	for _, s := range t.ops {
		if s.be == nil || ended {
			continue
		}
		snap, err := s.be.Snapshot(id)
		if err != nil {
			release(cuts)
			return fmt.Errorf("operator %q task %d: snapshot its state for checkpoint %d: %w", s.m.v.id, s.m.index, id, err)
		}
		cuts = append(cuts, stateCut{s: s, snap: snap, watermark: s.watermark()})
	}
	err := t.forward(ctx, id, final, pos, cuts)
	if err != nil {
		release(cuts)
	}
	return err
}

// forward takes the rest of the task's part of checkpoint id after its
// state was cut: the reader's snapshot, the barrier downstream, the
// writer's pre-commit, the acknowledgement (by the state writer once the
// cuts are durable).
func (t *task) forward(ctx context.Context, id int64, final bool, pos []taskPositions, cuts []stateCut) error {
	ev := event{kind: evTaskAck, checkpoint: id, task: t.global}
	if rd := t.rd; rd != nil {
		states, err := rd.r.Snapshot(id)
		if err != nil {
			return fmt.Errorf("source %q task %d: snapshot for checkpoint %d: %w", rd.src.id, rd.index, id, err)
		}
		ev.source, ev.states = rd.src.id, states
		if rd.gen != nil {
			ev.watermarks = rd.gen.splitWatermarks(rd.splits)
		}
		if p, ok := rd.groupPositions(id); ok && rd.src.oneWriter {
			pos = append(pos, p)
		}
	}
	if err := t.flushOuts(ctx); err != nil {
		return err
	}
	b := message{kind: msgBarrier, id: id, final: final}
	if t.dead != nil {
		if err := t.send(ctx, t.dead, b); err != nil {
			return err
		}
	}
	for _, o := range t.outs {
		if err := o.barrier(ctx, b, pos); err != nil {
			return err
		}
	}
	if t.w != nil {
		items, err := t.w.preCommit(ctx, id, final, pos)
		if err != nil {
			return err
		}
		ev.items = items
	}
	if t.sw != nil {
		// Through the state writer even without cuts (the final
		// checkpoint of an ended input): a task acknowledges its
		// checkpoints in order, so that none completes before an
		// earlier one whose committables it would leave out.
		return t.sw.submit(ctx, stateJob{ev: ev, cuts: cuts, final: final})
	}
	return t.a.coord.send(ctx, ev)
}

// endInput handles the end of the input of one channel (input: its index;
// a reader's io.EOF for a reader head). Once every channel of an operator
// input ended, the chain's first operator is told (and each next one in
// turn); once every channel ended, the end goes on downstream and, for a
// reader, to the coordinator.
func (t *task) endInput(ctx context.Context, ch int) error {
	if t.rd != nil {
		// Everything that waits for event time fires now, before the
		// end of the input goes on and before the final barrier.
		if err := t.watermark(ctx, stream.MaxWatermark, false); err != nil {
			return err
		}
	}
	in := 0
	if t.ch != nil {
		in = t.ch.inputOf[ch]
	}
	if t.ended == nil {
		t.ended = make([]int, t.inputs())
	}
	t.ended[in]++
	t.endedAll++
	if t.ended[in] == t.channelsOf(in) {
		for i, s := range t.ops {
			input := 0
			if i == 0 {
				input = in
			} else if t.endedAll < t.nIn {
				break // a later operator's one input ends with all of the first's
			}
			if err := s.call("end input", func() error { return s.op.EndInput(input, s.out) }); err != nil {
				return err
			}
		}
	}
	if t.endedAll < t.nIn {
		return nil
	}
	if err := t.flushOuts(ctx); err != nil {
		return err
	}
	if t.w != nil {
		if err := t.w.endInput(ctx); err != nil {
			return err
		}
	}
	for _, o := range t.outs {
		if err := o.broadcast(ctx, message{kind: msgEndInput}); err != nil {
			return err
		}
	}
	if rd := t.rd; rd != nil {
		return t.a.coord.send(ctx, event{kind: evSourceFinished, task: rd.global})
	}
	return nil
}

// inputs returns the number of inputs of the chain's first operator (1
// without one).
func (t *task) inputs() int {
	if len(t.ops) > 0 && t.tf == nil {
		return t.ops[0].m.v.v.inputs()
	}
	return 1
}

// channelsOf returns the number of channels of operator input in.
func (t *task) channelsOf(in int) int {
	if t.ch == nil {
		return 1
	}
	n := 0
	for _, i := range t.ch.inputOf {
		if i == in {
			n++
		}
	}
	return n
}

// finish ends the task after its final checkpoint: the end goes on
// downstream; a writer stays open until the final checkpoint's commits are
// acknowledged (a sink may commit through its writers' clients), and a
// reader commits the group positions of the final checkpoint once they
// are (or the group stays one checkpoint behind the output).
func (t *task) finish(ctx context.Context) error {
	eof := message{kind: msgEOF}
	if t.dead != nil {
		if err := t.send(ctx, t.dead, eof); err != nil {
			return err
		}
	}
	for _, o := range t.outs {
		if err := o.broadcast(ctx, eof); err != nil {
			return err
		}
	}
	rd := t.rd
	if t.w == nil && (rd == nil || rd.positions == nil) {
		return nil
	}
	select {
	case <-t.a.coord.allCommitted:
	case <-ctx.Done():
		return ctx.Err()
	}
	if rd != nil && rd.positions != nil {
		rd.commitGroup(ctx)
	}
	return nil
}

// housekeeping runs between the head's elements: it commits group
// positions whose commits are durable, and tells listening readers and
// writers about completed checkpoints.
func (t *task) housekeeping(ctx context.Context) error {
	done := t.a.coord.completed.Load()
	if rd := t.rd; rd != nil {
		if rd.positions != nil {
			rd.commitGroup(ctx)
		}
		if rd.listener != nil && done > rd.notified {
			rd.notified = done
			if err := rd.listener.CheckpointComplete(ctx, done); err != nil {
				return fmt.Errorf("source %q task %d: checkpoint %d complete: %w", rd.src.id, rd.index, done, err)
			}
		}
	}
	if w := t.w; w != nil {
		return w.notify(ctx, done)
	}
	return nil
}

// interrupt wakes the head: it cancels a reader's blocked Read, if any, or
// wakes it from waiting at the end of its input, so that its loop runs
// once more; a channel head runs its housekeeping.
func (t *task) interrupt() {
	if t.rd != nil {
		t.rd.interrupt()
	}
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// armTimer sets the task's timer to the chain's earliest processing-time
// timer.
func (t *task) armTimer() {
	if len(t.ops) == 0 && (t.rd == nil || t.rd.gen == nil) {
		return
	}
	at := t.idleTimerAt()
	for _, s := range t.ops {
		if tm := s.ctx.ProcessingTimer(); tm != 0 && (at == 0 || tm < at) {
			at = tm
		}
	}
	if at == t.timerAt.Load() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.timerAt.Store(at)
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	if at != 0 {
		t.timer = time.AfterFunc(time.Until(time.UnixMilli(at)), t.interrupt)
	}
}

func (t *task) stopTimer() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timer != nil {
		t.timer.Stop()
	}
}

// timerDue reports whether the chain's earliest timer is due.
func (t *task) timerDue() bool {
	at := t.timerAt.Load()
	return at != 0 && nowMillis() >= at
}

// timers calls the operators whose processing-time timers are due.
func (t *task) timers(ctx context.Context) error {
	now := nowMillis()
	for _, s := range t.ops {
		if tm := s.ctx.ProcessingTimer(); tm == 0 || tm > now {
			continue
		}
		s.ctx.SetProcessingTimer(0)
		if err := s.call("processing time", func() error { return s.op.ProcessingTime(now, s.out) }); err != nil {
			return err
		}
	}
	if t.rd != nil && t.rd.gen != nil {
		// A split may have turned idle.
		if err := t.sourceWatermark(ctx); err != nil {
			return err
		}
	}
	t.armTimer()
	return t.flushOuts(ctx)
}

// send sends m on ch, counting the time blocked on a full channel as
// backpressure.
func (t *task) send(ctx context.Context, ch chan message, m message) error {
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

// backpressureNow is the time the task has spent blocked on full channels,
// the send blocked at this moment included (a task stuck behind a sink
// that does not move shows it growing).
func (t *task) backpressureNow() time.Duration {
	t.bpMu.Lock()
	defer t.bpMu.Unlock()
	d := t.backpressure
	if !t.blockedSince.IsZero() {
		d += time.Since(t.blockedSince)
	}
	return d
}
