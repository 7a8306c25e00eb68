package kafka

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// initIDHook counts the successful InitProducerId responses of a client.
type initIDHook struct{ n atomic.Int64 }

func (h *initIDHook) OnBrokerE2E(_ kgo.BrokerMetadata, key int16, e2e kgo.BrokerE2E) {
	if key == kmsg.InitProducerID.Int16() && e2e.Err() == nil {
		h.n.Add(1)
	}
}

// TestPlainWriterWarmsUpBeforeFirstRecord checks that an at-least-once
// writer loads its producer id (InitProducerId) as soon as it is opened,
// before any row is written, and still writes its rows afterwards.
func TestPlainWriterWarmsUpBeforeFirstRecord(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	s, err := newSink(plainConfig(b, topic, atLeastOnce, partitionerDefault))
	if err != nil {
		t.Fatal(err)
	}
	hook := &initIDHook{}
	ps := s.(*sink)
	ps.settings.common = append(ps.settings.common, kgo.WithHooks(hook))
	w, err := s.Open(context.Background(), task(0))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	pw := w.(*plainWriter)
	select {
	case <-pw.warm.Done():
	case <-time.After(waitLong):
		t.Fatal("the writer's warm-up did not end")
	}
	if n := hook.n.Load(); n != 1 {
		t.Fatalf("InitProducerId responses before the first row: %d, want 1", n)
	}
	mustWrite(t, w, rows("a", "b"))
	if _, err := w.PreCommit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if n := hook.n.Load(); n != 1 {
		t.Errorf("InitProducerId responses after the first rows: %d, want still 1 (the warmed id is used)", n)
	}
	expectValues(t, b, topic, false, []string{"a", "b"})
}

// TestPlainWriterCloseStopsWarmUp checks that closing a writer whose
// warm-up cannot reach any broker returns at once and leaves no goroutine.
func TestPlainWriterCloseStopsWarmUp(t *testing.T) {
	cfg := sinkConfig{Topic: "t", Properties: map[string]string{"bootstrap.servers": "127.0.0.1:1"},
		DeliveryGuarantee: atLeastOnce, Encoder: kvEncoder}
	s, err := newSink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Open(context.Background(), task(0))
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		_ = w.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(waitLong):
		t.Fatal("Close did not return while the warm-up waited for an unreachable broker")
	}
	select {
	case <-w.(*plainWriter).warm.Done():
	default:
		t.Fatal("the warm-up goroutine still runs after Close")
	}
}

// TestPlainWriterWarmUpEndsWithItsContext checks that the warm-up of a
// writer whose brokers cannot be reached ends when the context of the
// writer's Open ends, before Close: it is rooted in the run's context.
func TestPlainWriterWarmUpEndsWithItsContext(t *testing.T) {
	cfg := sinkConfig{Topic: "t", Properties: map[string]string{"bootstrap.servers": "127.0.0.1:1"},
		DeliveryGuarantee: atLeastOnce, Encoder: kvEncoder}
	s, err := newSink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := s.Open(ctx, task(0))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cancel()
	// Cancelled, it ends within milliseconds; not rooted in the context,
	// it would wait for franz-go to give up on the brokers (about 30 s).
	select {
	case <-w.(*plainWriter).warm.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the warm-up still runs 10 s after the writer's context ended")
	}
}

// TestExactlyOnceWriterWarmsUpBeforeFirstRecord checks, on both transaction
// versions, that an exactly-once writer loads the producer id of its first
// transaction's transactional id (InitProducerId) as soon as it is opened,
// before any row is written, and that the first transaction then runs on
// that client and commits: its committable carries epoch 0 of the fresh
// id, which a second InitProducerId (a client made at the first row) would
// have bumped. The round trips are not counted after the first row: one
// InitProducerId may take several when the coordinator answers with a
// retriable error.
func TestExactlyOnceWriterWarmsUpBeforeFirstRecord(t *testing.T) {
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			topic := b.Topic(t, 1)
			cfg := eosConfig(b, topic, kafkatest.UniqueName(t), &memoryAckTracker{})
			s, err := newSink(cfg)
			if err != nil {
				t.Fatal(err)
			}
			es := s.(*exactlyOnceSink)
			hook := &initIDHook{}
			es.settings.common = append(es.settings.common, kgo.WithHooks(hook))
			c, err := es.Committer(ctx, "test")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Recover(ctx, nil); err != nil {
				t.Fatal(err)
			}
			hook.n.Store(0)
			w, err := es.Open(ctx, task(0))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			deadline := time.Now().Add(waitLong)
			for hook.n.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if hook.n.Load() == 0 {
				t.Fatalf("no InitProducerId within %v of opening the writer, before its first row", waitLong)
			}
			mustWrite(t, w, rows("a", "b"))
			c1 := mustPreCommit(t, w, 1)
			if d := mustDecode(t, c1); d.Epoch != 0 {
				t.Errorf("the first transaction of a fresh transactional id has epoch %d, want 0: it did not run on the warmed client (%s)", d.Epoch, d)
			}
			if err := c.Commit(ctx, c1); err != nil {
				t.Fatal(err)
			}
			expectValues(t, b, topic, true, []string{"a", "b"})
		})
	}
}
