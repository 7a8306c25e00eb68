package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestRunAgainstRealBroker runs a bounded seeded job into a real broker's
// topic exactly-once, then reads the topic back with a second run
// (read_committed) and compares with the generator's rows.
func TestRunAgainstRealBroker(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	const src = `CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '30', 'seed' = '9', 'fields.name.length' = '5');
`
	t.Setenv("KAFKA_BOOTSTRAP", b.Addr)
	writer := writeJob(t, `SET 'execution.checkpointing.interval' = '200ms';
`+src+`CREATE TABLE out1 (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = '`+topic+`',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '`+kafkatest.UniqueName(t)+`');
INSERT INTO out1 SELECT * FROM src;
`)
	if code, _, stderr := cli("run", "--set", "execution.checkpointing.dir="+t.TempDir(), writer); code != 0 {
		t.Fatalf("writer: exit %d: %s", code, stderr)
	}
	// The reader is bounded at the last stable offset it finds at start.
	b.AwaitStable(t, topic)
	reader := writeJob(t, `CREATE TABLE in1 (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = '`+topic+`',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'format' = 'json', 'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
SELECT * FROM in1;
`)
	code, got, stderr := cli("run", reader)
	if code != 0 {
		t.Fatalf("reader: exit %d: %s", code, stderr)
	}
	_, want, _ := cli("run", writeJob(t, src+"SELECT * FROM src;\n"))
	if got != want || strings.Count(got, "+I[") != 30 {
		t.Errorf("read back:\n%s\nwant:\n%s", got, want)
	}
}

// TestFromCheckpoint restores a finished bounded job's final checkpoint
// (kept by RETAIN_ON_CANCELLATION) into a new run without a checkpoint dir: its
// source is at the end, so nothing is printed again.
func TestFromCheckpoint(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, seededJob+"SELECT * FROM src;\n")
	code, stdout, stderr := cli("run", "--set", "execution.checkpointing.dir="+dir,
		"--set", "execution.checkpointing.externalized-checkpoint-retention=RETAIN_ON_CANCELLATION", job)
	if code != 0 || stdout != "op[id, name]\n"+seededRows {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	code, stdout, stderr = cli("run", "--from-checkpoint", filepath.Join(dir, "job"), job)
	if code != 0 || stdout != "" || !strings.Contains(stderr, `msg="restoring checkpoint"`) {
		t.Fatalf("restored run: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
}
