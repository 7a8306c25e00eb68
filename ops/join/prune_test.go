package join_test

import (
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/heap"
	"github.com/streamsql/streamsql/state/lsm"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// prunedSpec is Nexmark q7's shape: (k, t) bids joined with (k, end)
// window results on k AND l.t BETWEEN r.end - 10 s AND r.end, the left
// rows pruned by the watermark (a row at t matches no window ending
// after t + 10 s).
func prunedSpec() join.Spec {
	ts := []types.Type{bigint, types.TimestampType(3)}
	spec := join.Spec{Type: join.Inner, KeyTypes: []types.Type{bigint},
		Left:  join.Side{Types: ts, Keys: []int{0}},
		Right: join.Side{Types: ts, Keys: []int{0}},
		Prune: &join.Prune{Time: 1, Bound: 10 * time.Second, MinRows: 1}}
	spec.NewCondition = func() join.Condition {
		return func(row []types.Value) (bool, error) {
			if row[1].IsNull() || row[3].IsNull() {
				return false, nil
			}
			l, e := row[1].Timestamp().Millis, row[3].Timestamp().Millis
			return l >= e-10_000 && l <= e, nil
		}
	}
	return spec
}

// TestPrunedJoinDropsRowsNoWindowMatches: the left rows that can match no
// window still to come leave the state as the watermark passes their time
// plus the bound (and a NULL time or a row that late never enters it); a
// row that can still match is kept and matches, on both backends.
func TestPrunedJoinDropsRowsNoWindowMatches(t *testing.T) {
	for _, b := range []struct {
		name       string
		kind       state.Kind
		insertOnly bool
	}{{"hashmap", heap.Kind{}, false}, {"rocksdb", lsm.Kind{}, false}, {"hashmap/lists", heap.Kind{}, true}, {"rocksdb/lists", lsm.Kind{}, true}} {
		t.Run(b.name, func(t *testing.T) {
			ts := []types.Type{bigint, types.TimestampType(3), bigint, types.TimestampType(3)}
			spec := prunedSpec()
			// Insert-only inputs: the rows are kept as lists (view.list).
			spec.Left.InsertOnly, spec.Right.InsertOnly = b.insertOnly, b.insertOnly
			tk := streamtest.Open(t, join.New(spec), streamtest.Options{Backend: b.kind})
			entries := func(want int64) {
				t.Helper()
				if n := tk.State().Stats().Entries; n != want {
					t.Fatalf("%d state entries, want %d", n, want)
				}
			}
			tk.ProcessInput(0, r(ins, 1, at(5_000)), r(ins, 1, at(15_000)), r(ins, 2, at(20_000)), r(ins, 3, nil))
			entries(3) // the NULL time matches nothing
			// Before the first right row nothing goes: the right input may
			// have been idle (an empty table) and fire old windows later.
			tk.Watermark(15_000)
			entries(3)
			tk.ProcessInput(1, r(ins, 2, at(14_000)))
			expect(t, tk.Take(), ts)
			tk.Watermark(15_001)
			entries(3) // 5 s + 10 s <= 15 s: no window still to come ends by 15 s
			tk.ProcessInput(1, r(ins, 1, at(16_000)))
			expect(t, tk.Take(), ts, "+I[1, 1970-01-01 00:00:15.000, 1, 1970-01-01 00:00:16.000]")
			// A left row too late to keep is matched with the right rows
			// held, not kept.
			tk.ProcessInput(0, r(ins, 1, at(5_500)), r(ins, 2, at(4_000)))
			expect(t, tk.Take(), ts, "+I[2, 1970-01-01 00:00:04.000, 2, 1970-01-01 00:00:14.000]")
			entries(5)
			tk.ProcessInput(1, r(ins, 1, at(25_000)))
			expect(t, tk.Take(), ts, "+I[1, 1970-01-01 00:00:15.000, 1, 1970-01-01 00:00:25.000]")
			tk.ProcessInput(0, r(ins, 4, at(30_000)), r(ins, 4, at(31_000)))
			tk.Watermark(26_000)
			entries(3 + 3) // (2, 20 s) and key 4's two rows; the right rows
			tk.ProcessInput(1, r(ins, 2, at(29_000)), r(ins, 1, at(29_000)))
			expect(t, tk.Take(), ts, "+I[2, 1970-01-01 00:00:20.000, 2, 1970-01-01 00:00:29.000]")
		})
	}
}
