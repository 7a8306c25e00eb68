package join_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/heap"
	"github.com/streamsql/streamsql/state/lsm"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

var backends = []struct {
	name string
	kind state.Kind
}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}}

// oldRows writes, at Open, rows of a (k BIGINT, v STRING) side into table
// "left" as a regular join of an older version kept them: under the key
// encoding of k, each distinct row's key encoding as the sub-key, its
// count and number of matches as the value.
type oldRows struct {
	stream.Base
	rows   [][]types.Value
	counts []uint64
}

func (o *oldRows) Open(ctx *stream.Context) error {
	t := ctx.State.Map("left")
	for i, row := range o.rows {
		key := state.AppendKey(nil, row, []int{0}, []types.Type{bigint})
		sub := state.AppendKey(nil, row, []int{0, 1}, kvTypes)
		val := binary.AppendUvarint(binary.AppendUvarint(nil, o.counts[i]), 0)
		if err := t.Put(state.KeyGroupOf(key, ctx.Task.MaxParallelism), key, sub, val); err != nil {
			return err
		}
	}
	return nil
}

func (o *oldRows) Process(int, []types.Row, *stream.Output) error { return nil }

// TestRowsOfAnOlderCheckpoint: rows an older version kept in the key
// encoding are converted when the join opens from its checkpoint: they
// match, keep their counts (a retraction takes one copy back), and are
// converted once (a later checkpoint restores them as they are then).
func TestRowsOfAnOlderCheckpoint(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			old := &oldRows{rows: [][]types.Value{
				{types.Int64(1), types.Str("a")}, {types.Int64(1), types.Str("b")}, {types.Int64(2), {}},
			}, counts: []uint64{2, 1, 1}}
			w := streamtest.Open(t, func(stream.TaskInfo) (stream.Operator, error) { return old, nil },
				streamtest.Options{Backend: b.kind})
			h := w.Snapshot()

			f := join.New(kv(join.Inner))
			tk := streamtest.Open(t, f, streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: w.Files()})
			tk.ProcessInput(1, r(ins, 1, "x"), r(ins, 2, "y"))
			expect(t, tk.Take(), kvkv, "+I[1, a, 1, x]", "+I[1, a, 1, x]", "+I[1, b, 1, x]", "+I[2, null, 2, y]")
			tk.ProcessInput(0, r(del, 1, "a"))
			expect(t, tk.Take(), kvkv, "-D[1, a, 1, x]")

			h = tk.Snapshot()
			tk = streamtest.Open(t, f, streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: tk.Files()})
			tk.ProcessInput(1, r(ins, 1, "z"))
			expect(t, tk.Take(), kvkv, "+I[1, a, 1, z]", "+I[1, b, 1, z]")
		})
	}
}

// TestRowsOfAnOlderCheckpointIntoLists: a side that now keeps its rows as
// lists (an insert-only input) restores a checkpoint that kept a count per
// distinct row, in the key encoding (oldRows) or in the compact format (a
// join of the version before lists: the same spec without InsertOnly):
// each row is appended as many times as it was counted, and is converted
// once (a later checkpoint restores the lists as they are).
func TestRowsOfAnOlderCheckpointIntoLists(t *testing.T) {
	listed := kv(join.Inner)
	listed.Left.InsertOnly, listed.Right.InsertOnly = true, true
	for _, b := range backends {
		t.Run(b.name+"/key-encoded", func(t *testing.T) {
			old := &oldRows{rows: [][]types.Value{
				{types.Int64(1), types.Str("a")}, {types.Int64(1), types.Str("b")}, {types.Int64(2), {}},
			}, counts: []uint64{2, 1, 1}}
			w := streamtest.Open(t, func(stream.TaskInfo) (stream.Operator, error) { return old, nil },
				streamtest.Options{Backend: b.kind})
			h := w.Snapshot()
			f := join.New(listed)
			tk := streamtest.Open(t, f, streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: w.Files()})
			tk.ProcessInput(1, r(ins, 1, "x"), r(ins, 2, "y"))
			expect(t, tk.Take(), kvkv, "+I[1, a, 1, x]", "+I[1, a, 1, x]", "+I[1, b, 1, x]", "+I[2, null, 2, y]")
			h = tk.Snapshot()
			tk = streamtest.Open(t, f, streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: tk.Files()})
			tk.ProcessInput(0, r(ins, 2, "c"))
			expect(t, tk.Take(), kvkv, "+I[2, c, 2, y]")
			tk.ProcessInput(1, r(ins, 1, "z"))
			expect(t, tk.Take(), kvkv, "+I[1, a, 1, z]", "+I[1, a, 1, z]", "+I[1, b, 1, z]")
		})
		t.Run(b.name+"/compact", func(t *testing.T) {
			w := streamtest.Open(t, join.New(kv(join.Inner)), streamtest.Options{Backend: b.kind})
			w.ProcessInput(0, r(ins, 1, "a"), r(ins, 1, "a"), r(ins, 1, "b"))
			w.ProcessInput(1, r(ins, 2, "y"), r(ins, 2, "y"))
			w.Take()
			h := w.Snapshot()
			f := join.New(listed)
			tk := streamtest.Open(t, f, streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: w.Files()})
			tk.ProcessInput(1, r(ins, 1, "x"))
			expect(t, tk.Take(), kvkv, "+I[1, a, 1, x]", "+I[1, a, 1, x]", "+I[1, b, 1, x]")
			tk.ProcessInput(0, r(ins, 2, "c"))
			expect(t, tk.Take(), kvkv, "+I[2, c, 2, y]", "+I[2, c, 2, y]")
			h = tk.Snapshot()
			tk = streamtest.Open(t, f, streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: tk.Files()})
			tk.ProcessInput(0, r(ins, 2, "d"))
			expect(t, tk.Take(), kvkv, "+I[2, d, 2, y]", "+I[2, d, 2, y]")
			// An insert-only side that is sent a retraction fails the job.
			if err := tk.ProcessErr(r(del, 2, "d")); err == nil {
				t.Error("a retraction of an insert-only input was taken")
			}
		})
	}
}

