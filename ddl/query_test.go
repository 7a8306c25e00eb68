package ddl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseQuery parses src, a single query statement, and returns its query.
func parseQuery(t *testing.T, src string) Query {
	t.Helper()
	stmts, err := Parse("q.sql", src, Config{})
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	if len(stmts) != 1 {
		t.Fatalf("Parse(%q): %d statements", src, len(stmts))
	}
	qs, ok := stmts[0].(*QueryStatement)
	if !ok {
		t.Fatalf("Parse(%q): %T", src, stmts[0])
	}
	return qs.Query
}

// checkQueryRoundTrip checks that q printed with FormatQuery parses back
// to a query that prints the same.
func checkQueryRoundTrip(t *testing.T, q Query) {
	t.Helper()
	text := FormatQuery(q)
	stmts, err := Parse("round-trip.sql", text, Config{})
	if err != nil {
		t.Fatalf("FormatQuery output does not parse: %v\n%s", err, text)
	}
	if len(stmts) != 1 {
		t.Fatalf("FormatQuery output %q is %d statements", text, len(stmts))
	}
	qs, ok := stmts[0].(*QueryStatement)
	if !ok {
		t.Fatalf("FormatQuery output %q is a %T", text, stmts[0])
	}
	if again := FormatQuery(qs.Query); again != text {
		t.Fatalf("round trip changed the query:\n first  %s\n second %s", text, again)
	}
}

