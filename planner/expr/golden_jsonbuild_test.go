package expr

import (
	"github.com/streamsql/streamsql/types"
)

// jsonBuildCases cover JSON_OBJECT, JSON_ARRAY and JSON_STRING: every
// value type Flink converts, NULLs under both ON NULL clauses, nesting,
// escapes and repeated keys. Ids start with "jsonb/".
func jsonBuildCases() []gcase {
	obj := func(args ...Expr) Expr { return Fn("JSON_OBJECT", args...) }
	objAbsent := func(args ...Expr) Expr { return Fn(JSONObjectAbsent, args...) }
	arr := func(args ...Expr) Expr { return Fn("JSON_ARRAY", args...) }
	arrNull := func(args ...Expr) Expr { return Fn(JSONArrayNull, args...) }
	noCols := func(id string, e Expr) gcase {
		return gcase{id: id, rows: [][]types.Value{{}}, expr: func([]Expr) Expr { return e }}
	}
	isJSONRows := rows1(vs(`{"a": 1}`), vs(" [1, 2] "), vs("1"), vs(`"s"`), vs("true"), vs("null"), vs("{"), vs("abc"), vs(""), vs("{} x"), vs("[1] [2]"), vs("'a'"), vs("NaN"), null)
	strs := rows1(vs("abc"), vs(`q"b\s/`), vs("tab\tnl\ncr\r\x01\x1f"), vs("é€😀"), vs(""), null)
	return []gcase{
		unary("jsonb/JSON_OBJECT/string", tStr, strs, func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/string-absent", tStr, strs, func(x Expr) Expr { return objAbsent(ls("k"), x, ls("b"), li(1)) }),
		unary("jsonb/JSON_OBJECT/int", tInt, rows1(vi(0), vi(-7), vi(2147483647), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/bigint", tBig, rows1(vi(9007199254740993), vi(-1), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/double", tDbl, rows1(vf(1.5), vf(2), vf(1e20), vf(1e-5), vf(-0.1), vf(0), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/float", types.Float(), rows1(vf(1.5), vf(0.1), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/decimal", tDec102, rows1(vd("10.25"), vd("1.00"), vd("-0.50"), vd("0.00"), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/boolean", tBool, rows1(vb(true), vb(false), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/timestamp", tTs3, rows1(vts("2024-03-01 10:00:00"), vts("2024-03-01 10:00:02.5"), vts("2024-03-01 10:00:02.123"), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/timestamp6", types.TimestampType(6), rows1(vts("2024-03-01 10:00:00.000120"), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/timestamp-ltz", tLTZ3, rows1(vltz(0), vltz(1709287202500), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/date", tDate, rows1(vdate("2024-03-01")), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/bytes", types.Bytes(), rows1(types.BytesValue([]byte("hi\x00")), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/array", types.Array(tInt), rows1(types.List([]types.Value{vi(1), null, vi(3)}), null), func(x Expr) Expr { return obj(ls("k"), x) }),
		unary("jsonb/JSON_OBJECT/row", tStr, rows1(vs("a"), null), func(x Expr) Expr { return obj(ls("k"), Fn("ROW", x, li(2))) }),
		unary("jsonb/JSON_OBJECT/map", tStr, rows1(vs("a"), null), func(x Expr) Expr { return obj(ls("k"), Fn("MAP", ls("x"), x)) }),
		unary("jsonb/JSON_OBJECT/row-names", tInt, rows1(vi(1), null), func(x Expr) Expr {
			return obj(ls("k"), CastTo(Fn("ROW", x, ls("b"), li(3)), types.RowType(types.Field{Name: "z", Type: tInt}, types.Field{Name: "a", Type: tStr}, types.Field{Name: "m", Type: tInt})))
		}),
		unary("jsonb/JSON_OBJECT/map-order", tStr, rows1(vs("a"), null), func(x Expr) Expr { return obj(ls("k"), Fn("MAP", ls("zz"), x, ls("aa"), ls("y"), ls("mm"), ls("w"))) }),
		unary("jsonb/JSON_OBJECT/key-order", tInt, rows1(vi(1)), func(x Expr) Expr {
			return obj(ls("b"), x, ls("B"), x, ls("é"), x, ls("a1"), x, ls("a"), x, ls("😀"), x, ls("\uFFFD"), x)
		}),
		unary("jsonb/JSON_OBJECT/map-int-key", tInt, rows1(vi(1)), func(x Expr) Expr { return obj(ls("k"), Fn("MAP", x, ls("v"))) }),
		binary("jsonb/JSON_OBJECT/two", tStr, tInt, [][]types.Value{{vs("a"), vi(1)}, {null, vi(2)}, {vs("b"), null}, {null, null}},
			func(a, b Expr) Expr { return obj(ls("name"), a, ls("n"), b) }),
		binary("jsonb/JSON_OBJECT/two-absent", tStr, tInt, [][]types.Value{{vs("a"), vi(1)}, {null, vi(2)}, {null, null}},
			func(a, b Expr) Expr { return objAbsent(ls("name"), a, ls("n"), b) }),
		binary("jsonb/JSON_OBJECT/repeated-key", tStr, tInt, [][]types.Value{{vs("a"), vi(1)}, {vs("b"), null}},
			func(a, b Expr) Expr { return obj(ls("k"), a, ls("m"), li(0), ls("k"), b) }),
		unary("jsonb/JSON_OBJECT/key-escape", tInt, rows1(vi(1)), func(x Expr) Expr { return obj(ls(`a"b`), x) }),
		unary("jsonb/JSON_OBJECT/nested", tStr, rows1(vs("a"), null), func(x Expr) Expr {
			return obj(ls("o"), obj(ls("x"), x), ls("a"), arr(x, li(1)), ls("s"), x)
		}),
		unary("jsonb/JSON_OBJECT/nested-string", tStr, rows1(vs(`{"a":1}`)), func(x Expr) Expr { return obj(ls("j"), x) }),
		noCols("jsonb/JSON_OBJECT/empty", obj()),
		noCols("jsonb/JSON_OBJECT/null-literal", obj(ls("k"), NullLit())),
		unary("jsonb/JSON_ARRAY/string", tStr, strs, func(x Expr) Expr { return arr(x, li(1)) }),
		unary("jsonb/JSON_ARRAY/string-null", tStr, strs, func(x Expr) Expr { return arrNull(x, li(1)) }),
		binary("jsonb/JSON_ARRAY/mixed", tDbl, tBool, [][]types.Value{{vf(1.5), vb(true)}, {null, vb(false)}, {vf(3), null}},
			func(a, b Expr) Expr { return arr(a, b, ls("s"), arr(), obj(ls("k"), a)) }),
		noCols("jsonb/JSON_ARRAY/empty", arr()),
		noCols("jsonb/JSON_ARRAY/empty-null", arrNull()),
		unary("jsonb/JSON_STRING/string", tStr, strs, func(x Expr) Expr { return Fn("JSON_STRING", x) }),
		unary("jsonb/JSON_STRING/int", tInt, rows1(vi(12), null), func(x Expr) Expr { return Fn("JSON_STRING", x) }),
		unary("jsonb/JSON_STRING/double", tDbl, rows1(vf(1), vf(0.25), null), func(x Expr) Expr { return Fn("JSON_STRING", x) }),
		unary("jsonb/JSON_STRING/decimal", tDec102, rows1(vd("3.10"), null), func(x Expr) Expr { return Fn("JSON_STRING", x) }),
		unary("jsonb/JSON_STRING/boolean", tBool, rows1(vb(true), null), func(x Expr) Expr { return Fn("JSON_STRING", x) }),
		unary("jsonb/JSON_STRING/timestamp", tTs3, rows1(vts("2024-03-01 10:00:00.100"), null), func(x Expr) Expr { return Fn("JSON_STRING", x) }),
		unary("jsonb/JSON_STRING/array", types.Array(tStr), rows1(types.List([]types.Value{vs("a"), null}), null), func(x Expr) Expr { return Fn("JSON_STRING", x) }),
		unary("jsonb/JSON_STRING/row", tInt, rows1(vi(1), null), func(x Expr) Expr { return Fn("JSON_STRING", Fn("ROW", x, ls("b"))) }),
		unary("jsonb/JSON_STRING/json-object", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("JSON_STRING", obj(ls("a"), x)) }),
		unary("jsonb/IS_JSON/value", tStr, isJSONRows, func(x Expr) Expr { return Fn("IS JSON VALUE", x) }),
		unary("jsonb/IS_JSON/scalar", tStr, isJSONRows, func(x Expr) Expr { return Fn("IS JSON SCALAR", x) }),
		unary("jsonb/IS_JSON/array", tStr, isJSONRows, func(x Expr) Expr { return Fn("IS JSON ARRAY", x) }),
		unary("jsonb/IS_JSON/object", tStr, isJSONRows, func(x Expr) Expr { return Fn("IS JSON OBJECT", x) }),
		unary("jsonb/IS_JSON/not", tStr, isJSONRows, func(x Expr) Expr { return Fn("NOT", Fn("IS JSON OBJECT", x)) }),
		unary("jsonb/JSON_QUOTE", tStr, rows1(vs(`a"b\\c/d`), vs("t\tn\nr\rb\bf\f\x01"), vs("é€😀"), vs(""), null), func(x Expr) Expr { return Fn("JSON_QUOTE", x) }),
		unary("jsonb/JSON_UNQUOTE", tStr, rows1(vs(`"abc"`), vs(`"a\"b\\c\/d\n\t\u00e9\u20AC"`), vs(`"\ud83d\ude00"`), vs("123"), vs(`{"a":1}`), vs("[1] [2]"), vs("abc"), vs(`"unterminated`), vs(`""`), vs("1"), vs(""), null),
			func(x Expr) Expr { return Fn("JSON_UNQUOTE", x) }),
		unary("jsonb/JSON_STRING/date", tDate, rows1(vdate("2024-03-01")), func(x Expr) Expr { return Fn("JSON_STRING", x) }),
	}
}
