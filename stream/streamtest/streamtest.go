// Package streamtest runs a stream.Operator in a test as the runtime runs
// it in one task: batches of rows, watermarks, processing time, and
// checkpoints (PrepareSnapshot, then a cut of the task's keyed state
// written to in-memory files), and restores an operator from those
// checkpoints at another parallelism, so that operator tests check what
// survives a crash without a job around them.
package streamtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/heap"
	"github.com/streamsql/streamsql/state/statetest"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Task is one operator task under test.
type Task struct {
	t       testing.TB
	op      stream.Operator
	ctx     *stream.Context
	backend state.Backend
	files   *statetest.MemFiles
	out     []types.Row
	wm      int64
	now     int64
	id      int64
}

// Options configure a task.
type Options struct {
	// Index and Parallelism place the task among its vertex's tasks
	// (default 0 of 1); MaxParallelism is the number of key groups
	// (default state.DefaultMaxParallelism).
	Index, Parallelism, MaxParallelism int
	// Restore are the handles of the task's key groups from checkpoints
	// of earlier tasks (Snapshot), read from Files.
	Restore []state.Handle
	Files   *statetest.MemFiles
	// Watermark is the task's watermark at Open (a restored task's).
	Watermark int64
	// Now is the wall clock in milliseconds at Open (processing time and
	// state TTL); it moves with Advance.
	Now int64
	// Backend is the keyed state's kind (nil: the heap backend).
	Backend state.Kind
}

// Open creates task opts.Index of f's operator on a heap backend and opens
// it. The task closes when the test ends.
func Open(t testing.TB, f stream.Factory, opts Options) *Task {
	t.Helper()
	tk, err := OpenErr(t, f, opts)
	if err != nil {
		t.Fatalf("open the operator: %v", err)
	}
	return tk
}

// OpenErr is Open returning the error of the operator's Open instead of
// failing the test (the state is closed at the end of the test either
// way), for tests of what an operator refuses to open.
func OpenErr(t testing.TB, f stream.Factory, opts Options) (*Task, error) {
	t.Helper()
	if opts.Parallelism == 0 {
		opts.Parallelism = 1
	}
	if opts.MaxParallelism == 0 {
		opts.MaxParallelism = state.DefaultMaxParallelism
	}
	if opts.Files == nil {
		opts.Files = statetest.NewMemFiles()
	}
	if opts.Watermark == 0 {
		opts.Watermark = stream.MinWatermark
	}
	kgs := state.RangeOf(opts.Index, opts.Parallelism, opts.MaxParallelism)
	info := stream.TaskInfo{Job: "test", Vertex: "op", Index: opts.Index, Parallelism: opts.Parallelism,
		KeyGroups: kgs, MaxParallelism: opts.MaxParallelism}
	op, err := f(info)
	if err != nil {
		t.Fatalf("create the operator: %v", err)
	}
	tk := &Task{t: t, op: op, files: opts.Files, wm: opts.Watermark, now: opts.Now}
	var restore []state.Handle
	for _, h := range opts.Restore {
		if h.KeyGroups.Intersect(kgs).Len() > 0 {
			restore = append(restore, h)
		}
	}
	kind, dir := opts.Backend, ""
	if kind == nil {
		kind = heap.Kind{}
	} else {
		dir = t.TempDir() // an on-disk backend's working files
	}
	b, err := kind.Open(context.Background(), state.Config{Operator: fmt.Sprintf("op task %d", opts.Index), KeyGroups: kgs,
		MaxParallelism: opts.MaxParallelism, Restore: restore, Files: opts.Files, Dir: dir, Now: func() int64 { return tk.now }})
	if err != nil {
		t.Fatalf("open the state: %v", err)
	}
	tk.backend = b
	tk.ctx = &stream.Context{Task: info, State: b, Logger: testLogger(t), Metrics: &stream.Metrics{},
		Watermark: func() int64 { return tk.wm }, Now: func() int64 { return tk.now }}
	if err := op.Open(tk.ctx); err != nil {
		t.Cleanup(func() { _ = b.Close() })
		return nil, err
	}
	t.Cleanup(func() {
		_ = op.Close()
		_ = b.Close()
	})
	return tk, nil
}

func (tk *Task) output() *stream.Output {
	return stream.NewOutput(64, func(rows []types.Row) error {
		tk.out = append(tk.out, rows...)
		return nil
	})
}

// flush hands the rows of a call on and fails the test on err.
func (tk *Task) flush(out *stream.Output, err error) {
	tk.t.Helper()
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		tk.t.Fatalf("operator: %v", err)
	}
}

// Process passes rows to input 0.
func (tk *Task) Process(rows ...types.Row) { tk.t.Helper(); tk.ProcessInput(0, rows...) }

// ProcessInput passes rows to input.
func (tk *Task) ProcessInput(input int, rows ...types.Row) {
	tk.t.Helper()
	out := tk.output()
	tk.flush(out, tk.op.Process(input, rows, out))
	tk.timer()
}

// ProcessErr passes rows to input 0 and returns the operator's error.
func (tk *Task) ProcessErr(rows ...types.Row) error {
	out := tk.output()
	err := tk.op.Process(0, rows, out)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}

