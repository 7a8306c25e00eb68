package kafka

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// ackingClient is a produce.Client that buffers produced records and runs
// their promises serially on its own goroutine, a batch at a time, as
// franz-go does once a produce request is acknowledged: the writer's
// record path without a broker or the client's own work.
type ackingClient struct {
	produce.Client // unused methods
	batch          int
	mu             sync.Mutex
	buf            []promised
	acks           chan []promised
	done           chan struct{}
}

type promised struct {
	r       *kgo.Record
	promise func(*kgo.Record, error)
}

func newAckingClient(batch int) *ackingClient {
	c := &ackingClient{batch: batch, acks: make(chan []promised, 16), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for b := range c.acks {
			for _, p := range b {
				p.r.ProducerID, p.r.ProducerEpoch = 7, 1
				p.promise(p.r, nil)
			}
		}
	}()
	return c
}

// Produce implements produce.Client.
func (c *ackingClient) Produce(_ context.Context, r *kgo.Record, promise func(*kgo.Record, error)) {
	r.Partition = 0
	c.mu.Lock()
	c.buf = append(c.buf, promised{r, promise})
	var full []promised
	if len(c.buf) >= c.batch {
		full, c.buf = c.buf, make([]promised, 0, c.batch)
	}
	c.mu.Unlock()
	if full != nil {
		c.acks <- full
	}
}

// Flush: it hands the partial batch to the acker.
func (c *ackingClient) Flush(context.Context) error {
	c.mu.Lock()
	full := c.buf
	c.buf = make([]promised, 0, c.batch)
	c.mu.Unlock()
	if len(full) > 0 {
		c.acks <- full
	}
	return nil
}

func (c *ackingClient) close() {
	close(c.acks)
	<-c.done
}

// ProduceClient implements produce.ClientSource.
func (c *ackingClient) ProduceClient(context.Context) (produce.Client, error) { return c, nil }

// benchSinkLayout is the sink table of cmd/streamsql-bench: the 5
// projected columns, JSON values, no key.
func benchSinkLayout(b *testing.B) *layout {
	b.Helper()
	tbl := kafkaTable()
	tbl.Schema.Columns = []factory.Column{
		{Name: "id", Type: types.BigInt()}, {Name: "user", Type: types.String()},
		{Name: "amount", Type: types.Double()}, {Name: "country", Type: types.String()},
		{Name: "ts", Type: types.BigInt()},
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

// benchSinkRows returns n rows like the benchmark job's output (amounts
// above 100 with two decimals, as its generator makes them).
func benchSinkRows(n int) []types.Row {
	countries := []string{"DE", "FR", "US", "CN", "BR", "IN", "JP", "GB"}
	r := rand.New(rand.NewPCG(1, 42))
	rows := make([]types.Row, n)
	ts := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC).UnixMicro()
	for i := range rows {
		rows[i] = types.Row{Fields: []types.Value{
			types.Int64(int64(i)), types.Str("user-" + strconv.FormatInt(r.Int64N(1_000_000), 10)),
			types.Float64(float64(10000+r.Int64N(10000)) / 100), types.Str(countries[r.IntN(len(countries))]),
			types.Int64(ts + int64(i)),
		}}
	}
	return rows
}

// BenchmarkProduce measures the sink's record path per record (one op =
// one record): rows of the benchmark job's output encoded as JSON by the
// table's encoder and handed through produce.Producer to a client whose
// promises run on another goroutine in batches of 100, in Writes of 500
// rows, with a flush and Wait every 20,000 records as a checkpoint does.
// The client's own work is not in it (see BenchmarkAtLeastOnceWriter).
func BenchmarkProduce(b *testing.B) { benchProduce(b, false) }

// BenchmarkProduceSizeChecked is BenchmarkProduce with the check of each
// record's size against its topic's limit ('sink.bad-record.policy'), as
// the sink's writers produce: compare the two in one run.
func BenchmarkProduceSizeChecked(b *testing.B) { benchProduce(b, true) }

// fixedLimit is a produce.Oversize whose records all fit.
type fixedLimit int

func (l fixedLimit) Limit(string) int { return int(l) }
func (fixedLimit) TooLarge(*kgo.Record, int, int) (produce.OversizeAction, error) {
	return produce.OversizeFail, errors.New("too large")
}

func benchProduce(b *testing.B, sizeChecked bool) {
	enc, err := benchSinkLayout(b).newEncoder()
	if err != nil {
		b.Fatal(err)
	}
	p := produce.New(context.Background(), enc, nil, nil, DefaultDeliveryTimeout)
	if sizeChecked {
		p.SetOversize(fixedLimit(defaultBatchMaxBytes), compressor(""))
	}
	defer p.Close()
	cl := newAckingClient(100)
	defer cl.close()
	const batch = 500
	rows := benchSinkRows(batch)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	cpu0 := processCPU()
	done := 0
	for b.Loop() {
		if done%batch == 0 {
			if _, err := p.Produce(ctx, cl, rows); err != nil {
				b.Fatal(err)
			}
		}
		done++
		if done%20_000 == 0 {
			_ = cl.Flush(ctx)
			if err := p.Wait(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	_ = cl.Flush(ctx)
	if err := p.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	if o := p.Outcome(); o.Err != nil || !o.PIDSet || o.Mixed {
		b.Fatalf("outcome %+v", o)
	}
}

// processCPU returns the user and system CPU time of the process so far:
// the record path spans two goroutines, so wall time per op understates
// its cost on a loaded machine and overstates it on an idle one.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
