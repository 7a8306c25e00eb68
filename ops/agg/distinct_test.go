package agg_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/heap"
	"github.com/streamsql/streamsql/state/lsm"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

var backends = []struct {
	name string
	kind state.Kind
}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}}

// distinctSpec is GROUP BY k over rows (k STRING, a, b, c BIGINT, f1, f2
// BOOLEAN) of DISTINCT calls sharing arguments, as Nexmark q16's do:
// COUNT(DISTINCT a), COUNT(DISTINCT a) FILTER f1, COUNT(*),
// COUNT(DISTINCT b) FILTER f2, COUNT(DISTINCT a) FILTER f2,
// SUM(DISTINCT b) FILTER f1, COUNT(DISTINCT c). The calls over a share the
// view "distinctview0", those over b "distinctview3"; c's view of one call
// is "distinct6" (c takes 400 values: large maps, hundreds of entries
// per key).
func distinctSpec(retracting bool) agg.Spec {
	big := types.BigInt()
	count := func(arg, filter int, distinct bool) agg.Call {
		return agg.Call{Func: agg.Count, Arg: arg, Filter: filter, Distinct: distinct, ArgType: big, Result: big.NotNullable()}
	}
	return agg.Spec{Keys: []int{0}, KeyTypes: []types.Type{types.String()}, Retracting: retracting, UpdateBefore: retracting,
		Calls: []agg.Call{
			count(1, -1, true), count(1, 4, true), count(-1, -1, false), count(2, 5, true), count(1, 5, true),
			{Func: agg.Sum, Arg: 2, Filter: 4, Distinct: true, ArgType: big, Result: big},
			count(3, -1, true),
		}}
}

var distinctTypes = []types.Type{types.String(), types.BigInt(), types.BigInt(), types.BigInt(), types.BigInt(), types.BigInt(), types.BigInt(), types.BigInt()}

// distinctOracle computes distinctSpec's results from the rows each key
// holds.
func distinctOracle(rows map[string][][6]int64) map[string]string {
	out := map[string]string{}
	for k, rs := range rows {
		if len(rs) == 0 {
			continue
		}
		sets := make([]map[int64]bool, 7)
		for i := range sets {
			sets[i] = map[int64]bool{}
		}
		for _, r := range rs {
			a, b, c, f1, f2 := r[1], r[2], r[3], r[4] == 1, r[5] == 1
			if a >= 0 { // a < 0 stands for NULL
				sets[0][a] = true
				if f1 {
					sets[1][a] = true
				}
				if f2 {
					sets[4][a] = true
				}
			}
			if f2 {
				sets[3][b] = true
			}
			if f1 {
				sets[5][b] = true
			}
			sets[6][c] = true
		}
		sum := "null"
		if len(sets[5]) > 0 {
			s := int64(0)
			for v := range sets[5] {
				s += v
			}
			sum = fmt.Sprint(s)
		}
		out[k] = fmt.Sprintf("[%s, %d, %d, %d, %d, %d, %s, %d]", k, len(sets[0]), len(sets[1]), len(rs), len(sets[3]), len(sets[4]), sum, len(sets[6]))
	}
	return out
}

