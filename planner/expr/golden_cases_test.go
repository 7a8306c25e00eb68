package expr

import (
	"math"

	"github.com/streamsql/streamsql/internal/javatime"
	"github.com/streamsql/streamsql/types"
)

// The golden cases: each is an expression over a few typed input columns
// and rows of inputs (NULLs included). Their expected results are not
// written here: tools/flink-functions-gen evaluates them with Flink and
// stores what Flink returns in testdata/flink/results.json.

type gcol struct {
	name string
	typ  types.Type
}

type gcase struct {
	id   string
	cols []gcol
	rows [][]types.Value
	expr func(c []Expr) Expr
	// typeOnly marks non-deterministic expressions (NOW(), UUID()): only
	// their type and the absence of errors are compared.
	typeOnly bool
	// zone, when set, is the case's session time zone instead of
	// goldenZone.
	zone string
}

// Value helpers.
var null types.Value

func vi(i int64) types.Value   { return types.Int64(i) }
func vf(f float64) types.Value { return types.Float64(f) }
func vs(s string) types.Value  { return types.Str(s) }
func vb(b bool) types.Value    { return types.Bool(b) }
func vd(s string) types.Value  { d, _ := types.ParseDecimal(s); return types.DecimalValue(d) }
func vdate(s string) types.Value {
	d, _ := javatime.ParseDate(s, javatime.SQLDate)
	return types.DateValue(int32(d))
}
func vts(s string) types.Value {
	ts, ok := javatime.ParseSQLTimestamp(s)
	if !ok {
		panic("bad timestamp " + s)
	}
	return types.TimestampValue(ts)
}
func vltz(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }

// decimalIn returns a DECIMAL(p, s) value of the text.
func decimalIn(s string, p, sc int) types.Value {
	d, _ := types.ParseDecimal(s)
	r, _ := d.Rescale(p, sc)
	return types.DecimalValue(r)
}

// Literal helpers with Flink's literal types.
func li(i int64) Expr  { return Lit(types.Int().NotNullable(), types.Int64(i)) }
func ls(s string) Expr { return Lit(types.Char(len([]rune(s))).NotNullable(), types.Str(s)) }

func col(name string, t types.Type) gcol { return gcol{name: name, typ: t} }

func rows1(vs ...types.Value) [][]types.Value {
	out := make([][]types.Value, len(vs))
	for i, v := range vs {
		out[i] = []types.Value{v}
	}
	return out
}

var (
	tInt    = types.Int()
	tBig    = types.BigInt()
	tStr    = types.String()
	tDbl    = types.Double()
	tBool   = types.Boolean()
	tDec102 = types.DecimalType(10, 2)
	tDec53  = types.DecimalType(5, 3)
	tTs3    = types.TimestampType(3)
	tLTZ3   = types.TimestampLTZ(3)
	tDate   = types.Date()
)

// unary builds a case of f over one column of type t.
func unary(id string, t types.Type, rows [][]types.Value, f func(x Expr) Expr) gcase {
	return gcase{id: id, cols: []gcol{col("x", t)}, rows: rows, expr: func(c []Expr) Expr { return f(c[0]) }}
}

// binary builds a case of f over two columns.
func binary(id string, ta, tb types.Type, rows [][]types.Value, f func(a, b Expr) Expr) gcase {
	return gcase{id: id, cols: []gcol{col("a", ta), col("b", tb)}, rows: rows, expr: func(c []Expr) Expr { return f(c[0], c[1]) }}
}

func ternary(id string, ta, tb, tc types.Type, rows [][]types.Value, f func(a, b, c Expr) Expr) gcase {
	return gcase{id: id, cols: []gcol{col("a", ta), col("b", tb), col("c", tc)}, rows: rows,
		expr: func(c []Expr) Expr { return f(c[0], c[1], c[2]) }}
}

func op(name string) func(a, b Expr) Expr { return func(a, b Expr) Expr { return Fn(name, a, b) } }

var boolPairs = [][]types.Value{
	{vb(true), vb(true)}, {vb(true), vb(false)}, {vb(true), null},
	{vb(false), vb(true)}, {vb(false), vb(false)}, {vb(false), null},
	{null, vb(true)}, {null, vb(false)}, {null, null},
}

