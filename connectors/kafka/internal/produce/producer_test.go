package produce

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/types"
)

// heldClient is a Client that holds produced records until ack runs their
// promises on another goroutine, as franz-go runs them once a produce
// request is answered.
type heldClient struct {
	Client // unused methods
	mu     sync.Mutex
	held   []heldRecord
	err    error // ProduceClient's error
}

type heldRecord struct {
	r       *kgo.Record
	promise func(*kgo.Record, error)
}

func (c *heldClient) Produce(_ context.Context, r *kgo.Record, promise func(*kgo.Record, error)) {
	c.mu.Lock()
	c.held = append(c.held, heldRecord{r, promise})
	c.mu.Unlock()
}

func (c *heldClient) ProduceClient(context.Context) (Client, error) {
	if c.err != nil {
		return nil, c.err
	}
	return c, nil
}

// ack runs the promises of the held records on another goroutine and
// returns the records.
func (c *heldClient) ack() []*kgo.Record {
	c.mu.Lock()
	held := c.held
	c.held = nil
	c.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, h := range held {
			h.r.ProducerID, h.r.ProducerEpoch, h.r.Partition, h.r.Offset = 9, 2, 3, 100
			h.promise(h.r, nil)
		}
	}()
	<-done
	var out []*kgo.Record
	for _, h := range held {
		out = append(out, h.r)
	}
	return out
}

// failingEncoder fails rows whose value is "bad" and skips "skip".
type failingEncoder struct{ valueEncoder }

var errBad = errors.New("bad row")

func (e failingEncoder) EncodeRecord(row *types.Row, rec *kgo.Record) error {
	if row.Fields[0].Str() == "bad" {
		return errBad
	}
	return e.valueEncoder.EncodeRecord(row, rec)
}

// idle reports whether Wait returns at once (no record waits for its
// promise): Wait is given a context that is already ended.
func idle(p *Producer) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return p.Wait(ctx) == nil
}

// TestProducerPendingCounts checks what Wait waits for when rows are
// skipped, fail to encode or find no client: exactly the records handed to
// the client, until their promises ran. Produce counts a call's rows in
// one step and takes back those it did not hand over; a miscount either
// way shows as Wait returning early or never.
func TestProducerPendingCounts(t *testing.T) {
	p := New(context.Background(), failingEncoder{}, nil, nil, 0)
	defer p.Close()
	cl := &heldClient{}
	ctx := context.Background()

	if n, err := p.Produce(ctx, cl, rows("a", "skip", "b", "skip")); n != 4 || err != nil {
		t.Fatalf("Produce = %d, %v", n, err)
	}
	if idle(p) {
		t.Fatal("Wait returned while two records wait for their promises")
	}
	if got := len(cl.ack()); got != 2 {
		t.Fatalf("%d records produced, want 2", got)
	}
	if !idle(p) {
		t.Fatal("Wait does not return after every promise ran (skipped rows still counted?)")
	}

	n, err := p.Produce(ctx, cl, rows("c", "bad", "d"))
	if n != 1 || !errors.Is(err, errBad) {
		t.Fatalf("Produce = %d, %v; want 1 and the encoding error", n, err)
	}
	if idle(p) {
		t.Fatal("Wait returned while a record waits for its promise")
	}
	cl.ack()
	if !idle(p) {
		t.Fatal("Wait does not return after the promise ran (rows after the failure still counted?)")
	}

	if n, err := p.Produce(ctx, cl, rows("skip", "skip")); n != 2 || err != nil || !idle(p) {
		t.Fatalf("Produce of skipped rows = %d, %v, idle %v", n, err, idle(p))
	}
	noClient := &heldClient{err: errors.New("no client")}
	if _, err := p.Produce(ctx, noClient, rows("e", "f")); err == nil || !idle(p) {
		t.Fatalf("Produce without a client = %v, idle %v; want the error and nothing pending", err, idle(p))
	}

	// A Wait under way returns when the last promise runs.
	if _, err := p.Produce(ctx, cl, rows("g", "h")); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLong)
		defer cancel()
		waited <- p.Wait(ctx)
	}()
	time.Sleep(10 * time.Millisecond) // let Wait start waiting (it passes either way)
	cl.ack()
	if err := <-waited; err != nil {
		t.Fatalf("Wait: %v", err)
	}
	o := p.Outcome()
	if o.Err != nil || !o.PIDSet || o.PID != 9 || o.Epoch != 2 || o.Mixed || len(o.Partitions) != 1 {
		t.Fatalf("outcome %+v", o)
	}
}

