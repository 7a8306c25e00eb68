package json

import (
	stdjson "encoding/json"
	"testing"

	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/types"
)

// benchFields is a typical 10-field record.
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

var benchRecord = []byte(`{"id":1234567890,"customer":"Alice Example","amount":1234.56,"quantity":7,` +
	`"price":176.365,"paid":true,"country":"NL","created":"2026-11-29 08:30:15.123",` +
	`"day":"2026-11-29","note":"deliver to the back door"}`)

func BenchmarkDecode(b *testing.B) {
	dec, _ := codecs(b, benchFields)
	var row types.Row
	b.SetBytes(int64(len(benchRecord)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Decode(benchRecord, &row); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeStdlibMap is the baseline: encoding/json into map[string]any.
func BenchmarkDecodeStdlibMap(b *testing.B) {
	b.SetBytes(int64(len(benchRecord)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := stdjson.Unmarshal(benchRecord, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	dec, enc := codecs(b, benchFields)
	var row types.Row
	if err := dec.Decode(benchRecord, &row); err != nil {
		b.Fatal(err)
	}
	var buf []byte
	b.SetBytes(int64(len(benchRecord)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = enc.Encode(buf[:0], row); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeStdlibMap is the baseline: encoding/json from map[string]any.
func BenchmarkEncodeStdlibMap(b *testing.B) {
	var m map[string]any
	if err := stdjson.Unmarshal(benchRecord, &m); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchRecord)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := stdjson.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBenchRecordDecodes(t *testing.T) {
	dec, enc := codecs(t, benchFields)
	var row types.Row
	if err := dec.Decode(benchRecord, &row); err != nil {
		t.Fatal(err)
	}
	out, err := enc.Encode(nil, row)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(benchRecord) {
		t.Errorf("re-encoded\n%s\nwant\n%s", out, benchRecord)
	}
}

// BenchmarkDecodeFilterEncode is the record path of a filtering job: decode,
// keep paid orders, encode (formats/avro has the same; see BENCHMARKS.md).
func BenchmarkDecodeFilterEncode(b *testing.B) {
	dec, enc := codecs(b, benchFields)
	var row types.Row
	var buf []byte
	b.SetBytes(int64(len(benchRecord)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Decode(benchRecord, &row); err != nil {
			b.Fatal(err)
		}
		if !row.Fields[5].Bool() {
			continue
		}
		var err error
		if buf, err = enc.Encode(buf[:0], row); err != nil {
			b.Fatal(err)
		}
	}
}

// The source record of cmd/streamsql-bench (10 columns, ~265 bytes) and the
// columns its job reads (id, user, amount, country, ts).
var (
	pipeFields = []types.Field{
		{Name: "id", Type: types.BigInt().NotNullable()}, {Name: "user", Type: types.String()},
		{Name: "amount", Type: types.Double()}, {Name: "currency", Type: types.String()},
		{Name: "country", Type: types.String()}, {Name: "ts", Type: types.BigInt()},
		{Name: "active", Type: types.Boolean()}, {Name: "score", Type: types.Double()},
		{Name: "tags", Type: types.String()}, {Name: "note", Type: types.String()},
	}
	pipeRead   = []bool{true, true, true, false, true, true, false, false, false, false}
	pipeRecord = []byte(`{"id":123456,"user":"user-734211","amount":154.37,"currency":"EUR","country":"JP",` +
		`"ts":1796198400123456,"active":true,"score":63.71845061940123,"tags":"alpha,beta,gamma,delta,epsilon",` +
		`"note":"benchmark record with some padding text to reach about two hundred bytes"}`)
)

// BenchmarkDecodePipe decodes the benchmark job's record with every field
// (all) and with the five its query reads (projected).
func BenchmarkDecodePipe(b *testing.B) {
	for _, c := range []struct {
		name string
		read []bool
	}{{"all", nil}, {"projected", pipeRead}} {
		b.Run(c.name, func(b *testing.B) {
			dec := projectedDecoder(b, pipeFields, c.read)
			var row types.Row
			b.SetBytes(int64(len(pipeRecord)))
			b.ReportAllocs()
			start, _ := processCPUNanos()
			for b.Loop() {
				if err := dec.Decode(pipeRecord, &row); err != nil {
					b.Fatal(err)
				}
			}
			if end, ok := processCPUNanos(); ok && b.N > 0 {
				b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// BenchmarkDecodeNexmark decodes the Nexmark benchmark's events (the
// public suite's mix, as ddl_kafka.sql reads them) with every field and
// with what q0 and q21 read (formattest.BenchmarkNexmarkDecode).
func BenchmarkDecodeNexmark(b *testing.B) {
	f, err := resolve(b)
	if err != nil {
		b.Fatal(err)
	}
	formattest.BenchmarkNexmarkDecode(b, f)
}

// BenchmarkEncodeNexmark encodes the Nexmark benchmark's events, every
// field, into a reused buffer (formattest.BenchmarkNexmarkEncode).
func BenchmarkEncodeNexmark(b *testing.B) {
	f, err := resolve(b)
	if err != nil {
		b.Fatal(err)
	}
	formattest.BenchmarkNexmarkEncode(b, f)
}
