package ddl

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestExpressions(t *testing.T) {
	cases := []struct{ in, want string }{
		// literals and references
		{"42", "42"},
		{"-7", "-7"},
		{"1.50", "1.50"},
		{"1e3", "1e3"},
		{"'it''s'", "'it''s'"},
		{"X'0aFF'", "X'0aFF'"},
		{"TRUE AND NOT FALSE", "(TRUE AND (NOT FALSE))"},
		{"NULL", "NULL"},
		{"DATE '2024-02-29'", "DATE '2024-02-29'"},
		{"TIME '12:34:56.789'", "TIME '12:34:56.789'"},
		{"TIMESTAMP '2024-02-29 12:34:56.123'", "TIMESTAMP '2024-02-29 12:34:56.123'"},
		{"a", "`a`"},
		{"t.a", "`t`.`a`"},
		{"`weird col`", "`weird col`"},
		{"c.d.e.f", "`c`.`d`.`e`.`f`"},
		// operators and precedence
		{"a + b * c", "(`a` + (`b` * `c`))"},
		{"(a + b) * c", "((`a` + `b`) * `c`)"},
		{"a - b - c", "((`a` - `b`) - `c`)"},
		{"a % 2 = 0", "((`a` % 2) = 0)"},
		{"a || b || 'x'", "((`a` || `b`) || 'x')"},
		{"-a", "(-`a`)"},
		{"+a", "(+`a`)"},
		{"a = 1 OR b <> 2 AND c != 3", "((`a` = 1) OR ((`b` <> 2) AND (`c` <> 3)))"},
		{"a < 1 AND b <= 2 AND c > 3 AND d >= 4", "((((`a` < 1) AND (`b` <= 2)) AND (`c` > 3)) AND (`d` >= 4))"},
		{"NOT a = b", "(NOT (`a` = `b`))"},
		// predicates
		{"a IS NULL", "(`a` IS NULL)"},
		{"a IS NOT NULL", "(`a` IS NOT NULL)"},
		{"a IS TRUE OR b IS NOT FALSE OR c IS UNKNOWN", "(((`a` IS TRUE) OR (`b` IS NOT FALSE)) OR (`c` IS UNKNOWN))"},
		{"a IS DISTINCT FROM b", "(`a` IS DISTINCT FROM `b`)"},
		{"a IS NOT DISTINCT FROM b + 1", "(`a` IS NOT DISTINCT FROM (`b` + 1))"},
		{"a IN (1, 2, 3)", "(`a` IN (1, 2, 3))"},
		{"a NOT IN ('x')", "(`a` NOT IN ('x'))"},
		{"a BETWEEN 1 AND 10 AND b", "((`a` BETWEEN 1 AND 10) AND `b`)"},
		{"a NOT BETWEEN SYMMETRIC b AND c", "(`a` NOT BETWEEN SYMMETRIC `b` AND `c`)"},
		{"name LIKE 'a%'", "(`name` LIKE 'a%')"},
		{"name NOT LIKE 'a!%%' ESCAPE '!'", "(`name` NOT LIKE 'a!%%' ESCAPE '!')"},
		{"name SIMILAR TO 'a+'", "(`name` SIMILAR TO 'a+')"},
		// CAST
		{"CAST(x AS BIGINT)", "CAST(`x` AS BIGINT)"},
		{"CAST(x AS INT)", "CAST(`x` AS INT)"},
		{"CAST(x AS STRING)", "CAST(`x` AS STRING)"},
		{"CAST(x AS VARCHAR(10))", "CAST(`x` AS VARCHAR(10))"},
		{"CAST(x AS BOOLEAN)", "CAST(`x` AS BOOLEAN)"},
		{"CAST(x AS TIMESTAMP(3))", "CAST(`x` AS TIMESTAMP(3))"},
		{"CAST(x AS DECIMAL(10, 2))", "CAST(`x` AS DECIMAL(10, 2))"},
		{"CAST(x AS MAP<STRING, INT>)", "CAST(`x` AS MAP<STRING, INT>)"},
		{"TRY_CAST(x AS INT)", "TRY_CAST(`x` AS INT)"},
		// CASE
		{"CASE WHEN a > 1 THEN 'big' WHEN a > 0 THEN 'small' ELSE 'none' END",
			"CASE WHEN (`a` > 1) THEN 'big' WHEN (`a` > 0) THEN 'small' ELSE 'none' END"},
		{"CASE a WHEN 1 THEN 'one' END", "CASE `a` WHEN 1 THEN 'one' END"},
		// functions and special call syntax
		{"UPPER(name)", "UPPER(`name`)"},
		{"lower(name)", "LOWER(`name`)"},
		{"COUNT(*)", "COUNT(*)"},
		{"NOW()", "NOW()"},
		{"CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP"},
		{"LOCALTIMESTAMP", "LOCALTIMESTAMP"},
		{"CURRENT_DATE", "CURRENT_DATE"},
		{"CEIL(ts TO DAY)", "CEIL(`ts` TO DAY)"},
		{"FLOOR(ts TO HOUR)", "FLOOR(`ts` TO HOUR)"},
		{"CEILING(x)", "CEIL(`x`)"},
		{"FLOOR(x)", "FLOOR(`x`)"},
		{"EXTRACT(DAY FROM ts)", "EXTRACT(DAY FROM `ts`)"},
		{"TIMESTAMPADD(DAY, 1, ts)", "TIMESTAMPADD(DAY, 1, `ts`)"},
		{"TIMESTAMPDIFF(HOUR, a, b)", "TIMESTAMPDIFF(HOUR, `a`, `b`)"},
		{"POSITION('a' IN s)", "POSITION('a' IN `s`)"},
		{"SUBSTRING(s FROM 2 FOR 3)", "SUBSTRING(`s`, 2, 3)"},
		{"SUBSTRING(s, 2)", "SUBSTRING(`s`, 2)"},
		{"TRIM(BOTH ' ' FROM s)", "TRIM(BOTH ' ' FROM `s`)"},
		{"TRIM(LEADING FROM s)", "TRIM(LEADING ' ' FROM `s`)"},
		{"TRIM(s)", "TRIM(BOTH ' ' FROM `s`)"},
		{"TRIM('x' FROM s)", "TRIM(BOTH 'x' FROM `s`)"},
		{"OVERLAY(s PLACING 'x' FROM 2 FOR 1)", "OVERLAY(`s` PLACING 'x' FROM 2 FOR 1)"},
		{"LEFT(s, 2)", "LEFT(`s`, 2)"},
		{"JSON_VALUE(payload, '$.a')", "JSON_VALUE(`payload`, '$.a')"},
		{"JSON_VALUE(payload, '$.a' RETURNING INT NULL ON EMPTY NULL ON ERROR)", "JSON_VALUE(`payload`, '$.a' RETURNING INT)"},
		{"JSON_QUERY(payload, 'lax $.a' WITHOUT ARRAY WRAPPER NULL ON ERROR)", "JSON_QUERY(`payload`, 'lax $.a')"},
		{"JSON_OBJECT(KEY 'a' VALUE b, 'c' VALUE JSON_ARRAY(d, 1 NULL ON NULL), 'e' : f ABSENT ON NULL)", "JSON_OBJECT(KEY 'a' VALUE `b`, KEY 'c' VALUE JSON_ARRAY(`d`, 1 NULL ON NULL), KEY 'e' VALUE `f` ABSENT ON NULL)"},
		{"JSON_OBJECT(key VALUE 1)", "JSON_OBJECT(KEY `key` VALUE 1)"},
		{"s IS JSON AND t IS NOT JSON OBJECT OR u IS JSON SCALAR", "(((`s` IS JSON VALUE) AND (NOT (`t` IS JSON OBJECT))) OR (`u` IS JSON SCALAR))"},
		{"JSON_OBJECT()", "JSON_OBJECT()"},
		{"JSON_ARRAY()", "JSON_ARRAY()"},
		{"JSON_ARRAYAGG(a ABSENT ON NULL)", "JSON_ARRAYAGG(`a` ABSENT ON NULL)"},
		{"JSON_OBJECTAGG(KEY k VALUE v)", "JSON_OBJECTAGG(KEY `k` VALUE `v`)"},
		{"DATE_FORMAT(ts, 'yyyy-MM-dd')", "DATE_FORMAT(`ts`, 'yyyy-MM-dd')"},
		{"IF(a > 1, 'x', 'y')", "IF((`a` > 1), 'x', 'y')"},
		// intervals
		{"ts - INTERVAL '5' SECOND", "(`ts` - INTERVAL '5' SECOND)"},
		{"ts + INTERVAL '1 12:30' DAY TO MINUTE", "(`ts` + INTERVAL '1 12:30' DAY TO MINUTE)"},
		// constructors, subscripts, field access
		{"m['k']", "`m`['k']"},
		{"arr[1]", "`arr`[1]"},
		{"m['k'][2].f", "`m`['k'][2].`f`"},
		{"ARRAY[1, 2]", "ARRAY[1, 2]"},
		{"MAP['a', 1, 'b', 2]", "MAP['a', 1, 'b', 2]"},
		{"ROW(1, 'x')", "ROW(1, 'x')"},
		{"(1, 'x')", "ROW(1, 'x')"},
		{"CAST(r AS ROW<f INT>).f", "CAST(`r` AS ROW<`f` INT>).`f`"},
	}
	for _, c := range cases {
		e, err := ParseExpr("", c.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", c.in, err)
			continue
		}
		if got := FormatExpr(e); got != c.want {
			t.Errorf("ParseExpr(%q) = %s, want %s", c.in, got, c.want)
		}
		checkRoundTrip(t, e)
	}
}

