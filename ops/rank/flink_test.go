package rank_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/internal/opstest"
	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/types"
)

// The cases of job/testdata/flink-queries that a Top-N or a
// deduplication answers, each run through the operator (after a GROUP BY
// for an updating input) with the spec the planner gives it, and compared
// with Flink's changelog.

// Columns of the events table.
const (
	evK = iota
	evV
	evD
	evM
	evS
	evTS
)

func asc(c int) rank.SortKey  { return rank.SortKey{Col: c} }
func desc(c int) rank.SortKey { return rank.SortKey{Col: c, Desc: true, NullsLast: true} }

var bigint = types.BigInt()

func TestTopNMatchesFlink(t *testing.T) {
	events := opstest.ReadTable(t, "events", opstest.Events)
	ticks := opstest.ReadTable(t, "ticks", opstest.Ticks)
	kvts := opstest.TypesOf(opstest.Events, evK, evV, evTS)
	for _, c := range []struct {
		name   string
		rows   []types.Row
		types  []types.Type // the Top-N's input types
		spec   rank.Spec
		filter func(types.Row) bool // applied to the output
		out    []int                // output columns (nil: all)
	}{
		{name: "rank_topn", rows: opstest.Project(events, evK, evV, evTS), types: kvts,
			spec: rank.Spec{Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 2, OutputRank: true}},
		{name: "rank_topn_no_rownum", rows: opstest.Project(events, evK, evV, evTS), types: kvts,
			spec: rank.Spec{Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 2}},
		{name: "rank_topn_lt_two_keys", rows: opstest.Project(events, evK, evV, evD), types: opstest.TypesOf(opstest.Events, evK, evV, evD),
			spec: rank.Spec{Partition: []int{0}, Order: []rank.SortKey{asc(2), desc(1)}, Start: 1, End: 2, OutputRank: true}},
		{name: "rank_topn_between", rows: opstest.Project(events, evK, evV), types: opstest.TypesOf(opstest.Events, evK, evV),
			spec: rank.Spec{Partition: []int{0}, Order: []rank.SortKey{asc(1)}, Start: 2, End: 3}},
		{name: "rank_topn_global", rows: opstest.Project(events, evK, evV, evTS), types: kvts,
			spec: rank.Spec{Order: []rank.SortKey{desc(1), asc(2)}, Start: 1, End: 3, OutputRank: true}},
		{name: "rank_topn_ties", rows: ticks, types: opstest.TypesOf(opstest.Ticks, 0, 1, 2, 3), out: []int{0, 1, 2, 4},
			spec: rank.Spec{Partition: []int{2}, Order: []rank.SortKey{desc(3)}, Start: 1, End: 2, OutputRank: true}},
		{name: "rank_topn_extra_filter", rows: opstest.Project(events, evK, evV), types: opstest.TypesOf(opstest.Events, evK, evV),
			spec:   rank.Spec{Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 3, OutputRank: true},
			filter: func(r types.Row) bool { return !r.Fields[1].IsNull() && r.Fields[1].Int64() > 2 }},
		{name: "rank_top1", rows: opstest.Project(events, evK, evV, evS), types: opstest.TypesOf(opstest.Events, evK, evV, evS),
			spec: rank.Spec{Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 1, OutputRank: true}},
		{name: "rank_proctime_first_n", rows: opstest.Project(events, evK, evV), types: opstest.TypesOf(opstest.Events, evK, evV),
			spec: rank.Spec{Partition: []int{0}, FirstN: true, Start: 1, End: 2, OutputRank: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.spec.Types, c.spec.UpdateBefore = c.types, true
			p := opstest.NewPipeline(t, 2, opstest.Stage{F: rank.NewTopN(c.spec), Keys: c.spec.Partition, Types: c.types})
			got := p.Run(c.rows)
			ts := slices.Clone(c.types)
			if c.spec.OutputRank {
				ts = append(ts, bigint)
			}
			if c.filter != nil {
				got = slices.DeleteFunc(got, func(r types.Row) bool { return !c.filter(r) })
			}
			if c.out != nil {
				got = opstest.Project(got, c.out...)
				var ots []types.Type
				for _, o := range c.out {
					ots = append(ots, ts[o])
				}
				ts = ots
			}
			opstest.Compare(t, c.name, got, ts, false)
			if c.spec.Top1() {
				// Without UPDATE_BEFORE (a consumer that needs none, as
				// Flink's blackhole): Flink's changelog without its -U
				// rows, from a Top-1 that keeps only the first row's
				// sort key.
				c.spec.UpdateBefore = false
				p := opstest.NewPipeline(t, 2, opstest.Stage{F: rank.NewTopN(c.spec), Keys: c.spec.Partition, Types: c.types})
				got := opstest.FlinkString(p.Run(c.rows), ts)
				want := slices.DeleteFunc(opstest.FlinkLines(t, c.name), func(l string) bool { return strings.HasPrefix(l, "-U") })
				if !slices.Equal(got, want) {
					t.Errorf("%s without UPDATE_BEFORE:\n--- got\n%s\n--- Flink without -U\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

// groupBy is a GROUP BY of the events table over the key columns keys
// with one call, whose output is the keys then the call's result.
func groupBy(keys []int, call agg.Call, updateBefore bool) (opstest.Stage, []types.Type) {
	spec := agg.Spec{UpdateBefore: updateBefore, Calls: []agg.Call{call}}
	var out []types.Type
	for i, k := range keys {
		spec.Keys = append(spec.Keys, i)
		spec.KeyTypes = append(spec.KeyTypes, opstest.Events[k].Type)
		out = append(out, opstest.Events[k].Type)
	}
	in := opstest.TypesOf(opstest.Events, keys...)
	if call.Arg >= 0 {
		in = append(in, call.ArgType)
	}
	return opstest.Stage{F: agg.NewGroupAggregate(spec), Keys: spec.Keys, Types: in}, append(out, call.Result)
}

func TestTopNUpdatingMatchesFlink(t *testing.T) {
	events := opstest.ReadTable(t, "events", opstest.Events)
	sum := agg.Call{Func: agg.Sum, Arg: -1, Filter: -1, ArgType: bigint, Result: bigint}
	count := agg.Call{Func: agg.Count, Arg: -1, Filter: -1, ArgType: bigint, Result: bigint.NotNullable()}
	max := agg.Call{Func: agg.Max, Arg: -1, Filter: -1, ArgType: bigint, Result: bigint}
	for _, c := range []struct {
		name     string
		keys     []int // GROUP BY columns of events
		argCol   int   // the call's argument column of events, -1: none
		call     agg.Call
		spec     rank.Spec
		strategy rank.Strategy
	}{
		{name: "rank_topn_retract", keys: []int{evK}, argCol: evV, call: sum, strategy: rank.Retract,
			spec: rank.Spec{Order: []rank.SortKey{desc(1)}, Start: 1, End: 2, OutputRank: true}},
		{name: "rank_topn_retract_no_rownum", keys: []int{evS}, argCol: evV, call: sum, strategy: rank.Retract,
			spec: rank.Spec{Order: []rank.SortKey{asc(1)}, Start: 1, End: 2}},
		{name: "rank_topn_updatable", keys: []int{evS}, argCol: -1, call: count, strategy: rank.Updatable,
			spec: rank.Spec{Order: []rank.SortKey{desc(1)}, Start: 1, End: 2, OutputRank: true, RowKey: []int{0}}},
		{name: "rank_topn_updatable_no_rownum", keys: []int{evS}, argCol: evV, call: max, strategy: rank.Updatable,
			spec: rank.Spec{Order: []rank.SortKey{desc(1)}, Start: 1, End: 2, RowKey: []int{0}}},
		{name: "rank_top1_updating", keys: []int{evK, evS}, argCol: -1, call: count, strategy: rank.Updatable,
			spec: rank.Spec{Partition: []int{0}, Order: []rank.SortKey{desc(2)}, Start: 1, End: 1, OutputRank: true, RowKey: []int{0, 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cols := slices.Clone(c.keys)
			if c.argCol >= 0 {
				c.call.Arg = len(cols)
				cols = append(cols, c.argCol)
			}
			// A retracting Top-N needs the aggregation's UPDATE_BEFORE rows;
			// an updatable one takes its upserts.
			g, ts := groupBy(c.keys, c.call, c.strategy == rank.Retract)
			c.spec.Types, c.spec.Strategy, c.spec.UpdateBefore = ts, c.strategy, true
			p := opstest.NewPipeline(t, 2, g, opstest.Stage{F: rank.NewTopN(c.spec), Keys: c.spec.Partition, Types: ts})
			got := p.Run(opstest.Project(events, cols...))
			if c.spec.OutputRank {
				ts = append(ts, bigint)
			}
			opstest.Compare(t, c.name, got, ts, false)
		})
	}
}

func TestDeduplicateMatchesFlink(t *testing.T) {
	events := opstest.ReadTable(t, "events", opstest.Events)
	ticks := opstest.ReadTable(t, "ticks", opstest.Ticks)
	kvts := opstest.TypesOf(opstest.Events, evK, evV, evTS)
	for _, c := range []struct {
		name   string
		rows   []types.Row
		spec   rank.DedupSpec
		out    []int
		rn     bool // the row number 1 in the output (a Top-1 over a time attribute with it)
		sorted bool
	}{
		{name: "dedup_first_rowtime", rows: opstest.Project(events, evK, evV, evTS), sorted: true,
			spec: rank.DedupSpec{Types: kvts, Partition: []int{0}, Time: 2}},
		{name: "dedup_last_rowtime", rows: opstest.Project(events, evK, evV, evTS),
			spec: rank.DedupSpec{Types: kvts, Partition: []int{0}, Time: 2, KeepLast: true}},
		{name: "rank_rowtime_top1_rownum", rows: opstest.Project(events, evK, evV, evTS), rn: true,
			spec: rank.DedupSpec{Types: kvts, Partition: []int{0}, Time: 2, KeepLast: true}},
		{name: "dedup_first_proctime", rows: opstest.Project(events, evK, evV, evS),
			spec: rank.DedupSpec{Types: opstest.TypesOf(opstest.Events, evK, evV, evS), Partition: []int{2}, Time: -1}},
		{name: "dedup_last_proctime", rows: opstest.Project(events, evK, evV),
			spec: rank.DedupSpec{Types: opstest.TypesOf(opstest.Events, evK, evV), Partition: []int{0}, Time: -1, KeepLast: true}},
		{name: "dedup_last_rowtime_ticks", rows: ticks, out: []int{0, 1, 3},
			spec: rank.DedupSpec{Types: opstest.TypesOf(opstest.Ticks, 0, 1, 2, 3), Partition: []int{0, 2}, Time: 3, KeepLast: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.spec.UpdateBefore, c.spec.OutputRank = true, c.rn
			p := opstest.NewPipeline(t, 2, opstest.Stage{F: rank.NewDeduplicate(c.spec), Keys: c.spec.Partition, Types: c.spec.Types})
			got := p.Run(c.rows)
			ts := c.spec.Types
			if c.out != nil {
				got = opstest.Project(got, c.out...)
				var ots []types.Type
				for _, o := range c.out {
					ots = append(ots, ts[o])
				}
				ts = ots
			}
			if c.rn {
				ts = append(slices.Clone(ts), bigint)
			}
			opstest.Compare(t, c.name, got, ts, c.sorted)
		})
	}
}
