package agg_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

const (
	ins = types.Insert
	ub  = types.UpdateBefore
	ua  = types.UpdateAfter
	del = types.Delete
)

// countSum is GROUP BY $0 with COUNT(*) and SUM($1) over (STRING, BIGINT)
// rows.
func countSum(retracting, updateBefore bool) agg.Spec {
	return agg.Spec{Keys: []int{0}, KeyTypes: []types.Type{types.String()}, Retracting: retracting, UpdateBefore: updateBefore,
		Calls: []agg.Call{
			{Func: agg.Count, Arg: -1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt().NotNullable()},
			{Func: agg.Sum, Arg: 1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt()},
		}}
}

var countSumTypes = []types.Type{types.String(), types.BigInt(), types.BigInt()}

func expect(t *testing.T, got []types.Row, ts []types.Type, want ...string) {
	t.Helper()
	g := streamtest.Format(got, ts)
	if !slices.Equal(g, want) {
		t.Fatalf("output:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestGroupAggregateChangelog(t *testing.T) {
	r := streamtest.Row
	tk := streamtest.Open(t, agg.NewGroupAggregate(countSum(false, true)), streamtest.Options{})
	tk.Process(r(ins, "a", 1), r(ins, "b", 10), r(ins, "a", 2), r(ins, "a", nil))
	expect(t, tk.Take(), countSumTypes,
		"+I[a, 1, 1]", "+I[b, 1, 10]", "-U[a, 1, 1]", "+U[a, 2, 3]", "-U[a, 2, 3]", "+U[a, 3, 3]")

	// Without UPDATE_BEFORE (an upsert sink): only the new results.
	tk = streamtest.Open(t, agg.NewGroupAggregate(countSum(false, false)), streamtest.Options{})
	tk.Process(r(ins, "a", 1), r(ins, "a", 2))
	expect(t, tk.Take(), countSumTypes, "+I[a, 1, 1]", "+U[a, 2, 3]")
}

// TestGroupAggregateRetracts: rows retracted by the input take their
// values back; the key's last row retracted deletes it; a retraction the
// state does not hold is ignored.
func TestGroupAggregateRetracts(t *testing.T) {
	r := streamtest.Row
	tk := streamtest.Open(t, agg.NewGroupAggregate(countSum(true, true)), streamtest.Options{})
	tk.Process(r(ins, "a", 1), r(ins, "a", 5), r(ub, "a", 1), r(ua, "a", 7), r(del, "a", 5), r(del, "a", 7), r(del, "z", 1))
	expect(t, tk.Take(), countSumTypes,
		"+I[a, 1, 1]",
		"-U[a, 1, 1]", "+U[a, 2, 6]",
		"-U[a, 2, 6]", "+U[a, 1, 5]",
		"-U[a, 1, 5]", "+U[a, 2, 12]",
		"-U[a, 2, 12]", "+U[a, 1, 7]",
		"-D[a, 1, 7]")
	tk.Process(r(ins, "a", 3))
	expect(t, tk.Take(), countSumTypes, "+I[a, 1, 3]")
}

// TestGroupAggregateMinMaxRetract: MIN and MAX over a retracting input
// find the next extreme when the current one is retracted, and keep it
// while other rows hold the same value.
func TestGroupAggregateMinMaxRetract(t *testing.T) {
	r := streamtest.Row
	spec := agg.Spec{Keys: []int{0}, KeyTypes: []types.Type{types.String()}, Retracting: true,
		Calls: []agg.Call{
			{Func: agg.Min, Arg: 1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt()},
			{Func: agg.Max, Arg: 1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt()},
		}}
	ts := []types.Type{types.String(), types.BigInt(), types.BigInt()}
	tk := streamtest.Open(t, agg.NewGroupAggregate(spec), streamtest.Options{})
	tk.Process(r(ins, "k", 5), r(ins, "k", 1), r(ins, "k", 9), r(ins, "k", 9))
	expect(t, tk.Take(), ts, "+I[k, 5, 5]", "+U[k, 1, 5]", "+U[k, 1, 9]")
	tk.Process(r(del, "k", 9))
	expect(t, tk.Take(), ts) // another 9 remains: nothing changes
	tk.Process(r(del, "k", 1), r(del, "k", 9))
	expect(t, tk.Take(), ts, "+U[k, 5, 9]", "+U[k, 5, 5]")
}

// TestGroupAggregateDistinctAndFilter: COUNT(DISTINCT x) FILTER (WHERE f)
// counts each value once among the rows whose filter holds, also when
// rows are retracted.
func TestGroupAggregateDistinctAndFilter(t *testing.T) {
	r := streamtest.Row
	spec := agg.Spec{Keys: []int{0}, KeyTypes: []types.Type{types.String()}, Retracting: true,
		Calls: []agg.Call{
			{Func: agg.Count, Arg: 1, Filter: -1, Distinct: true, ArgType: types.BigInt(), Result: types.BigInt().NotNullable()},
			{Func: agg.Count, Arg: 1, Filter: 2, Distinct: true, ArgType: types.BigInt(), Result: types.BigInt().NotNullable()},
			{Func: agg.Sum, Arg: 1, Filter: 2, ArgType: types.BigInt(), Result: types.BigInt()},
		}}
	ts := []types.Type{types.String(), types.BigInt(), types.BigInt(), types.BigInt()}
	tk := streamtest.Open(t, agg.NewGroupAggregate(spec), streamtest.Options{})
	tk.Process(r(ins, "k", 1, true), r(ins, "k", 1, true), r(ins, "k", 2, false), r(ins, "k", 2, true))
	expect(t, tk.Take(), ts, "+I[k, 1, 1, 1]", "+U[k, 1, 1, 2]", "+U[k, 2, 1, 2]", "+U[k, 2, 2, 4]")
	tk.Process(r(del, "k", 1, true))
	expect(t, tk.Take(), ts, "+U[k, 2, 2, 3]") // a 1 remains: both distinct counts stay
	tk.Process(r(del, "k", 2, true))
	expect(t, tk.Take(), ts, "+U[k, 2, 1, 1]") // a 2 remains, but not one the filter takes
}

// TestGroupAggregateRestoresAtAnotherParallelism: a checkpoint of one task
// restores into two; each holds exactly its key groups' keys, whose
// aggregates go on from the checkpoint.
func TestGroupAggregateRestoresAtAnotherParallelism(t *testing.T) {
	r := streamtest.Row
	f := agg.NewGroupAggregate(countSum(false, false))
	one := streamtest.Open(t, f, streamtest.Options{})
	keys := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for _, k := range keys {
		one.Process(r(ins, k, 1))
	}
	one.Take()
	h := one.Snapshot()
	for _, k := range keys {
		one.Process(r(ins, k, 100)) // after the checkpoint: not in it
	}
	for i := range 2 {
		tk := streamtest.Open(t, f, streamtest.Options{Index: i, Parallelism: 2, Restore: []state.Handle{h}, Files: one.Files()})
		for _, k := range keys {
			kg := state.KeyGroupOf(state.AppendKey(nil, []types.Value{types.Str(k)}, []int{0}, []types.Type{types.String()}), state.DefaultMaxParallelism)
			if state.TaskOf(kg, 2, state.DefaultMaxParallelism) != i {
				continue
			}
			tk.Process(r(ins, k, 2))
			expect(t, tk.Take(), countSumTypes, "+U["+k+", 2, 3]")
		}
	}
}

// TestGroupAggregateTTL: a key not updated for the TTL starts afresh, and
// with a TTL every update is emitted, as in Flink.
func TestGroupAggregateTTL(t *testing.T) {
	r := streamtest.Row
	spec := countSum(false, false)
	spec.TTL = time.Minute
	tk := streamtest.Open(t, agg.NewGroupAggregate(spec), streamtest.Options{Now: 1_000})
	tk.Process(r(ins, "a", 1), r(ins, "a", 0))
	expect(t, tk.Take(), countSumTypes, "+I[a, 1, 1]", "+U[a, 2, 1]")
	tk.Advance(1_000 + time.Minute.Milliseconds() + 1)
	tk.Process(r(ins, "a", 4))
	expect(t, tk.Take(), countSumTypes, "+I[a, 1, 4]")
}

func TestResultTypes(t *testing.T) {
	for _, c := range []struct {
		f       agg.Func
		arg     types.Type
		grouped bool
		want    string
	}{
		{agg.Count, types.String(), true, "BIGINT NOT NULL"},
		{agg.Sum, types.Int().NotNullable(), true, "INT NOT NULL"},
		{agg.Sum, types.Int().NotNullable(), false, "INT"},
		{agg.Sum, types.DecimalType(10, 2), true, "DECIMAL(38, 2)"},
		{agg.Avg, types.DecimalType(10, 2), true, "DECIMAL(38, 6)"},
		{agg.Avg, types.BigInt(), true, "BIGINT"},
		{agg.Max, types.String(), true, "STRING"},
	} {
		got, err := agg.ResultType(c.f, c.arg, c.grouped)
		if err != nil || got.String() != c.want {
			t.Errorf("%s(%s) grouped=%v: %s, %v; want %s", c.f, c.arg, c.grouped, got, err, c.want)
		}
	}
	if _, err := agg.ResultType(agg.Sum, types.String(), true); err == nil {
		t.Error("SUM(STRING) has a result type")
	}
}
