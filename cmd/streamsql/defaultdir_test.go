package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// seedJob is the Kafka -> Kafka job of the article the project started
// from, as a Flink SQL file: an exactly-once sink written with Flink
// 1.13's 'sink.semantic', a source at earliest-offset, checkpoints every
// few seconds (the article's env.enableCheckpointing) and no checkpoint
// folder. %[1]s is the broker, %[2]s and %[3]s the topics.
const seedJob = `SET 'execution.checkpointing.interval' = '1s';

CREATE TABLE source_kafka (id BIGINT, name STRING) WITH (
  'connector' = 'kafka',
  'topic' = '%[2]s',
  'properties.bootstrap.servers' = '%[1]s',
  'properties.group.id' = 'seed-group',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE sink_kafka (id BIGINT, name STRING) WITH (
  'connector' = 'kafka',
  'topic' = '%[3]s',
  'properties.bootstrap.servers' = '%[1]s',
  'sink.semantic' = 'exactly-once',
  'format' = 'json'
);

INSERT INTO sink_kafka SELECT id, name FROM source_kafka;
`

// TestDefaultCheckpointFolderExplained: a job that checkpoints and names
// no folder is planned with the per-user default one, which validate
// accepts and explain names (XDG_STATE_HOME, else ~/.local/state); with
// neither known it is refused, saying why.
func TestDefaultCheckpointFolderExplained(t *testing.T) {
	state := stateHome(t)
	job := writeJob(t, fmt.Sprintf(seedJob, "127.0.0.1:9092", "in", "out"))
	if code, stdout, stderr := cli("validate", job); code != 0 || !strings.Contains(stdout, ": OK") {
		t.Fatalf("validate: exit %d\n%s%s", code, stdout, stderr)
	}
	want := "Checkpoint storage: " + filepath.Join(state, "streamsql", "checkpoints", "job") +
		" (the default folder: execution.checkpointing.dir is not set)\n"
	if code, stdout, stderr := cli("explain", job); code != 0 || !strings.Contains(stdout, want) {
		t.Fatalf("explain: exit %d, want %q in\n%s%s", code, want, stdout, stderr)
	}
	// The setting overrides it.
	other := t.TempDir()
	if _, stdout, _ := cli("explain", "--set", "execution.checkpointing.dir="+other, job); !strings.Contains(stdout,
		"Checkpoint storage: "+filepath.Join(other, "job")+"\n") {
		t.Errorf("explain with the setting:\n%s", stdout)
	}
	// Flink's in-memory storage keeps no folder, and the exactly-once sink
	// is refused then.
	if code, _, stderr := cli("validate", "--set", "execution.checkpointing.storage=jobmanager", job); code != 1 ||
		!strings.Contains(stderr, "checkpoints are kept in memory (execution.checkpointing.storage is 'jobmanager')") {
		t.Errorf("validate with jobmanager storage: exit %d\n%s", code, stderr)
	}
	// Without XDG_STATE_HOME: ~/.local/state.
	t.Setenv("XDG_STATE_HOME", "")
	home := t.TempDir()
	t.Setenv("HOME", home)
	if _, stdout, _ := cli("explain", job); !strings.Contains(stdout,
		"Checkpoint storage: "+filepath.Join(home, ".local", "state", "streamsql", "checkpoints", "job")) {
		t.Errorf("explain with HOME only:\n%s", stdout)
	}
	// Neither: refused, naming what to set.
	t.Setenv("HOME", "")
	code, _, stderr := cli("validate", job)
	if code != 1 || !strings.Contains(stderr, "there is no default folder: neither XDG_STATE_HOME") ||
		!strings.Contains(stderr, "set execution.checkpointing.dir") {
		t.Errorf("validate without a default folder: exit %d\n%s", code, stderr)
	}
}

