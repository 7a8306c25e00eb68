package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
)

// refusalCases are query forms ddl parses and the planner cannot run yet,
// each with the refusal it gets and where ("line:col"). Each has one
// construct that is not supported, so that the walk in source order
// (refuseQuery) and the resolver's own checks agree.
var refusalCases = []struct{ sql, msg, at string }{
	{"SELECT /*+ STATE_TTL('v' = '1d') */ a FROM (VALUES (1)) v (a)", "the query hint STATE_TTL on a query without a join or an aggregation is not supported yet", "1:12"},
	{"SELECT /*+ LOOKUP('table' = 'v') */ a FROM (VALUES (1)) v (a)", "the query hint LOOKUP on a query without a join is not supported yet", "1:12"},
	{"SELECT a FROM (VALUES (1)) v (a) ORDER BY a", "ORDER BY `a` without LIMIT over a stream is not supported: it must be ordered by a time attribute first, ascending (a rowtime or PROCTIME() column), as in Flink (Sort on a non-time-attribute field is not supported); ORDER BY ... LIMIT n is a Top-N", "1:43"},
	{"SELECT a FROM (VALUES (1)) v (a) OFFSET 1 ROWS", "OFFSET without LIMIT is not supported yet", "1:34"},
	{"SELECT * FROM LATERAL (SELECT 1)", "LATERAL (subquery) is not supported yet", "1:15"},
	{"SELECT * FROM TABLE(my_func(1))", "the table function MY_FUNC is not supported yet", "1:15"},
	{"SELECT * FROM LATERAL TABLE(split('a'))", "LATERAL TABLE(SPLIT(...)) is not supported yet", "1:15"},
	{"SELECT * FROM UNNEST(ARRAY[1, 2]) AS u (x) CROSS JOIN UNNEST(ARRAY[3]) AS w (y)", "UNNEST must follow the table whose arrays it reads (FROM t CROSS JOIN UNNEST(t.arr))", "1:15"},
	{"SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01 00:00:00'", "FOR SYSTEM_TIME AS OF outside the right input of an INNER or LEFT JOIN (a temporal join) is not supported yet", "1:17"},
	{"SELECT * FROM t /*+ LOOKUP('table' = 't') */", "the LOOKUP hint is not supported yet", "1:21"},
	{"SELECT LISTAGG(a) WITHIN GROUP (ORDER BY a) FROM (VALUES ('a')) v (a)", "WITHIN GROUP is not supported yet", "1:19"},
	{"SELECT a FROM (VALUES (1)) v (a) WHERE a = 2 OR a IN (SELECT 1)", "IN with a subquery other than as an AND-ed condition of WHERE (a semi join) is not supported yet", "1:51"},
	{"SELECT a FROM (VALUES (1)) v (a) WHERE a = 2 OR EXISTS (SELECT 1)", "EXISTS other than as an AND-ed condition of WHERE (a semi join) is not supported yet", "1:49"},
	{"SELECT a FROM (VALUES (1)) v (a) WHERE a = ALL (SELECT 1)", "= ALL is not supported yet", "1:42"},
	{"SELECT a FROM (VALUES (1)) v (a) GROUP BY a, (SELECT 1)", "a scalar subquery other than in WHERE, HAVING or the SELECT list of a SELECT is not supported yet", "1:46"},
	{"SELECT SUM((SELECT 1)) FROM (VALUES (1)) v (a)", "a scalar subquery in the argument of an aggregate function is not supported yet", "1:12"},
	{"VALUES ((SELECT 1))", "a scalar subquery other than in WHERE, HAVING or the SELECT list of a SELECT is not supported yet", "1:9"},
}