func goldenCases() []gcase {
	intPairs := [][]types.Value{{vi(7), vi(2)}, {vi(-7), vi(2)}, {vi(7), vi(-2)}, {vi(0), vi(5)}, {null, vi(1)}, {vi(1), null},
		{vi(2147483647), vi(1)}}
	var cs []gcase
	for _, o := range []string{"+", "-", "*", "/", "%"} {
		cs = append(cs,
			binary("arith/int"+o, tInt, tInt, intPairs, op(o)),
			binary("arith/bigint-int"+o, tBig, tInt, [][]types.Value{{vi(10000000000), vi(3)}, {vi(-9), vi(4)}, {null, vi(2)}}, op(o)),
			binary("arith/dec"+o, tDec102, tDec53, [][]types.Value{{decimalIn("12.34", 10, 2), decimalIn("1.5", 5, 3)},
				{decimalIn("-0.01", 10, 2), decimalIn("3", 5, 3)}, {decimalIn("99999999.99", 10, 2), decimalIn("0.001", 5, 3)}, {null, decimalIn("1", 5, 3)}}, op(o)),
			binary("arith/dec-int"+o, tDec102, tInt, [][]types.Value{{decimalIn("10.25", 10, 2), vi(4)}, {decimalIn("-3.50", 10, 2), vi(-2)}, {decimalIn("1", 10, 2), null}}, op(o)),
			binary("arith/double-int"+o, tDbl, tInt, [][]types.Value{{vf(7.5), vi(2)}, {vf(-0.1), vi(3)}, {vf(1e300), vi(10)}, {null, vi(1)}}, op(o)),
		)
	}
	cs = append(cs,
		binary("arith/int-div-zero", tInt, tInt, [][]types.Value{{vi(1), vi(0)}, {vi(4), vi(2)}}, op("/")),
		binary("arith/double-div-zero", tDbl, tDbl, [][]types.Value{{vf(1), vf(0)}, {vf(0), vf(0)}, {vf(-1), vf(0)}}, op("/")),
		unary("arith/negate-int", tInt, rows1(vi(5), vi(-3), null), func(x Expr) Expr { return Fn("NEGATE", x) }),
		unary("arith/negate-dec", tDec102, rows1(decimalIn("1.25", 10, 2), null), func(x Expr) Expr { return Fn("NEGATE", x) }),
		binary("arith/mod-fn", tInt, tInt, intPairs[:6], op("MOD")),
	)
	for _, o := range []string{"=", "<>", "<", "<=", ">", ">="} {
		cs = append(cs,
			binary("cmp/int-bigint"+o, tInt, tBig, [][]types.Value{{vi(1), vi(1)}, {vi(1), vi(2)}, {vi(3), vi(2)}, {null, vi(1)}, {vi(1), null}}, op(o)),
			binary("cmp/string"+o, tStr, tStr, [][]types.Value{{vs("a"), vs("b")}, {vs("b"), vs("b")}, {vs("é"), vs("z")}, {vs(""), null}}, op(o)),
			binary("cmp/dec-int"+o, tDec102, tInt, [][]types.Value{{decimalIn("1.00", 10, 2), vi(1)}, {decimalIn("1.01", 10, 2), vi(1)}, {null, vi(1)}}, op(o)),
			binary("cmp/double-dec"+o, tDbl, tDec102, [][]types.Value{{vf(0.1), decimalIn("0.10", 10, 2)}, {vf(2), decimalIn("1.5", 10, 2)}}, op(o)),
			binary("cmp/ts"+o, tTs3, tTs3, [][]types.Value{{vts("2024-01-01 00:00:00"), vts("2024-01-01 00:00:00.001")}, {vts("2024-05-05 10:00:00"), vts("2024-05-05 10:00:00")}, {null, vts("2024-01-01 00:00:00")}}, op(o)),
			binary("cmp/bool"+o, tBool, tBool, boolPairs[:6], op(o)),
		)
	}
	cs = append(cs,
		binary("logic/and", tBool, tBool, boolPairs, op("AND")),
		binary("logic/or", tBool, tBool, boolPairs, op("OR")),
		unary("logic/not", tBool, rows1(vb(true), vb(false), null), func(x Expr) Expr { return Fn("NOT", x) }),
	)
	for _, n := range []string{"IS NULL", "IS NOT NULL"} {
		cs = append(cs, unary("null/"+n, tStr, rows1(vs("x"), vs(""), null), func(x Expr) Expr { return Fn(n, x) }))
	}
	for _, n := range []string{"IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"} {
		cs = append(cs, unary("null/"+n, tBool, rows1(vb(true), vb(false), null), func(x Expr) Expr { return Fn(n, x) }))
	}
	for _, n := range []string{"IS DISTINCT FROM", "IS NOT DISTINCT FROM"} {
		cs = append(cs, binary("null/"+n, tInt, tBig, [][]types.Value{{vi(1), vi(1)}, {vi(1), vi(2)}, {null, vi(1)}, {vi(1), null}, {null, null}}, op(n)))
	}
	betweenRows := [][]types.Value{{vi(5), vi(1), vi(10)}, {vi(0), vi(1), vi(10)}, {vi(5), null, vi(10)}, {vi(50), null, vi(10)}, {null, vi(1), vi(2)}, {vi(5), vi(10), vi(1)}}
	cs = append(cs,
		ternary("between/int", tInt, tInt, tInt, betweenRows, func(a, b, c Expr) Expr { return Fn("BETWEEN", a, b, c) }),
		ternary("between/not", tInt, tInt, tInt, betweenRows, func(a, b, c Expr) Expr { return Fn("NOT BETWEEN", a, b, c) }),
		unary("in/int", tInt, rows1(vi(1), vi(4), null), func(x Expr) Expr { return Fn("IN", x, li(1), li(2), li(3)) }),
		unary("in/with-null", tInt, rows1(vi(1), vi(4), null), func(x Expr) Expr { return Fn("IN", x, li(1), NullLit()) }),
		unary("in/not", tInt, rows1(vi(1), vi(4), null), func(x Expr) Expr { return Fn("NOT IN", x, li(1), li(2)) }),
		unary("in/not-with-null", tInt, rows1(vi(1), vi(4)), func(x Expr) Expr { return Fn("NOT IN", x, li(1), NullLit()) }),
		unary("in/string", tStr, rows1(vs("b"), vs("z"), null), func(x Expr) Expr { return Fn("IN", x, ls("a"), ls("b")) }),
		binary("in/columns", tInt, tBig, [][]types.Value{{vi(1), vi(1)}, {vi(1), vi(2)}, {vi(1), null}}, func(a, b Expr) Expr { return Fn("IN", a, b, li(5)) }),
	)
	likeRows := [][]types.Value{{vs("abc"), vs("a%")}, {vs("abc"), vs("%c")}, {vs("abc"), vs("_b_")}, {vs("abc"), vs("a_")}, {vs("a%c"), vs("a!%c")},
		{vs("abc"), vs("a!%c")}, {vs("a.c"), vs("a.c")}, {vs("aXc"), vs("a.c")}, {vs("line1\nline2"), vs("line%")}, {null, vs("a")}, {vs("a"), null}}
	cs = append(cs,
		binary("like/escape", tStr, tStr, likeRows, func(a, b Expr) Expr { return Fn("LIKE", a, b, ls("!")) }),
		binary("like/plain", tStr, tStr, likeRows, func(a, b Expr) Expr { return Fn("LIKE", a, b) }),
		binary("like/not", tStr, tStr, likeRows[:4], func(a, b Expr) Expr { return Fn("NOT LIKE", a, b) }),
		unary("like/const", tStr, rows1(vs("hello world"), vs("say hello"), null), func(x Expr) Expr { return Fn("LIKE", x, ls("%hello%")) }),
	)
	cs = append(cs,
		unary("case/searched", tInt, rows1(vi(1), vi(5), vi(50), null), func(x Expr) Expr {
			return &Case{Whens: []When{{Fn("<", x, li(3)), ls("small")}, {Fn("<", x, li(10)), ls("medium")}}, Else: ls("large")}
		}),
		unary("case/no-else", tInt, rows1(vi(1), vi(5), null), func(x Expr) Expr {
			return &Case{Whens: []When{{Fn("=", x, li(1)), li(100)}}}
		}),
		unary("case/simple", tStr, rows1(vs("a"), vs("b"), vs("c"), null), func(x Expr) Expr {
			return &Case{Operand: x, Whens: []When{{ls("a"), li(1)}, {ls("b"), Lit(types.BigInt().NotNullable(), vi(2))}}, Else: li(0)}
		}),
		unary("case/mixed-numeric", tInt, rows1(vi(1), vi(2)), func(x Expr) Expr {
			return &Case{Whens: []When{{Fn("=", x, li(1)), x}}, Else: Lit(types.DecimalType(3, 1), vd("2.5"))}
		}),
		binary("coalesce/two", tStr, tStr, [][]types.Value{{vs("a"), vs("b")}, {null, vs("b")}, {null, null}}, op("COALESCE")),
		unary("coalesce/literal", tInt, rows1(vi(3), null), func(x Expr) Expr { return Fn("COALESCE", x, li(0)) }),
		binary("coalesce/widen", tInt, tDbl, [][]types.Value{{vi(3), vf(1.5)}, {null, vf(1.5)}}, op("COALESCE")),
		binary("nullif/int", tInt, tInt, [][]types.Value{{vi(1), vi(1)}, {vi(1), vi(2)}, {null, vi(1)}, {vi(1), null}}, op("NULLIF")),
		ternary("if/basic", tBool, tInt, tInt, [][]types.Value{{vb(true), vi(1), vi(2)}, {vb(false), vi(1), vi(2)}, {null, vi(1), vi(2)}, {vb(true), null, vi(2)}},
			func(a, b, c Expr) Expr { return Fn("IF", a, b, c) }),
	)
	cs = append(cs, castCases()...)
	cs = append(cs, stringCases()...)
	cs = append(cs, mathCases()...)
	cs = append(cs, timeCases()...)
	cs = append(cs, jsonCases()...)
	cs = append(cs, moreCases()...)
	cs = append(cs, constCases()...)
	cs = append(cs, lateCases()...)
	cs = append(cs, dstCases()...)
	cs = append(cs, ctorCases()...)
	cs = append(cs, funcCases()...)
	cs = append(cs, funcCases3()...)
	cs = append(cs, jsonBuildCases()...)
	cs = append(cs, symsimCases()...)
	return cs
}

