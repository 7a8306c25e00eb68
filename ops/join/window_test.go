package join_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

var (
	ts3nn = types.TimestampType(3).NotNullable()
	// A side read from a window table function: (k, t) then the window
	// columns the join assigns.
	ktWin     = []types.Type{bigint, ts3, ts3nn, ts3nn, ts3}
	ktWinBoth = append(slices.Clone(ktWin), ktWin...)
)

func assigned(kind window.Kind, size, slide time.Duration) join.WindowSide {
	return join.WindowSide{Side: join.Side{Types: ktWin, Keys: []int{0}},
		Assign: &window.Spec{Kind: kind, Size: size, Slide: slide, Time: 1, TimeType: ts3}}
}

func sorted(rows []types.Row, ts []types.Type) []string {
	s := streamtest.Format(rows, ts)
	slices.Sort(s)
	return s
}

// TestWindowJoinTumble: rows of the same window and key match; the window
// is joined when the watermark reaches its end minus 1 ms, and its state
// dropped; a row of a fired window is late.
func TestWindowJoinTumble(t *testing.T) {
	spec := join.WindowSpec{Type: join.Full, KeyTypes: []types.Type{bigint},
		Left: assigned(window.Tumble, 10*time.Second, 0), Right: assigned(window.Tumble, 10*time.Second, 0)}
	tk := streamtest.Open(t, join.NewWindow(spec), streamtest.Options{})
	tk.ProcessInput(0, r(ins, 1, at(1_000)), r(ins, 2, at(2_000)), r(ins, 1, at(12_000)))
	tk.ProcessInput(1, r(ins, 1, at(9_999)), r(ins, 3, at(5_000)), r(ins, 1, at(10_000)))
	tk.Watermark(9_998)
	expect(t, tk.Take(), ktWinBoth)
	tk.Watermark(9_999)
	w0 := "1970-01-01 00:00:00.000, 1970-01-01 00:00:10.000, 1970-01-01 00:00:09.999"
	got := sorted(tk.Take(), ktWinBoth)
	want := []string{
		"+I[1, 1970-01-01 00:00:01.000, " + w0 + ", 1, 1970-01-01 00:00:09.999, " + w0 + "]",
		"+I[2, 1970-01-01 00:00:02.000, " + w0 + ", null, null, null, null, null]",
		"+I[null, null, null, null, null, 3, 1970-01-01 00:00:05.000, " + w0 + "]",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("window [0, 10 s):\n got %v\nwant %v", got, want)
	}
	tk.ProcessInput(1, r(ins, 2, at(9_000))) // its window fired: late
	if n := tk.Metrics().LateRows.Load(); n != 1 {
		t.Fatalf("%d late rows, want 1", n)
	}
	tk.EndInputs(0, 1)
	w1 := "1970-01-01 00:00:10.000, 1970-01-01 00:00:20.000, 1970-01-01 00:00:19.999"
	expect(t, tk.Take(), ktWinBoth, "+I[1, 1970-01-01 00:00:12.000, "+w1+", 1, 1970-01-01 00:00:10.000, "+w1+"]")
	if n := tk.State().Stats().Entries; n != 0 {
		t.Fatalf("%d state entries after every window fired", n)
	}
}

// TestWindowJoinHop: a HOP row belongs to size/slide windows, and pairs
// with the other side's rows in each of them.
func TestWindowJoinHop(t *testing.T) {
	spec := join.WindowSpec{Type: join.Inner, KeyTypes: []types.Type{bigint},
		Left: assigned(window.Hop, 10*time.Second, 5*time.Second), Right: assigned(window.Hop, 10*time.Second, 5*time.Second)}
	tk := streamtest.Open(t, join.NewWindow(spec), streamtest.Options{})
	tk.ProcessInput(0, r(ins, 1, at(7_000)))
	tk.ProcessInput(1, r(ins, 1, at(8_000)), r(ins, 1, at(11_000)))
	tk.EndInputs(0, 1)
	var windows []string
	for _, row := range tk.Take() {
		windows = append(windows, fmt.Sprintf("%d-%d@%d", row.Fields[2].Timestamp().Millis, row.Fields[3].Timestamp().Millis, row.Fields[6].Timestamp().Millis))
	}
	slices.Sort(windows)
	want := []string{"0-10000@8000", "5000-15000@11000", "5000-15000@8000"}
	if !slices.Equal(windows, want) {
		t.Fatalf("pairs by window %v, want %v", windows, want)
	}
}