// checkRoundTrip asserts that FormatExpr(e) parses back to a tree that
// prints the same.
func checkRoundTrip(t *testing.T, e Expr) {
	t.Helper()
	text := FormatExpr(e)
	again, err := ParseExpr("", text)
	if err != nil {
		t.Fatalf("FormatExpr output %q does not parse: %v", text, err)
	}
	if got := FormatExpr(again); got != text {
		t.Fatalf("round trip changed %q into %q", text, got)
	}
}

func TestLiteralTypes(t *testing.T) {
	cases := []struct {
		in   string
		kind LiteralKind
		typ  string
		val  func(types.Value) bool
	}{
		{"42", IntLit, "INT NOT NULL", func(v types.Value) bool { return v.Int64() == 42 }},
		{"-2147483648", IntLit, "INT NOT NULL", func(v types.Value) bool { return v.Int64() == -2147483648 }},
		{"2147483648", IntLit, "BIGINT NOT NULL", func(v types.Value) bool { return v.Int64() == 2147483648 }},
		{"-9223372036854775808", IntLit, "BIGINT NOT NULL", func(v types.Value) bool { return v.Int64() == -9223372036854775808 }},
		{"9223372036854775808", DecimalLit, "DECIMAL(19, 0) NOT NULL", func(v types.Value) bool { return v.Decimal().String() == "9223372036854775808" }},
		{"1.50", DecimalLit, "DECIMAL(3, 2) NOT NULL", func(v types.Value) bool { return v.Decimal().String() == "1.50" }},
		{"0.05", DecimalLit, "DECIMAL(2, 2) NOT NULL", func(v types.Value) bool { return v.Decimal().String() == "0.05" }},
		{"-1.5", DecimalLit, "DECIMAL(2, 1) NOT NULL", func(v types.Value) bool { return v.Decimal().String() == "-1.5" }},
		{".5", DecimalLit, "DECIMAL(1, 1) NOT NULL", func(v types.Value) bool { return v.Decimal().String() == "0.5" }},
		{"1.5e2", DoubleLit, "DOUBLE NOT NULL", func(v types.Value) bool { return v.Float64() == 150 }},
		{"-1E-1", DoubleLit, "DOUBLE NOT NULL", func(v types.Value) bool { return v.Float64() == -0.1 }},
		{"'héllo'", StringLit, "CHAR(5) NOT NULL", func(v types.Value) bool { return v.Str() == "héllo" }},
		{"''", StringLit, "CHAR(0) NOT NULL", func(v types.Value) bool { return v.Str() == "" }},
		{"X'CAFE'", BinaryLit, "BINARY(2) NOT NULL", func(v types.Value) bool { return string(v.Bytes()) == "\xca\xfe" }},
		{"TRUE", BoolLit, "BOOLEAN NOT NULL", func(v types.Value) bool { return v.Bool() }},
		{"false", BoolLit, "BOOLEAN NOT NULL", func(v types.Value) bool { return !v.Bool() && !v.IsNull() }},
		{"NULL", NullLit, "NULL", func(v types.Value) bool { return v.IsNull() }},
		{"DATE '1970-01-02'", DateLit, "DATE NOT NULL", func(v types.Value) bool { return v.Date() == 1 }},
		{"DATE '1969-12-31'", DateLit, "DATE NOT NULL", func(v types.Value) bool { return v.Date() == -1 }},
		{"TIME '01:00:00'", TimeLit, "TIME(0) NOT NULL", func(v types.Value) bool { return v.Time() == 3600e9 }},
		{"TIME '00:00:01.5'", TimeLit, "TIME(1) NOT NULL", func(v types.Value) bool { return v.Time() == 1.5e9 }},
		{"TIMESTAMP '1970-01-01 00:00:01.123456'", TimestampLit, "TIMESTAMP(6) NOT NULL", func(v types.Value) bool {
			return v.Timestamp() == types.Timestamp{Millis: 1123, NanoOfMilli: 456000}
		}},
		{"TIMESTAMP '2024-01-01 00:00:00'", TimestampLit, "TIMESTAMP(0) NOT NULL", func(v types.Value) bool { return v.Timestamp().Millis == 1704067200000 }},
	}
	for _, c := range cases {
		e, err := ParseExpr("", c.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", c.in, err)
			continue
		}
		lit, ok := e.(*Literal)
		if !ok {
			t.Errorf("ParseExpr(%q) = %T, want *Literal", c.in, e)
			continue
		}
		if lit.Kind != c.kind || lit.Type.String() != c.typ || !c.val(lit.Value) {
			t.Errorf("ParseExpr(%q) = kind %d type %s value %+v, want kind %d type %s", c.in, lit.Kind, lit.Type, lit.Value, c.kind, c.typ)
		}
	}
}

