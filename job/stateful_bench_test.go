package job_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
)

// statefulBenchEvents is the number of input rows of each run of
// BenchmarkStatefulAggregation; statefulBenchKeys the number of keys.
const (
	statefulBenchEvents = 1_000_000
	statefulBenchKeys   = 100_000
)

// BenchmarkStatefulAggregation runs a non-windowed GROUP BY (COUNT and SUM
// over a BIGINT key) and a TUMBLE window aggregation (the same, by key and
// 10 s window of event time) over datagen rows into a blackhole, with 1 s
// checkpoints, on each state backend, and reports what BENCHMARKS.md's
// "Stateful operators" records: events/s and CPU-seconds per million
// events of the whole process (one job, all its tasks), the operator's
// state bytes per entry (state.Stats, the largest the status showed) and
// the checkpoints' duration and state size (the last one, at the end of
// input, holds the whole state; and the mean duration). Figures, never
// assertions: go test -run XXX -bench StatefulAggregation -benchtime 1x ./job/
func BenchmarkStatefulAggregation(b *testing.B) {
	queries := map[string]string{
		"groupby": `INSERT INTO out1 SELECT k, COUNT(*), SUM(v) FROM gen GROUP BY k;`,
		"tumble": `INSERT INTO out2 SELECT k, window_start, COUNT(*), SUM(v)
  FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;`,
	}
	for _, q := range []string{"groupby", "tumble"} {
		for _, backend := range []string{"hashmap", "rocksdb"} {
			b.Run(q+"/"+backend, func(b *testing.B) {
				for b.Loop() {
					runStatefulBench(b, backend, queries[q])
				}
			})
		}
	}
}

func runStatefulBench(b *testing.B, backend, query string) {
	text := fmt.Sprintf(`SET 'execution.checkpointing.interval' = '1s';
SET 'execution.checkpointing.dir' = '%s';
SET 'state.backend.type' = '%s';
CREATE TABLE gen (id BIGINT, k BIGINT, v BIGINT, ts AS TO_TIMESTAMP_LTZ(id, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000', 'number-of-rows' = '%d', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
        'fields.id.end' = '%d', 'fields.k.min' = '1', 'fields.k.max' = '%d', 'fields.v.min' = '1', 'fields.v.max' = '1000', 'seed' = '7');
CREATE TABLE out1 (k BIGINT, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole');
CREATE TABLE out2 (k BIGINT, ws TIMESTAMP(3), n BIGINT, s BIGINT) WITH ('connector' = 'blackhole');
%s
`, b.TempDir(), backend, statefulBenchEvents, statefulBenchEvents, statefulBenchKeys, query)
	ctx := context.Background()
	j, err := job.Compile(ctx, "statebench.sql", text, job.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	// The status, polled while the job runs: the largest state seen.
	var (
		mu                 sync.Mutex
		maxBytes, atEntrys int64
	)
	stop, polled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(polled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			var by, en int64
			for _, ts := range j.Status().Tasks {
				if ts.Kind == runtime.OperatorTask {
					by += ts.StateBytes
					en += ts.StateEntries
				}
			}
			mu.Lock()
			if by > maxBytes {
				maxBytes, atEntrys = by, en
			}
			mu.Unlock()
		}
	}()
	c0, t0 := cpuNanos(), time.Now()
	err = j.Run(ctx)
	wall, cpu := time.Since(t0), cpuNanos()-c0
	close(stop)
	<-polled
	if err != nil {
		b.Fatal(err)
	}
	st := j.Status()
	var in int64
	for _, ts := range st.Tasks {
		if ts.Kind == runtime.SourceTask {
			in += ts.RecordsIn
		}
	}
	if in != statefulBenchEvents {
		b.Fatalf("read %d rows, want %d", in, statefulBenchEvents)
	}
	cp := st.Checkpoints
	b.ReportMetric(float64(in)/wall.Seconds(), "events/s")
	b.ReportMetric(float64(cpu)/1e9/(float64(in)/1e6), "cpu-s/M-events")
	if atEntrys > 0 {
		b.ReportMetric(float64(maxBytes)/float64(atEntrys), "state-B/entry")
		b.ReportMetric(float64(atEntrys), "state-entries")
	}
	b.ReportMetric(float64(cp.Completed), "checkpoints")
	if cp.Completed > 0 {
		b.ReportMetric(cp.TotalDuration.Seconds()*1e3/float64(cp.Completed), "ckpt-mean-ms")
	}
	b.ReportMetric(cp.LastDuration.Seconds()*1e3, "ckpt-last-ms")
	b.ReportMetric(float64(cp.LastStateSize), "ckpt-last-state-B")
	b.ReportMetric(float64(cp.LastStateWritten), "ckpt-last-written-B")
}

// cpuNanos returns the process's user and system CPU time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
