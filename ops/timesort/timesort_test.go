package timesort_test

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/ops/internal/opstest"
	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/ops/timesort"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/heap"
	"github.com/streamsql/streamsql/state/lsm"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

var (
	bigint = types.BigInt()
	ts3    = types.TimestampType(3)
	vst    = []types.Type{bigint, types.String(), ts3} // value, name, time
)

func at(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }

// sortByTimeValueDesc orders by the time, then the value descending
// (NULL last), rows equal in both in arrival order.
var sortByTimeValueDesc = timesort.Spec{Types: vst, Time: 2, Order: []rank.SortKey{{Col: 0, Desc: true, NullsLast: true}}}

// TestTemporalSortOracle sorts random rows that arrive out of order,
// released by watermarks that rise as they go, with a checkpoint and a
// restore halfway, on both backends: the output must be every row in
// (time, value DESC NULLS LAST, arrival) order, and each watermark must
// have released exactly the rows up to it.
func TestTemporalSortOracle(t *testing.T) {
	for _, b := range []struct {
		name string
		kind state.Kind
	}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}} {
		t.Run(b.name, func(t *testing.T) {
			for seed := range uint64(10) {
				sortOracle(t, b.kind, seed)
			}
		})
	}
}

type sRow struct {
	v      int64
	null   bool
	ts     int64
	arrive int
}

func sortOracle(t *testing.T, kind state.Kind, seed uint64) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 7))
	p := opstest.NewPipelineOn(t, kind, 1, opstest.Stage{F: timesort.New(sortByTimeValueDesc), Types: vst})
	var all []sRow
	var got []types.Row
	wm := int64(0)
	for i := range 120 {
		if i == 60 {
			p.Restore(1)
		}
		// A time after the watermark: never late.
		r := sRow{v: rnd.Int64N(4), null: rnd.IntN(8) == 0, ts: wm + 1 + rnd.Int64N(5), arrive: i}
		all = append(all, r)
		v := types.Int64(r.v)
		if r.null {
			v = types.Value{}
		}
		if out := p.Push(0, []types.Row{{Kind: types.Insert, Fields: []types.Value{v, types.Str("r"), at(r.ts)}}}); len(out) > 0 {
			t.Fatalf("seed %d: a row went out before a watermark: %v", seed, out)
		}
		if rnd.IntN(5) == 0 {
			wm += rnd.Int64N(4)
			out := p.Watermark(wm)
			for _, o := range out {
				if o.Fields[2].Timestamp().Millis > wm {
					t.Fatalf("seed %d: watermark %d released a row of time %d", seed, wm, o.Fields[2].Timestamp().Millis)
				}
			}
			got = append(got, out...)
		}
	}
	got = append(got, p.Watermark(stream.MaxWatermark)...)
	want := slices.Clone(all)
	slices.SortStableFunc(want, func(a, b sRow) int {
		if c := cmp.Compare(a.ts, b.ts); c != 0 {
			return c
		}
		switch {
		case a.null && b.null:
			return 0
		case a.null:
			return 1
		case b.null:
			return -1
		}
		return cmp.Compare(b.v, a.v)
	})
	if len(got) != len(want) {
		t.Fatalf("seed %d: %d rows out, want %d", seed, len(got), len(want))
	}
	for i, w := range want {
		g := got[i].Fields
		if g[2].Timestamp().Millis != w.ts || g[0].IsNull() != w.null || !w.null && g[0].Int64() != w.v {
			t.Fatalf("seed %d: row %d is (%v, %v), want (%d, null %v, %d)", seed, i, g[0], g[2], w.v, w.null, w.ts)
		}
	}
}

