package expr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// condSchema is the row of TestCondAgreesWithEval: integers of three
// widths, a ROW of two integer fields, a DOUBLE, a DATE and a BOOLEAN,
// all nullable.
var condSchema = []*ColumnRef{
	Col(0, "i", types.Int()),
	Col(1, "l", types.BigInt()),
	Col(2, "t", types.TinyInt()),
	Col(3, "r", types.RowType(types.Field{Name: "a", Type: types.BigInt()}, types.Field{Name: "b", Type: types.Int()})),
	Col(4, "d", types.Double()),
	Col(5, "day", types.Date()),
	Col(6, "b", types.Boolean()),
	Col(7, "m", types.DecimalType(10, 2)),
}

// condGen makes random integer and BOOLEAN expressions over condSchema
// and random rows for them (and DECIMAL comparisons, q14's
// 0.908 * price > 1000000), with the values where the specialised forms
// could differ from the general one: NULLs, zero divisors, the extremes of
// each width (wrap-around), NaN and signed zeros.
type condGen struct{ r *rand.Rand }

func (g condGen) pick(vs []int64) int64 { return vs[g.r.IntN(len(vs))] }

var condInts = []int64{0, 1, -1, 2, 7, 123, -123, 246, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, 127, -128}

func (g condGen) intLit() Expr {
	switch g.r.IntN(6) {
	case 0:
		return Lit(types.Int(), types.Value{}) // a typed NULL
	case 1:
		return Lit(types.BigInt().NotNullable(), types.Int64(g.pick(condInts)))
	case 2:
		return Lit(types.TinyInt().NotNullable(), types.Int64(int64(int8(g.pick(condInts)))))
	}
	return li(int64(int32(g.pick(condInts))))
}

func (g condGen) intExpr(depth int) Expr {
	n := 4
	if depth > 0 {
		n = 8
	}
	switch g.r.IntN(n) {
	case 0:
		return condSchema[g.r.IntN(3)]
	case 1:
		return Fn("FIELD", condSchema[3], ls([]string{"a", "b"}[g.r.IntN(2)]))
	case 2:
		return g.intLit()
	case 3:
		if g.r.IntN(2) == 0 {
			return g.intLit()
		}
		return condSchema[g.r.IntN(3)]
	case 4, 5:
		op := []string{"+", "-", "*", "/", "MOD", "%"}[g.r.IntN(6)]
		return Fn(op, g.intExpr(depth-1), g.intExpr(depth-1))
	case 6:
		return &Cast{Expr: g.intExpr(depth - 1), Target: []types.Type{types.BigInt(), types.Int(), types.SmallInt()}[g.r.IntN(3)]}
	}
	return &Case{Whens: []When{{Cond: g.boolExpr(depth - 1), Result: g.intExpr(depth - 1)}}, Else: g.intExpr(depth - 1)}
}

func (g condGen) boolExpr(depth int) Expr {
	ops := []string{"=", "<>", "<", "<=", ">", ">="}
	op := ops[g.r.IntN(len(ops))]
	n := 6
	if depth > 0 {
		n = 10
	}
	switch g.r.IntN(n) {
	case 0, 1, 2:
		return Fn(op, g.intExpr(depth), g.intExpr(depth))
	case 3:
		k := Lit(types.Double().NotNullable(), types.Float64([]float64{0, math.Copysign(0, -1), 1.5, -2, math.NaN(), math.Inf(1)}[g.r.IntN(6)]))
		if g.r.IntN(4) == 0 {
			return Fn(op, k, condSchema[4])
		}
		return Fn(op, condSchema[4], k)
	case 4:
		switch g.r.IntN(3) {
		case 0:
			return Fn(op, condSchema[5], Lit(types.Date().NotNullable(), types.DateValue(int32(g.r.IntN(5)-2))))
		case 1:
			return Fn(op, condSchema[6], Lit(types.Boolean().NotNullable(), types.Bool(g.r.IntN(2) == 0)))
		}
		return condSchema[6]
	case 5:
		if g.r.IntN(2) == 0 {
			return Fn(op, g.decimalExpr(depth), g.decimalConst())
		}
		return Fn([]string{"IS NULL", "IS NOT NULL"}[g.r.IntN(2)], g.intExpr(depth))
	case 6, 7:
		args := []Expr{g.boolExpr(depth - 1), g.boolExpr(depth - 1)}
		if g.r.IntN(3) == 0 {
			args = append(args, g.boolExpr(depth-1))
		}
		return Fn([]string{"AND", "OR"}[g.r.IntN(2)], args...)
	case 8:
		return Fn("NOT", g.boolExpr(depth-1))
	}
	return Lit(types.Boolean(), []types.Value{{}, types.Bool(true), types.Bool(false)}[g.r.IntN(3)])
}

