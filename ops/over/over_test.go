package over_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/internal/opstest"
	"github.com/streamsql/streamsql/ops/over"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

var (
	bigint = types.BigInt()
	ts3    = types.TimestampType(3)
	pvt    = []types.Type{bigint, bigint, ts3} // partition, value, time
)

func at(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }

func sumCountMinMax(t *testing.T) []agg.Call {
	return []agg.Call{call(t, agg.Sum, 1, bigint), call(t, agg.Count, -1, bigint), call(t, agg.Min, 1, bigint), call(t, agg.Max, 1, bigint)}
}

// TestOverOracle checks every frame over event time against a batch
// oracle on random rows that arrive out of order, released by watermarks
// that rise as they go, with a checkpoint and a restore at another
// parallelism halfway: each output row's aggregates are those of its
// frame among its partition's rows ordered by time (and, for ROWS, by
// arrival within a time).
func TestOverOracle(t *testing.T) {
	frames := []over.Frame{
		{Rows: true, Unbounded: true}, {Unbounded: true},
		{Rows: true, PrecedingRows: 0}, {Rows: true, PrecedingRows: 2},
		{PrecedingTime: 0}, {PrecedingTime: 3 * time.Millisecond},
	}
	for _, fr := range frames {
		t.Run(fr.String(), func(t *testing.T) {
			for seed := range uint64(15) {
				overOracle(t, seed, fr)
			}
		})
	}
}

type oRow struct{ p, v, ts, seq int64 }

