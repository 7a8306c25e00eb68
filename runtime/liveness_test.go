package runtime_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// lateSource has one split; its reader returns one row (0, 0) After its
// open and then nothing until it is stopped: a sink task that writes once
// and then idles.
type lateSource struct{ After time.Duration }

func (s *lateSource) Splits(context.Context) ([]connector.Split, error) {
	return []connector.Split{{ID: "p0"}}, nil
}
func (s *lateSource) Bounded() bool { return false }
func (s *lateSource) Open(_ context.Context, _ connector.TaskInfo, sp []connector.SplitState) (connector.Reader, error) {
	r := &lateReader{at: time.Now().Add(s.After)}
	for _, st := range sp {
		r.sent = r.sent || string(st.State) == "1"
	}
	return r, nil
}

type lateReader struct {
	at   time.Time
	sent bool
}

func (r *lateReader) Read(ctx context.Context) ([]types.Row, error) {
	if !r.sent {
		t := time.NewTimer(time.Until(r.at))
		defer t.Stop()
		select {
		case <-t.C:
			r.sent = true
			return []types.Row{{Fields: []types.Value{types.Int64(0), types.Int64(0)}}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (r *lateReader) Snapshot(int64) ([]connector.SplitState, error) {
	st := "0"
	if r.sent {
		st = "1"
	}
	return []connector.SplitState{{ID: "p0", State: []byte(st)}}, nil
}
func (r *lateReader) Close() error { return nil }

// TestOpenTransactionAgeGuard (issue 15.4): a sink task writes one row
// after the first checkpoint and then idles while min-pause holds the next
// checkpoint back for longer than the sink's transaction timeout. The
// transaction's age counts from that write, so the coordinator warns at
// half of the timeout and fails over at 4/5 — before, the open transaction
// was not watched at all and was pre-committed at the next barrier however
// old it was (a Kafka broker would have aborted it: a lost commit).
func TestOpenTransactionAgeGuard(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	fs := &testkit.FileSink{Dir: filepath.Join(t.TempDir(), "out"), Timeout: 3 * time.Second}
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 50 * time.Millisecond
	cfg.Checkpoint.MinPause = 10 * time.Second
	cfg.Checkpoint.Dir = filepath.Join(t.TempDir(), "checkpoints")
	cfg.Restart.Strategy = jobconfig.RestartNone
	j, err := runtime.NewJob(runtime.JobSpec{Name: "idle", Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Pipelines: []runtime.Pipeline{{Name: "main",
			Sources: []runtime.SourceSpec{{Name: "late", Source: &lateSource{After: 500 * time.Millisecond}}},
			Sinks:   []runtime.SinkSpec{{Name: "out", Sink: fs}}}}})
	if err != nil {
		t.Fatal(err)
	}
	err = runJob(t, j, 30*time.Second)
	var lost *runtime.CommitLostError
	if err == nil || errors.As(err, &lost) || !strings.Contains(err.Error(), "open transaction") ||
		!strings.Contains(err.Error(), "failing over") {
		t.Fatalf("Run returned %v; want a failover for the idle open transaction", err)
	}
	if !strings.Contains(logs.String(), "open transaction is past half of the sink's transaction timeout") {
		t.Fatalf("no warning at half the timeout; log:\n%s", logs.String())
	}
	t.Logf("failover: %v", err)
}
