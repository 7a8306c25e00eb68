package csv

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

var benchFields = []types.Field{
	{Name: "id", Type: types.BigInt()}, {Name: "customer", Type: types.String()},
	{Name: "amount", Type: types.DecimalType(10, 2)}, {Name: "quantity", Type: types.Int()},
	{Name: "price", Type: types.Double()}, {Name: "paid", Type: types.Boolean()},
	{Name: "country", Type: types.String()}, {Name: "created", Type: types.TimestampType(3)},
	{Name: "day", Type: types.Date()}, {Name: "note", Type: types.String()},
}

var benchRecord = []byte(`1234567890,"Alice Example",1234.56,7,176.365,true,NL,"2026-11-29 08:30:15.123",2026-11-29,"deliver, to the back door"`)

func BenchmarkDecode(b *testing.B) {
	dec, _ := codecs(b, benchFields, nil)
	var row types.Row
	b.SetBytes(int64(len(benchRecord)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Decode(benchRecord, &row); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	dec, enc := codecs(b, benchFields, nil)
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

func TestBenchRecordRoundTrips(t *testing.T) {
	dec, enc := codecs(t, benchFields, nil)
	var row types.Row
	if err := dec.Decode(benchRecord, &row); err != nil {
		t.Fatal(err)
	}
	out, err := enc.Encode(nil, row)
	if err != nil || string(out) != string(benchRecord) {
		t.Errorf("re-encoded %q (%v)\nwant %q", out, err, benchRecord)
	}
}
