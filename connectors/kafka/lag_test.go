package kafka

import (
	"context"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestSourcePartitionLags reads a partition whose last stable offset is
// held back by an open transaction and checks the position, end offsets
// and lag the reader reports as it goes, for both isolation levels, while
// another goroutine reads them concurrently (as the status page does).
func TestSourcePartitionLags(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	produceValues(t, b, topic, seq("v", 0, 10)...)
	// Two records in a transaction left open: high watermark 12, last
	// stable offset 10.
	ctx := context.Background()
	txn := b.Client(t, kgo.TransactionalID(kafkatest.UniqueName(t)), kgo.DefaultProduceTopic(topic))
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txn.ProduceSync(ctx, kgo.StringRecord("open-a"), kgo.StringRecord("open-b")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = txn.EndTransaction(ctx, kgo.TryAbort) }()

	for _, rc := range []bool{true, false} {
		iso, end := "read_uncommitted", int64(12)
		if rc {
			iso, end = "read_committed", 10
		}
		cfg := srcConfig(b, topic, "isolation.level", iso, "max.poll.records", "3")
		cfg.BoundedMode = unbounded
		r := openReader(t, mustNewSource(t, cfg), nil)
		var _ connector.LagReporter = r
		lags := r.PartitionLags(nil)
		if len(lags) != 1 || lags[0] != (connector.PartitionLag{Topic: topic, Partition: 0, Position: 0, HighWatermark: -1, LastStableOffset: -1, Lag: -1}) {
			t.Fatalf("%s before the first fetch: %+v, want position 0 and the rest unknown", iso, lags)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // a concurrent reader of the lags, for the race detector
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					_ = r.PartitionLags(nil)
				}
			}
		}()
		read := 0
		rctx, cancel := context.WithTimeout(ctx, waitLong)
		for read < 10 {
			rows, err := r.Read(rctx)
			if err != nil {
				t.Fatalf("%s: Read after %d rows: %v", iso, read, err)
			}
			read += len(rows)
			l := r.PartitionLags(nil)[0]
			want := connector.PartitionLag{Topic: topic, Partition: 0, Position: int64(read), HighWatermark: 12, LastStableOffset: 10, Lag: end - int64(read)}
			if l != want {
				t.Fatalf("%s after %d rows: %+v, want %+v", iso, read, l, want)
			}
		}
		cancel()
		close(stop)
		wg.Wait()
	}
}
