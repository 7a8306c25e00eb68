package kafka

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/kafkatest"
	"github.com/streamsql/streamsql/runtime"
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
		run, err := startEOS(t, eosConfig(b, topic, kafkatest.UniqueName(t), &MemoryAckTracker{}, withProps("transaction.timeout.ms", "3000")))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, run.w, rows("old-1", "old-2"))
		if err := run.w.cur.client.Flush(context.Background()); err != nil { // the transaction is Ongoing on the broker
			t.Fatal(err)
		}
		waitNotOngoing(t, b, run.w.cur.id)
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
		cfg := runtime.DefaultConfig()
		cfg.Checkpoint.Interval = 50 * time.Millisecond
		cfg.Checkpoint.MinPause = 10 * time.Second
		cfg.Checkpoint.Dir = t.TempDir()
		cfg.Restart.Strategy = runtime.RestartNone
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
