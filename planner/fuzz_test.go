package planner_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// fuzzSeedGlobs are the job files FuzzCompile starts from: the examples,
// the ddl corpus (jobs and Flink's documentation, whose files are also
// split into their examples) and the planner's own golden inputs.
var fuzzSeedGlobs = []string{
	"../examples/sql/*.sql",
	"../ddl/testdata/jobs/*.sql",
	"../ddl/testdata/flink-docs/*.sql",
	"../ddl/testdata/nexmark/*.sql",
	"testdata/explain/*.sql",
	"testdata/errors/*.sql",
}

// fuzzStatements are hand-picked statements that reach corners of the
// planner the corpus files do not: VALUES rows evaluated at build time,
// UNION ALL, casts that fail at run time, hints, settings, EXPLAIN.
var fuzzStatements = []string{
	"SELECT 1",
	"SELECT CAST('x' AS INT)",
	"SELECT 1 / 0, CAST(NULL AS STRING) || 'a'",
	"CREATE TABLE p (a INT, b STRING) WITH ('connector' = 'print');\n" +
		"INSERT INTO p SELECT * FROM (VALUES (1, 'a'), (2, CAST(NULL AS STRING))) AS v(a, b)",
	"CREATE TABLE p (a BIGINT, b STRING) WITH ('connector' = 'blackhole');\n" +
		"INSERT INTO p SELECT a, b FROM (VALUES (1, 'x')) AS v(a, b) UNION ALL SELECT id, name FROM source_table WHERE age > 3",
	"CREATE TABLE k (a INT, ts TIMESTAMP(3) METADATA FROM 'timestamp', p INT METADATA FROM 'partition' VIRTUAL) WITH (" +
		"'connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json', " +
		"'sink.delivery-guarantee' = 'exactly-once');\n" +
		"SET 'execution.checkpointing.interval' = '10 s';\n" +
		"INSERT INTO k /*+ OPTIONS('sink.parallelism' = '2') */ (a) SELECT CAST(age AS INT) FROM source_table",
	"CREATE VIEW v AS SELECT id * 2 AS d, UPPER(name) AS n FROM source_table WHERE name LIKE 'a%';\n" +
		"EXPLAIN PLAN FOR SELECT d, n FROM v",
	"SET 'table.local-time-zone' = 'Europe/Paris';\n" +
		"SELECT CURRENT_TIMESTAMP, DATE_FORMAT(TIMESTAMP '2024-01-01 00:00:00', 'yyyy'), TO_TIMESTAMP('2024-01-01 00:00:00')",
	"SELECT CASE WHEN age BETWEEN 1 AND 10 THEN 'a' ELSE NULL END, COALESCE(name, 'x'), id IN (1, 2, 3) FROM source_table",
	// Query forms the planner refuses (at their positions) until it runs them.
	"SELECT name, COUNT(*) FILTER (WHERE age > 1), COUNT(DISTINCT id) FROM source_table GROUP BY name HAVING COUNT(*) > 1",
	"SELECT * FROM TABLE(TUMBLE(TABLE source_table, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) AS w JOIN source_table s ON w.id = s.id",
	"WITH a AS (SELECT id FROM source_table) SELECT DISTINCT * FROM a UNION SELECT 1 ORDER BY 1 LIMIT 2",
	"SELECT /*+ STATE_TTL('s' = '1d') */ ROW_NUMBER() OVER (PARTITION BY name ORDER BY id) FROM source_table s, LATERAL TABLE(f(name)) t (x)",
	"SELECT * FROM source_table WHERE id IN (SELECT id FROM source_table) OR EXISTS (SELECT 1) OR (SELECT 2) > id OR id = ANY (SELECT 3)",
	"CREATE TABLE f (a INT, b STRING, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'filesystem', 'path' = '/nonexistent/x', 'format' = 'csv');\n" +
		"INSERT INTO f SELECT CAST(id AS INT), name, 'd' FROM source_table",
	"CREATE TABLE u (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 't', " +
		"'properties.bootstrap.servers' = 'b:9092', 'key.format' = 'json', 'value.format' = 'json');\n" +
		"BEGIN STATEMENT SET; INSERT INTO u SELECT COALESCE(name, '-'), id FROM source_table; INSERT INTO u SELECT 'x', 1; END",
}

