package rank_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/internal/opstest"
	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/heap"
	"github.com/streamsql/streamsql/state/lsm"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// TestTopNOracle checks every strategy against a batch oracle on random
// inputs: after each input row, the Top-N's output changelog applied to a
// table equals the ranks Start..End of the rows the input holds then,
// ties in arrival order (the order Flink keeps them in). Rows are (p, v,
// id): partition p, ORDER BY v DESC, id tells rows apart.
func TestTopNOracle(t *testing.T) {
	ts := []types.Type{types.BigInt(), types.BigInt(), types.BigInt()}
	for _, strategy := range []rank.Strategy{rank.AppendOnly, rank.Retract, rank.Updatable} {
		for _, outputRank := range []bool{true, false} {
			for _, rng := range [][2]int64{{1, 1}, {1, 3}, {2, 4}} {
				name := fmt.Sprintf("%s/rank=%v/%d-%d", strategy, outputRank, rng[0], rng[1])
				t.Run(name, func(t *testing.T) {
					for seed := range uint64(20) {
						oracleRun(t, seed, ts, rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{desc(1)},
							Start: rng[0], End: rng[1], OutputRank: outputRank, Strategy: strategy, RowKey: []int{2}, UpdateBefore: true})
					}
				})
			}
		}
	}
}

type oracleRow struct {
	p, v, id int64
	seq      int // arrival order of the row's current version
}

