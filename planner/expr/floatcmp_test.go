package expr

import (
	"math"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestFloatComparisons pins the order DOUBLE and FLOAT comparisons use, on
// every path the compiler builds (column against constant, column against
// column, a nested argument, an INT constant widened to DOUBLE): NaN
// equals NaN and sorts above every number, -0.0 equals 0.0, NULL compares
// as NULL.
func TestFloatComparisons(t *testing.T) {
	nan := math.NaN()
	x := Col(0, "x", types.Double())
	y := Col(1, "y", types.Double())
	fl := Col(2, "f", types.Float())
	cases := []struct {
		e    Expr
		row  []types.Value
		want string
	}{
		{Fn(">", x, li(100)), []types.Value{types.Float64(100.5)}, "TRUE"},
		{Fn(">", x, li(100)), []types.Value{types.Float64(100)}, "FALSE"},
		{Fn(">=", x, li(100)), []types.Value{types.Float64(100)}, "TRUE"},
		{Fn(">", x, li(100)), []types.Value{types.Float64(nan)}, "TRUE"},
		{Fn("<", x, li(100)), []types.Value{types.Float64(nan)}, "FALSE"},
		{Fn(">", x, li(100)), []types.Value{{}}, "NULL"},
		{Fn("=", x, y), []types.Value{types.Float64(nan), types.Float64(nan)}, "TRUE"},
		{Fn("<>", x, y), []types.Value{types.Float64(nan), types.Float64(1)}, "TRUE"},
		{Fn("<", x, y), []types.Value{types.Float64(1), types.Float64(nan)}, "TRUE"},
		{Fn("<=", x, y), []types.Value{types.Float64(nan), types.Float64(math.Inf(1))}, "FALSE"},
		{Fn("=", x, y), []types.Value{types.Float64(math.Copysign(0, -1)), types.Float64(0)}, "TRUE"},
		{Fn("=", x, y), []types.Value{types.Float64(1), {}}, "NULL"},
		{Fn(">", Fn("*", x, y), x), []types.Value{types.Float64(2), types.Float64(3)}, "TRUE"},
		{Fn("<", fl, x), []types.Value{types.Float64(0.5), types.Float64(0.75), types.Float64(float64(float32(0.25)))}, "TRUE"},
		{Fn("<", fl, x), []types.Value{{}, types.Float64(0.75), types.Float64(float64(float32(0.25)))}, "NULL"},
		{Fn("<", fl, x), []types.Value{types.Float64(0.5), types.Float64(0.75), types.Float64(nan)}, "FALSE"},
	}
	for _, c := range cases {
		if got := eval(t, c.e, utcOpts, c.row...); got != c.want {
			t.Errorf("%s over %v = %s, want %s", c.e, c.row, got, c.want)
		}
	}
}

// BenchmarkFloatFilter compares the compiled amount > 100 over a DOUBLE
// column ("compiled") with the generic comparator path the compiler used
// before DOUBLE got its own operators ("generic": comparator and test
// closures inside binop), in one process.
func BenchmarkFloatFilter(b *testing.B) {
	x := Col(0, "amount", types.Double())
	e := Fn(">", x, li(100))
	rows := make([][]types.Value, 200)
	for i := range rows {
		rows[i] = []types.Value{types.Float64(float64(i))}
	}
	f, err := CompileFilter(e, benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	cmp := comparator(types.Double())
	test := func(r int) bool { return r > 0 }
	generic := binop(operand{col: 0}, operand{col: -1, konst: true, val: types.Float64(100)},
		func(a, b types.Value) (types.Value, error) { return types.Bool(test(cmp(a, b))), nil })
	b.Run("generic", func(b *testing.B) {
		kept := 0
		for i := 0; i < b.N; i++ {
			if v, _ := generic(rows[i%len(rows)]); v.Bool() {
				kept++
			}
		}
		if b.N >= len(rows) && kept == 0 {
			b.Fatal("kept nothing")
		}
	})
	b.Run("compiled", func(b *testing.B) {
		kept := 0
		for i := 0; i < b.N; i++ {
			if ok, _ := f.Keep(rows[i%len(rows)]); ok {
				kept++
			}
		}
		if b.N >= len(rows) && kept == 0 {
			b.Fatal("kept nothing")
		}
	})
}
