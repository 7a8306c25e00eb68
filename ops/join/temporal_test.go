package join_test

import (
	"testing"

	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// Orders (k, t) joined with rates (k, rate, t) as of the order's time.
var (
	rateTypes  = []types.Type{bigint, bigint, ts3}
	orderRates = []types.Type{bigint, ts3, bigint, bigint, ts3}
)

func temporalSpec(typ join.Type) join.TemporalSpec {
	return join.TemporalSpec{Type: typ, KeyTypes: []types.Type{bigint},
		Left: join.Side{Types: ktTypes, Keys: []int{0}}, Right: join.Side{Types: rateTypes, Keys: []int{0}},
		LeftTime: 1, RightTime: 2}
}

// TestTemporalJoinVersions: each left row gets the version valid at its
// time (none before the first, none after a delete), once the watermark
// reached its time, in arrival order; UPDATE_BEFORE versions are dropped.
func TestTemporalJoinVersions(t *testing.T) {
	tk := streamtest.Open(t, join.NewTemporal(temporalSpec(join.Left)), streamtest.Options{})
	tk.ProcessInput(1, r(ins, 1, 10, at(1_000)), r(ub, 1, 10, at(1_000)), r(ua, 1, 20, at(5_000)), r(del, 1, nil, at(8_000)))
	tk.ProcessInput(0, r(ins, 1, at(9_000)), r(ins, 1, at(500)), r(ins, 1, at(4_999)), r(ins, 1, at(1_000)), r(ins, 1, at(5_000)), r(ins, 2, at(2_000)))
	tk.Watermark(4_999)
	expect(t, tk.Take(), orderRates,
		"+I[1, 1970-01-01 00:00:00.500, null, null, null]",
		"+I[1, 1970-01-01 00:00:04.999, 1, 10, 1970-01-01 00:00:01.000]",
		"+I[1, 1970-01-01 00:00:01.000, 1, 10, 1970-01-01 00:00:01.000]",
		"+I[2, 1970-01-01 00:00:02.000, null, null, null]")
	tk.Watermark(10_000)
	expect(t, tk.Take(), orderRates,
		"+I[1, 1970-01-01 00:00:09.000, null, null, null]",
		"+I[1, 1970-01-01 00:00:05.000, 1, 20, 1970-01-01 00:00:05.000]")
	// Only the version valid at the watermark is left (the delete).
	if n := tk.State().Stats().Entries; n != 1 {
		t.Fatalf("%d state entries, want the one version valid at the watermark", n)
	}
}

// TestTemporalJoinInnerAndCondition: an inner join drops the left rows
// without a version, or whose version fails the condition; left kinds
// pass through.
func TestTemporalJoinInnerAndCondition(t *testing.T) {
	spec := temporalSpec(join.Inner)
	spec.NewCondition = func() join.Condition {
		return func(row []types.Value) (bool, error) { return row[3].Int64() > 15, nil }
	}
	tk := streamtest.Open(t, join.NewTemporal(spec), streamtest.Options{})
	tk.ProcessInput(1, r(ins, 1, 10, at(1_000)), r(ins, 1, 20, at(2_000)))
	tk.ProcessInput(0, r(ins, 1, at(1_500)), r(ins, 1, at(2_500)), r(del, 1, at(2_600)), r(ins, 3, at(2_000)))
	tk.Watermark(3_000)
	expect(t, tk.Take(), orderRates,
		"+I[1, 1970-01-01 00:00:02.500, 1, 20, 1970-01-01 00:00:02.000]",
		"-D[1, 1970-01-01 00:00:02.600, 1, 20, 1970-01-01 00:00:02.000]")
}

// TestTemporalJoinRestores: waiting left rows and versions survive a
// checkpoint restored into two tasks.
func TestTemporalJoinRestores(t *testing.T) {
	f := join.NewTemporal(temporalSpec(join.Inner))
	one := streamtest.Open(t, f, streamtest.Options{})
	keys := []int{1, 2, 3, 4, 5, 6}
	for _, k := range keys {
		one.ProcessInput(1, r(ins, k, 10*k, at(1_000)))
		one.ProcessInput(0, r(ins, k, at(2_000)))
	}
	h := one.Snapshot()
	total := 0
	for i := range 2 {
		tk := streamtest.Open(t, f, streamtest.Options{Index: i, Parallelism: 2, Restore: []state.Handle{h}, Files: one.Files()})
		tk.Watermark(2_000)
		rows := tk.Take()
		for _, row := range rows {
			k := row.Fields[0].Int64()
			kg := state.KeyGroupOf(state.AppendKey(nil, []types.Value{types.Int64(k)}, []int{0}, []types.Type{bigint}), state.DefaultMaxParallelism)
			if state.TaskOf(kg, 2, state.DefaultMaxParallelism) != i || row.Fields[3].Int64() != 10*k {
				t.Fatalf("task %d emitted %v", i, streamtest.Format([]types.Row{row}, orderRates))
			}
		}
		total += len(rows)
	}
	if total != len(keys) {
		t.Fatalf("%d rows after the restore, want %d", total, len(keys))
	}
}