func castTo(t types.Type) func(Expr) Expr { return func(x Expr) Expr { return CastTo(x, t) } }

func castCases() []gcase {
	strs := rows1(vs("12"), vs(" 12 "), vs("-0"), vs("abc"), vs("1.5"), vs("99999999999"), vs(""), null)
	return []gcase{
		unary("cast/string-int", tStr, strs, castTo(tInt)),
		unary("cast/string-bigint", tStr, strs, castTo(tBig)),
		unary("cast/string-tinyint", tStr, rows1(vs("127"), vs("128"), null), castTo(types.TinyInt())),
		unary("cast/string-double", tStr, rows1(vs("1.5"), vs(" 2 "), vs("1e3"), vs("-0.0"), vs("NaN"), vs("abc"), null), castTo(tDbl)),
		unary("cast/string-decimal", tStr, rows1(vs("1.005"), vs("-2.5"), vs("123456789.123"), vs("x"), null), castTo(tDec102)),
		unary("cast/string-boolean", tStr, rows1(vs("true"), vs("FALSE"), vs("1"), vs("yes"), vs("maybe"), null), castTo(tBool)),
		unary("cast/string-date", tStr, rows1(vs("2024-02-29"), vs("2024-2-3"), vs("2023-02-29"), vs("nope"), null), castTo(tDate)),
		unary("cast/string-timestamp", tStr, rows1(vs("2024-01-02 03:04:05"), vs("2024-01-02 03:04:05.123456"), vs("2024-01-02"), vs("2024-01-02T03:04:05"), vs("bad"), null), castTo(tTs3)),
		unary("cast/string-ltz", tStr, rows1(vs("2024-01-02 03:04:05"), null), castTo(tLTZ3)),
		unary("cast/string-char3", tStr, rows1(vs("a"), vs("abcdef"), null), castTo(types.Char(3))),
		unary("cast/string-varchar3", tStr, rows1(vs("a"), vs("abcdef"), null), castTo(types.VarChar(3))),
		unary("cast/int-string", tInt, rows1(vi(0), vi(-42), null), castTo(tStr)),
		unary("cast/double-string", tDbl, rows1(vf(1), vf(0.1), vf(1e10), vf(1.5e-5), vf(123456789.5), vf(-0.001), vf(math.Inf(1)), vf(math.NaN()), null), castTo(tStr)),
		unary("cast/float-string", types.Float(), rows1(vf(float64(float32(0.1))), vf(1e10), null), castTo(tStr)),
		unary("cast/decimal-string", tDec102, rows1(decimalIn("0.5", 10, 2), decimalIn("-12", 10, 2), null), castTo(tStr)),
		unary("cast/bool-string", tBool, rows1(vb(true), vb(false), null), castTo(tStr)),
		unary("cast/ts-string", tTs3, rows1(vts("2024-01-02 03:04:05"), vts("2024-01-02 03:04:05.1"), null), castTo(tStr)),
		unary("cast/ts6-string", types.TimestampType(6), rows1(vts("2024-01-02 03:04:05.123456"), null), castTo(tStr)),
		unary("cast/ltz-string", tLTZ3, rows1(vltz(0), vltz(1700000000123), null), castTo(tStr)),
		unary("cast/date-string", tDate, rows1(vdate("2024-03-01"), null), castTo(tStr)),
		unary("cast/int-decimal", tInt, rows1(vi(5), vi(123456789), null), castTo(types.DecimalType(5, 2))),
		unary("cast/double-int", tDbl, rows1(vf(1.9), vf(-1.9), vf(1e20), vf(math.NaN()), null), castTo(tInt)),
		unary("cast/double-bigint", tDbl, rows1(vf(1.9), vf(-1.9), vf(1e20), null), castTo(tBig)),
		unary("cast/double-decimal", tDbl, rows1(vf(0.125), vf(2.675), vf(1e20), null), castTo(tDec102)),
		unary("cast/decimal-int", tDec102, rows1(decimalIn("9.99", 10, 2), decimalIn("-9.99", 10, 2), null), castTo(tInt)),
		unary("cast/decimal-decimal", tDec102, rows1(decimalIn("1.25", 10, 2), decimalIn("-1.25", 10, 2), decimalIn("12345.67", 10, 2), null), castTo(types.DecimalType(5, 1))),
		unary("cast/int-tinyint", tInt, rows1(vi(300), vi(-129), null), castTo(types.TinyInt())),
		unary("cast/int-boolean", tInt, rows1(vi(0), vi(2), null), castTo(tBool)),
		unary("cast/boolean-int", tBool, rows1(vb(true), vb(false), null), castTo(tInt)),
		unary("cast/ts-date", tTs3, rows1(vts("2024-01-02 23:59:59"), vts("1969-12-31 23:00:00"), null), castTo(tDate)),
		unary("cast/date-ts", tDate, rows1(vdate("2024-01-02"), null), castTo(tTs3)),
		unary("cast/ts-ltz", tTs3, rows1(vts("2024-01-02 03:04:05"), null), castTo(tLTZ3)),
		unary("cast/ltz-ts", tLTZ3, rows1(vltz(0), null), castTo(tTs3)),
		unary("cast/ltz-date", tLTZ3, rows1(vltz(1704127445000), null), castTo(tDate)),
		unary("cast/ts-time", tTs3, rows1(vts("2024-01-02 03:04:05.678"), null), castTo(types.Time(0))),
		unary("cast/bigint-ltz", tBig, rows1(vi(1700000000), null), castTo(tLTZ3)),
		unary("cast/ts-precision", types.TimestampType(6), rows1(vts("2024-01-02 03:04:05.123456"), null), castTo(types.TimestampType(0))),
		unary("trycast/string-int", tStr, strs, func(x Expr) Expr { return TryCastTo(x, tInt) }),
		unary("trycast/string-date", tStr, rows1(vs("2024-01-01"), vs("x"), null), func(x Expr) Expr { return TryCastTo(x, tDate) }),
	}
}