// TestSeedJobExactlyOnceAcrossKill runs the seed article's job file
// unchanged in a child process against the real broker, SIGKILLs it while
// it copies, runs it again, and reads the output with an independent
// read_committed consumer: every input record exactly once. The job names
// no checkpoint folder: the second process finds the first one's
// checkpoints in the default folder.
func TestSeedJobExactlyOnceAcrossKill(t *testing.T) {
	b := kafkatest.Require(t)
	state := stateHome(t)
	in, out := b.Topic(t, 2), b.Topic(t, 1)
	job := filepath.Join(t.TempDir(), kafkatest.UniqueName(t)+".sql")
	if err := os.WriteFile(job, fmt.Appendf(nil, seedJob, b.Addr, in, out), 0o644); err != nil {
		t.Fatal(err)
	}
	// The input arrives while the job runs, over about six seconds, so
	// that the kill falls in the middle of it.
	const n = 4000
	cl := b.Client(t)
	produced := make(chan error, 1)
	go func() {
		for i := range n {
			cl.Produce(context.Background(), &kgo.Record{Topic: in, Value: fmt.Appendf(nil, `{"id":%d,"name":"n%d"}`, i, i)}, nil)
			if i%100 == 99 {
				time.Sleep(150 * time.Millisecond)
			}
		}
		produced <- cl.Flush(context.Background())
	}()

	first, _, stderr1 := runChild(t, nil, "run", job)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first run's second checkpoint", func() bool { return strings.Count(stderr1.String(), "checkpoint completed") >= 2 })
	time.Sleep(300 * time.Millisecond) // mid-interval: rows written, not committed
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	name := strings.TrimSuffix(filepath.Base(job), ".sql")
	folder := filepath.Join(state, "streamsql", "checkpoints", name)
	if files, _ := filepath.Glob(filepath.Join(folder, "chk-*.json")); len(files) == 0 {
		t.Fatalf("no checkpoint in the default folder %s; stderr:\n%s", folder, stderr1)
	}
	if !strings.Contains(stderr1.String(), "checkpoints=\""+folder+" (the default folder") {
		t.Errorf("the start line does not name the default folder %s:\n%s", folder, stderr1)
	}

	second, _, stderr2 := runChild(t, nil, "run", job)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = second.Process.Kill(); _ = second.Wait() }()
	if err := <-produced; err != nil {
		t.Fatal(err)
	}
	b.Consume(t, out, true, 2*time.Minute, func(r []*kgo.Record) bool { return len(r) >= n })
	// The second run checkpointed since it started: it is running and
	// stops gracefully on SIGTERM.
	waitFor(t, "a checkpoint of the second run", func() bool { return strings.Contains(stderr2.String(), "checkpoint completed") })
	if err := second.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("second run: %v; stderr:\n%s", err, stderr2)
	}
	if !strings.Contains(stderr2.String(), `msg="restoring checkpoint"`) {
		t.Errorf("the second run did not restore; stderr:\n%s", stderr2)
	}
	// Everything the second run committed, read after it stopped.
	recs := b.Consume(t, out, true, 10*time.Second, func(r []*kgo.Record) bool { return len(r) > n })
	seen := make([]int, n)
	for _, r := range recs {
		var row struct{ ID int }
		if err := json.Unmarshal(r.Value, &row); err != nil || row.ID < 0 || row.ID >= n {
			t.Fatalf("record %q: %v", r.Value, err)
		}
		seen[row.ID]++
	}
	var bad []string
	for id, c := range seen {
		if c != 1 {
			bad = append(bad, fmt.Sprintf("%d×%d", id, c))
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%d records read, not each of %d once (id×count): %s", len(recs), n, strings.Join(bad[:min(20, len(bad))], " "))
	}
}

