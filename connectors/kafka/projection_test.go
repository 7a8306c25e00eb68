package kafka

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/types"
)

// projectedDecoder returns the record decoder of a kafka table (id BIGINT
// in the json key and value, name STRING, n INT, ts metadata) that reads
// the source row positions read marks.
func projectedDecoder(t *testing.T, read []bool) *rowDecoder {
	t.Helper()
	tbl := kafkaTable("key.format", "json", "key.fields", "id")
	tbl.Schema.Columns = append(tbl.Schema.Columns,
		factory.Column{Name: "n", Type: types.Int()},
		factory.Column{Name: "ts", Type: types.TimestampLTZ(3), Kind: factory.Metadata, MetadataKey: "timestamp"})
	v, err := factory.Default.Validate(tbl)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tableLayout(factory.Context{Table: tbl.Name, Schema: tbl.Schema, Options: v.Config, ReadFields: read}, false)
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.newRowDecoder()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestProjectedRecordDecode: with ReadFields the key and value formats
// decode only the fields read, so a record whose unread column holds a
// value of the wrong type is read (as Flink's projection pushdown does),
// while the same record fails a reader of every column.
func TestProjectedRecordDecode(t *testing.T) {
	key, value := []byte(`{"id":"not a number"}`), []byte(`{"id":7,"name":"a","n":"abc"}`)
	full := projectedDecoder(t, nil)
	row := types.NewRow(4)
	if err := full.decode(key, value, &row); err == nil {
		t.Fatalf("a reader of every column read %v", row.Fields)
	}
	proj := projectedDecoder(t, []bool{false, true, false, true})
	row = types.NewRow(4)
	if err := proj.decode(key, value, &row); err != nil {
		t.Fatalf("projected: %v", err)
	}
	if got := row.Fields[1]; got.IsNull() || got.Str() != "a" {
		t.Errorf("name = %v, want a", got)
	}
	if !row.Fields[0].IsNull() || !row.Fields[2].IsNull() {
		t.Errorf("unread fields id, n = %v, %v; want NULL", row.Fields[0], row.Fields[2])
	}
	// A bad value in a read column still fails.
	if err := proj.decode(nil, []byte(`{"name":5.5e}`), &row); err == nil {
		t.Error("malformed read value decoded")
	}
}

// TestProjectionJob runs jobs against the real broker over records whose
// column n holds "abc" (not an INT) in some records: a job that does not
// read n writes every record under the default bad-record policy (fail),
// as Flink's projection pushdown does; a job that reads n fails at the
// first such record, naming its position. The output is checked with an
// independent read_committed consumer.
func TestProjectionJob(t *testing.T) {
	b := kafkatest.Require(t)
	in := b.Topic(t, 1)
	cl := b.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var recs []*kgo.Record
	var want []string
	for i := range 20 {
		v := fmt.Sprintf(`{"id":%d,"name":"u%d","n":%d}`, i, i, i)
		if i%4 == 1 {
			v = fmt.Sprintf(`{"id":%d,"name":"u%d","n":"abc"}`, i, i)
		}
		recs = append(recs, &kgo.Record{Topic: in, Value: []byte(v)})
		want = append(want, fmt.Sprintf(`{"id":%d,"name":"u%d"}`, i, i))
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	run := func(out, query string) error {
		sql := `CREATE TABLE src (id BIGINT, name STRING, n INT) WITH ('connector' = 'kafka', 'topic' = '` + in + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE snk (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = '` + out + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'format' = 'json');
INSERT INTO snk ` + query + `;
`
		j, err := job.Compile(ctx, "projection.sql", sql, job.Options{Registry: job.NewRegistry(), Set: map[string]string{"restart-strategy.type": "none"}})
		if err != nil {
			t.Fatal(err)
		}
		return j.Run(ctx)
	}
	out := b.Topic(t, 1)
	if err := run(out, "SELECT id, name FROM src"); err != nil {
		t.Fatalf("a job that does not read n: %v", err)
	}
	expectValues(t, b, out, true, want)
	err := run(b.Topic(t, 1), "SELECT id, name FROM src WHERE n IS NULL OR n >= 0")
	if err == nil || !strings.Contains(err.Error(), "topic "+in+" partition 0 offset 1") {
		t.Fatalf("a job that reads n: error %v, want the bad value at offset 1", err)
	}
}

// TestNestedProjectionDeadLetter runs a job that reads one field of a ROW
// column under 'scan.bad-record.policy' = 'dead-letter' against the real
// broker: a record whose unread nested field holds a value of the wrong
// type is read (nested projection skips it, as Flink's does), while a
// record that is malformed JSON inside an unread nested field (a bad
// escape, a cut array) and one with a bad value in the read field go to
// the dead-letter topic unchanged, as without the projection. Sink and
// dead letters are read with read_committed consumers.
func TestNestedProjectionDeadLetter(t *testing.T) {
	b := kafkatest.Require(t)
	in, out, dlq := b.Topic(t, 1), b.Topic(t, 1), b.Topic(t, 1)
	cl := b.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	values := []string{
		`{"user_id":1,"r":{"a":1,"b":"x","c":2}}`,
		`{"user_id":2,"r":{"a":2,"b":"x","c":"abc"}}`,  // unread c is no INT: read
		`{"user_id":3,"r":{"a":3,"b":"\q","c":1}}`,     // bad escape in unread b: dead letter
		`{"user_id":4,"r":{"a":4,"b":"x","c":[1,}}`,    // malformed unread c: dead letter
		`{"user_id":5,"r":{"a":"abc","b":"x","c":1}}`,  // read a is no INT: dead letter
		`{"user_id":6,"r":{"b":"y","a":6,"extra":{}}}`, // fields in another order, one the table lacks
	}
	var recs []*kgo.Record
	for _, v := range values {
		recs = append(recs, &kgo.Record{Topic: in, Value: []byte(v)})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	sql := `CREATE TABLE src (user_id BIGINT, r ROW<a INT, b STRING, c INT>) WITH ('connector' = 'kafka', 'topic' = '` + in + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json', 'scan.bad-record.policy' = 'dead-letter',
  'scan.bad-record.dead-letter.topic' = '` + dlq + `');
CREATE TABLE snk (user_id BIGINT, a INT) WITH ('connector' = 'kafka', 'topic' = '` + out + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'format' = 'json');
INSERT INTO snk SELECT user_id, r.a FROM src;
`
	j, err := job.Compile(ctx, "nested-dl.sql", sql, job.Options{Registry: job.NewRegistry(), JobName: kafkatest.UniqueName(t),
		Set: map[string]string{"restart-strategy.type": "none"}})
	if err != nil {
		t.Fatal(err)
	}
	var explain strings.Builder
	if err := j.Explain(&explain); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(explain.String(), "project: [user_id, r.a]") {
		t.Fatalf("EXPLAIN does not show the nested projection:\n%s", explain.String())
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	wantOut := []string{`{"user_id":1,"a":1}`, `{"user_id":2,"a":2}`, `{"user_id":6,"a":6}`}
	b.AwaitStable(t, out)
	got := kafkatest.Values(b.Consume(t, out, true, time.Minute, func(r []*kgo.Record) bool { return len(r) >= len(wantOut) }))
	if strings.Join(got, "\n") != strings.Join(wantOut, "\n") {
		t.Errorf("sink holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantOut, "\n"))
	}
	wantDead := []string{values[2], values[3], values[4]}
	b.AwaitStable(t, dlq)
	dead := b.Consume(t, dlq, true, time.Minute, func(r []*kgo.Record) bool { return len(r) >= len(wantDead) })
	if got := kafkatest.Values(dead); strings.Join(got, "\n") != strings.Join(wantDead, "\n") {
		t.Errorf("dead letters\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantDead, "\n"))
	}
	for i, r := range dead {
		if e := headerValue(r, HeaderDeadLetterError); i < len(wantDead) && !strings.Contains(e, fmt.Sprintf("topic %s partition 0 offset %d", in, i+2)) {
			t.Errorf("dead letter %d: error %q does not name offset %d", i, e, i+2)
		}
	}
}

// TestRecycledNestedRowsJob runs, against the real broker, jobs that read
// ROW fields of JSON records in batches of 7 records: one whose output is
// scalars only (the reader then reuses the memory of each batch's ROW
// values for the next: connector.NestedRowRecycler), one that outputs a
// whole ROW (which it must not reuse). Both outputs hold exactly each
// record's own values, missing and NULL fields included.
func TestRecycledNestedRowsJob(t *testing.T) {
	b := kafkatest.Require(t)
	in := b.Topic(t, 1)
	cl := b.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var recs []*kgo.Record
	var wantFlat, wantRow []string
	for i := range 100 {
		var v, flat, row string
		switch i % 3 {
		case 0:
			v = fmt.Sprintf(`{"id":%d,"r":{"a":%d,"b":"b%d","c":{"x":%d}}}`, i, i, i, 10*i)
			flat = fmt.Sprintf(`{"id":%d,"a":%d,"b":"b%d","x":%d}`, i, i, i, 10*i)
			row = fmt.Sprintf(`{"id":%d,"r":{"a":%d,"b":"b%d","c":{"x":%d}}}`, i, i, i, 10*i)
		case 1:
			v = fmt.Sprintf(`{"id":%d,"r":{"b":"only%d"}}`, i, i)
			flat = fmt.Sprintf(`{"id":%d,"a":null,"b":"only%d","x":null}`, i, i)
			row = fmt.Sprintf(`{"id":%d,"r":{"a":null,"b":"only%d","c":null}}`, i, i)
		default:
			v = fmt.Sprintf(`{"id":%d,"r":null}`, i)
			flat = fmt.Sprintf(`{"id":%d,"a":null,"b":null,"x":null}`, i)
			row = fmt.Sprintf(`{"id":%d,"r":null}`, i)
		}
		recs = append(recs, &kgo.Record{Topic: in, Value: []byte(v)})
		wantFlat, wantRow = append(wantFlat, flat), append(wantRow, row)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	run := func(out, cols, query string) {
		sql := `CREATE TABLE src (id BIGINT, r ROW<a INT, b STRING, c ROW<x INT>>) WITH ('connector' = 'kafka', 'topic' = '` + in + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'properties.max.poll.records' = '7', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE snk (` + cols + `) WITH ('connector' = 'kafka', 'topic' = '` + out + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'format' = 'json');
INSERT INTO snk ` + query + `;
`
		j, err := job.Compile(ctx, "nested.sql", sql, job.Options{Registry: job.NewRegistry(), Set: map[string]string{"restart-strategy.type": "none"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	flat := b.Topic(t, 1)
	run(flat, "id BIGINT, a INT, b STRING, x INT", "SELECT id, r.a, r.b, r.c.x FROM src")
	expectValues(t, b, flat, false, wantFlat)
	whole := b.Topic(t, 1)
	run(whole, "id BIGINT, r ROW<a INT, b STRING, c ROW<x INT>>", "SELECT id, r FROM src")
	expectValues(t, b, whole, false, wantRow)
	// A stateful graph whose Calc after the source outputs scalars only
	// lets the reader recycle too (job/graph.go): an aggregate per id (one
	// row each, so an upsert sink writes each once, in order).
	agg := b.Topic(t, 1)
	wantAgg := make([]string, len(wantFlat))
	for i, f := range wantFlat {
		wantAgg[i] = strings.Replace(f, `"a":`, `"n":1,"a":`, 1)
	}
	sql := `CREATE TABLE src (id BIGINT, r ROW<a INT, b STRING, c ROW<x INT>>) WITH ('connector' = 'kafka', 'topic' = '` + in + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'properties.max.poll.records' = '7', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE snk (id BIGINT, n BIGINT, a INT, b STRING, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'topic' = '` + agg + `', 'properties.bootstrap.servers' = '` + b.Addr + `', 'key.format' = 'json', 'value.format' = 'json');
INSERT INTO snk SELECT id, COUNT(*), MAX(r.a), MAX(r.b), MAX(r.c.x) FROM src GROUP BY id;
`
	j, err := job.Compile(ctx, "nested-agg.sql", sql, job.Options{Registry: job.NewRegistry(), Set: map[string]string{"restart-strategy.type": "none"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	expectValues(t, b, agg, false, wantAgg)
}
