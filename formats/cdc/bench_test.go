package cdc

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/json"
	"github.com/streamsql/streamsql/types"
)

// The decoders' benchmarks use the 10-field record of formats/json's and
// formats/avro's benchmarks as the table row, inside each format's
// envelope as its connector writes it. BenchmarkJSONRow decodes the same
// row as plain json in the same run: it is the baseline BENCHMARKS.md
// compares with. Every benchmark reports rows/op besides allocations, so
// a record that holds two rows (an UPDATE) can be read per row too.

var benchFields = []types.Field{
	{Name: "id", Type: types.BigInt()},
	{Name: "customer", Type: types.String()},
	{Name: "amount", Type: types.DecimalType(10, 2)},
	{Name: "quantity", Type: types.Int()},
	{Name: "price", Type: types.Double()},
	{Name: "paid", Type: types.Boolean()},
	{Name: "country", Type: types.String()},
	{Name: "created", Type: types.TimestampType(3)},
	{Name: "day", Type: types.Date()},
	{Name: "note", Type: types.String()},
}

const (
	benchRow = `{"id":1234567890,"customer":"Alice Example","amount":1234.56,"quantity":7,` +
		`"price":176.365,"paid":true,"country":"NL","created":"2026-11-29 08:30:15.123",` +
		`"day":"2026-11-29","note":"deliver to the back door"}`
	benchOld = `{"id":1234567890,"customer":"Alice Example","amount":1000.00,"quantity":6,` +
		`"price":176.365,"paid":false,"country":"NL","created":"2026-11-29 08:30:15.123",` +
		`"day":"2026-11-29","note":"deliver to the back door"}`
)

// benchRecords are one insert and one update per format: Debezium with its
// source block, Canal and Maxwell with "old" listing the changed fields.
var benchRecords = []struct{ format, kind, record string }{
	{Debezium, "insert", `{"before":null,"after":` + benchRow + `,"source":{"version":"2.7.0.Final","connector":"mysql",` +
		`"name":"shop","ts_ms":1764405015000,"db":"shop","table":"orders","server_id":1,"file":"mysql-bin.000003","pos":154,"row":0},` +
		`"op":"c","ts_ms":1764405015123,"transaction":null}`},
	{Debezium, "update", `{"before":` + benchOld + `,"after":` + benchRow + `,"source":{"version":"2.7.0.Final","connector":"mysql",` +
		`"name":"shop","ts_ms":1764405015000,"db":"shop","table":"orders","server_id":1,"file":"mysql-bin.000003","pos":154,"row":0},` +
		`"op":"u","ts_ms":1764405015123,"transaction":null}`},
	{Canal, "insert", `{"data":[` + benchRow + `],"database":"shop","es":1764405015000,"id":9,"isDdl":false,` +
		`"mysqlType":{"id":"bigint"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":-5},"table":"orders","ts":1764405015123,"type":"INSERT"}`},
	{Canal, "update", `{"data":[` + benchRow + `],"database":"shop","es":1764405015000,"id":9,"isDdl":false,` +
		`"mysqlType":{"id":"bigint"},"old":[{"amount":1000.00,"quantity":6,"paid":false}],"pkNames":["id"],"sql":"","sqlType":{"id":-5},` +
		`"table":"orders","ts":1764405015123,"type":"UPDATE"}`},
	{Maxwell, "insert", `{"database":"shop","table":"orders","type":"insert","ts":1764405015,"xid":23396,"commit":true,` +
		`"data":` + benchRow + `,"primary_key_columns":["id"]}`},
	{Maxwell, "update", `{"database":"shop","table":"orders","type":"update","ts":1764405015,"xid":23397,"commit":true,` +
		`"data":` + benchRow + `,"old":{"amount":1000.00,"quantity":6,"paid":false},"primary_key_columns":["id"]}`},
}

// BenchmarkJSONRow is the baseline: the same row as a plain json record.
func BenchmarkJSONRow(b *testing.B) {
	dec, err := json.NewDecoder(factory.FormatContext{Table: "t", Fields: benchFields})
	if err != nil {
		b.Fatal(err)
	}
	rec := []byte(benchRow)
	var row types.Row
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Decode(rec, &row); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(1, "rows/op")
}

// BenchmarkDecode decodes one record of each format and kind and reads all
// its rows, as the Kafka source does.
func BenchmarkDecode(b *testing.B) {
	for _, c := range benchRecords {
		b.Run(strings.TrimSuffix(c.format, "-json")+"/"+c.kind, func(b *testing.B) {
			dec := newDec(b, c.format, benchFields, nil)
			rec := []byte(c.record)
			var row types.Row
			rows := 0
			b.SetBytes(int64(len(rec)))
			b.ReportAllocs()
			for b.Loop() {
				if err := dec.Decode(rec, &row); err != nil {
					b.Fatal(err)
				}
				rows++
				for dec.Next(&row) {
					rows++
				}
			}
			b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
		})
	}
}

// TestBenchRecords checks that the benchmarks decode what they claim: the
// row itself, and for updates the before-row from "old".
func TestBenchRecords(t *testing.T) {
	colTypes := make([]types.Type, len(benchFields))
	for i, f := range benchFields {
		colTypes[i] = f.Type
	}
	after := `[1234567890, Alice Example, 1234.56, 7, 176.365, true, NL, 2026-11-29T08:30:15.123, 2026-11-29, deliver to the back door]`
	before := `[1234567890, Alice Example, 1000.00, 6, 176.365, false, NL, 2026-11-29T08:30:15.123, 2026-11-29, deliver to the back door]`
	for _, c := range benchRecords {
		got := decodeAll(newDec(t, c.format, benchFields, nil), colTypes, []byte(c.record))
		want := "+I" + after
		if c.kind == "update" {
			want = "-U" + before + " +U" + after
		}
		if got != want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.format, c.kind, got, want)
		}
	}
}