func (g condGen) decimalConst() Expr {
	switch g.r.IntN(4) {
	case 0:
		return g.intLit()
	case 1:
		return Lit(types.DecimalType(3, 3), types.Value{})
	}
	return Lit(types.DecimalType(12, 4).NotNullable(), types.DecimalValue(types.NewDecimal(g.pick(condInts)%1000000000000, 4)))
}

func (g condGen) decimalExpr(depth int) Expr {
	switch g.r.IntN(3) {
	case 0:
		return condSchema[7]
	case 1:
		return Fn("*", Lit(types.DecimalType(3, 3).NotNullable(), types.DecimalValue(types.NewDecimal(908, 3))), g.intExpr(depth))
	}
	return Fn("+", condSchema[7], g.intExpr(depth))
}

func (g condGen) row() []types.Value {
	null := func() bool { return g.r.IntN(5) == 0 }
	row := make([]types.Value, len(condSchema))
	for i, w := range []func(int64) int64{func(v int64) int64 { return int64(int32(v)) }, func(v int64) int64 { return v }, func(v int64) int64 { return int64(int8(v)) }} {
		if !null() {
			row[i] = types.Int64(w(g.pick(condInts)))
		}
	}
	if !null() {
		f := make([]types.Value, 2)
		if !null() {
			f[0] = types.Int64(g.pick(condInts))
		}
		if !null() {
			f[1] = types.Int64(int64(int32(g.pick(condInts))))
		}
		row[3] = types.List(f)
	}
	if !null() {
		row[4] = types.Float64([]float64{0, math.Copysign(0, -1), 1.5, -2, 3, math.NaN(), math.Inf(1), math.Inf(-1)}[g.r.IntN(8)])
	}
	if !null() {
		row[5] = types.DateValue(int32(g.r.IntN(5) - 2))
	}
	if !null() {
		row[6] = types.Bool(g.r.IntN(2) == 0)
	}
	if !null() {
		row[7] = types.DecimalValue(types.NewDecimal(g.pick(condInts)%10000000000, 2))
	}
	return row
}