// flinkFilesystemJob is the streaming example of Flink's filesystem
// connector page (docs/connectors/table/filesystem.md, "Full Example"),
// with the Kafka table's elided options filled in, 'format' = 'json' for
// 'parquet', and without its 'sink.partition-commit.*' options: streamsql
// writes neither parquet nor partition-commit triggers yet (validate says
// so). It names no checkpoint folder. %[1]s is the broker, %[2]s the
// topic, %[3]s the output path.
const flinkFilesystemJob = `CREATE TABLE kafka_table (
  user_id STRING,
  order_amount DOUBLE,
  log_ts TIMESTAMP(3),
  WATERMARK FOR log_ts AS log_ts - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = '%[2]s', 'properties.bootstrap.servers' = '%[1]s',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json');

CREATE TABLE fs_table (
  user_id STRING,
  order_amount DOUBLE,
  dt STRING,
  ` + "`hour`" + ` STRING
) PARTITIONED BY (dt, ` + "`hour`" + `) WITH (
  'connector'='filesystem',
  'path'='%[3]s',
  'format'='json'
);

-- streaming sql, insert into file system table
INSERT INTO fs_table
SELECT
    user_id,
    order_amount,
    DATE_FORMAT(log_ts, 'yyyy-MM-dd'),
    DATE_FORMAT(log_ts, 'HH')
FROM kafka_table;
`

// TestFlinkFilesystemExampleExactlyOnceAcrossKill runs Flink's
// filesystem-sink example in a child process with checkpointing on (as a
// Flink cluster's configuration would turn it on: --set, not the file),
// SIGKILLs it while it writes, runs it again, and reads the committed
// files: every input record exactly once. The job names no checkpoint
// folder; the default one carries the pending files' commits across the
// kill.
func TestFlinkFilesystemExampleExactlyOnceAcrossKill(t *testing.T) {
	b := kafkatest.Require(t)
	state := stateHome(t)
	in := b.Topic(t, 2)
	outDir := t.TempDir()
	job := writeJob(t, fmt.Sprintf(flinkFilesystemJob, b.Addr, in, outDir))
	const n = 4000
	produce := func(from, to int) {
		cl := b.Client(t)
		for i := from; i < to; i++ {
			v := fmt.Appendf(nil, `{"user_id":"u%d","order_amount":%d.5,"log_ts":"2020-05-20 %02d:00:00"}`, i, i, i%24)
			cl.Produce(context.Background(), &kgo.Record{Topic: in, Value: v}, nil)
		}
		if err := cl.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	produce(0, n/2)
	set := []string{"run", "--set", "execution.checkpointing.interval=500ms", job}
	first, _, stderr1 := runChild(t, nil, set...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first run's second checkpoint", func() bool { return strings.Count(stderr1.String(), "checkpoint completed") >= 2 })
	produce(n/2, n)
	time.Sleep(200 * time.Millisecond)
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	if files, _ := filepath.Glob(filepath.Join(state, "streamsql", "checkpoints", "job", "chk-*.json")); len(files) == 0 {
		t.Fatalf("no checkpoint in the default folder under %s; stderr:\n%s", state, stderr1)
	}

	second, _, stderr2 := runChild(t, nil, set...)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = second.Process.Kill(); _ = second.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for len(committedFileLines(t, outDir)) < n && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	waitFor(t, "a checkpoint of the second run", func() bool { return strings.Contains(stderr2.String(), "checkpoint completed") })
	if err := second.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("second run: %v; stderr:\n%s", err, stderr2)
	}
	if !strings.Contains(stderr2.String(), `msg="restoring checkpoint"`) {
		t.Errorf("the second run did not restore; stderr:\n%s", stderr2)
	}
	lines := committedFileLines(t, outDir)
	seen := map[string]int{}
	for _, l := range lines {
		var row struct {
			UserID string `json:"user_id"`
		}
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		seen[row.UserID]++
	}
	var bad []string
	for i := range n {
		if c := seen[fmt.Sprintf("u%d", i)]; c != 1 {
			bad = append(bad, fmt.Sprintf("u%d×%d", i, c))
		}
	}
	if len(bad) > 0 || len(lines) != n {
		t.Fatalf("%d lines committed, not each of %d users once (user×count): %s", len(lines), n, strings.Join(bad[:min(20, len(bad))], " "))
	}
}

// committedFileLines returns the lines of the committed (visible, not
// in-progress) files under dir.
func committedFileLines(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || !d.Type().IsRegular() {
			if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for l := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
			if l != "" {
				out = append(out, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