func TestIntervals(t *testing.T) {
	cases := []struct {
		in     string
		months int64
		millis int64
		typ    types.Kind
	}{
		{"INTERVAL '5' SECOND", 0, 5000, types.KindIntervalDayTime},
		{"INTERVAL '1.5' SECOND", 0, 1500, types.KindIntervalDayTime},
		{"INTERVAL '10' MINUTES", 0, 600000, types.KindIntervalDayTime},
		{"INTERVAL 2 HOUR", 0, 7200000, types.KindIntervalDayTime},
		{"INTERVAL '3' DAY", 0, 3 * 86400000, types.KindIntervalDayTime},
		{"INTERVAL '-3' DAY", 0, -3 * 86400000, types.KindIntervalDayTime},
		{"INTERVAL -'3' DAY", 0, -3 * 86400000, types.KindIntervalDayTime},
		{"INTERVAL '1 02:03:04.005' DAY TO SECOND", 0, 86400000 + 2*3600000 + 3*60000 + 4005, types.KindIntervalDayTime},
		{"INTERVAL '02:30' HOUR TO MINUTE", 0, 2*3600000 + 30*60000, types.KindIntervalDayTime},
		{"INTERVAL '01:30' MINUTE TO SECOND", 0, 90000, types.KindIntervalDayTime},
		{"INTERVAL '1 2:3:4.567' DAY(2) TO SECOND(3)", 0, 86400000 + 2*3600000 + 3*60000 + 4567, types.KindIntervalDayTime},
		{"INTERVAL '2' YEAR", 24, 0, types.KindIntervalYearMonth},
		{"INTERVAL '1-6' YEAR TO MONTH", 18, 0, types.KindIntervalYearMonth},
		{"INTERVAL '7' MONTH", 7, 0, types.KindIntervalYearMonth},
	}
	for _, c := range cases {
		e, err := ParseExpr("", c.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", c.in, err)
			continue
		}
		iv, ok := e.(*IntervalLit)
		if !ok {
			t.Errorf("ParseExpr(%q) = %T", c.in, e)
			continue
		}
		if iv.Months != c.months || iv.Millis != c.millis || iv.Type.Kind != c.typ || !iv.Type.NotNull {
			t.Errorf("ParseExpr(%q) = %d months %d ms %s, want %d %d %s", c.in, iv.Months, iv.Millis, iv.Type, c.months, c.millis, c.typ)
		}
	}
}