// fuzzRegistry returns a copy of the default registry whose connectors
// validate exactly as the real ones, and create real sources and sinks
// except where creating one could read a file a fuzzed option names
// (Kafka's key and trust stores): those get inert stand-ins. Creating a
// source or sink connects nowhere in any connector.
func fuzzRegistry(tb testing.TB) *factory.Registry {
	def := testRegistry()
	r := factory.NewRegistry()
	for _, id := range def.Formats() {
		ff, _ := def.Format(id)
		if err := r.RegisterFormat(*ff); err != nil {
			tb.Fatal(err)
		}
	}
	for _, id := range def.Connectors() {
		cf, _ := def.Connector(id)
		c := *cf
		if newSource := c.NewSource; newSource != nil {
			c.NewSource = func(ctx factory.Context) (connector.Source, error) {
				if readsFiles(ctx) {
					return inertSource{}, nil
				}
				return newSource(ctx)
			}
		}
		if newSink := c.NewSink; newSink != nil {
			c.NewSink = func(ctx factory.Context) (connector.Sink, error) {
				if readsFiles(ctx) {
					return inertSink{}, nil
				}
				return newSink(ctx)
			}
		}
		if err := r.RegisterConnector(c); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

// readsFiles reports whether creating the table's source or sink could
// read a file named by an option (an ssl.*.location property).
func readsFiles(ctx factory.Context) bool {
	for k := range option.Prefix("properties.").Get(ctx.Options) {
		if strings.Contains(strings.ToLower(k), "location") {
			return true
		}
	}
	return false
}

type inertSource struct{}

func (inertSource) Splits(context.Context) ([]connector.Split, error) { return nil, nil }
func (inertSource) Open(context.Context, connector.TaskInfo, []connector.SplitState) (connector.Reader, error) {
	return nil, errors.New("inert")
}
func (inertSource) Bounded() bool { return true }

type inertSink struct{}

func (inertSink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return nil, errors.New("inert")
}

// fuzzCatalog has the table Flink's documentation examples assume.
func fuzzCatalog(tb testing.TB) *planner.Catalog {
	cat := planner.NewCatalog()
	if err := cat.RegisterTable("source_table", factory.Schema{Columns: []factory.Column{
		{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}, {Name: "age", Type: types.Int()},
	}}, map[string]string{"connector": "datagen"}); err != nil {
		tb.Fatal(err)
	}
	return cat
}

// FuzzCompile checks that no job file makes the planner panic: Compile
// returns a plan or a non-empty list of positioned errors, never both;
// compiling twice gives the same EXPLAIN text or the same errors; a plan
// explains and builds its runtime spec (creating sources and sinks, which
// connects nowhere), and the rows of pipelines that read only VALUES go
// through their transforms; LoadCatalog of the same text returns a
// catalog or positioned errors. Nothing is run and no connection is
// opened.
//
// The seeds are the job files of the examples, the ddl corpus and the
// planner's test data (read when the fuzz test starts), the statements
// above, and the regression inputs in testdata/fuzz/FuzzCompile. Run it
// with
//
//	go test -run '^$' -fuzz FuzzCompile -fuzztime 3m -parallel 1 ./planner
//
// Set STREAMSQL_FUZZ_SLOW to a duration (such as 2s) to also fail on an
// input whose planning takes longer than that; it is off by default since
// normal test runs make no timing assertions.
func FuzzCompile(f *testing.F) {
	for _, g := range fuzzSeedGlobs {
		files, _ := filepath.Glob(g)
		if len(files) == 0 {
			f.Fatalf("no seed files match %s", g)
		}
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(data))
			if strings.Contains(g, "flink-docs") {
				for _, ex := range strings.Split(string(data), "\n-- ====") {
					f.Add(ex)
				}
			}
		}
	}
	for _, s := range fuzzStatements {
		f.Add(s)
	}
	var slow time.Duration
	if v := os.Getenv("STREAMSQL_FUZZ_SLOW"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			f.Fatalf("STREAMSQL_FUZZ_SLOW: %v", err)
		}
		slow = d
	}
	reg := fuzzRegistry(f)
	cat := fuzzCatalog(f)
	opts := planner.Options{
		Registry: reg,
		Catalog:  cat,
		Vars:     map[string]string{"KAFKA_BOOTSTRAP": "127.0.0.1:9092", "OUT_DIR": "/nonexistent/out", "IN_DIR": "/nonexistent/in"},
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<16 {
			return
		}
		ctx := context.Background()
		start := time.Now()
		p, err := planner.Compile(ctx, "fuzz.sql", src, opts)
		if took := time.Since(start); slow > 0 && took > slow {
			t.Fatalf("planning took %s", took)
		}
		if (p == nil) == (err == nil) {
			t.Fatalf("Compile returned plan %v and error %v", p != nil, err)
		}
		// The same text as a catalog file: a catalog or errors, never both.
		if c, err := planner.LoadCatalog(ctx, "fuzz.sql", src, opts); (c == nil) == (err == nil) {
			t.Fatalf("LoadCatalog returned catalog %v and error %v", c != nil, err)
		} else if err != nil {
			checkCompileErrors(t, src, err)
		}
		p2, err2 := planner.Compile(ctx, "fuzz.sql", src, opts)
		if err != nil {
			checkCompileErrors(t, src, err)
			if err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("errors differ between two runs:\n%v\n----\n%v", err, err2)
			}
			return
		}
		if err2 != nil {
			t.Fatalf("second Compile failed: %v", err2)
		}
		text := p.String()
		if !strings.HasPrefix(text, "Job: ") {
			t.Fatalf("EXPLAIN text: %q", text)
		}
		if text2 := p2.String(); text2 != text {
			t.Fatalf("EXPLAIN differs between two runs:\n%s\n----\n%s", text, text2)
		}
		runValues(t, p)
	})
}