func oracleRun(t *testing.T, seed uint64, ts []types.Type, spec rank.Spec) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 7))
	p := opstest.NewPipeline(t, 2, opstest.Stage{F: rank.NewTopN(spec), Keys: spec.Partition, Types: ts})
	live := map[int64]oracleRow{} // by id
	view := map[string]int{}      // the output applied: row text → count
	r := streamtest.Row
	seq, nextID := 0, int64(0)
	for step := range 60 {
		if step == 30 {
			p.Restore(3)
		}
		var in []types.Row
		switch {
		case spec.Strategy == rank.Retract && len(live) > 0 && rnd.IntN(3) == 0:
			// Retract a row, or update it to a new value.
			ids := make([]int64, 0, len(live))
			for id := range live {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			old := live[ids[rnd.IntN(len(ids))]]
			if rnd.IntN(2) == 0 {
				in = append(in, r(types.Delete, old.p, old.v, old.id))
				delete(live, old.id)
			} else {
				nv := old
				nv.v, nv.seq = rnd.Int64N(8), seq
				seq++
				in = append(in, r(types.UpdateBefore, old.p, old.v, old.id), r(types.UpdateAfter, nv.p, nv.v, nv.id))
				live[old.id] = nv
			}
		case spec.Strategy == rank.Updatable && len(live) > 0 && rnd.IntN(2) == 0:
			// An upsert of a row whose value grows (the strategy's premise).
			ids := make([]int64, 0, len(live))
			for id := range live {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			old := live[ids[rnd.IntN(len(ids))]]
			nv := old
			nv.v += rnd.Int64N(3)
			if nv.v != old.v {
				nv.seq = seq
				seq++
			}
			in = append(in, r(types.UpdateAfter, nv.p, nv.v, nv.id))
			live[old.id] = nv
		default:
			row := oracleRow{p: rnd.Int64N(2), v: rnd.Int64N(8), id: nextID, seq: seq}
			nextID++
			seq++
			in = append(in, r(types.Insert, row.p, row.v, row.id))
			live[row.id] = row
		}
		outTypes := ts
		if spec.OutputRank {
			outTypes = append(slices.Clone(ts), types.BigInt())
		}
		for _, o := range opstest.FlinkString(p.Push(0, in), outTypes) {
			body := o[2:]
			switch o[:2] {
			case "+I", "+U":
				view[body]++
			case "-U", "-D":
				if view[body]--; view[body] < 0 {
					t.Fatalf("seed %d step %d: %s retracts a row the output does not hold", seed, step, o)
				}
				if view[body] == 0 {
					delete(view, body)
				}
			}
		}
		want := oracleTop(live, spec)
		if got := viewLines(view); !slices.Equal(got, want) {
			t.Fatalf("seed %d step %d after %v:\n got %v\nwant %v", seed, step, opstest.FlinkString(in, ts), got, want)
		}
	}
}

// oracleTop returns the ranks Start..End of each partition of live, as
// "[p, v, id(, rank)]" lines, sorted.
func oracleTop(live map[int64]oracleRow, spec rank.Spec) []string {
	parts := map[int64][]oracleRow{}
	for _, r := range live {
		parts[r.p] = append(parts[r.p], r)
	}
	var out []string
	for _, rows := range parts {
		sort.Slice(rows, func(i, j int) bool {
			if rows[i].v != rows[j].v {
				return rows[i].v > rows[j].v
			}
			return rows[i].seq < rows[j].seq
		})
		for i, r := range rows {
			rk := int64(i + 1)
			if rk < spec.Start || rk > spec.End {
				continue
			}
			if spec.OutputRank {
				out = append(out, fmt.Sprintf("[%d, %d, %d, %d]", r.p, r.v, r.id, rk))
			} else {
				out = append(out, fmt.Sprintf("[%d, %d, %d]", r.p, r.v, r.id))
			}
		}
	}
	slices.Sort(out)
	return out
}

func viewLines(view map[string]int) []string {
	var out []string
	for k, n := range view {
		for range n {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestTopNTTL: a partition not written for the TTL is forgotten, and its
// next row starts it afresh.
func TestTopNTTL(t *testing.T) {
	ts := []types.Type{types.String(), types.BigInt()}
	r := streamtest.Row
	for _, spec := range []rank.Spec{
		{Types: ts, Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 2, OutputRank: true, TTL: time.Minute},
		{Types: ts, Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 1, TTL: time.Minute},
		{Types: ts, Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 2, Strategy: rank.Retract, TTL: time.Minute},
	} {
		t.Run(spec.Function(), func(t *testing.T) {
			tk := streamtest.Open(t, rank.NewTopN(spec), streamtest.Options{Now: 1000})
			tk.Process(r(types.Insert, "a", 5))
			tk.Take()
			tk.Advance(1000 + time.Minute.Milliseconds() + 1)
			tk.Process(r(types.Insert, "a", 1))
			got := strings.Join(opstest.FlinkString(tk.Take(), append(ts, types.BigInt())[:len(ts)+boolInt(spec.OutputRank)]), " ")
			want := "+I[a, 1]"
			if spec.OutputRank {
				want = "+I[a, 1, 1]"
			}
			if got != want {
				t.Fatalf("after the TTL: %s, want %s (the expired 5 forgotten)", got, want)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTop1WithoutUpdateBefore checks the Top-1 whose consumer needs no
// UPDATE_BEFORE (it keeps only the first row's sort key) against a batch
// oracle on random inputs with ties: after each input row, the output
// applied as upserts by partition holds each partition's first row (the
// earliest of the best), and a row that does not displace it emits
// nothing. A restore at another parallelism happens half-way. Both
// backends.
func TestTop1WithoutUpdateBefore(t *testing.T) {
	for _, b := range []struct {
		name string
		kind state.Kind
	}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}} {
		t.Run(b.name, func(t *testing.T) { top1WithoutUpdateBefore(t, b.kind) })
	}
}

func top1WithoutUpdateBefore(t *testing.T, kind state.Kind) {
	ts := []types.Type{types.BigInt(), types.BigInt(), types.BigInt()}
	r := streamtest.Row
	for _, outputRank := range []bool{false, true} {
		spec := rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 1, OutputRank: outputRank}
		outTypes := ts
		if outputRank {
			outTypes = append(slices.Clone(ts), types.BigInt())
		}
		for seed := range uint64(10) {
			rnd := rand.New(rand.NewPCG(seed, 9))
			p := opstest.NewPipelineOn(t, kind, 2, opstest.Stage{F: rank.NewTopN(spec), Keys: spec.Partition, Types: ts})
			best := map[int64][2]int64{} // partition → (v, id) of its first row
			view := map[int64]string{}   // the output applied, by partition
			for step := range 80 {
				if step == 40 {
					p.Restore(3)
				}
				part, v, id := rnd.Int64N(3), rnd.Int64N(6), int64(step)
				out := opstest.FlinkString(p.Push(0, []types.Row{r(types.Insert, part, v, id)}), outTypes)
				b, ok := best[part]
				changed := !ok || v > b[0]
				if changed {
					best[part] = [2]int64{v, id}
				}
				if !changed && len(out) > 0 {
					t.Fatalf("seed %d step %d: (%d, %d, %d) does not displace the first row, emitted %v", seed, step, part, v, id, out)
				}
				for _, o := range out {
					if o[:2] == "-U" || o[:2] == "-D" {
						t.Fatalf("seed %d step %d: %s, want no retraction", seed, step, o)
					}
					if kind := o[:2]; (kind == "+I") == ok {
						t.Fatalf("seed %d step %d: %s, want %s", seed, step, o, map[bool]string{true: "+U", false: "+I"}[ok])
					}
					view[part] = o[2:]
				}
				for q, b := range best {
					want := fmt.Sprintf("[%d, %d, %d]", q, b[0], b[1])
					if outputRank {
						want = fmt.Sprintf("[%d, %d, %d, 1]", q, b[0], b[1])
					}
					if view[q] != want {
						t.Fatalf("seed %d step %d: partition %d shows %s, want %s", seed, step, q, view[q], want)
					}
				}
			}
		}
	}
}

// TestTop1RestoresWholeRows: a Top-1 that keeps only sort keys restores a
// checkpoint of one that kept whole rows (its consumer needed
// UPDATE_BEFORE, or an earlier version): each partition's first row still
// holds its place, on both backends.
func TestTop1RestoresWholeRows(t *testing.T) {
	ts := []types.Type{types.String(), types.BigInt(), types.BigInt()}
	r := streamtest.Row
	for _, b := range []struct {
		name string
		kind state.Kind
	}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}} {
		t.Run(b.name, func(t *testing.T) {
			spec := rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 1, UpdateBefore: true}
			old := streamtest.Open(t, rank.NewTopN(spec), streamtest.Options{Backend: b.kind})
			old.Process(r(types.Insert, "a", 5, 1), r(types.Insert, "b", 3, 2), r(types.Insert, "a", 2, 3))
			old.Take()
			h := old.Snapshot()
			spec.UpdateBefore = false
			tk := streamtest.Open(t, rank.NewTopN(spec), streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: old.Files()})
			step := func(in types.Row, want string) {
				t.Helper()
				tk.Process(in)
				if got := strings.Join(opstest.FlinkString(tk.Take(), ts), " "); got != want {
					t.Fatalf("after %v: %q, want %q", opstest.FlinkString([]types.Row{in}, ts), got, want)
				}
			}
			step(r(types.Insert, "a", 4, 4), "")
			step(r(types.Insert, "b", 3, 5), "")
			step(r(types.Insert, "a", 6, 6), "+U[a, 6, 6]")
			step(r(types.Insert, "c", 1, 7), "+I[c, 1, 7]")
			// Once more through a checkpoint of the new layout.
			h = tk.Snapshot()
			tk = streamtest.Open(t, rank.NewTopN(spec), streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: tk.Files()})
			step(r(types.Insert, "a", 5, 8), "")
			step(r(types.Insert, "b", 2, 9), "")
			step(r(types.Insert, "b", 4, 10), "+U[b, 4, 10]")
		})
	}
}

// TestTop1RefusesKeyOnlyState: a Top-1 that retracts (its consumer takes
// UPDATE_BEFORE) cannot restore a checkpoint of one that kept sort keys
// only, and says so at Open instead of forgetting every partition's row;
// an empty key-only table (a job that saw no row) restores.
func TestTop1RefusesKeyOnlyState(t *testing.T) {
	ts := []types.Type{types.String(), types.BigInt(), types.BigInt()}
	r := streamtest.Row
	for _, b := range []struct {
		name string
		kind state.Kind
	}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}} {
		t.Run(b.name, func(t *testing.T) {
			spec := rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 1}
			empty := streamtest.Open(t, rank.NewTopN(spec), streamtest.Options{Backend: b.kind})
			he := empty.Snapshot()
			old := streamtest.Open(t, rank.NewTopN(spec), streamtest.Options{Backend: b.kind})
			old.Process(r(types.Insert, "a", 5, 1), r(types.Insert, "b", 3, 2))
			old.Take()
			h := old.Snapshot()
			spec.UpdateBefore = true
			if _, err := streamtest.OpenErr(t, rank.NewTopN(spec), streamtest.Options{Backend: b.kind, Restore: []state.Handle{he}, Files: empty.Files()}); err != nil {
				t.Fatalf("restoring a key-only Top-1 that saw no row: %v", err)
			}
			_, err := streamtest.OpenErr(t, rank.NewTopN(spec), streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: old.Files()})
			if err == nil || !strings.Contains(err.Error(), "sort keys only") {
				t.Fatalf("restoring a key-only Top-1 into one that retracts: %v; want an error saying the checkpoint holds sort keys only", err)
			}
		})
	}
}