func TestExprNodes(t *testing.T) {
	e, err := ParseExpr("", "CAST(a AS STRING NOT NULL)")
	if err != nil {
		t.Fatal(err)
	}
	c := e.(*Cast)
	if c.Try || !c.Type.Equal(types.String().NotNullable()) || c.TypePos.Column != 11 {
		t.Errorf("cast = %+v", c)
	}
	e, _ = ParseExpr("", "CEIL(ts TO DAY)")
	call := e.(*Call)
	if call.Name != "CEIL" || len(call.Args) != 2 || call.Args[1].(*Symbol).Name != "DAY" || call.Args[1].Position().Column != 12 {
		t.Errorf("ceil = %+v", call)
	}
	e, _ = ParseExpr("", "m['k']")
	if s := e.(*Subscript); s.Pos.Column != 2 || s.Index.(*Literal).Value.Str() != "k" {
		t.Errorf("subscript = %+v", s)
	}
	e, _ = ParseExpr("", "a IS NOT DISTINCT FROM b")
	if b := e.(*Binary); b.Op != OpIsNotDistinctFrom || b.Pos.Column != 3 {
		t.Errorf("distinct = %+v", b)
	}
	e, _ = ParseExpr("", "CURRENT_TIMESTAMP")
	if c := e.(*Call); !c.NoParens || c.Name != "CURRENT_TIMESTAMP" {
		t.Errorf("niladic = %+v", c)
	}
	e, _ = ParseExpr("", "`current_timestamp`")
	if _, ok := e.(*ColumnRef); !ok {
		t.Errorf("quoted niladic name must be a column, got %T", e)
	}
	e, _ = ParseExpr("", "name NOT LIKE 'x' ESCAPE '!'")
	if l := e.(*Like); !l.Not || l.Escape == nil || l.Pos.Column != 10 {
		t.Errorf("like = %+v", l)
	}
	e, _ = ParseExpr("", "CASE a WHEN 1 THEN 2 END")
	if c := e.(*Case); c.Operand == nil || len(c.Whens) != 1 || c.Else != nil {
		t.Errorf("case = %+v", c)
	}
}