// checkCompileErrors checks that err is a non-empty list of *ddl.Error
// and *planner.Error values, each with a message and a position inside
// src (or none).
func checkCompileErrors(t *testing.T, src string, err error) {
	t.Helper()
	if err.Error() == "" {
		t.Fatalf("empty error text: %#v", err)
	}
	errs := planner.Errors(err)
	if len(errs) == 0 {
		t.Fatalf("no errors in %#v", err)
	}
	for _, e := range errs {
		var pos ddl.Pos
		switch e := e.(type) {
		case *ddl.Error:
			pos = ddl.Pos{Offset: e.Offset, Line: e.Line, Column: e.Column}
			if e.Message == "" {
				t.Fatalf("ddl error without message: %#v", e)
			}
		case *planner.Error:
			pos = e.Pos
			if e.Message == "" || e.Err == nil {
				t.Fatalf("planner error without message or class: %#v", e)
			}
		default:
			t.Fatalf("error %T is neither *ddl.Error nor *planner.Error: %v", e, e)
		}
		if pos.IsValid() && (pos.Offset < 0 || pos.Offset > len(src) || pos.Column < 1) {
			t.Fatalf("error position %v (offset %d) outside input of %d bytes: %v", pos, pos.Offset, len(src), e)
		}
		if e.Error() == "" {
			t.Fatalf("empty error text: %#v", e)
		}
		if utf8.ValidString(src) && !utf8.ValidString(e.Error()) {
			t.Fatalf("error text is not valid UTF-8: %q", e.Error())
		}
	}
}

