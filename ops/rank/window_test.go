package rank_test

import (
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/internal/opstest"
	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/types"
)

// TestWindowRankMatchesFlink runs the window Top-N and window
// deduplication cases of job/testdata/flink-queries: over a window
// aggregation's output (the window carried in its window_end column) and
// straight over a window table function's rows (the operator assigns the
// windows).
func TestWindowRankMatchesFlink(t *testing.T) {
	events := opstest.ReadTable(t, "events", opstest.Events)
	kvts := opstest.TypesOf(opstest.Events, evK, evV, evTS)
	ts3 := types.TimestampType(3)
	tumble := &window.Spec{Kind: window.Tumble, Size: 10 * time.Second, Time: 2, TimeType: ts3}
	hop := &window.Spec{Kind: window.Hop, Size: 20 * time.Second, Slide: 10 * time.Second, Time: 2, TimeType: ts3}
	wcols := []types.Type{ts3.NotNullable(), ts3.NotNullable(), ts3.NotNullable()}
	t.Run("rank_window_topn", func(t *testing.T) {
		sum := agg.Call{Func: agg.Sum, Arg: 1, Filter: -1, ArgType: bigint, Result: bigint}
		ws := window.Spec{Kind: window.Tumble, Size: 10 * time.Second, Time: 2, TimeType: ts3,
			Keys: []int{0}, KeyTypes: []types.Type{types.String()}, Calls: []agg.Call{sum}}
		aggOut := append([]types.Type{types.String(), bigint}, wcols...) // k, total, window_start, window_end, window_time
		spec := rank.WindowSpec{Spec: rank.Spec{Types: aggOut, Order: []rank.SortKey{desc(1), asc(0)}, Start: 1, End: 2, OutputRank: true}, WindowEnd: 3}
		p := opstest.NewPipeline(t, 2, opstest.Stage{F: window.New(ws), Keys: []int{0}, Types: kvts}, opstest.Stage{F: rank.NewWindow(spec), Types: aggOut})
		got := opstest.Project(p.Run(opstest.Project(events, evK, evV, evTS)), 0, 2, 3, 1, 5)
		opstest.Compare(t, "rank_window_topn", got, []types.Type{types.String(), ts3, ts3, bigint, bigint}, true)
	})
	for _, c := range []struct {
		name string
		spec rank.WindowSpec
		out  []int
	}{
		{name: "rank_window_topn_tvf", out: []int{0, 1, 2, 3, 4, 6},
			spec: rank.WindowSpec{Spec: rank.Spec{Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 2, OutputRank: true}, Assign: hop}},
		{name: "rank_window_no_rownum", out: []int{0, 1, 3},
			spec: rank.WindowSpec{Spec: rank.Spec{Order: []rank.SortKey{asc(1)}, Start: 1, End: 3}, Assign: tumble}},
		{name: "dedup_window_last", out: []int{0, 1, 2, 3, 4},
			spec: rank.WindowSpec{Spec: rank.Spec{Partition: []int{0}}, Dedup: true, KeepLast: true, DedupTime: 2, Assign: tumble}},
		{name: "dedup_window_first", out: []int{0, 1, 2, 3, 4},
			spec: rank.WindowSpec{Spec: rank.Spec{Partition: []int{0}}, Dedup: true, DedupTime: 2, Assign: tumble}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.spec.Types = kvts
			var keys []int
			if len(c.spec.Partition) > 0 {
				keys = c.spec.Partition
			}
			p := opstest.NewPipeline(t, 2, opstest.Stage{F: rank.NewWindow(c.spec), Keys: keys, Types: kvts})
			got := p.Run(opstest.Project(events, evK, evV, evTS))
			ts := append(slices.Clone(kvts), wcols...)
			if c.spec.OutputRank {
				ts = append(ts, bigint)
			}
			got = opstest.Project(got, c.out...)
			var ots []types.Type
			for _, o := range c.out {
				ots = append(ots, ts[o])
			}
			opstest.Compare(t, c.name, got, ots, true)
		})
	}
}

// TestWindowRankLate: a window fires when the watermark reaches its end
// minus one millisecond, and a row for it after that is late (dropped
// and counted).
func TestWindowRankLate(t *testing.T) {
	kvts := []types.Type{types.String(), bigint, types.TimestampType(3)}
	r := func(k string, v, ms int64) types.Row {
		return types.Row{Kind: types.Insert, Fields: []types.Value{types.Str(k), types.Int64(v), at(ms)}}
	}
	spec := rank.WindowSpec{Spec: rank.Spec{Types: kvts, Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 1, OutputRank: true},
		Assign: &window.Spec{Kind: window.Tumble, Size: 10 * time.Millisecond, Time: 2, TimeType: types.TimestampType(3)}}
	p := opstest.NewPipeline(t, 1, opstest.Stage{F: rank.NewWindow(spec), Keys: []int{0}, Types: kvts})
	p.Push(0, []types.Row{r("a", 1, 1), r("a", 5, 3), r("a", 2, 12)})
	got := p.Watermark(8)
	if len(got) != 0 {
		t.Fatalf("fired before its end: %v", got)
	}
	got = p.Watermark(9)
	p.Push(0, []types.Row{r("a", 9, 4)})
	got = append(got, p.Watermark(100)...)
	ts := append(slices.Clone(kvts), types.TimestampType(3), types.TimestampType(3), types.TimestampType(3), bigint)
	want := []string{
		"+I[a, 5, 1970-01-01 00:00:00.003, 1970-01-01 00:00:00.000, 1970-01-01 00:00:00.010, 1970-01-01 00:00:00.009, 1]",
		"+I[a, 2, 1970-01-01 00:00:00.012, 1970-01-01 00:00:00.010, 1970-01-01 00:00:00.020, 1970-01-01 00:00:00.019, 1]",
	}
	if g := opstest.FlinkString(got, ts); !slices.Equal(g, want) {
		t.Fatalf("%v\nwant %v", g, want)
	}
}
