package kafka

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// benchLayout is a json-keyed, json-valued table of three columns.
func benchLayout(b *testing.B) *layout {
	b.Helper()
	tbl := kafkaTable("key.format", "json", "key.fields", "id", "value.fields-include", "EXCEPT_KEY")
	tbl.Schema.Columns = append(tbl.Schema.Columns, factory.Column{Name: "amount", Type: types.DecimalType(10, 2)})
	v, err := factory.Default.Validate(tbl)
	if err != nil {
		b.Fatal(err)
	}
	l, err := tableLayout(factory.Context{Table: tbl.Name, Schema: tbl.Schema, Options: v.Config}, false)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkRowEncoder measures the row → record mapping of the sink (key
// and value formats, buffers reused as the writer's recycled records do).
func BenchmarkRowEncoder(b *testing.B) {
	enc, err := benchLayout(b).newEncoder()
	if err != nil {
		b.Fatal(err)
	}
	d, _ := types.ParseDecimal("1234.50")
	row := types.Row{Fields: []types.Value{types.Int64(42), types.Str("customer-42"), types.DecimalValue(d)}}
	rec := &kgo.Record{}
	b.ReportAllocs()
	for b.Loop() {
		rec.Key, rec.Value = rec.Key[:0], rec.Value[:0]
		if err := enc.EncodeRecord(&row, rec); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(rec.Key) + len(rec.Value)))
}

// BenchmarkRowDecoder measures the record → row mapping of the source.
func BenchmarkRowDecoder(b *testing.B) {
	dec, err := benchLayout(b).newDecoder()
	if err != nil {
		b.Fatal(err)
	}
	key, value := []byte(`{"id":42}`), []byte(`{"name":"customer-42","amount":1234.50}`)
	row := types.NewRow(3)
	b.ReportAllocs()
	b.SetBytes(int64(len(key) + len(value)))
	for b.Loop() {
		clear(row.Fields)
		if err := dec(key, value, &row); err != nil {
			b.Fatal(err)
		}
	}
}

// benchWideTable is the table of cmd/streamsql-bench's source: ten JSON
// value columns of mixed types, no key.
func benchWideTable(b *testing.B) *layout {
	b.Helper()
	tbl := kafkaTable()
	tbl.Schema.Columns = []factory.Column{
		{Name: "id", Type: types.BigInt().NotNullable()}, {Name: "user", Type: types.String()},
		{Name: "amount", Type: types.Double()}, {Name: "currency", Type: types.String()},
		{Name: "country", Type: types.String()}, {Name: "ts", Type: types.BigInt()},
		{Name: "active", Type: types.Boolean()}, {Name: "score", Type: types.Double()},
		{Name: "tags", Type: types.String()}, {Name: "note", Type: types.String()},
	}
	v, err := factory.Default.Validate(tbl)
	if err != nil {
		b.Fatal(err)
	}
	l, err := tableLayout(factory.Context{Table: tbl.Name, Schema: tbl.Schema, Options: v.Config}, false)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// benchWideValue is a record of cmd/streamsql-bench's source topic.
var benchWideValue = []byte(`{"id":123456,"user":"user-654321","amount":142.37,"currency":"EUR","country":"DE",` +
	`"ts":1796172956722233,"active":true,"score":37.40972181939523,"tags":"alpha,beta,gamma,delta,epsilon",` +
	`"note":"benchmark record with some padding text to reach about two hundred bytes"}`)

// BenchmarkRowDecoderBatch measures the source's decoding as the reader
// does it: batches of 500 records into rows sharing one fresh slab.
func BenchmarkRowDecoderBatch(b *testing.B) {
	l := benchWideTable(b)
	dec, err := l.newDecoder()
	if err != nil {
		b.Fatal(err)
	}
	const batch = 500
	b.ReportAllocs()
	b.SetBytes(int64(len(benchWideValue)))
	rows := make([]types.Row, batch)
	for i := 0; b.Loop(); i++ {
		k := i % batch
		if k == 0 {
			slab := make([]types.Value, batch*l.srcWidth)
			for j := range rows {
				rows[j] = types.Row{Fields: slab[j*l.srcWidth : (j+1)*l.srcWidth : (j+1)*l.srcWidth]}
			}
		}
		if err := dec(nil, benchWideValue, &rows[k]); err != nil {
			b.Fatal(err)
		}
	}
}
