package rank_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// TestOutputRowsReused: a Top-N (rows pushed down a rank, the rank in the
// output) and a keep-last deduplication (UPDATE_BEFORE of the kept row)
// told that nothing after them keeps a row (stream.OutputReuser) emit the
// same rows as ones that were not, call after call, and cut each call's
// rows from the slabs of the first call once released; the ones not told
// so never overwrite a row they emitted (all their rows, formatted at the
// end, are what they were when emitted).
func TestOutputRowsReused(t *testing.T) {
	ts := []types.Type{types.BigInt(), types.BigInt(), types.BigInt(), types.String()}
	for _, c := range []struct {
		name string
		f    stream.Factory
		out  []types.Type
	}{
		{"top-n", rank.NewTopN(rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{{Col: 2, Desc: true, NullsLast: true}},
			Start: 1, End: 5, OutputRank: true}), append(slices.Clone(ts), types.BigInt())},
		{"dedup", rank.NewDeduplicate(rank.DedupSpec{Types: ts, Partition: []int{0, 1}, Time: -1, KeepLast: true, UpdateBefore: true}), ts},
	} {
		t.Run(c.name, func(t *testing.T) {
			var op stream.Operator
			capture := func(info stream.TaskInfo) (stream.Operator, error) {
				o, err := c.f(info)
				op = o
				return o, err
			}
			plain := streamtest.Open(t, c.f, streamtest.Options{})
			reusing := streamtest.Open(t, capture, streamtest.Options{})
			release := op.(stream.OutputReuser).ReuseOutput()
			if release == nil {
				t.Fatal("ReuseOutput returned no release")
			}
			rnd := rand.New(rand.NewPCG(3, 4))
			var plainRows []types.Row
			var plainAt []string // plain's rows formatted when emitted
			var first *types.Value
			for call := range 40 {
				batch := make([]types.Row, 50)
				for i := range batch {
					batch[i] = streamtest.Row(types.Insert, int64(rnd.IntN(20)), int64(rnd.IntN(3)), int64(call*100+rnd.IntN(1000)),
						strings.Repeat("s", rnd.IntN(30))+strconv.Itoa(call))
				}
				plain.Process(batch...)
				reusing.Process(batch...)
				p, r := plain.Take(), reusing.Take()
				pf, rf := streamtest.Format(p, c.out), streamtest.Format(r, c.out)
				if !slices.Equal(pf, rf) {
					t.Fatalf("call %d: reusing operator emitted\n%v\nwant\n%v", call, rf, pf)
				}
				if len(r) == 0 {
					t.Fatalf("call %d: no rows", call)
				}
				if at := &r[0].Fields[:1][0]; first == nil {
					first = at
				} else if at != first {
					t.Fatalf("call %d: the first row's fields were not cut from the first call's slab", call)
				}
				release()
				plainRows = append(plainRows, p...)
				plainAt = append(plainAt, pf...)
			}
			if got := streamtest.Format(plainRows, c.out); !slices.Equal(got, plainAt) {
				t.Fatal("the operator not told to reuse its rows overwrote rows it had emitted")
			}
		})
	}
}

// TestForgetsInput: a Top-N (general and first-row paths) and a
// deduplication say that they keep nothing of their input past a call
// (stream.InputForgetter), and do not: an operator whose input rows are
// overwritten after each call emits what one whose input stays does,
// call after call, and the rows it emitted stay as they were.
func TestForgetsInput(t *testing.T) {
	ts := []types.Type{types.BigInt(), types.BigInt(), types.BigInt(), types.String()}
	for _, c := range []struct {
		name string
		f    stream.Factory
		out  []types.Type
	}{
		{"top-n", rank.NewTopN(rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{{Col: 2, Desc: true, NullsLast: true}},
			Start: 1, End: 5, OutputRank: true}), append(slices.Clone(ts), types.BigInt())},
		{"top-1", rank.NewTopN(rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{{Col: 2, Desc: true, NullsLast: true}},
			Start: 1, End: 1}), ts},
		{"dedup", rank.NewDeduplicate(rank.DedupSpec{Types: ts, Partition: []int{0, 1}, Time: -1, KeepLast: true, UpdateBefore: true}), ts},
	} {
		t.Run(c.name, func(t *testing.T) {
			var op stream.Operator
			capture := func(info stream.TaskInfo) (stream.Operator, error) {
				o, err := c.f(info)
				op = o
				return o, err
			}
			plain := streamtest.Open(t, c.f, streamtest.Options{})
			scribbled := streamtest.Open(t, capture, streamtest.Options{})
			if f, ok := op.(stream.InputForgetter); !ok || !f.ForgetsInput() {
				t.Fatal("the operator does not say that it forgets its input")
			}
			rnd := rand.New(rand.NewPCG(5, 6))
			var rows []types.Row
			var at []string // the scribbled one's rows formatted when emitted
			for call := range 40 {
				batch := make([]types.Row, 50)
				for i := range batch {
					batch[i] = streamtest.Row(types.Insert, int64(rnd.IntN(20)), int64(rnd.IntN(3)), int64(call*100+rnd.IntN(1000)),
						strings.Repeat("s", rnd.IntN(30))+strconv.Itoa(call))
				}
				input := make([]types.Row, len(batch))
				for i, r := range batch {
					input[i] = types.Row{Kind: r.Kind, Fields: slices.Clone(r.Fields)}
				}
				plain.Process(batch...)
				scribbled.Process(input...)
				for _, r := range input {
					for i := range r.Fields {
						r.Fields[i] = types.Int64(-1)
					}
				}
				p, s := plain.Take(), scribbled.Take()
				pf, sf := streamtest.Format(p, c.out), streamtest.Format(s, c.out)
				if !slices.Equal(pf, sf) {
					t.Fatalf("call %d: the operator whose input was overwritten emitted\n%v\nwant\n%v", call, sf, pf)
				}
				rows = append(rows, s...)
				at = append(at, sf...)
			}
			if got := streamtest.Format(rows, c.out); !slices.Equal(got, at) {
				t.Fatal("rows the operator emitted changed when its input was overwritten")
			}
		})
	}
}
