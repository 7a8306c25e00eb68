package window_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// The input rows are (key STRING, v BIGINT, ts TIMESTAMP(3)); the output
// (key, COUNT(*), SUM(v), window_start, window_end, window_time).
var outTypes = []types.Type{types.String(), types.BigInt(), types.BigInt(),
	types.TimestampType(3), types.TimestampType(3), types.TimestampType(3)}

func spec(kind window.Kind, size, slide time.Duration) window.Spec {
	return window.Spec{Kind: kind, Size: size, Slide: slide, Gap: size, Time: 2, TimeType: types.TimestampType(3),
		Keys: []int{0}, KeyTypes: []types.Type{types.String()},
		Calls: []agg.Call{
			{Func: agg.Count, Arg: -1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt().NotNullable()},
			{Func: agg.Sum, Arg: 1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt()},
		}}
}

func row(k string, v, ms int64) types.Row {
	return types.Row{Fields: []types.Value{types.Str(k), types.Int64(v), types.TimestampValue(types.Timestamp{Millis: ms})}}
}

func expect(t *testing.T, got []types.Row, want ...string) {
	t.Helper()
	g := streamtest.Format(got, outTypes)
	slices.Sort(g)
	slices.Sort(want)
	if !slices.Equal(g, want) {
		t.Fatalf("output:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

const (
	s   = int64(time.Second / time.Millisecond)
	t0  = "1970-01-01 00:00:"
	end = ".000"
)

func TestTumble(t *testing.T) {
	tk := streamtest.Open(t, window.New(spec(window.Tumble, 10*time.Second, 0)), streamtest.Options{})
	tk.Process(row("a", 1, 1*s), row("b", 2, 5*s), row("a", 3, 9*s+999), row("a", 4, 10*s))
	tk.Watermark(9*s + 998)
	expect(t, tk.Take()) // the window [0, 10 s) fires at watermark 9.999 s
	tk.Watermark(9*s + 999)
	expect(t, tk.Take(),
		"+I[a, 2, 4, "+t0+"00"+end+", "+t0+"10"+end+", "+t0+"09.999]",
		"+I[b, 1, 2, "+t0+"00"+end+", "+t0+"10"+end+", "+t0+"09.999]")
	tk.Process(row("a", 5, 3*s)) // its window fired: late
	if n := tk.Metrics().LateRows.Load(); n != 1 {
		t.Fatalf("late rows %d, want 1", n)
	}
	tk.EndInput()
	expect(t, tk.Take(), "+I[a, 1, 4, "+t0+"10"+end+", "+t0+"20"+end+", "+t0+"19.999]")
}

func TestHop(t *testing.T) {
	tk := streamtest.Open(t, window.New(spec(window.Hop, 10*time.Second, 5*time.Second)), streamtest.Options{})
	tk.Process(row("a", 1, 7*s))
	tk.Watermark(stream.MaxWatermark)
	expect(t, tk.Take(),
		"+I[a, 1, 1, "+t0+"00"+end+", "+t0+"10"+end+", "+t0+"09.999]",
		"+I[a, 1, 1, "+t0+"05"+end+", "+t0+"15"+end+", "+t0+"14.999]")
}

func TestCumulate(t *testing.T) {
	tk := streamtest.Open(t, window.New(spec(window.Cumulate, 10*time.Second, 5*time.Second)), streamtest.Options{})
	tk.Process(row("a", 1, 2*s), row("a", 10, 6*s))
	tk.Watermark(stream.MaxWatermark)
	expect(t, tk.Take(),
		"+I[a, 1, 1, "+t0+"00"+end+", "+t0+"05"+end+", "+t0+"04.999]",
		"+I[a, 2, 11, "+t0+"00"+end+", "+t0+"10"+end+", "+t0+"09.999]")
}

// TestSession: rows within the gap of a key's session join it, a row that
// bridges two sessions merges them, and a session fires at its end.
func TestSession(t *testing.T) {
	tk := streamtest.Open(t, window.New(spec(window.Session, 10*time.Second, 0)), streamtest.Options{})
	tk.Process(row("a", 1, 0), row("a", 2, 30*s), row("a", 4, 5*s), row("b", 8, 1*s))
	tk.Watermark(14*s + 999)
	expect(t, tk.Take(),
		"+I[a, 2, 5, "+t0+"00"+end+", "+t0+"15"+end+", "+t0+"14.999]",
		"+I[b, 1, 8, "+t0+"01"+end+", "+t0+"11"+end+", "+t0+"10.999]")
	tk.Process(row("a", 16, 25*s)) // joins [30 s, 40 s)
	tk.Watermark(stream.MaxWatermark)
	expect(t, tk.Take(), "+I[a, 2, 18, "+t0+"25"+end+", "+t0+"40"+end+", "+t0+"39.999]")
}

func TestSessionMerge(t *testing.T) {
	tk := streamtest.Open(t, window.New(spec(window.Session, 10*time.Second, 0)), streamtest.Options{})
	tk.Process(row("a", 1, 0), row("a", 2, 15*s), row("a", 4, 8*s)) // the last bridges [0, 10) and [15, 25)
	tk.Watermark(stream.MaxWatermark)
	expect(t, tk.Take(), "+I[a, 3, 7, "+t0+"00"+end+", "+t0+"25"+end+", "+t0+"24.999]")
}

// TestProcessingTime: rows go to the windows of their arrival, which fire
// by the clock.
func TestProcessingTime(t *testing.T) {
	sp := spec(window.Tumble, 10*time.Second, 0)
	sp.Time, sp.TimeType = -1, types.TimestampLTZ(3)
	tk := streamtest.Open(t, window.New(sp), streamtest.Options{Now: 3 * s})
	tk.Process(row("a", 1, 0))
	tk.Advance(9 * s)
	expect(t, tk.Take())
	tk.Advance(10 * s)
	if got := tk.Take(); len(got) != 1 || got[0].Fields[1].Int64() != 1 {
		t.Fatalf("after the window's end: %v", got)
	}
}

// TestWindowsRestoreAtAnotherParallelism: windows in a checkpoint fire
// after a restore into two tasks, each for its keys.
func TestWindowsRestoreAtAnotherParallelism(t *testing.T) {
	f := window.New(spec(window.Tumble, 10*time.Second, 0))
	one := streamtest.Open(t, f, streamtest.Options{})
	keys := []string{"a", "b", "c", "d", "e"}
	for _, k := range keys {
		one.Process(row(k, 1, 1*s))
	}
	h := one.Snapshot()
	var got []types.Row
	for i := range 2 {
		tk := streamtest.Open(t, f, streamtest.Options{Index: i, Parallelism: 2, Restore: []state.Handle{h}, Files: one.Files()})
		tk.Watermark(stream.MaxWatermark)
		got = append(got, tk.Take()...)
	}
	var want []string
	for _, k := range keys {
		want = append(want, "+I["+k+", 1, 1, "+t0+"00"+end+", "+t0+"10"+end+", "+t0+"09.999]")
	}
	expect(t, got, want...)
}

// TestAttachedHop: over rows that carry their window's end (a HOP window
// aggregation's output, grouped again by its window), each row goes to
// that one window, whose start is the end less the size; a row whose
// window fired is late.
func TestAttachedHop(t *testing.T) {
	sp := spec(window.Hop, 10*time.Second, 2*time.Second)
	sp.Attached = true // column 2 is window_end
	tk := streamtest.Open(t, window.New(sp), streamtest.Options{})
	tk.Process(row("a", 1, 10*s), row("a", 2, 12*s), row("a", 4, 10*s), row("b", 8, 12*s))
	tk.Watermark(10*s - 1)
	expect(t, tk.Take(), "+I[a, 2, 5, "+t0+"00"+end+", "+t0+"10"+end+", "+t0+"09.999]")
	tk.Process(row("a", 16, 10*s)) // its window fired: late
	if n := tk.Metrics().LateRows.Load(); n != 1 {
		t.Fatalf("late rows %d, want 1", n)
	}
	tk.Watermark(stream.MaxWatermark)
	expect(t, tk.Take(),
		"+I[a, 1, 2, "+t0+"02"+end+", "+t0+"12"+end+", "+t0+"11.999]",
		"+I[b, 1, 8, "+t0+"02"+end+", "+t0+"12"+end+", "+t0+"11.999]")
}

// TestAttachedCumulate: a CUMULATE row's window starts at its cycle's
// start, whatever its end.
func TestAttachedCumulate(t *testing.T) {
	sp := spec(window.Cumulate, 10*time.Second, 5*time.Second)
	sp.Attached = true
	tk := streamtest.Open(t, window.New(sp), streamtest.Options{})
	tk.Process(row("a", 1, 5*s), row("a", 2, 10*s), row("a", 4, 15*s))
	tk.Watermark(stream.MaxWatermark)
	expect(t, tk.Take(),
		"+I[a, 1, 1, "+t0+"00"+end+", "+t0+"05"+end+", "+t0+"04.999]",
		"+I[a, 1, 2, "+t0+"00"+end+", "+t0+"10"+end+", "+t0+"09.999]",
		"+I[a, 1, 4, "+t0+"10"+end+", "+t0+"15"+end+", "+t0+"14.999]")
}

// TestTableFunction: a window table function read as a table sends each
// row on at once, once per window (HOP: the latest window first, as
// Flink's assigner), with window_start, window_end and window_time after
// its columns; a row without a time goes nowhere; processing time takes
// the clock.
func TestTableFunction(t *testing.T) {
	sp := spec(window.Hop, 10*time.Second, 5*time.Second)
	tk := streamtest.Open(t, window.NewTableFunction(sp), streamtest.Options{})
	tk.Process(row("a", 1, 7*s), types.Row{Fields: []types.Value{types.Str("b"), types.Int64(2), {}}})
	got := streamtest.Format(tk.Take(), []types.Type{types.String(), types.BigInt(), types.TimestampType(3),
		types.TimestampType(3), types.TimestampType(3), types.TimestampType(3)})
	want := []string{
		"+I[a, 1, " + t0 + "07" + end + ", " + t0 + "05" + end + ", " + t0 + "15" + end + ", " + t0 + "14.999]",
		"+I[a, 1, " + t0 + "07" + end + ", " + t0 + "00" + end + ", " + t0 + "10" + end + ", " + t0 + "09.999]",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("output:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	proc := spec(window.Tumble, 10*time.Second, 0)
	proc.Time, proc.TimeType = -1, types.TimestampLTZ(3)
	tk = streamtest.Open(t, window.NewTableFunction(proc), streamtest.Options{Now: 23 * s})
	tk.Process(row("c", 3, 0))
	got = streamtest.Format(tk.Take(), []types.Type{types.String(), types.BigInt(), types.TimestampType(3),
		types.TimestampType(3), types.TimestampType(3), types.TimestampLTZ(3)})
	if len(got) != 1 || !strings.Contains(got[0], t0+"20"+end+", "+t0+"30"+end) {
		t.Fatalf("processing time at 23 s: %v, want the window [20 s, 30 s)", got)
	}
	if _, err := window.NewTableFunction(spec(window.Session, time.Second, 0))(stream.TaskInfo{}); err == nil {
		t.Error("SESSION assigned row by row")
	}
}

// TestWatermarkSteps: a HOP aggregation asks for a watermark that jumps
// over several of its windows (stream.WatermarkStepper) in steps, one per
// window end, so that each step fires one window; SESSION windows ask for
// none.
func TestWatermarkSteps(t *testing.T) {
	tk := streamtest.Open(t, window.New(spec(window.Hop, 10*time.Second, 5*time.Second)), streamtest.Options{})
	tk.Process(row("a", 1, 7*s), row("b", 2, 12*s))
	var steps []int64
	for {
		step, ok := tk.Step(stream.MaxWatermark)
		if !ok {
			break
		}
		steps = append(steps, step)
		tk.Watermark(step)
		if n := len(tk.Take()); n == 0 {
			t.Fatalf("step %d fired no window", step)
		}
	}
	if want := []int64{10*s - 1, 15*s - 1, 20*s - 1}; !slices.Equal(steps, want) {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	tk.Watermark(stream.MaxWatermark)
	expect(t, tk.Take())

	ss := streamtest.Open(t, window.New(spec(window.Session, 10*time.Second, 0)), streamtest.Options{})
	ss.Process(row("a", 1, 0), row("a", 2, 30*s))
	if step, ok := ss.Step(stream.MaxWatermark); ok {
		t.Fatalf("a SESSION aggregation asks for step %d", step)
	}
}