// TestQueryForms parses every streaming query form Flink offers into the
// AST, printed back with FormatQuery (which shows the tree's shape: every
// expression parenthesised, short forms written out), and checks that the
// printed text parses to the same tree.
func TestQueryForms(t *testing.T) {
	cases := []struct{ in, want string }{
		// WITH
		{`WITH a AS (SELECT x FROM t), b (y) AS (SELECT x FROM a) SELECT * FROM b`,
			"WITH a AS (SELECT `x` FROM t), b (y) AS (SELECT `x` FROM a) SELECT * FROM b"},
		{`WITH a AS (SELECT 1) SELECT * FROM a UNION ALL SELECT 2 ORDER BY 1 LIMIT 3`,
			"WITH a AS (SELECT 1) SELECT * FROM a UNION ALL SELECT 2 ORDER BY 1 LIMIT 3"},
		{`(WITH a AS (SELECT 1) SELECT * FROM a) UNION ALL SELECT 2`,
			"(WITH a AS (SELECT 1) SELECT * FROM a) UNION ALL SELECT 2"},
		// SELECT [ALL|DISTINCT] and hints
		{`SELECT DISTINCT a, b FROM t`, "SELECT DISTINCT `a`, `b` FROM t"},
		{`SELECT ALL a FROM t`, "SELECT `a` FROM t"},
		{`SELECT /*+ STATE_TTL('o' = '1d', 'c' = '20d') */ * FROM o`, "SELECT /*+ STATE_TTL('o' = '1d', 'c' = '20d') */ * FROM o"},
		{`SELECT /*+ state_ttl(o = '1d'), BROADCAST(t1, t2), NEST_LOOP(t1) */ * FROM o`,
			"SELECT /*+ STATE_TTL('o' = '1d'), BROADCAST('t1', 't2'), NEST_LOOP('t1') */ * FROM o"},
		{`SELECT /*+ LOOKUP('table'='Customers', 'retry-predicate'='lookup_miss', 'fixed-delay'='10s','max-attempts'='3') */ * FROM o`,
			"SELECT /*+ LOOKUP('table' = 'Customers', 'retry-predicate' = 'lookup_miss', 'fixed-delay' = '10s', 'max-attempts' = '3') */ * FROM o"},
		{`SELECT /*+ X, Y() */ 1`, "SELECT /*+ X, Y */ 1"},
		{`SELECT * FROM t /*+ OPTIONS('a' = 'b'), LOOKUP('k' = 'v') */ AS x`,
			"SELECT * FROM t /*+ OPTIONS('a' = 'b'), LOOKUP('k' = 'v') */ AS x"},
		// joins
		{`SELECT * FROM a, b, c WHERE a.x = b.x`, "SELECT * FROM a, b, c WHERE (`a`.`x` = `b`.`x`)"},
		{`SELECT * FROM a JOIN b ON a.x = b.x INNER JOIN c USING (x, y)`,
			"SELECT * FROM a JOIN b ON (`a`.`x` = `b`.`x`) JOIN c USING (x, y)"},
		{`SELECT * FROM a LEFT JOIN b ON TRUE RIGHT OUTER JOIN c ON TRUE FULL OUTER JOIN d ON TRUE CROSS JOIN e`,
			"SELECT * FROM a LEFT JOIN b ON TRUE RIGHT JOIN c ON TRUE FULL JOIN d ON TRUE CROSS JOIN e"},
		{`SELECT * FROM a, b JOIN c ON b.x = c.x`, "SELECT * FROM a, b JOIN c ON (`b`.`x` = `c`.`x`)"},
		{`SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.x = b.x`,
			"SELECT * FROM a JOIN (b JOIN c ON (`b`.`x` = `c`.`x`)) ON (`a`.`x` = `b`.`x`)"},
		{`SELECT * FROM (a JOIN b ON a.x = b.x) LEFT JOIN c ON TRUE`,
			"SELECT * FROM a JOIN b ON (`a`.`x` = `b`.`x`) LEFT JOIN c ON TRUE"},
		{`SELECT o.id, c.name FROM Orders AS o JOIN Customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.cid = c.id`,
			"SELECT `o`.`id`, `c`.`name` FROM Orders AS o JOIN Customers FOR SYSTEM_TIME AS OF `o`.`proc_time` AS c ON (`o`.`cid` = `c`.`id`)"},
		{`SELECT * FROM o JOIN r /*+ OPTIONS('a'='b') */ FOR SYSTEM_TIME AS OF o.ts - INTERVAL '1' SECOND r2 ON o.k = r2.k`,
			"SELECT * FROM o JOIN r /*+ OPTIONS('a' = 'b') */ FOR SYSTEM_TIME AS OF (`o`.`ts` - INTERVAL '1' SECOND) AS r2 ON (`o`.`k` = `r2`.`k`)"},
		{`SELECT * FROM t, LATERAL TABLE(split(tags)) AS s(tag)`, "SELECT * FROM t, LATERAL TABLE(SPLIT(`tags`)) AS s (tag)"},
		{`SELECT * FROM t LEFT JOIN LATERAL TABLE(my.split(tags, ',')) s ON TRUE`,
			"SELECT * FROM t LEFT JOIN LATERAL TABLE(MY.SPLIT(`tags`, ',')) AS s ON TRUE"},
		{"SELECT * FROM t, LATERAL TABLE(`mySplit`(tags))", "SELECT * FROM t, LATERAL TABLE(`mySplit`(`tags`))"},
		{`SELECT * FROM t JOIN LATERAL (SELECT * FROM u WHERE u.k = t.k) ON TRUE`,
			"SELECT * FROM t JOIN LATERAL (SELECT * FROM u WHERE (`u`.`k` = `t`.`k`)) ON TRUE"},
		{`SELECT * FROM t CROSS JOIN UNNEST(t.arr) AS u (x)`, "SELECT * FROM t CROSS JOIN UNNEST(`t`.`arr`) AS u (x)"},
		{`SELECT * FROM t CROSS JOIN UNNEST(a, b) WITH ORDINALITY AS u (x, y, n)`,
			"SELECT * FROM t CROSS JOIN UNNEST(`a`, `b`) WITH ORDINALITY AS u (x, y, n)"},
		// window table functions
		{`SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))`,
			"SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTE))"},
		{`select * from table(tumble(table b, descriptor(ts), interval '1' hour, interval '5' minute)) w`,
			"SELECT * FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '1' HOUR, INTERVAL '5' MINUTE)) AS w"},
		{`SELECT * FROM TABLE(TUMBLE(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), SIZE => INTERVAL '10' MINUTES, OFFSET => INTERVAL '1' MINUTE))`,
			"SELECT * FROM TABLE(TUMBLE(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), SIZE => INTERVAL '10' MINUTE, `OFFSET` => INTERVAL '1' MINUTE))"},
		{`SELECT * FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))`,
			"SELECT * FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE))"},
		{`SELECT * FROM TABLE(HOP(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), SLIDE => INTERVAL '5' MINUTES, SIZE => INTERVAL '10' MINUTES))`,
			"SELECT * FROM TABLE(HOP(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), SLIDE => INTERVAL '5' MINUTE, SIZE => INTERVAL '10' MINUTE))"},
		{`SELECT * FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES))`,
			"SELECT * FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTE, INTERVAL '10' MINUTE))"},
		{`SELECT * FROM TABLE(CUMULATE(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), STEP => INTERVAL '2' MINUTES, SIZE => INTERVAL '10' MINUTES))`,
			"SELECT * FROM TABLE(CUMULATE(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), STEP => INTERVAL '2' MINUTE, SIZE => INTERVAL '10' MINUTE))"},
		{`SELECT * FROM TABLE(SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))`,
			"SELECT * FROM TABLE(SESSION(TABLE Bid PARTITION BY (`item`), DESCRIPTOR(bidtime), INTERVAL '5' MINUTE))"},
		{`SELECT * FROM TABLE(SESSION(TABLE MyTable PARTITION BY (b, a), DESCRIPTOR(rowtime), INTERVAL '15' MINUTE))`,
			"SELECT * FROM TABLE(SESSION(TABLE MyTable PARTITION BY (`b`, `a`), DESCRIPTOR(rowtime), INTERVAL '15' MINUTE))"},
		{`SELECT * FROM TABLE(SESSION(DATA => TABLE Bid PARTITION BY item, TIMECOL => DESCRIPTOR(bidtime), GAP => INTERVAL '5' MINUTES))`,
			"SELECT * FROM TABLE(SESSION(DATA => TABLE Bid PARTITION BY (`item`), TIMECOL => DESCRIPTOR(bidtime), GAP => INTERVAL '5' MINUTE))"},
		{`SELECT * FROM TABLE(TUMBLE((SELECT a, ts FROM t WHERE a > 0), DESCRIPTOR(ts), INTERVAL '1' MINUTE))`,
			"SELECT * FROM TABLE(TUMBLE((SELECT `a`, `ts` FROM t WHERE (`a` > 0)), DESCRIPTOR(ts), INTERVAL '1' MINUTE))"},
		{`SELECT * FROM TABLE(F(TABLE t PARTITION BY k ORDER BY ts DESC, 1))`,
			"SELECT * FROM TABLE(F(TABLE t PARTITION BY (`k`) ORDER BY (`ts` DESC), 1))"},
		{`SELECT * FROM TABLE(F())`, "SELECT * FROM TABLE(F())"},
		// GROUP BY, grouping sets, legacy group windows, HAVING
		{`SELECT a, COUNT(*) FROM t GROUP BY a HAVING COUNT(*) > 1`,
			"SELECT `a`, COUNT(*) FROM t GROUP BY `a` HAVING (COUNT(*) > 1)"},
		{`SELECT a, b, SUM(c) FROM t GROUP BY GROUPING SETS ((a, b), (a), ())`,
			"SELECT `a`, `b`, SUM(`c`) FROM t GROUP BY GROUPING SETS ((`a`, `b`), `a`, ())"},
		{`SELECT 1 FROM t GROUP BY ROLLUP(a, (b, c)), CUBE(d, e), (f, g), ()`,
			"SELECT 1 FROM t GROUP BY ROLLUP(`a`, (`b`, `c`)), CUBE(`d`, `e`), (`f`, `g`), ()"},
		{`SELECT 1 FROM t GROUP BY GROUPING SETS (ROLLUP(a), CUBE(b), GROUPING SETS (c))`,
			"SELECT 1 FROM t GROUP BY GROUPING SETS (ROLLUP(`a`), CUBE(`b`), GROUPING SETS (`c`))"},
		{`SELECT 1 FROM t GROUP BY (a + b) * 2, ROW(a, b)`, "SELECT 1 FROM t GROUP BY ((`a` + `b`) * 2), ROW(`a`, `b`)"},
		{`SELECT user, TUMBLE_START(ts, INTERVAL '1' HOUR), COUNT(*) FROM t GROUP BY TUMBLE(ts, INTERVAL '1' HOUR), user`,
			"SELECT `user`, TUMBLE_START(`ts`, INTERVAL '1' HOUR), COUNT(*) FROM t GROUP BY TUMBLE(`ts`, INTERVAL '1' HOUR), `user`"},
		{`SELECT HOP_END(ts, INTERVAL '1' MINUTE, INTERVAL '1' HOUR) FROM t GROUP BY HOP(ts, INTERVAL '1' MINUTE, INTERVAL '1' HOUR)`,
			"SELECT HOP_END(`ts`, INTERVAL '1' MINUTE, INTERVAL '1' HOUR) FROM t GROUP BY HOP(`ts`, INTERVAL '1' MINUTE, INTERVAL '1' HOUR)"},
		{`SELECT SESSION_ROWTIME(ts, INTERVAL '10' SECOND) FROM t GROUP BY SESSION(ts, INTERVAL '10' SECOND)`,
			"SELECT SESSION_ROWTIME(`ts`, INTERVAL '10' SECOND) FROM t GROUP BY SESSION(`ts`, INTERVAL '10' SECOND)"},
		// aggregate calls
		{`SELECT COUNT(*) FILTER (WHERE p < 10), COUNT(DISTINCT b) FILTER (WHERE p > 1), SUM(ALL c) FROM t`,
			"SELECT COUNT(*) FILTER (WHERE (`p` < 10)), COUNT(DISTINCT `b`) FILTER (WHERE (`p` > 1)), SUM(`c`) FROM t"},
		{`SELECT LISTAGG(a, ',') WITHIN GROUP (ORDER BY b DESC NULLS LAST) FROM t`,
			"SELECT LISTAGG(`a`, ',') WITHIN GROUP (ORDER BY `b` DESC NULLS LAST) FROM t"},
		// OVER and WINDOW
		{`SELECT SUM(a) OVER (PARTITION BY b ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM t`,
			"SELECT SUM(`a`) OVER (PARTITION BY `b` ORDER BY `ts` RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM t"},
		{`SELECT AVG(p) OVER (PARTITION BY s ORDER BY ts ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) FROM t`,
			"SELECT AVG(`p`) OVER (PARTITION BY `s` ORDER BY `ts` ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) FROM t"},
		{`SELECT SUM(a) OVER (ORDER BY ts ROWS UNBOUNDED PRECEDING), MAX(a) OVER (ORDER BY ts ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t`,
			"SELECT SUM(`a`) OVER (ORDER BY `ts` ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), MAX(`a`) OVER (ORDER BY `ts` ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t"},
		{`SELECT MIN(a) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING) FROM t`,
			"SELECT MIN(`a`) OVER (ORDER BY `ts` ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING) FROM t"},
		{`SELECT *, ROW_NUMBER() OVER (PARTITION BY a ORDER BY p DESC, ts ASC) AS rn FROM t`,
			"SELECT *, ROW_NUMBER() OVER (PARTITION BY `a` ORDER BY `p` DESC, `ts`) AS rn FROM t"},
		{`SELECT SUM(a) OVER w, COUNT(*) OVER (w ROWS 2 PRECEDING) FROM t WINDOW w AS (PARTITION BY b ORDER BY ts), w2 AS (w)`,
			"SELECT SUM(`a`) OVER w, COUNT(*) OVER (w ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t WINDOW w AS (PARTITION BY `b` ORDER BY `ts`), w2 AS (w)"},
		// ORDER BY, LIMIT, OFFSET, FETCH
		{`SELECT * FROM t ORDER BY ts, a DESC NULLS FIRST`, "SELECT * FROM t ORDER BY `ts`, `a` DESC NULLS FIRST"},
		{`SELECT * FROM t ORDER BY ts LIMIT 10`, "SELECT * FROM t ORDER BY `ts` LIMIT 10"},
		{`SELECT * FROM t LIMIT 10 OFFSET 5`, "SELECT * FROM t LIMIT 10 OFFSET 5"},
		{`SELECT * FROM t OFFSET 5 ROWS FETCH FIRST 10 ROWS ONLY`, "SELECT * FROM t OFFSET 5 ROWS FETCH NEXT 10 ROWS ONLY"},
		{`SELECT * FROM t FETCH NEXT ROW ONLY`, "SELECT * FROM t FETCH NEXT 1 ROWS ONLY"},
		{`SELECT * FROM t OFFSET 1 ROW`, "SELECT * FROM t OFFSET 1 ROWS"},
		{`(SELECT * FROM t ORDER BY a LIMIT 5) ORDER BY b LIMIT 2`, "(SELECT * FROM t ORDER BY `a` LIMIT 5) ORDER BY `b` LIMIT 2"},
		// set operations
		{`SELECT a FROM t UNION SELECT a FROM u`, "SELECT `a` FROM t UNION SELECT `a` FROM u"},
		{`SELECT a FROM t UNION DISTINCT SELECT a FROM u UNION ALL SELECT a FROM v`,
			"(SELECT `a` FROM t UNION SELECT `a` FROM u) UNION ALL SELECT `a` FROM v"},
		{`SELECT 1 UNION SELECT 2 INTERSECT SELECT 3`, "SELECT 1 UNION (SELECT 2 INTERSECT SELECT 3)"},
		{`SELECT 1 INTERSECT ALL SELECT 2 EXCEPT SELECT 3`, "(SELECT 1 INTERSECT ALL SELECT 2) EXCEPT SELECT 3"},
		{`SELECT 1 MINUS SELECT 2 EXCEPT ALL SELECT 3 INTERSECT DISTINCT SELECT 4`,
			"(SELECT 1 EXCEPT SELECT 2) EXCEPT ALL (SELECT 3 INTERSECT SELECT 4)"},
		{`(SELECT 1 UNION ALL SELECT 2) INTERSECT SELECT 3`, "(SELECT 1 UNION ALL SELECT 2) INTERSECT SELECT 3"},
		// subqueries in expressions
		{`SELECT * FROM t WHERE a IN (SELECT b FROM u) AND c NOT IN (VALUES 1, 2)`,
			"SELECT * FROM t WHERE ((`a` IN (SELECT `b` FROM u)) AND (`c` NOT IN (VALUES (1), (2))))"},
		{`SELECT * FROM t WHERE EXISTS (SELECT * FROM u WHERE u.k = t.k) AND NOT EXISTS (SELECT 1)`,
			"SELECT * FROM t WHERE (EXISTS (SELECT * FROM u WHERE (`u`.`k` = `t`.`k`)) AND (NOT EXISTS (SELECT 1)))"},
		{`SELECT (SELECT MAX(b) FROM u) + 1, ((SELECT 2)) FROM t`, "SELECT ((SELECT MAX(`b`) FROM u) + 1), (SELECT 2) FROM t"},
		{`SELECT * FROM t WHERE a > ALL (SELECT b FROM u) OR a = SOME (SELECT c FROM v) OR a <> ANY (SELECT 1)`,
			"SELECT * FROM t WHERE (((`a` > ALL (SELECT `b` FROM u)) OR (`a` = SOME (SELECT `c` FROM v))) OR (`a` <> ANY (SELECT 1)))"},
		{`SELECT * FROM t WHERE a IN ((1), 2)`, "SELECT * FROM t WHERE (`a` IN (1, 2))"},
		// calls that are plain calls
		{`SELECT PROCTIME(), CURRENT_WATERMARK(ts), TUMBLE_ROWTIME(ts, INTERVAL '1' HOUR) FROM t`,
			"SELECT PROCTIME(), CURRENT_WATERMARK(`ts`), TUMBLE_ROWTIME(`ts`, INTERVAL '1' HOUR) FROM t"},
	}
	for _, c := range cases {
		q := parseQuery(t, c.in)
		if got := FormatQuery(q); got != c.want {
			t.Errorf("FormatQuery(Parse(%q))\n got  %s\n want %s", c.in, got, c.want)
			continue
		}
		checkQueryRoundTrip(t, q)
	}
}