// refEval compiles r into its evalFn, which TestCondAgreesWithEval's
// forms must agree with.
func refEval(t *testing.T, r Expr) evalFn {
	t.Helper()
	fn, err := newBuilder(benchOpts).compile(r)
	if err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	return fn
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestCondAgreesWithEval: a condition compiled as a condFn (cond.go), an
// integer expression compiled as an intFn, a WHERE (Filter.Keep) and a
// searched CASE give, on random expressions and rows, what the general
// evaluators give: the same truth, the same integer and NULL, the same
// error. The expressions mix the forms cond and intOf specialise (a column
// or a ROW's field against a constant, integer arithmetic and MOD, AND,
// OR, NOT, IS [NOT] NULL, FLOAT comparisons) with those they read through
// evalFns (casts that convert, CASE), over NULLs, zero divisors, the
// extremes of every width and NaN.
func TestCondAgreesWithEval(t *testing.T) {
	g := condGen{rand.New(rand.NewPCG(34, 7))}
	rows := make([][]types.Value, 64)
	for i := range rows {
		rows[i] = g.row()
	}
	rows = append(rows, make([]types.Value, len(condSchema))) // all NULL
	var conds, ints, cases, special int
	for n := 0; n < 4000; n++ {
		e := g.boolExpr(3)
		r, err := Resolve(e)
		if err != nil {
			continue
		}
		conds++
		ref := refEval(t, r)
		b := newBuilder(benchOpts)
		c, isSpecial, err := b.cond(r)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		if isSpecial {
			special++
		}
		f, err := CompileFilter(r, benchOpts)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		for _, row := range rows {
			v, werr := ref(row)
			want := truthOf(v)
			got, gerr := c(row)
			if errText(gerr) != errText(werr) || (werr == nil && got != want) {
				t.Fatalf("%s over %v: cond %v, %v; eval %v, %v", r, row, got, gerr, v, werr)
			}
			keep, kerr := f.Keep(row)
			if (kerr == nil) != (werr == nil) || (werr == nil && keep != (want == isTrue)) {
				t.Fatalf("%s over %v: Keep %v, %v; eval %v, %v", r, row, keep, kerr, v, werr)
			}
		}
	}
	for n := 0; n < 4000; n++ {
		e := g.intExpr(3)
		r, err := Resolve(e)
		if err != nil || !r.Type().IsInteger() {
			continue
		}
		ints++
		ref := refEval(t, r)
		o, err := newBuilder(benchOpts).intOf(r)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		for _, row := range rows {
			v, werr := ref(row)
			got, null, gerr := o.fn(row)
			if errText(gerr) != errText(werr) || (werr == nil && (null != v.IsNull() || !null && got != v.Int64())) {
				t.Fatalf("%s over %v: int %d null %v, %v; eval %v, %v", r, row, got, null, gerr, v, werr)
			}
		}
	}
	// A searched CASE against its definition: the first branch whose
	// condition is TRUE gives its result, else the ELSE (NULL without
	// one); a failing condition fails the CASE.
	for n := 0; n < 3000; n++ {
		k := &Case{}
		for i := 0; i <= g.r.IntN(3); i++ {
			k.Whens = append(k.Whens, When{Cond: g.boolExpr(2), Result: g.intExpr(2)})
		}
		if g.r.IntN(3) > 0 {
			k.Else = g.intExpr(2)
		}
		r, err := Resolve(k)
		if err != nil {
			continue
		}
		cases++
		rc := r.(*Case)
		fn, err := newBuilder(benchOpts).compile(r)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		whens := make([][2]evalFn, len(rc.Whens))
		for i, w := range rc.Whens {
			whens[i] = [2]evalFn{refEval(t, w.Cond), refEval(t, w.Result)}
		}
		var elseFn evalFn
		if rc.Else != nil {
			elseFn = refEval(t, rc.Else)
		}
		def := func(row []types.Value) (types.Value, error) {
			for _, w := range whens {
				v, err := w[0](row)
				if err != nil {
					return types.Value{}, err
				}
				if truthOf(v) == isTrue {
					return w[1](row)
				}
			}
			if elseFn == nil {
				return types.Value{}, nil
			}
			return elseFn(row)
		}
		for _, row := range rows {
			want, werr := def(row)
			got, gerr := fn(row)
			if errText(gerr) != errText(werr) || (werr == nil && (got.IsNull() != want.IsNull() || got.Int64() != want.Int64())) {
				t.Fatalf("%s over %v: %v, %v; want %v, %v", r, row, got, gerr, want, werr)
			}
		}
	}
	t.Logf("%d conditions (%d specialised), %d integer expressions, %d CASEs, %d rows each", conds, special, ints, cases, len(rows))
	if conds < 2000 || special < conds/2 || ints < 2000 || cases < 1500 {
		t.Fatalf("too few expressions resolved: %d conditions (%d specialised), %d integer expressions, %d CASEs", conds, special, ints, cases)
	}
}