// TestProducerRecyclesRecords checks that a record whose promise ran is
// used again, cleared but for its buffers, and that producing allocates
// nothing per record once records are recycled.
func TestProducerRecyclesRecords(t *testing.T) {
	p := New(context.Background(), valueEncoder{}, nil, nil, 0)
	defer p.Close()
	cl := &heldClient{}
	ctx := context.Background()
	many := make([]string, 200)
	for i := range many {
		many[i] = "first-value-of-some-length"
	}
	if _, err := p.Produce(ctx, cl, rows(many...)); err != nil {
		t.Fatal(err)
	}
	first := map[*kgo.Record]bool{}
	for _, r := range cl.ack() {
		first[r] = true
		r.Timestamp, r.Topic = time.Unix(1, 0), "elsewhere"
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: "k"})
	}
	for i := range many {
		many[i] = "v"
	}
	if _, err := p.Produce(ctx, cl, rows(many...)); err != nil {
		t.Fatal(err)
	}
	reused := 0
	for _, h := range cl.held {
		r := h.r
		if !first[r] {
			continue
		}
		reused++
		if string(r.Value) != "v" || !r.Timestamp.IsZero() || r.Topic != "" || len(r.Headers) != 0 || r.Offset != 0 || r.ProducerID != 0 {
			t.Fatalf("recycled record not cleared: %+v", *r)
		}
	}
	if reused < 100 {
		t.Fatalf("%d of 200 records were used again after their promises ran, want at least 100", reused)
	}
	cl.ack()

	batch := rows("a", "b", "c", "d", "e", "f", "g", "h")
	allocs := testing.AllocsPerRun(50, func() {
		if _, err := p.Produce(ctx, cl, batch); err != nil {
			t.Fatal(err)
		}
		cl.mu.Lock()
		held := cl.held
		cl.held = cl.held[:0]
		cl.mu.Unlock()
		for _, h := range held {
			h.promise(h.r, nil)
		}
	})
	if allocs > 0 {
		t.Fatalf("%v allocations per Produce of %d rows once records are recycled, want 0", allocs, len(batch))
	}
	if !idle(p) {
		t.Fatal("records still pending")
	}
}

// TestProducerDropsLargeBuffers checks that a recycled record does not
// keep a value buffer larger than maxKeptBuffer: one large record must not
// pin its memory for as long as the writer lives.
func TestProducerDropsLargeBuffers(t *testing.T) {
	p := New(context.Background(), valueEncoder{}, nil, nil, 0)
	defer p.Close()
	cl := &heldClient{}
	ctx := context.Background()
	big := string(make([]byte, 2*maxKeptBuffer))
	if _, err := p.Produce(ctx, cl, rows(big, "small")); err != nil {
		t.Fatal(err)
	}
	if c := cap(cl.held[0].r.Value); c <= maxKeptBuffer {
		t.Fatalf("the test's large value has a buffer of %d bytes", c)
	}
	recs := cl.ack()
	if cap(recs[0].Value) != 0 {
		t.Fatalf("a recycled record keeps a %d-byte buffer", cap(recs[0].Value))
	}
	if cap(recs[1].Value) == 0 {
		t.Fatal("a recycled record lost its small buffer")
	}
}

// valueEncoder writes field 0 as the value; rows whose value is "skip"
// produce no record.
type valueEncoder struct{}

func (valueEncoder) EncodeRecord(row *types.Row, rec *kgo.Record) error {
	if row.Fields[0].Str() == "skip" {
		return ErrSkipRow
	}
	rec.Value = append(rec.Value, row.Fields[0].Str()...)
	return nil
}

func rows(values ...string) []types.Row {
	out := make([]types.Row, len(values))
	for i, v := range values {
		out[i] = types.Row{Fields: []types.Value{types.Str(v)}}
	}
	return out
}

// waitLong bounds waits that only a hang would exceed.
const waitLong = 20 * time.Second

// TestProducerRecordsEndWithItsContext: when the writer's context (New's)
// ends, the context of the records handed to the client ends too, so that
// franz-go fails them instead of keeping them buffered; the
// delivery-timeout watch stops then as at Close.
func TestProducerRecordsEndWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := New(ctx, valueEncoder{}, nil, nil, time.Hour)
	defer p.Close()
	cl := &heldClient{}
	if _, err := p.Produce(context.Background(), cl, rows("a")); err != nil {
		t.Fatal(err)
	}
	cl.mu.Lock()
	rec := cl.held[0].r
	cl.mu.Unlock()
	if rec.Context.Err() != nil {
		t.Fatal("a record's context ended while the writer's lives")
	}
	cancel()
	select {
	case <-rec.Context.Done():
	case <-time.After(waitLong):
		t.Fatal("a buffered record's context lives on after the writer's ended")
	}
	cl.ack()
}
