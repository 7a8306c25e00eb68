package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// TestPreCommitRefusesExpiredTransaction (issue 15.4, review #5): a writer
// writes two rows and idles until the broker aborted its transaction
// (transaction.timeout.ms 3 s). The next PreCommit must refuse: before,
// it returned a committable for the dead transaction (its records were
// acknowledged before the abort), whose commit was then lost.
func TestPreCommitRefusesExpiredTransaction(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		run, err := startEOS(t, eosConfig(b, topic, kafkatest.UniqueName(t), &memoryAckTracker{}, withProps("transaction.timeout.ms", "3000")))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, run.w, rows("old-1", "old-2"))
		if err := openClient(run.w).Flush(context.Background()); err != nil { // the transaction is Ongoing on the broker
			t.Fatal(err)
		}
		waitNotOngoing(t, b, openID(run.w))
		cs, err := run.w.PreCommit(context.Background(), 1)
		if err == nil || len(cs) != 0 {
			t.Fatalf("PreCommit of a transaction the broker aborted = %q, %v; want an error", cs, err)
		}
		if !strings.Contains(err.Error(), "transaction.timeout.ms") {
			t.Fatalf("error %q does not name transaction.timeout.ms", err)
		}
		t.Logf("PreCommit: %v", err)
	})
}

// lateSource has one split; its reader returns one row (0, 0) after its
// first checkpoint barrier and then nothing until it is stopped: a sink
// task that writes once and then idles.
type lateSource struct{}

func (lateSource) Splits(context.Context) ([]connector.Split, error) {
	return []connector.Split{{ID: "p0"}}, nil
}
func (lateSource) Bounded() bool { return false }
func (lateSource) Open(context.Context, connector.TaskInfo, []connector.SplitState) (connector.Reader, error) {
	return &lateReader{}, nil
}

type lateReader struct{ snapshots, sent int }

