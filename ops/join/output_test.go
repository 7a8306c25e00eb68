package join_test

import (
	"testing"

	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
)

// TestOutputRowsReused: once the runtime asks a regular join to reuse its
// output (stream.OutputReuser), the rows of the call after a release are
// cut where the earlier call's were, and a padded row holds NULLs there,
// not the earlier pair's values.
func TestOutputRowsReused(t *testing.T) {
	var op stream.Operator
	f := func(ti stream.TaskInfo) (stream.Operator, error) {
		var err error
		op, err = join.New(kv(join.Left))(ti)
		return op, err
	}
	tk := streamtest.Open(t, f, streamtest.Options{})
	release := op.(stream.OutputReuser).ReuseOutput()
	tk.ProcessInput(1, r(ins, 1, "x"))
	tk.ProcessInput(0, r(ins, 1, "a"))
	got := tk.Take()
	expect(t, got, kvkv, "+I[1, a, 1, x]")
	first := &got[0].Fields[0]
	release()
	tk.ProcessInput(0, r(ins, 2, "b"))
	got = tk.Take()
	expect(t, got, kvkv, "+I[2, b, null, null]")
	if &got[0].Fields[0] != first {
		t.Fatal("the row after the release was not cut where the earlier one was")
	}
}
