package expr

import (
	"github.com/streamsql/streamsql/types"
)

// moreCases widen the golden coverage: argument types Resolve must reject
// (checked against Flink's planner), result types of mixed operands, and
// edge values. Their ids start with "more/" so that the generator can
// evaluate them alone (ONLY=more/).
func moreCases() []gcase {
	tTiny, tSmall, tFloat := types.TinyInt(), types.SmallInt(), types.Float()
	tTime := types.Time(0)
	tChar3 := types.Char(3)
	tV10 := types.VarChar(10)
	tDec38 := types.DecimalType(38, 10)
	tDec380 := types.DecimalType(38, 0)
	si := [][]types.Value{{vs("1"), vi(1)}, {vs("2"), vi(1)}}
	return []gcase{
		// Argument types.
		binary("more/reject/string=int", tStr, tInt, si, op("=")),
		binary("more/reject/string+int", tStr, tInt, si, op("+")),
		binary("more/reject/concat-int", tStr, tInt, si, op("CONCAT")),
		binary("more/reject/string-in-int", tStr, tInt, si, func(a, b Expr) Expr { return Fn("IN", a, b) }),
		unary("more/reject/upper-int", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("UPPER", x) }),
		unary("more/reject/like-int", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("LIKE", x, ls("1%")) }),
		binary("more/reject/and-int", tBool, tInt, [][]types.Value{{vb(true), vi(1)}}, op("AND")),
		unary("more/reject/cast-bool-date", tBool, rows1(vb(true)), castTo(tDate)),
		binary("more/reject/substring-string-pos", tStr, tStr, [][]types.Value{{vs("abc"), vs("1")}}, op("SUBSTRING")),
		unary("more/reject/date-format-int", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("DATE_FORMAT", x, ls("yyyy")) }),
		unary("more/reject/sqrt-string", tStr, rows1(vs("4")), func(x Expr) Expr { return Fn("SQRT", x) }),
		unary("more/reject/abs-string", tStr, rows1(vs("4")), func(x Expr) Expr { return Fn("ABS", x) }),
		binary("more/reject/ts-int", tTs3, tInt, [][]types.Value{{vts("2024-01-01 00:00:00"), vi(1)}}, op(">")),
		unary("more/reject/not-int", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("NOT", x) }),
		// Result types.
		unary("more/type/char-concat", tChar3, rows1(vs("ab "), null), func(x Expr) Expr { return Fn("||", x, ls("c")) }),
		unary("more/type/case-chars", tBool, rows1(vb(true), vb(false)), func(x Expr) Expr {
			return &Case{Whens: []When{{x, ls("a")}}, Else: ls("bcd")}
		}),
		unary("more/type/case-char-varchar", tBool, rows1(vb(true), vb(false)), func(x Expr) Expr {
			return &Case{Whens: []When{{x, ls("a")}}, Else: Lit(tV10.NotNullable(), vs("bcd"))}
		}),
		unary("more/type/trim-char", tChar3, rows1(vs(" a "), null), func(x Expr) Expr { return Fn("TRIM", x) }),
		unary("more/type/substring-varchar", tV10, rows1(vs("abcdef"), null), func(x Expr) Expr { return Fn("SUBSTRING", x, li(2)) }),
		unary("more/type/upper-varchar", tV10, rows1(vs("abc"), null), func(x Expr) Expr { return Fn("UPPER", x) }),
		unary("more/type/replace-varchar", tV10, rows1(vs("abc"), null), func(x Expr) Expr { return Fn("REPLACE", x, ls("b"), ls("xx")) }),
		unary("more/type/lpad-varchar", tV10, rows1(vs("abc")), func(x Expr) Expr { return Fn("LPAD", x, li(5), ls("x")) }),
		unary("more/type/round-float", tFloat, rows1(vf(float64(float32(2.5))), null), func(x Expr) Expr { return Fn("ROUND", x, li(0)) }),
		unary("more/type/abs-tinyint", tTiny, rows1(vi(-128), vi(-5), null), func(x Expr) Expr { return Fn("ABS", x) }),
		binary("more/type/nullif-widen", tInt, tBig, [][]types.Value{{vi(1), vi(1)}, {vi(2), vi(1)}}, op("NULLIF")),
		ternary("more/type/if-widen", tBool, tInt, tDec102, [][]types.Value{{vb(true), vi(1), decimalIn("2.5", 10, 2)}, {vb(false), vi(1), decimalIn("2.5", 10, 2)}},
			func(a, b, c Expr) Expr { return Fn("IF", a, b, c) }),
		binary("more/type/timestampadd-date-hour", tInt, tDate, [][]types.Value{{vi(5), vdate("2024-01-01")}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPADD", UnitHour, a, b) }),
		unary("more/type/extract-date", tDate, rows1(vdate("2024-03-05"), null), func(x Expr) Expr { return FnUnit("EXTRACT", UnitDay, x) }),
		binary("more/type/coalesce-3", tInt, tBig, [][]types.Value{{null, null}, {null, vi(2)}}, func(a, b Expr) Expr { return Fn("COALESCE", a, b, li(9)) }),
		unary("more/type/in-decimal", tDec102, rows1(decimalIn("1.5", 10, 2), decimalIn("3", 10, 2), null), func(x Expr) Expr {
			return Fn("IN", x, Lit(types.DecimalType(2, 1).NotNullable(), vd("1.5")), li(2))
		}),
		// Values.
		unary("more/arith/tinyint-overflow", tTiny, rows1(vi(127), vi(-128)), func(x Expr) Expr { return Fn("+", x, Lit(tTiny.NotNullable(), vi(1))) }),
		binary("more/arith/smallint*int", tSmall, tInt, [][]types.Value{{vi(300), vi(100000)}}, op("*")),
		unary("more/arith/bigint-overflow", tBig, rows1(vi(9223372036854775807)), func(x Expr) Expr { return Fn("+", x, Lit(tBig.NotNullable(), vi(1))) }),
		binary("more/arith/dec38-div", tDec38, tDec38, [][]types.Value{{decimalIn("1", 38, 10), decimalIn("3", 38, 10)}, {decimalIn("2", 38, 10), decimalIn("0", 38, 10)}}, op("/")),
		binary("more/arith/dec38-mul-overflow", tDec380, tDec380, [][]types.Value{{decimalIn("99999999999999999999999999999999999999", 38, 0), decimalIn("10", 38, 0)}, {decimalIn("5", 38, 0), decimalIn("7", 38, 0)}}, op("*")),
		binary("more/arith/dec-plus-overflow", tDec102, tDec102, [][]types.Value{{decimalIn("99999999.99", 10, 2), decimalIn("99999999.99", 10, 2)}}, op("+")),
		binary("more/arith/float+float", tFloat, tFloat, [][]types.Value{{vf(float64(float32(0.1))), vf(float64(float32(0.2)))}}, op("+")),
		binary("more/arith/int/dec", tInt, tDec102, [][]types.Value{{vi(1), decimalIn("3", 10, 2)}, {vi(-2), decimalIn("0.07", 10, 2)}}, op("/")),
		binary("more/arith/dec-mod-zero", tDec102, tDec102, [][]types.Value{{decimalIn("1", 10, 2), decimalIn("0", 10, 2)}}, op("%")),
		binary("more/cmp/date-ts", tDate, tTs3, [][]types.Value{{vdate("2024-01-01"), vts("2024-01-01 00:00:00")}, {vdate("2024-01-01"), vts("2024-01-01 00:00:01")}}, op("<")),
		binary("more/cmp/char-varchar", tChar3, tStr, [][]types.Value{{vs("ab "), vs("ab")}, {vs("ab "), vs("ab ")}}, op("=")),
		binary("more/cmp/ltz-ts", tLTZ3, tTs3, [][]types.Value{{vltz(0), vts("1970-01-01 08:00:00")}, {vltz(0), vts("1970-01-01 00:00:00")}}, op("=")),
		ternary("more/between/strings", tStr, tStr, tStr, [][]types.Value{{vs("b"), vs("a"), vs("c")}, {vs("d"), vs("a"), vs("c")}}, func(a, b, c Expr) Expr { return Fn("BETWEEN", a, b, c) }),
		unary("more/case/simple-null", tInt, rows1(null, vi(1)), func(x Expr) Expr {
			return &Case{Operand: x, Whens: []When{{NullLit(), ls("null")}, {li(1), ls("one")}}, Else: ls("else")}
		}),
		ternary("more/fn/CONCAT_WS/all-null", tStr, tStr, tStr, [][]types.Value{{vs(","), null, null}}, func(a, b, c Expr) Expr { return Fn("CONCAT_WS", a, b, c) }),
		binary("more/fn/POSITION/case", tStr, tStr, [][]types.Value{{vs("A"), vs("abc")}, {vs("bc"), vs("abcbc")}}, op("POSITION")),
		unary("more/fn/REGEXP_EXTRACT/default-group", tStr, rows1(vs("foo123"), null), func(x Expr) Expr { return Fn("REGEXP_EXTRACT", x, ls(`([a-z]+)(\d+)`)) }),
		binary("more/fn/LIKE/backslash", tStr, tStr, [][]types.Value{{vs("a_b"), vs(`a\_b`)}, {vs("axb"), vs(`a\_b`)}, {vs(`a\b`), vs(`a\\b`)}}, op("LIKE")),
		binary("more/fn/LIKE/meta", tStr, tStr, [][]types.Value{{vs("a(b"), vs("a(%")}, {vs("a.b*"), vs("a.b*")}, {vs("x"), vs("[x]")}}, op("LIKE")),
		unary("more/fn/SPLIT_INDEX/empty-delim", tStr, rows1(vs("a b"), vs("ab")), func(x Expr) Expr { return Fn("SPLIT_INDEX", x, ls(""), li(0)) }),
		unary("more/fn/DATE_FORMAT/date", tDate, rows1(vdate("2024-03-05"), null), func(x Expr) Expr { return Fn("DATE_FORMAT", x, ls("yyyy/MM/dd")) }),
		unary("more/fn/DATE_FORMAT/literal-T", tTs3, rows1(vts("2024-03-05 07:08:09.007")), func(x Expr) Expr { return Fn("DATE_FORMAT", x, ls("yyyy-MM-dd'T'HH:mm:ss.SSS")) }),
		unary("more/fn/TO_TIMESTAMP/fraction", tStr, rows1(vs("2024-03-05 07:08:09.5"), vs("2024-03-05 07:08:09.123")), func(x Expr) Expr { return Fn("TO_TIMESTAMP", x, ls("yyyy-MM-dd HH:mm:ss.SSS")) }),
		unary("more/fn/TO_TIMESTAMP/t", tStr, rows1(vs("2024-03-05T07:08:09")), func(x Expr) Expr { return Fn("TO_TIMESTAMP", x) }),
		unary("more/fn/UNIX_TIMESTAMP/offset", tStr, rows1(vs("2024-03-05 07:08:09 +0000"), vs("2024-03-05 07:08:09 +0800")), func(x Expr) Expr { return Fn("UNIX_TIMESTAMP", x, ls("yyyy-MM-dd HH:mm:ss Z")) }),
		unary("more/fn/FROM_UNIXTIME/negative", tBig, rows1(vi(-1)), func(x Expr) Expr { return Fn("FROM_UNIXTIME", x) }),
		binary("more/fn/TIMESTAMPDIFF/year", tTs3, tTs3, [][]types.Value{{vts("2020-02-29 00:00:00"), vts("2024-02-28 00:00:00")}, {vts("2020-02-29 00:00:00"), vts("2024-02-29 00:00:00")}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPDIFF", UnitYear, a, b) }),
		binary("more/fn/TIMESTAMPDIFF/hour-neg", tTs3, tTs3, [][]types.Value{{vts("2024-01-01 10:30:00"), vts("2024-01-01 08:00:00")}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPDIFF", UnitHour, a, b) }),
		binary("more/fn/TIMESTAMPDIFF/date", tDate, tDate, [][]types.Value{{vdate("2024-01-01"), vdate("2024-03-01")}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPDIFF", UnitDay, a, b) }),
		binary("more/fn/TIMESTAMPADD/ltz-day", tInt, tLTZ3, [][]types.Value{{vi(1), vltz(1704067200000)}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPADD", UnitDay, a, b) }),
		binary("more/fn/TIMESTAMPADD/ltz-hour", tInt, tLTZ3, [][]types.Value{{vi(1), vltz(1704067200000)}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPADD", UnitHour, a, b) }),
		unary("more/fn/CEIL-TO/ltz-day", tLTZ3, rows1(vltz(1704067200000)), func(x Expr) Expr { return FnUnit("CEIL", UnitDay, x) }),
		unary("more/fn/FLOOR-TO/ltz-hour", tLTZ3, rows1(vltz(1704069000000)), func(x Expr) Expr { return FnUnit("FLOOR", UnitHour, x) }),
		unary("more/fn/FLOOR-TO/date-month", tDate, rows1(vdate("2024-03-05")), func(x Expr) Expr { return FnUnit("FLOOR", UnitMonth, x) }),
		unary("more/fn/EXTRACT/time", tTime, rows1(types.TimeValue(((7*60+8)*60+9)*1e9), null), func(x Expr) Expr { return FnUnit("EXTRACT", UnitMinute, x) }),
		unary("more/fn/POWER/int", tInt, rows1(vi(3)), func(x Expr) Expr { return Fn("POWER", x, li(2)) }),
		unary("more/fn/SQRT/dec", tDec102, rows1(decimalIn("2.25", 10, 2)), func(x Expr) Expr { return Fn("SQRT", x) }),
		unary("more/fn/ABS/int-min", tInt, rows1(vi(-2147483648)), func(x Expr) Expr { return Fn("ABS", x) }),
		unary("more/fn/ITEM/map-int", types.Map(tInt, tStr), rows1(types.MapValue(&types.MapData{Keys: []types.Value{vi(1), vi(2)}, Values: []types.Value{vs("a"), null}})),
			func(x Expr) Expr { return Fn("ITEM", x, li(2)) }),
		unary("more/fn/ITEM/array-zero", types.Array(tStr), rows1(types.List([]types.Value{vs("a")})), func(x Expr) Expr { return Fn("ITEM", x, li(0)) }),
		unary("more/fn/JSON_VALUE/bigint", tStr, rows1(vs(`{"n": 12345678901234567890, "u": "\u00e9\n", "f": 1e2, "neg": -0.5}`)), func(x Expr) Expr { return Fn("JSON_VALUE", x, ls("$.n")) }),
		unary("more/fn/JSON_VALUE/unicode", tStr, rows1(vs(`{"u": "\u00e9\n"}`)), func(x Expr) Expr { return Fn("JSON_VALUE", x, ls("$.u")) }),
		unary("more/fn/JSON_VALUE/exp", tStr, rows1(vs(`{"f": 1e2, "g": -0.5}`)), func(x Expr) Expr { return Fn("JSON_VALUE", x, ls("$.f")) }),
		unary("more/fn/JSON_QUERY/nested", tStr, rows1(vs(`{"o": {"z": 1.0, "a": [true, "x<y"], "e": {}}}`)), func(x Expr) Expr { return Fn("JSON_QUERY", x, ls("$.o")) }),
		unary("more/fn/JSON_VALUE/quoted-key", tStr, rows1(vs(`{"a b": 1}`)), func(x Expr) Expr { return Fn("JSON_VALUE", x, ls(`$['a b']`)) }),
		unary("more/fn/JSON_VALUE/returning-int", tStr, rows1(vs(`{"a": 42}`), vs(`{"a": "7"}`), vs(`{"a": 1.5}`), vs(`{"a": "x"}`), vs(`{}`), null),
			func(x Expr) Expr { c := Fn("JSON_VALUE", x, ls("$.a")); c.Returning = types.Int(); return c }),
		unary("more/fn/JSON_VALUE/returning-double", tStr, rows1(vs(`{"a": 1.5}`), vs(`{"a": true}`), vs(`{"a": 42}`), vs(`{"a": "2.5"}`), vs(`{"a": 1e2}`)),
			func(x Expr) Expr { c := Fn("JSON_VALUE", x, ls("$.a")); c.Returning = types.Double(); return c }),
		unary("more/fn/JSON_VALUE/returning-bigint", tStr, rows1(vs(`{"a": 42}`), vs(`{"a": 12345678901}`)),
			func(x Expr) Expr { c := Fn("JSON_VALUE", x, ls("$.a")); c.Returning = types.BigInt(); return c }),
		unary("more/fn/JSON_VALUE/returning-decimal", tStr, rows1(vs(`{"a": 42}`), vs(`{"a": 1.25}`), vs(`{"a": "3.5"}`)),
			func(x Expr) Expr {
				c := Fn("JSON_VALUE", x, ls("$.a"))
				c.Returning = types.DecimalType(10, 2)
				return c
			}),
		unary("more/fn/JSON_VALUE/returning-string", tStr, rows1(vs(`{"a": 42}`), vs(`{"a": true}`)),
			func(x Expr) Expr { c := Fn("JSON_VALUE", x, ls("$.a")); c.Returning = types.String(); return c }),
		unary("more/fn/JSON_VALUE/returning-date", tStr, rows1(vs(`{"a": "2024-03-05"}`), vs(`{"a": 5}`)),
			func(x Expr) Expr { c := Fn("JSON_VALUE", x, ls("$.a")); c.Returning = types.Date(); return c }),
		unary("more/fn/JSON_VALUE/returning-boolean", tStr, rows1(vs(`{"a": true}`), vs(`{"a": "false"}`), vs(`{"a": 1}`)),
			func(x Expr) Expr { c := Fn("JSON_VALUE", x, ls("$.a")); c.Returning = types.Boolean(); return c }),
		unary("more/fn/LOWER/special", tStr, rows1(vs("İSTANBUL ΣΑΣ")), func(x Expr) Expr { return Fn("LOWER", x) }),
		unary("more/cast/time-string", tTime, rows1(types.TimeValue(((7*60+8)*60+9)*1e9), null), castTo(tStr)),
		unary("more/cast/string-time", tStr, rows1(vs("07:08:09"), vs("7:8"), vs("25:00:00"), null), castTo(tTime)),
		unary("more/cast/string-bytes", tStr, rows1(vs("hi"), null), castTo(types.Bytes())),
		unary("more/cast/bigint-int", tBig, rows1(vi(3000000000), vi(-3000000000)), castTo(tInt)),
		unary("more/cast/double-float", tDbl, rows1(vf(0.1), vf(1e40)), castTo(tFloat)),
		unary("more/cast/decimal-double", tDec102, rows1(decimalIn("0.10", 10, 2), null), castTo(tDbl)),
		unary("more/cast/double-smallint", tDbl, rows1(vf(70000.7), vf(-1.5)), castTo(tSmall)),
		unary("more/cast/string-float", tStr, rows1(vs("0.1"), vs("3.4e39")), castTo(tFloat)),
		unary("more/cast/float-decimal", tFloat, rows1(vf(float64(float32(0.1)))), castTo(tDec102)),
		unary("more/cast/string-int-plus", tStr, rows1(vs("+5"), vs("-"), vs("1e2"), vs(".5"), vs("5.")), castTo(tInt)),
		unary("more/cast/array-string", types.Array(tInt), rows1(types.List([]types.Value{vi(1), null, vi(3)}), null), castTo(tStr)),
		unary("more/cast/map-string", types.Map(tStr, tInt), rows1(types.MapValue(&types.MapData{Keys: []types.Value{vs("a")}, Values: []types.Value{vi(1)}})), castTo(tStr)),
		unary("more/trycast/string-decimal", tStr, rows1(vs("x"), vs("123456789.123")), func(x Expr) Expr { return TryCastTo(x, tDec102) }),
		binary("more/null/distinct-strings", tStr, tStr, [][]types.Value{{vs("a"), vs("a")}, {vs("a"), null}, {null, null}}, op("IS NOT DISTINCT FROM")),
		binary("more/like/not-null", tStr, tStr, [][]types.Value{{null, vs("a")}, {vs("a"), null}}, op("NOT LIKE")),
	}
}
