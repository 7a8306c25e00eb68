package runtime_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// eventSource is a source of event-time rows [split, seq, ts]: split s
// yields rows whose event times (ms) are times(s, seq) for seq < per[s]
// (per[s] < 0: none, and the split never ends). One task reads every
// split, a batch of up to 8 rows of one split at a time, round robin;
// pace[s] is waited between two batches of split s. Its reader says
// which split each row came from (connector.RowSplitter) unless
// splitless.
type eventSource struct {
	per       []int64
	times     func(s int, seq int64) int64
	pace      []time.Duration
	splitless bool
}

func (e *eventSource) Splits(context.Context) ([]connector.Split, error) {
	sp := make([]connector.Split, len(e.per))
	for i := range sp {
		sp[i].ID = "s" + strconv.Itoa(i)
	}
	return sp, nil
}

func (e *eventSource) Bounded() bool {
	return !slices.ContainsFunc(e.per, func(n int64) bool { return n < 0 })
}

func (e *eventSource) Open(_ context.Context, _ connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r := &eventReader{e: e, last: -1}
	for _, sp := range splits {
		s, err := strconv.Atoi(sp.ID[1:])
		if err != nil {
			return nil, err
		}
		var next int64
		if sp.State != nil {
			if next, err = strconv.ParseInt(string(sp.State), 10, 64); err != nil {
				return nil, err
			}
		}
		r.splits = append(r.splits, s)
		r.next = append(r.next, next)
		r.ready = append(r.ready, time.Time{})
	}
	if e.splitless {
		return splitlessReader{r}, nil
	}
	return r, nil
}

type eventReader struct {
	e      *eventSource
	splits []int
	next   []int64
	ready  []time.Time // when each split may give its next batch
	turn   int
	last   int // the split index of the last batch
}

// splitlessReader hides eventReader's RowSplit.
type splitlessReader struct{ r *eventReader }

func (s splitlessReader) Read(ctx context.Context) ([]types.Row, error) { return s.r.Read(ctx) }
func (s splitlessReader) Snapshot(id int64) ([]connector.SplitState, error) {
	return s.r.Snapshot(id)
}
func (s splitlessReader) Close() error { return nil }

func (r *eventReader) RowSplit(int) int { return r.last }