func stringCases() []gcase {
	words := rows1(vs("Hello World"), vs("  padded  "), vs(""), vs("ÄÖü ß"), null)
	return []gcase{
		unary("fn/UPPER", tStr, words, func(x Expr) Expr { return Fn("UPPER", x) }),
		unary("fn/LOWER", tStr, words, func(x Expr) Expr { return Fn("LOWER", x) }),
		unary("fn/UPPER/char", types.Char(5), rows1(vs("ab   "), null), func(x Expr) Expr { return Fn("UPPER", x) }),
		unary("fn/TRIM", tStr, words, func(x Expr) Expr { return Fn("TRIM", x) }),
		unary("fn/LTRIM", tStr, words, func(x Expr) Expr { return Fn("LTRIM", x) }),
		unary("fn/RTRIM", tStr, words, func(x Expr) Expr { return Fn("RTRIM", x) }),
		unary("fn/TRIM/chars", tStr, rows1(vs("xxhixyx"), vs("hi"), null), func(x Expr) Expr { return Fn("TRIM", x, ls("xy")) }),
		unary("fn/TRIM/leading", tStr, rows1(vs("xxhixx"), null), func(x Expr) Expr { return Fn("LTRIM", x, ls("x")) }),
		unary("fn/TRIM/tabs", tStr, rows1(vs("\t a \t")), func(x Expr) Expr { return Fn("TRIM", x) }),
		binary("fn/CONCAT", tStr, tStr, [][]types.Value{{vs("a"), vs("b")}, {vs(""), vs("b")}, {vs("a"), null}}, op("CONCAT")),
		ternary("fn/CONCAT/3", tStr, tInt, tStr, [][]types.Value{{vs("a"), vi(1), vs("c")}, {vs("a"), null, vs("c")}}, func(a, b, c Expr) Expr {
			return Fn("CONCAT", a, CastTo(b, tStr), c)
		}),
		binary("fn/||", tStr, tStr, [][]types.Value{{vs("a"), vs("b")}, {null, vs("b")}}, op("||")),
		binary("fn/||/varchar", types.VarChar(3), types.VarChar(4), [][]types.Value{{vs("abc"), vs("d")}}, op("||")),
		ternary("fn/CONCAT_WS", tStr, tStr, tStr, [][]types.Value{{vs("-"), vs("a"), vs("b")}, {vs("-"), null, vs("b")}, {null, vs("a"), vs("b")}, {vs(""), vs("a"), vs("b")}},
			func(a, b, c Expr) Expr { return Fn("CONCAT_WS", a, b, c) }),
		ternary("fn/SUBSTRING", tStr, tInt, tInt, [][]types.Value{{vs("hello"), vi(2), vi(3)}, {vs("hello"), vi(0), vi(2)}, {vs("hello"), vi(-3), vi(2)}, {vs("hello"), vi(4), vi(10)},
			{vs("hello"), vi(9), vi(1)}, {vs("hello"), vi(2), vi(-1)}, {vs("héllo"), vi(2), vi(2)}, {null, vi(1), vi(1)}, {vs("x"), null, vi(1)}, {vs("x"), vi(1), null}},
			func(a, b, c Expr) Expr { return Fn("SUBSTRING", a, b, c) }),
		binary("fn/SUBSTRING/2", tStr, tInt, [][]types.Value{{vs("hello"), vi(2)}, {vs("hello"), vi(-2)}, {vs("hello"), vi(0)}, {vs("hello"), vi(6)}, {null, vi(1)}}, op("SUBSTR")),
		ternary("fn/REPLACE", tStr, tStr, tStr, [][]types.Value{{vs("banana"), vs("an"), vs("AN")}, {vs("abc"), vs(""), vs("x")}, {vs("abc"), vs("b"), vs("")}, {null, vs("a"), vs("b")}, {vs("a"), vs("a"), null}},
			func(a, b, c Expr) Expr { return Fn("REPLACE", a, b, c) }),
		unary("fn/CHAR_LENGTH", tStr, words, func(x Expr) Expr { return Fn("CHAR_LENGTH", x) }),
		binary("fn/POSITION", tStr, tStr, [][]types.Value{{vs("lo"), vs("hello")}, {vs("z"), vs("hello")}, {vs(""), vs("hello")}, {vs("l"), vs("héllo")}, {null, vs("a")}}, op("POSITION")),
		ternary("fn/LPAD", tStr, tInt, tStr, [][]types.Value{{vs("hi"), vi(5), vs("xy")}, {vs("hello"), vi(3), vs("x")}, {vs("hi"), vi(-1), vs("x")}, {vs("hi"), vi(4), vs("")}, {vs("hi"), vi(0), vs("x")}, {null, vi(3), vs("x")}},
			func(a, b, c Expr) Expr { return Fn("LPAD", a, b, c) }),
		ternary("fn/RPAD", tStr, tInt, tStr, [][]types.Value{{vs("hi"), vi(5), vs("xy")}, {vs("hello"), vi(3), vs("x")}, {vs("hi"), vi(-1), vs("x")}, {null, vi(3), vs("x")}},
			func(a, b, c Expr) Expr { return Fn("RPAD", a, b, c) }),
		ternary("fn/REGEXP_REPLACE", tStr, tStr, tStr, [][]types.Value{{vs("foobar"), vs("o+"), vs("0")}, {vs("2024-01-02"), vs("(\\d+)-(\\d+)-(\\d+)"), vs("$3/$2/$1")},
			{vs("abc"), vs("("), vs("x")}, {null, vs("a"), vs("b")}, {vs("abc"), null, vs("b")}},
			func(a, b, c Expr) Expr { return Fn("REGEXP_REPLACE", a, b, c) }),
		ternary("fn/REGEXP_EXTRACT", tStr, tStr, tInt, [][]types.Value{{vs("foo123bar"), vs("([a-z]+)(\\d+)"), vi(2)}, {vs("foo123bar"), vs("([a-z]+)(\\d+)"), vi(0)},
			{vs("foo123bar"), vs("([a-z]+)(\\d+)"), vi(3)}, {vs("nothing"), vs("(\\d+)"), vi(1)}, {null, vs("a"), vi(1)}},
			func(a, b, c Expr) Expr { return Fn("REGEXP_EXTRACT", a, b, c) }),
		binary("fn/REGEXP_EXTRACT/2", tStr, tStr, [][]types.Value{{vs("foo123bar"), vs("\\d+")}, {vs("x"), vs("\\d+")}}, op("REGEXP_EXTRACT")),
		ternary("fn/SPLIT_INDEX", tStr, tStr, tInt, [][]types.Value{{vs("a,b,c"), vs(","), vi(1)}, {vs("a,b,c"), vs(","), vi(3)}, {vs("a,,c"), vs(","), vi(1)}, {vs("a::b"), vs("::"), vi(1)},
			{vs("a,b"), vs(","), vi(-1)}, {null, vs(","), vi(0)}, {vs("a"), null, vi(0)}},
			func(a, b, c Expr) Expr { return Fn("SPLIT_INDEX", a, b, c) }),
		unary("fn/MD5", tStr, rows1(vs("abc"), vs(""), null), func(x Expr) Expr { return Fn("MD5", x) }),
		unary("fn/SHA256", tStr, rows1(vs("abc"), null), func(x Expr) Expr { return Fn("SHA256", x) }),
		unary("fn/UUID", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("CHAR_LENGTH", Fn("UUID")) }),
	}
}

