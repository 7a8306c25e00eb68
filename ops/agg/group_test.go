package agg_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

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

// TestGroupAggregateMiniBatch: with Spec.MiniBatch the rows of a key in
// up to MiniBatch rows of an input batch make one change, in the order
// the keys first came; a result the fold leaves as it was emits nothing;
// a key whose rows all cancel within the fold emits nothing; the last row
// of a key that was emitted retracted emits its DELETE at once; a
// TTL turns the fold off (one change per row).
func TestGroupAggregateMiniBatch(t *testing.T) {
	r := streamtest.Row
	spec := countSum(false, true)
	spec.MiniBatch = 3
	tk := streamtest.Open(t, agg.NewGroupAggregate(spec), streamtest.Options{})
	tk.Process(r(ins, "a", 1), r(ins, "b", 2), r(ins, "a", 3), r(ins, "a", 4), r(ins, "c", 5))
	expect(t, tk.Take(), countSumTypes,
		"+I[a, 2, 4]", "+I[b, 1, 2]", // the first 3 rows
		"-U[a, 2, 4]", "+U[a, 3, 8]", "+I[c, 1, 5]")
	tk.Process(r(ins, "b", 7), r(ins, "b", 1))
	expect(t, tk.Take(), countSumTypes, "-U[b, 1, 2]", "+U[b, 3, 10]")

	spec = countSum(true, false)
	spec.MiniBatch = 100
	tk = streamtest.Open(t, agg.NewGroupAggregate(spec), streamtest.Options{})
	tk.Process(r(ins, "a", 1), r(ins, "a", 2), r(del, "a", 1), r(del, "a", 2), r(ins, "b", 1), r(del, "z", 1))
	expect(t, tk.Take(), countSumTypes, "+I[b, 1, 1]")
	// b's SUM goes 1 -> 0 -> 1 with its COUNT back at 1: no change.
	tk.Process(r(ins, "b", -1), r(del, "b", -1))
	expect(t, tk.Take(), countSumTypes)
	tk.Process(r(ins, "b", 5), r(del, "b", 1), r(del, "b", 5), r(ins, "b", 3))
	expect(t, tk.Take(), countSumTypes, "-D[b, 1, 1]", "+I[b, 1, 3]")

	spec = countSum(false, true)
	spec.MiniBatch, spec.TTL = 100, time.Hour
	if spec.Folds() {
		t.Fatal("a GROUP BY with a TTL folds")
	}
	tk = streamtest.Open(t, agg.NewGroupAggregate(spec), streamtest.Options{})
	tk.Process(r(ins, "a", 1), r(ins, "a", 2))
	expect(t, tk.Take(), countSumTypes, "+I[a, 1, 1]", "-U[a, 1, 1]", "+U[a, 2, 3]")
}

