package planner_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestRegisterTable plans against a table registered by a program, with a
// computed column given as SQL text; the program's catalog is not changed
// by the file's statements.
func TestRegisterTable(t *testing.T) {
	cat := planner.NewCatalog()
	err := cat.RegisterTable("shop.orders", factory.Schema{Columns: []factory.Column{
		{Name: "id", Type: types.BigInt()},
		{Name: "amount", Type: types.DecimalType(10, 2)},
		{Name: "doubled", Kind: factory.Computed, Expr: "amount * 2"},
	}}, map[string]string{"connector": "datagen"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.RegisterTable("shop.orders", factory.Schema{}, nil); !errors.Is(err, planner.ErrDuplicateName) {
		t.Errorf("second registration: %v, want ErrDuplicateName", err)
	}
	dup := factory.Schema{Columns: []factory.Column{{Name: "x", Type: types.Int()}, {Name: "x", Type: types.Int()}}}
	if err := cat.RegisterTable("dup", dup, nil); !errors.Is(err, planner.ErrDuplicateName) {
		t.Errorf("duplicate column: %v, want ErrDuplicateName", err)
	}
	if err := cat.RegisterTable("a.b.c.d", factory.Schema{}, nil); !errors.Is(err, planner.ErrUnknownName) {
		t.Errorf("four-part name: %v, want ErrUnknownName", err)
	}
	if err := cat.RegisterTable("bad", factory.Schema{Columns: []factory.Column{{Name: "x", Kind: factory.Computed, Expr: "1 +"}}}, nil); err == nil {
		t.Error("a computed column that does not parse was accepted")
	}
	p, err := planner.Compile(context.Background(), "job.sql", `
CREATE TABLE out1 (id BIGINT, d DECIMAL(11, 2)) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT o.id, o.doubled FROM default_catalog.shop.orders AS o;`, planner.Options{Registry: testRegistry(), Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	tbl, ok := p.Catalog.Table(planner.Identifier{Catalog: "default_catalog", Database: "shop", Name: "orders"})
	if !ok || tbl.Schema.Columns[2].Type.String() != "DECIMAL(21, 2)" {
		t.Fatalf("computed column typed %v", tbl.Schema.Columns)
	}
	if _, ok := cat.Table(planner.Identifier{Catalog: "default_catalog", Database: "default_database", Name: "out1"}); ok {
		t.Error("the program's catalog got the file's table")
	}
	if !cat.Drop("shop.orders") || cat.Drop("shop.orders") {
		t.Error("Drop should remove the table once")
	}
}

// TestSettingsAndJobName: Options.Set wins over the file's SET, and the
// job name comes from pipeline.name, else Options.JobName, else the file.
func TestSettingsAndJobName(t *testing.T) {
	job := `SET 'execution.checkpointing.interval' = '5 s';
SET 'execution.checkpointing.timeout' = '1 min';
RESET 'execution.checkpointing.timeout';
CREATE TABLE s (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT * FROM s;`
	ctx := context.Background()
	p, err := planner.Compile(ctx, "dir/my-job.sql", job, planner.Options{Registry: testRegistry(),
		Set: map[string]string{"execution.checkpointing.interval": "1 min"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.JobName != "my-job" || p.Runtime.Checkpoint.Interval.String() != "1m0s" || p.Runtime.Checkpoint.Timeout.String() != "10m0s" {
		t.Errorf("job %q, interval %v, timeout %v", p.JobName, p.Runtime.Checkpoint.Interval, p.Runtime.Checkpoint.Timeout)
	}
	p, err = planner.Compile(ctx, "job.sql", job, planner.Options{Registry: testRegistry(), JobName: "given"})
	if err != nil || p.JobName != "given" {
		t.Fatalf("job name %v, %v", p, err)
	}
	_, err = planner.Compile(ctx, "job.sql", job, planner.Options{Registry: testRegistry(),
		Set: map[string]string{"execution.checkpointing.mode": "sometimes"}})
	var pe *planner.Error
	if !errors.As(err, &pe) || !errors.Is(err, planner.ErrInvalidSetting) || !strings.Contains(pe.Error(), "(from --set)") {
		t.Errorf("bad --set mode: %v", err)
	}
}

// TestTraits lets a program declare its own connector's metadata and
// changelog mode in its factory, and the planner checks them as it does
// the built-in connectors'.
func TestTraits(t *testing.T) {
	reg := testRegistry()
	ctx := context.Background()
	reg.MustRegisterConnector(factory.ConnectorFactory{Identifier: "mem", NewSource: noSource, NewSink: noSink,
		ReadableMetadata: map[string]types.Type{"op": types.String().NotNullable()},
		SourceChangelog:  factory.Upsert, SinkChangelog: factory.AllKinds,
	})
	reg.MustRegisterConnector(factory.ConnectorFactory{Identifier: "plain", NewSource: noSource, NewSink: noSink})
	text := `CREATE TABLE m (id BIGINT, op STRING METADATA) WITH ('connector' = 'mem');
CREATE TABLE k (id BIGINT, op STRING) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'b', 'format' = 'json');
CREATE TABLE m2 (id BIGINT, op STRING) WITH ('connector' = 'mem');
INSERT INTO m2 SELECT * FROM m;
INSERT INTO k SELECT * FROM m;`
	_, err := planner.Compile(ctx, "job.sql", text, planner.Options{Registry: reg})
	errs := planner.Errors(err)
	if len(errs) != 1 || !errors.Is(errs[0], planner.ErrInvalidTable) || !strings.Contains(errs[0].Error(), "produces updates and deletes") {
		t.Fatalf("got %v; want only the changelog error of the INSERT into kafka", err)
	}
	// Without declared metadata, a connector's metadata is taken as declared.
	text = `CREATE TABLE m (id BIGINT, op STRING METADATA) WITH ('connector' = 'plain');
CREATE TABLE m2 (id BIGINT, op STRING) WITH ('connector' = 'plain');
INSERT INTO m2 SELECT * FROM m;`
	if _, err := planner.Compile(ctx, "job.sql", text, planner.Options{Registry: reg}); err != nil {
		t.Fatal(err)
	}
}

// TestErrorClasses: errors are classified with errors.Is, carry their
// position through errors.As, and wrap the factory's typed errors.
func TestErrorClasses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		text  string
		class error
		line  int
	}{
		{"INSERT INTO nowhere SELECT 1;", planner.ErrUnknownName, 1},
		{"CREATE TABLE a (x INT) WITH ('connector' = 'datagen');\nCREATE TABLE a (x INT) WITH ('connector' = 'datagen');", planner.ErrDuplicateName, 2},
		{"CREATE TABLE a (x INT) WITH ('connector' = 'blackhole');\nINSERT INTO a SELECT 'x';", planner.ErrType, 2},
		{"CREATE TABLE a (x INT) WITH ('connector' = 'blackhole', 'nope' = '1');\nINSERT INTO a SELECT 1;", planner.ErrInvalidTable, 1},
		{"CREATE TABLE a (x INT) WITH ('connector' = 'datagen');\nCREATE TABLE b (x BIGINT) WITH ('connector' = 'blackhole');\nINSERT INTO b SELECT SUM(x) OVER (ORDER BY x) FROM a;", ddl.ErrUnsupported, 3},
		{"SELECT 1 FROM t ORDER BY x OFFSET 1 ROWS;", ddl.ErrUnsupported, 1},
	} {
		_, err := planner.Compile(ctx, "job.sql", tc.text, planner.Options{Registry: testRegistry()})
		if !errors.Is(err, tc.class) {
			t.Errorf("%q: %v, want %v", tc.text, err, tc.class)
			continue
		}
		errs := planner.Errors(err)
		var pe *planner.Error
		var de *ddl.Error
		switch {
		case errors.As(errs[0], &pe):
			if pe.Pos.Line != tc.line || pe.File != "job.sql" {
				t.Errorf("%q: at %s:%v, want line %d", tc.text, pe.File, pe.Pos, tc.line)
			}
		case errors.As(errs[0], &de):
			if de.Line != tc.line {
				t.Errorf("%q: at line %d, want %d", tc.text, de.Line, tc.line)
			}
		default:
			t.Errorf("%q: %T carries no position", tc.text, errs[0])
		}
	}
	_, err := planner.Compile(ctx, "job.sql", "CREATE TABLE a (x INT) WITH ('connector' = 'blackhole', 'nope' = '1');\nINSERT INTO a SELECT 1;",
		planner.Options{Registry: testRegistry()})
	var te *factory.TableError
	var uo *option.UnsupportedOptionsError
	if !errors.As(err, &te) || !errors.As(err, &uo) || uo.Keys[0] != "nope" {
		t.Errorf("factory errors not wrapped: %v", err)
	}
}

func TestLoadCatalogAndCancel(t *testing.T) {
	ctx := context.Background()
	cat, err := planner.LoadCatalog(ctx, "tables.sql", "CREATE TABLE a (x INT) WITH ('connector' = 'datagen');\nCREATE VIEW v AS SELECT x FROM a;",
		planner.Options{Registry: testRegistry()})
	if err != nil || strings.Join(cat.Names(), ",") != "a,v" {
		t.Fatalf("catalog %v, %v", cat, err)
	}
	if _, err := planner.LoadCatalog(ctx, "tables.sql", "SELECT 1;", planner.Options{}); !errors.Is(err, planner.ErrInvalidSetting) {
		t.Errorf("a query in a catalog file: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := planner.Compile(cancelled, "job.sql", "SELECT 1;", planner.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestExplainMasksSecrets: values of sensitive options never appear in
// EXPLAIN.
func TestExplainMasksSecrets(t *testing.T) {
	reg := testRegistry()
	reg.MustRegisterConnector(factory.ConnectorFactory{Identifier: "vault", NewSource: noSource,
		Options: []option.Option{option.String("token").Sensitive(), option.String("auth.secret-key")}})
	p, err := planner.Compile(context.Background(), "job.sql", `
CREATE TABLE v (id BIGINT) WITH ('connector' = 'vault', 'token' = 'hunter2', 'auth.secret-key' = 'swordfish');
SELECT * FROM v;`, planner.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	out := p.String()
	if strings.Contains(out, "hunter2") || strings.Contains(out, "swordfish") || !strings.Contains(out, "'token'='******'") {
		t.Errorf("secrets not masked:\n%s", out)
	}
}

// TestErrorsMaskSecretSpanningLines: a secret value written over several
// lines (a JAAS configuration) is masked in a planning error whose excerpt
// is its last line, and the caret still points at the offending option.
func TestErrorsMaskSecretSpanningLines(t *testing.T) {
	reg := testRegistry()
	reg.MustRegisterConnector(factory.ConnectorFactory{Identifier: "vault", NewSource: noSource,
		Options: []option.Option{option.String("vault.code").Sensitive(), option.String("mode")}})
	sql := "CREATE TABLE v (id BIGINT) WITH ('connector' = 'vault', 'vault.code' = 'module required\n" +
		"    username=\"u\"\n    password=\"c0dec0de\";', 'mood' = 'x');\nSELECT * FROM v;"
	_, err := planner.Compile(context.Background(), "job.sql", sql, planner.Options{Registry: reg})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if strings.Contains(msg, "c0dec0de") {
		t.Fatalf("the error shows the secret:\n%s", msg)
	}
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		if strings.Contains(l, "'mood' = 'x'") && i+1 < len(lines) {
			caret := strings.Index(lines[i+1], "^")
			if caret < 0 || !strings.HasPrefix(l[caret:], "'mood'") {
				t.Fatalf("the caret is not under 'mood':\n%s", msg)
			}
			return
		}
	}
	t.Fatalf("no excerpt in:\n%s", msg)
}

// TestErrorsMaskDeclaredSecrets: an option a connector declares Sensitive,
// whose name does not look secret, is masked in parse errors (the parser
// asks the registry) and in planning errors alike, with the caret still on
// the offending token.
func TestErrorsMaskDeclaredSecrets(t *testing.T) {
	reg := testRegistry()
	reg.MustRegisterConnector(factory.ConnectorFactory{Identifier: "vault", NewSource: noSource,
		Options: []option.Option{option.String("vault.code").Sensitive(), option.String("mode")}})
	for _, c := range []struct{ name, sql, at string }{
		{"parse error", `CREATE TABLE v (id BIGINT) WITH ('connector' = 'vault', 'vault.code' = 'c0dec0de' 'mode' = 'x');
SELECT * FROM v;`, "'mode'"},
		{"planning error", `CREATE TABLE v (id BIGINT) WITH ('connector' = 'vault', 'vault.code' = 'c0dec0de', 'mood' = 'x');
SELECT * FROM v;`, "'mood'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := planner.Compile(context.Background(), "job.sql", c.sql, planner.Options{Registry: reg})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "c0dec0de") {
				t.Fatalf("the error shows the secret:\n%s", msg)
			}
			// The caret line follows the excerpt line; the caret is under c.at.
			lines := strings.Split(msg, "\n")
			for i, l := range lines {
				if strings.HasPrefix(l, "  CREATE TABLE v") && i+1 < len(lines) {
					caret := strings.Index(lines[i+1], "^")
					if caret < 0 || !strings.HasPrefix(l[caret:], c.at) {
						t.Fatalf("the caret is not under %s:\n%s", c.at, msg)
					}
					return
				}
			}
			t.Fatalf("no excerpt in:\n%s", msg)
		})
	}
}

// TestRefusalMasksHintSecrets: a query the planner refuses before it
// resolves it (OFFSET without LIMIT here) still has the values of its sensitive
// OPTIONS hints masked in the error, also where the value appears again
// on the error's line without its key.
func TestRefusalMasksHintSecrets(t *testing.T) {
	reg := testRegistry()
	reg.MustRegisterConnector(factory.ConnectorFactory{Identifier: "vault", NewSource: noSource,
		Options: []option.Option{option.String("vault.code").Sensitive()}})
	sql := "CREATE TABLE v (id BIGINT) WITH ('connector' = 'vault');\n" +
		"SELECT 'c0dec0de' AS k FROM (SELECT id FROM v /*+ OPTIONS('vault.code' = 'c0dec0de') */) ORDER BY id OFFSET 1 ROWS;"
	_, err := planner.Compile(context.Background(), "job.sql", sql, planner.Options{Registry: reg})
	if err == nil || !errors.Is(err, ddl.ErrUnsupported) || !strings.Contains(err.Error(), "OFFSET without LIMIT is not supported yet") {
		t.Fatalf("want the OFFSET refusal, got %v", err)
	}
	if strings.Contains(err.Error(), "c0dec0de") {
		t.Fatalf("the error shows the secret:\n%v", err)
	}
}

// TestInsertTargetHintRefused: a table hint other than OPTIONS on an INSERT
// target parses and is refused by the planner at the hint's name; OPTIONS
// beside it still applies.
func TestInsertTargetHintRefused(t *testing.T) {
	sql := "CREATE TABLE s (a INT) WITH ('connector' = 'blackhole');\n" +
		"INSERT INTO s /*+ OPTIONS('sink.parallelism' = '1'), SHUFFLE_HASH(s) */ SELECT 1;"
	_, err := planner.Compile(context.Background(), "job.sql", sql, planner.Options{Registry: testRegistry()})
	var pe *planner.Error
	if !errors.As(err, &pe) || !errors.Is(err, ddl.ErrUnsupported) || pe.Message != "the SHUFFLE_HASH hint is not supported yet" || pe.Pos.String() != "2:54" {
		t.Fatalf("got %v", err)
	}
}

// TestCatalogsAndDatabases: CREATE CATALOG, CREATE DATABASE and USE
// qualify the names after them; a catalog file's USE carries into the job
// compiled with its catalog; a view reads the tables of the database it
// was created in, wherever it is read from; DROP DATABASE CASCADE drops
// what the database holds.
func TestCatalogsAndDatabases(t *testing.T) {
	ctx := context.Background()
	cat, err := planner.LoadCatalog(ctx, "tables.sql", `
CREATE CATALOG c1 WITH ('type' = 'generic_in_memory', 'default-database' = 'main');
USE CATALOG c1;
CREATE DATABASE sales;
USE sales;
CREATE TABLE orders (id BIGINT) WITH ('connector' = 'datagen');
CREATE VIEW big AS SELECT id FROM orders WHERE id > 1;`, planner.Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	if got := cat.Current(); got != (planner.Scope{Catalog: "c1", Database: "sales"}) {
		t.Fatalf("current %+v, want c1.sales", got)
	}
	if _, ok := cat.Table(planner.Identifier{Catalog: "c1", Database: "sales", Name: "orders"}); !ok {
		t.Fatalf("c1.sales.orders missing: %v", cat.Names())
	}
	p, err := planner.Compile(ctx, "job.sql", `
CREATE TABLE out1 (id BIGINT) WITH ('connector' = 'blackhole');
USE CATALOG default_catalog;
CREATE TABLE orders (id BIGINT) WITH ('connector' = 'datagen');
INSERT INTO c1.sales.out1 SELECT id FROM c1.sales.big;
INSERT INTO c1.sales.out1 SELECT id FROM orders;`, planner.Options{Registry: testRegistry(), Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Inserts[0].Flows[0].Source.Table.ID.String(); got != "c1.sales.orders" {
		t.Errorf("the view read %s, want c1.sales.orders (its own database's table)", got)
	}
	if got := p.Inserts[1].Flows[0].Source.Table.ID.String(); got != "default_catalog.default_database.orders" {
		t.Errorf("after USE CATALOG default_catalog, orders is %s", got)
	}
	if got := p.Inserts[0].Sink.Table.ID.String(); got != "c1.sales.out1" {
		t.Errorf("the file's first table is %s, want c1.sales.out1 (the catalog file's USE holds)", got)
	}
	if _, ok := cat.Table(planner.Identifier{Catalog: "c1", Database: "sales", Name: "out1"}); ok {
		t.Error("the program's catalog got the file's table")
	}
	cat2, err := planner.LoadCatalog(ctx, "drop.sql", "USE CATALOG default_catalog;\nDROP DATABASE c1.sales CASCADE;\nCREATE DATABASE c1.sales;",
		planner.Options{Registry: testRegistry(), Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	if names := cat2.Names(); len(names) != 0 {
		t.Errorf("after DROP DATABASE ... CASCADE: %v, want none", names)
	}
	if _, err := planner.LoadCatalog(ctx, "drop.sql", "USE CATALOG default_catalog;\nDROP DATABASE c1.sales;", planner.Options{Registry: testRegistry(), Catalog: cat}); !errors.Is(err, planner.ErrInvalidCatalog) {
		t.Errorf("DROP DATABASE of a database that holds tables, without CASCADE: %v, want ErrInvalidCatalog", err)
	}
}

// TestCreateTableAs: CREATE TABLE ... AS query makes a table of the
// query's columns (names, types and nullability) with the statement's
// options, and a pipeline that inserts the query's rows into it; with IF
// NOT EXISTS over an existing table, only the INSERT; two output columns
// of one name are an error at the query.
func TestCreateTableAs(t *testing.T) {
	ctx := context.Background()
	p, err := planner.Compile(ctx, "job.sql", `
CREATE TABLE src (id BIGINT NOT NULL, name STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE copy1 WITH ('connector' = 'blackhole') AS SELECT id, UPPER(name) AS n, 'ab' AS c, id + 1 AS next FROM src WHERE id > 1;
CREATE TABLE IF NOT EXISTS copy1 WITH ('connector' = 'print') AS SELECT id * 2, name, 'cd', id FROM src;`, planner.Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	tbl, ok := p.Catalog.Table(planner.Identifier{Catalog: "default_catalog", Database: "default_database", Name: "copy1"})
	if !ok {
		t.Fatal("copy1 was not created")
	}
	var cols []string
	for _, c := range tbl.Schema.Columns {
		cols = append(cols, c.Name+" "+c.Type.String())
	}
	if got, want := strings.Join(cols, ", "), "id BIGINT NOT NULL, n STRING, c CHAR(2) NOT NULL, next BIGINT NOT NULL"; got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	if tbl.Connector() != "blackhole" {
		t.Errorf("connector %q: the second CTAS (IF NOT EXISTS) replaced the table", tbl.Connector())
	}
	if len(p.Inserts) != 2 || p.Inserts[0].Sink.Name() != "copy1" || p.Inserts[1].Sink.Name() != "copy1" {
		t.Fatalf("inserts %v, want two into copy1", p.Inserts)
	}
	_, err = planner.Compile(ctx, "job.sql", `
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE src WITH ('connector' = 'blackhole') AS SELECT id FROM src;`, planner.Options{Registry: testRegistry()})
	if errs := planner.Errors(err); len(errs) != 1 || !errors.Is(errs[0], planner.ErrDuplicateName) {
		t.Errorf("errors %v, want a duplicate table", errs)
	}
	p, err = planner.Compile(ctx, "job.sql", `
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE twice WITH ('connector' = 'blackhole') AS SELECT id, id, id FROM src;`, planner.Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	tbl, _ = p.Catalog.Table(planner.Identifier{Catalog: "default_catalog", Database: "default_database", Name: "twice"})
	if got := tbl.Schema.Columns[1].Name + "," + tbl.Schema.Columns[2].Name; got != "id0,id1" {
		t.Errorf("repeated columns named %s, want id0,id1 (Flink's names)", got)
	}
}

// TestReplaceTableAs: REPLACE TABLE ... AS needs the table, CREATE OR
// REPLACE TABLE ... AS does not; both give the table the query's columns
// and options, and the query reads the table as it was.
func TestReplaceTableAs(t *testing.T) {
	ctx := context.Background()
	p, err := planner.Compile(ctx, "job.sql", `
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE out1 (x INT) WITH ('connector' = 'blackhole');
REPLACE TABLE out1 WITH ('connector' = 'print') AS SELECT id, name FROM src;
CREATE OR REPLACE TABLE out2 WITH ('connector' = 'blackhole') AS SELECT name FROM src;
CREATE OR REPLACE TABLE src WITH ('connector' = 'blackhole') AS SELECT id FROM src;`, planner.Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	out1, _ := p.Catalog.Table(planner.Identifier{Catalog: "default_catalog", Database: "default_database", Name: "out1"})
	if out1.Connector() != "print" || len(out1.Schema.Columns) != 2 {
		t.Errorf("out1 is %s with %v, want the replacement (print, id and name)", out1.Connector(), out1.Schema.Columns)
	}
	if len(p.Inserts) != 3 || p.Inserts[2].Flows[0].Source.Table.Connector() != "datagen" {
		t.Errorf("the replacing query of src read %v, want the old src (datagen)", p.Inserts[2].Flows[0].Source.Table)
	}
	_, err = planner.Compile(ctx, "job.sql", `
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE VIEW v AS SELECT id FROM src;
REPLACE TABLE nothing WITH ('connector' = 'blackhole') AS SELECT id FROM src;
CREATE OR REPLACE TABLE v WITH ('connector' = 'blackhole') AS SELECT id FROM src;`, planner.Options{Registry: testRegistry()})
	if errs := planner.Errors(err); len(errs) != 2 || !strings.Contains(errs[0].Error(), "to replace does not exist") || !strings.Contains(errs[1].Error(), "is a view") {
		t.Errorf("errors %v, want a missing table to replace and a view", errs)
	}
}

// TestAddJarWarns: ADD JAR and REMOVE JAR, which Flink job files use to
// put a connector on the class path, plan with a warning at their line
// instead of failing: streamsql's connectors are built in.
func TestAddJarWarns(t *testing.T) {
	p, err := planner.Compile(context.Background(), "job.sql", `
ADD JAR '/opt/flink/lib/flink-sql-connector-kafka.jar';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
REMOVE JAR '/opt/flink/lib/flink-sql-connector-kafka.jar';
SELECT * FROM src;`, planner.Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, w := range p.Warnings {
		if w.Kind == planner.WarnIgnoredJar {
			lines = append(lines, w.Pos.Line)
		}
	}
	if len(lines) != 2 || lines[0] != 2 || lines[1] != 4 {
		t.Errorf("ignored-jar warnings at lines %v, want 2 and 4", lines)
	}
}

// TestJoinHintsWarn: Flink's batch join strategy hints plan with one
// warning each, at the hint, also when a view holding one is read twice.
func TestJoinHintsWarn(t *testing.T) {
	p, err := planner.Compile(context.Background(), "job.sql", `
CREATE TABLE a (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE b (id BIGINT) WITH ('connector' = 'datagen');
CREATE VIEW v AS SELECT /*+ BROADCAST(y), SHUFFLE_HASH(a) */ x.id FROM a x JOIN b y ON x.id = y.id;
SELECT * FROM v;
SELECT * FROM v;`, planner.Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range p.Warnings {
		if w.Kind == planner.WarnIgnoredHint {
			got = append(got, fmt.Sprintf("%d:%d", w.Pos.Line, w.Pos.Column))
		}
	}
	if want := []string{"4:29", "4:43"}; !slices.Equal(got, want) {
		t.Errorf("ignored-hint warnings at %v, want %v", got, want)
	}
}
