package runtime_test

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkHandOff measures what the runtime itself costs per row: a source
// task returning ready-made batches to a sink task that only counts them,
// through the bounded channel between the two goroutines (no transform, no
// checkpoint but the final one). One op is one row, so ns/op and allocs/op
// are per row; the batch size is what a connector's Read returns (the Kafka
// source's default max.poll.records is 500).
//
//	go test -run '^$' -bench HandOff ./runtime/
//
// The sink task runs chained with the source task (one goroutine) unless
// the name says unchained (jobconfig.Config.DisableChaining: the channel and
// a goroutine per task).
func BenchmarkHandOff(b *testing.B) {
	for _, bc := range []struct {
		batch     int
		unchained bool
	}{{16, false}, {16, true}, {500, false}, {500, true}} {
		batch := bc.batch
		name := fmt.Sprintf("batch=%d", batch)
		if bc.unchained {
			name += "/unchained"
		}
		b.Run(name, func(b *testing.B) {
			src := &batchSource{total: int64(b.N), batch: make([]types.Row, batch)}
			for i := range src.batch {
				src.batch[i] = types.Row{Fields: []types.Value{types.Int64(int64(i)), types.Str("value")}}
			}
			sink := &countSink{}
			cfg := jobconfig.DefaultConfig()
			cfg.Checkpoint.Dir = b.TempDir()
			cfg.Restart.Strategy = jobconfig.RestartNone
			cfg.DisableChaining = bc.unchained
			spec := runtime.JobSpec{Name: "handoff", Config: cfg, Logger: quietLogger(), Pipelines: []runtime.Pipeline{{Name: "main",
				Sources: []runtime.SourceSpec{{Name: "src", Parallelism: 1, Source: src}},
				Sinks:   []runtime.SinkSpec{{Name: "count", Parallelism: 1, Sink: sink}}}}}
			j, err := runtime.NewJob(spec)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			if err := runJob(b, j, 10*time.Minute); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if got := sink.rows.Load(); got != int64(b.N) {
				b.Fatalf("the sink counted %d rows, want %d", got, b.N)
			}
		})
	}
}

// batchSource is a bounded source of one split that returns the same
// ready-made batch until it has returned total rows.
type batchSource struct {
	total int64
	batch []types.Row
}

func (s *batchSource) Splits(context.Context) ([]connector.Split, error) {
	return []connector.Split{{ID: "only"}}, nil
}

func (s *batchSource) Bounded() bool { return true }

func (s *batchSource) Open(context.Context, connector.TaskInfo, []connector.SplitState) (connector.Reader, error) {
	return &batchReader{s: s}, nil
}

type batchReader struct {
	s    *batchSource
	sent int64
}

func (r *batchReader) Read(ctx context.Context) ([]types.Row, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := min(int64(len(r.s.batch)), r.s.total-r.sent)
	if n <= 0 {
		return nil, io.EOF
	}
	r.sent += n
	return r.s.batch[:n], nil
}

func (r *batchReader) Snapshot(int64) ([]connector.SplitState, error) {
	return []connector.SplitState{{ID: "only", State: []byte(fmt.Sprint(r.sent))}}, nil
}

func (r *batchReader) Close() error { return nil }

// countSink counts the rows written to it.
type countSink struct{ rows atomic.Int64 }

func (s *countSink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return countWriter{s}, nil
}

type countWriter struct{ s *countSink }

func (w countWriter) Write(_ context.Context, rows []types.Row) error {
	w.s.rows.Add(int64(len(rows)))
	return nil
}

func (w countWriter) PreCommit(context.Context, int64) ([]connector.Committable, error) {
	return nil, nil
}

func (w countWriter) Close() error { return nil }