// Watermark advances the task's watermark to wm (ignored unless it is
// greater), in the operator's steps as the runtime does (see Step).
func (tk *Task) Watermark(wm int64) {
	tk.t.Helper()
	for wm > tk.wm {
		step := wm
		if x, ok := tk.Step(wm); ok && x > tk.wm && x < wm {
			step = x
		}
		tk.wm = step
		out := tk.output()
		tk.flush(out, tk.op.Watermark(step, out))
	}
}

// Step returns the watermark below wm that the operator asks to be handed
// first (stream.WatermarkStepper); ok is false when it asks for none.
func (tk *Task) Step(wm int64) (step int64, ok bool) {
	if st, is := tk.op.(stream.WatermarkStepper); is {
		return st.WatermarkStep(wm)
	}
	return 0, false
}

// Advance moves the wall clock to now and fires the operator's
// processing-time timer when it is due, as the task loop does.
func (tk *Task) Advance(now int64) {
	tk.t.Helper()
	tk.now = now
	tk.timer()
}

func (tk *Task) timer() {
	tk.t.Helper()
	for at := tk.ctx.ProcessingTimer(); at != 0 && at <= tk.now; at = tk.ctx.ProcessingTimer() {
		tk.ctx.SetProcessingTimer(0)
		out := tk.output()
		tk.flush(out, tk.op.ProcessingTime(tk.now, out))
	}
}

// EndInput tells the operator that input 0 ended, after the maximum
// watermark.
func (tk *Task) EndInput() { tk.t.Helper(); tk.EndInputs(0) }

// EndInputs tells the operator that the given inputs ended (every input
// of a join, say), after the maximum watermark.
func (tk *Task) EndInputs(inputs ...int) {
	tk.t.Helper()
	tk.Watermark(stream.MaxWatermark)
	for _, in := range inputs {
		out := tk.output()
		tk.flush(out, tk.op.EndInput(in, out))
	}
}

// OutputWatermark returns the watermark the runtime forwards downstream
// of the operator: the task's, or what the operator holds it back to
// (stream.WatermarkHolder).
func (tk *Task) OutputWatermark() int64 {
	if h, ok := tk.op.(stream.WatermarkHolder); ok {
		return h.OutputWatermark(tk.wm)
	}
	return tk.wm
}

// Snapshot takes a checkpoint: PrepareSnapshot, a cut of the task's state,
// written to the task's files. It returns the handle the checkpoint would
// store.
func (tk *Task) Snapshot() state.Handle {
	tk.t.Helper()
	tk.id++
	out := tk.output()
	tk.flush(out, tk.op.PrepareSnapshot(tk.id, out))
	snap, err := tk.backend.Snapshot(tk.id)
	if err != nil {
		tk.t.Fatalf("snapshot: %v", err)
	}
	defer snap.Release()
	h, err := snap.Write(context.Background(), tk.files, fmt.Sprintf("op/chk-%d/task-%d-%p", tk.id, tk.ctx.Task.Index, tk))
	if err != nil {
		tk.t.Fatalf("write the snapshot: %v", err)
	}
	return h
}

// Files returns the task's state files (for a restore).
func (tk *Task) Files() *statetest.MemFiles { return tk.files }

// Take returns the rows the operator emitted since the last Take.
func (tk *Task) Take() []types.Row {
	out := tk.out
	tk.out = nil
	return out
}

// Metrics returns the operator's counters.
func (tk *Task) Metrics() *stream.Metrics { return tk.ctx.Metrics }

// State returns the task's backend.
func (tk *Task) State() state.Backend { return tk.backend }

// Row returns an insert row of values: int → BIGINT, string → STRING,
// float64 → DOUBLE, nil → NULL, types.Value as is.
func Row(kind types.RowKind, vals ...any) types.Row {
	f := make([]types.Value, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
		case int:
			f[i] = types.Int64(int64(v))
		case int64:
			f[i] = types.Int64(v)
		case string:
			f[i] = types.Str(v)
		case float64:
			f[i] = types.Float64(v)
		case bool:
			f[i] = types.Bool(v)
		case types.Value:
			f[i] = v
		default:
			panic(fmt.Sprintf("streamtest.Row: a %T", v))
		}
	}
	return types.Row{Kind: kind, Fields: f}
}

// Format returns rows as Flink prints a changelog, one per line:
// "+I[a, 1]" with values in Go's %v of their accessor (NULL as "null").
func Format(rows []types.Row, ts []types.Type) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		s := r.Kind.String() + "["
		for j, v := range r.Fields {
			if j > 0 {
				s += ", "
			}
			s += formatValue(v, ts[j])
		}
		out[i] = s + "]"
	}
	return out
}

func formatValue(v types.Value, t types.Type) string {
	if v.IsNull() {
		return "null"
	}
	switch {
	case t.IsInteger():
		return fmt.Sprint(v.Int64())
	case t.Kind == types.KindDouble || t.Kind == types.KindFloat:
		return fmt.Sprint(v.Float64())
	case t.IsString():
		return v.Str()
	case t.Kind == types.KindDecimal:
		return v.Decimal().String()
	case t.IsTimestamp():
		return v.Timestamp().Time().UTC().Format("2006-01-02 15:04:05.000")
	case t.Kind == types.KindBoolean:
		return fmt.Sprint(v.Bool())
	}
	return fmt.Sprintf("%v", v)
}
