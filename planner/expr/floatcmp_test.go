package expr

import (
	"math"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// cmpCase is a comparison, a row and its result as text.
type cmpCase struct {
	e    Expr
	row  []types.Value
	want string
}

// TestFloatComparisons pins the order DOUBLE and FLOAT comparisons use, on
// every path the compiler builds (column against constant, column against
// column, a nested argument, an INT constant widened to DOUBLE): NaN
// equals NaN and sorts above every number, -0.0 equals 0.0, NULL compares
// as NULL; and integer columns against constants. Each case runs as an
// expression and as a WHERE condition (Filter.Keep, whose column-versus-
// constant predicate answers without building a BOOLEAN).
func TestFloatComparisons(t *testing.T) {
	nan := math.NaN()
	x := Col(0, "x", types.Double())
	y := Col(1, "y", types.Double())
	fl := Col(2, "f", types.Float())
	cases := []cmpCase{
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
	b := Col(3, "b", types.BigInt())
	i := Col(4, "i", types.Int())
	ints := []types.Value{{}, {}, {}, types.Int64(5), types.Int64(-3)}
	nullInts := []types.Value{{}, {}, {}, {}, {}}
	for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
		want := map[string]string{"=": "FALSE", "<>": "TRUE", "<": "FALSE", "<=": "FALSE", ">": "TRUE", ">=": "TRUE"}[op]
		cases = append(cases,
			cmpCase{Fn(op, b, li(4)), ints, want},
			cmpCase{Fn(op, i, li(-3)), ints, map[bool]string{true: "TRUE", false: "FALSE"}[op == "=" || op == "<=" || op == ">="]},
			cmpCase{Fn(op, b, li(4)), nullInts, "NULL"},
			cmpCase{Fn(op, x, li(100)), []types.Value{types.Float64(nan)}, map[bool]string{true: "TRUE", false: "FALSE"}[op == "<>" || op == ">" || op == ">="]},
		)
	}
	for _, c := range cases {
		if got := eval(t, c.e, utcOpts, c.row...); got != c.want {
			t.Errorf("%s over %v = %s, want %s", c.e, c.row, got, c.want)
		}
		// As a WHERE condition (a column against a constant has a
		// predicate of its own): TRUE passes, FALSE and NULL do not.
		f, err := CompileFilter(c.e, utcOpts)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		if keep, err := f.Keep(c.row); err != nil || keep != (c.want == "TRUE") {
			t.Errorf("WHERE %s over %v: keep %v (%v), want %v", c.e, c.row, keep, err, c.want == "TRUE")
		}
	}
	// A row too short for the column fails, naming the condition.
	f, err := CompileFilter(Fn(">", b, li(1)), utcOpts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Keep([]types.Value{types.Int64(1)}); err == nil || !strings.Contains(err.Error(), "`b` >") || !strings.Contains(err.Error(), "no field #3") {
		t.Errorf("a short row: %v, want an error naming the condition", err)
	}
}

// BenchmarkFloatFilter compares, in one process, three ways to decide
// amount > 100 over a DOUBLE column: the generic comparator path the
// compiler used before DOUBLE got its own operators ("generic": comparator
// and test closures inside binop), the operator closure ("operator": the
// compiled expression), and Filter.Keep's column-versus-constant
// predicate ("predicate").
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
	cmp := types.Comparator(types.Double())
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
	b.Run("expression", func(b *testing.B) { // the compiled condition, through the comparator
		kept := 0
		for i := 0; i < b.N; i++ {
			if v, _ := f.p.fn(rows[i%len(rows)]); !v.IsNull() && v.Bool() {
				kept++
			}
		}
		if b.N >= len(rows) && kept == 0 {
			b.Fatal("kept nothing")
		}
	})
	b.Run("predicate", func(b *testing.B) {
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
