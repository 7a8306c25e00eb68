package normalize_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ops/normalize"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// TestNormalize turns upserts into a full changelog: the first row of a
// key is an insert, a later one an update with its UPDATE_BEFORE, a delete
// carries the whole old row, and repeats and unknown deletes say nothing.
// The state survives a checkpoint.
func TestNormalize(t *testing.T) {
	r := streamtest.Row
	ts := []types.Type{types.BigInt(), types.String()}
	f := normalize.New(normalize.Spec{Keys: []int{0}, KeyTypes: ts[:1], Types: ts})
	tk := streamtest.Open(t, f, streamtest.Options{})
	tk.Process(r(types.Insert, 1, "a"), r(types.UpdateAfter, 1, "b"), r(types.UpdateAfter, 1, "b"),
		r(types.Delete, 2, nil), r(types.UpdateAfter, 2, "x"), r(types.Delete, 1, nil))
	want := []string{"+I[1, a]", "-U[1, a]", "+U[1, b]", "+I[2, x]", "-D[1, b]"}
	if got := streamtest.Format(tk.Take(), ts); !slices.Equal(got, want) {
		t.Fatalf("got %s, want %s", strings.Join(got, " "), strings.Join(want, " "))
	}
	h := tk.Snapshot()
	tk2 := streamtest.Open(t, f, streamtest.Options{Restore: []state.Handle{h}, Files: tk.Files()})
	tk2.Process(r(types.Delete, 2, nil))
	if got := streamtest.Format(tk2.Take(), ts); !slices.Equal(got, []string{"-D[2, x]"}) {
		t.Fatalf("after a restore: %s, want -D[2, x]", strings.Join(got, " "))
	}
}