// TestQueriesInStatements checks the query forms where a statement holds a
// query: INSERT, CREATE VIEW, EXPLAIN, statement sets.
func TestQueriesInStatements(t *testing.T) {
	cases := []struct{ in, want string }{
		{`INSERT INTO s WITH a AS (SELECT 1) SELECT * FROM a`, "INSERT INTO s WITH a AS (SELECT 1) SELECT * FROM a"},
		{`INSERT INTO s (x) WITH a AS (SELECT 1) SELECT * FROM a`, "INSERT INTO s (x) WITH a AS (SELECT 1) SELECT * FROM a"},
		{`CREATE VIEW v AS WITH a AS (SELECT 1) SELECT * FROM a GROUP BY x`, "CREATE VIEW v AS WITH a AS (SELECT 1) SELECT * FROM a GROUP BY `x`"},
		{`EXPLAIN WITH a AS (SELECT 1) SELECT DISTINCT * FROM a`, "EXPLAIN WITH a AS (SELECT 1) SELECT DISTINCT * FROM a"},
		{`WITH a AS (SELECT 1) SELECT * FROM a`, "WITH a AS (SELECT 1) SELECT * FROM a"},
		{`INSERT INTO s /*+ OPTIONS('a' = 'b'), FOO(x) */ SELECT 1`, "INSERT INTO s /*+ OPTIONS('a' = 'b'), FOO('x') */ SELECT 1"},
		{`EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT x, COUNT(*) FROM t GROUP BY x; END`,
			"SET{INSERT INTO a SELECT `x`, COUNT(*) FROM t GROUP BY `x`}"},
	}
	for _, c := range cases {
		if got := dump(parseOne(t, c.in)); got != c.want {
			t.Errorf("Parse(%q)\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

// TestQueryNodePositions checks the line:column of the nodes the planner
// reports refusals at.
func TestQueryNodePositions(t *testing.T) {
	src := `SELECT /*+ BROADCAST(b) */ DISTINCT
  COUNT(DISTINCT x) FILTER (WHERE y > 1),
  SUM(z) OVER w,
  LISTAGG(s) WITHIN GROUP (ORDER BY s)
FROM a, b
  LEFT JOIN c FOR SYSTEM_TIME AS OF a.ts ON TRUE
  CROSS JOIN UNNEST(a.arr) AS u (e)
  JOIN TABLE(TUMBLE(TABLE d, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) ON TRUE
WHERE x IN (SELECT 1) AND EXISTS (SELECT 2) AND y = ANY (SELECT 3) AND (SELECT 4) > 0
GROUP BY x
HAVING COUNT(*) > 1
WINDOW w AS (ORDER BY ts)
UNION SELECT 1
ORDER BY 1 LIMIT 2 OFFSET 3`
	q := parseQuery(t, src)
	ob := q.(*OrderBy)
	u := ob.Query.(*SetOp)
	s := u.Left.(*Select)
	cnt := s.Items[0].Expr.(*Call)
	over := s.Items[1].Expr.(*Over)
	lag := s.Items[2].Expr.(*Call)
	tvfJoin := s.From.(*Join)
	unnestJoin := tvfJoin.Left.(*Join)
	leftJoin := unnestJoin.Left.(*Join)
	comma := leftJoin.Left.(*Join)
	where := s.Where.(*Binary)
	and2 := where.Left.(*Binary)
	and1 := and2.Left.(*Binary)
	checks := []struct {
		what string
		got  Pos
		want string
	}{
		{"hint", s.Hints[0].Pos, "1:12"},
		{"DISTINCT", s.DistinctPos, "1:28"},
		{"DISTINCT argument", cnt.DistinctPos, "2:9"},
		{"FILTER", cnt.FilterPos, "2:21"},
		{"OVER", over.Pos, "3:10"},
		{"OVER w", over.Window.RefPos, "3:15"},
		{"WITHIN GROUP", lag.WithinGroupPos, "4:14"},
		{"comma", comma.Pos, "5:7"},
		{"LEFT JOIN", leftJoin.Pos, "6:3"},
		{"FOR SYSTEM_TIME", leftJoin.Right.(*TableName).SystemTimePos, "6:15"},
		{"CROSS JOIN", unnestJoin.Pos, "7:3"},
		{"UNNEST", unnestJoin.Right.Position(), "7:14"},
		{"TABLE(", tvfJoin.Right.Position(), "8:8"},
		{"TABLE d", tvfJoin.Right.(*TableFunc).Args[0].Table.Pos, "8:21"},
		{"DESCRIPTOR", tvfJoin.Right.(*TableFunc).Args[1].Descriptor.Pos, "8:30"},
		{"IN", and1.Left.(*InQuery).Pos, "9:9"},
		{"EXISTS", and1.Right.(*Exists).Pos, "9:27"},
		{"ANY", and2.Right.(*Quantified).Pos, "9:51"},
		{"scalar subquery", where.Right.(*Binary).Left.(*ScalarSubquery).Pos, "9:72"},
		{"GROUP BY", s.GroupBy.Pos, "10:1"},
		{"HAVING", s.HavingPos, "11:1"},
		{"WINDOW", s.WindowPos, "12:1"},
		{"UNION", u.Pos, "13:1"},
		{"ORDER BY", ob.Pos, "14:1"},
		{"LIMIT", ob.FetchPos, "14:12"},
		{"OFFSET", ob.OffsetPos, "14:20"},
	}
	for _, c := range checks {
		if c.got.String() != c.want {
			t.Errorf("%s at %s, want %s", c.what, c.got, c.want)
		}
	}
	checkQueryRoundTrip(t, q)
}

// TestNexmarkQueriesParse parses the public Nexmark queries (see
// testdata/nexmark/README.txt), each after the Kafka DDL and the views
// they read, as a user would run them.
func TestNexmarkQueriesParse(t *testing.T) {
	for _, f := range nexmarkFiles(t) {
		src := readFile(t, f)
		stmts, err := Parse(f, src, Config{Vars: nexmarkVars})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, s := range stmts {
			var q Query
			switch s := s.(type) {
			case *Insert:
				q = s.Query
			case *CreateView:
				q = s.Query
			default:
				continue
			}
			checkQueryRoundTrip(t, q)
		}
	}
}

// TestQueryErrors checks the message and position of malformed query forms.
func TestQueryErrors(t *testing.T) {
	cases := []struct {
		in, msg string
		col     int
		class   error
	}{
		{"SELECT * FROM a JOIN b WHERE x", "expected ON or USING after JOIN b, found 'WHERE'", 24, ErrSyntax},
		{"SELECT * FROM a NATURAL JOIN b ON a.x = b.x", "a NATURAL join takes no ON clause: it joins on the columns both inputs name", 32, ErrSyntax},
		{"SELECT * FROM a NATURAL CROSS JOIN b", "NATURAL CROSS JOIN is not a join: write NATURAL JOIN or CROSS JOIN", 17, ErrSyntax},
		{"SELECT * FROM a JOIN b USING a", "expected '(', found 'a'", 30, ErrSyntax},
		{"SELECT * FROM t GROUP BY", "expected an expression, found end of input", 25, ErrSyntax},
		{"SELECT * FROM t GROUP BY GROUPING SETS a", "expected '(', found 'a'", 40, ErrSyntax},
		{"SELECT * FROM t GROUP BY CUBE(a", "expected ')', found end of input", 32, ErrSyntax},
		{"SELECT * FROM t HAVING", "expected an expression, found end of input", 23, ErrSyntax},
		{"SELECT * FROM t WINDOW w (ORDER BY a)", "expected AS, found '('", 26, ErrSyntax},
		{"SELECT * FROM t ORDER a", "expected ';' after the statement, found 'ORDER'", 16, ErrSyntax},
		{"SELECT * FROM t ORDER BY", "expected an expression, found end of input", 25, ErrSyntax},
		{"SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(), INTERVAL '1' HOUR))", "expected an identifier, found ')'", 48, ErrSyntax},
		{"SELECT * FROM TABLE(TUMBLE(DATA => , x))", "expected an expression, found ','", 36, ErrSyntax},
		{"SELECT * FROM t FOR SYSTEM_TIME OF x", "expected AS, found 'OF'", 33, ErrSyntax},
		{"SELECT * FROM t CROSS JOIN UNNEST(a) WITH x", "expected ';' after the statement, found 'WITH'", 37, ErrSyntax},
		{"SELECT /*+ */ 1", "expected a hint name, such as OPTIONS, found '*/'", 12, ErrSyntax},
		{"SELECT /*+ A(x = 'y' */ 1", "expected ')', found '*/'", 22, ErrSyntax},
		{"SELECT /*+ A B */ 1", "expected '*/' closing the hint, found 'B'", 14, ErrSyntax},
		{"SELECT a FROM t UNION", "expected SELECT, VALUES or '(' starting a query, found end of input", 22, ErrSyntax},
		{"WITH a AS (SELECT 1)", "expected a query after WITH ... AS (...), found end of input", 21, ErrSyntax},
	}
	for _, c := range cases {
		_, err := Parse("q.sql", c.in, Config{})
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) = %v, want *Error", c.in, err)
			continue
		}
		if pe.Message != c.msg || pe.Column != c.col || !errors.Is(err, c.class) {
			t.Errorf("Parse(%q) = %q at column %d (%v), want %q at %d (%v)", c.in, pe.Message, pe.Column, pe.Err, c.msg, c.col, c.class)
		}
	}
}

func TestWalkAggregateClauses(t *testing.T) {
	e, err := ParseExpr("", "COUNT(DISTINCT a) WITHIN GROUP (ORDER BY b) FILTER (WHERE c) + SUM(d) OVER (PARTITION BY e ORDER BY f ROWS g PRECEDING) + (SELECT h) + (i IN (SELECT j)) + (k = ANY (SELECT l))")
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*ColumnRef); ok {
			cols = append(cols, c.Parts[0])
		}
		return true
	})
	// Subqueries are not entered: h, j and l belong to their own scopes.
	if got := strings.Join(cols, ","); got != "a,b,c,d,e,f,g,i,k" {
		t.Errorf("Walk visited %s", got)
	}
}

// nexmarkVars are values for the ${NAME} variables of the Nexmark files.
var nexmarkVars = map[string]string{
	"TPS": "1000", "EVENTS_NUM": "1000", "PERSON_PROPORTION": "1", "AUCTION_PROPORTION": "3", "BID_PROPORTION": "46",
	"BOOTSTRAP_SERVERS": "127.0.0.1:9092", "NEXMARK_TABLE": "kafka", "NEXMARK_DIR": "/tmp/nexmark",
	"SUBMIT_TIME": "0", "FLINK_HOME": "/tmp/flink",
}

// nexmarkFiles returns the Nexmark files: the 24 queries and the three
// definition files.
func nexmarkFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/nexmark/*.sql")
	if err != nil || len(files) != 27 {
		t.Fatalf("Nexmark files missing: %v (%d files)", err, len(files))
	}
	return files
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
