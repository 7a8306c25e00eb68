package expr

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/streamsql/streamsql/types"
)

// TestCompactDecimalArith compares DECIMAL +, - and * compiled with the
// int64 fast path (compactDecimalArith) against the exact math/big
// computation rescaled to the result type (types.Decimal's Add, Sub, Mul
// and decimalResult, what every DECIMAL operation did before): random
// values of random precisions and scales, integer operands, values at
// the int64 and precision bounds and wide (math/big) decimals; operands
// as columns, ROW fields and constants on either side; NULLs.
func TestCompactDecimalArith(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 34))
	opts := Options{Location: time.UTC}
	// operand types: DECIMAL(p, s) for a few shapes, INT, BIGINT.
	typesOf := []types.Type{types.BigInt(), types.Int()}
	for _, ps := range [][2]int{{3, 3}, {10, 2}, {5, 3}, {18, 0}, {18, 9}, {19, 0}, {20, 4}, {38, 10}, {38, 0}, {1, 0}, {9, 9}} {
		typesOf = append(typesOf, types.DecimalType(ps[0], ps[1]))
	}
	value := func(t types.Type) types.Value {
		if r.IntN(12) == 0 {
			return types.Value{}
		}
		if t.IsInteger() {
			switch r.IntN(5) {
			case 0:
				return types.Int64([]int64{math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32, 0, 1, -1}[r.IntN(7)])
			case 1:
				return types.Int64(r.Int64())
			}
			if t.Kind == types.KindInt {
				return types.Int64(int64(r.Int32N(1<<20)) - 1<<19)
			}
			return types.Int64(r.Int64N(1<<40) - 1<<39)
		}
		// Up to p digits, sometimes exactly p nines.
		digits := 1 + r.IntN(t.Precision)
		if r.IntN(10) == 0 {
			// A value wider than its type (no reader makes one): a result
			// beyond the result type's precision is NULL either way.
			digits = t.Precision + 2
		}
		u := new(big.Int)
		if r.IntN(4) == 0 {
			u.Exp(big.NewInt(10), big.NewInt(int64(t.Precision)), nil).Sub(u, big.NewInt(1))
		} else {
			b := make([]byte, digits)
			for i := range b {
				b[i] = byte('0' + r.IntN(10))
			}
			u.SetString(string(b), 10)
		}
		if r.IntN(2) == 0 {
			u.Neg(u)
		}
		return types.DecimalValue(types.NewDecimalBig(u, t.Scale))
	}
	decimalOf := func(v types.Value, t types.Type) types.Decimal {
		if t.IsInteger() {
			return types.NewDecimal(v.Int64(), 0)
		}
		return v.Decimal()
	}
	rowType := func(a, b types.Type) types.Type {
		return types.RowType(types.Field{Name: "a", Type: a}, types.Field{Name: "b", Type: b})
	}
	checked := 0
	for range 400 {
		ta, tb := typesOf[r.IntN(len(typesOf))], typesOf[r.IntN(len(typesOf))]
		if ta.IsInteger() && tb.IsInteger() {
			continue // integer arithmetic, not DECIMAL
		}
		op := []string{"+", "-", "*"}[r.IntN(3)]
		va, vb := value(ta), value(tb)
		row := []types.Value{va, vb, types.List([]types.Value{va, vb})}
		col := func(i int, t types.Type) Expr { return Col(i, fmt.Sprint("c", i), t) }
		field := func(i int) Expr { return Fn("FIELD", Col(2, "r", rowType(ta, tb)), ls([]string{"a", "b"}[i])) }
		lit := func(v types.Value, t types.Type) Expr { return Lit(t, v) }
		shapes := map[string][2]Expr{
			"columns":     {col(0, ta), col(1, tb)},
			"fields":      {field(0), field(1)},
			"const right": {field(0), lit(vb, tb)},
			"const left":  {lit(va, ta), field(1)},
			"col, const":  {col(0, ta), lit(vb, tb)},
			"const, col":  {lit(va, ta), col(1, tb)},
		}
		for name, args := range shapes {
			e, err := Resolve(Fn(op, args[0], args[1]))
			if err != nil {
				t.Fatalf("%s %s %s: %v", ta, op, tb, err)
			}
			p, err := CompileProjection([]Expr{e}, opts)
			if err != nil {
				t.Fatalf("%s %s %s: %v", ta, op, tb, err)
			}
			out := make([]types.Value, 1)
			if err := p.Project(row, out); err != nil {
				t.Fatalf("%s: %v", e, err)
			}
			rt := e.Type()
			want := types.Value{}
			if !va.IsNull() && !vb.IsNull() {
				da, db := decimalOf(va, ta), decimalOf(vb, tb)
				var d types.Decimal
				switch op {
				case "+":
					d = da.Add(db)
				case "-":
					d = da.Sub(db)
				case "*":
					d = da.Mul(db)
				}
				want = decimalResult(d, rt.Precision, rt.Scale)
			}
			if want.IsNull() != out[0].IsNull() || (!want.IsNull() && (want.Decimal().Cmp(out[0].Decimal()) != 0 || want.Decimal().Scale() != out[0].Decimal().Scale())) {
				t.Fatalf("%s (%s: %v %s %v as %s): got %v, want %v", name, e, va, op, vb, rt, out[0], want)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d cases checked", checked)
	}
}
