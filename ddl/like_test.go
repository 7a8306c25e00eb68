package ddl

import (
	"errors"
	"strings"
	"testing"
)

// mergeScript parses "source; derived" and merges derived's LIKE with source.
func mergeScript(t *testing.T, script string) (*CreateTable, error) {
	t.Helper()
	stmts, err := Parse("like.sql", script, Config{})
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(stmts) != 2 {
		t.Fatalf("want 2 statements, got %d", len(stmts))
	}
	return MergeLike(stmts[1].(*CreateTable), stmts[0].(*CreateTable))
}

func TestMergeLike(t *testing.T) {
	cases := []struct{ name, script, want string }{
		{"flink doc: add a watermark, overwrite an option", `
			CREATE TABLE Orders (` + "`user`" + ` BIGINT, product STRING, order_time TIMESTAMP(3))
			WITH ('connector' = 'kafka', 'scan.startup.mode' = 'earliest-offset');
			CREATE TABLE Orders_with_watermark (WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND)
			WITH ('scan.startup.mode' = 'latest-offset') LIKE Orders`,
			"CREATE TABLE Orders_with_watermark (user BIGINT; product STRING; order_time TIMESTAMP(3)) WATERMARK order_time AS (`order_time` - INTERVAL '5' SECOND) WITH('connector'='kafka','scan.startup.mode'='latest-offset')"},
		{"flink doc: EXCLUDING ALL INCLUDING GENERATED", `
			CREATE TABLE Orders_in_file (` + "`user`" + ` BIGINT, product STRING, order_time_string STRING,
			  order_time AS to_timestamp(order_time_string))
			PARTITIONED BY (` + "`user`" + `) WITH ('connector' = 'filesystem', 'path' = '/x');
			CREATE TABLE Orders_in_kafka (WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND)
			WITH ('connector' = 'kafka') LIKE Orders_in_file (EXCLUDING ALL INCLUDING GENERATED)`,
			"CREATE TABLE Orders_in_kafka (user BIGINT; product STRING; order_time_string STRING; order_time AS TO_TIMESTAMP(`order_time_string`)) WATERMARK order_time AS (`order_time` - INTERVAL '5' SECOND) WITH('connector'='kafka')"},
		{"flink doc: bounded datagen mock", `
			CREATE TABLE Orders (order_number BIGINT, price DECIMAL(32,2), t AS price * 2, m STRING METADATA,
			  PRIMARY KEY (order_number) NOT ENFORCED) PARTITIONED BY (price) WITH ('connector' = 'kafka');
			CREATE TEMPORARY TABLE GenOrders WITH ('connector' = 'datagen', 'number-of-rows' = '10')
			LIKE Orders (EXCLUDING ALL)`,
			// order_number stays NOT NULL: it is in the source's schema, as in Flink.
			"CREATE TEMPORARY TABLE GenOrders (order_number BIGINT NOT NULL; price DECIMAL(32, 2)) WITH('connector'='datagen','number-of-rows'='10')"},
		{"default: everything included, source columns first, key becomes NOT NULL", `
			CREATE TABLE s (id BIGINT, c AS id + 1, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
			  WATERMARK FOR ts AS ts, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (id) WITH ('a' = '1', 'b' = '2');
			CREATE TABLE d (extra STRING) WITH ('b' = '3', 'c' = '4') LIKE s`,
			"CREATE TABLE d (id BIGINT NOT NULL; c AS (`id` + 1); ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'; extra STRING) WATERMARK ts AS `ts` PK(id) PARTITIONED(id) WITH('a'='1','b'='3','c'='4')"},
		{"OVERWRITING replaces computed and metadata columns in place", `
			CREATE TABLE s (id BIGINT, c AS id + 1, m INT METADATA, z INT);
			CREATE TABLE d (c AS id * 2, m BIGINT METADATA FROM 'k' VIRTUAL) LIKE s (OVERWRITING GENERATED OVERWRITING METADATA)`,
			"CREATE TABLE d (id BIGINT; c AS (`id` * 2); m BIGINT METADATA FROM 'k' VIRTUAL; z INT) WITH()"},
		{"EXCLUDING then redefining is allowed", `
			CREATE TABLE s (id BIGINT, c AS id + 1, WATERMARK FOR id AS id, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (id) WITH ('a' = '1');
			CREATE TABLE d (c AS id * 3, ts TIMESTAMP(3), WATERMARK FOR ts AS ts, PRIMARY KEY (ts) NOT ENFORCED) PARTITIONED BY (ts) WITH ('a' = '2')
			LIKE s (EXCLUDING GENERATED EXCLUDING WATERMARKS EXCLUDING CONSTRAINTS EXCLUDING PARTITIONS EXCLUDING OPTIONS)`,
			"CREATE TABLE d (id BIGINT NOT NULL; c AS (`id` * 3); ts TIMESTAMP(3) NOT NULL) WATERMARK ts AS `ts` PK(ts) PARTITIONED(ts) WITH('a'='2')"},
		{"OVERWRITING WATERMARKS", `
			CREATE TABLE s (ts TIMESTAMP(3), WATERMARK FOR ts AS ts);
			CREATE TABLE d (WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) LIKE s (OVERWRITING WATERMARKS)`,
			"CREATE TABLE d (ts TIMESTAMP(3)) WATERMARK ts AS (`ts` - INTERVAL '1' SECOND) WITH()"},
	}
	for _, c := range cases {
		got, err := mergeScript(t, c.script)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d := dump(got); d != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, d, c.want)
		}
		if got.Like != nil {
			t.Errorf("%s: merged table still has a LIKE clause", c.name)
		}
	}
}

