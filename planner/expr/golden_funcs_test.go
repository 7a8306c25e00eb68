package expr

import (
	"github.com/streamsql/streamsql/types"
)

// funcCases cover the built-in functions added after the first library:
// more string functions, GREATEST/LEAST, TO_DATE, CONVERT_TZ and the
// ARRAY and MAP functions of Flink 2.x. Ids start with "fn2/"
// (ONLY=fn2/ regenerates them alone).
func funcCases() []gcase {
	arr := func(args ...Expr) Expr { return Fn("ARRAY", args...) }
	mp := func(args ...Expr) Expr { return Fn("MAP", args...) }
	noCols := func(id string, e Expr) gcase {
		return gcase{id: id, rows: [][]types.Value{{}}, expr: func([]Expr) Expr { return e }}
	}
	nullArr := CastTo(NullLit(), types.Array(tInt))
	nullStr := CastTo(NullLit(), tStr)
	strs := rows1(vs("hello world"), vs("HELLO wORLD"), vs("a-b_c d"), vs(""), vs("ünïcode été"), vs("x"), null)
	cs := []gcase{
		// Strings.
		unary("fn2/INITCAP", tStr, strs, func(x Expr) Expr { return Fn("INITCAP", x) }),
		unary("fn2/INITCAP/digits", tStr, rows1(vs("1st place"), vs("o'neil mc-d"), vs("  two  spaces")), func(x Expr) Expr { return Fn("INITCAP", x) }),
		binary("fn2/REPEAT", tStr, tInt, [][]types.Value{{vs("ab"), vi(3)}, {vs("ab"), vi(0)}, {vs("ab"), vi(-1)}, {vs(""), vi(5)}, {null, vi(2)}, {vs("x"), null}},
			func(a, b Expr) Expr { return Fn("REPEAT", a, b) }),
		unary("fn2/REVERSE", tStr, strs, func(x Expr) Expr { return Fn("REVERSE", x) }),
		binary("fn2/LEFT", tStr, tInt, [][]types.Value{{vs("hello"), vi(2)}, {vs("hello"), vi(0)}, {vs("hello"), vi(-1)}, {vs("hello"), vi(9)}, {null, vi(1)}, {vs("a"), null}},
			func(a, b Expr) Expr { return Fn("LEFT", a, b) }),
		binary("fn2/RIGHT", tStr, tInt, [][]types.Value{{vs("hello"), vi(2)}, {vs("hello"), vi(0)}, {vs("hello"), vi(-1)}, {vs("hello"), vi(9)}, {null, vi(1)}, {vs("a"), null}},
			func(a, b Expr) Expr { return Fn("RIGHT", a, b) }),
		binary("fn2/LOCATE", tStr, tStr, [][]types.Value{{vs("lo"), vs("hello lo")}, {vs("z"), vs("hello")}, {vs(""), vs("abc")}, {null, vs("a")}, {vs("a"), null}},
			func(a, b Expr) Expr { return Fn("LOCATE", a, b) }),
		ternary("fn2/LOCATE/from", tStr, tStr, tInt, [][]types.Value{{vs("lo"), vs("hello lo"), vi(5)}, {vs("lo"), vs("hello lo"), vi(0)}, {vs("lo"), vs("hello lo"), vi(-1)}, {vs("lo"), vs("hello lo"), vi(99)}, {vs("l"), vs("hello"), null}},
			func(a, b, c Expr) Expr { return Fn("LOCATE", a, b, c) }),
		unary("fn2/ASCII", tStr, rows1(vs("abc"), vs("A"), vs(""), vs("é"), null), func(x Expr) Expr { return Fn("ASCII", x) }),
		unary("fn2/CHR", tInt, rows1(vi(65), vi(97), vi(0), vi(256), vi(-1), vi(300), null), func(x Expr) Expr { return Fn("CHR", x) }),
		binary("fn2/SPLIT", tStr, tStr, [][]types.Value{{vs("a,b,c"), vs(",")}, {vs("a,,c,"), vs(",")}, {vs("a::b"), vs("::")}, {vs("abc"), vs("")}, {vs(""), vs(",")}, {null, vs(",")}, {vs("a,b"), null}},
			func(a, b Expr) Expr { return Fn("SPLIT", a, b) }),
		unary("fn2/STR_TO_MAP/a", tStr, rows1(vs("a:1,b:2"), vs("a=1"), vs("b:2"), vs("a:1,a:3"), vs("a"), vs(""), null),
			func(x Expr) Expr { return Fn("ITEM", Fn("STR_TO_MAP", x), ls("a")) }),
		unary("fn2/STR_TO_MAP/size", tStr, rows1(vs("a:1,b:2"), vs("a:1,a:3"), vs("a"), vs(""), null),
			func(x Expr) Expr { return Fn("CARDINALITY", Fn("STR_TO_MAP", x)) }),
		unary("fn2/STR_TO_MAP/novalue", tStr, rows1(vs("a"), vs("a:"), vs(":1")),
			func(x Expr) Expr {
				return Fn("ROW", Fn("ITEM", Fn("STR_TO_MAP", x), ls("a")), Fn("ITEM", Fn("STR_TO_MAP", x), ls("")))
			}),
		ternary("fn2/STR_TO_MAP/delims", tStr, tStr, tStr, [][]types.Value{{vs("a=1;b=2"), vs(";"), vs("=")}, {vs("a.1|b.2"), vs("|"), vs(".")}, {vs("a=1"), null, vs("=")}, {vs("a=1"), vs(";"), null}},
			func(a, b, c Expr) Expr { return Fn("ITEM", Fn("STR_TO_MAP", a, b, c), ls("a")) }),

		// GREATEST and LEAST.
		ternary("fn2/GREATEST/int", tInt, tInt, tInt, [][]types.Value{{vi(1), vi(3), vi(2)}, {vi(-1), vi(-3), vi(-2)}, {vi(1), null, vi(2)}, {null, null, null}},
			func(a, b, c Expr) Expr { return Fn("GREATEST", a, b, c) }),
		ternary("fn2/LEAST/int", tInt, tInt, tInt, [][]types.Value{{vi(1), vi(3), vi(2)}, {vi(-1), vi(-3), vi(-2)}, {vi(1), null, vi(2)}},
			func(a, b, c Expr) Expr { return Fn("LEAST", a, b, c) }),
		binary("fn2/GREATEST/int-double", tInt, tDbl, [][]types.Value{{vi(1), vf(1.5)}, {vi(2), vf(-1)}},
			func(a, b Expr) Expr { return Fn("GREATEST", a, b) }),
		binary("fn2/LEAST/int-bigint", tInt, tBig, [][]types.Value{{vi(1), vi(5)}, {vi(2), vi(-9)}},
			func(a, b Expr) Expr { return Fn("LEAST", a, b) }),
		binary("fn2/GREATEST/dec", tDec102, tInt, [][]types.Value{{vd("1.25"), vi(1)}, {vd("0.50"), vi(1)}},
			func(a, b Expr) Expr { return Fn("GREATEST", a, b) }),
		binary("fn2/GREATEST/str", tStr, tStr, [][]types.Value{{vs("apple"), vs("banana")}, {vs("b"), vs("abc")}, {vs(""), vs("a")}},
			func(a, b Expr) Expr { return Fn("GREATEST", a, b) }),
		binary("fn2/LEAST/str", tStr, tStr, [][]types.Value{{vs("apple"), vs("banana")}, {vs("b"), vs("abc")}},
			func(a, b Expr) Expr { return Fn("LEAST", a, b) }),
		binary("fn2/GREATEST/date", tDate, tDate, [][]types.Value{{vdate("2024-01-02"), vdate("2023-12-31")}},
			func(a, b Expr) Expr { return Fn("GREATEST", a, b) }),
		binary("fn2/LEAST/ts", tTs3, tTs3, [][]types.Value{{vts("2024-01-02 00:00:00"), vts("2024-01-01 23:59:59.999")}},
			func(a, b Expr) Expr { return Fn("LEAST", a, b) }),
		binary("fn2/GREATEST/int-str", tInt, tStr, [][]types.Value{{vi(1), vs("2")}},
			func(a, b Expr) Expr { return Fn("GREATEST", a, b) }),
		noCols("fn2/GREATEST/literals", Fn("GREATEST", li(1), li(5), li(3))),
		noCols("fn2/LEAST/null-literal", Fn("LEAST", li(1), NullLit())),

		// Dates.
		unary("fn2/TO_DATE", tStr, rows1(vs("2024-03-15"), vs("2024-3-5"), vs("2024-02-30"), vs("not a date"), vs(""), null),
			func(x Expr) Expr { return Fn("TO_DATE", x) }),
		binary("fn2/TO_DATE/format", tStr, tStr, [][]types.Value{{vs("15/03/2024"), vs("dd/MM/yyyy")}, {vs("20240315"), vs("yyyyMMdd")}, {vs("2024-03-15 10:11:12"), vs("yyyy-MM-dd HH:mm:ss")}, {vs("bad"), vs("yyyyMMdd")}, {null, vs("yyyyMMdd")}, {vs("20240315"), null}},
			func(a, b Expr) Expr { return Fn("TO_DATE", a, b) }),
		ternary("fn2/CONVERT_TZ", tStr, tStr, tStr, [][]types.Value{
			{vs("2024-01-01 00:00:00"), vs("UTC"), vs("Asia/Shanghai")},
			{vs("2024-07-01 12:30:00"), vs("America/New_York"), vs("UTC")},
			{vs("2024-03-10 02:30:00"), vs("America/New_York"), vs("UTC")},
			{vs("2024-01-01 00:00:00"), vs("GMT+05:30"), vs("UTC")},
			{vs("2024-01-01 00:00:00.123"), vs("UTC"), vs("Europe/Berlin")},
			{vs("bad"), vs("UTC"), vs("UTC")},
			{null, vs("UTC"), vs("UTC")}, {vs("2024-01-01 00:00:00"), null, vs("UTC")}},
			func(a, b, c Expr) Expr { return Fn("CONVERT_TZ", a, b, c) }),

		// Arrays.
		binary("fn2/ARRAY_CONTAINS", tInt, tInt, [][]types.Value{{vi(1), vi(1)}, {vi(1), vi(3)}, {vi(1), null}, {null, vi(1)}},
			func(a, b Expr) Expr { return Fn("ARRAY_CONTAINS", arr(a, li(2)), b) }),
		noCols("fn2/ARRAY_CONTAINS/null-array", Fn("ARRAY_CONTAINS", nullArr, li(1))),
		noCols("fn2/ARRAY_CONTAINS/str", Fn("ARRAY_CONTAINS", arr(ls("a"), ls("bc")), ls("bc"))),
		noCols("fn2/ARRAY_CONTAINS/mismatch", Fn("ARRAY_CONTAINS", arr(li(1)), ls("a"))),
		binary("fn2/ARRAY_JOIN", tStr, tStr, [][]types.Value{{vs("a"), vs("b")}, {vs("a"), null}, {null, null}},
			func(a, b Expr) Expr { return Fn("ARRAY_JOIN", arr(a, b, ls("c")), ls(",")) }),
		binary("fn2/ARRAY_JOIN/null-repl", tStr, tStr, [][]types.Value{{vs("a"), null}, {vs("a"), vs("b")}},
			func(a, b Expr) Expr { return Fn("ARRAY_JOIN", arr(a, b), ls("-"), ls("?")) }),
		noCols("fn2/ARRAY_JOIN/null-delim", Fn("ARRAY_JOIN", arr(ls("a")), nullStr)),
		noCols("fn2/ARRAY_JOIN/ints", Fn("ARRAY_JOIN", arr(li(1), li(2)), ls(","))),
		binary("fn2/ARRAY_DISTINCT", tInt, tInt, [][]types.Value{{vi(1), vi(1)}, {vi(1), vi(2)}, {null, null}, {vi(2), null}},
			func(a, b Expr) Expr { return Fn("ARRAY_DISTINCT", arr(a, b, li(2), a)) }),
		noCols("fn2/ARRAY_DISTINCT/null", Fn("ARRAY_DISTINCT", nullArr)),
		binary("fn2/ARRAY_REVERSE", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {null, vi(2)}},
			func(a, b Expr) Expr { return Fn("ARRAY_REVERSE", arr(a, b, li(3))) }),
		noCols("fn2/ARRAY_REVERSE/null", Fn("ARRAY_REVERSE", nullArr)),
		binary("fn2/ARRAY_POSITION", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {vi(1), vi(1)}, {vi(1), vi(9)}, {vi(1), null}, {null, vi(2)}},
			func(a, b Expr) Expr { return Fn("ARRAY_POSITION", arr(a, li(2), li(2)), b) }),
		noCols("fn2/ARRAY_POSITION/null", Fn("ARRAY_POSITION", nullArr, li(1))),
		binary("fn2/ARRAY_REMOVE", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {vi(1), vi(1)}, {vi(1), null}, {null, null}},
			func(a, b Expr) Expr { return Fn("ARRAY_REMOVE", arr(a, li(2), li(2), a), b) }),
		ternary("fn2/ARRAY_SLICE", tInt, tInt, tInt, [][]types.Value{{vi(1), vi(1), vi(2)}, {vi(1), vi(2), vi(9)}, {vi(1), vi(-2), vi(-1)}, {vi(1), vi(3), vi(2)}, {vi(1), vi(0), vi(1)}, {vi(1), null, vi(2)}},
			func(a, b, c Expr) Expr { return Fn("ARRAY_SLICE", arr(a, li(2), li(3), li(4)), b, c) }),
		binary("fn2/ARRAY_SLICE/from", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {vi(1), vi(-1)}, {vi(1), vi(5)}},
			func(a, b Expr) Expr { return Fn("ARRAY_SLICE", arr(a, li(2), li(3)), b) }),
		binary("fn2/ARRAY_CONCAT", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {null, vi(2)}},
			func(a, b Expr) Expr { return Fn("ARRAY_CONCAT", arr(a), arr(b, li(3))) }),
		noCols("fn2/ARRAY_CONCAT/null", Fn("ARRAY_CONCAT", arr(li(1)), nullArr)),
		noCols("fn2/ARRAY_CONCAT/one", Fn("ARRAY_CONCAT", arr(li(1)))),
		binary("fn2/ARRAY_MAX", tInt, tInt, [][]types.Value{{vi(1), vi(5)}, {vi(9), null}, {null, null}},
			func(a, b Expr) Expr { return Fn("ARRAY_MAX", arr(a, b, li(2))) }),
		binary("fn2/ARRAY_MIN", tInt, tInt, [][]types.Value{{vi(1), vi(5)}, {vi(9), null}, {null, null}},
			func(a, b Expr) Expr { return Fn("ARRAY_MIN", arr(a, b, li(2))) }),
		noCols("fn2/ARRAY_MAX/str", Fn("ARRAY_MAX", arr(ls("b"), ls("abc")))),
		noCols("fn2/ARRAY_MIN/null", Fn("ARRAY_MIN", nullArr)),

		// Maps (single-entry maps: Flink prints several entries in no
		// stable order).
		binary("fn2/MAP_KEYS", tStr, tInt, [][]types.Value{{vs("a"), vi(1)}, {vs("b"), null}},
			func(a, b Expr) Expr { return Fn("MAP_KEYS", mp(a, b)) }),
		binary("fn2/MAP_VALUES", tStr, tInt, [][]types.Value{{vs("a"), vi(1)}, {vs("b"), null}},
			func(a, b Expr) Expr { return Fn("MAP_VALUES", mp(a, b)) }),
		noCols("fn2/MAP_KEYS/size", Fn("CARDINALITY", Fn("MAP_KEYS", mp(ls("a"), li(1), ls("b"), li(2), ls("a"), li(3))))),
		noCols("fn2/MAP_KEYS/contains", Fn("ARRAY_CONTAINS", Fn("MAP_KEYS", mp(ls("a"), li(1), ls("b"), li(2))), ls("b"))),
		noCols("fn2/MAP_VALUES/null", Fn("MAP_VALUES", CastTo(NullLit(), types.Map(tStr, tInt)))),
	}
	return cs
}