// TestWindowJoinSemiAntiOnWindowEnd: sides that carry their window end (a
// window aggregation's output); SEMI and ANTI emit left rows.
func TestWindowJoinSemiAntiOnWindowEnd(t *testing.T) {
	side := join.WindowSide{Side: join.Side{Types: ktTypes, Keys: []int{0}}, WindowEnd: 1}
	for _, c := range []struct {
		typ  join.Type
		want []string
	}{
		{join.Semi, []string{"+I[1, 1970-01-01 00:00:10.000]"}},
		{join.Anti, []string{"+I[2, 1970-01-01 00:00:10.000]", "+I[null, 1970-01-01 00:00:10.000]"}},
	} {
		spec := join.WindowSpec{Type: c.typ, KeyTypes: []types.Type{bigint}, Left: side, Right: side}
		tk := streamtest.Open(t, join.NewWindow(spec), streamtest.Options{})
		tk.ProcessInput(0, r(ins, 1, at(10_000)), r(ins, 2, at(10_000)), r(ins, nil, at(10_000)))
		tk.ProcessInput(1, r(ins, 1, at(10_000)), r(ins, 1, at(10_000)), r(ins, 2, at(20_000)), r(ins, nil, at(10_000)))
		tk.Watermark(9_999)
		if got := sorted(tk.Take(), ktTypes); !slices.Equal(got, c.want) {
			t.Fatalf("%s: %v, want %v", c.typ, got, c.want)
		}
	}
}

// TestWindowJoinRestores: windows pending at a checkpoint fire after a
// restore into two tasks, each with its keys' rows.
func TestWindowJoinRestores(t *testing.T) {
	spec := join.WindowSpec{Type: join.Left, KeyTypes: []types.Type{bigint},
		Left: assigned(window.Tumble, 10*time.Second, 0), Right: assigned(window.Tumble, 10*time.Second, 0)}
	f := join.NewWindow(spec)
	one := streamtest.Open(t, f, streamtest.Options{})
	keys := []int{1, 2, 3, 4, 5, 6}
	for _, k := range keys {
		one.ProcessInput(0, r(ins, k, at(1_000)))
	}
	h := one.Snapshot()
	total := 0
	for i := range 2 {
		tk := streamtest.Open(t, f, streamtest.Options{Index: i, Parallelism: 2, Restore: []state.Handle{h}, Files: one.Files()})
		mine := 0
		for _, k := range keys {
			kg := state.KeyGroupOf(state.AppendKey(nil, []types.Value{types.Int64(int64(k))}, []int{0}, []types.Type{bigint}), state.DefaultMaxParallelism)
			if state.TaskOf(kg, 2, state.DefaultMaxParallelism) == i {
				mine++
				tk.ProcessInput(1, r(ins, k, at(2_000)))
			}
		}
		tk.Watermark(10_000)
		rows := tk.Take()
		for _, row := range rows {
			if row.Fields[5].IsNull() {
				t.Fatalf("task %d: %v has no match", i, streamtest.Format([]types.Row{row}, ktWinBoth))
			}
		}
		if len(rows) != mine {
			t.Fatalf("task %d emitted %d pairs for its %d keys", i, len(rows), mine)
		}
		total += mine
	}
	if total != len(keys) {
		t.Fatalf("the tasks own %d of %d keys", total, len(keys))
	}
}