// runValues builds the plan's runtime spec and pushes the rows of every
// pipeline that reads only VALUES through its transform. Errors are
// allowed (a CAST that fails on a row); panics are not.
func runValues(t *testing.T, p *planner.Plan) {
	t.Helper()
	ctx := context.Background()
	spec, err := job.RuntimeSpec(ctx, p, printTo(io.Discard))
	if err != nil {
		if err.Error() == "" {
			t.Fatalf("empty RuntimeSpec error: %#v", err)
		}
		return
	}
	// INSERTs are pipelines, except those that run on the graph
	// (Insert.Graph: stateful, event time, a shared scan).
	var run []*planner.Insert
	stateful := 0
	for _, ins := range p.Inserts {
		switch {
		case ins.Explain:
		case ins.Graph():
			stateful++
		default:
			run = append(run, ins)
		}
	}
	if len(run) != len(spec.Pipelines) {
		t.Fatalf("%d pipelines for %d INSERTs that run as pipelines", len(spec.Pipelines), len(run))
	}
	if (stateful > 0) != (len(spec.Graph.Vertices) > 0) {
		t.Fatalf("%d INSERTs on the graph, %d graph vertices", stateful, len(spec.Graph.Vertices))
	}
	for i, ins := range run {
		valuesOnly := true
		for _, fl := range ins.Flows {
			valuesOnly = valuesOnly && fl.Source.Table == nil
		}
		if !valuesOnly {
			continue
		}
		pipe := spec.Pipelines[i]
		for _, s := range pipe.Sources {
			splits, err := s.Source.Splits(ctx)
			if err != nil {
				t.Fatalf("VALUES splits: %v", err)
			}
			states := make([]connector.SplitState, len(splits))
			for j, sp := range splits {
				states[j] = connector.SplitState{ID: sp.ID}
			}
			r, err := s.Source.Open(ctx, connector.TaskInfo{}, states)
			if err != nil {
				t.Fatalf("opening VALUES: %v", err)
			}
			rows, err := r.Read(ctx)
			if err == nil && pipe.Transform != nil {
				var out []types.Row
				for _, row := range rows {
					if out, err = pipe.Transform(row, out[:0]); err != nil {
						break
					}
				}
			}
			if err != nil && !errors.Is(err, io.EOF) && err.Error() == "" {
				t.Fatalf("empty error text: %#v", err)
			}
			if err := r.Close(); err != nil {
				t.Fatalf("closing VALUES: %v", err)
			}
		}
	}
}

// fuzzExprValues is the job of FuzzCompileExpr whose rows go through
// the transform: a bare query over VALUES rows of ordinary values,
// extremes and NULLs.
const fuzzExprValues = `SELECT %s FROM (VALUES
  (1, CAST(2 AS BIGINT), 3.25, 'abc', TRUE, TIMESTAMP '2024-02-29 23:59:59.123', DATE '2024-01-31', '{"a": [1, 2]}'),
  (-7, CAST(-9223372036854775807 AS BIGINT), -0.01, '', FALSE, TIMESTAMP '1970-01-01 00:00:00', DATE '0001-01-01', 'x'),
  (CAST(NULL AS INT), CAST(NULL AS BIGINT), CAST(NULL AS DECIMAL(3, 2)), CAST(NULL AS STRING), CAST(NULL AS BOOLEAN),
   CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS DATE), CAST(NULL AS STRING))
) AS t (i, b, d, s, bo, ts, dt, j) WHERE %s`

// fuzzExprInsert is the job of FuzzCompileExpr that writes a datagen
// table into a sink column of a chosen type.
const fuzzExprInsert = `CREATE TABLE src (i INT, b BIGINT, d DECIMAL(10, 2), f DOUBLE, s STRING, v VARCHAR(5),
  bo BOOLEAN, ts TIMESTAMP(3), lt TIMESTAMP_LTZ(3), dt DATE, tm TIME(0), bs BYTES, j STRING,
  arr ARRAY<INT>, m MAP<STRING, INT>) WITH ('connector' = 'datagen');
CREATE TABLE snk (c %s) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT %s FROM src WHERE %s`