// TestTemporalSortLateRows: a row not after the last time sent (by this
// task or the one it was restored from) is late, dropped and counted; one
// behind the watermark but after that time waits for the next watermark,
// as in Flink; a NULL time is dropped and counted.
func TestTemporalSortLateRows(t *testing.T) {
	r := streamtest.Row
	tk := streamtest.Open(t, timesort.New(sortByTimeValueDesc), streamtest.Options{})
	tk.Process(r(types.Insert, 1, "a", at(5)), r(types.Insert, 2, "b", at(3)))
	tk.Watermark(10)
	if got := opstest.FlinkString(tk.Take(), vst); !slices.Equal(got, []string{"+I[2, b, 1970-01-01 00:00:00.003]", "+I[1, a, 1970-01-01 00:00:00.005]"}) {
		t.Fatalf("at watermark 10: %v", got)
	}
	// A restored task knows what was sent.
	tk = streamtest.Open(t, timesort.New(sortByTimeValueDesc), streamtest.Options{Restore: []state.Handle{tk.Snapshot()}, Files: tk.Files(), Watermark: 10})
	// 5 was sent: 4 and 5 are late; 8 is behind the watermark, not late.
	tk.Process(r(types.Insert, 3, "c", at(4)), r(types.Insert, 4, "d", at(8)), r(types.Insert, 5, "e", at(5)), r(types.Insert, 6, "f", types.Value{}))
	if got := tk.Take(); len(got) != 0 {
		t.Fatalf("rows went out without a watermark: %v", got)
	}
	tk.Watermark(11)
	if got := opstest.FlinkString(tk.Take(), vst); !slices.Equal(got, []string{"+I[4, d, 1970-01-01 00:00:00.008]"}) {
		t.Fatalf("at watermark 11: %v", got)
	}
	if n := tk.Metrics().LateRows.Load(); n != 3 {
		t.Errorf("%d late rows, want 3", n)
	}
}

// TestTemporalSortProcTime: over processing time a millisecond's rows go
// out sorted once the clock passed it, and the rows that wait go out when
// the input ends.
func TestTemporalSortProcTime(t *testing.T) {
	r := streamtest.Row
	spec := timesort.Spec{Types: vst[:2], Time: -1, Order: []rank.SortKey{{Col: 1}}}
	tk := streamtest.Open(t, timesort.New(spec), streamtest.Options{Now: 1000})
	tk.Process(r(types.Insert, 1, "b"), r(types.Insert, 2, "a"))
	if got := tk.Take(); len(got) != 0 {
		t.Fatalf("rows of the current millisecond went out: %v", got)
	}
	tk.Advance(1001)
	tk.Process(r(types.Insert, 3, "c"))
	if got := opstest.FlinkString(tk.Take(), vst[:2]); !slices.Equal(got, []string{"+I[2, a]", "+I[1, b]"}) {
		t.Fatalf("after the clock passed 1000: %v", got)
	}
	tk.EndInput()
	if got := opstest.FlinkString(tk.Take(), vst[:2]); !slices.Equal(got, []string{"+I[3, c]"}) {
		t.Fatalf("at the end of the input: %v", got)
	}
}

// TestTemporalSortRestoredRowsGoOut: rows waiting in a checkpoint go out
// at the restored task's first watermark past them, with no new row (and,
// over processing time, when the clock has passed them).
func TestTemporalSortRestoredRowsGoOut(t *testing.T) {
	r := streamtest.Row
	tk := streamtest.Open(t, timesort.New(sortByTimeValueDesc), streamtest.Options{})
	tk.Process(r(types.Insert, 1, "a", at(7)), r(types.Insert, 2, "b", at(3)))
	tk = streamtest.Open(t, timesort.New(sortByTimeValueDesc), streamtest.Options{Restore: []state.Handle{tk.Snapshot()}, Files: tk.Files()})
	tk.Watermark(5)
	if got := opstest.FlinkString(tk.Take(), vst); !slices.Equal(got, []string{"+I[2, b, 1970-01-01 00:00:00.003]"}) {
		t.Fatalf("restored, at watermark 5: %v", got)
	}

	spec := timesort.Spec{Types: vst[:2], Time: -1}
	tk = streamtest.Open(t, timesort.New(spec), streamtest.Options{Now: 1000})
	tk.Process(r(types.Insert, 1, "b"))
	tk = streamtest.Open(t, timesort.New(spec), streamtest.Options{Restore: []state.Handle{tk.Snapshot()}, Files: tk.Files(), Now: 1000})
	tk.Advance(1001)
	if got := opstest.FlinkString(tk.Take(), vst[:2]); !slices.Equal(got, []string{"+I[1, b]"}) {
		t.Fatalf("restored, after the clock passed 1000: %v", got)
	}
}
