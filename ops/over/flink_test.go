package over_test

import (
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/internal/opstest"
	"github.com/streamsql/streamsql/ops/over"
	"github.com/streamsql/streamsql/types"
)

// call returns an aggregate call over input column arg (-1: COUNT(*)) of
// type t, with Flink's result type.
func call(t *testing.T, f agg.Func, arg int, at types.Type) agg.Call {
	t.Helper()
	res, err := agg.ResultType(f, at, true)
	if err != nil {
		t.Fatal(err)
	}
	if f == agg.Sum || f == agg.Min || f == agg.Max || f == agg.Avg {
		res = res.Nullable()
	}
	return agg.Call{Func: f, Arg: arg, Filter: -1, ArgType: at, Result: res}
}

// Columns of the events and ticks tables.
const (
	evK, evV, evD, evM, evS, evTS = 0, 1, 2, 3, 4, 5
	tkK, tkV, tkP, tkTS           = 0, 1, 2, 3
)

var (
	rowsUnbounded  = over.Frame{Rows: true, Unbounded: true}
	rangeUnbounded = over.Frame{Unbounded: true}
)

// TestOverMatchesFlink runs the OVER cases of job/testdata/flink-queries
// through the operator with the spec the planner gives them and compares
// the rows with Flink's (sorted: rows of partitions that one watermark
// releases have no order; within a partition the aggregates show the
// order).
func TestOverMatchesFlink(t *testing.T) {
	events := opstest.ReadTable(t, "events", opstest.Events)
	ticks := opstest.ReadTable(t, "ticks", opstest.Ticks)
	bigint := types.BigInt()
	for _, c := range []struct {
		name  string
		rows  []types.Row
		table []opstest.Column
		cols  []int // the operator's input columns of the table
		spec  over.Spec
		calls func(t *testing.T, ts []types.Type) []agg.Call
		out   []int // output columns (nil: all)
		proc  bool  // processing time: compared in order
	}{
		{name: "over_rows_unbounded", rows: events, table: opstest.Events, cols: []int{evK, evV, evTS, evD},
			spec: over.Spec{Partition: []int{0}, Time: 2, Frame: rowsUnbounded},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				return []agg.Call{call(t, agg.Sum, 1, ts[1]), call(t, agg.Count, -1, bigint), call(t, agg.Max, 1, ts[1]), call(t, agg.Avg, 3, ts[3])}
			}, out: []int{0, 1, 2, 4, 5, 6, 7}},
		{name: "over_rows_bounded", rows: events, table: opstest.Events, cols: []int{evK, evV, evTS, evS, evM},
			spec: over.Spec{Partition: []int{0}, Time: 2, Frame: over.Frame{Rows: true, PrecedingRows: 2}},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				return []agg.Call{call(t, agg.Sum, 1, ts[1]), call(t, agg.Min, 1, ts[1]), call(t, agg.Max, 3, ts[3]), call(t, agg.Count, 1, ts[1]), call(t, agg.Avg, 4, ts[4])}
			}, out: []int{0, 1, 2, 5, 6, 7, 8, 9}},
		{name: "over_range_bounded", rows: events, table: opstest.Events, cols: []int{evK, evV, evTS, evD},
			spec: over.Spec{Partition: []int{0}, Time: 2, Frame: over.Frame{PrecedingTime: 5 * time.Second}},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				return []agg.Call{call(t, agg.Sum, 1, ts[1]), call(t, agg.Count, -1, bigint), call(t, agg.Min, 3, ts[3]), call(t, agg.Max, 3, ts[3])}
			}, out: []int{0, 1, 2, 4, 5, 6, 7}},
		{name: "over_range_unbounded_ticks", rows: ticks, table: opstest.Ticks, cols: []int{tkK, tkV, tkTS},
			spec: over.Spec{Partition: []int{0}, Time: 2, Frame: rangeUnbounded},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				return []agg.Call{call(t, agg.Sum, 1, ts[1]), call(t, agg.Count, -1, bigint)}
			}},
		{name: "over_range_bounded_ticks", rows: ticks, table: opstest.Ticks, cols: []int{tkK, tkV, tkTS},
			spec: over.Spec{Partition: []int{0}, Time: 2, Frame: over.Frame{PrecedingTime: 2 * time.Second}},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				return []agg.Call{call(t, agg.Sum, 1, ts[1]), call(t, agg.Max, 1, ts[1]), call(t, agg.Min, 1, ts[1])}
			}},
		{name: "over_rows_bounded_ticks", rows: ticks, table: opstest.Ticks, cols: []int{tkK, tkV, tkTS},
			spec: over.Spec{Time: 2, Frame: over.Frame{Rows: true, PrecedingRows: 1}},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				return []agg.Call{call(t, agg.Sum, 1, ts[1]), call(t, agg.Max, 1, ts[1])}
			}},
		{name: "over_rows_unbounded_ticks", rows: ticks, table: opstest.Ticks, cols: []int{tkK, tkV, tkTS},
			spec: over.Spec{Partition: []int{0}, Time: 2, Frame: rowsUnbounded},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				return []agg.Call{call(t, agg.Sum, 1, ts[1]), call(t, agg.LastValue, 1, ts[1]), call(t, agg.FirstValue, 1, ts[1])}
			}},
		{name: "over_distinct", rows: events, table: opstest.Events, cols: []int{evK, evS, evTS},
			spec: over.Spec{Partition: []int{0}, Time: 2, Frame: rowsUnbounded},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				c := call(t, agg.Count, 1, ts[1])
				c.Distinct = true
				return []agg.Call{c}
			}, out: []int{0, 1, 3}},
		{name: "over_row_number", rows: events, table: opstest.Events, cols: []int{evK, evV, evTS},
			spec: over.Spec{Partition: []int{0}, Time: 2, Frame: rowsUnbounded},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				return []agg.Call{call(t, agg.Count, -1, bigint)}
			}, out: []int{0, 1, 3}},
		{name: "over_proctime_rows", rows: events, table: opstest.Events, cols: []int{evK, evV}, proc: true,
			spec: over.Spec{Partition: []int{0}, Time: -1, Frame: over.Frame{Rows: true, PrecedingRows: 1}},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				return []agg.Call{call(t, agg.Sum, 1, ts[1]), call(t, agg.Max, 1, ts[1])}
			}},
		{name: "over_proctime_unbounded", rows: events, table: opstest.Events, cols: []int{evK, evV, evS}, proc: true,
			spec: over.Spec{Partition: []int{0}, Time: -1, Frame: rangeUnbounded},
			calls: func(t *testing.T, ts []types.Type) []agg.Call {
				return []agg.Call{call(t, agg.Sum, 1, ts[1]), call(t, agg.Count, -1, bigint), call(t, agg.Min, 2, ts[2])}
			}, out: []int{0, 1, 3, 4, 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := opstest.TypesOf(c.table, c.cols...)
			c.spec.Types = ts
			c.spec.Calls = c.calls(t, ts)
			p := opstest.NewPipeline(t, 2, opstest.Stage{F: over.New(c.spec), Keys: c.spec.Partition, Types: ts})
			got := p.Run(opstest.Project(c.rows, c.cols...))
			outTypes := ts
			for _, cl := range c.spec.Calls {
				outTypes = append(outTypes, cl.Result)
			}
			if c.out != nil {
				got = opstest.Project(got, c.out...)
				var ots []types.Type
				for _, o := range c.out {
					ots = append(ots, outTypes[o])
				}
				outTypes = ots
			}
			opstest.Compare(t, c.name, got, outTypes, !c.proc)
		})
	}
}
