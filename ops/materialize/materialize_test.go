package materialize_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ops/materialize"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// TestMaterialize: rows keyed by the sink key (column 0) from a changelog
// keyed otherwise. The sink ends as the changelog says: a retraction of
// the shown row shows the one before it, or deletes the key.
func TestMaterialize(t *testing.T) {
	r := streamtest.Row
	ts := []types.Type{types.BigInt(), types.String()}
	tk := streamtest.Open(t, materialize.New(materialize.Spec{Keys: []int{0}, KeyTypes: ts[:1], Types: ts}), streamtest.Options{})
	check := func(want ...string) {
		t.Helper()
		if got := streamtest.Format(tk.Take(), ts); !slices.Equal(got, want) {
			t.Fatalf("got %s, want %s", strings.Join(got, " "), strings.Join(want, " "))
		}
	}
	tk.Process(r(types.Insert, 1, "a"), r(types.Insert, 1, "b"))
	check("+I[1, a]", "+U[1, b]")
	tk.Process(r(types.UpdateBefore, 1, "a")) // not the shown row
	check()
	tk.Process(r(types.UpdateBefore, 1, "b")) // the shown row, none before it
	check("-D[1, b]")
	tk.Process(r(types.Insert, 1, "c"), r(types.Insert, 1, "d"), r(types.Delete, 1, "d"))
	check("+I[1, c]", "+U[1, d]", "+U[1, c]")
	tk.Process(r(types.Delete, 1, "zzz")) // never held
	check()
}