// fuzzSinkTypes are the types of the sink column of fuzzExprInsert.
var fuzzSinkTypes = []string{"STRING", "INT", "BIGINT NOT NULL", "DECIMAL(5, 1)", "DOUBLE", "BOOLEAN", "TIMESTAMP(3)",
	"TIMESTAMP_LTZ(3)", "DATE", "VARCHAR(3)", "CHAR(2)", "BYTES", "ARRAY<STRING>", "MAP<STRING, INT>", "TINYINT", "TIME(0)"}

// FuzzCompileExpr is FuzzCompile with the fuzzed text in the place of an
// expression and a condition of two jobs that otherwise plan, so that
// most inputs get past the parser into name resolution, type checking,
// lowering, implicit casts to a sink column of a chosen type, and
// evaluation over VALUES rows. Run it with
//
//	go test -run '^$' -fuzz FuzzCompileExpr -fuzztime 3m -parallel 1 ./planner
func FuzzCompileExpr(f *testing.F) {
	for _, e := range []string{
		"i", "i + 1", "b * 2 / 0", "d * d * d * d", "CAST(s AS INT)", "CAST(d AS DECIMAL(38, 37))", "-b - 1",
		"UPPER(s) || LOWER(s)", "SUBSTRING(s FROM 2 FOR 100)", "SUBSTR(s, -3, 2)", "TRIM(BOTH 'a' FROM s)",
		"LPAD(s, 5, '*')", "RPAD(s, -1, '')", "REPLACE(s, '', 'x')", "SPLIT_INDEX(s, '', 0)", "REGEXP_EXTRACT(s, '(a', 1)",
		"REGEXP_REPLACE(s, '[', 'x')", "POSITION('b' IN s)", "CHAR_LENGTH(s)", "CONCAT_WS(',', s, NULL, 'x')",
		"s LIKE '%b_' ESCAPE '\\'", "s SIMILAR TO 'a.*'", "i BETWEEN 1 AND b", "i IN (1, 2, NULL)",
		"CASE WHEN bo THEN i ELSE b END", "COALESCE(i, b, d)", "NULLIF(s, 'abc')", "IF(bo, s, 'n')",
		"ts + INTERVAL '1' DAY", "EXTRACT(DOW FROM ts)", "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss.SSS')",
		"TIMESTAMPADD(MONTH, 1, ts)", "TIMESTAMPDIFF(DAY, ts, CAST(dt AS TIMESTAMP(3)))", "TO_TIMESTAMP(s, 'yyyy')",
		"UNIX_TIMESTAMP(s, 'yyyy')", "FROM_UNIXTIME(b)", "TO_TIMESTAMP_LTZ(b, 3)", "FLOOR(ts TO HOUR)", "CEIL(d)",
		"ROUND(d, -2)", "MOD(i, 0)", "POWER(d, 0.5)", "SQRT(-1)", "ABS(CAST(-2147483648 AS INT))",
		"JSON_VALUE(j, '$.a[1]')", "JSON_QUERY(j, '$.a')", "JSON_EXISTS(j, 'lax $.b')", "arr[3]",
		"m['k']", "CAST(ts AS STRING)", "CAST(s AS TIMESTAMP(3))", "CAST(s AS BOOLEAN)", "CAST(s AS BYTES)",
		"CAST(b AS TINYINT)", "CAST(d AS INT)", "CAST(dt AS TIMESTAMP_LTZ(3))", "i IS DISTINCT FROM b",
		"CURRENT_DATE", "UUID()", "*", "t.*", "i AS x, s AS y",
		// Forms the planner refuses until it runs them.
		"COUNT(DISTINCT i) FILTER (WHERE bo)", "SUM(i) OVER (PARTITION BY s ORDER BY ts ROWS 2 PRECEDING)",
		"LISTAGG(s) WITHIN GROUP (ORDER BY s)", "(SELECT 1)", "i IN (SELECT 1)", "EXISTS (SELECT 1)", "i = ANY (SELECT 1)",
	} {
		f.Add(e, "i > 0 OR i IS NULL", byte(0))
		f.Add("CAST("+e+" AS STRING)", "TRUE", byte(0))
	}
	f.Add("s", "s LIKE 'a%'", byte(9))
	f.Add("i", "bo", byte(2))
	f.Add("d", "d > 1", byte(3))
	f.Add("ts", "TRUE", byte(7))
	f.Add("arr", "CARDINALITY(arr) > 0", byte(12))
	reg := fuzzRegistry(f)
	opts := planner.Options{Registry: reg}
	f.Fuzz(func(t *testing.T, e, where string, sinkType byte) {
		if len(e)+len(where) > 1<<12 {
			return
		}
		typ := fuzzSinkTypes[int(sinkType)%len(fuzzSinkTypes)]
		for _, src := range []string{fmt.Sprintf(fuzzExprValues, e, where), fmt.Sprintf(fuzzExprInsert, typ, e, where)} {
			p, err := planner.Compile(context.Background(), "fuzz.sql", src, opts)
			if (p == nil) == (err == nil) {
				t.Fatalf("Compile returned plan %v and error %v", p != nil, err)
			}
			if err != nil {
				checkCompileErrors(t, src, err)
				continue
			}
			if text := p.String(); !strings.HasPrefix(text, "Job: ") {
				t.Fatalf("EXPLAIN text: %q", text)
			}
			runValues(t, p)
		}
	})
}

