package expr

import (
	"github.com/streamsql/streamsql/types"
)

// lateCases cover the forms added last: ROW field access, interval
// arithmetic and the other TO_TIMESTAMP_LTZ inputs. Ids start with
// "more/late/".
func lateCases() []gcase {
	rt := types.RowType(types.Field{Name: "id", Type: types.BigInt()}, types.Field{Name: "name", Type: types.String()})
	return []gcase{
		unary("more/late/field", rt, rows1(types.List([]types.Value{vi(7), vs("x")}), types.List([]types.Value{null, vs("y")}), null),
			func(x Expr) Expr { return Fn("FIELD", x, ls("name")) }),
		unary("more/late/interval-second", tTs3, rows1(vts("2024-01-01 00:00:02"), null), func(x Expr) Expr { return AddInterval(x, -5, UnitSecond) }),
		unary("more/late/interval-month", tTs3, rows1(vts("2024-01-31 10:00:00")), func(x Expr) Expr { return AddInterval(x, 1, UnitMonth) }),
		unary("more/late/to-ts-ltz-string", tStr, rows1(vs("2024-01-02 03:04:05"), vs("bad"), null), func(x Expr) Expr { return Fn("TO_TIMESTAMP_LTZ", x, ls("yyyy-MM-dd HH:mm:ss")) }),
		unary("more/late/to-ts-ltz-double", tDbl, rows1(vf(1700000000.5), null), func(x Expr) Expr { return Fn("TO_TIMESTAMP_LTZ", x, li(0)) }),
		unary("more/late/to-ts-ltz-decimal", types.DecimalType(12, 2), rows1(decimalIn("1700000000.25", 12, 2), null), func(x Expr) Expr { return Fn("TO_TIMESTAMP_LTZ", x, li(3)) }),
		unary("more/late/to-ts-ltz-default", tBig, rows1(vi(1700000000123)), func(x Expr) Expr { return Fn("TO_TIMESTAMP_LTZ", x) }),
		binary("more/late/bang-equals", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {vi(1), vi(1)}, {null, vi(1)}}, op("!=")),
		unary("more/late/ceiling", tDbl, rows1(vf(1.2), null), func(x Expr) Expr { return Fn("CEILING", x) }),
		unary("more/late/current-date", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("IS NOT NULL", Fn("CURRENT_DATE")) }),
		{id: "more/late/current-date-type", rows: [][]types.Value{{}}, expr: func([]Expr) Expr { return Fn("CURRENT_DATE") }, typeOnly: true},
		unary("more/late/field-int", types.RowType(types.Field{Name: "id", Type: types.BigInt()}), rows1(types.List([]types.Value{vi(7)})), func(x Expr) Expr { return Fn("FIELD", x, ls("id")) }),
	}
}
