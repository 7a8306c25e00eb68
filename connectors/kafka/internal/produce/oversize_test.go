package produce

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestBatchSize: BatchSize is the batch header plus the record as
// appendRecord encodes it, for keys, values and headers of every length
// class of a varint (nil ones included).
func TestBatchSize(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	blob := func() []byte {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return []byte{}
		}
		return bytes.Repeat([]byte{'x'}, r.IntN(20000))
	}
	for range 200 {
		rec := &kgo.Record{Key: blob(), Value: blob()}
		for range r.IntN(3) {
			rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: string(bytes.Repeat([]byte{'h'}, r.IntN(200))), Value: blob()})
		}
		if got, want := BatchSize(rec), recordBatchOverhead+len(appendRecord(nil, rec)); got != want {
			t.Fatalf("BatchSize %d, encoded %d (key %d, value %d, %d headers)", got, want, len(rec.Key), len(rec.Value), len(rec.Headers))
		}
	}
}

// BenchmarkBatchSize is the per-record cost of the size check
// (Producer.SetOversize) on a typical record.
func BenchmarkBatchSize(b *testing.B) {
	r := &kgo.Record{Key: []byte("customer-42"), Value: bytes.Repeat([]byte{'v'}, 200),
		Headers: []kgo.RecordHeader{{Key: "trace", Value: []byte("abc")}}}
	n := 0
	for b.Loop() {
		n += BatchSize(r)
	}
	if n == 0 {
		b.Fatal(n)
	}
}
