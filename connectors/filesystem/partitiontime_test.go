package filesystem_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/job"
)

// partitionTimeJob is a job whose rows carry event time (a row every 10
// minutes from 1970-01-01 00:00 UTC, WATERMARK FOR ts AS ts) into an
// hourly partitioned filesystem table committed by partition time, with
// Flink's hourly settings: a partition gets its success file once the
// watermark is past its hour's start plus an hour.
const partitionTimeJob = `SET 'execution.checkpointing.interval' = '200 ms';
SET 'execution.checkpointing.dir' = '%s';
SET 'table.local-time-zone' = 'UTC';
SET 'restart-strategy.type' = 'none';
CREATE TABLE gen (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 600000, 3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'datagen', 'rows-per-second' = '%d', 'number-of-rows' = '%d',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '%d');
CREATE TABLE out (id BIGINT, dt STRING, hr STRING) PARTITIONED BY (dt, hr) WITH (
  'connector' = 'filesystem', 'path' = '%s', 'format' = 'csv',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.delay' = '1 h',
  'sink.partition-commit.policy.kind' = 'success-file',
  'partition.time-extractor.timestamp-pattern' = '$dt $hr:00:00');
INSERT INTO out SELECT id, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH') FROM gen;
`

// partitionTimeOutput reads what a partitionTimeJob committed: the ids in
// the data files, and for each partition (its hour's start, ms since the
// epoch) whether it has a success file.
func partitionTimeOutput(t *testing.T, dir string) (ids []int64, committed map[int64]bool) {
	t.Helper()
	committed = map[int64]bool{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(parts) != 3 {
			return nil // the committer's state file at the root
		}
		dt, _ := strings.CutPrefix(parts[0], "dt=")
		hr, _ := strings.CutPrefix(parts[1], "hr=")
		start, err := time.Parse("2006-01-02 15", dt+" "+hr)
		if err != nil {
			return fmt.Errorf("partition %s/%s: %w", parts[0], parts[1], err)
		}
		hour := start.UnixMilli()
		name := parts[2]
		switch {
		case name == "_SUCCESS":
			committed[hour] = true
		case strings.HasPrefix(name, "."):
			// An in-progress file: not committed.
		default:
			if _, ok := committed[hour]; !ok {
				committed[hour] = false
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, line := range strings.Fields(string(b)) {
				id, err := strconv.ParseInt(line, 10, 64)
				if err != nil {
					return fmt.Errorf("%s: line %q: %w", rel, line, err)
				}
				if id*600000/3600000*3600000 != hour {
					return fmt.Errorf("%s: id %d is not of this partition's hour", rel, id)
				}
				ids = append(ids, id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids, committed
}

// TestPartitionTimeJobStopped runs a partition-time job over a slow
// bounded source and stops it (a graceful stop, which is not the end of
// the input) once some partitions are committed. The watermark of the
// final checkpoint is then the time of the last row committed, so the
// partitions with a success file must be exactly the hours whose start
// plus the delay (1 h) is before it, and every row must be committed
// exactly once.
func TestPartitionTimeJobStopped(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := job.Compile(ctx, "ptime.sql", fmt.Sprintf(partitionTimeJob, t.TempDir(), 60, 100000, 99999, out),
		job.Options{Registry: job.NewRegistry(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- j.Run(runCtx) }()
	// Stop once three partitions are committed (about 3 s of rows).
	for {
		_, committed := partitionTimeOutput(t, out)
		n := 0
		for _, c := range committed {
			if c {
				n++
			}
		}
		if n >= 3 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the job ended before it committed three partitions: %v", err)
		case <-ctx.Done():
			t.Fatal("no three partitions committed within 2 minutes")
		case <-time.After(50 * time.Millisecond):
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("the stopped job: %v", err)
	}
	ids, committed := partitionTimeOutput(t, out)
	if len(ids) == 0 {
		t.Fatal("no rows committed")
	}
	for i, id := range ids {
		if id != int64(i) {
			t.Fatalf("committed ids are not 0..%d exactly once: at %d got %d", len(ids)-1, i, id)
		}
	}
	watermark := ids[len(ids)-1] * 600000
	var wrong []string
	for hour, c := range committed {
		if due := hour+3600000 < watermark; due != c {
			wrong = append(wrong, fmt.Sprintf("%s committed=%v due=%v", time.UnixMilli(hour).UTC().Format("2006-01-02 15h"), c, due))
		}
	}
	if len(wrong) > 0 {
		slices.Sort(wrong)
		t.Fatalf("with the watermark at %s (the last committed row), the success files are wrong:\n%s",
			time.UnixMilli(watermark).UTC().Format(time.DateTime), strings.Join(wrong, "\n"))
	}
	// The last row's partition is never due: the stop is not the end of
	// the input, which would commit it.
	if committed[watermark/3600000*3600000] {
		t.Fatal("the last row's partition was committed by a stop")
	}
}

// TestPartitionTimeJobEndOfInput runs the same job to the end of its
// bounded input: the source's final watermark (the end of event time)
// commits every partition, the last one included.
func TestPartitionTimeJobEndOfInput(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const rows = 100 // 16 h 40 min of event time: 17 partitions
	j, err := job.Compile(ctx, "ptime.sql", fmt.Sprintf(partitionTimeJob, t.TempDir(), 1000000, rows, rows-1, out),
		job.Options{Registry: job.NewRegistry(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	ids, committed := partitionTimeOutput(t, out)
	if len(ids) != rows || ids[0] != 0 || ids[rows-1] != rows-1 {
		t.Fatalf("committed %d rows, want ids 0..%d", len(ids), rows-1)
	}
	if len(committed) != 17 {
		t.Fatalf("%d partitions, want 17", len(committed))
	}
	for hour, c := range committed {
		if !c {
			t.Errorf("partition %s not committed at the end of the input", time.UnixMilli(hour).UTC().Format("2006-01-02 15h"))
		}
	}
}

// TestPartitionTimeWithDeadLetterSource: a pipeline whose sink takes
// watermarks runs as a graph of tasks; a source there that sets bad
// records aside writes its dead letters through a dead-letter sink of its
// own, exactly once as the filesystem sink's output is, which EXPLAIN
// says; with the process-time trigger the same job plans too.
func TestPartitionTimeWithDeadLetterSource(t *testing.T) {
	job1 := func(trigger string) string {
		return fmt.Sprintf(`SET 'execution.checkpointing.dir' = '%s';
CREATE TABLE src (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'kafka', 'topic' = 'in',
  'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json',
  'scan.bad-record.policy' = 'dead-letter', 'scan.bad-record.dead-letter.topic' = 'dlq');
CREATE TABLE out (id BIGINT, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv',
  'sink.partition-commit.trigger' = '%s', 'sink.partition-commit.policy.kind' = 'success-file');
INSERT INTO out SELECT id, DATE_FORMAT(ts, 'yyyy-MM-dd') FROM src;
`, t.TempDir(), t.TempDir(), trigger)
	}
	ctx := context.Background()
	for _, trigger := range []string{"partition-time", "process-time"} {
		j, err := job.Compile(ctx, "dl.sql", job1(trigger), job.Options{Registry: job.NewRegistry(), Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatalf("%s with a dead-letter source: %v", trigger, err)
		}
		var b strings.Builder
		if err := j.Explain(&b); err != nil {
			t.Fatal(err)
		}
		if want := "dead letters after a crash: exactly-once: written in Kafka transactions of their own"; !strings.Contains(b.String(), want) {
			t.Errorf("%s: EXPLAIN lacks %q:\n%s", trigger, want, b.String())
		}
	}
}
