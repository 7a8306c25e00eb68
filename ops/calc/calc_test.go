package calc_test

import (
	"errors"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/ops/calc"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// TestCalc maps rows with the task's function, counts rows dropped on
// purpose and fails on any other error.
func TestCalc(t *testing.T) {
	fn := func(in types.Row, out []types.Row) ([]types.Row, error) {
		switch v := in.Fields[0].Int64(); {
		case v < 0:
			return out, connector.ErrDropRow
		case v == 0:
			return out, errors.New("zero")
		case v%2 == 0:
			return out, nil // filtered out
		}
		return append(out, types.Row{Kind: in.Kind, Fields: []types.Value{types.Int64(in.Fields[0].Int64() * 10)}}), nil
	}
	tk := streamtest.Open(t, calc.New(calc.Spec{New: func() calc.Func { return fn }, Name: "pipeline 'p'"}), streamtest.Options{})
	r := streamtest.Row
	tk.Process(r(types.Insert, 1), r(types.Insert, 2), r(types.UpdateAfter, 3), r(types.Insert, -1))
	got := tk.Take()
	if len(got) != 2 || got[0].Fields[0].Int64() != 10 || got[1].Kind != types.UpdateAfter || got[1].Fields[0].Int64() != 30 {
		t.Fatalf("got %v", got)
	}
	if n := tk.Metrics().Dropped.Load(); n != 1 {
		t.Fatalf("dropped %d, want 1", n)
	}
	if err := tk.ProcessErr(r(types.Insert, 0)); err == nil || err.Error() != "pipeline 'p': zero" {
		t.Fatalf("error %v, want \"pipeline 'p': zero\"", err)
	}
}