func (r *lateReader) Read(ctx context.Context) ([]types.Row, error) {
	if r.snapshots > 0 && r.sent == 0 {
		r.sent = 1
		return []types.Row{{Fields: []types.Value{types.Int64(0), types.Int64(0)}}}, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (r *lateReader) Snapshot(int64) ([]connector.SplitState, error) {
	r.snapshots++
	return []connector.SplitState{{ID: "p0", State: []byte(strconv.Itoa(r.sent))}}, nil
}
func (r *lateReader) Close() error { return nil }

// TestRuntimeIdleTransactionFailsOver (issue 15.4, review #5, runtime
// variant): min-pause 10 s, transaction.timeout.ms 3 s, a source that emits
// one row after the first checkpoint and then idles. The job fails over
// before the broker can abort the open transaction; before, the next
// checkpoint pre-committed it however old it was and the commit was lost
// (CommitLostError).
func TestRuntimeIdleTransactionFailsOver(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		sink, _, err := factory.Default.CreateSink(context.Background(), factory.Table{Name: "cat.db.out",
			Options: map[string]string{"connector": "kafka", "topic": topic, "properties.bootstrap.servers": b.Addr,
				"format": "json", "sink.delivery-guarantee": "exactly-once", "sink.transactional-id-prefix": kafkatest.UniqueName(t),
				"properties.transaction.timeout.ms": "3000"},
			Schema: factory.Schema{Columns: []factory.Column{{Name: "p", Type: types.BigInt()}, {Name: "seq", Type: types.BigInt()}}}})
		if err != nil {
			t.Fatal(err)
		}
		cfg := jobconfig.DefaultConfig()
		cfg.Checkpoint.Interval = 50 * time.Millisecond
		cfg.Checkpoint.MinPause = 10 * time.Second
		cfg.Checkpoint.Dir = t.TempDir()
		cfg.Restart.Strategy = jobconfig.RestartNone
		j, err := runtime.NewJob(runtime.JobSpec{Name: kafkatest.UniqueName(t), Config: cfg,
			Logger: slog.New(slog.NewTextHandler(t.Output(), nil)),
			Pipelines: []runtime.Pipeline{{Name: "main", Sources: []runtime.SourceSpec{{Name: "late", Source: lateSource{}}},
				Sinks: []runtime.SinkSpec{{Name: "out", Sink: sink}}}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err = j.Run(ctx)
		var lost *runtime.CommitLostError
		if err == nil || errors.As(err, &lost) || !strings.Contains(err.Error(), "open transaction") {
			t.Fatalf("Run returned %v; want a failover for the idle open transaction", err)
		}
		t.Logf("failover: %v", err)
	})
}

// slowCommits delays every commit round of the runtime.
type slowCommits time.Duration

func (d slowCommits) Hit(ctx context.Context, p runtime.FaultPoint, _ runtime.FaultInfo) error {
	if p != runtime.CommitDelay {
		return nil
	}
	select {
	case <-time.After(time.Duration(d)):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// seqEncoder writes the testkit.SeqSource row (p, seq) as the value "p-seq".
var seqEncoder = encoderFunc(func(row *types.Row, rec *kgo.Record) error {
	rec.Value = fmt.Appendf(rec.Value, "%d-%d", row.Fields[0].Int64(), row.Fields[1].Int64())
	return nil
})

// TestSmallPoolUnderConcurrentCheckpoints (issue 15.7, review #8): a pool
// of 3 transactional ids, 2 checkpoints in flight every 10 ms and commits
// delayed by 50 ms. The job makes progress and writes everything exactly
// once: the pool is sized from the runtime's concurrency settings, and a
// Write never waits for an id whose commit only a later checkpoint can make
// durable. Before, the task stalled in Write (its barrier queued behind
// it) or failed with ErrSlotsExhausted.
func TestSmallPoolUnderConcurrentCheckpoints(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		cfg := eosConfig(b, topic, kafkatest.UniqueName(t), nil)
		cfg.Encoder, cfg.MaxTransactionSlots = seqEncoder, 3
		sink, err := newSink(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rc := jobconfig.DefaultConfig()
		rc.Checkpoint.Interval = 10 * time.Millisecond
		rc.Checkpoint.MaxConcurrent = 2
		rc.Checkpoint.Timeout = 20 * time.Second
		rc.Checkpoint.Dir = t.TempDir()
		rc.Restart.Strategy = jobconfig.RestartNone
		const parts, per = 2, 300
		j, err := runtime.NewJob(runtime.JobSpec{Name: kafkatest.UniqueName(t), Config: rc, Faults: slowCommits(50 * time.Millisecond),
			Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
			Pipelines: []runtime.Pipeline{{Name: "main",
				Sources: []runtime.SourceSpec{{Name: "seq", Source: &testkit.SeqSource{Partitions: parts, PerPartition: per, Batch: 4, Delay: 2 * time.Millisecond}}},
				Sinks:   []runtime.SinkSpec{{Name: "out", Sink: sink}}}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := j.Run(ctx); err != nil {
			t.Fatalf("Run: %v", err)
		}
		var want []string
		for p := range parts {
			want = append(want, seq(strconv.Itoa(p)+"-", 0, per)...)
		}
		got := kafkatest.Values(b.Consume(t, topic, true, waitLong, func(r []*kgo.Record) bool { return len(r) >= len(want) }))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("read_committed saw %d records, want each of %d once: %s", len(got), len(want), trunc(got))
		}
	})
}

// TestUpsertOnlyUpdateBefore (issue 15.8, review #10): an unbuffered
// upsert-kafka exactly-once writer gets an interval of only UPDATE_BEFORE
// rows, which upsert-kafka does not write. No transaction begins, and
// PreCommit returns nothing; before, the writer began a transaction with
// no record in it and PreCommit failed ("no record reported its producer
// id"), failing the job over at every such interval.
func TestUpsertOnlyUpdateBefore(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		sink, _, err := factory.Default.CreateSink(context.Background(), factory.Table{Name: "cat.db.up",
			Options: map[string]string{"connector": "upsert-kafka", "topic": topic, "properties.bootstrap.servers": b.Addr,
				"key.format": "json", "value.format": "json", "sink.delivery-guarantee": "exactly-once",
				"sink.transactional-id-prefix": kafkatest.UniqueName(t)},
			Schema: factory.Schema{Columns: []factory.Column{{Name: "k", Type: types.BigInt()}, {Name: "v", Type: types.BigInt()}},
				PrimaryKey: []string{"k"}}})
		if err != nil {
			t.Fatal(err)
		}
		ts := sink.(*exactlyOnceSink)
		ack := &memoryAckTracker{}
		ts.SetAckTracker(ack)
		ctx := context.Background()
		cm, err := ts.Committer(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		defer cm.Close()
		if err := cm.Recover(ctx, nil); err != nil {
			t.Fatal(err)
		}
		w, err := ts.Open(ctx, task(0))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		ub := types.Row{Kind: types.UpdateBefore, Fields: []types.Value{types.Int64(1), types.Int64(1)}}
		ua := types.Row{Kind: types.UpdateAfter, Fields: []types.Value{types.Int64(1), types.Int64(2)}}
		mustWrite(t, w, []types.Row{ub})
		if cs, err := w.PreCommit(ctx, 1); err != nil || len(cs) != 0 {
			t.Fatalf("PreCommit after only UPDATE_BEFORE rows = %q, %v; want nothing and no error", cs, err)
		}
		// The next interval writes normally.
		mustWrite(t, w, []types.Row{ub, ua})
		c := mustPreCommit(t, w, 2)
		if err := cm.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
		expectValues(t, b, topic, true, []string{`{"k":1,"v":2}`})
	})
}

// TestPreCommitAwaitsRecordFailedBeforeBuffering (issue 15.8, review #11):
// with buffer.memory set, a record larger than it fails before it is
// buffered, and its promise runs later on another goroutine, which Flush
// does not wait for. PreCommit must wait for it and fail; before, it could
// return a committable for the transaction without that record. The race
// is tried 20 times per broker (with the small records already
// acknowledged, Flush has nothing to wait for).
func TestPreCommitAwaitsRecordFailedBeforeBuffering(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		big := incompressible(2048)
		for i := range 20 {
			run, err := startEOS(t, eosConfig(b, topic, kafkatest.UniqueName(t), &memoryAckTracker{}, withProps("buffer.memory", "1024")))
			if err != nil {
				t.Fatal(err)
			}
			mustWrite(t, run.w, rows("small-1", "small-2"))
			if err := openClient(run.w).Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, run.w, rows(big))
			cs, err := run.w.PreCommit(context.Background(), 1)
			if err == nil || len(cs) != 0 {
				t.Fatalf("try %d: PreCommit with a record larger than buffer.memory = %q, %v; want an error", i, cs, err)
			}
			run.w.Close()
			run.cm.Close()
		}
	})
}

// TestDeliveryTimeout (issue 15.7): with no broker to be reached (a closed
// port), buffered records fail once they waited
// properties.delivery.timeout.ms without an acknowledgement, so the
// pre-commit fails (the job fails over) instead of waiting for ever.
// Without the property the timeout is the Java client's 2 min; before, a
// sink had none, and the property was franz-go's record timeout, which
// counts from each record's timestamp (records whose 'timestamp' metadata
// column is older failed at once: TestTableKeyValueFormatsAndMetadata).
func TestDeliveryTimeout(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	s, err := newSink(sinkConfig{Topic: "t", Properties: map[string]string{"bootstrap.servers": addr, "delivery.timeout.ms": "1000"},
		Encoder: kvEncoder, DeliveryGuarantee: atLeastOnce})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.(*sink).deliveryTimeout(); d != time.Second {
		t.Fatalf("delivery timeout %v, want the property's 1s", d)
	}
	if def, err := newSink(sinkConfig{Topic: "t", Properties: map[string]string{"bootstrap.servers": addr}, Encoder: kvEncoder}); err != nil {
		t.Fatal(err)
	} else if d := def.(*sink).deliveryTimeout(); d != 2*time.Minute {
		t.Fatalf("default delivery timeout %v, want 2m", d)
	}
	w, err := s.Open(context.Background(), task(0))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mustWrite(t, w, rows("a", "b"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = w.PreCommit(ctx, 1)
	if !errors.Is(err, ErrDeliveryTimeout) {
		t.Fatalf("PreCommit with no broker reachable: %v, want ErrDeliveryTimeout", err)
	}
	t.Logf("PreCommit: %v", err)
}

// latePreCommits delays the first n sink pre-commits (one sink task).
type latePreCommits struct {
	n     int64
	delay time.Duration
	hits  atomic.Int64
}

func (l *latePreCommits) Hit(ctx context.Context, p runtime.FaultPoint, _ runtime.FaultInfo) error {
	if p != runtime.BeforePreCommit || l.hits.Add(1) > l.n {
		return nil
	}
	select {
	case <-time.After(l.delay):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestCarriedTransactionsFitThePool (issue 15.7, review #8): nine
// checkpoints in a row expire (each sink pre-commit is late), within
// tolerable-failed-checkpoints 20, so the task carries nine pre-committed
// transactions, each on its own transactional id, until a checkpoint
// completes and commits them all. The pool is sized for the carried work
// (open + concurrent + uncommitted + tolerated failures); before, the
// fixed pool of 8 ids ran out and the job failed with ErrSlotsExhausted.
func TestCarriedTransactionsFitThePool(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		cfg := eosConfig(b, topic, kafkatest.UniqueName(t), nil)
		cfg.Encoder = seqEncoder
		sink, err := newSink(cfg)
		if err != nil {
			t.Fatal(err)
		}
		f := &latePreCommits{n: 9, delay: 400 * time.Millisecond}
		rc := jobconfig.DefaultConfig()
		rc.Checkpoint.Interval = 50 * time.Millisecond
		rc.Checkpoint.Timeout = 200 * time.Millisecond
		rc.Checkpoint.MinPause = 300 * time.Millisecond // one expiry per late pre-commit
		rc.Checkpoint.TolerableFailed = 20
		rc.Checkpoint.Dir = t.TempDir()
		rc.Restart.Strategy = jobconfig.RestartNone
		const parts, per = 2, 400
		j, err := runtime.NewJob(runtime.JobSpec{Name: kafkatest.UniqueName(t), Config: rc, Faults: f,
			Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError})),
			Pipelines: []runtime.Pipeline{{Name: "main",
				Sources: []runtime.SourceSpec{{Name: "seq", Source: &testkit.SeqSource{Partitions: parts, PerPartition: per, Batch: 2, Delay: 5 * time.Millisecond}}},
				Sinks:   []runtime.SinkSpec{{Name: "out", Sink: sink}}}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := j.Run(ctx); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if n := j.Status().Checkpoints.Failed; n < 9 {
			t.Fatalf("%d checkpoints failed, want the 9 delayed ones", n)
		}
		var want []string
		for p := range parts {
			want = append(want, seq(strconv.Itoa(p)+"-", 0, per)...)
		}
		got := kafkatest.Values(b.Consume(t, topic, true, waitLong, func(r []*kgo.Record) bool { return len(r) >= len(want) }))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("read_committed saw %d records, want each of %d once: %s", len(got), len(want), trunc(got))
		}
	})
}
