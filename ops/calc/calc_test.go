package calc_test

import (
	"errors"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/ops/calc"
	"github.com/streamsql/streamsql/stream"
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

// TestCalcReuseOutput: asked to reuse its output (stream.OutputReuser), a
// Calc with Spec.NewReusing switches to its function and returns its
// release; one without returns nil and keeps its function.
func TestCalcReuseOutput(t *testing.T) {
	tenfold := func(in types.Row, out []types.Row) ([]types.Row, error) {
		return append(out, types.Row{Kind: in.Kind, Fields: []types.Value{types.Int64(in.Fields[0].Int64() * 10)}}), nil
	}
	hundredfold := func(in types.Row, out []types.Row) ([]types.Row, error) {
		return append(out, types.Row{Kind: in.Kind, Fields: []types.Value{types.Int64(in.Fields[0].Int64() * 100)}}), nil
	}
	released := 0
	for _, reusing := range []bool{false, true} {
		spec := calc.Spec{New: func() calc.Func { return tenfold }, Name: "pipeline 'p'"}
		if reusing {
			spec.NewReusing = func() (calc.Func, func()) { return hundredfold, func() { released++ } }
		}
		op, err := calc.New(spec)(stream.TaskInfo{})
		if err != nil {
			t.Fatal(err)
		}
		r, ok := op.(stream.OutputReuser)
		if !ok {
			t.Fatal("a Calc is not a stream.OutputReuser")
		}
		release := r.ReuseOutput()
		if (release != nil) != reusing {
			t.Fatalf("NewReusing set %v: ReuseOutput returned a release: %v", reusing, release != nil)
		}
		var got []types.Row
		out := stream.NewOutput(10, func(rows []types.Row) error { got = append(got, rows...); return nil })
		if err := op.Process(0, []types.Row{streamtest.Row(types.Insert, 2)}, out); err != nil {
			t.Fatal(err)
		}
		if err := out.Flush(); err != nil {
			t.Fatal(err)
		}
		want := int64(20)
		if reusing {
			want = 200
			release()
		}
		if len(got) != 1 || got[0].Fields[0].Int64() != want {
			t.Fatalf("NewReusing set %v: got %v, want one row of %d", reusing, got, want)
		}
	}
	if released != 1 {
		t.Fatalf("released %d times, want 1", released)
	}
}

// TestCalcCutOutputFrom: given the runtime's memory (stream.OutputCutter),
// a Calc with Spec.NewCutting makes its function with that memory's take
// and returns its drop; one without returns nil and keeps its function.
func TestCalcCutOutputFrom(t *testing.T) {
	tenfold := func(in types.Row, out []types.Row) ([]types.Row, error) {
		return append(out, types.Row{Kind: in.Kind, Fields: []types.Value{types.Int64(in.Fields[0].Int64() * 10)}}), nil
	}
	var mem [4]types.Value
	took, dropped := 0, 0
	take := func(k int) []types.Value { took++; return mem[:k:k] }
	for _, cutting := range []bool{false, true} {
		spec := calc.Spec{New: func() calc.Func { return tenfold }, Name: "pipeline 'p'"}
		if cutting {
			spec.NewCutting = func(take func(k int) []types.Value) (calc.Func, func()) {
				return func(in types.Row, out []types.Row) ([]types.Row, error) {
					f := take(1)
					f[0] = types.Int64(in.Fields[0].Int64() * 100)
					return append(out, types.Row{Kind: in.Kind, Fields: f}), nil
				}, func() { dropped++ }
			}
		}
		op, err := calc.New(spec)(stream.TaskInfo{})
		if err != nil {
			t.Fatal(err)
		}
		c, ok := op.(stream.OutputCutter)
		if !ok {
			t.Fatal("a Calc is not a stream.OutputCutter")
		}
		drop := c.CutOutputFrom(take)
		if (drop != nil) != cutting {
			t.Fatalf("NewCutting set %v: CutOutputFrom returned a drop: %v", cutting, drop != nil)
		}
		var got []types.Row
		out := stream.NewOutput(10, func(rows []types.Row) error { got = append(got, rows...); return nil })
		if err := op.Process(0, []types.Row{streamtest.Row(types.Insert, 2)}, out); err != nil {
			t.Fatal(err)
		}
		if err := out.Flush(); err != nil {
			t.Fatal(err)
		}
		want := int64(20)
		if cutting {
			want = 200
			drop()
			if &got[0].Fields[0] != &mem[0] {
				t.Fatal("the row's fields are not the runtime's memory")
			}
		}
		if len(got) != 1 || got[0].Fields[0].Int64() != want {
			t.Fatalf("NewCutting set %v: got %v, want one row of %d", cutting, got, want)
		}
	}
	if took != 1 || dropped != 1 {
		t.Fatalf("took %d, dropped %d times, want 1 and 1", took, dropped)
	}
}
