package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/types"
)

// TestReaderPooledRecords reads a topic through a reader whose client
// recycles its kgo.Record slices (recordPool), in small fetches and small
// batches so that the slices go round the pool many times, from a
// partition written uncompressed and one written with snappy. Every row
// is checked when its batch is read — its value, and the position the
// reader gives for it (RowPosition reads the pooled Record) — and every
// row of every batch is kept, its value a view into the fetched bytes
// (no copy), and checked again at the end: a record recycled while the
// runtime may still ask for its position, a slice handed back twice, or
// bytes a row views reused for a later fetch, all change what is read.
// Run with -race, a record recycled too early is also a data race with the
// client's fetch goroutine that decodes the next batch into it.
func TestReaderPooledRecords(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 2)
	const perPart = 3000
	value := func(p int32, i int) string {
		return fmt.Sprintf("p%d-record-%05d-%s", p, i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"[:i%32])
	}
	for p, codec := range []kgo.CompressionCodec{kgo.NoCompression(), kgo.SnappyCompression()} {
		cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()),
			kgo.ProducerBatchCompression(codec), kgo.ProducerBatchMaxBytes(16<<10))
		var recs []*kgo.Record
		for i := range perPart {
			recs = append(recs, &kgo.Record{Partition: int32(p), Value: []byte(value(int32(p), i))})
		}
		if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cfg := srcConfig(b, topic, "max.poll.records", "37", "max.partition.fetch.bytes", "20000", "fetch.max.bytes", "40000")
	cfg.RowWidth = 3
	// The value as BYTES viewing the record's bytes, as formats that do
	// not copy (avro, headers metadata) make them.
	cfg.Decoder = func(_, v []byte, row *types.Row) error {
		row.Fields[0] = types.BytesValue(v)
		return nil
	}
	cfg.Metadata = []metadataColumn{{Key: metaPartition, Index: 1}, {Key: metaOffset, Index: 2}}
	r := openReader(t, mustNewSource(t, cfg), nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	var kept []types.Row
	check := func(row types.Row) error {
		p, off := int32(row.Fields[1].Int64()), row.Fields[2].Int64()
		if want := value(p, int(off)); string(row.Fields[0].Bytes()) != want {
			return fmt.Errorf("partition %d offset %d: value %q, want %q", p, off, row.Fields[0].Bytes(), want)
		}
		return nil
	}
	for {
		rs, err := r.Read(ctx)
		for i, row := range rs {
			if err := check(row); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("topic %s partition %d offset %d", topic, row.Fields[1].Int64(), row.Fields[2].Int64())
			if got := r.RowPosition(i); got != want {
				t.Fatalf("RowPosition(%d) = %q, want %q", i, got, want)
			}
		}
		// The runtime keeps no row past the next Read unless it copies
		// it; the test keeps the rows (not the reader's slab, which the
		// reader may reuse) to see that what they view stays.
		for _, row := range rs {
			kept = append(kept, types.Row{Kind: row.Kind, Fields: append([]types.Value(nil), row.Fields...)})
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(kept) != 2*perPart {
		t.Fatalf("read %d rows, want %d", len(kept), 2*perPart)
	}
	seen := map[[2]int64]bool{}
	for _, row := range kept {
		if err := check(row); err != nil {
			t.Fatalf("after the whole read: %v", err)
		}
		k := [2]int64{row.Fields[1].Int64(), row.Fields[2].Int64()}
		if seen[k] {
			t.Fatalf("partition %d offset %d read twice", k[0], k[1])
		}
		seen[k] = true
	}
	r.recPool.mu.Lock()
	reused := r.recPool.reused
	r.recPool.mu.Unlock()
	if reused == 0 {
		t.Fatal("the client never reused a pooled Record slice: the test did not exercise the pool")
	}
	t.Logf("%d Record slices reused", reused)
}

// TestRecordPool checks the pool's own rules: a slice large enough is
// reused, cleared; a smaller one is not handed out for a larger batch; and
// what it keeps is bounded.
func TestRecordPool(t *testing.T) {
	var p recordPool
	s := p.GetRecords(10)
	if cap(s) < 10 || len(s) != 0 {
		t.Fatalf("GetRecords(10): len %d cap %d", len(s), cap(s))
	}
	s = s[:10]
	s[3].Value = []byte("old fetch")
	p.PutRecords(s)
	s2 := p.GetRecords(5)
	if unsafe.SliceData(s2[:1]) != unsafe.SliceData(s[:1]) || p.reused != 1 {
		t.Fatal("a pooled slice large enough was not reused")
	}
	if s2 = s2[:10]; s2[3].Value != nil {
		t.Fatal("a pooled slice came back with an old record's bytes")
	}
	p.PutRecords(s2)
	if big := p.GetRecords(cap(s2) + 1); unsafe.SliceData(big[:1]) == unsafe.SliceData(s2[:1]) || cap(big) <= cap(s2) {
		t.Fatal("a slice too small was handed out")
	}
	for range 2 * recordPoolMaxRecords / recordPoolRound {
		p.PutRecords(make([]kgo.Record, recordPoolRound))
	}
	if p.held > recordPoolMaxRecords {
		t.Fatalf("pool holds %d records, more than %d", p.held, recordPoolMaxRecords)
	}
}
