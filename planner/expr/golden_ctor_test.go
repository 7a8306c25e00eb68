package expr

import (
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// ctorCases cover the value constructors ARRAY[...], MAP[...] and
// ROW(...) and the functions on their values (CARDINALITY, ELEMENT,
// subscripts, field access, CAST, comparison). Ids start with
// "more/ctor/" (ONLY=more/ctor/ regenerates them alone).
func ctorCases() []gcase {
	noCols := func(id string, e Expr) gcase {
		return gcase{id: id, rows: [][]types.Value{{}}, expr: func([]Expr) Expr { return e }}
	}
	arr := func(args ...Expr) *Call { return Fn("ARRAY", args...) }
	mp := func(args ...Expr) *Call { return Fn("MAP", args...) }
	row := func(args ...Expr) *Call { return Fn("ROW", args...) }
	big := func(i int64) Expr { return Lit(types.BigInt().NotNullable(), vi(i)) }
	dec := func(s string, p, sc int) Expr {
		return Lit(types.DecimalType(p, sc).NotNullable(), decimalIn(s, p, sc))
	}
	list := func(vs ...types.Value) types.Value { return types.List(vs) }
	tArrInt := types.Array(tInt)
	// Flink prints a MAP's entries in no stable order (two runs of the same
	// query differ), so a MAP of several entries is compared by its type
	// (typeOnly) and by the ROW of its values at keys, and CARDINALITY.
	mapCase := func(id string, m Expr, keys ...Expr) []gcase {
		fields := make([]Expr, 0, len(keys)+1)
		for _, k := range keys {
			fields = append(fields, Fn("ITEM", m, k))
		}
		return []gcase{
			{id: id, rows: [][]types.Value{{}}, typeOnly: true, expr: func([]Expr) Expr { return m }},
			noCols(id+"/entries", Fn("ROW", append(fields, Fn("CARDINALITY", m))...)),
		}
	}
	cs := []gcase{
		// ARRAY: element types, nullability, errors.
		noCols("more/ctor/array/ints", arr(li(1), li(2))),
		noCols("more/ctor/array/null-elem", arr(li(1), NullLit())),
		noCols("more/ctor/array/bools-null", arr(Lit(types.Boolean().NotNullable(), vb(true)), NullLit(), Lit(types.Boolean().NotNullable(), vb(false)))),
		noCols("more/ctor/array/mixed-literals", arr(li(1), big(2), dec("2.5", 2, 1))),
		noCols("more/ctor/array/tinyint-smallint", arr(CastTo(li(1), types.TinyInt()), CastTo(li(2), types.SmallInt()))),
		noCols("more/ctor/array/chars", arr(ls("a"), ls("bcd"))),
		noCols("more/ctor/array/char-null", arr(ls("a"), NullLit())),
		noCols("more/ctor/array/char-varchar", arr(ls("a"), CastTo(ls("bc"), types.VarChar(5)))),
		noCols("more/ctor/array/typed-null", arr(CastTo(NullLit(), tInt))),
		noCols("more/ctor/array/empty", arr()),
		noCols("more/ctor/array/all-null", arr(NullLit(), NullLit())),
		noCols("more/ctor/array/int-string", arr(li(1), ls("a"))),
		noCols("more/ctor/array/date-timestamp", arr(Lit(tDate.NotNullable(), vdate("2024-01-01")), Lit(types.TimestampType(0).NotNullable(), vts("2024-01-01 00:00:00")))),
		noCols("more/ctor/array/nested", arr(arr(li(1)), arr(li(2), li(3)))),
		noCols("more/ctor/array/nested-null", arr(arr(li(1)), NullLit())),
		noCols("more/ctor/array/nested-null-elem", arr(arr(li(1)), arr(CastTo(NullLit(), tInt)))),
		noCols("more/ctor/array/nested-mismatch", arr(arr(li(1)), arr(ls("a")))),
		noCols("more/ctor/array/rows", arr(row(li(1), ls("a")), row(big(2), ls("bc")))),
		noCols("more/ctor/array/rows-null", arr(row(li(1), ls("a")), NullLit())),
		noCols("more/ctor/array/rows-arity", arr(row(li(1)), row(li(1), li(2)))),
		unary("more/ctor/array/column", tInt, rows1(vi(1), null), func(x Expr) Expr { return arr(x, li(2)) }),
		unary("more/ctor/array/column-alone", tInt, rows1(null, vi(5)), func(x Expr) Expr { return arr(x) }),
		unary("more/ctor/array/of-array-column", tArrInt, rows1(list(vi(1)), null), func(x Expr) Expr { return arr(x) }),
		ternary("more/ctor/array/int-bigint-decimal", tInt, tBig, tDec102,
			[][]types.Value{{vi(1), vi(2), decimalIn("3.5", 10, 2)}, {null, vi(2), null}, {vi(-7), vi(10000000000), decimalIn("0.01", 10, 2)}},
			func(a, b, c Expr) Expr { return arr(a, b, c) }),
		binary("more/ctor/array/int-double", tInt, tDbl, [][]types.Value{{vi(1), vf(2.5)}, {null, vf(-0.5)}}, func(a, b Expr) Expr { return arr(a, b) }),
		binary("more/ctor/array/float-int", types.Float(), tInt, [][]types.Value{{vf(1), vi(2)}}, func(a, b Expr) Expr { return arr(a, b) }),
		// ARRAY in expressions.
		binary("more/ctor/array/item", tInt, tInt, [][]types.Value{{vi(5), vi(1)}, {vi(5), vi(2)}, {vi(5), vi(3)}, {null, vi(1)}, {vi(5), null}, {vi(5), vi(0)}},
			func(a, b Expr) Expr { return Fn("ITEM", arr(a, li(7)), b) }),
		noCols("more/ctor/array/item-null-elem", Fn("ITEM", arr(li(1), NullLit()), li(2))),
		unary("more/ctor/array/cardinality", tInt, rows1(vi(1), null), func(x Expr) Expr { return Fn("CARDINALITY", arr(x, li(2), li(3))) }),
		unary("more/ctor/array/cardinality-column", tArrInt, rows1(list(vi(1), vi(2)), list(null), null), func(x Expr) Expr { return Fn("CARDINALITY", x) }),
		unary("more/ctor/array/element", tInt, rows1(vi(7), null), func(x Expr) Expr { return Fn("ELEMENT", arr(x)) }),
		noCols("more/ctor/array/element-many", Fn("ELEMENT", arr(li(1), li(2)))),
		unary("more/ctor/array/element-column", tArrInt, rows1(list(vi(1)), list(null), list(vi(1), vi(2)), null), func(x Expr) Expr { return Fn("ELEMENT", x) }),
		unary("more/ctor/array/cast-bigint", tInt, rows1(vi(1), null), func(x Expr) Expr { return CastTo(arr(x, li(2)), types.Array(tBig)) }),
		noCols("more/ctor/array/cast-string-elems", CastTo(arr(li(1), li(2)), types.Array(tStr))),
		unary("more/ctor/array/cast-bad-elem", tStr, rows1(vs("2"), vs("x")), func(x Expr) Expr { return CastTo(arr(ls("1"), x), tArrInt) }),
		binary("more/ctor/array/equals", tInt, tInt, [][]types.Value{{vi(1), vi(2)}, {vi(1), vi(3)}, {null, vi(2)}}, func(a, b Expr) Expr { return Fn("=", arr(a, li(2)), arr(li(1), b)) }),
		unary("more/ctor/array/is-not-null", tInt, rows1(null), func(x Expr) Expr { return Fn("IS NOT NULL", arr(x)) }),
		unary("more/ctor/array/case-merge", tBool, rows1(vb(true), vb(false)), func(x Expr) Expr {
			return &Case{Whens: []When{{x, arr(li(1))}}, Else: arr(li(1), NullLit())}
		}),
		// MAP.
		noCols("more/ctor/map/duplicate", mp(ls("a"), li(1), ls("a"), li(2))),
		noCols("more/ctor/map/duplicate-item", Fn("ITEM", mp(ls("a"), li(1), ls("a"), li(2)), ls("a"))),
		noCols("more/ctor/map/duplicate-cardinality", Fn("CARDINALITY", mp(ls("a"), li(1), ls("a"), li(2)))),
		noCols("more/ctor/map/odd", mp(ls("a"), li(1), ls("b"))),
		noCols("more/ctor/map/empty", mp()),
		noCols("more/ctor/map/only-null-key", mp(NullLit(), li(1))),
		noCols("more/ctor/map/only-null-value", mp(ls("a"), NullLit())),
		noCols("more/ctor/map/item", Fn("ITEM", mp(ls("a"), li(1)), ls("a"))),
		noCols("more/ctor/map/item-bigint-key", Fn("ITEM", mp(li(1), ls("a")), big(1))),
		unary("more/ctor/map/column-key", tStr, rows1(vs("k"), vs("j"), null), func(x Expr) Expr { return Fn("ITEM", mp(x, li(1), ls("k"), li(2)), ls("k")) }),
		binary("more/ctor/map/same-keys", tStr, tStr, [][]types.Value{{vs("k"), vs("k")}, {null, null}}, func(a, b Expr) Expr { return mp(a, li(1), b, li(2)) }),
		binary("more/ctor/map/column-item", tStr, tInt, [][]types.Value{{vs("k"), vi(1)}, {vs("j"), vi(2)}, {null, null}}, func(a, b Expr) Expr { return Fn("ITEM", mp(a, b), ls("k")) }),
		unary("more/ctor/map/cast", tInt, rows1(vi(1), null), func(x Expr) Expr { return CastTo(mp(ls("a"), x), types.Map(tStr, tBig)) }),
		unary("more/ctor/map/cardinality", tStr, rows1(vs("a"), vs("b"), null), func(x Expr) Expr { return Fn("CARDINALITY", mp(x, li(1), ls("b"), li(2))) }),
		// ROW.
		noCols("more/ctor/row/literals", row(li(1), ls("a"))),
		noCols("more/ctor/row/one", row(li(1))),
		noCols("more/ctor/row/untyped-null", row(li(1), NullLit())),
		noCols("more/ctor/row/typed-null", row(li(1), CastTo(NullLit(), tInt))),
		noCols("more/ctor/row/nested", row(row(li(1), ls("a")), li(2))),
		noCols("more/ctor/row/with-collections", row(arr(li(1), NullLit()), mp(ls("k"), li(1)))),
		binary("more/ctor/row/columns", tInt, tStr, [][]types.Value{{vi(1), vs("q")}, {null, null}}, func(a, b Expr) Expr { return row(a, b) }),
		unary("more/ctor/row/field", tInt, rows1(vi(1), null), func(x Expr) Expr { return Fn("FIELD", row(x, ls("a")), ls("EXPR$1")) }),
		unary("more/ctor/row/field-0", tInt, rows1(vi(1), null), func(x Expr) Expr { return Fn("FIELD", row(x, ls("a")), ls("EXPR$0")) }),
		noCols("more/ctor/row/field-missing", Fn("FIELD", row(li(1), ls("a")), ls("EXPR$2"))),
		unary("more/ctor/row/item", tInt, rows1(vi(1), null), func(x Expr) Expr { return Fn("ITEM", row(x, ls("a")), li(1)) }),
		noCols("more/ctor/row/item-2", Fn("ITEM", row(li(1), ls("a")), li(2))),
		binary("more/ctor/row/equals", tInt, tBig, [][]types.Value{{vi(1), vi(1)}, {vi(1), vi(2)}, {null, vi(1)}}, func(a, b Expr) Expr { return Fn("=", row(a, ls("a")), row(b, ls("a"))) }),
		noCols("more/ctor/row/equals-arity", Fn("=", row(li(1), ls("a")), row(li(1), ls("a"), li(2)))),
		noCols("more/ctor/row/is-null", Fn("IS NULL", row(li(1), ls("a")))),
		unary("more/ctor/row/not-equals-null", tInt, rows1(null, vi(1)), func(x Expr) Expr { return Fn("<>", row(x, ls("a")), row(li(1), ls("b"))) }),
		unary("more/ctor/row/equals-nested", tInt, rows1(null, vi(1), vi(2)), func(x Expr) Expr { return Fn("=", row(row(x), li(1)), row(row(li(1)), li(1))) }),
		unary("more/ctor/row/in", tInt, rows1(null, vi(1), vi(3)), func(x Expr) Expr { return Fn("IN", row(x, ls("a")), row(li(1), ls("a")), row(li(2), ls("b"))) }),
		unary("more/ctor/row/less", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("<", row(x, ls("a")), row(li(2), ls("a"))) }),
		unary("more/ctor/row/between", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("BETWEEN", row(x), row(li(0)), row(li(2))) }),
		unary("more/ctor/row/distinct-null-field", tInt, rows1(null, vi(1)), func(x Expr) Expr { return Fn("IS DISTINCT FROM", row(x, ls("a")), row(li(1), ls("a"))) }),
		unary("more/ctor/array/less", tInt, rows1(vi(1), vi(2), null), func(x Expr) Expr { return Fn("<", arr(x, li(2)), arr(li(2), li(1))) }),
		unary("more/ctor/array/in", tInt, rows1(vi(1), vi(3), null), func(x Expr) Expr { return Fn("IN", arr(x), arr(li(1)), arr(li(2))) }),
		unary("more/ctor/array/equals-null-elem", tInt, rows1(null, vi(1)), func(x Expr) Expr { return Fn("=", arr(x), arr(li(1))) }),
	}
	// TIMESTAMP with TIMESTAMP_LTZ: Calcite's least restrictive type, which
	// depends on the order and the precisions (see leastRestrictive).
	for _, p := range [][2]int{{3, 3}, {0, 3}, {3, 0}, {6, 3}} {
		ts, ltz := types.TimestampType(p[0]), types.TimestampLTZ(p[1])
		rows := [][]types.Value{{vts("2024-01-01 10:00:00"), vltz(1704067200000)}, {null, vltz(0)}}
		id := fmt.Sprintf("ts%d-ltz%d", p[0], p[1])
		cs = append(cs,
			binary("more/ctor/array/"+id, ts, ltz, rows, func(a, b Expr) Expr { return arr(a, b) }),
			binary("more/ctor/array/"+id+"-reversed", ts, ltz, rows, func(a, b Expr) Expr { return arr(b, a) }),
			binary("more/ctor/case/"+id, ts, ltz, rows, func(a, b Expr) Expr {
				return &Case{Whens: []When{{Fn("IS NOT NULL", a), a}}, Else: b}
			}),
			binary("more/ctor/case/"+id+"-reversed", ts, ltz, rows, func(a, b Expr) Expr {
				return &Case{Whens: []When{{Fn("IS NULL", a), b}}, Else: a}
			}),
		)
	}
	cs = append(cs, mapCase("more/ctor/map/literals", mp(ls("a"), li(1), ls("b"), li(2)), ls("a"), ls("b"))...)
	cs = append(cs, mapCase("more/ctor/map/duplicate-moves", mp(ls("b"), li(1), ls("a"), li(2), ls("b"), li(3)), ls("a"), ls("b"))...)
	cs = append(cs, mapCase("more/ctor/map/null-key", mp(ls("a"), li(1), NullLit(), li(2)), ls("a"))...)
	cs = append(cs, mapCase("more/ctor/map/mixed-types", mp(ls("a"), li(1), ls("bc"), big(2)), ls("a"), ls("bc"))...)
	cs = append(cs, mapCase("more/ctor/map/decimal-keys", mp(li(1), ls("a"), dec("2.5", 2, 1), ls("b")), dec("1.0", 2, 1), dec("2.5", 2, 1))...)
	cs = append(cs, mapCase("more/ctor/map/array-values", mp(ls("a"), arr(li(1)), ls("b"), arr(CastTo(NullLit(), tBig))), ls("a"), ls("b"))...)
	return cs
}