// toPerCallTables rewrites the state of distinctSpec's shared views as the
// operator wrote DISTINCT state before views: one table per call
// ("distinct<call>") of one varint count per value.
func toPerCallTables(t *testing.T, b state.Backend) {
	t.Helper()
	for _, v := range []struct {
		table string
		calls []int
	}{{"distinctview0", []int{0, 1, 4}}, {"distinctview3", []int{3, 5}}} {
		view := b.Map(v.table)
		for kg := range state.DefaultMaxParallelism {
			var keys [][]byte
			if err := view.Keys(kg, func(key []byte) bool { keys = append(keys, slices.Clone(key)); return true }); err != nil {
				t.Fatal(err)
			}
			for _, key := range keys {
				if err := view.RangeKey(kg, key, func(sub, val []byte) bool {
					for _, k := range v.calls {
						n, used := binary.Varint(val)
						if used <= 0 {
							t.Fatalf("%s: a corrupt entry", v.table)
						}
						val = val[used:]
						if n > 0 {
							if err := b.Map(fmt.Sprintf("distinct%d", k)).Put(kg, key, sub, binary.AppendVarint(nil, n)); err != nil {
								t.Fatal(err)
							}
						}
					}
					return true
				}); err != nil {
					t.Fatal(err)
				}
				if err := view.DeleteKey(kg, key); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestDistinctViewsMatchOracle: DISTINCT calls that share an argument
// share its value counts (one view per argument), with FILTERs, NULLs,
// retractions (each a row added before) and restores between rows, on
// both backends; "per-call" restores each time from a checkpoint in the
// layout from before views (one table per DISTINCT call), which the
// restored task moves into its views. The table the changelog makes is
// compared with the oracle's after every batch.
func TestDistinctViewsMatchOracle(t *testing.T) {
	for _, b := range backends {
		for _, mode := range []string{"retracting", "insert-only", "per-call"} {
			t.Run(b.name+"/"+mode, func(t *testing.T) {
				retracting := mode != "insert-only"
				f := agg.NewGroupAggregate(distinctSpec(retracting))
				tk := streamtest.Open(t, f, streamtest.Options{Backend: b.kind})
				rnd := rand.New(rand.NewPCG(7, uint64(len(mode))))
				live := map[string][][6]int64{}
				table := map[string]string{}
				keys := []string{"k0", "k1", "k2", "k3", "k4"}
				for batch := range 60 {
					var in []types.Row
					for range 1 + rnd.IntN(100) {
						k := keys[rnd.IntN(len(keys))]
						if rs := live[k]; retracting && len(rs) > 0 && rnd.IntN(3) == 0 {
							i := rnd.IntN(len(rs))
							r := rs[i]
							live[k] = slices.Delete(rs, i, i+1)
							in = append(in, distinctRow(types.Delete, k, r))
							continue
						}
						r := [6]int64{0, int64(rnd.IntN(12)) - 1, int64(rnd.IntN(6)), int64(rnd.IntN(400)), int64(rnd.IntN(2)), int64(rnd.IntN(2))}
						live[k] = append(live[k], r)
						in = append(in, distinctRow(types.Insert, k, r))
					}
					tk.Process(in...)
					for _, r := range tk.Take() {
						s := streamtest.Format([]types.Row{r}, distinctTypes)[0]
						k, res := r.Fields[0].Str(), s[strings.Index(s, "["):]
						switch r.Kind {
						case types.Insert, types.UpdateAfter:
							table[k] = res
						case types.Delete:
							delete(table, k)
						}
					}
					want := distinctOracle(live)
					for k := range table {
						if table[k] != want[k] {
							t.Fatalf("batch %d: key %s: %s, want %s", batch, k, table[k], want[k])
						}
					}
					for k := range want {
						if _, ok := table[k]; !ok {
							t.Fatalf("batch %d: key %s missing, want %s", batch, k, want[k])
						}
					}
					if batch%7 == 6 {
						if mode == "per-call" {
							toPerCallTables(t, tk.State())
						}
						h := tk.Snapshot()
						tk = streamtest.Open(t, f, streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: tk.Files()})
						if mode == "per-call" {
							for _, k := range []int{0, 1, 3, 4, 5} {
								for kg := range state.DefaultMaxParallelism {
									if err := tk.State().Map(fmt.Sprintf("distinct%d", k)).Keys(kg, func([]byte) bool {
										t.Fatalf("restored: per-call table distinct%d not emptied", k)
										return false
									}); err != nil {
										t.Fatal(err)
									}
								}
							}
						}
					}
				}
			})
		}
	}
}

func distinctRow(kind types.RowKind, k string, r [6]int64) types.Row {
	a := types.Int64(r[1])
	if r[1] < 0 {
		a = types.Value{}
	}
	return types.Row{Kind: kind, Fields: []types.Value{types.Str(k), a, types.Int64(r[2]), types.Int64(r[3]), types.Bool(r[4] == 1), types.Bool(r[5] == 1)}}
}