func (r *eventReader) Read(ctx context.Context) ([]types.Row, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		now := time.Now()
		var wait time.Time
		done := 0
		for range r.splits {
			i := r.turn % len(r.splits)
			r.turn++
			s := r.splits[i]
			if n := r.e.per[s]; n >= 0 && r.next[i] >= n {
				done++
				continue
			}
			if n := r.e.per[s]; n < 0 {
				continue // never a row
			}
			if now.Before(r.ready[i]) {
				if wait.IsZero() || r.ready[i].Before(wait) {
					wait = r.ready[i]
				}
				continue
			}
			k := min(8, r.e.per[s]-r.next[i])
			rows := make([]types.Row, k)
			for j := range rows {
				seq := r.next[i] + int64(j)
				rows[j] = types.Row{Fields: []types.Value{types.Int64(int64(s)), types.Int64(seq), types.Int64(r.e.times(s, seq))}}
			}
			r.next[i] += k
			if len(r.e.pace) > s {
				r.ready[i] = now.Add(r.e.pace[s])
			}
			r.last = i
			return rows, nil
		}
		if done == len(r.splits) {
			return nil, io.EOF
		}
		d := time.Hour
		if !wait.IsZero() {
			d = time.Until(wait)
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
}

func (r *eventReader) Snapshot(int64) ([]connector.SplitState, error) {
	st := make([]connector.SplitState, len(r.splits))
	for i, s := range r.splits {
		st[i] = connector.SplitState{ID: "s" + strconv.Itoa(s), State: []byte(strconv.FormatInt(r.next[i], 10))}
	}
	return st, nil
}

func (r *eventReader) Close() error { return nil }

// eventTime is the WATERMARK FOR of an eventSource row: its third field.
func eventTime(row types.Row) (int64, bool, error) { return row.Fields[2].Int64(), true, nil }

// lateOp counts the rows that arrive behind the task's watermark
// (stream.Metrics.LateRows), passes every row on, and notes when it first
// saw a watermark.
type lateOp struct {
	stream.Base
	ctx   *stream.Context
	first *atomic.Int64 // unix ns of the first Watermark call
}

func (o *lateOp) Open(ctx *stream.Context) error {
	o.ctx = ctx
	return nil
}

func (o *lateOp) Process(_ int, rows []types.Row, out *stream.Output) error {
	for _, r := range rows {
		if r.Fields[2].Int64() < o.ctx.Watermark() {
			o.ctx.Metrics.LateRows.Add(1)
		}
		out.Emit(r)
	}
	return nil
}

func (o *lateOp) Watermark(int64, *stream.Output) error {
	o.first.CompareAndSwap(0, time.Now().UnixNano())
	return nil
}

// eventJob runs src → lateOp (or op) → a counting sink, one task each.
func eventJob(t testing.TB, src *eventSource, idle time.Duration, op stream.Factory) *runtime.Job {
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 50 * time.Millisecond
	cfg.Restart.Strategy = jobconfig.RestartNone
	g := runtime.Graph{Vertices: []runtime.Vertex{
		{ID: "main/src", Source: &runtime.SourceVertex{Source: src, Watermark: &runtime.WatermarkSpec{Generate: eventTime, IdleTimeout: idle}}},
		{ID: "main/op", Operator: &runtime.OperatorVertex{New: op}},
		{ID: "main/out", Sink: &runtime.SinkVertex{Sink: &countSink{}}}},
		Edges: []runtime.Edge{{From: 0, To: 1}, {From: 1, To: 2}}}
	j, err := runtime.NewJob(runtime.JobSpec{Name: "events", Config: cfg, Graph: g, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func lateRecords(j *runtime.Job) int64 {
	var n int64
	for _, ts := range j.Status().Tasks {
		n += ts.LateRecords
	}
	return n
}

// TestWatermarkLaggingSplit reads two splits over the same event times,
// one of them slowly: the task's watermark is the least over its splits,
// so the slow split's rows are never behind it (R3). Counted as one split
// (a reader that does not say which row came from which split), the fast
// split carries the watermark ahead and the slow one's rows arrive late:
// the test would see a per-task watermark.
func TestWatermarkLaggingSplit(t *testing.T) {
	for _, splitless := range []bool{false, true} {
		t.Run(fmt.Sprintf("splitless=%v", splitless), func(t *testing.T) {
			src := &eventSource{per: []int64{400, 400}, times: func(_ int, seq int64) int64 { return 10 * seq },
				pace: []time.Duration{0, 2 * time.Millisecond}, splitless: splitless}
			var first atomic.Int64
			j := eventJob(t, src, 0, func(stream.TaskInfo) (stream.Operator, error) { return &lateOp{first: &first}, nil })
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			late := lateRecords(j)
			if splitless && late == 0 {
				t.Fatal("with one watermark for both splits, no row of the slow split was late: the test shows nothing")
			}
			if !splitless && late != 0 {
				t.Fatalf("%d rows of the slow split arrived behind the watermark", late)
			}
		})
	}
}

// TestWatermarkIdleSplit reads a split with rows and one that never has
// any: without an idle timeout the empty split holds the watermark back
// for ever; with one, the watermark advances once the timeout passed,
// not before.
func TestWatermarkIdleSplit(t *testing.T) {
	const idle = 300 * time.Millisecond
	for _, timeout := range []time.Duration{idle, 0} {
		t.Run(fmt.Sprint(timeout), func(t *testing.T) {
			src := &eventSource{per: []int64{1 << 40, -1}, times: func(_ int, seq int64) int64 { return seq },
				pace: []time.Duration{time.Millisecond}}
			var first atomic.Int64
			j := eventJob(t, src, timeout, func(stream.TaskInfo) (stream.Operator, error) { return &lateOp{first: &first}, nil })
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			// The sources start their idle clocks after Run is called
			// (possibly before the operator opens): measure from here.
			start := time.Now().UnixNano()
			go func() { done <- j.Run(ctx) }()
			wait := 3 * idle
			if timeout > 0 {
				deadline := time.Now().Add(time.Minute)
				for first.Load() == 0 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
			} else {
				time.Sleep(wait)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			at := first.Load()
			got := time.Duration(at - start)
			switch {
			case timeout > 0 && at == 0:
				t.Fatal("no watermark though the empty split turned idle")
			case timeout > 0 && got < timeout:
				t.Fatalf("the first watermark came %s after the job started, before the idle timeout %s", got, timeout)
			case timeout == 0 && at != 0:
				t.Fatalf("a watermark came %s after the start though a split without rows holds it back and has no idle timeout", got)
			}
		})
	}
}

// windowOp is the smallest event-time window: it counts the rows of each
// tumbling window of size ms (by the third field), keeping the counts in
// keyed state, and emits [start, count] when the watermark passes the
// window's end, deleting it (so that a window fires once, also across
// restores).
type windowOp struct {
	stream.Base
	size int64
	ctx  *stream.Context
	tbl  state.ValueTable
	key  []byte
	val  []byte
	// fired, when set, counts the windows fired at MaxWatermark (the end
	// of the input).
	fired *atomic.Int64
	// maxWM notes the largest watermark seen, when set.
	maxWM *atomic.Int64
}

func (o *windowOp) Open(ctx *stream.Context) error {
	o.ctx, o.tbl = ctx, ctx.State.Value("windows")
	return nil
}

func (o *windowOp) group(start int64) (int, []byte) {
	o.key = binary.BigEndian.AppendUint64(o.key[:0], uint64(start))
	return state.KeyGroupOf(o.key, o.ctx.Task.MaxParallelism), o.key
}

func (o *windowOp) Process(_ int, rows []types.Row, _ *stream.Output) error {
	for _, r := range rows {
		ts := r.Fields[2].Int64()
		if ts < o.ctx.Watermark() {
			o.ctx.Metrics.LateRows.Add(1)
			continue
		}
		kg, key := o.group(ts - ts%o.size)
		v, ok, err := o.tbl.Get(kg, key)
		if err != nil {
			return err
		}
		var n uint64
		if ok {
			n, _ = binary.Uvarint(v)
		}
		o.val = binary.AppendUvarint(o.val[:0], n+1)
		if err := o.tbl.Put(kg, key, o.val); err != nil {
			return err
		}
	}
	return nil
}

func (o *windowOp) Watermark(wm int64, out *stream.Output) error {
	if o.maxWM != nil {
		o.maxWM.Store(max(o.maxWM.Load(), wm))
	}
	type win struct{ start, n int64 }
	var due []win
	kgs := o.ctx.Task.KeyGroups
	for kg := kgs.Start; kg < kgs.End; kg++ {
		err := o.tbl.Range(kg, func(key, value []byte) bool {
			start := int64(binary.BigEndian.Uint64(key))
			if start+o.size <= wm {
				n, _ := binary.Uvarint(value)
				due = append(due, win{start, int64(n)})
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	slices.SortFunc(due, func(a, b win) int { return int(a.start - b.start) })
	for _, w := range due {
		out.Emit(types.Row{Fields: []types.Value{types.Int64(w.start), types.Int64(w.n)}})
		kg, key := o.group(w.start)
		if err := o.tbl.Delete(kg, key); err != nil {
			return err
		}
		if wm == stream.MaxWatermark && o.fired != nil {
			o.fired.Add(1)
		}
	}
	return nil
}

// windowRig is an eventSource of 4 splits (one task) → windowOp (stateful,
// one task) → the 2PC file sink; 100-ms windows over event times 10·seq
// of every split, so that each window holds 40 rows and the last one
// fires only at the end of the input.
func windowRig(dir string, per int64) (runtime.JobSpec, *testkit.FileSink) {
	src := &eventSource{per: []int64{per, per, per, per}, times: func(_ int, seq int64) int64 { return 10 * seq },
		pace: []time.Duration{200 * time.Microsecond, 200 * time.Microsecond, 200 * time.Microsecond, 200 * time.Microsecond}}
	fs := &testkit.FileSink{Dir: filepath.Join(dir, "out")}
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 20 * time.Millisecond
	cfg.Checkpoint.Dir = filepath.Join(dir, "checkpoints")
	cfg.Restart.Strategy = jobconfig.RestartFixedDelay
	cfg.Restart.FixedDelayAttempts = 10
	cfg.Restart.FixedDelay = time.Millisecond
	g := runtime.Graph{Vertices: []runtime.Vertex{
		{ID: "main/src", Source: &runtime.SourceVertex{Source: src, Watermark: &runtime.WatermarkSpec{Generate: eventTime}}},
		{ID: "main/window", Operator: &runtime.OperatorVertex{New: func(stream.TaskInfo) (stream.Operator, error) {
			return &windowOp{size: 100}, nil
		}, Stateful: true}},
		{ID: "main/out", Sink: &runtime.SinkVertex{Sink: fs}}},
		Edges: []runtime.Edge{{From: 0, To: 1, Exchange: runtime.Exchange{Kind: runtime.Single}}, {From: 1, To: 2}}}
	return runtime.JobSpec{Name: "windows", Config: cfg, Graph: g, Logger: quietLogger()}, fs
}

// checkWindows checks the committed windows of a windowRig: each window
// at most once and complete (40 rows); full: every window of the input
// (per rows a split: per/10 windows), the last one included.
func checkWindows(t testing.TB, fs *testkit.FileSink, per int64, full bool) int {
	t.Helper()
	rows, err := testkit.ReadCommitted(fs.Dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, r := range rows {
		if len(r) != 2 || r[1] != 40 || r[0]%100 != 0 || seen[r[0]] {
			t.Fatalf("window %v (in %d rows): not each window once with its 40 rows", r, len(rows))
		}
		seen[r[0]] = true
	}
	if full {
		for start := int64(0); start < 10*per; start += 100 {
			if !seen[start] {
				t.Fatalf("window %d missing of %d committed", start, len(rows))
			}
		}
		if len(seen) != int(per/10) {
			t.Fatalf("%d windows committed, want %d", len(seen), per/10)
		}
	}
	return len(seen)
}

// TestWatermarkEndOfInput runs the bounded window job: the last window,
// which only the end of the input closes (MaxWatermark), appears exactly
// once, also when the job fails at each point of its final checkpoint and
// restarts within the process (R4). With the default retention that
// checkpoint writes no operator state (checkpoint.Metadata.InputEnded);
// the points of the state's write are those of a job that retains its
// checkpoints, whose final checkpoint keeps it.
func TestWatermarkEndOfInput(t *testing.T) {
	const per = 400
	points := []runtime.FaultPoint{"", runtime.BeforePreCommit, runtime.AfterPreCommit, runtime.DuringStateWrite,
		runtime.AfterStateWrite, runtime.BeforeCheckpointWrite, runtime.AfterCheckpointWritten}
	for _, p := range points {
		t.Run(string(p), func(t *testing.T) {
			spec, fs := windowRig(t.TempDir(), per)
			if p == runtime.DuringStateWrite || p == runtime.AfterStateWrite {
				spec.Config.Checkpoint.Retention = jobconfig.RetainOnCancellation
			}
			f := &testkit.Faults{}
			if p != "" {
				f.OnFinal(p, testkit.Fail, 0)
				spec.Faults = f
			}
			j, err := runtime.NewJob(spec)
			if err != nil {
				t.Fatal(err)
			}
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			if p != "" && !f.Fired(p) {
				t.Fatalf("%s of the final checkpoint was not reached", p)
			}
			checkWindows(t, fs, per, true)
			for _, ts := range j.Status().Tasks {
				if ts.Kind != runtime.SinkTask && ts.Watermark != stream.MaxWatermark {
					t.Errorf("%s task %s: watermark %d after the end of the input, want MaxWatermark", ts.Kind, ts.Name, ts.Watermark)
				}
			}
		})
	}
}

// windowChild runs the window job in a child process.
func windowChild() int {
	dir := os.Getenv(childDirEnv)
	per, err := strconv.ParseInt(os.Getenv(childPerEnv), 10, 64)
	f, ferr := testkit.FaultsFromEnv()
	if err != nil || ferr != nil {
		fmt.Fprintln(os.Stderr, "child:", err, ferr)
		return 2
	}
	spec, _ := windowRig(dir, per)
	spec.Config.Restart.Strategy = jobconfig.RestartNone
	if f != nil {
		spec.Faults = f
	}
	j, err := runtime.NewJob(spec)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		err = j.Run(ctx)
		cancel()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	return 0
}

// TestWatermarkEndOfInputSIGKILL kills a child process running the bounded
// window job at each point of its final checkpoint, runs it again, and
// checks that the last window appears exactly once and that the job then
// left its finished record (written only after the final commits): a
// third run does nothing (R4). Its final checkpoint writes no operator
// state (the default retention deletes the checkpoints at the finish:
// checkpoint.Metadata.InputEnded), so it has no state write points;
// TestWatermarkEndOfInput has them, with retained checkpoints.
func TestWatermarkEndOfInputSIGKILL(t *testing.T) {
	const per = 400
	for _, p := range []runtime.FaultPoint{runtime.BeforePreCommit, runtime.AfterPreCommit,
		runtime.BeforeCheckpointWrite, runtime.AfterCheckpointWritten} {
		t.Run(string(p), func(t *testing.T) {
			dir := t.TempDir()
			env := func(faults string) crashtest.Spec {
				return crashtest.Spec{Role: "window", Env: []string{childDirEnv + "=" + dir, childPerEnv + "=" + strconv.Itoa(per),
					testkit.FaultsEnv + "=" + faults}}
			}
			rule := fmt.Sprintf("%s@final:kill", p)
			if !crashtest.Run(t, env(rule), 0) {
				t.Fatalf("child was not killed at %s", rule)
			}
			if crashtest.Run(t, env(""), 0) {
				t.Fatal("child killed without a fault")
			}
			spec, fs := windowRig(dir, per)
			checkWindows(t, fs, per, true)
			d, err := checkpoint.OpenDir(spec.Config.Checkpoint.Dir, spec.Name)
			if err != nil {
				t.Fatal(err)
			}
			if fin, err := d.Finished(); err != nil || fin == nil {
				t.Fatalf("no finished record after the job ended: %v", err)
			}
		})
	}
}

// TestWatermarkStopResume stops the window job mid-way and resumes it: a
// stop sends no MaxWatermark, so nothing fires early (every window
// committed by the stopped run is complete and no window fired at the end
// of an input), and the resumed run commits the rest, each window once.
func TestWatermarkStopResume(t *testing.T) {
	const per = 4000
	dir := t.TempDir()
	spec, fs := windowRig(dir, per)
	var fired, maxWM atomic.Int64
	spec.Graph.Vertices[1].Operator.New = func(stream.TaskInfo) (stream.Operator, error) {
		return &windowOp{size: 100, fired: &fired, maxWM: &maxWM}, nil
	}
	j, err := runtime.NewJob(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for j.Status().Checkpoints.Completed < 4 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if fired.Load() != 0 || maxWM.Load() == stream.MaxWatermark {
		t.Fatalf("the stop fired %d windows at the end of the input (largest watermark %d)", fired.Load(), maxWM.Load())
	}
	n := checkWindows(t, fs, per, false)
	if n == 0 || n == per/10 {
		t.Fatalf("the stopped run committed %d of %d windows; want some", n, per/10)
	}
	spec2, _ := windowRig(dir, per)
	j2, err := runtime.NewJob(spec2)
	if err != nil {
		t.Fatal(err)
	}
	if err := runJob(t, j2, time.Minute); err != nil {
		t.Fatal(err)
	}
	checkWindows(t, fs, per, true)
}

// TestWatermarkIdleSource unions a source with rows and one whose only
// split never has a row: the operator's watermark is the least over its
// two channels, and the empty source's channel turns idle after the idle
// timeout (without any row to start the clock), so watermarks come
// through then, not before.
func TestWatermarkIdleSource(t *testing.T) {
	const idle = 300 * time.Millisecond
	rows := &eventSource{per: []int64{1 << 40}, times: func(_ int, seq int64) int64 { return seq }, pace: []time.Duration{time.Millisecond}}
	empty := &eventSource{per: []int64{-1}, times: func(int, int64) int64 { return 0 }}
	var first atomic.Int64
	ws := &runtime.WatermarkSpec{Generate: eventTime, IdleTimeout: idle}
	cfg := jobconfig.DefaultConfig()
	cfg.Restart.Strategy = jobconfig.RestartNone
	g := runtime.Graph{Vertices: []runtime.Vertex{
		{ID: "main/rows", Source: &runtime.SourceVertex{Source: rows, Watermark: ws}},
		{ID: "main/empty", Source: &runtime.SourceVertex{Source: empty, Watermark: ws}},
		{ID: "main/op", Operator: &runtime.OperatorVertex{New: func(stream.TaskInfo) (stream.Operator, error) { return &lateOp{first: &first}, nil }}},
		{ID: "main/out", Sink: &runtime.SinkVertex{Sink: &countSink{}}}},
		Edges: []runtime.Edge{{From: 0, To: 2}, {From: 1, To: 2}, {From: 2, To: 3}}}
	j, err := runtime.NewJob(runtime.JobSpec{Name: "union", Config: cfg, Graph: g, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// The empty source starts its idle clock after Run is called (possibly
	// before the operator opens): measure from here.
	start := time.Now().UnixNano()
	go func() { done <- j.Run(ctx) }()
	deadline := time.Now().Add(time.Minute)
	for first.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	at := first.Load()
	if got := time.Duration(at - start); at == 0 || got < idle {
		t.Fatalf("the first watermark came %s after the job started (0 if none); want one, after the idle timeout %s", got, idle)
	}
}
