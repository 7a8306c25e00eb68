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
		unary("more/late/md5-bytes", types.Bytes(), rows1(types.BytesValue([]byte("abc")), null), func(x Expr) Expr { return Fn("MD5", x) }),
		unary("more/late/bytes-string", types.Bytes(), rows1(types.BytesValue([]byte("hi")), null), castTo(tStr)),
		binary("more/late/bytes-cmp", types.Bytes(), types.Bytes(), [][]types.Value{{types.BytesValue([]byte{1, 2}), types.BytesValue([]byte{1, 3})}, {types.BytesValue([]byte{1}), types.BytesValue([]byte{1})}}, op("<")),
		binary("more/late/time-cmp", types.Time(0), types.Time(0), [][]types.Value{{types.TimeValue(3600e9), types.TimeValue(7200e9)}}, op("<")),
		unary("more/late/float-string", types.Float(), rows1(vf(float64(float32(3.4e38))), vf(float64(float32(1.0e-5))), vf(float64(float32(123456.7)))), castTo(tStr)),
		unary("more/late/case-nested", tInt, rows1(vi(1), vi(2), vi(3), null), func(x Expr) Expr {
			return &Case{Whens: []When{{Fn(">", x, li(1)), &Case{Operand: x, Whens: []When{{li(2), ls("two")}}, Else: ls("many")}}}, Else: ls("small")}
		}),
		binary("more/late/or-many", tBool, tBool, boolPairs, func(a, b Expr) Expr { return Fn("OR", Fn("OR", a, b), Fn("IS NULL", a)) }),
		unary("more/late/like-percent-mid", tStr, rows1(vs("abXYcd"), vs("abcd"), vs("acd")), func(x Expr) Expr { return Fn("LIKE", x, ls("ab%cd")) }),
		unary("more/late/like-escape-pct", tStr, rows1(vs("50%"), vs("50")), func(x Expr) Expr { return Fn("LIKE", x, ls("50#%"), ls("#")) }),
		unary("more/late/regex-posix", tStr, rows1(vs("ab12CD_"), null), func(x Expr) Expr { return Fn("REGEXP_REPLACE", x, ls(`\p{Alpha}`), ls("x")) }),
		unary("more/late/regex-posix-class", tStr, rows1(vs("ab12CD_")), func(x Expr) Expr { return Fn("REGEXP_EXTRACT", x, ls(`[\p{Upper}_]+`), li(0)) }),
		unary("more/late/regex-posix-neg", tStr, rows1(vs("ab12CD_")), func(x Expr) Expr { return Fn("REGEXP_REPLACE", x, ls(`\P{Digit}`), ls("")) }),
		unary("more/late/regex-lookahead", tStr, rows1(vs("price: 10USD")), func(x Expr) Expr { return Fn("REGEXP_EXTRACT", x, ls(`\d+(?=USD)`), li(0)) }),
		unary("more/late/field-int", types.RowType(types.Field{Name: "id", Type: types.BigInt()}), rows1(types.List([]types.Value{vi(7)})), func(x Expr) Expr { return Fn("FIELD", x, ls("id")) }),
	}
}