// sqlOptions writes "key=value" lines as SQL option pairs: "'k' = 'v', ...".
func sqlOptions(lines string) string {
	var parts []string
	for _, line := range strings.Split(lines, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		parts = append(parts, "'"+strings.ReplaceAll(k, "'", "''")+"' = '"+strings.ReplaceAll(v, "'", "''")+"'")
	}
	return strings.Join(parts, ", ")
}

// fuzzOptionsJob is the job of FuzzCompileOptions: a table with fuzzed
// WITH options read (with a fuzzed OPTIONS hint) into a Kafka sink and
// written from a datagen table, under fuzzed SET statements.
const fuzzOptionsJob = `%s
CREATE TABLE t (
  id BIGINT, name STRING, price DECIMAL(10, 2),
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  part INT METADATA FROM 'partition' VIRTUAL,
  hdrs MAP<STRING, BYTES> METADATA FROM 'headers'
) WITH (%s);
CREATE TABLE g (id BIGINT, name STRING, price DECIMAL(10, 2)) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE k (id BIGINT, name STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp') WITH (
  'connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'p');
INSERT INTO k SELECT id, name, ts FROM t /*+ OPTIONS(%s) */ WHERE price > 0;
INSERT INTO t (id, name, price, ts) SELECT id, name, price, CAST(NULL AS TIMESTAMP_LTZ(3)) FROM g;
`

