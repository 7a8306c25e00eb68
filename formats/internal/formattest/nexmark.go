package formattest

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// NexmarkFields are the columns of the public Nexmark suite's event table
// (ddl_kafka.sql): event_type and the person, auction and bid ROWs.
var NexmarkFields = nexmark.Schema

// NexmarkRows returns the first n events of the nexmark connector's
// generator with the public suite's event mix (1 person, 3 auctions, 46
// bids in 50) and seed 1, as rows of NexmarkFields: the events the
// Nexmark benchmark reads.
func NexmarkRows(n int) ([]types.Row, error) {
	cfg := nexmark.DefaultConfig()
	cfg.NumEvents = int64(n)
	cfg.Seed = 1
	cfg.FirstEventRate = 10_000_000
	src, err := nexmark.NewSource(cfg)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	r, err := src.Open(ctx, connector.TaskInfo{}, []connector.SplitState{{ID: "nexmark-0-of-1"}})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []types.Row
	for len(out) < n {
		rows, err := r.Read(ctx)
		if err != nil {
			return nil, fmt.Errorf("nexmark events: %w", err)
		}
		out = append(out, rows...)
	}
	return out[:n], nil
}

// What the Nexmark queries q0, q21 and q8 read of NexmarkFields through
// ddl_kafka.sql and ddl_views.sql (factory.FormatContext.ReadRows; every
// column is read, the watermark's dateTime CASE reads all three ROWs): the
// paths EXPLAIN prints for them (planner/testdata/nexmark.golden).
var (
	// NexmarkQ0Read: event_type, person.dateTime, auction.dateTime,
	// bid.auction, bid.bidder, bid.price, bid.dateTime, bid.extra.
	NexmarkQ0Read = []*factory.RowRead{nil,
		{Fields: []bool{false, false, false, false, false, false, true, false}},
		{Fields: []bool{false, false, false, false, false, true, false, false, false, false}},
		{Fields: []bool{true, true, true, false, false, true, true}}}
	// NexmarkQ21Read: event_type, person.dateTime, auction.dateTime,
	// bid.auction, bid.bidder, bid.price, bid.channel, bid.url,
	// bid.dateTime.
	NexmarkQ21Read = []*factory.RowRead{nil,
		{Fields: []bool{false, false, false, false, false, false, true, false}},
		{Fields: []bool{false, false, false, false, false, true, false, false, false, false}},
		{Fields: []bool{true, true, true, true, true, true, false}}}
	// NexmarkQ8Read: event_type, person.id, person.name,
	// person.dateTime, auction.dateTime, auction.seller, bid.dateTime
	// (of a bid, the 92% of the events, only its dateTime).
	NexmarkQ8Read = []*factory.RowRead{nil,
		{Fields: []bool{true, true, false, false, false, false, true, false}},
		{Fields: []bool{false, false, false, false, false, true, false, true, false, false}},
		{Fields: []bool{false, false, false, false, false, true, false}}}
)

// nexmarkBatch is the number of events BenchmarkNexmarkDecode decodes
// between two RecycleValues, as the Kafka reader recycles per fetched
// batch when the job lets it (connector.NestedRowRecycler).
const nexmarkBatch = 500

// BenchmarkNexmarkDecode is the body of each format's BenchmarkDecodeNexmark:
// it encodes NexmarkRows with f's encoder, then decodes them in turn, one
// op per event, with every field read ("all": what the planner asked for
// before nested projection, since the watermark reads all three ROWs),
// with what q0, q21 and q8 read (NexmarkQ0Read, NexmarkQ21Read,
// NexmarkQ8Read), and with
// q0's fields as a stateful job's reader (q17's) decodes them (q0-kept;
// q8, a window join, is such a job too).
// A decoder that reuses the memory of nested values
// (factory.ValueRecycler) is told to every nexmarkBatch events, as the
// stateless jobs let the Kafka reader do, except in q0-kept. Besides wall
// time it reports CPU time per event (cpu-ns/op), since the machine's
// cores are shared.
func BenchmarkNexmarkDecode(b *testing.B, f *factory.Format) {
	rows, err := NexmarkRows(5000)
	if err != nil {
		b.Fatal(err)
	}
	enc, err := f.NewEncoder(NexmarkFields)
	if err != nil {
		b.Fatal(err)
	}
	records := make([][]byte, len(rows))
	size := 0
	for i, r := range rows {
		if records[i], err = enc.Encode(nil, r); err != nil {
			b.Fatal(err)
		}
		size += len(records[i])
	}
	for _, c := range []struct {
		name string
		rows []*factory.RowRead
		keep bool // never recycle, as under a stateful job
	}{{"all", nil, false}, {"q0", NexmarkQ0Read, false}, {"q21", NexmarkQ21Read, false}, {"q8", NexmarkQ8Read, true}, {"q0-kept", NexmarkQ0Read, true}} {
		b.Run(c.name, func(b *testing.B) {
			dec, err := f.NewNestedDecoder(NexmarkFields, nil, c.rows, nil)
			if err != nil {
				b.Fatal(err)
			}
			recycler, _ := dec.(factory.ValueRecycler)
			if c.keep {
				recycler = nil
			}
			var row types.Row
			b.SetBytes(int64(size / len(records)))
			b.ReportAllocs()
			start, _ := processCPUNanos()
			i := 0
			for b.Loop() {
				if i%nexmarkBatch == 0 && recycler != nil {
					recycler.RecycleValues()
				}
				if err := dec.Decode(records[i], &row); err != nil {
					b.Fatal(err)
				}
				if i++; i == len(records) {
					i = 0
				}
			}
			if end, ok := processCPUNanos(); ok && b.N > 0 {
				b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// BenchmarkNexmarkEncode is the body of each format's
// BenchmarkEncodeNexmark: it encodes NexmarkRows (every field, as the
// Nexmark loader writes the events) with f's encoder into one reused
// buffer, one op per event, and reports CPU time per event beside wall
// time, as BenchmarkNexmarkDecode does.
func BenchmarkNexmarkEncode(b *testing.B, f *factory.Format) {
	rows, err := NexmarkRows(5000)
	if err != nil {
		b.Fatal(err)
	}
	enc, err := f.NewEncoder(NexmarkFields)
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	size := 0
	for _, r := range rows {
		if buf, err = enc.Encode(buf[:0], r); err != nil {
			b.Fatal(err)
		}
		size += len(buf)
	}
	b.SetBytes(int64(size / len(rows)))
	b.ReportAllocs()
	start, _ := processCPUNanos()
	i := 0
	for b.Loop() {
		if buf, err = enc.Encode(buf[:0], rows[i]); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(rows) {
			i = 0
		}
	}
	if end, ok := processCPUNanos(); ok && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}
