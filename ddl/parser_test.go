package ddl

import (
	"errors"
	"strings"
	"testing"
)

func parseOne(t *testing.T, src string) Statement {
	t.Helper()
	stmts, err := Parse("test.sql", src, Config{})
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	if len(stmts) != 1 {
		t.Fatalf("Parse(%q) gave %d statements, want 1", src, len(stmts))
	}
	return stmts[0]
}

func TestStatements(t *testing.T) {
	cases := []struct{ in, want string }{
		// SET and RESET
		{`SET 'execution.checkpointing.interval' = '5s'`, `SET 'execution.checkpointing.interval'='5s'`},
		{`set 'k' = 'it''s; fine'`, `SET 'k'='it''s; fine'`},
		{`SET execution.checkpointing.interval = 10s`, `SET 'execution.checkpointing.interval'='10s'`},
		{`SET pipeline.name = my job`, `SET 'pipeline.name'='my job'`},
		{`SET table.planner = 'blink'`, `SET 'table.planner'='blink'`},
		{`SET`, `SET`},
		{`RESET 'table.planner'`, `RESET 'table.planner'`},
		{`RESET table.planner`, `RESET 'table.planner'`},
		{`RESET`, `RESET`},

		// CREATE TABLE
		{`CREATE TABLE t (id BIGINT) WITH ('connector' = 'datagen')`,
			`CREATE TABLE t (id BIGINT) WITH('connector'='datagen')`},
		{`create temporary table if not exists cat.db.t (id INT NOT NULL) with ('a'='1', 'b'='it''s')`,
			`CREATE TEMPORARY TABLE IF NOT EXISTS cat.db.t (id INT NOT NULL) WITH('a'='1','b'='it''s')`},
		{"CREATE TABLE `my table` (`select` STRING COMMENT 'a column') WITH ()",
			"CREATE TABLE `my table` (select STRING COMMENT 'a column') WITH()"},
		{`CREATE TABLE k (
			event_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
			` + "`partition`" + ` BIGINT METADATA VIRTUAL,
			headers MAP<STRING, BYTES> METADATA,
			user_id BIGINT,
			cost AS price * quantity,
			WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
		) WITH ('connector' = 'kafka')`,
			`CREATE TABLE k (event_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'; partition BIGINT METADATA VIRTUAL; headers MAP<STRING, BYTES> METADATA; user_id BIGINT; cost AS (` + "`price` * `quantity`" + `)) WATERMARK event_time AS (` + "`event_time`" + ` - INTERVAL '5' SECOND) WITH('connector'='kafka')`},
		{`CREATE TABLE u (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='upsert-kafka')`,
			`CREATE TABLE u (id BIGINT NOT NULL; name STRING) PK(id) WITH('connector'='upsert-kafka')`},
		{`CREATE TABLE u (id BIGINT, b INT, CONSTRAINT pk PRIMARY KEY (id, b) NOT ENFORCED)`,
			`CREATE TABLE u (id BIGINT NOT NULL; b INT NOT NULL) PK pk(id,b)`},
		{`CREATE TABLE u (id BIGINT PRIMARY KEY NOT ENFORCED, b INT)`,
			`CREATE TABLE u (id BIGINT NOT NULL; b INT) PK(id)`},
		{`CREATE TABLE u (id BIGINT NOT NULL CONSTRAINT k PRIMARY KEY NOT ENFORCED COMMENT 'key')`,
			`CREATE TABLE u (id BIGINT NOT NULL COMMENT 'key') PK k(id)`},
		{`CREATE TABLE p (a INT, dt STRING) COMMENT 'tbl' PARTITIONED BY (dt) WITH ('connector' = 'filesystem')`,
			`CREATE TABLE p (a INT; dt STRING) COMMENT 'tbl' PARTITIONED(dt) WITH('connector'='filesystem')`},
		{`CREATE TABLE c (a INT) WITH ('csv.field-delimiter' = U&'\0001', 'x' = u&'caf\00e9 \+01F600 \\')`,
			"CREATE TABLE c (a INT) WITH('csv.field-delimiter'='\x01','x'='café 😀 \\')"},
		{`CREATE TABLE d (a INT) WITH ('connector'='x') LIKE src`,
			`CREATE TABLE d (a INT) WITH('connector'='x') LIKE src`},
		{`CREATE TABLE d WITH ('scan.startup.mode' = 'latest-offset') LIKE db.src (EXCLUDING ALL)`,
			`CREATE TABLE d () WITH('scan.startup.mode'='latest-offset') LIKE db.src(EXCLUDING ALL)`},
		{`CREATE TABLE d (a INT) LIKE src (INCLUDING ALL OVERWRITING OPTIONS EXCLUDING PARTITIONS
			INCLUDING GENERATED excluding metadata OVERWRITING WATERMARKS INCLUDING CONSTRAINTS)`,
			`CREATE TABLE d (a INT) LIKE src(INCLUDING ALL,OVERWRITING OPTIONS,EXCLUDING PARTITIONS,INCLUDING GENERATED,EXCLUDING METADATA,OVERWRITING WATERMARKS,INCLUDING CONSTRAINTS)`},

		// CREATE VIEW, DROP
		{`CREATE VIEW v AS SELECT a FROM t`, "CREATE VIEW v AS SELECT `a` FROM t"},
		{`CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar'`, "CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar'"},
		{`CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS f AS x.y.Z LANGUAGE scala USING JAR '/a.jar', JAR '/b.jar'`,
			"CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS f AS 'x.y.Z' LANGUAGE SCALA USING JAR '/a.jar', JAR '/b.jar'"},
		{`CREATE TEMPORARY FUNCTION c.d.f AS 'mod.f' LANGUAGE PYTHON`, "CREATE TEMPORARY FUNCTION c.d.f AS 'mod.f' LANGUAGE PYTHON"},
		{`CREATE TEMPORARY VIEW IF NOT EXISTS db.v (x, y) COMMENT 'c' AS SELECT a, b FROM t UNION ALL SELECT c, d FROM u`,
			"CREATE TEMPORARY VIEW IF NOT EXISTS db.v(x,y) COMMENT 'c' AS SELECT `a`, `b` FROM t UNION ALL SELECT `c`, `d` FROM u"},
		{`DROP TABLE t`, `DROP TABLE t`},
		{`DROP TEMPORARY TABLE IF EXISTS c.d.t`, `DROP TEMPORARY TABLE IF EXISTS c.d.t`},
		{`DROP VIEW IF EXISTS v`, `DROP VIEW IF EXISTS v`},
		{`drop temporary view v`, `DROP TEMPORARY VIEW v`},
		{`CREATE CATALOG c WITH ('type' = 'generic_in_memory')`, `CREATE CATALOG c WITH('type'='generic_in_memory')`},
		{`create catalog if not exists c comment 'x' with ('type' = 'generic_in_memory', 'default-database' = 'd')`,
			`CREATE CATALOG IF NOT EXISTS c COMMENT 'x' WITH('type'='generic_in_memory','default-database'='d')`},
		{`CREATE DATABASE db`, `CREATE DATABASE db`},
		{`CREATE TABLE t WITH ('connector' = 'print') AS SELECT a, b FROM s WHERE a > 1`, "CREATE TABLE t () WITH('connector'='print') AS SELECT `a`, `b` FROM s WHERE (`a` > 1)"},
		{`create temporary table if not exists t as select 1 as one`, `CREATE TEMPORARY TABLE IF NOT EXISTS t () AS SELECT 1 AS one`},
		{`REPLACE TABLE t WITH ('connector' = 'print') AS SELECT 1 AS one`, `REPLACE TABLE t () WITH('connector'='print') AS SELECT 1 AS one`},
		{`create or replace table t as select 1 as one`, `CREATE OR REPLACE TABLE t () AS SELECT 1 AS one`},
		{"CREATE DATABASE IF NOT EXISTS c.`db` COMMENT 'it''s' WITH ('k' = 'v')", `CREATE DATABASE IF NOT EXISTS c.db COMMENT 'it''s' WITH('k'='v')`},
		{`USE CATALOG c`, `USE CATALOG c`},
		{`use c.db`, `USE c.db`},
		{"USE `catalog`", `USE catalog`},
		{`USE db`, `USE db`},
		{`ADD JAR '/opt/flink/lib/flink-sql-connector-kafka.jar'`, `ADD JAR '/opt/flink/lib/flink-sql-connector-kafka.jar'`},
		{`remove jar 'x.jar'`, `REMOVE JAR 'x.jar'`},
		{`DROP DATABASE IF EXISTS c.db CASCADE`, `DROP DATABASE IF EXISTS c.db CASCADE`},
		{`DROP DATABASE db RESTRICT`, `DROP DATABASE db`},
		{`DROP CATALOG IF EXISTS c`, `DROP CATALOG IF EXISTS c`},

		// INSERT
		{`INSERT INTO big SELECT id, amount, UPPER(customer) FROM orders WHERE amount > 100`,
			"INSERT INTO big SELECT `id`, `amount`, UPPER(`customer`) FROM orders WHERE (`amount` > 100)"},
		{`INSERT INTO cat.db.s (a, b) SELECT x AS a, y b FROM t`,
			"INSERT INTO cat.db.s (a,b) SELECT `x` AS a, `y` AS b FROM t"},
		{`INSERT INTO s /*+ OPTIONS('sink.parallelism' = '2') */ SELECT * FROM t /*+ OPTIONS('scan.startup.mode'='earliest-offset', 'a'='b') */`,
			`INSERT INTO s /*+ OPTIONS('sink.parallelism' = '2') */ SELECT * FROM t /*+ OPTIONS('scan.startup.mode' = 'earliest-offset', 'a' = 'b') */`},
		{`INSERT INTO s VALUES (1, 'a'), (2, 'b')`, `INSERT INTO s VALUES (1, 'a'), (2, 'b')`},
		{`INSERT INTO s (a) VALUES (1)`, `INSERT INTO s (a) VALUES (1)`},
		{`INSERT INTO s (SELECT a FROM t)`, "INSERT INTO s SELECT `a` FROM t"},
		{`INSERT INTO s SELECT t.* FROM db.t AS t`, `INSERT INTO s SELECT t.* FROM db.t AS t`},
		{`INSERT INTO s SELECT a FROM t UNION ALL SELECT b FROM u UNION ALL VALUES (1)`,
			"INSERT INTO s (SELECT `a` FROM t UNION ALL SELECT `b` FROM u) UNION ALL VALUES (1)"},
		{`INSERT INTO s SELECT a FROM (SELECT a FROM t WHERE a > 1) sub WHERE a < 5`,
			"INSERT INTO s SELECT `a` FROM (SELECT `a` FROM t WHERE (`a` > 1)) AS sub WHERE (`a` < 5)"},
		{`EXECUTE INSERT INTO s SELECT 1`, `INSERT INTO s SELECT 1`},
		{`INSERT INTO s SELECT id, name FROM (VALUES (1, 'a'), (2, 'b')) AS t (id, name)`,
			"INSERT INTO s SELECT `id`, `name` FROM (VALUES (1, 'a'), (2, 'b')) AS t (id, name)"},
		{`SELECT x FROM db.t u (x, y)`, "SELECT `x` FROM db.t AS u (x, y)"},

		// statement sets
		{`EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM x; INSERT INTO b SELECT * FROM x; END`,
			`SET{INSERT INTO a SELECT * FROM x; INSERT INTO b SELECT * FROM x}`},
		{"BEGIN STATEMENT SET;\nINSERT INTO a SELECT * FROM x;\nINSERT INTO b VALUES (1);\nEND;",
			`SET{INSERT INTO a SELECT * FROM x; INSERT INTO b VALUES (1)}`},

		// EXPLAIN
		{`EXPLAIN PLAN FOR INSERT INTO a SELECT * FROM x`, `EXPLAIN INSERT INTO a SELECT * FROM x`},
		{`EXPLAIN INSERT INTO a SELECT * FROM x`, `EXPLAIN INSERT INTO a SELECT * FROM x`},
		{`EXPLAIN ESTIMATED_COST, CHANGELOG_MODE SELECT * FROM x`, `EXPLAIN ESTIMATED_COST,CHANGELOG_MODE SELECT * FROM x`},
		{`EXPLAIN STATEMENT SET BEGIN INSERT INTO a SELECT * FROM x; END`, `EXPLAIN SET{INSERT INTO a SELECT * FROM x}`},
		{`EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM x; END`, `EXPLAIN SET{INSERT INTO a SELECT * FROM x}`},

		// bare queries
		{`SELECT 1`, `SELECT 1`},
		{`SELECT * FROM t WHERE a IS NULL`, "SELECT * FROM t WHERE (`a` IS NULL)"},
		{`VALUES (1), (2)`, `VALUES (1), (2)`},
		{`(SELECT a FROM t)`, "SELECT `a` FROM t"},
	}
	for _, c := range cases {
		s := parseOne(t, c.in)
		if got := dump(s); got != c.want {
			t.Errorf("Parse(%q)\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

func TestMultipleStatementsAndComments(t *testing.T) {
	src := "-- a job; with a comment\n" +
		"SET 'a' = 'x;y'; /* block; comment */\n" +
		"CREATE TABLE `t;1` (a INT) WITH ('k' = 'v');;\n" +
		"-- trailing comment without newline"
	stmts, err := Parse("job.sql", src, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 2 {
		t.Fatalf("got %d statements, want 2", len(stmts))
	}
	if got := dump(stmts[0]); got != `SET 'a'='x;y'` {
		t.Errorf("first = %s", got)
	}
	ct := stmts[1].(*CreateTable)
	if ct.Name.Name() != "t;1" || ct.Pos.Line != 3 || ct.Pos.Column != 1 {
		t.Errorf("table %q at %v", ct.Name.Name(), ct.Pos)
	}
	if v, ok := ct.Option("k"); !ok || v != "v" {
		t.Errorf("Option(k) = %q, %v", v, ok)
	}
	if _, ok := ct.Option("missing"); ok {
		t.Error("Option(missing) found")
	}
}

func TestPositions(t *testing.T) {
	src := "SET 'a' = 'b';\n\nCREATE TABLE t (\n  id BIGINT,\n  ts TIMESTAMP(3) METADATA FROM 'timestamp',\n" +
		"  c AS id + 1\n) WITH (\n  'connector' = 'kafka'\n);\n  INSERT INTO s SELECT c FROM t WHERE id > 1"
	stmts, err := Parse("job.sql", src, Config{})
	if err != nil {
		t.Fatal(err)
	}
	set := stmts[0].(*Set)
	ct := stmts[1].(*CreateTable)
	ins := stmts[2].(*Insert)
	sel := ins.Query.(*Select)
	checks := []struct {
		what       string
		got        Pos
		line, col  int
		wantOffset int
	}{
		{"set", set.Pos, 1, 1, 0},
		{"set value", set.ValuePos, 1, 11, 10},
		{"create", ct.Pos, 3, 1, -1},
		{"column id", ct.Columns[0].Pos, 4, 3, -1},
		{"type of id", ct.Columns[0].TypePos, 4, 6, -1},
		{"metadata key", ct.Columns[1].MetadataKeyPos, 5, 33, -1},
		{"computed expr (operator)", ct.Columns[2].Expr.Position(), 6, 11, -1},
		{"option key", ct.Options[0].KeyPos, 8, 3, -1},
		{"option value", ct.Options[0].ValuePos, 8, 17, -1},
		{"insert", ins.Pos, 10, 3, -1},
		{"select item", sel.Items[0].Expr.Position(), 10, 24, -1},
		{"where >", sel.Where.Position(), 10, 42, -1},
		{"from", sel.From.Position(), 10, 31, -1},
	}
	for _, c := range checks {
		if c.got.Line != c.line || c.got.Column != c.col {
			t.Errorf("%s at %d:%d, want %d:%d", c.what, c.got.Line, c.got.Column, c.line, c.col)
		}
		if c.wantOffset >= 0 && c.got.Offset != c.wantOffset {
			t.Errorf("%s at offset %d, want %d", c.what, c.got.Offset, c.wantOffset)
		}
	}
}

func TestColumnKinds(t *testing.T) {
	ct := parseOne(t, `CREATE TABLE t (a INT, b TIMESTAMP_LTZ(3) METADATA, c STRING METADATA FROM 'k' VIRTUAL, d AS a * 2)`).(*CreateTable)
	want := []struct {
		kind    ColumnKind
		key     string
		virtual bool
	}{{PhysicalColumn, "a", false}, {MetadataColumn, "b", false}, {MetadataColumn, "k", true}, {ComputedColumn, "d", false}}
	for i, w := range want {
		c := ct.Columns[i]
		if c.Kind != w.kind || c.Key() != w.key || c.Virtual != w.virtual {
			t.Errorf("column %s: kind %v key %q virtual %v, want %v %q %v", c.Name, c.Kind, c.Key(), c.Virtual, w.kind, w.key, w.virtual)
		}
	}
	if ct.Columns[3].Expr == nil || ct.Columns[3].Type.Kind != 0 {
		t.Error("computed column must have an Expr and no declared type")
	}
	if PhysicalColumn.String() != "physical" || MetadataColumn.String() != "metadata" || ComputedColumn.String() != "computed" {
		t.Error("ColumnKind.String is wrong")
	}
}

func TestSubstitution(t *testing.T) {
	cfg := Config{
		Vars: map[string]string{"TOPIC": "orders", "BOOT": "a:9092,b:9092"},
		Env: func(name string) (string, bool) {
			if name == "FROM_ENV" {
				return "env-value", true
			}
			if name == "TOPIC" {
				return "env-topic-must-lose", true
			}
			return "", false
		},
	}
	src := "-- ${NOT_SUBSTITUTED_IN_COMMENTS}\nCREATE TABLE t (a INT) WITH (\n" +
		"  'topic' = '${TOPIC}', 'servers' = '${BOOT}', 'e' = '${FROM_ENV}',\n" +
		"  'd' = '${MISSING:-fallback:x}', 'empty' = '${MISSING:-}', 'pre-${TOPIC}-post' = 'x')"
	stmts, err := Parse("job.sql", src, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ct := stmts[0].(*CreateTable)
	got := dumpOpts(ct.Options)
	want := `'topic'='orders','servers'='a:9092,b:9092','e'='env-value','d'='fallback:x','empty'='','pre-orders-post'='x'`
	if got != want {
		t.Errorf("options\n got  %s\n want %s", got, want)
	}
	// Positions after substituted text still point into the original.
	if p := ct.Options[1].KeyPos; p.Line != 3 || p.Column != 25 {
		t.Errorf("key 'servers' at %v, want 3:25", p)
	}
	if p := ct.Options[5].KeyPos; p.Line != 4 || p.Column != 61 {
		t.Errorf("key 'pre-...' at %v, want 4:61", p)
	}

	_, err = Parse("job.sql", "SET 'a' = 'b';\nSET 'x' = '${NOPE}'", Config{})
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrUndefinedVariable) {
		t.Fatalf("undefined variable: got %v", err)
	}
	if pe.Line != 2 || pe.Column != 12 || !strings.Contains(pe.Message, "${NOPE}") {
		t.Errorf("undefined variable error = %q at %d:%d", pe.Message, pe.Line, pe.Column)
	}

	// An error inside a substituted value points at its reference.
	_, err = Parse("job.sql", "CREATE TABLE t (a ${TYPE}) WITH ('k' = 'v')", Config{Vars: map[string]string{"TYPE": "STRIN"}})
	if !errors.As(err, &pe) || pe.Column != 19 {
		t.Fatalf("error in substituted text: %v", err)
	}
}

// TestSubstitutionInsideQuotes: a value substituted inside a quoted
// literal or identifier is its content, quote characters included (a
// password such as it's), and cannot end the literal and change the
// statement; outside quotes the value is SQL text as before.
func TestSubstitutionInsideQuotes(t *testing.T) {
	cfg := Config{Vars: map[string]string{"PW": "it's'); DROP", "COL": "a`b", "N": "7"}}
	stmts, err := Parse("job.sql", "CREATE TABLE t (`${COL}` INT) WITH ('password' = '${PW}', 'n' = '${N}', 'k' = 'x')", cfg)
	if err != nil {
		t.Fatal(err)
	}
	ct := stmts[0].(*CreateTable)
	if len(ct.Options) != 3 || ct.Options[0].Value != "it's'); DROP" || ct.Options[1].Value != "7" {
		t.Errorf("options %s, want the password as given and two more", dumpOpts(ct.Options))
	}
	if got := ct.Columns[0].Name; got != "a`b" {
		t.Errorf("column name %q, want a`b", got)
	}
	stmts, err = Parse("job.sql", "SELECT ${N} FROM t", cfg)
	if err != nil || len(stmts) != 1 {
		t.Fatalf("substitution outside quotes: %v", err)
	}
}

func TestErrorClasses(t *testing.T) {
	cases := []struct {
		in    string
		class error
		msg   string
	}{
		{`INSERT OVERWRITE t SELECT 1`, ErrUnsupported, "INSERT OVERWRITE is not supported yet"},
		{`INSERT INTO t PARTITION (dt=UPPER('a')) SELECT 1`, ErrSyntax, "a static partition value is a literal, such as '2019-08-30' or 10"},
		{`INSERT INTO t PARTITION (dt) SELECT 1`, ErrSyntax, "expected '='"},
		{`CREATE TABLE t (a, b) WITH ('connector' = 'blackhole')`, ErrSyntax, "expected the type of column 'a' (only CREATE TABLE ... AS query takes a list of the query's column names)"},
		{`CREATE TABLE t (a, b INT) AS SELECT 1, 2`, ErrSyntax, "the column list of CREATE TABLE ... AS query either names the query's columns (to order them) or defines columns with their types, not both"},
		{`CREATE TABLE t LIKE s AS SELECT 1`, ErrSyntax, "CREATE TABLE takes a LIKE clause or AS query, not both"},
		{`REPLACE TABLE t (a INT) WITH ('connector' = 'print')`, ErrSyntax, "REPLACE TABLE t needs AS query"},
		{`CREATE OR REPLACE TABLE IF NOT EXISTS t AS SELECT 1`, ErrSyntax, "CREATE OR REPLACE TABLE takes no IF NOT EXISTS"},
		{`CREATE OR REPLACE VIEW v AS SELECT 1`, ErrUnsupported, "CREATE OR REPLACE VIEW is not supported yet"},
		{`REPLACE INTO t SELECT 1`, ErrSyntax, "expected TABLE after REPLACE, found 'INTO'"},
		{`CREATE TABLE t WITH ('a'='b') AS`, ErrSyntax, "found end of input"},
		{`CREATE CATALOG c`, ErrSyntax, "expected WITH, found end of input"},
		{`CREATE CATALOG c.d WITH ('type'='x')`, ErrSyntax, "a catalog's name has one part"},
		{`CREATE TEMPORARY CATALOG c WITH ('type'='x')`, ErrSyntax, "expected TABLE, VIEW or FUNCTION after CREATE TEMPORARY, found 'CATALOG'"},
		{`CREATE DATABASE c.d.e`, ErrSyntax, "a database's name has at most two parts (catalog.database)"},
		{`CREATE FUNCTION f`, ErrSyntax, "expected AS, found end of input"},
		{`CREATE FUNCTION f AS 1`, ErrSyntax, "expected the function's class name (a string literal), found number 1"},
		{`CREATE FUNCTION f AS 'x' LANGUAGE GO`, ErrSyntax, "expected JAVA, SCALA or PYTHON after LANGUAGE, found 'GO'"},
		{`CREATE TEMPORARY SYSTEM FUNCTION db.f AS 'x'`, ErrSyntax, "expected AS, found '.'"},
		{`CREATE TEMPORARY SYSTEM TABLE t (a INT)`, ErrSyntax, "expected FUNCTION after CREATE TEMPORARY SYSTEM, found 'TABLE'"},
		{`DROP CATALOG c.d`, ErrSyntax, "a catalog's name has one part"},
		{`DROP DATABASE d CASCADE x`, ErrSyntax, "expected ';' after the statement, found 'x'"},
		{`DROP MODEL m`, ErrUnsupported, "DROP MODEL is not supported yet"},
		{`UNLOAD MODEL m`, ErrUnsupported, "the UNLOAD statement is not supported yet"},
		{`ADD JAR x.jar`, ErrSyntax, "expected the JAR's path (a string literal)"},
		{`ADD FILE 'x'`, ErrUnsupported, "the ADD statement is not supported yet"},
		{`USE a.b.c`, ErrSyntax, "a database's name has at most two parts (catalog.database)"},
		{`SHOW CREATE VIEW t`, ErrUnsupported, "SHOW CREATE is not supported yet"},
		{`SHOW FUNCTIONS`, ErrUnsupported, "SHOW FUNCTIONS is not supported yet"},
		{`SHOW TABLES ILIKE 'a%'`, ErrSyntax, "SHOW TABLES, VIEWS, COLUMNS and USER FUNCTIONS take [NOT] LIKE; ILIKE is for SHOW DATABASES and CATALOGS (as in Flink)"},
		{`SHOW COLUMNS events`, ErrSyntax, "expected FROM or IN and a table after SHOW COLUMNS, found 'events'"},
		{`ALTER DATABASE d SET ('k' = 'v')`, ErrUnsupported, "ALTER DATABASE is not supported yet"},
		{`ALTER VIEW v COMMENT 'x'`, ErrSyntax, "expected RENAME TO or AS query after ALTER VIEW v, found 'COMMENT'"},
		{`ALTER TABLE t COMPACT`, ErrSyntax, "expected RENAME, SET, RESET, ADD, MODIFY or DROP after ALTER TABLE t, found 'COMPACT'"},
		{`ALTER TABLE t ADD (x, y INT)`, ErrSyntax, "expected the type of column 'x'"},
		{`SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A))`, ErrUnsupported, "MATCH_RECOGNIZE is not supported yet"},
		{`SELECT * FROM (SELECT 1) MATCH_RECOGNIZE (PATTERN (A))`, ErrUnsupported, "MATCH_RECOGNIZE is not supported yet"},
		{`SELECT a FROM t QUALIFY a > 1`, ErrUnsupported, "QUALIFY is not supported yet"},
		{`WITH RECURSIVE x AS (SELECT 1) SELECT * FROM x`, ErrUnsupported, "WITH RECURSIVE is not supported yet"},
		{`SELECT * FROM a JOIN b`, ErrSyntax, "expected ON or USING after JOIN b, found end of input"},
		{`SELECT * FROM a CROSS JOIN b ON a.x = b.x`, ErrSyntax, "CROSS JOIN takes no ON condition"},
		{`SELECT * FROM a LEFT OUTER b`, ErrSyntax, "expected JOIN, found 'b'"},
		{`SELECT * FROM TABLE(TUMBLE(TABLE (SELECT * FROM t), DESCRIPTOR(ts), INTERVAL '1' MINUTE))`, ErrSyntax, "TABLE takes a table or view name; pass a query as (SELECT ...) without TABLE"},
		{`SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY a + 1, DESCRIPTOR(ts), INTERVAL '1' MINUTE))`, ErrSyntax, "PARTITION BY of a table argument takes column names"},
		{`SELECT * FROM TABLE(TUMBLE(TABLE t DESCRIPTOR(ts)))`, ErrSyntax, "expected ',' or ')' in the arguments of TUMBLE, found 'DESCRIPTOR'"},
		{`SELECT * FROM TABLE(TUMBLE)`, ErrSyntax, "expected '(' after the table function's name, found ')'"},
		{`SELECT * FROM (t)`, ErrSyntax, "only a query or a join may be put in parentheses in FROM"},
		{`SELECT * FROM LATERAL t`, ErrSyntax, "expected TABLE(...) or a query in parentheses after LATERAL"},
		{`SELECT * FROM t GROUP BY ROLLUP(GROUPING SETS (a))`, ErrSyntax, "ROLLUP takes expressions and parenthesised lists of expressions, not GROUPING SETS"},
		{`SELECT * FROM t WINDOW w AS (ORDER BY a), w AS (ORDER BY b)`, ErrSyntax, "duplicate window name 'w'"},
		{`WITH x AS (SELECT 1), x AS (SELECT 2) SELECT * FROM x`, ErrSyntax, "duplicate name 'x' in WITH"},
		{`WITH x AS SELECT 1 SELECT * FROM x`, ErrSyntax, "expected '(' before the query of x, found 'SELECT'"},
		{`WITH x AS (SELECT 1) WITH y AS (SELECT 2) SELECT 1`, ErrSyntax, "a second WITH"},
		{`SELECT 1 UNION WITH x AS (SELECT 1) SELECT 1`, ErrSyntax, "WITH must start the query"},
		{`SELECT * FROM t ORDER BY a LIMIT`, ErrSyntax, "expected an expression, found end of input"},
		{`SELECT * FROM t FETCH FIRST 1 ONLY`, ErrSyntax, "expected ROWS after the count of FETCH, found 'ONLY'"},
		{`SELECT * FROM t FETCH 1 ROWS ONLY`, ErrSyntax, "expected FIRST or NEXT after FETCH, found number 1"},
		{`SELECT /*+ STATE_TTL('a' = 1) */ * FROM t`, ErrSyntax, "expected a hint option value (a string literal), found number 1"},
		{`SELECT /*+ STATE_TTL('a' = '1d', a = '2d') */ * FROM t`, ErrSyntax, "duplicate option 'a' in hint STATE_TTL"},
		{`SELECT * FROM t /*+ OPTIONS(a = 'b') */`, ErrSyntax, "hint option keys must be string literals: write 'a'"},
		{`SELECT * FROM t /*+ OPTIONS('a' = 'b'), OPTIONS('a' = 'c') */`, ErrSyntax, "duplicate hint option key 'a'"},
		{`SELECT * FROM t /*+ LOOKUP('table' = 'c' */`, ErrSyntax, "expected ')', found '*/'"},
		{`CREATE TABLE t (a INT) DISTRIBUTED BY HASH(a) INTO 4 BUCKETS`, ErrUnsupported, "DISTRIBUTED BY is not supported yet"},
		{`CREATE TABLE t (a INT, PRIMARY KEY (a))`, ErrSyntax, "PRIMARY KEY must be declared NOT ENFORCED"},
		{`CREATE TABLE t (a INT) WITH ('k'='1', 'k'='2')`, ErrSyntax, "duplicate option key 'k'"},
		{`CREATE TABLE t (a STRIN)`, ErrSyntax, "unknown type 'STRIN' (did you mean STRING?)"},
		{`FOO BAR`, ErrSyntax, "unknown statement"},
		{`CREATE TABLE t (id INT, PRIMARY KEY (idd) NOT ENFORCED)`, ErrSyntax, "PRIMARY KEY column 'idd' is not a column of t (did you mean id?)"},
		{`CREATE TABLE t (id INT METADATA, PRIMARY KEY (id) NOT ENFORCED)`, ErrSyntax, "PRIMARY KEY column 'id' is a metadata column; a primary key must consist of physical columns"},
		{`CREATE TABLE t (a INT) PARTITIONED BY (b)`, ErrSyntax, "PARTITIONED BY column 'b' is not a column of t"},
		{`CREATE TABLE t (a INT, WATERMARK FOR ts AS ts)`, ErrSyntax, "WATERMARK column 'ts' is not a column of t"},
	}
	for _, c := range cases {
		_, err := Parse("job.sql", c.in, Config{})
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) = %v, want an *Error", c.in, err)
			continue
		}
		if !errors.Is(err, c.class) {
			t.Errorf("Parse(%q): class %v, want %v (%v)", c.in, pe.Err, c.class, err)
		}
		if !strings.Contains(pe.Message, c.msg) {
			t.Errorf("Parse(%q): message %q does not contain %q", c.in, pe.Message, c.msg)
		}
		if pe.Line != 1 || pe.Column < 1 || pe.File != "job.sql" {
			t.Errorf("Parse(%q): position %s:%d:%d", c.in, pe.File, pe.Line, pe.Column)
		}
	}
}

func TestLikeDefersColumnChecks(t *testing.T) {
	// With LIKE, the watermark, key and partition columns may come from the
	// source table; the planner checks them after merging.
	s := parseOne(t, `CREATE TABLE t (WATERMARK FOR ts AS ts, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (dt) WITH ('a'='b') LIKE src`)
	ct := s.(*CreateTable)
	if ct.Watermark == nil || ct.PrimaryKey == nil || len(ct.PartitionKeys) != 1 || ct.Like == nil {
		t.Errorf("got %s", dump(s))
	}
}

func TestByteOrderMark(t *testing.T) {
	stmts, err := Parse("bom.sql", "\uFEFFSET 'a' = 'b';\nSET 'c' = 1", Config{})
	var pe *Error
	if stmts != nil || !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 11 {
		t.Fatalf("got %v", err)
	}
	if _, err := Parse("bom.sql", "\uFEFFSET 'a' = 'b'", Config{}); err != nil {
		t.Fatal(err)
	}
	_, err = Parse("bom.sql", "\uFEFFSET 'a' = 1", Config{})
	if !errors.As(err, &pe) || pe.Line != 1 || pe.Column != 11 || pe.Excerpt != "SET 'a' = 1" {
		t.Fatalf("error on the first line after a BOM: %v (column %d, excerpt %q)", err, pe.Column, pe.Excerpt)
	}
}

func TestErrorAtEndOfInputPointsAfterLastToken(t *testing.T) {
	_, err := Parse("job.sql", "CREATE TABLE t (a INT) WITH ('k' = 'v'\n\n\n", Config{})
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 1 || pe.Column != 39 || pe.Message != "expected ')', found end of input" {
		t.Errorf("got %v", err)
	}
	_, err = Parse("job.sql", "SET 'a' = U&'\\zzzz'", Config{})
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "invalid escape") || pe.Column != 11 {
		t.Errorf("bad unicode escape: %v", err)
	}
}

func TestSeveralErrors(t *testing.T) {
	src := "CREATE TABLE a (id STRIN);\nSET 'ok' = 'x';\nBEGIN STATEMENT SET;\nINSERT INTO b SELECT FROM a;\nINSERT INTO c SELECT 1;\nEND;\nSELECT a FROM t QUALIFY a > 1;\nSET 'ok2' = 'y'"
	stmts, err := Parse("job.sql", src, Config{})
	if stmts != nil {
		t.Errorf("statements returned with errors: %d", len(stmts))
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("want an ErrorList of 3, got %v", err)
	}
	lines := []int{1, 4, 7}
	for i, e := range list {
		if e.Line != lines[i] {
			t.Errorf("error %d at line %d, want %d: %v", i, e.Line, lines[i], e)
		}
	}
	var first *Error
	if !errors.As(err, &first) || first != list[0] || !errors.Is(err, ErrUnsupported) || !errors.Is(err, ErrSyntax) {
		t.Errorf("errors.As/Is through the list: %v", err)
	}
	if n := strings.Count(err.Error(), "job.sql:"); n != 3 {
		t.Errorf("Error() names %d positions, want 3", n)
	}

	// A missing ';' does not swallow the next statement.
	_, err = Parse("job.sql", "SET 'a' = 'b'\nSET 'c' = 'd' 'e';\nSET 'f' = 'g'", Config{})
	if !errors.As(err, &list) || len(list) != 2 || list[0].Line != 1 || list[0].Column != 14 || list[1].Line != 2 || list[1].Column != 14 {
		t.Errorf("missing semicolons: %v", err)
	}

	// At most maxErrors are reported.
	_, err = Parse("job.sql", strings.Repeat("FOO;\n", 30), Config{})
	if !errors.As(err, &list) || len(list) != maxErrors {
		t.Errorf("got %d errors, want %d", len(list), maxErrors)
	}
}

// TestInsertPartition: an INSERT's static partition spec (literals,
// negative numbers) is parsed before its column list.
func TestInsertPartition(t *testing.T) {
	stmts, err := Parse("x.sql", `INSERT INTO t PARTITION (dt = '2019-08-30', n = -2) (a, b) SELECT 1, 2;`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	ins := stmts[0].(*Insert)
	if len(ins.Partition) != 2 || ins.Partition[0].Column.Name != "dt" || ins.Partition[1].Column.Name != "n" || len(ins.Columns) != 2 {
		t.Fatalf("partition %+v, columns %+v", ins.Partition, ins.Columns)
	}
	if l, ok := ins.Partition[0].Value.(*Literal); !ok || l.Value.Str() != "2019-08-30" {
		t.Errorf("dt's value: %#v", ins.Partition[0].Value)
	}
}

// TestModuleStatements: LOAD MODULE with options, UNLOAD MODULE, USE
// MODULES with a list, SHOW [FULL] MODULES and SHOW USER FUNCTIONS parse.
func TestModuleStatements(t *testing.T) {
	stmts, err := Parse("m.sql", "LOAD MODULE hive WITH ('hive-version' = '3.1.2');\nUNLOAD MODULE hive;\nUSE MODULES core, hive;\nSHOW MODULES;\nSHOW FULL MODULES;\nSHOW USER FUNCTIONS LIKE 'a%';", Config{})
	if err != nil {
		t.Fatal(err)
	}
	load, unload, use := stmts[0].(*Module), stmts[1].(*Module), stmts[2].(*Module)
	if load.Kind != LoadModule || load.Names[0].Name != "hive" || len(load.Options) != 1 || unload.Kind != UnloadModule || use.Kind != UseModules || len(use.Names) != 2 {
		t.Errorf("modules: %+v %+v %+v", load, unload, use)
	}
	for i, want := range []ShowKind{ShowModules, ShowFullModules, ShowUserFunctions} {
		if s := stmts[3+i].(*Show); s.What != want {
			t.Errorf("statement %d: SHOW kind %d, want %d", 4+i, s.What, want)
		}
	}
	if s := stmts[5].(*Show); s.Like != "a%" {
		t.Errorf("SHOW USER FUNCTIONS LIKE: %q", s.Like)
	}
}