// FuzzCompileOptions plans a job whose settings, one table's WITH options
// and an OPTIONS hint on it are fuzzed ("key=value" lines), so that option
// validation through the factories, the planner's checks of settings,
// metadata columns, changelog modes and Kafka transactions, and the
// creation of sources and sinks see arbitrary values. Run it with
//
//	go test -run '^$' -fuzz FuzzCompileOptions -fuzztime 3m -parallel 1 ./planner
func FuzzCompileOptions(f *testing.F) {
	kafka := "connector=kafka\ntopic=in\nproperties.bootstrap.servers=127.0.0.1:9092\nformat=json\n"
	f.Add("", kafka, "")
	f.Add("execution.checkpointing.interval=10 s\npipeline.name=j", kafka+"scan.startup.mode=earliest-offset\nproperties.isolation.level=read_uncommitted",
		"scan.bounded.mode=latest-offset")
	f.Add("execution.checkpointing.interval=1 min\nexecution.checkpointing.timeout=1 min", kafka+"properties.transaction.timeout.ms=60000\nsink.delivery-guarantee=exactly-once",
		"properties.group.id=g")
	f.Add("table.local-time-zone=Nowhere/City", "connector=upsert-kafka\ntopic=in\nproperties.bootstrap.servers=b:9092\nkey.format=json\nvalue.format=json", "")
	f.Add("execution.checkpointing.mode=AT_LEAST_ONCE", kafka+"sink.semantic=EXACTLY_ONCE\nsink.transactional-id-prefix=", "scan.startup.mode=specific-offsets")
	f.Add("pipeline.name=a/b", "connector=filesystem\npath=/nonexistent/x\nformat=csv", "source.monitor-interval=1 s")
	f.Add("restart-strategy=fixed-delay\nrestart-strategy.fixed-delay.attempts=-1", "connector=datagen\nfields.id.kind=sequence\nfields.id.start=1\nfields.id.end=0", "rows-per-second=-1")
	f.Add("", kafka+"value.format=csv\nkey.format=raw\nkey.fields=id\nvalue.fields-include=EXCEPT_KEY", "")
	f.Add("", kafka+"topic-pattern=(a", "topic=x")
	reg := fuzzRegistry(f)
	opts := planner.Options{Registry: reg}
	f.Fuzz(func(t *testing.T, settings, with, hints string) {
		if len(settings)+len(with)+len(hints) > 1<<12 {
			return
		}
		var sets strings.Builder
		for _, line := range strings.Split(settings, "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				fmt.Fprintf(&sets, "SET '%s' = '%s';\n", strings.ReplaceAll(k, "'", "''"), strings.ReplaceAll(v, "'", "''"))
			}
		}
		src := fmt.Sprintf(fuzzOptionsJob, sets.String(), sqlOptions(with), sqlOptions(hints))
		p, err := planner.Compile(context.Background(), "fuzz.sql", src, opts)
		if (p == nil) == (err == nil) {
			t.Fatalf("Compile returned plan %v and error %v", p != nil, err)
		}
		var shown string
		if err != nil {
			checkCompileErrors(t, src, err)
			for _, e := range planner.Errors(err) {
				// Parse errors too: ddl masks secret-looking keys' values
				// in their excerpts and messages.
				shown += e.Error() + "\n"
			}
		} else {
			shown = p.String()
			if !strings.HasPrefix(shown, "Job: ") {
				t.Fatalf("EXPLAIN text: %q", shown)
			}
			runValues(t, p)
		}
		checkSecretsHidden(t, reg, shown, func(hide func(string) string) string {
			return fmt.Sprintf(fuzzOptionsJob, sets.String(), sqlOptions(hide(with)), sqlOptions(hide(hints)))
		}, with, hints)
	})
}

// checkSecretsHidden checks that shown (error or EXPLAIN text) holds no
// value of a sensitive option of the "key=value" lines of any of
// optionLines. job writes the job with the option lines passed through
// hide; a value found in the job with every secret hidden (in the
// template, a key, another value) is not a secret's.
func checkSecretsHidden(t *testing.T, reg *factory.Registry, shown string, job func(hide func(string) string) string, optionLines ...string) {
	t.Helper()
	var secrets []string
	for _, lines := range optionLines {
		m := map[string]string{}
		for _, line := range strings.Split(lines, "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				m[k] = v
			}
		}
		for _, kv := range factory.MaskedOptions(m, reg) {
			if v := m[kv.Key]; kv.Value == option.Mask && len(strings.TrimSpace(v)) >= 6 && !strings.ContainsAny(v, "'$\\") {
				secrets = append(secrets, v)
			}
		}
	}
	if len(secrets) == 0 {
		return
	}
	hidden := job(func(lines string) string {
		var out []string
		for _, line := range strings.Split(lines, "\n") {
			if k, v, ok := strings.Cut(line, "="); ok && slices.Contains(secrets, v) {
				line = k + "=" + strings.Repeat("#", len(v))
			}
			out = append(out, line)
		}
		return strings.Join(out, "\n")
	})
	for _, sec := range secrets {
		if strings.Contains(shown, sec) && !strings.Contains(hidden, sec) {
			t.Fatalf("a sensitive option's value %q is shown:\n%s", sec, shown)
		}
	}
}