// TestRefusals checks each refusal's message and position as a user sees
// it, and that the resolver refuses the same construct on its own (for a
// query that reaches it without the walk in source order), so that no
// form ddl parses slips into a plan.
func TestRefusals(t *testing.T) {
	ctx := context.Background()
	for _, c := range refusalCases {
		_, err := Compile(ctx, "q.sql", c.sql, Options{Registry: factory.NewRegistry()})
		checkRefusal(t, "Compile", c.sql, err, c.msg, c.at)

		p, err := run(ctx, "q.sql", "", Options{Registry: factory.NewRegistry()}, true)
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := ddl.Parse("q.sql", c.sql, ddl.Config{})
		if err != nil {
			t.Errorf("%q does not parse: %v", c.sql, err)
			continue
		}
		p.f = newFile("q.sql", c.sql)
		_, err = p.resolveQuery(stmts[0].(*ddl.QueryStatement).Query, 0)
		checkRefusal(t, "resolveQuery", c.sql, err, c.msg, c.at)
	}
}

func checkRefusal(t *testing.T, via, sql string, err error, msg, at string) {
	t.Helper()
	errs := Errors(err)
	var pe *Error
	if len(errs) != 1 || !errors.As(errs[0], &pe) || !errors.Is(err, ddl.ErrUnsupported) {
		t.Errorf("%s(%q): want one planner refusal, got %v", via, sql, err)
		return
	}
	if pe.Message != msg || pe.Pos.String() != at {
		t.Errorf("%s(%q):\n got  %s: %s\n want %s: %s", via, sql, pe.Pos, pe.Message, at, msg)
	}
}

// TestRefusalsInSourceOrder: with several constructs the planner cannot
// run, the first one written is reported, as a parser would, in the
// statement and in the views it defines.
func TestRefusalsInSourceOrder(t *testing.T) {
	cases := []struct{ sql, at string }{
		// The outer ORDER BY comes after the inner LATERAL subquery.
		{"SELECT x FROM (SELECT * FROM (VALUES (1)) a (x), LATERAL (SELECT 2) b (y)) ORDER BY x", "1:50"},
		// The WITHIN GROUP of an item comes before the FROM's UNNEST.
		{"SELECT LISTAGG(x) WITHIN GROUP (ORDER BY x) FROM UNNEST(ARRAY['a']) AS a (x)", "1:19"},
		// An argument's subquery comes before the call's FILTER.
		{"SELECT COUNT((SELECT 1)) FILTER (WHERE TRUE) FROM (VALUES (1)) a (x)", "1:14"},
		// An aggregate's DISTINCT runs; its argument's subquery does not.
		{"SELECT COUNT(DISTINCT (SELECT 1)) FROM (VALUES (1)) a (x)", "1:23"},
		// GROUP BY runs; ORDER BY after it does not.
		{"SELECT x FROM (VALUES (1)) a (x) GROUP BY x ORDER BY x", "1:54"},
		// The left operand of a set operation comes first.
		{"SELECT 1 = ALL (SELECT 1) EXCEPT ALL SELECT 2 = ALL (SELECT 2) INTERSECT ALL SELECT TRUE", "1:10"},
		{"CREATE VIEW v AS SELECT 1 EXCEPT ALL SELECT 2 = ALL (SELECT 2); SELECT * FROM v", "1:47"},
	}
	for _, c := range cases {
		_, err := Compile(context.Background(), "q.sql", c.sql, Options{Registry: factory.NewRegistry()})
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, ddl.ErrUnsupported) || pe.Pos.String() != c.at || len(Errors(err)) != 1 {
			t.Errorf("Compile(%q): got %v, want one refusal at %s", c.sql, err, c.at)
		}
	}
}

// TestCreateFunctionRefused: CREATE FUNCTION parses, the planner refuses it
// at its position, and a call of the function is not reported as unknown
// on top of that.
func TestCreateFunctionRefused(t *testing.T) {
	_, err := Compile(context.Background(), "q.sql", "CREATE FUNCTION f AS 'com.example.F';\nSELECT f(1)", Options{Registry: factory.NewRegistry()})
	errs := Errors(err)
	var pe *Error
	if len(errs) != 1 || !errors.As(errs[0], &pe) || !errors.Is(err, ddl.ErrUnsupported) || pe.Pos.String() != "1:1" ||
		!strings.HasPrefix(pe.Message, "CREATE FUNCTION of a Java, Scala or Python class") || !strings.Contains(pe.Message, "com.example.F") {
		t.Errorf("got %v", err)
	}
}
