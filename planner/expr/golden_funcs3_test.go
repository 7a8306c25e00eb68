package expr

import (
	"github.com/streamsql/streamsql/types"
)

// funcCases3 cover the second batch of Flink 2.x built-ins: numeric
// functions (LN, EXP, trigonometry, SIGN, PI, E), more string functions
// (INSTR, STARTSWITH, BTRIM, base64, SHA-*, URL_ENCODE, REGEXP, ...),
// IFNULL, and the remaining ARRAY and MAP functions. Ids start with
// "fn3/".
func funcCases3() []gcase {
	arr := func(args ...Expr) Expr { return Fn("ARRAY", args...) }
	mp := func(args ...Expr) Expr { return Fn("MAP", args...) }
	noCols := func(id string, e Expr) gcase {
		return gcase{id: id, rows: [][]types.Value{{}}, expr: func([]Expr) Expr { return e }}
	}
	nullArr := CastTo(NullLit(), types.Array(tInt))
	dbls := rows1(vf(0), vf(1), vf(0.5), vf(-2.5), vf(100), null)
	var cs []gcase
	for _, f := range []string{"LN", "LOG10", "LOG2", "EXP", "SIN", "COS", "TAN", "COT", "ASIN", "ACOS", "ATAN", "SINH", "COSH", "TANH", "DEGREES", "RADIANS"} {
		f := f
		cs = append(cs, unary("fn3/"+f, tDbl, dbls, func(x Expr) Expr { return Fn(f, x) }))
	}
	cs = append(cs,
		unary("fn3/LN/int", tInt, rows1(vi(1), vi(10), null), func(x Expr) Expr { return Fn("LN", x) }),
		unary("fn3/LOG/one", tDbl, dbls, func(x Expr) Expr { return Fn("LOG", x) }),
		binary("fn3/LOG/base", tDbl, tDbl, [][]types.Value{{vf(2), vf(8)}, {vf(10), vf(1000)}, {vf(1), vf(5)}, {vf(0.5), vf(4)}, {vf(-2), vf(4)}, {null, vf(2)}},
			func(a, b Expr) Expr { return Fn("LOG", a, b) }),
		binary("fn3/ATAN2", tDbl, tDbl, [][]types.Value{{vf(1), vf(1)}, {vf(0), vf(-1)}, {null, vf(1)}}, func(a, b Expr) Expr { return Fn("ATAN2", a, b) }),
		noCols("fn3/PI", Fn("PI")),
		noCols("fn3/E", Fn("E")),
		unary("fn3/SIGN/int", tInt, rows1(vi(5), vi(-3), vi(0), null), func(x Expr) Expr { return Fn("SIGN", x) }),
		unary("fn3/SIGN/double", tDbl, rows1(vf(2.5), vf(-0.1), vf(0), null), func(x Expr) Expr { return Fn("SIGN", x) }),
		unary("fn3/SIGN/decimal", tDec102, rows1(vd("12.34"), vd("-0.01"), vd("0.00")), func(x Expr) Expr { return Fn("SIGN", x) }),

		// Strings.
		binary("fn3/INSTR", tStr, tStr, [][]types.Value{{vs("hello lo"), vs("lo")}, {vs("hello"), vs("z")}, {vs("abc"), vs("")}, {vs("ünï"), vs("ï")}, {null, vs("a")}, {vs("a"), null}},
			func(a, b Expr) Expr { return Fn("INSTR", a, b) }),
		binary("fn3/STARTSWITH", tStr, tStr, [][]types.Value{{vs("hello"), vs("he")}, {vs("hello"), vs("lo")}, {vs("hello"), vs("")}, {null, vs("a")}},
			func(a, b Expr) Expr { return Fn("STARTSWITH", a, b) }),
		binary("fn3/ENDSWITH", tStr, tStr, [][]types.Value{{vs("hello"), vs("lo")}, {vs("hello"), vs("he")}, {vs("hello"), vs("")}, {vs("a"), null}},
			func(a, b Expr) Expr { return Fn("ENDSWITH", a, b) }),
		unary("fn3/BTRIM", tStr, rows1(vs("  ab  "), vs("ab"), vs("   "), null), func(x Expr) Expr { return Fn("BTRIM", x) }),
		binary("fn3/BTRIM/chars", tStr, tStr, [][]types.Value{{vs("xxabyx"), vs("xy")}, {vs("ab"), vs("")}, {vs("ab"), null}},
			func(a, b Expr) Expr { return Fn("BTRIM", a, b) }),
		unary("fn3/TO_BASE64", tStr, rows1(vs("hello world"), vs(""), vs("é"), null), func(x Expr) Expr { return Fn("TO_BASE64", x) }),
		unary("fn3/FROM_BASE64", tStr, rows1(vs("aGVsbG8gd29ybGQ="), vs(""), vs("w6k="), vs("not base64!"), null), func(x Expr) Expr { return Fn("FROM_BASE64", x) }),
		unary("fn3/SHA1", tStr, rows1(vs("abc"), vs(""), null), func(x Expr) Expr { return Fn("SHA1", x) }),
		unary("fn3/SHA224", tStr, rows1(vs("abc"), null), func(x Expr) Expr { return Fn("SHA224", x) }),
		unary("fn3/SHA384", tStr, rows1(vs("abc"), null), func(x Expr) Expr { return Fn("SHA384", x) }),
		unary("fn3/SHA512", tStr, rows1(vs("abc"), null), func(x Expr) Expr { return Fn("SHA512", x) }),
		binary("fn3/SHA2", tStr, tInt, [][]types.Value{{vs("abc"), vi(224)}, {vs("abc"), vi(256)}, {vs("abc"), vi(384)}, {vs("abc"), vi(512)}, {vs("abc"), vi(100)}, {vs("abc"), vi(0)}, {null, vi(256)}, {vs("abc"), null}},
			func(a, b Expr) Expr { return Fn("SHA2", a, b) }),
		unary("fn3/URL_ENCODE", tStr, rows1(vs("a b&c=d/é~*-_.!"), vs(""), null), func(x Expr) Expr { return Fn("URL_ENCODE", x) }),
		unary("fn3/URL_DECODE", tStr, rows1(vs("a+b%26c%3Dd%2F%C3%A9"), vs("%zz"), vs("100%"), vs(""), null), func(x Expr) Expr { return Fn("URL_DECODE", x) }),
		binary("fn3/REGEXP", tStr, tStr, [][]types.Value{{vs("foobar"), vs("o+b")}, {vs("foobar"), vs("^bar")}, {vs("foobar"), vs("")}, {vs("foobar"), vs("(")}, {null, vs("a")}, {vs("a"), null}},
			func(a, b Expr) Expr { return Fn("REGEXP", a, b) }),
		binary("fn3/REGEXP_COUNT", tStr, tStr, [][]types.Value{{vs("abcabc"), vs("b")}, {vs("aaa"), vs("a*")}, {vs("abc"), vs("z")}, {vs("abc"), vs("(")}, {null, vs("a")}},
			func(a, b Expr) Expr { return Fn("REGEXP_COUNT", a, b) }),

		unary("fn3/CHARACTER_LENGTH", tStr, rows1(vs("héllo"), null), func(x Expr) Expr { return Fn("CHARACTER_LENGTH", x) }),

		// IFNULL.
		binary("fn3/IFNULL", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {null, vi(2)}, {null, null}}, func(a, b Expr) Expr { return Fn("IFNULL", a, b) }),
		unary("fn3/IFNULL/literal", tInt, rows1(vi(1), null), func(x Expr) Expr { return Fn("IFNULL", x, li(0)) }),
		unary("fn3/IFNULL/widen", tInt, rows1(vi(1), null), func(x Expr) Expr { return Fn("IFNULL", x, Lit(tDbl.NotNullable(), vf(0.5))) }),
		unary("fn3/IFNULL/str", tStr, rows1(vs("a"), null), func(x Expr) Expr { return Fn("IFNULL", x, ls("none")) }),

		// Arrays.
		binary("fn3/ARRAY_APPEND", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {vi(1), null}}, func(a, b Expr) Expr { return Fn("ARRAY_APPEND", arr(a), b) }),
		noCols("fn3/ARRAY_APPEND/null", Fn("ARRAY_APPEND", nullArr, li(1))),
		noCols("fn3/ARRAY_APPEND/widen", Fn("ARRAY_APPEND", arr(li(1)), Lit(tBig.NotNullable(), vi(2)))),
		binary("fn3/ARRAY_PREPEND", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {vi(1), null}}, func(a, b Expr) Expr { return Fn("ARRAY_PREPEND", arr(a), b) }),
		binary("fn3/ARRAY_UNION", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {vi(1), vi(1)}, {null, vi(3)}},
			func(a, b Expr) Expr { return Fn("ARRAY_UNION", arr(a, li(3), a), arr(b, li(3))) }),
		noCols("fn3/ARRAY_UNION/null", Fn("ARRAY_UNION", arr(li(1)), nullArr)),
		binary("fn3/ARRAY_EXCEPT", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {vi(1), vi(1)}, {null, vi(3)}, {null, null}},
			func(a, b Expr) Expr { return Fn("ARRAY_EXCEPT", arr(a, li(3), a, li(4)), arr(b, li(3))) }),
		binary("fn3/ARRAY_INTERSECT", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {vi(1), vi(1)}, {null, vi(3)}, {null, null}},
			func(a, b Expr) Expr { return Fn("ARRAY_INTERSECT", arr(a, li(3), a, li(4)), arr(b, li(3), li(4))) }),
		binary("fn3/ARRAY_SORT", tInt, tInt, [][]types.Value{{vi(3), vi(1)}, {null, vi(2)}, {vi(2), vi(2)}},
			func(a, b Expr) Expr { return Fn("ARRAY_SORT", arr(a, b, li(5), li(0))) }),
		binary("fn3/ARRAY_SORT/desc", tInt, tInt, [][]types.Value{{vi(3), vi(1)}, {null, vi(2)}},
			func(a, b Expr) Expr {
				return Fn("ARRAY_SORT", arr(a, b, li(5)), Lit(tBool.NotNullable(), vb(false)))
			}),
		binary("fn3/ARRAY_SORT/nulls", tBool, tBool, [][]types.Value{{vb(true), vb(true)}, {vb(true), vb(false)}, {vb(false), vb(true)}, {vb(false), vb(false)}, {null, vb(true)}},
			func(a, b Expr) Expr { return Fn("ARRAY_SORT", arr(li(2), CastTo(NullLit(), tInt), li(1)), a, b) }),
		noCols("fn3/ARRAY_SORT/str", Fn("ARRAY_SORT", arr(ls("b"), ls("a"), ls("c")))),

		// Maps (single entries, or read back by key: Flink prints several
		// entries in no stable order).
		binary("fn3/MAP_ENTRIES", tStr, tInt, [][]types.Value{{vs("a"), vi(1)}, {vs("b"), null}}, func(a, b Expr) Expr { return Fn("MAP_ENTRIES", mp(a, b)) }),
		noCols("fn3/MAP_ENTRIES/null", Fn("MAP_ENTRIES", CastTo(NullLit(), types.Map(tStr, tInt)))),
		// Flink 2.2.1 fails (ClassCastException) when ITEM or CARDINALITY
		// reads the map MAP_FROM_ARRAYS or MAP_UNION built, so these
		// print maps of one entry.
		binary("fn3/MAP_FROM_ARRAYS/one", tStr, tInt, [][]types.Value{{vs("a"), vi(1)}, {vs("a"), null}, {null, vi(1)}},
			func(a, b Expr) Expr { return Fn("MAP_FROM_ARRAYS", arr(a), arr(b)) }),
		binary("fn3/MAP_FROM_ARRAYS/dup", tStr, tStr, [][]types.Value{{vs("a"), vs("a")}},
			func(a, b Expr) Expr { return Fn("MAP_FROM_ARRAYS", arr(a, b), arr(li(1), li(2))) }),
		noCols("fn3/MAP_FROM_ARRAYS/lengths", Fn("MAP_FROM_ARRAYS", arr(ls("a"), ls("b")), arr(li(1)))),
		noCols("fn3/MAP_FROM_ARRAYS/null", Fn("MAP_FROM_ARRAYS", CastTo(NullLit(), types.Array(tStr)), arr(li(1)))),
		binary("fn3/MAP_UNION/one", tStr, tInt, [][]types.Value{{vs("a"), vi(9)}, {vs("a"), null}},
			func(a, b Expr) Expr { return Fn("MAP_UNION", mp(ls("a"), li(1)), mp(a, b)) }),
		noCols("fn3/MAP_UNION/null", Fn("MAP_UNION", mp(ls("a"), li(1)), CastTo(NullLit(), types.Map(tStr, tInt)))),
	)
	return cs
}
