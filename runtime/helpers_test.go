package runtime_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// rig is a test job: a SeqSource feeding one or two FileSinks.
type rig struct {
	dir        string
	partitions int
	per        int64
	srcPar     int
	sinkPar    int
	sinks      int
	interval   time.Duration
	delay      time.Duration
	batch      int
	faults     runtime.FaultInjector
	tweak      func(*runtime.JobSpec)
	fileSinks  []*testkit.FileSink
	// split gives each sink a pipeline of its own, reading a copy of the
	// source: one sink per pipeline, so that its tasks run chained with
	// the source's (with sinkPar == srcPar).
	split bool
}

func newRig(t testing.TB) *rig {
	return &rig{dir: t.TempDir(), partitions: 4, per: 800, srcPar: 2, sinkPar: 2, sinks: 1,
		interval: 10 * time.Millisecond, delay: 200 * time.Microsecond, batch: 8}
}

func quietLogger() *slog.Logger {
	if os.Getenv("STREAMSQL_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func (r *rig) spec() runtime.JobSpec {
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = r.interval
	cfg.Checkpoint.Dir = filepath.Join(r.dir, "checkpoints")
	cfg.Checkpoint.Retention = jobconfig.RetainOnCancellation
	cfg.Restart.Strategy = jobconfig.RestartFixedDelay
	cfg.Restart.FixedDelayAttempts = 10
	cfg.Restart.FixedDelay = time.Millisecond
	p := runtime.Pipeline{Name: "main", Sources: []runtime.SourceSpec{{Name: "seq", Parallelism: r.srcPar,
		Source: &testkit.SeqSource{Partitions: r.partitions, PerPartition: r.per, Batch: r.batch, Delay: r.delay}}}}
	if len(r.fileSinks) == 0 {
		for i := range r.sinks {
			r.fileSinks = append(r.fileSinks, &testkit.FileSink{Dir: filepath.Join(r.dir, "out", string(rune('a'+i)))})
		}
	}
	ps := []runtime.Pipeline{p}
	for i, fs := range r.fileSinks {
		sk := runtime.SinkSpec{Name: "out-" + string(rune('a'+i)), Sink: fs, Parallelism: r.sinkPar}
		if r.split && i > 0 {
			q := p
			q.Name = "main-" + string(rune('a'+i))
			q.Sinks = []runtime.SinkSpec{sk}
			ps = append(ps, q)
			continue
		}
		ps[0].Sinks = append(ps[0].Sinks, sk)
	}
	s := runtime.JobSpec{Name: "testjob", Config: cfg, Pipelines: ps, Logger: quietLogger(), Faults: r.faults}
	if r.tweak != nil {
		r.tweak(&s)
	}
	return s
}

func (r *rig) job(t testing.TB) *runtime.Job {
	t.Helper()
	j, err := runtime.NewJob(r.spec())
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// verify checks every sink's committed output; want nil accepts prefixes.
func (r *rig) verify(t testing.TB, want []int64) [][]int64 {
	t.Helper()
	var counts [][]int64
	for _, fs := range r.fileSinks {
		rows, err := testkit.ReadCommitted(fs.Dir)
		if err != nil {
			t.Fatal(err)
		}
		n, err := testkit.CheckExactlyOnce(rows, r.partitions, want)
		if err != nil {
			t.Fatalf("sink %s: %v", fs.Dir, err)
		}
		counts = append(counts, n)
		if want != nil {
			left, err := testkit.PendingFiles(fs.Dir)
			if err != nil || len(left) > 0 {
				t.Fatalf("sink %s: transactions neither committed nor aborted: %v %v", fs.Dir, left, err)
			}
		}
	}
	return counts
}

func (r *rig) full() []int64 {
	w := make([]int64, r.partitions)
	for i := range w {
		w[i] = r.per
	}
	return w
}

func runJob(t testing.TB, j *runtime.Job, timeout time.Duration) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	select {
	case err := <-done:
		return err
	case <-time.After(timeout + time.Minute):
		t.Fatal("job did not end after its context expired")
		return nil
	}
}
