package job_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner"
)

// reuseJob joins three aggregations of one Kafka topic: x and y are the
// same GROUP BY (shared with sub-plan reuse), z another over the same
// scan (shared with source reuse).
const reuseJob = `CREATE TABLE src (k BIGINT, v BIGINT) WITH ('connector' = 'kafka', 'topic' = '%s',
  'properties.bootstrap.servers' = '%s', 'properties.group.id' = '%s', 'scan.startup.mode' = 'earliest-offset',
  'format' = 'json');
SELECT x.k, x.c, y.c, z.s FROM
  (SELECT k, COUNT(*) AS c FROM src GROUP BY k) x JOIN
  (SELECT k, COUNT(*) AS c FROM src GROUP BY k) y ON x.k = y.k JOIN
  (SELECT k, SUM(v) AS s FROM src WHERE v >= 0 GROUP BY k) z ON x.k = z.k;`

// TestReuseRestores runs a job whose plan shares a scan and an
// aggregation (table.optimizer.reuse-*, on by default) over the first half
// of a topic of the real broker, then the same job over the whole topic
// restored from the first run's checkpoint: the table the two runs'
// changelogs leave must be the batch result, which a fresh run without
// reuse gives too (the shared operator's state and the one scan's
// positions restored). A checkpoint taken with reuse does not restore
// into the job without it: the error names the sources and operators it
// lacks and the settings.
func TestReuseRestores(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 2)
	cl := b.Client(t)
	const n, keys = 400, 7
	produce := func(from, to int) {
		t.Helper()
		var recs []*kgo.Record
		for i := from; i < to; i++ {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: fmt.Appendf(nil, `{"k":%d,"v":%d}`, i%keys, i)})
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	text := fmt.Sprintf(reuseJob, topic, b.Addr, kafkatest.UniqueName(t))
	// want returns the batch result over the first m records.
	want := func(m int) []string {
		var out []string
		for k := range keys {
			c, s := 0, 0
			for i := k; i < m; i += keys {
				c++
				s += i
			}
			out = append(out, fmt.Sprintf("[%d, %d, %d, %d]", k, c, c, s))
		}
		slices.Sort(out)
		return out
	}
	// run runs the job with its checkpoints in dir until the table its
	// changelog leaves, after the changelog before, is the batch result
	// over the first m records; then it stops the job (a final checkpoint)
	// and returns the changelog.
	run := func(dir string, set map[string]string, before []string, m int) ([]string, error) {
		t.Helper()
		settings := map[string]string{"execution.checkpointing.dir": dir, "execution.checkpointing.interval": "200ms"}
		maps.Copy(settings, set)
		out := &lockedBuffer{}
		j, err := job.Compile(context.Background(), "reuse.sql", text, job.Options{Set: settings, Output: out, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		var ex strings.Builder
		if err := j.Explain(&ex); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Count(ex.String(), ": reused, the "), 2; set == nil && got != want {
			t.Fatalf("EXPLAIN says reused %d times, want %d (the scan and the aggregation):\n%s", got, want, ex.String())
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- j.Run(ctx) }()
		deadline := time.After(2 * time.Minute)
		for {
			select {
			case err := <-done:
				return lines(out.String()), err
			case <-deadline:
				cancel()
				<-done
				t.Fatalf("no batch result over %d records within 2 minutes; the changelog:\n%s", m, out.String())
			case <-time.After(50 * time.Millisecond):
			}
			if got, err := final(append(slices.Clone(before), lines(out.String())...)); err == nil && slices.Equal(got, want(m)) {
				cancel()
				err := <-done
				return lines(out.String()), err
			}
		}
	}
	produce(0, n/2)
	dir := t.TempDir()
	half, err := run(dir, nil, nil, n/2)
	if err != nil {
		t.Fatal(err)
	}
	produce(n/2, n)
	rest, err := run(dir, nil, half, n)
	if err != nil {
		t.Fatalf("restoring the shared job's checkpoint: %v", err)
	}
	// The restored run resumed where the first stopped: its changelog
	// alone does not give the whole result, and no row of the first half
	// was counted twice (the table is exactly the batch result).
	if got, err := final(rest); err == nil && slices.Equal(got, want(n)) {
		t.Errorf("the restored run's changelog alone gives the whole result: it started afresh")
	}
	off := map[string]string{planner.SettingReuseSubPlan: "false"}
	if _, err := run(dir, off, nil, n); err == nil || !strings.Contains(err.Error(), "has no position in the checkpoint") || !strings.Contains(err.Error(), planner.SettingReuseSubPlan) {
		t.Errorf("restoring the shared job's checkpoint without reuse: %v, want a refusal naming what is missing and the setting", err)
	}
	if _, err := run(t.TempDir(), off, nil, n); err != nil {
		t.Errorf("without reuse: %v", err)
	}
}

// lockedBuffer is a bytes.Buffer safe for a job's printing sink and the
// test reading it at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
