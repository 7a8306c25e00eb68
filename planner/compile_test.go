package planner_test

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
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

// TestNewTransformSlab runs many rows through one NewTransform function:
// the outputs equal Transform's, rows the filter or the NOT NULL check
// drops take no fields, no two output rows share fields (an append to one
// row's fields leaves the next row alone), and the fields come from a few
// allocations rather than one per row.
func TestNewTransformSlab(t *testing.T) {
	p := compile(t, `SET 'table.exec.sink.not-null-enforcer' = 'DROP';
CREATE TABLE src (id BIGINT, name STRING, amount DOUBLE) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT id, UPPER(name) FROM src WHERE amount > 100;`)
	fl := p.Inserts[0].Flows[0]
	tf, err := fl.Transform(expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	newTF, err := fl.NewTransform(expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ntf := newTF()
	in := make([]types.Row, 200)
	for i := range in {
		id := types.Int64(int64(i))
		if i%7 == 0 {
			id = types.Value{} // dropped by the NOT NULL check
		}
		in[i] = types.Row{Kind: types.RowKind(i % 2), Fields: []types.Value{id, types.Str(fmt.Sprintf("n%d", i)), types.Float64(float64(i))}}
	}
	var want, got []types.Row
	for _, r := range in {
		w, werr := tf(r, want)
		g, gerr := ntf(r, got)
		if (werr == nil) != (gerr == nil) || (werr != nil && !errors.Is(gerr, connector.ErrDropRow)) {
			t.Fatalf("row %v: Transform %v, NewTransform's %v", r.Fields, werr, gerr)
		}
		want, got = w, g
	}
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("NewTransform gave %d rows, Transform %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Kind != want[i].Kind || fmt.Sprint(got[i].Fields) != fmt.Sprint(want[i].Fields) {
			t.Fatalf("row %d: %v %v, want %v %v", i, got[i].Kind, got[i].Fields, want[i].Kind, want[i].Fields)
		}
	}
	for i := 0; i+1 < len(got); i++ {
		next := fmt.Sprint(got[i+1].Fields)
		got[i].Fields = append(got[i].Fields, types.Str("appended"))
		if fmt.Sprint(got[i+1].Fields) != next {
			t.Fatalf("appending to row %d changed row %d: %v", i, i+1, got[i+1].Fields)
		}
	}
	row := types.Row{Fields: []types.Value{types.Int64(1), types.Str("x"), types.Float64(500)}}
	out := make([]types.Row, 0, 160)
	allocs := testing.AllocsPerRun(20, func() {
		out = out[:0]
		for range 160 {
			out, _ = ntf(row, out)
		}
	})
	// UPPER allocates its string per row; the fields take a 4 KiB slab
	// per 42 rows of 2 columns (at most one per 16 rows, say) where
	// Transform makes 160 slices.
	t.Logf("%v allocations for 160 rows", allocs)
	if allocs > 160+160/16+1 {
		t.Errorf("%v allocations for 160 rows, want at most one per row for UPPER plus one per %d rows for the fields", allocs, 16)
	}
}

// TestPerTaskReusing runs batches of rows through one PerTaskReusing
// function, releasing after each: every batch's rows are what Transform
// makes (no value of an earlier batch shows through a reused slab, rows
// dropped by the filter and the NOT NULL check included), the second
// batch's rows sit in the first batch's memory, and a steady batch
// allocates nothing for its fields (UPPER allocates its strings).
func TestPerTaskReusing(t *testing.T) {
	p := compile(t, `SET 'table.exec.sink.not-null-enforcer' = 'DROP';
CREATE TABLE src (id BIGINT, name STRING, amount DOUBLE) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT id, UPPER(name) FROM src WHERE amount > 100;`)
	fl := p.Inserts[0].Flows[0]
	tf, err := fl.Transform(expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ft, err := fl.Compile(expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rtf, release := ft.PerTaskReusing()()
	batch := func(b int) []types.Row {
		in := make([]types.Row, 300)
		for i := range in {
			id := types.Int64(int64(b*1000 + i))
			if (i+b)%7 == 0 {
				id = types.Value{} // dropped by the NOT NULL check
			}
			in[i] = types.Row{Kind: types.RowKind(i % 2), Fields: []types.Value{id, types.Str(fmt.Sprintf("n%d-%d", b, i)), types.Float64(float64((i * (b + 3)) % 250))}}
		}
		return in
	}
	var first *types.Value
	for b := range 4 {
		var want, got []types.Row
		for _, r := range batch(b) {
			w, werr := tf(r, want)
			g, gerr := rtf(r, got)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("batch %d, row %v: Transform %v, the reusing one %v", b, r.Fields, werr, gerr)
			}
			want, got = w, g
		}
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("batch %d: the reusing transform gave %d rows, Transform %d", b, len(got), len(want))
		}
		for i := range got {
			if got[i].Kind != want[i].Kind || fmt.Sprint(got[i].Fields) != fmt.Sprint(want[i].Fields) {
				t.Fatalf("batch %d, row %d: %v %v, want %v %v", b, i, got[i].Kind, got[i].Fields, want[i].Kind, want[i].Fields)
			}
		}
		switch b {
		case 0:
			first = &got[0].Fields[0]
		case 1:
			if &got[0].Fields[0] != first {
				t.Fatal("the second batch's first row is not in the first batch's memory after release")
			}
		}
		release()
	}
	// Without release nothing is reused: rows of one batch never share.
	var a, b2 []types.Row
	row := types.Row{Fields: []types.Value{types.Int64(1), types.Str("x"), types.Float64(500)}}
	a, _ = rtf(row, a)
	b2, _ = rtf(row, b2)
	if &a[0].Fields[0] == &b2[0].Fields[0] {
		t.Fatal("two rows without a release between them share their fields")
	}
	release()
	out := make([]types.Row, 0, 300)
	allocs := testing.AllocsPerRun(20, func() {
		out = out[:0]
		for range 300 {
			out, _ = rtf(row, out)
		}
		release()
	})
	// UPPER allocates its string per row; the fields nothing.
	if allocs > 300 {
		t.Errorf("%v allocations for a batch of 300 rows, want at most one per row (UPPER's)", allocs)
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

// BenchmarkTransformBenchJob runs the benchmark job's flow
// (cmd/streamsql-bench: WHERE amount > 100, 5 of 10 columns, half the rows
// kept) over batches of 500 rows as the runtime's source loop does: a new
// output slice per batch, every row through the transform, in both forms
// (Transform: fields per row; NewTransform: fields from slabs). ns/op and
// allocs/op are per input row.
func BenchmarkTransformBenchJob(b *testing.B) {
	p := compile(b, "CREATE TABLE source (id BIGINT NOT NULL, `user` STRING, amount DOUBLE, currency STRING, country STRING, ts BIGINT,\n"+
		"  active BOOLEAN, score DOUBLE, tags STRING, note STRING) WITH ('connector' = 'datagen');\n"+
		"CREATE TABLE sink (id BIGINT, `user` STRING, amount DOUBLE, country STRING, ts BIGINT) WITH ('connector' = 'blackhole');\n"+
		"INSERT INTO sink SELECT id, `user`, amount, country, ts FROM source WHERE amount > 100;")
	fl := p.Inserts[0].Flows[0]
	perRow, err := fl.Transform(expr.Options{})
	if err != nil {
		b.Fatal(err)
	}
	newTF, err := fl.NewTransform(expr.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const batch = 500
	rows := make([]types.Row, batch)
	for i := range rows {
		rows[i] = types.Row{Fields: []types.Value{types.Int64(int64(i)), types.Str("user-1"), types.Float64(float64(i % 200)),
			types.Str("EUR"), types.Str("DE"), types.Int64(1700000000000), types.Bool(true), types.Float64(0.5), types.Str("a,b"), {}}}
	}
	for _, form := range []string{"Transform", "NewTransform"} {
		b.Run(form, func(b *testing.B) {
			tf := perRow
			if form == "NewTransform" {
				tf = newTF()
			}
			b.ReportAllocs()
			var m0, m1 goruntime.MemStats
			goruntime.ReadMemStats(&m0)
			kept := 0
			for n := 0; n < b.N; n += batch {
				out := make([]types.Row, 0, batch)
				for _, r := range rows[:min(batch, b.N-n)] {
					if out, err = tf(r, out); err != nil {
						b.Fatal(err)
					}
				}
				kept += len(out)
			}
			goruntime.ReadMemStats(&m1)
			b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)*1000/float64(b.N), "allocs/krow")
			if b.N >= batch && kept == 0 {
				b.Fatal("the filter kept nothing")
			}
		})
	}
}

// TestNewTransformSharesSubexpressions runs a flow whose filter and
// projection repeat calls (q21's shape: REGEXP_EXTRACT in the WHERE and in
// the CASE, LOWER in both) through two PerTask and two PerTaskReusing
// functions, rows taking turns, beside Transform's: each function has a memo
// of its own (the rows of one task never see the other's values), and the
// outputs are Transform's, which computes every call where it stands.
func TestNewTransformSharesSubexpressions(t *testing.T) {
	p := compile(t, `CREATE TABLE src (id BIGINT, name STRING, url STRING) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT, c STRING, d STRING, n INT) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT id,
  CASE WHEN LOWER(name) = 'apple' THEN '0' WHEN LOWER(name) = 'google' THEN '1' ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) END,
  REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2), CHAR_LENGTH(LOWER(name))
FROM src WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL OR LOWER(name) IN ('apple', 'google');`)
	fl := p.Inserts[0].Flows[0]
	ft, err := fl.Compile(expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !ft.SharesSubexpressions() {
		t.Fatalf("the flow's repeated calls were not found")
	}
	tf := ft.Shared()
	newTF := ft.PerTask()
	reusing := ft.PerTaskReusing()
	r1, _ := reusing()
	r2, _ := reusing()
	tasks := []planner.TransformFunc{newTF(), newTF(), r1, r2}
	names := []types.Value{types.Str("Apple"), types.Str("GOOGLE"), types.Str("baidu"), {}, types.Str("x")}
	urls := []types.Value{types.Str("a=1&channel_id=7"), types.Str("channel_id=&b"), types.Str("a=1"), {}, types.Str("channel_id=9")}
	var want, got []types.Row
	for i := range 300 {
		r := types.Row{Fields: []types.Value{types.Int64(int64(i)), names[i%len(names)], urls[(i/2)%len(urls)]}}
		if want, err = tf(r, want); err != nil {
			t.Fatal(err)
		}
		if got, err = tasks[i%len(tasks)](r, got); err != nil {
			t.Fatal(err)
		}
	}
	if len(want) == 0 || len(want) == 300 {
		t.Fatalf("the filter kept %d of 300 rows: not a test of it", len(want))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("NewTransform's functions gave\n%v\nTransform\n%v", got, want)
	}
}
