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
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/heap"
	"github.com/streamsql/streamsql/state/lsm"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// pvo are the columns of the updating tests: partition, value, ORDER BY
// (nullable).
var pvo = []types.Type{bigint, bigint, bigint}

// uRow is a row of the updating tests; o < 0 is a NULL ORDER BY value.
type uRow struct{ p, v, o int64 }

func (r uRow) row(kind types.RowKind) types.Row {
	var o any = r.o
	if r.o < 0 {
		o = nil
	}
	return streamtest.Row(kind, r.p, r.v, o)
}

// backends are the keyed-state kinds the operator runs on.
var backends = []struct {
	name string
	kind state.Kind
}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}}

func updatingCalls(t *testing.T) []agg.Call {
	return []agg.Call{call(t, agg.Sum, 1, bigint), call(t, agg.Count, -1, bigint), call(t, agg.Min, 1, bigint),
		call(t, agg.Max, 1, bigint), call(t, agg.Avg, 1, bigint)}
}

// TestUpdatingOracle runs the OVER aggregate over random changelogs
// (inserts, deletes and update pairs, identical rows and NULL ORDER BY
// values among them) on both backends, with a checkpoint and a restore at
// another parallelism halfway, and checks after every input row that the
// table the output changelog leaves is the OVER of the input's current
// table computed in batch: each partition's rows ordered by the ORDER BY
// value (NULL first), then by their columns, each row with the
// aggregates of its frame. It also checks that the output never retracts
// a row it does not hold.
func TestUpdatingOracle(t *testing.T) {
	frames := []over.Frame{
		{Rows: true, PrecedingRows: 0}, {Rows: true, PrecedingRows: 2}, {Rows: true, PrecedingRows: 10},
		{Rows: true, Unbounded: true}, {Unbounded: true},
	}
	for _, b := range backends {
		for _, fr := range frames {
			t.Run(b.name+"/"+fr.String(), func(t *testing.T) {
				seeds := uint64(8)
				if b.name == "rocksdb" {
					seeds = 3
				}
				for seed := range seeds {
					updatingOracle(t, b.kind, seed, fr)
				}
			})
		}
	}
}