// TestRowsOfEqualFloats: a side with a DOUBLE column keeps its rows in the
// key encoding, where -0.0 and 0.0 are one value (SQL's equality): the
// retraction of (1, 0.0) takes back the row (1, -0.0).
func TestRowsOfEqualFloats(t *testing.T) {
	double := types.Double()
	sp := kv(join.Inner)
	sp.Left.Types = []types.Type{bigint, double}
	tk := streamtest.Open(t, join.New(sp), streamtest.Options{})
	tk.ProcessInput(0, r(ins, 1, math.Copysign(0, -1)))
	tk.ProcessInput(0, r(del, 1, 0.0))
	tk.ProcessInput(1, r(ins, 1, "x"))
	expect(t, tk.Take(), []types.Type{bigint, double, bigint, str})
}

// TestRecentRowsAreTheirBytes: a probe reuses the values it decoded for a
// held row only while the row is the same: another row of the key, the
// same columns under another key of the same slot, and a side's row
// replaced under its unique key are decoded anew.
func TestRecentRowsAreTheirBytes(t *testing.T) {
	// Two keys that share a slot of the recent rows (256, by the upper
	// half of the key's hash).
	slotOf := func(k int64) uint64 {
		key := state.AppendKey(nil, []types.Value{types.Int64(k)}, []int{0}, []types.Type{bigint})
		return (state.Hash(key) >> 32) % 256
	}
	other := int64(2)
	for slotOf(other) != slotOf(1) {
		other++
	}
	tk := streamtest.Open(t, join.New(kv(join.Inner)), streamtest.Options{})
	tk.ProcessInput(0, r(ins, 1, "a"), r(ins, other, "a"))
	// (1, a) and (other, a) have the same bytes under their keys.
	tk.ProcessInput(1, r(ins, 1, "x"), r(ins, other, "z"), r(ins, 1, "w"))
	expect(t, tk.Take(), kvkv, "+I[1, a, 1, x]", fmt.Sprintf("+I[%d, a, %d, z]", other, other), "+I[1, a, 1, w]")
	tk.ProcessInput(0, r(del, 1, "a"), r(ins, 1, "b"))
	tk.Take()
	tk.ProcessInput(1, r(ins, 1, "y"))
	expect(t, tk.Take(), kvkv, "+I[1, b, 1, y]")

	sp := kv(join.Inner)
	sp.Right.UniqueKey = []int{0}
	tk = streamtest.Open(t, join.New(sp), streamtest.Options{})
	tk.ProcessInput(1, r(ins, 1, "x"))
	tk.ProcessInput(0, r(ins, 1, "a"))
	expect(t, tk.Take(), kvkv, "+I[1, a, 1, x]")
	tk.ProcessInput(1, r(ua, 1, "y"))
	expect(t, tk.Take(), kvkv, "+U[1, a, 1, y]")
	tk.ProcessInput(0, r(ins, 1, "b"))
	expect(t, tk.Take(), kvkv, "+I[1, b, 1, y]")
}
