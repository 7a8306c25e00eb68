package expr

import (
	"math"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestFieldIntComparison: an integer comparison of a ROW's field with a
// constant (bid.price < 10000, compiled without FIELD's closure) gives
// each operator's answer, and NULL when the ROW or the field is NULL, for
// a BIGINT field and for an INT field compared with a BIGINT constant.
func TestFieldIntComparison(t *testing.T) {
	r := Col(0, "bid", types.RowType(types.Field{Name: "n", Type: types.Int()}, types.Field{Name: "price", Type: types.BigInt()}))
	holds := map[string]func(a, b int64) bool{
		"=": func(a, b int64) bool { return a == b }, "<>": func(a, b int64) bool { return a != b },
		"<": func(a, b int64) bool { return a < b }, "<=": func(a, b int64) bool { return a <= b },
		">": func(a, b int64) bool { return a > b }, ">=": func(a, b int64) bool { return a >= b },
	}
	const k = 10
	values := []int64{math.MinInt64, -10, 0, 9, 10, 11, math.MaxInt64}
	for op, want := range holds {
		for _, name := range []string{"n", "price"} {
			e := Fn(op, Fn("FIELD", r, ls(name)), Lit(types.BigInt().NotNullable(), types.Int64(k)))
			p, err := CompileProjection([]Expr{e}, benchOpts)
			if err != nil {
				t.Fatalf("%s: %v", e, err)
			}
			eval := func(row types.Value) types.Value {
				out := make([]types.Value, 1)
				if err := p.Project([]types.Value{row}, out); err != nil {
					t.Fatalf("%s: %v", e, err)
				}
				return out[0]
			}
			if v := eval(types.Value{}); !v.IsNull() {
				t.Errorf("%s over a NULL row = %v, want NULL", e, v)
			}
			if v := eval(types.List([]types.Value{{}, {}})); !v.IsNull() {
				t.Errorf("%s over a NULL field = %v, want NULL", e, v)
			}
			for _, x := range values {
				if name == "n" {
					x = int64(int32(x))
				}
				v := eval(types.List([]types.Value{types.Int64(x), types.Int64(x)}))
				if v.IsNull() || v.Bool() != want(x, k) {
					t.Errorf("%s with %s = %d: %v, want %v", e, name, x, v, want(x, k))
				}
			}
		}
	}
}
