package avro

import (
	hamba "github.com/hamba/avro/v2"

	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/types"
)

// benchFields is the typical 10-field record of formats/json's benchmarks.
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

func benchRow() types.Row {
	return types.Row{Fields: []types.Value{
		types.Int64(1234567890), types.Str("Alice Example"), types.DecimalValue(types.NewDecimal(123456, 2)),
		types.Int64(7), types.Float64(176.365), types.Bool(true), types.Str("NL"),
		types.TimestampValue(types.Timestamp{Millis: 1795941015123}), types.DateValue(20786),
		types.Str("deliver to the back door"),
	}}
}

func benchCodecs(b *testing.B) (factory.Decoder, factory.Encoder, []byte) {
	f, err := resolve(b)
	if err != nil {
		b.Fatal(err)
	}
	dec, err := f.NewDecoder(benchFields)
	if err != nil {
		b.Fatal(err)
	}
	enc, err := f.NewEncoder(benchFields)
	if err != nil {
		b.Fatal(err)
	}
	rec, err := enc.Encode(nil, benchRow())
	if err != nil {
		b.Fatal(err)
	}
	return dec, enc, rec
}

func BenchmarkDecode(b *testing.B) {
	dec, _, rec := benchCodecs(b)
	var row types.Row
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Decode(rec, &row); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	_, enc, rec := benchCodecs(b)
	row := benchRow()
	var buf []byte
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = enc.Encode(buf[:0], row); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeFilterEncode is the record path of a filtering job: decode,
// keep paid orders, encode (see BENCHMARKS.md; formats/json has the same).
func BenchmarkDecodeFilterEncode(b *testing.B) {
	dec, enc, rec := benchCodecs(b)
	var row types.Row
	var buf []byte
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Decode(rec, &row); err != nil {
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

// BenchmarkDecodeHambaGenericMap is the baseline the format avoids: hamba's
// generic decoding of the same record into map[string]any.
func BenchmarkDecodeHambaGenericMap(b *testing.B) {
	_, _, rec := benchCodecs(b)
	_, schema, err := Schema(Identifier, benchFields, true)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := hamba.Unmarshal(schema, rec, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeNexmark decodes the Nexmark benchmark's events as Avro
// with every field and with what q0 and q21 read
// (formattest.BenchmarkNexmarkDecode).
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