func mathCases() []gcase {
	return []gcase{
		unary("fn/ABS/int", tInt, rows1(vi(-5), vi(5), null), func(x Expr) Expr { return Fn("ABS", x) }),
		unary("fn/ABS/dec", tDec102, rows1(decimalIn("-1.50", 10, 2), null), func(x Expr) Expr { return Fn("ABS", x) }),
		unary("fn/ABS/double", tDbl, rows1(vf(-2.5), null), func(x Expr) Expr { return Fn("ABS", x) }),
		unary("fn/ROUND/dec", tDec102, rows1(decimalIn("2.45", 10, 2), decimalIn("-2.45", 10, 2), decimalIn("2.44", 10, 2), null), func(x Expr) Expr { return Fn("ROUND", x, li(1)) }),
		unary("fn/ROUND/dec0", tDec102, rows1(decimalIn("2.5", 10, 2), decimalIn("-2.5", 10, 2), null), func(x Expr) Expr { return Fn("ROUND", x) }),
		unary("fn/ROUND/dec-neg", tDec102, rows1(decimalIn("1250.00", 10, 2), null), func(x Expr) Expr { return Fn("ROUND", x, li(-2)) }),
		unary("fn/ROUND/double", tDbl, rows1(vf(2.675), vf(-2.5), vf(0.125), null), func(x Expr) Expr { return Fn("ROUND", x, li(2)) }),
		unary("fn/ROUND/double0", tDbl, rows1(vf(2.5), vf(-2.5), vf(1.4999)), func(x Expr) Expr { return Fn("ROUND", x) }),
		unary("fn/ROUND/int", tInt, rows1(vi(1250), vi(-1250), vi(1249), null), func(x Expr) Expr { return Fn("ROUND", x, li(-2)) }),
		unary("fn/FLOOR/double", tDbl, rows1(vf(1.5), vf(-1.5), null), func(x Expr) Expr { return Fn("FLOOR", x) }),
		unary("fn/CEIL/double", tDbl, rows1(vf(1.5), vf(-1.5), null), func(x Expr) Expr { return Fn("CEIL", x) }),
		unary("fn/FLOOR/dec", tDec102, rows1(decimalIn("1.50", 10, 2), decimalIn("-1.50", 10, 2), null), func(x Expr) Expr { return Fn("FLOOR", x) }),
		unary("fn/CEIL/dec", tDec102, rows1(decimalIn("1.50", 10, 2), decimalIn("-1.50", 10, 2), null), func(x Expr) Expr { return Fn("CEIL", x) }),
		unary("fn/CEIL/int", tInt, rows1(vi(3), null), func(x Expr) Expr { return Fn("CEIL", x) }),
		binary("fn/MOD/dec", tDec102, tInt, [][]types.Value{{decimalIn("10.50", 10, 2), vi(3)}, {decimalIn("-10.50", 10, 2), vi(3)}}, op("MOD")),
		binary("fn/POWER", tInt, tDbl, [][]types.Value{{vi(2), vf(10)}, {vi(2), vf(0.5)}, {vi(-8), vf(1.0 / 3)}, {null, vf(1)}}, op("POWER")),
		unary("fn/SQRT", tDbl, rows1(vf(16), vf(2), vf(-1), null), func(x Expr) Expr { return Fn("SQRT", x) }),
		unary("fn/SQRT/int", tInt, rows1(vi(9), null), func(x Expr) Expr { return Fn("SQRT", x) }),
	}
}