// TestTopNRestoresAcrossLayouts: an append-only Top-N keeps a partition in
// one value (no TTL, End small) or as a sorted map of sort keys (a TTL or a
// large End). Each restores a checkpoint of the other (a checkpoint of a
// version before the packed layout is one of the map layout), moving a
// partition to its own layout when it next writes it, and a checkpoint
// taken halfway (partitions in both layouts) restores too: after the
// restore its output equals that of a Top-N that never stopped, on both
// backends, with and without the row number.
func TestTopNRestoresAcrossLayouts(t *testing.T) {
	ts := []types.Type{types.BigInt(), types.BigInt(), types.BigInt(), types.String()}
	r := streamtest.Row
	for _, b := range []struct {
		name string
		kind state.Kind
	}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}} {
		for _, dir := range []struct {
			name     string
			from, to time.Duration // the TTL before and after: 0 packs
		}{{"map-to-packed", time.Hour, 0}, {"packed-to-map", 0, time.Hour}} {
			for _, outputRank := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/rank=%v", b.name, dir.name, outputRank), func(t *testing.T) {
					spec := func(ttl time.Duration) rank.Spec {
						return rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 3,
							OutputRank: outputRank, TTL: ttl, UpdateBefore: true}
					}
					outTypes := ts
					if outputRank {
						outTypes = append(slices.Clone(ts), types.BigInt())
					}
					rnd := rand.New(rand.NewPCG(3, 4))
					row := func(id int) types.Row {
						// Strings that recur: the heap backend's packed rows refer to them.
						return r(types.Insert, rnd.Int64N(6), rnd.Int64N(10), int64(id), []string{"Google", "Facebook"}[id%2])
					}
					ref := streamtest.Open(t, rank.NewTopN(spec(0)), streamtest.Options{Backend: b.kind})
					old := streamtest.Open(t, rank.NewTopN(spec(dir.from)), streamtest.Options{Backend: b.kind})
					for id := range 40 {
						in := row(id)
						ref.Process(in)
						old.Process(in)
					}
					ref.Take()
					old.Take()
					tk := streamtest.Open(t, rank.NewTopN(spec(dir.to)), streamtest.Options{Backend: b.kind,
						Restore: []state.Handle{old.Snapshot()}, Files: old.Files()})
					for id := 40; id < 100; id++ {
						if id == 60 {
							// Some partitions moved, some not yet.
							tk = streamtest.Open(t, rank.NewTopN(spec(dir.to)), streamtest.Options{Backend: b.kind,
								Restore: []state.Handle{tk.Snapshot()}, Files: tk.Files()})
						}
						in := row(id)
						ref.Process(in)
						tk.Process(in)
						want := strings.Join(opstest.FlinkString(ref.Take(), outTypes), " ")
						if got := strings.Join(opstest.FlinkString(tk.Take(), outTypes), " "); got != want {
							t.Fatalf("row %d %v: %q, want %q", id, opstest.FlinkString([]types.Row{in}, ts), got, want)
						}
					}
					// A partition that moved is gone from the other layout.
					opt := state.TTL(dir.to)
					rows, part := tk.State().Map("rows", opt), tk.State().Value("partition", opt)
					packed, mapped := 0, 0
					for kg := range state.DefaultMaxParallelism {
						err := part.Range(kg, func(k, _ []byte) bool {
							packed++
							return rows.RangeKey(kg, k, func(_, _ []byte) bool {
								t.Fatalf("key group %d: partition %x in both layouts", kg, k)
								return false
							}) == nil
						})
						if err != nil {
							t.Fatal(err)
						}
						if err := rows.Keys(kg, func([]byte) bool { mapped++; return true }); err != nil {
							t.Fatal(err)
						}
					}
					if (dir.to == 0 && packed == 0) || (dir.to != 0 && mapped == 0) {
						t.Fatalf("%d partitions packed, %d in the map layout at the end", packed, mapped)
					}
				})
			}
		}
	}
}