func TestExprErrors(t *testing.T) {
	cases := []struct {
		in, msg string
		col     int
		class   error
	}{
		{"CAST(x AS STRIN)", "unknown type 'STRIN' (did you mean STRING?)", 11, ErrSyntax},
		{"CAST(x)", "expected AS, found ')'", 7, ErrSyntax},
		{"a +", "expected an expression, found end of input", 4, ErrSyntax},
		{"CASE END", "expected WHEN in CASE, found 'END'", 6, ErrSyntax},
		{"CEIL(ts TO FORTNIGHT)", "expected a time unit (YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, ...), found 'FORTNIGHT'", 12, ErrSyntax},
		{"INTERVAL 'x' SECOND", "invalid interval 'x' for SECOND", 10, ErrSyntax},
		{"INTERVAL '1:2' DAY TO SECOND", "invalid interval '1:2' for DAY TO SECOND", 10, ErrSyntax},
		{"DATE '2024-13-01'", "invalid DATE literal '2024-13-01': expected 'yyyy-mm-dd'", 6, ErrSyntax},
		{"TIMESTAMP 'yesterday'", "invalid TIMESTAMP literal 'yesterday': expected 'yyyy-mm-dd hh:mm:ss[.fffffffff]'", 11, ErrSyntax},
		{"X'ABC'", "invalid binary literal X'ABC': it must be an even number of hex digits", 1, ErrSyntax},
		{"123456789012345678901234567890123456789", "number 123456789012345678901234567890123456789 has more than 38 digits, the maximum DECIMAL precision", 1, ErrSyntax},
		{"1e999", "number 1e999 is out of the range of DOUBLE", 1, ErrSyntax},
		{"'abc", "unterminated string literal: missing closing quote", 1, ErrSyntax},
		{"a # b", "unexpected character '#'", 3, ErrSyntax},
		{"EXISTS 1", "expected '(' and a query after EXISTS, found number 1", 8, ErrSyntax},
		{"SUM(DISTINCT)", "expected an expression, found ')'", 13, ErrSyntax},
		{"COUNT(*) FILTER (a > 1)", "expected WHERE, found 'a'", 18, ErrSyntax},
		{"COUNT(*) FILTER (WHERE a > 1", "expected ')', found end of input", 29, ErrSyntax},
		{"LISTAGG(a) WITHIN GROUP (a)", "expected ORDER, found 'a'", 26, ErrSyntax},
		{"SUM(a) OVER", "expected a window in parentheses or a window name after OVER, found end of input", 12, ErrSyntax},
		{"SUM(a) OVER (PARTITION a)", "expected BY, found 'a'", 24, ErrSyntax},
		{"SUM(a) OVER (ORDER BY t ROWS 10)", "expected PRECEDING or FOLLOWING after the frame offset, found ')'", 32, ErrSyntax},
		{"SUM(a) OVER (ORDER BY t ROWS BETWEEN UNBOUNDED AND CURRENT ROW)", "expected PRECEDING or FOLLOWING after UNBOUNDED, found 'AND'", 48, ErrSyntax},
		{"SUM(a) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING CURRENT ROW)", "expected AND, found 'CURRENT'", 50, ErrSyntax},
		{"SUM(a) OVER (ORDER BY t DESC NULLS)", "expected FIRST or LAST after NULLS, found ')'", 35, ErrSyntax},
		{"SUM(a) OVER (ORDER BY t x)", "expected PARTITION BY, ORDER BY, ROWS, RANGE or ')' in the window, found 'x'", 25, ErrSyntax},
		{"a IN (SELECT 1", "expected ')', found end of input", 15, ErrSyntax},
		{"MULTISET[a, b]", "the MULTISET value constructor is not supported yet", 1, ErrUnsupported},
		{"(SELECT 1", "expected ')', found end of input", 10, ErrSyntax},
		{"a = ANY (1)", "expected a query (SELECT ...) after ANY (, found number 1", 10, ErrSyntax},
		{"UPPER(*)", "'*' is allowed only in COUNT(*)", 7, ErrSyntax},
		{"a IS 5", "expected NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS, found number 5", 6, ErrSyntax},
		{"select", "a query used as a value must be in parentheses: (SELECT ...)", 1, ErrSyntax},
		{"a = SELECT 1", "a query used as a value must be in parentheses: (SELECT ...)", 5, ErrSyntax},
		{"FROM", "expected an expression, found reserved word FROM", 1, ErrSyntax},
		{"a b", "expected end of input, found 'b'", 3, ErrSyntax},
		{"JSON_VALUE(j, '$.a' RETURNING INT DEFAULT 0 ON EMPTY)", "DEFAULT ON EMPTY in JSON_VALUE is not supported yet (NULL ON EMPTY, Flink's default, is)", 35, ErrUnsupported},
		{"JSON_VALUE(j, '$.a' NULL ON EMPTY ERROR ON ERROR)", "ERROR ON ERROR in JSON_VALUE is not supported yet (NULL ON ERROR, Flink's default, is)", 35, ErrUnsupported},
		{"JSON_VALUE(j, '$.a' NULL ON)", "expected ERROR, found ')'", 28, ErrSyntax},
		{"JSON_QUERY(j, '$.a' WITH ARRAY WRAPPER)", "WITH ... ARRAY WRAPPER in JSON_QUERY is not supported yet (WITHOUT ARRAY WRAPPER, Flink's default, is)", 21, ErrUnsupported},
		{"JSON_EXISTS(j, '$.a' TRUE ON ERROR)", "TRUE ON ERROR in JSON_EXISTS is not supported yet (FALSE ON ERROR, Flink's default, is)", 22, ErrUnsupported},
		{"JSON_OBJECT(KEY 'a' b)", "expected VALUE after the key in JSON_OBJECT, found 'b'", 21, ErrSyntax},
		{"JSON_OBJECT('a' VALUE b NULL ON NULL, 'c' VALUE d)", "expected ')' after NULL ON NULL in JSON_OBJECT, found ','", 37, ErrSyntax},
		{"JSON_ARRAY(a FORMAT JSON)", "FORMAT JSON in JSON_ARRAY is not supported yet", 14, ErrUnsupported},
		{"JSON_ARRAYAGG(a NULL ON NULL)", "NULL ON NULL in JSON_ARRAYAGG is not supported yet (ABSENT ON NULL, Flink's default, is)", 17, ErrUnsupported},
		{"f(a b)", "expected ',' or ')' in the arguments of F, found 'b'", 5, ErrSyntax},
	}
	for _, c := range cases {
		_, err := ParseExpr("", c.in)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("ParseExpr(%q) = %v, want *Error", c.in, err)
			continue
		}
		if pe.Message != c.msg || pe.Column != c.col || !errors.Is(err, c.class) {
			t.Errorf("ParseExpr(%q) = %q at column %d (%v), want %q at %d (%v)", c.in, pe.Message, pe.Column, pe.Err, c.msg, c.col, c.class)
		}
	}
}

func TestWalk(t *testing.T) {
	e, err := ParseExpr("", "CASE WHEN a IN (b, 1) THEN CAST(c AS INT) ELSE f(d[e], g.h) END BETWEEN i AND j OR k LIKE l ESCAPE m OR -n IS NULL")
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*ColumnRef); ok {
			cols = append(cols, c.Parts[len(c.Parts)-1])
		}
		return true
	})
	if got := strings.Join(cols, ","); got != "a,b,c,d,e,h,i,j,k,l,m,n" {
		t.Errorf("Walk visited columns %s", got)
	}
	n := 0
	Walk(e, func(Expr) bool { n++; return false })
	if n != 1 {
		t.Errorf("Walk descended after fn returned false: %d calls", n)
	}
}
