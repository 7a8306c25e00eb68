package rank_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
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

func at(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }

var kvt = []types.Type{types.String(), types.BigInt(), types.TimestampType(3)}

func expectRows(t *testing.T, got []types.Row, ts []types.Type, want ...string) {
	t.Helper()
	g := opstest.FlinkString(got, ts)
	if !slices.Equal(g, want) {
		t.Fatalf("output:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestDeduplicateFirstRowtime: the earliest row of a partition waits for
// the watermark (also across a restore), an earlier one replaces it until
// then, one behind the watermark is late (dropped and counted), and once
// the row is emitted the partition emits nothing more.
func TestDeduplicateFirstRowtime(t *testing.T) {
	r := streamtest.Row
	spec := rank.DedupSpec{Types: kvt, Partition: []int{0}, Time: 2}
	tk := streamtest.Open(t, rank.NewDeduplicate(spec), streamtest.Options{})
	tk.Process(r(types.Insert, "a", 1, at(5000)), r(types.Insert, "a", 2, at(3000)), r(types.Insert, "a", 3, at(4000)),
		r(types.Insert, "b", 4, at(9000)))
	expectRows(t, tk.Take(), kvt)
	h := tk.Snapshot()
	tk = streamtest.Open(t, rank.NewDeduplicate(spec), streamtest.Options{Restore: []state.Handle{h}, Files: tk.Files()})
	tk.Watermark(3500)
	expectRows(t, tk.Take(), kvt, "+I[a, 2, 1970-01-01 00:00:03.000]")
	tk.Process(r(types.Insert, "a", 5, at(3600)), r(types.Insert, "b", 6, at(3000)))
	expectRows(t, tk.Take(), kvt)
	if n := tk.Metrics().LateRows.Load(); n != 1 {
		t.Fatalf("late rows: %d, want 1 (b at 3 s behind the watermark)", n)
	}
	tk.EndInput()
	expectRows(t, tk.Take(), kvt, "+I[b, 4, 1970-01-01 00:00:09.000]")
}

// TestDeduplicateLastProctime: each row replaces the partition's row; the
// same row again emits nothing, unless a TTL is set (Flink emits it then,
// to keep downstream state alive).
func TestDeduplicateLastProctime(t *testing.T) {
	r := streamtest.Row
	for _, ttl := range []time.Duration{0, time.Hour} {
		spec := rank.DedupSpec{Types: kvt, Partition: []int{0}, Time: -1, KeepLast: true, UpdateBefore: true, TTL: ttl}
		tk := streamtest.Open(t, rank.NewDeduplicate(spec), streamtest.Options{})
		tk.Process(r(types.Insert, "a", 1, nil), r(types.Insert, "a", 1, nil), r(types.Insert, "a", 2, nil))
		want := []string{"+I[a, 1, null]", "-U[a, 1, null]", "+U[a, 2, null]"}
		if ttl > 0 {
			want = []string{"+I[a, 1, null]", "-U[a, 1, null]", "+U[a, 1, null]", "-U[a, 1, null]", "+U[a, 2, null]"}
		}
		expectRows(t, tk.Take(), kvt, want...)
	}
}

// TestDeduplicateLastRowtimeTimeOnly: keeping the last row on event time
// for a consumer that needs no UPDATE_BEFORE keeps only each partition's
// time, and emits what the whole-row layout emits less its UPDATE_BEFOREs
// (random rows, some earlier than the kept one, some NULL times); a
// checkpoint of the whole-row layout (before the time-only one, or of a
// consumer that needed UPDATE_BEFORE) restores into it, and the reverse is
// refused.
func TestDeduplicateLastRowtimeTimeOnly(t *testing.T) {
	for _, b := range []struct {
		name string
		kind state.Kind
	}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}} {
		t.Run(b.name, func(t *testing.T) { testDedupTimeOnly(t, b.kind) })
	}
}

func testDedupTimeOnly(t *testing.T, kind state.Kind) {
	r := streamtest.Row
	whole := rank.DedupSpec{Types: kvt, Partition: []int{0}, Time: 2, KeepLast: true, UpdateBefore: true}
	timeOnly := whole
	timeOnly.UpdateBefore = false
	rnd := rand.New(rand.NewPCG(3, 4))
	var rows []types.Row
	for i := range 2000 {
		var ts any = at(rnd.Int64N(1000))
		if rnd.IntN(50) == 0 {
			ts = nil
		}
		rows = append(rows, r(types.Insert, strconv.Itoa(rnd.IntN(100)), i, ts))
	}
	noUB := func(out []types.Row) []types.Row {
		return slices.DeleteFunc(out, func(row types.Row) bool { return row.Kind == types.UpdateBefore })
	}
	ref := streamtest.Open(t, rank.NewDeduplicate(whole), streamtest.Options{Backend: kind})
	ref.Process(rows[:1000]...)
	want := noUB(ref.Take())
	tk := streamtest.Open(t, rank.NewDeduplicate(timeOnly), streamtest.Options{Backend: kind})
	tk.Process(rows[:1000]...)
	expectRows(t, tk.Take(), kvt, opstest.FlinkString(want, kvt)...)
	// A checkpoint of the whole rows, restored into the time-only layout.
	h := ref.Snapshot()
	ref.Process(rows[1000:]...)
	want = noUB(ref.Take())
	tk = streamtest.Open(t, rank.NewDeduplicate(timeOnly), streamtest.Options{Restore: []state.Handle{h}, Files: ref.Files(), Backend: kind})
	tk.Process(rows[1000:]...)
	expectRows(t, tk.Take(), kvt, opstest.FlinkString(want, kvt)...)
	// A checkpoint of the times, restored where whole rows are needed.
	h = tk.Snapshot()
	_, err := streamtest.OpenErr(t, rank.NewDeduplicate(whole), streamtest.Options{Restore: []state.Handle{h}, Files: tk.Files(), Backend: kind})
	if err == nil || !strings.Contains(err.Error(), "times only") {
		t.Fatalf("restoring the times where whole rows are needed: %v, want a refusal", err)
	}
}