// TestTopNStringDictRestores: on the heap backend a packed Top-N keeps
// its rows' recurring strings in a dictionary in memory, and its
// checkpoints hold plain rows: restored (each time into a new dictionary)
// its output equals that of a Top-N that never stopped, with and without
// the row number, and the checkpoint's partitions are, byte for byte,
// those a Top-N on the pebble backend (which keeps plain rows) holds.
func TestTopNStringDictRestores(t *testing.T) {
	ts := []types.Type{types.BigInt(), types.BigInt(), types.String(), types.String()}
	r := streamtest.Row
	pool := []string{"Google", "Facebook", "https://www.nexmark.com/abc/def/ghi/item.htm?query=1", "x"}
	for _, outputRank := range []bool{true, false} {
		t.Run(fmt.Sprintf("rank=%v", outputRank), func(t *testing.T) {
			spec := rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{desc(1)}, Start: 1, End: 3,
				OutputRank: outputRank, UpdateBefore: true}
			outTypes := ts
			if outputRank {
				outTypes = append(slices.Clone(ts), types.BigInt())
			}
			rnd := rand.New(rand.NewPCG(5, 6))
			row := func(id int) types.Row {
				return r(types.Insert, rnd.Int64N(8), rnd.Int64N(12), pool[rnd.IntN(len(pool))],
					fmt.Sprintf("extra-%d-%s", id%50, pool[id%len(pool)]))
			}
			ref := streamtest.Open(t, rank.NewTopN(spec), streamtest.Options{Backend: heap.Kind{}})
			plain := streamtest.Open(t, rank.NewTopN(spec), streamtest.Options{Backend: lsm.Kind{}})
			tk := streamtest.Open(t, rank.NewTopN(spec), streamtest.Options{Backend: heap.Kind{}})
			for id := range 400 {
				if id > 0 && id%100 == 0 {
					tk = streamtest.Open(t, rank.NewTopN(spec), streamtest.Options{Backend: heap.Kind{},
						Restore: []state.Handle{tk.Snapshot()}, Files: tk.Files()})
				}
				in := row(id)
				ref.Process(in)
				tk.Process(in)
				plain.Process(in)
				want := strings.Join(opstest.FlinkString(ref.Take(), outTypes), " ")
				if got := strings.Join(opstest.FlinkString(tk.Take(), outTypes), " "); got != want {
					t.Fatalf("row %d %v: %q, want %q", id, opstest.FlinkString([]types.Row{in}, ts), got, want)
				}
				plain.Take()
			}
			// The checkpoint, restored into a bare heap backend (no codec).
			bare, err := heap.Open(context.Background(), state.Config{
				KeyGroups:      state.KeyGroupRange{Start: 0, End: state.DefaultMaxParallelism},
				MaxParallelism: state.DefaultMaxParallelism, Restore: []state.Handle{tk.Snapshot()}, Files: tk.Files()})
			if err != nil {
				t.Fatal(err)
			}
			defer bare.Close()
			got, want := bare.Value("partition"), plain.State().Value("partition")
			n := 0
			for kg := range state.DefaultMaxParallelism {
				err := want.Range(kg, func(k, v []byte) bool {
					n++
					g, ok, err := got.Get(kg, k)
					if err != nil || !ok || !bytes.Equal(g, v) {
						t.Fatalf("partition %x in the checkpoint: %x (%v, %v), want %x", k, g, ok, err, v)
					}
					return true
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if n == 0 {
				t.Fatal("no partitions")
			}
		})
	}
}