func TestMergeLikeDoesNotModifyInputs(t *testing.T) {
	stmts, err := Parse("like.sql", `CREATE TABLE s (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('a'='1');
		CREATE TABLE d (x INT) WITH ('a'='2') LIKE s`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	src, d := stmts[0].(*CreateTable), stmts[1].(*CreateTable)
	before := dump(src) + dump(d)
	merged, err := MergeLike(d, src)
	if err != nil {
		t.Fatal(err)
	}
	merged.Columns[0].Name = "changed"
	merged.Options[0].Value = "changed"
	if after := dump(src) + dump(d); after != before {
		t.Errorf("inputs changed:\n%s\n%s", before, after)
	}
	if _, err := MergeLike(src, src); err == nil {
		t.Error("MergeLike of a table without LIKE succeeded")
	}
}

func TestMergeLikeErrors(t *testing.T) {
	cases := []struct{ name, script, msg string }{
		{"duplicate physical column", `CREATE TABLE s (id BIGINT); CREATE TABLE d (id INT) LIKE s`,
			"like.sql:1:45: column 'id' is already a physical column of the LIKE source s"},
		{"computed vs physical", `CREATE TABLE s (id BIGINT); CREATE TABLE d (id AS 1) LIKE s (OVERWRITING GENERATED)`,
			"column 'id' is already a physical column of the LIKE source s"},
		{"computed under INCLUDING", `CREATE TABLE s (id BIGINT, c AS id); CREATE TABLE d (c AS 2) LIKE s`,
			"computed column 'c' is also defined in the LIKE source s: use EXCLUDING GENERATED or OVERWRITING GENERATED"},
		{"metadata under INCLUDING ALL", `CREATE TABLE s (m INT METADATA); CREATE TABLE d (m INT METADATA) LIKE s (INCLUDING ALL)`,
			"metadata column 'm' is also defined in the LIKE source s: use EXCLUDING METADATA or OVERWRITING METADATA"},
		{"two watermarks", `CREATE TABLE s (ts TIMESTAMP(3), WATERMARK FOR ts AS ts); CREATE TABLE d (WATERMARK FOR ts AS ts) LIKE s`,
			"the LIKE source s already has a WATERMARK: use EXCLUDING WATERMARKS or OVERWRITING WATERMARKS"},
		{"two primary keys", `CREATE TABLE s (id INT, PRIMARY KEY (id) NOT ENFORCED); CREATE TABLE d (PRIMARY KEY (id) NOT ENFORCED) LIKE s`,
			"the LIKE source s already has a PRIMARY KEY: use EXCLUDING CONSTRAINTS"},
		{"two partitionings", `CREATE TABLE s (id INT) PARTITIONED BY (id); CREATE TABLE d (x INT) PARTITIONED BY (x) LIKE s`,
			"the LIKE source s is already PARTITIONED BY: use EXCLUDING PARTITIONS"},
		{"option under INCLUDING ALL", `CREATE TABLE s (id INT) WITH ('k' = '1'); CREATE TABLE d WITH ('k' = '2') LIKE s (INCLUDING ALL)`,
			"like.sql:1:64: option 'k' is also set in the LIKE source s: use EXCLUDING OPTIONS or OVERWRITING OPTIONS"},
		{"overwriting a watermark on another column", `CREATE TABLE s (ts TIMESTAMP(3), t2 TIMESTAMP(3), WATERMARK FOR ts AS ts); CREATE TABLE d (WATERMARK FOR t2 AS t2) LIKE s (OVERWRITING WATERMARKS)`,
			"the LIKE source s has a WATERMARK for column 'ts'; a table has only one, so use EXCLUDING WATERMARKS to define one for 't2'"},
		{"key column missing after merge", `CREATE TABLE s (id INT); CREATE TABLE d (PRIMARY KEY (idx) NOT ENFORCED) LIKE s`,
			"PRIMARY KEY column 'idx' is not a column of d (did you mean id?)"},
		{"watermark column excluded", `CREATE TABLE s (id INT, ts AS NOW()); CREATE TABLE d (WATERMARK FOR ts AS ts) LIKE s (EXCLUDING GENERATED)`,
			"WATERMARK column 'ts' is not a column of d"},
	}
	for _, c := range cases {
		_, err := mergeScript(t, c.script)
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, ErrSyntax) || !strings.Contains(pe.Error(), c.msg) {
			t.Errorf("%s: got %v, want an *Error containing %q", c.name, err, c.msg)
		}
	}
}

func TestLikeStrategies(t *testing.T) {
	s := LikeStrategies(nil)
	if s[LikeOptions] != LikeOverwriting || s[LikeWatermarks] != LikeIncluding || len(s) != 6 {
		t.Errorf("defaults = %v", s)
	}
	s = LikeStrategies([]LikeOption{{Strategy: LikeIncluding, Feature: LikeWatermarks}, {Strategy: LikeExcluding, Feature: LikeAll}})
	if s[LikeOptions] != LikeExcluding || s[LikeWatermarks] != LikeIncluding || s[LikeGenerated] != LikeExcluding {
		t.Errorf("ALL then specific = %v", s)
	}
}
