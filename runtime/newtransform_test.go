package runtime_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// TestNewTransformPerTask: a pipeline's NewTransform is called once per
// source task and replaces its Transform (which fails the job if called);
// each function it returns is applied by one task alone (its unguarded
// counter would race under -race otherwise); a source's NewTransform
// replaces the pipeline's.
func TestNewTransformPerTask(t *testing.T) {
	for _, perSource := range []bool{false, true} {
		var made atomic.Int32
		// keep returns a factory of transforms keeping rows whose seq has
		// parity rem, each counting its rows without a lock.
		keep := func(rem int64) func() func(types.Row, []types.Row) ([]types.Row, error) {
			return func() func(types.Row, []types.Row) ([]types.Row, error) {
				made.Add(1)
				seen := 0
				return func(in types.Row, out []types.Row) ([]types.Row, error) {
					seen++
					if in.Fields[1].Int64()%2 != rem {
						return out, nil
					}
					return append(out, types.Row{Kind: in.Kind, Fields: append([]types.Value(nil), in.Fields...)}), nil
				}
			}
		}
		never := func(types.Row, []types.Row) ([]types.Row, error) {
			return nil, errors.New("Transform was called although NewTransform is set")
		}
		cfg := jobconfig.DefaultConfig()
		cfg.Checkpoint.Interval = 10 * time.Millisecond
		cfg.Checkpoint.Dir = "file://" + t.TempDir()
		cfg.Restart.Strategy = jobconfig.RestartNone
		out := &testkit.FileSink{Dir: t.TempDir()}
		src := runtime.SourceSpec{Name: "seq", Source: &testkit.SeqSource{Partitions: 2, PerPartition: 100}, Parallelism: 2}
		want := int64(0) // even seqs from the pipeline's transform
		if perSource {
			src.Transform, src.NewTransform, src.TransformCopies = never, keep(1), true
			want = 1
		}
		job, err := runtime.NewJob(runtime.JobSpec{Name: "newtransform", Config: cfg, Logger: quietLogger(), Pipelines: []runtime.Pipeline{{
			Sources:   []runtime.SourceSpec{src},
			Transform: never, NewTransform: keep(0), TransformCopies: true,
			Sinks: []runtime.SinkSpec{{Name: "out", Sink: out}},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		err = job.Run(ctx)
		cancel()
		if err != nil {
			t.Fatalf("perSource=%v: %v", perSource, err)
		}
		rows, err := testkit.ReadCommitted(out.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 100 {
			t.Errorf("perSource=%v: %d rows committed, want 100", perSource, len(rows))
		}
		for _, r := range rows {
			if r[1]%2 != want {
				t.Fatalf("perSource=%v: row %v passed, want only seq %% 2 = %d", perSource, r, want)
			}
		}
		if n := made.Load(); n != 2 {
			t.Errorf("perSource=%v: NewTransform called %d times, want once per source task (2)", perSource, n)
		}
	}
}
