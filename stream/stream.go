// Package stream defines the operator contract: what the runtime calls on
// an operator that processes rows between a job's sources and sinks (a
// filter and projection, a GROUP BY aggregation, a window, a join), as
// package connector defines what sources and sinks implement.
//
// An [Operator] runs in one task of a vertex of the job's dataflow graph;
// the runtime creates one per task through the vertex's [Factory], calls it
// from the task's goroutine only, and owns every goroutine, channel and
// checkpoint around it. The types to learn first: [Operator], [Context]
// (what the runtime hands an operator at Open: where it runs, its keyed
// state, its timers) and [Output] (where it emits rows).
//
// # Life of an operator
//
//  1. The runtime restores the task's keyed state ([Context.State]) from
//     the checkpoint it resumes from, then calls Open. Open rebuilds what
//     the operator keeps in memory from its state (for example the window
//     ends it waits for).
//  2. Process is called with each batch of rows that arrives on one of the
//     operator's inputs (0 for a one-input operator; 0 and 1 for a join).
//  3. Watermark is called when the task's event-time watermark (the minimum
//     over its inputs) advances: the operator emits what the watermark
//     completes (windows whose end it passed) before the runtime forwards
//     the watermark downstream (held back, for an operator that is a
//     [WatermarkHolder]).
//  4. ProcessingTime is called at or after the time the operator asked for
//     with [Context.SetProcessingTimer].
//  5. PrepareSnapshot is called at each checkpoint's aligned barrier, after
//     every row before the barrier was processed and before the runtime cuts
//     the keyed state: an operator that buffers (a mini-batch) writes its
//     buffer into its state or emits it here.
//  6. EndInput is called when an input has ended for good (a bounded source
//     read everything): its maximum watermark has been delivered already.
//  7. Close releases the operator's resources, after a normal end or a
//     failure.
//
// # Rows
//
// The rows passed to Process belong to the caller and are valid only during
// the call: their memory may be reused by the source for its next batch. An
// operator keeps nothing of them but what it encodes into its state (bytes,
// never types.Row). The rows an operator emits belong to the runtime from
// the call of Emit on: the operator must not modify them afterwards, and
// must not reuse their Fields for another row — unless the runtime asked
// it to (an [OutputReuser] whose ReuseOutput returned a release function):
// then, once the runtime calls release, the rows emitted before are
// nobody's but the operator's again.
//
// # Time
//
// Event time and watermarks are milliseconds since the epoch (as Flink's
// TIMESTAMP_LTZ(3) and the rowtime of a TIMESTAMP(3) column read as UTC).
// [MinWatermark] is the watermark before any was seen; [MaxWatermark] is
// sent when every input has ended, and fires everything that waits.
package stream