func timeCases() []gcase {
	tsRows := rows1(vts("2024-03-05 07:08:09.123"), vts("1999-12-31 23:59:59"), null)
	unit := func(name string, u TimeUnit) func(x Expr) Expr {
		return func(x Expr) Expr { return FnUnit(name, u, x) }
	}
	cs := []gcase{
		unary("fn/DATE_FORMAT/ts", tTs3, tsRows, func(x Expr) Expr { return Fn("DATE_FORMAT", x, ls("yyyy-MM-dd HH:mm:ss")) }),
		unary("fn/DATE_FORMAT/ts2", tTs3, tsRows, func(x Expr) Expr { return Fn("DATE_FORMAT", x, ls("yyyyMMdd'T'HH.SSS EEE MMM a hh D")) }),
		unary("fn/DATE_FORMAT/ltz", tLTZ3, rows1(vltz(0), vltz(1700000000123), null), func(x Expr) Expr { return Fn("DATE_FORMAT", x, ls("yyyy-MM-dd HH:mm:ss.SSS")) }),
		unary("fn/DATE_FORMAT/string", tStr, rows1(vs("2024-03-05 07:08:09"), vs("garbage"), null), func(x Expr) Expr { return Fn("DATE_FORMAT", x, ls("MM/dd/yyyy")) }),
		unary("fn/TO_TIMESTAMP/1", tStr, rows1(vs("2024-03-05 07:08:09"), vs("2024-03-05 07:08:09.5"), vs("2024-03-05"), vs("bad"), null), func(x Expr) Expr { return Fn("TO_TIMESTAMP", x) }),
		unary("fn/TO_TIMESTAMP/2", tStr, rows1(vs("05/03/2024 07:08"), vs("5/3/2024 07:08"), vs("bad"), null), func(x Expr) Expr { return Fn("TO_TIMESTAMP", x, ls("dd/MM/yyyy HH:mm")) }),
		unary("fn/TO_TIMESTAMP/compact", tStr, rows1(vs("20240305070809"), null), func(x Expr) Expr { return Fn("TO_TIMESTAMP", x, ls("yyyyMMddHHmmss")) }),
		unary("fn/TO_TIMESTAMP_LTZ/ms", tBig, rows1(vi(1700000000123), vi(0), null), func(x Expr) Expr { return Fn("TO_TIMESTAMP_LTZ", x, li(3)) }),
		unary("fn/TO_TIMESTAMP_LTZ/s", tBig, rows1(vi(1700000000), null), func(x Expr) Expr { return Fn("TO_TIMESTAMP_LTZ", x, li(0)) }),
		unary("fn/FROM_UNIXTIME", tBig, rows1(vi(0), vi(1700000000), null), func(x Expr) Expr { return Fn("FROM_UNIXTIME", x) }),
		unary("fn/FROM_UNIXTIME/fmt", tBig, rows1(vi(1700000000), null), func(x Expr) Expr { return Fn("FROM_UNIXTIME", x, ls("yyyy/MM/dd HH")) }),
		unary("fn/UNIX_TIMESTAMP/1", tStr, rows1(vs("1970-01-01 08:00:00"), vs("2024-03-05 07:08:09"), vs("bad"), null), func(x Expr) Expr { return Fn("UNIX_TIMESTAMP", x) }),
		unary("fn/UNIX_TIMESTAMP/2", tStr, rows1(vs("2024/03/05"), null), func(x Expr) Expr { return Fn("UNIX_TIMESTAMP", x, ls("yyyy/MM/dd")) }),
		unary("fn/NOW", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("IS NOT NULL", Fn("NOW")) }),
		unary("fn/CURRENT_TIMESTAMP", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("IS NOT NULL", Fn("CURRENT_TIMESTAMP")) }),
		unary("fn/LOCALTIMESTAMP", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("IS NOT NULL", Fn("LOCALTIMESTAMP")) }),
		unary("fn/UNIX_TIMESTAMP/0", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn(">", Fn("UNIX_TIMESTAMP"), li(0)) }),
		binary("fn/TIMESTAMPDIFF/day", tTs3, tTs3, [][]types.Value{{vts("2024-01-01 00:00:00"), vts("2024-01-03 12:00:00")}, {vts("2024-01-03 12:00:00"), vts("2024-01-01 00:00:00")}, {null, vts("2024-01-01 00:00:00")}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPDIFF", UnitDay, a, b) }),
		binary("fn/TIMESTAMPDIFF/month", tTs3, tTs3, [][]types.Value{{vts("2024-01-31 00:00:00"), vts("2024-02-29 00:00:00")}, {vts("2024-01-15 00:00:00"), vts("2024-03-15 00:00:00")}, {vts("2024-03-15 00:00:00"), vts("2024-01-16 00:00:00")}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPDIFF", UnitMonth, a, b) }),
		binary("fn/TIMESTAMPDIFF/second", tTs3, tTs3, [][]types.Value{{vts("2024-01-01 00:00:00"), vts("2024-01-01 00:01:01.9")}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPDIFF", UnitSecond, a, b) }),
		binary("fn/TIMESTAMPADD/month", tInt, tTs3, [][]types.Value{{vi(1), vts("2024-01-31 10:00:00")}, {vi(-2), vts("2024-03-31 10:00:00")}, {null, vts("2024-01-01 00:00:00")}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPADD", UnitMonth, a, b) }),
		binary("fn/TIMESTAMPADD/hour", tInt, tTs3, [][]types.Value{{vi(25), vts("2024-01-31 10:00:00")}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPADD", UnitHour, a, b) }),
		binary("fn/TIMESTAMPADD/date", tInt, tDate, [][]types.Value{{vi(3), vdate("2024-02-27")}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPADD", UnitDay, a, b) }),
	}
	for _, u := range []TimeUnit{UnitYear, UnitQuarter, UnitMonth, UnitWeek, UnitDay, UnitHour, UnitMinute, UnitSecond, UnitMillisecond, UnitDayOfWeek, UnitDayOfYear, UnitDecade, UnitCentury, UnitMillennium, UnitEpoch} {
		cs = append(cs, unary("fn/EXTRACT/"+u.String(), tTs3, tsRows, unit("EXTRACT", u)))
	}
	cs = append(cs,
		unary("fn/EXTRACT/date", tDate, rows1(vdate("2024-12-30"), null), unit("EXTRACT", UnitWeek)),
		unary("fn/EXTRACT/ltz", tLTZ3, rows1(vltz(0), null), unit("EXTRACT", UnitHour)),
	)
	for _, u := range []TimeUnit{UnitYear, UnitQuarter, UnitMonth, UnitWeek, UnitDay, UnitHour, UnitMinute, UnitSecond} {
		cs = append(cs,
			unary("fn/FLOOR-TO/"+u.String(), tTs3, tsRows, unit("FLOOR", u)),
			unary("fn/CEIL-TO/"+u.String(), tTs3, tsRows, unit("CEIL", u)),
		)
	}
	cs = append(cs, unary("fn/CEIL-TO/exact", tTs3, rows1(vts("2024-03-01 00:00:00")), unit("CEIL", UnitDay)))
	return cs
}

func jsonCases() []gcase {
	docs := rows1(vs(`{"a": {"b": [1, 2.50, "x", true, null, {"c": "d"}]}, "s": "str", "n": 7}`), vs(`[1, 2]`), vs(`not json`), null)
	var cs []gcase
	for i, path := range []string{"$.s", "$.n", "$.a.b[1]", "$.a.b[2]", "$.a.b[3]", "$.a.b[4]", "$.a.b", "$.a.b[5]", "$.missing", "$[0]", "lax $.a.b[0]", "$.a.b[9]"} {
		p := path
		for _, fn := range []string{"JSON_VALUE", "JSON_QUERY", "JSON_EXISTS"} {
			f := fn
			cs = append(cs, unary("fn/"+f+"/"+string(rune('a'+i)), tStr, docs, func(x Expr) Expr { return Fn(f, x, ls(p)) }))
		}
	}
	return append(cs,
		unary("fn/ITEM/array", types.Array(tInt), rows1(types.List([]types.Value{vi(10), null, vi(30)}), null), func(x Expr) Expr { return Fn("ITEM", x, li(1)) }),
		unary("fn/ITEM/array-out", types.Array(tInt), rows1(types.List([]types.Value{vi(10)})), func(x Expr) Expr { return Fn("ITEM", x, li(3)) }),
		unary("fn/ITEM/map", types.Map(tStr, tInt), rows1(types.MapValue(&types.MapData{Keys: []types.Value{vs("k"), vs("z")}, Values: []types.Value{vi(1), vi(2)}}), null),
			func(x Expr) Expr { return Fn("ITEM", x, ls("z")) }),
		unary("fn/ITEM/map-missing", types.Map(tStr, tInt), rows1(types.MapValue(&types.MapData{Keys: []types.Value{vs("k")}, Values: []types.Value{vi(1)}})),
			func(x Expr) Expr { return Fn("ITEM", x, ls("nope")) }),
	)
}