func overOracle(t *testing.T, seed uint64, fr over.Frame) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 3))
	spec := over.Spec{Types: pvt, Partition: []int{0}, Time: 2, Frame: fr, Calls: sumCountMinMax(t)}
	p := opstest.NewPipeline(t, 2, opstest.Stage{F: over.New(spec), Keys: spec.Partition, Types: pvt})
	var all []oRow
	var got []types.Row
	wm := int64(0)
	for i := range 80 {
		if i == 40 {
			p.Restore(3)
		}
		// A time after the watermark: never late.
		r := oRow{p: rnd.Int64N(3), v: rnd.Int64N(10) - 3, ts: wm + 1 + rnd.Int64N(6), seq: int64(i)}
		all = append(all, r)
		got = append(got, p.Push(0, []types.Row{streamtest.Row(types.Insert, r.p, r.v, at(r.ts))})...)
		if rnd.IntN(4) == 0 {
			wm += rnd.Int64N(4)
			got = append(got, p.Watermark(wm)...)
		}
	}
	got = append(got, p.Watermark(stream.MaxWatermark)...)
	outTypes := append(slices.Clone(pvt), spec.Calls[0].Result, spec.Calls[1].Result, spec.Calls[2].Result, spec.Calls[3].Result)
	g := opstest.FlinkString(got, outTypes)
	var want []string
	for _, r := range all {
		var frame []oRow
		for _, o := range all {
			if o.p != r.p {
				continue
			}
			before := o.ts < r.ts || (o.ts == r.ts && o.seq <= r.seq)
			switch {
			case fr.Rows && before:
				frame = append(frame, o)
			case !fr.Rows && o.ts <= r.ts && (fr.Unbounded || o.ts >= r.ts-fr.PrecedingTime.Milliseconds()):
				frame = append(frame, o)
			}
		}
		if fr.Rows && !fr.Unbounded {
			slices.SortFunc(frame, func(a, b oRow) int {
				if a.ts != b.ts {
					return int(a.ts - b.ts)
				}
				return int(a.seq - b.seq)
			})
			frame = frame[max(0, len(frame)-int(fr.PrecedingRows)-1):]
		}
		sum, mn, mx := int64(0), frame[0].v, frame[0].v
		for _, o := range frame {
			sum += o.v
			mn, mx = min(mn, o.v), max(mx, o.v)
		}
		want = append(want, fmt.Sprintf("+I[%d, %d, %s, %d, %d, %d, %d]", r.p, r.v,
			opstest.FlinkValue(at(r.ts), ts3), sum, len(frame), mn, mx))
	}
	slices.Sort(g)
	slices.Sort(want)
	if !slices.Equal(g, want) {
		t.Fatalf("seed %d: output differs from the oracle\n--- got\n%s\n--- want\n%s", seed, strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
}

// TestOverLateRows: an unbounded frame drops a row not after the
// watermark; a bounded one a row not after the last time its partition
// aggregated (Flink's rules), and takes a row behind the watermark that
// is after it.
func TestOverLateRows(t *testing.T) {
	r := streamtest.Row
	for _, c := range []struct {
		frame over.Frame
		late  int64
		out   []string
	}{
		{over.Frame{Rows: true, Unbounded: true}, 2, []string{
			"+I[1, 10, 1970-01-01 00:00:00.005, 10]", "+I[1, 30, 1970-01-01 00:00:00.020, 40]"}},
		{over.Frame{Rows: true, PrecedingRows: 5}, 1, []string{
			"+I[1, 10, 1970-01-01 00:00:00.005, 10]", "+I[1, 20, 1970-01-01 00:00:00.008, 30]", "+I[1, 30, 1970-01-01 00:00:00.020, 60]"}},
	} {
		spec := over.Spec{Types: pvt, Partition: []int{0}, Time: 2, Frame: c.frame, Calls: []agg.Call{call(t, agg.Sum, 1, bigint)}}
		tk := streamtest.Open(t, over.New(spec), streamtest.Options{})
		tk.Process(r(types.Insert, 1, 10, at(5)))
		tk.Watermark(10)
		// 8 is behind the watermark but after the partition's last time
		// (5); 4 is before both.
		tk.Process(r(types.Insert, 1, 20, at(8)), r(types.Insert, 1, 40, at(4)), r(types.Insert, 1, 30, at(20)))
		tk.EndInput()
		got := opstest.FlinkString(tk.Take(), append(slices.Clone(pvt), bigint))
		if !slices.Equal(got, c.out) {
			t.Errorf("%s: %v, want %v", c.frame, got, c.out)
		}
		if n := tk.Metrics().LateRows.Load(); n != c.late {
			t.Errorf("%s: %d late rows, want %d", c.frame, n, c.late)
		}
	}
}

// TestOverProcTimeRange: a RANGE frame over processing time aggregates a
// millisecond's rows together once the clock passed it, and takes rows
// older than the span out.
func TestOverProcTimeRange(t *testing.T) {
	r := streamtest.Row
	kv := []types.Type{types.String(), bigint}
	spec := over.Spec{Types: kv, Partition: []int{0}, Time: -1, Frame: over.Frame{PrecedingTime: 100 * time.Millisecond},
		Calls: []agg.Call{call(t, agg.Sum, 1, bigint)}}
	tk := streamtest.Open(t, over.New(spec), streamtest.Options{Now: 1000})
	tk.Process(r(types.Insert, "a", 1), r(types.Insert, "a", 2))
	if got := tk.Take(); len(got) != 0 {
		t.Fatalf("emitted within the millisecond: %v", got)
	}
	tk.Advance(1050)
	tk.Process(r(types.Insert, "a", 4))
	tk.Advance(1101)
	tk.Process(r(types.Insert, "a", 8))
	tk.Advance(1102)
	got := opstest.FlinkString(tk.Take(), []types.Type{types.String(), bigint, bigint})
	want := []string{"+I[a, 1, 3]", "+I[a, 2, 3]", "+I[a, 4, 7]", "+I[a, 8, 12]"}
	if !slices.Equal(got, want) {
		t.Fatalf("%v, want %v (at 1101 the rows of 1000 left the frame)", got, want)
	}
}

// TestOverRangeCleanup: a bounded RANGE frame over event time drops a
// partition's state once its rows left the frame and no row followed.
func TestOverRangeCleanup(t *testing.T) {
	r := streamtest.Row
	spec := over.Spec{Types: pvt, Partition: []int{0}, Time: 2, Frame: over.Frame{PrecedingTime: 10 * time.Millisecond},
		Calls: []agg.Call{call(t, agg.Sum, 1, bigint)}}
	tk := streamtest.Open(t, over.New(spec), streamtest.Options{})
	tk.Process(r(types.Insert, 1, 10, at(5)), r(types.Insert, 2, 7, at(6)))
	tk.Watermark(6)
	if n := tk.State().Stats().Entries; n == 0 {
		t.Fatal("no state after two rows")
	}
	tk.Watermark(100)
	if n := tk.State().Stats().Entries; n != 0 {
		t.Fatalf("%d state entries left after the frame passed, want 0", n)
	}
	tk.Process(r(types.Insert, 1, 1, at(200)))
	tk.EndInput()
	got := opstest.FlinkString(tk.Take(), append(slices.Clone(pvt), bigint))
	want := []string{"+I[1, 10, 1970-01-01 00:00:00.005, 10]", "+I[2, 7, 1970-01-01 00:00:00.006, 7]", "+I[1, 1, 1970-01-01 00:00:00.200, 1]"}
	if !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}
