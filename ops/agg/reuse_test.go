package agg_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// TestGroupAggregateReuse: a GROUP BY, row by row and folding mini-batches,
// says that it keeps nothing of its input past a call
// (stream.InputForgetter) and reuses its output rows when told that
// nothing after it keeps one (stream.OutputReuser). One whose input rows
// are overwritten after each call and whose output is released emits what
// a plain one does, call after call, cutting each call's rows from the
// first call's slab; the plain one never overwrites a row it emitted.
func TestGroupAggregateReuse(t *testing.T) {
	ts := []types.Type{types.BigInt(), types.String(), types.BigInt()}
	out := []types.Type{types.BigInt(), types.String(), types.BigInt(), types.BigInt().NotNullable()}
	for _, miniBatch := range []int{0, 16} {
		t.Run("minibatch="+strconv.Itoa(miniBatch), func(t *testing.T) {
			f := agg.NewGroupAggregate(agg.Spec{Keys: []int{0, 1}, KeyTypes: ts[:2], MiniBatch: miniBatch, UpdateBefore: true,
				Calls: []agg.Call{
					{Func: agg.Max, Arg: 2, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt()},
					{Func: agg.Count, Arg: -1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt().NotNullable()},
				}})
			var op stream.Operator
			capture := func(info stream.TaskInfo) (stream.Operator, error) {
				o, err := f(info)
				op = o
				return o, err
			}
			plain := streamtest.Open(t, f, streamtest.Options{})
			reusing := streamtest.Open(t, capture, streamtest.Options{})
			if fi, ok := op.(stream.InputForgetter); !ok || !fi.ForgetsInput() {
				t.Fatal("the operator does not say that it forgets its input")
			}
			release := op.(stream.OutputReuser).ReuseOutput()
			if release == nil {
				t.Fatal("ReuseOutput returned no release")
			}
			rnd := rand.New(rand.NewPCG(7, 8))
			var plainRows []types.Row
			var plainAt []string // plain's rows formatted when emitted
			var first *types.Value
			for call := range 40 {
				batch := make([]types.Row, 50)
				for i := range batch {
					batch[i] = streamtest.Row(types.Insert, int64(rnd.IntN(10)), strings.Repeat("k", rnd.IntN(3)),
						int64(call*100+rnd.IntN(1000)))
				}
				input := make([]types.Row, len(batch))
				for i, r := range batch {
					input[i] = types.Row{Kind: r.Kind, Fields: slices.Clone(r.Fields)}
				}
				plain.Process(batch...)
				reusing.Process(input...)
				for _, r := range input {
					for i := range r.Fields {
						r.Fields[i] = types.Int64(-1)
					}
				}
				p, r := plain.Take(), reusing.Take()
				pf, rf := streamtest.Format(p, out), streamtest.Format(r, out)
				if !slices.Equal(pf, rf) {
					t.Fatalf("call %d: the reusing operator emitted\n%v\nwant\n%v", call, rf, pf)
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
			if got := streamtest.Format(plainRows, out); !slices.Equal(got, plainAt) {
				t.Fatal("the operator not told to reuse its rows overwrote rows it had emitted")
			}
		})
	}
}