func updatingOracle(t *testing.T, kind state.Kind, seed uint64, fr over.Frame) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 11))
	spec := over.Spec{Types: pvo, Partition: []int{0}, Time: -1, Updating: true, Order: 2, UpdateBefore: true, Frame: fr, Calls: updatingCalls(t)}
	p := opstest.NewPipelineOn(t, kind, 2, opstest.Stage{F: over.New(spec), Keys: spec.Partition, Types: pvo})
	outTypes := slices.Clone(pvo)
	for _, c := range spec.Calls {
		outTypes = append(outTypes, c.Result)
	}
	var cur []uRow
	table := map[string]int{}
	for i := range 120 {
		if i == 60 {
			p.Restore(3)
		}
		var in []types.Row
		switch k := rnd.IntN(10); {
		case len(cur) == 0 || k < 5:
			r := uRow{p: rnd.Int64N(2), v: rnd.Int64N(9) - 3, o: rnd.Int64N(6) - 1}
			cur = append(cur, r)
			in = []types.Row{r.row(types.Insert)}
		case k < 7:
			j := rnd.IntN(len(cur))
			in = []types.Row{cur[j].row(types.Delete)}
			cur = slices.Delete(cur, j, j+1)
		default:
			// An update: the same partition, another value or order.
			j := rnd.IntN(len(cur))
			r := uRow{p: cur[j].p, v: rnd.Int64N(9) - 3, o: rnd.Int64N(6) - 1}
			in = []types.Row{cur[j].row(types.UpdateBefore), r.row(types.UpdateAfter)}
			cur[j] = r
		}
		for _, r := range in {
			for _, s := range opstest.FlinkString(p.Push(0, []types.Row{r}), outTypes) {
				if err := apply(table, s); err != nil {
					t.Fatalf("seed %d, step %d: %v", seed, i, err)
				}
			}
		}
		got := tableRows(table)
		want := updatingBatch(cur, fr)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d, step %d (%v): the output's table differs from the batch OVER\n--- got\n%s\n--- want\n%s",
				seed, i, in, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// apply applies one changelog line ("+I[...]") to a table (a count per
// row).
func apply(table map[string]int, line string) error {
	row := line[2:]
	switch line[:2] {
	case "+I", "+U":
		table[row]++
	case "-U", "-D":
		if table[row] == 0 {
			return fmt.Errorf("%s retracts a row the output does not hold", line)
		}
		if table[row]--; table[row] == 0 {
			delete(table, row)
		}
	default:
		return fmt.Errorf("a line of no kind: %s", line)
	}
	return nil
}

func tableRows(table map[string]int) []string {
	var out []string
	for r, n := range table {
		for range n {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// updatingBatch computes the OVER of rows in batch, as "[...]" lines
// sorted.
func updatingBatch(rows []uRow, fr over.Frame) []string {
	sorted := slices.Clone(rows)
	slices.SortFunc(sorted, func(a, b uRow) int {
		if a.p != b.p {
			return int(a.p - b.p)
		}
		if a.o != b.o {
			return int(a.o - b.o) // NULL (-1) first
		}
		return int(a.v - b.v)
	})
	var out []string
	for i, r := range sorted {
		first := i
		for first > 0 && sorted[first-1].p == r.p {
			first--
		}
		lo, hi := first, i
		if fr.Rows && !fr.Unbounded {
			lo = max(first, i-int(fr.PrecedingRows))
		}
		if !fr.Rows {
			for hi+1 < len(sorted) && sorted[hi+1].p == r.p && sorted[hi+1].o == r.o {
				hi++
			}
		}
		sum, mn, mx := int64(0), sorted[lo].v, sorted[lo].v
		for _, f := range sorted[lo : hi+1] {
			sum += f.v
			mn, mx = min(mn, f.v), max(mx, f.v)
		}
		n := int64(hi + 1 - lo)
		o := fmt.Sprint(r.o)
		if r.o < 0 {
			o = "null"
		}
		out = append(out, fmt.Sprintf("[%d, %d, %s, %d, %d, %d, %d, %d]", r.p, r.v, o, sum, n, mn, mx, sum/n))
	}
	slices.Sort(out)
	return out
}

// TestUpdatingSteps checks the changelog of a few changes: the rows whose
// frame changed are updated, the others left alone.
func TestUpdatingSteps(t *testing.T) {
	spec := over.Spec{Types: pvo, Partition: []int{0}, Time: -1, Updating: true, Order: 2, UpdateBefore: true,
		Frame: over.Frame{Rows: true, PrecedingRows: 1}, Calls: []agg.Call{call(t, agg.Sum, 1, bigint)}}
	tk := streamtest.Open(t, over.New(spec), streamtest.Options{})
	ts := append(slices.Clone(pvo), bigint)
	step := func(want []string, rows ...uRow) {
		t.Helper()
		for _, r := range rows {
			tk.Process(r.row(types.Insert))
		}
		if got := opstest.FlinkString(tk.Take(), ts); !slices.Equal(got, want) {
			t.Fatalf("%v, want %v", got, want)
		}
	}
	step([]string{"+I[1, 10, 5, 10]", "+I[1, 20, 7, 30]", "+I[1, 40, 9, 60]"}, uRow{1, 10, 5}, uRow{1, 20, 7}, uRow{1, 40, 9})
	// Between 5 and 7: the row of 7 sees it, the row of 9 does not.
	step([]string{"+I[1, 1, 6, 11]", "-U[1, 20, 7, 30]", "+U[1, 20, 7, 21]"}, uRow{1, 1, 6})
	tk.Process(uRow{1, 10, 5}.row(types.Delete))
	want := []string{"-D[1, 10, 5, 10]", "-U[1, 1, 6, 11]", "+U[1, 1, 6, 1]"}
	if got := opstest.FlinkString(tk.Take(), ts); !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
	// A retraction of a row never seen changes nothing.
	tk.Process(uRow{1, 99, 5}.row(types.Delete))
	if got := tk.Take(); len(got) != 0 {
		t.Fatalf("a retraction of an unknown row emitted %v", got)
	}
}

// TestUpdatingTTL: a row not written for the TTL leaves the state (and so
// the frames of later rows), and its retraction is then ignored.
func TestUpdatingTTL(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			spec := over.Spec{Types: pvo, Partition: []int{0}, Time: -1, Updating: true, Order: 2, UpdateBefore: true, TTL: 10 * time.Millisecond,
				Frame: over.Frame{Rows: true, Unbounded: true}, Calls: []agg.Call{call(t, agg.Sum, 1, bigint)}}
			tk := streamtest.Open(t, over.New(spec), streamtest.Options{Now: 1000, Backend: b.kind})
			ts := append(slices.Clone(pvo), bigint)
			tk.Process(uRow{1, 10, 5}.row(types.Insert))
			tk.Advance(1005)
			tk.Process(uRow{1, 20, 6}.row(types.Insert))
			tk.Advance(1012) // the first row expired, the second not
			tk.Process(uRow{1, 40, 7}.row(types.Insert), uRow{1, 10, 5}.row(types.Delete))
			got := opstest.FlinkString(tk.Take(), ts)
			want := []string{"+I[1, 10, 5, 10]", "+I[1, 20, 6, 30]", "+I[1, 40, 7, 60]"}
			if !slices.Equal(got, want) {
				t.Fatalf("%v, want %v", got, want)
			}
		})
	}
}

// TestUpdatingWithoutUpdateBefore: for a consumer that asks for no
// UPDATE_BEFORE rows, a row whose results changed is emitted as +U only.
func TestUpdatingWithoutUpdateBefore(t *testing.T) {
	spec := over.Spec{Types: pvo, Partition: []int{0}, Time: -1, Updating: true, Order: 2,
		Frame: over.Frame{Rows: true, PrecedingRows: 1}, Calls: []agg.Call{call(t, agg.Sum, 1, bigint)}}
	tk := streamtest.Open(t, over.New(spec), streamtest.Options{})
	tk.Process(uRow{1, 10, 5}.row(types.Insert), uRow{1, 20, 7}.row(types.Insert), uRow{1, 1, 6}.row(types.Insert),
		uRow{1, 10, 5}.row(types.Delete))
	got := opstest.FlinkString(tk.Take(), append(slices.Clone(pvo), bigint))
	want := []string{"+I[1, 10, 5, 10]", "+I[1, 20, 7, 30]", "+I[1, 1, 6, 11]", "+U[1, 20, 7, 21]", "-D[1, 10, 5, 10]", "+U[1, 1, 6, 1]"}
	if !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}