import (
	"log/slog"
	"math"
	"sync/atomic"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// MinWatermark is the watermark of an input that has not sent one yet.
const MinWatermark int64 = math.MinInt64

// MaxWatermark is the watermark of an input that has ended: every event-time
// timer fires at it.
const MaxWatermark int64 = math.MaxInt64

// Operator processes the rows of one task. Every method is called from the
// task's goroutine only, never concurrently. See the package documentation
// for the order of calls.
type Operator interface {
	// Open is called once, after the task's state is restored and before
	// any other method.
	Open(ctx *Context) error
	// Process handles a batch of rows that arrived on input (numbered
	// from 0 in the order of the vertex's inputs).
	Process(input int, rows []types.Row, out *Output) error
	// Watermark is called when the task's event-time watermark advances to
	// wm (strictly greater than the last one), after every row that
	// preceded the watermark on every input.
	Watermark(wm int64, out *Output) error
	// ProcessingTime is called from the task's loop once the wall clock
	// reaches the time set with Context.SetProcessingTimer (now is the
	// clock's value, milliseconds since the epoch). The timer is cleared
	// before the call.
	ProcessingTime(now int64, out *Output) error
	// PrepareSnapshot is called at the aligned barrier of checkpoint id,
	// before the runtime cuts the keyed state: everything the operator
	// holds outside its state must be written into it (or emitted) here.
	PrepareSnapshot(id int64, out *Output) error
	// EndInput is called when input has ended (every upstream task of it
	// read all its rows); the input's maximum watermark has been handled.
	EndInput(input int, out *Output) error
	// Close releases the operator; it is called once, also after a
	// failure, and after it nothing else.
	Close() error
}

// WatermarkHolder is implemented by an operator whose output rows may
// carry event times behind the watermark it was handed, by a bounded
// amount: an interval join emits a pair when the later of its rows
// arrives, and the pair carries the earlier row's time. After each call of
// Watermark(wm) the runtime forwards OutputWatermark(wm) downstream rather
// than wm (Flink's KeyedCoProcessOperatorWithWatermarkDelay), so that
// those rows are not late for the operators after it. OutputWatermark must
// not decrease as wm increases, and returns MaxWatermark for MaxWatermark.
type WatermarkHolder interface {
	// OutputWatermark returns the watermark to forward downstream when the
	// operator's watermark is wm.
	OutputWatermark(wm int64) int64
}

// WatermarkStepper is implemented by an operator that fires at watermarks
// (windows at their ends). When the watermark jumps over several of its
// firing points at once — the maximum watermark at the end of a bounded
// input, a source catching up — the runtime advances it in steps:
// WatermarkStep(wm) returns the least watermark above the current one and
// below wm at which the operator fires something (ok false: none), and
// the runtime hands that watermark through the task's operators, sends
// their output and the watermark downstream, and asks again, before it
// hands on wm. The operators after it then see one window's rows at a
// time, and those that buffer them until the watermark (a window join, a
// window aggregation over a window aggregation) hold one window's rows
// rather than all of them. Each step is a true watermark: the operator
// emits nothing later with an event time at or below it.
type WatermarkStepper interface {
	WatermarkStep(wm int64) (step int64, ok bool)
}

// Base implements every Operator method but Open and Process as doing
// nothing, for operators to embed.
type Base struct{}

// Watermark does nothing.
func (Base) Watermark(int64, *Output) error { return nil }

// ProcessingTime does nothing.
func (Base) ProcessingTime(int64, *Output) error { return nil }

// PrepareSnapshot does nothing.
func (Base) PrepareSnapshot(int64, *Output) error { return nil }

// EndInput does nothing.
func (Base) EndInput(int, *Output) error { return nil }

// Close does nothing.
func (Base) Close() error { return nil }

// Factory creates the operator of one task of a vertex. The runtime calls
// it once per task and run (a restart creates new operators).
type Factory func(task TaskInfo) (Operator, error)

// TaskInfo tells an operator where it runs.
type TaskInfo struct {
	// Job is the job's name; Vertex the id of the operator's vertex in the
	// job's graph (stable across restarts: it keys the operator's state in
	// checkpoints).
	Job, Vertex string
	// Index is the task's index among Parallelism tasks of the vertex.
	Index, Parallelism int
	// KeyGroups is the range of key groups the task owns (the whole range
	// [0, MaxParallelism) for an operator that keeps no keyed state).
	KeyGroups state.KeyGroupRange
	// MaxParallelism is the job's number of key groups.
	MaxParallelism int
}

// Context is what the runtime hands an operator at Open. It stays valid
// until Close.
type Context struct {
	// Task says where the operator runs.
	Task TaskInfo
	// State is the task's keyed state (nil for an operator whose vertex
	// declares none). It holds what the restored checkpoint held for the
	// task's key groups.
	State state.Backend
	// Logger is the task's logger; never nil.
	Logger *slog.Logger
	// Metrics receives the operator's counters; never nil.
	Metrics *Metrics
	// Watermark returns the task's current event-time watermark
	// (MinWatermark before the first).
	Watermark func() int64
	// Now returns the wall clock in milliseconds since the epoch (the
	// processing time); tests replace it.
	Now func() int64
	// RejectRow, when set, hands row index of the batch Process got to
	// its source's bad-record policy ('scan.bad-record.policy'), for a
	// row the operator rejects with an error matching connector.ErrBadRow
	// or connector.ErrDropRow (a NULL for a NOT NULL sink column). It
	// reports whether the policy took the row (skipped, or its record set
	// aside as a dead letter): the operator then goes on without it. The
	// runtime sets it only for an operator whose batches are its source
	// reader's own, unchanged (the first one fused with a source).
	RejectRow func(index int, err error) bool

	timer int64 // the processing-time timer (0: none)
}

// SetProcessingTimer asks for a ProcessingTime call once the wall clock
// reaches at (milliseconds since the epoch). An operator has one timer: a
// later call replaces an earlier one, and 0 clears it. Timers are not part
// of checkpoints: an operator that needs one after a restore sets it again
// in Open.
func (c *Context) SetProcessingTimer(at int64) { c.timer = at }

// ProcessingTimer returns the time set with SetProcessingTimer (0: none).
// The runtime reads it after each call into the operator.
func (c *Context) ProcessingTimer() int64 { return c.timer }

// Metrics are an operator's counters, read by the runtime for status pages
// and metrics. An operator updates them from its task's goroutine only; the
// runtime reads them with atomic loads from other goroutines.
type Metrics struct {
	// LateRows counts rows dropped because their event time was behind
	// the watermark when they arrived (their window had fired already).
	LateRows atomic.Int64
	// Dropped counts rows dropped on purpose (connector.ErrDropRow: a NULL
	// for a NOT NULL sink column under table.exec.sink.not-null-enforcer
	// = DROP).
	Dropped atomic.Int64
}

// OutputReuser is implemented by operators that can reuse the memory of
// the rows they emit (their Fields) when nothing after them keeps a row:
// the runtime calls ReuseOutput once, after Open and before the first call
// that may emit, when the operator's output goes to a sink writer fused
// after it alone, which keeps no row past its Write
// (connector.RowForgetter). The operator returns release, or nil to go on
// as before; the runtime calls release after each call into the operator
// whose output it handed on in full, and from then on the operator may
// overwrite every row it emitted before.
type OutputReuser interface {
	ReuseOutput() (release func())
}

// OutputCutter is implemented by operators that can cut the fields of the
// rows they emit from memory the runtime hands them, when the task that
// gets their rows over an exchange keeps none of them past processing
// them: the runtime calls CutOutputFrom once, after Open and before the
// first call that may emit, and only when it does not ask the operator to
// reuse its output (OutputReuser). take(k) returns k Values; the
// operator writes every one it puts in an emitted row. It returns drop,
// which makes it forget the memory it cuts from (the runtime calls it
// after each call into the operator), or nil to go on as before.
type OutputCutter interface {
	CutOutputFrom(take func(k int) []types.Value) (drop func())
}

// InputForgetter is implemented by operators that keep nothing of the rows
// handed to Process past the call: no row, no Fields slice, no batch (the
// values they copy out may share strings and nested values, which nobody
// rewrites). When ForgetsInput returns true, the runtime lets the operator
// right before it in a task's chain reuse the rows it emits
// (OutputReuser), whatever comes after.
type InputForgetter interface {
	ForgetsInput() bool
}

// Output collects the rows an operator emits. The runtime hands them on in
// batches: to the next operator of the task's chain, to the task's writer,
// or to the exchange towards the next vertex. A large emission (a window
// firing for a million keys) is handed on in bounded batches while it is
// emitted, so an Output holds little memory.
type Output struct {
	rows  []types.Row
	reuse bool // ReuseBatches
	// batch, when set (BatchesFrom), gives each batch's slice.
	batch func(n int) []types.Row
	limit int
	flush func(rows []types.Row) error
	err   error
}

// NewOutput returns an Output that hands rows to flush in batches of up to
// limit rows (the runtime's, and tests', constructor).
func NewOutput(limit int, flush func(rows []types.Row) error) *Output {
	return &Output{limit: max(limit, 1), flush: flush}
}

// Emit hands row on. It never fails by itself; an error of the downstream
// (a failed write) is returned by the call into the operator that emitted
// it, after the operator returns.
func (o *Output) Emit(row types.Row) {
	if o.err != nil {
		return
	}
	if o.rows == nil && o.batch != nil {
		o.rows = o.batch(o.limit)[:0]
	}
	o.rows = append(o.rows, row)
	if len(o.rows) >= o.limit {
		o.err = o.Flush()
	}
}

// Flush hands the rows emitted so far on. The runtime calls it after every
// call into the operator.
func (o *Output) Flush() error {
	if o.err != nil {
		return o.err
	}
	if len(o.rows) == 0 {
		return nil
	}
	rows := o.rows
	if o.batch != nil {
		// The next batch gets its slice at its first row (BatchesFrom).
		o.rows = nil
		o.err = o.flush(rows)
		return o.err
	}
	if o.reuse {
		o.err = o.flush(rows)
		o.rows = rows[:0]
		return o.err
	}
	// The downstream may keep the rows (a sink buffering them): the next
	// batch gets a new slice.
	o.rows = make([]types.Row, 0, min(cap(rows), o.limit))
	o.err = o.flush(rows)
	return o.err
}

// BatchesFrom makes the Output take each batch's slice from batch, at the
// batch's first row (batch(n) returns a slice of capacity at least n,
// which the Output does not hand on twice): the runtime's, when the
// memory of a call's output comes from an arena (stream.OutputCutter).
func (o *Output) BatchesFrom(batch func(n int) []types.Row) { o.batch = batch }

// ReuseBatches tells the Output that its flush function keeps no batch
// past its return (the runtime's, when a sink writer that forgets rows
// takes them): each batch's slice is reused for the next.
func (o *Output) ReuseBatches() { o.reuse = true }

// Err returns the first error a flush returned, and clears it.
func (o *Output) Err() error {
	err := o.err
	o.err = nil
	return err
}
