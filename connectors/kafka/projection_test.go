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
