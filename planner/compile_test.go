package planner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

func compile(t testing.TB, text string) *planner.Plan {
	t.Helper()
	p, err := planner.Compile(context.Background(), "job.sql", text, planner.Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const kafkaOrders = `CREATE TABLE orders (
  id BIGINT,
  part BIGINT METADATA FROM 'partition' VIRTUAL,
  amount DECIMAL(10, 2), customer STRING,
  big AS amount > 100
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
CREATE TABLE out1 (id BIGINT, customer STRING, part BIGINT, big BOOLEAN) WITH ('connector' = 'blackhole');
`

// TestTransform runs rows through a compiled flow: the filter drops rows,
// the projection computes the sink row from physical, metadata (INT
// delivered, declared BIGINT) and computed columns, and the row kind is
// kept.
func TestTransform(t *testing.T) {
	p := compile(t, kafkaOrders+`INSERT INTO out1 SELECT id, UPPER(customer), part, big FROM orders WHERE customer <> 'skip';`)
	fl := p.Inserts[0].Flows[0]
	// Declaration order without the computed column; the partition as
	// Kafka delivers it (INT), also in the schema the factory gets.
	if got := fl.Source.RowTypes; len(got) != 4 || got[1].Kind != types.KindInt || got[2].Kind != types.KindDecimal {
		t.Fatalf("source row types %v; want id, the INT partition, amount, customer", got)
	}
	if sc := fl.Source.Schema.Columns; len(sc) != 4 || sc[1].Type.Kind != types.KindInt {
		t.Fatalf("factory schema %v", sc)
	}
	tf, err := fl.Transform(expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dec := func(s string) types.Value {
		d, err := types.ParseDecimal(s)
		if err != nil {
			t.Fatal(err)
		}
		return types.DecimalValue(d)
	}
	in := []types.Row{
		{Kind: types.Insert, Fields: []types.Value{types.Int64(1), types.Int64(3), dec("150.00"), types.Str("ann")}},
		{Kind: types.Insert, Fields: []types.Value{types.Int64(2), types.Int64(0), dec("5.00"), types.Str("skip")}},
		{Kind: types.UpdateAfter, Fields: []types.Value{types.Int64(3), types.Int64(1), {}, types.Str("bob")}},
		{Kind: types.Insert, Fields: []types.Value{types.Int64(4), types.Int64(1), dec("1.00"), {}}},
	}
	var out []types.Row
	for _, r := range in {
		if out, err = tf(r, out); err != nil {
			t.Fatal(err)
		}
	}
	if len(out) != 2 {
		t.Fatalf("got %d rows, want 2 (the 'skip' row dropped, and the NULL customer's, for which the condition is NULL)", len(out))
	}
	if out[0].Fields[0].Int64() != 1 || out[0].Fields[1].Str() != "ANN" || out[0].Fields[2].Int64() != 3 || !out[0].Fields[3].Bool() {
		t.Errorf("row 1 = %v", out[0].Fields)
	}
	if out[1].Kind != types.UpdateAfter || out[1].Fields[1].Str() != "BOB" || !out[1].Fields[3].IsNull() {
		t.Errorf("row 2 = %v %v", out[1].Kind, out[1].Fields)
	}
}

// BenchmarkTransform measures the pipeline: a filter and a
// 5-column projection over a 10-field row, through the compiled flow.
func BenchmarkTransform(b *testing.B) {
	p := compile(b, `CREATE TABLE src (id BIGINT, customer STRING, amount DECIMAL(10, 2), qty INT, price DOUBLE,
  score DOUBLE, active BOOLEAN, country STRING, note STRING, ts TIMESTAMP(3)) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT, customer STRING, q INT, v DOUBLE, note STRING) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT id, UPPER(customer), qty * 2 + 1, price * score, COALESCE(note, 'n/a') FROM src
WHERE amount > 100 AND active AND country IN ('US', 'DE');`)
	tf, err := p.Inserts[0].Flows[0].Transform(expr.Options{})
	if err != nil {
		b.Fatal(err)
	}
	d, _ := types.ParseDecimal("150.25")
	rows := make([]types.Row, 64)
	for i := range rows {
		country := "US"
		if i%4 == 3 {
			country = "FR"
		}
		rows[i] = types.Row{Fields: []types.Value{types.Int64(int64(i)), types.Str("customer"), types.DecimalValue(d),
			types.Int64(3), types.Float64(2.5), types.Float64(0.5), types.Bool(true), types.Str(country), {}, {}}}
	}
	out := make([]types.Row, 0, len(rows))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if out, err = tf(rows[i%len(rows)], out[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSinkMetadataLayout: a sink row holds physical and writable metadata
// columns in declaration order (VIRTUAL ones left out), metadata cast to
// the type the connector writes.
func TestSinkMetadataLayout(t *testing.T) {
	p := compile(t, `CREATE TABLE src (id BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen');
CREATE TABLE k (
  id BIGINT,
  ts TIMESTAMP(3) METADATA FROM 'timestamp',
  off BIGINT METADATA FROM 'offset' VIRTUAL,
  note STRING
) WITH ('connector' = 'kafka', 'topic' = 'k', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
INSERT INTO k SELECT id, ts, 'n' FROM src;`)
	s := p.Inserts[0].Sink
	var names []string
	for _, f := range s.Fields {
		names = append(names, f.Name+" "+f.Type.String())
	}
	if got := strings.Join(names, ", "); got != "id BIGINT, ts TIMESTAMP_LTZ(3), note STRING" {
		t.Errorf("sink fields %s", got)
	}
	if len(s.Schema.Columns) != 3 || s.Schema.Columns[1].Type.Kind != types.KindTimestampLTZ {
		t.Errorf("factory schema %v", s.Schema.Columns)
	}
	if got := p.Inserts[0].Flows[0].Projection[1].String(); !strings.Contains(got, "TIMESTAMP_LTZ(3)") {
		t.Errorf("ts projection %s; want a cast to TIMESTAMP_LTZ(3)", got)
	}
}
