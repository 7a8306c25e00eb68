package expr

import (
	"github.com/streamsql/streamsql/types"
)

// constCases check result types (nullability above all) of calls on
// NOT NULL literals, and the values of a few constant forms. Ids start
// with "more/const/".
func constCases() []gcase {
	dec := func(s string, p, sc int) Expr {
		return Lit(types.DecimalType(p, sc).NotNullable(), decimalIn(s, p, sc))
	}
	ts := Lit(types.TimestampType(3).NotNullable(), vts("2024-03-05 07:08:09.123"))
	date := Lit(types.Date().NotNullable(), vdate("2024-03-05"))
	lt := Lit(types.Boolean().NotNullable(), vb(true))
	big := func(i int64) Expr { return Lit(types.BigInt().NotNullable(), vi(i)) }
	exprs := map[string]Expr{
		"concat-op":       Fn("||", ls("a"), ls("bc")),
		"concat":          Fn("CONCAT", ls("a"), ls("bc")),
		"concat-ws":       Fn("CONCAT_WS", ls("-"), ls("a"), ls("b")),
		"char-length":     Fn("CHAR_LENGTH", ls("abc")),
		"int-plus":        Fn("+", li(1), li(2)),
		"int-div":         Fn("/", li(7), li(2)),
		"dec-div":         Fn("/", dec("1.00", 3, 2), dec("3", 1, 0)),
		"mod":             Fn("MOD", li(7), li(3)),
		"cast-string":     CastTo(li(1), types.String()),
		"try-cast":        TryCastTo(ls("1"), types.Int()),
		"regexp-extract":  Fn("REGEXP_EXTRACT", ls("a1"), ls(`\d`)),
		"regexp-replace":  Fn("REGEXP_REPLACE", ls("a1"), ls(`\d`), ls("x")),
		"to-timestamp":    Fn("TO_TIMESTAMP", ls("2024-01-01 00:00:00")),
		"substring":       Fn("SUBSTRING", ls("abc"), li(1), li(2)),
		"trim":            Fn("TRIM", ls(" a ")),
		"upper":           Fn("UPPER", ls("a")),
		"lower":           Fn("LOWER", ls("A")),
		"md5":             Fn("MD5", ls("a")),
		"sha256":          Fn("SHA256", ls("a")),
		"round":           Fn("ROUND", dec("1.25", 3, 2), li(1)),
		"round-int":       Fn("ROUND", li(15), li(-1)),
		"abs":             Fn("ABS", li(-1)),
		"coalesce":        Fn("COALESCE", NullLit(), li(1)),
		"if":              Fn("IF", lt, li(1), li(2)),
		"nullif":          Fn("NULLIF", li(1), li(2)),
		"lpad":            Fn("LPAD", ls("a"), li(3), ls("x")),
		"rpad":            Fn("RPAD", ls("a"), li(3), ls("x")),
		"replace":         Fn("REPLACE", ls("abc"), ls("b"), ls("x")),
		"position":        Fn("POSITION", ls("b"), ls("abc")),
		"split-index":     Fn("SPLIT_INDEX", ls("a,b"), ls(","), li(1)),
		"date-format":     Fn("DATE_FORMAT", ts, ls("yyyy")),
		"extract":         FnUnit("EXTRACT", UnitYear, date),
		"json-value":      Fn("JSON_VALUE", ls(`{"a":1}`), ls("$.a")),
		"json-query":      Fn("JSON_QUERY", ls(`{"a":[1]}`), ls("$.a")),
		"json-exists":     Fn("JSON_EXISTS", ls(`{"a":1}`), ls("$.a")),
		"ceil":            Fn("CEIL", dec("1.5", 2, 1)),
		"floor-to":        FnUnit("FLOOR", UnitDay, ts),
		"timestampadd":    FnUnit("TIMESTAMPADD", UnitDay, li(1), date),
		"timestampdiff":   FnUnit("TIMESTAMPDIFF", UnitDay, ts, ts),
		"from-unixtime":   Fn("FROM_UNIXTIME", big(0)),
		"unix-timestamp":  Fn("UNIX_TIMESTAMP", ls("2024-01-01 00:00:00")),
		"to-ts-ltz":       Fn("TO_TIMESTAMP_LTZ", big(0), li(3)),
		"power":           Fn("POWER", li(2), li(3)),
		"sqrt":            Fn("SQRT", li(4)),
		"like":            Fn("LIKE", ls("abc"), ls("a%")),
		"in":              Fn("IN", li(1), li(1), li(2)),
		"between":         Fn("BETWEEN", li(1), li(0), li(2)),
		"case-no-else":    &Case{Whens: []When{{lt, li(1)}}},
		"case-else":       &Case{Whens: []When{{lt, li(1)}}, Else: li(2)},
		"is-distinct":     Fn("IS DISTINCT FROM", li(1), NullLit()),
		"and-null":        Fn("AND", lt, Fn("IS NULL", li(1))),
		"uuid":            Fn("UUID"),
		"now":             Fn("NOW"),
		"localtimestamp":  Fn("LOCALTIMESTAMP"),
		"current-ts":      Fn("CURRENT_TIMESTAMP"),
		"unix-ts-now":     Fn("UNIX_TIMESTAMP"),
		"cast-ts-date":    CastTo(ts, types.Date()),
		"cast-dec-int":    CastTo(dec("9.99", 3, 2), types.Int()),
		"negate":          Fn("NEGATE", li(5)),
		"not":             Fn("NOT", lt),
		"dec-times-int":   Fn("*", dec("1.5", 2, 1), li(3)),
		"double-plus-dec": Fn("+", Lit(types.Double().NotNullable(), vf(0.5)), dec("1.25", 3, 2)),
	}
	var cs []gcase
	for _, name := range sortedKeys(exprs) {
		e := exprs[name]
		_, random := nonDeterministicConst[name]
		cs = append(cs, gcase{id: "more/const/" + name, rows: [][]types.Value{{}}, expr: func([]Expr) Expr { return e }, typeOnly: random})
	}
	return cs
}

var nonDeterministicConst = map[string]bool{"uuid": true, "now": true, "localtimestamp": true, "current-ts": true, "unix-ts-now": true}

func sortedKeys(m map[string]Expr) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