// TestGroupAggregateMiniBatchManyKeys: a mini-batch over more keys than
// the cache holds emits the change of a key taken out of the cache when
// it leaves, so that every key still ends with its result, and each
// key's changes stay in order: a key never emits UPDATE_BEFORE of a
// result it did not emit last.
func TestGroupAggregateMiniBatchManyKeys(t *testing.T) {
	spec := countSum(false, true)
	spec.MiniBatch = 10_000
	tk := streamtest.Open(t, agg.NewGroupAggregate(spec), streamtest.Options{})
	last := map[string]string{}
	sums := map[string]int64{}
	counts := map[string]int64{}
	for batch := range 3 {
		var in []types.Row
		for i := range 5_000 {
			k := fmt.Sprintf("k%d", (i*7+batch)%3_000)
			in = append(in, streamtest.Row(ins, k, int64(i)))
			sums[k] += int64(i)
			counts[k]++
		}
		tk.Process(in...)
		for _, line := range streamtest.Format(tk.Take(), countSumTypes) {
			k := line[3:strings.Index(line, ",")]
			switch line[:2] {
			case "+I":
				if _, ok := last[k]; ok {
					t.Fatalf("batch %d: %s for a key in the result", batch, line)
				}
			case "-U":
				if last[k] != line[2:] {
					t.Fatalf("batch %d: %s after %s", batch, line, last[k])
				}
			}
			last[k] = line[2:]
		}
	}
	for k, n := range counts {
		if want := fmt.Sprintf("[%s, %d, %d]", k, n, sums[k]); last[k] != want {
			t.Fatalf("key %s: result %s, want %s", k, last[k], want)
		}
	}
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

// TestGroupAggregateCachedKeysReachTheSnapshot runs COUNT(*), SUM, MIN and
// MAX (of a STRING) GROUP BY key over more keys than the operator caches
// decoded, some hot and most cold (so that keys are cached, evicted and
// read back), with and without retractions, and after every batch moves
// to a fresh task restored from a checkpoint of the last one: each key's
// result must stay what a model of its rows says. The input's strings
// alias a buffer that is overwritten after each batch, as a source that
// decodes in place reuses its memory.
func TestGroupAggregateCachedKeysReachTheSnapshot(t *testing.T) {
	for _, c := range []struct {
		retracting bool
		miniBatch  int
	}{{false, 0}, {true, 0}, {false, 100}, {true, 100}, {false, 10_000}, {true, 10_000}} {
		retracting := c.retracting
		t.Run(fmt.Sprintf("retracting=%v/mini-batch=%d", retracting, c.miniBatch), func(t *testing.T) {
			str := types.String()
			spec := countSum(retracting, true)
			spec.MiniBatch = c.miniBatch
			spec.Calls = append(spec.Calls,
				agg.Call{Func: agg.Min, Arg: 2, Filter: -1, ArgType: str, Result: str},
				agg.Call{Func: agg.Max, Arg: 2, Filter: -1, ArgType: str, Result: str})
			ts := []types.Type{str, types.BigInt(), types.BigInt(), str, str}
			f := agg.NewGroupAggregate(spec)
			tk := streamtest.Open(t, f, streamtest.Options{})
			rng := rand.New(rand.NewPCG(1, uint64(len(spec.Calls))))
			type row struct {
				v int64
				s string
			}
			live := map[string][]row{} // the model: each key's rows
			emitted := map[string]string{}
			buf := make([]byte, 0, 1<<16)
			for batch := range 40 {
				buf = buf[:0]
				var in []types.Row
				for range 500 {
					k := fmt.Sprintf("k%d", rng.IntN(20)) // hot
					if rng.IntN(3) == 0 {
						k = fmt.Sprintf("k%d", rng.IntN(5000))
					}
					if rows := live[k]; retracting && len(rows) > 0 && rng.IntN(4) == 0 {
						i := rng.IntN(len(rows))
						old := rows[i]
						live[k] = append(rows[:i], rows[i+1:]...)
						in = append(in, types.Row{Kind: del, Fields: []types.Value{types.Str(k), types.Int64(old.v), types.Str(old.s)}})
						continue
					}
					v := rng.Int64N(1000)
					s := fmt.Sprintf("s%04d", rng.IntN(10000))
					live[k] = append(live[k], row{v, s})
					at := len(buf)
					buf = append(buf, s...)
					aliased := unsafe.String(&buf[at], len(s))
					in = append(in, types.Row{Kind: ins, Fields: []types.Value{types.Str(k), types.Int64(v), types.Str(aliased)}})
				}
				tk.Process(in...)
				for i := range buf {
					buf[i] = 'x'
				}
				for _, r := range tk.Take() {
					line := streamtest.Format([]types.Row{r}, ts)[0]
					k := r.Fields[0].Str()
					switch r.Kind {
					case ins, ua:
						emitted[k] = line[2:]
					case del:
						delete(emitted, k)
					}
				}
				for k, rows := range live {
					if len(rows) == 0 {
						if got, ok := emitted[k]; ok {
							t.Fatalf("batch %d: key %s has no rows but its result is %s", batch, k, got)
						}
						continue
					}
					var sum int64
					lo, hi := rows[0].s, rows[0].s
					for _, r := range rows {
						sum += r.v
						lo, hi = min(lo, r.s), max(hi, r.s)
					}
					want := fmt.Sprintf("[%s, %d, %d, %s, %s]", k, len(rows), sum, lo, hi)
					if emitted[k] != want {
						t.Fatalf("batch %d: key %s: result %s, want %s", batch, k, emitted[k], want)
					}
				}
				h := tk.Snapshot()
				tk = streamtest.Open(t, f, streamtest.Options{Restore: []state.Handle{h}, Files: tk.Files()})
			}
		})
	}
}
