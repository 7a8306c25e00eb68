package kafka

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	_ "github.com/streamsql/streamsql/connectors/filesystem" // the graph test's sink
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
)

// TestBadRecordDeadLetterStateful: a source's dead letters when its rows
// go to a stateful operator (a GROUP BY over a hash exchange) rather than
// straight to a sink: every record the format cannot decode is written
// unchanged to the dead-letter topic, exactly once, and the aggregate
// counts every good record.
func TestBadRecordDeadLetterStateful(t *testing.T) {
	b := kafkatest.Require(t)
	in, out, dlq := b.Topic(t, 1), b.Topic(t, 1), b.Topic(t, 1)
	input := produceBadInput(t, b, in, 50)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := kafkatest.UniqueName(t)
	sql := `CREATE TABLE src (user_id BIGINT, n INT) WITH ('connector' = 'kafka', 'topic' = '` + in + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json', 'scan.bad-record.policy' = 'dead-letter',
  'scan.bad-record.dead-letter.topic' = '` + dlq + `');
CREATE TABLE snk (k BIGINT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '` + out + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'key.format' = 'json', 'value.format' = 'json');
INSERT INTO snk SELECT 0 AS k, COUNT(*) AS c FROM src WHERE user_id IS NOT NULL;
`
	j, err := job.Compile(ctx, "dl.sql", sql, job.Options{Registry: job.NewRegistry(), JobName: name, Set: map[string]string{
		"restart-strategy.type": "none", "parallelism.default": "2",
		"execution.checkpointing.interval": "100ms", "execution.checkpointing.dir": filepath.Join(t.TempDir(), "ckpt")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	b.AwaitStable(t, dlq)
	got := b.Consume(t, dlq, true, time.Minute, func(r []*kgo.Record) bool { return len(r) >= len(input.bad) })
	checkDeadLetters(t, got, input.bad, in, name, "snk/src")
	recs := b.Consume(t, out, true, time.Minute, func(r []*kgo.Record) bool {
		return len(r) > 0 && strings.Contains(string(r[len(r)-1].Value), `"c":`)
	})
	last := string(recs[len(recs)-1].Value)
	if want := `"c":` + strconv.Itoa(len(input.good)); !strings.Contains(last, want) {
		t.Errorf("the count's last value is %s, want %s", last, want)
	}
}

// TestBadRecordDeadLetterGraphNotNull: a pipeline that runs as a graph of
// tasks without a stateful operator (its filesystem sink commits
// partitions by event time, so its source generates watermarks) still
// sends the record whose row the sink's NOT NULL column rejects to the
// dead-letter topic, as a chained pipeline does (the row comes straight
// from its record), besides the records its format cannot decode; the
// good rows are committed.
func TestBadRecordDeadLetterGraphNotNull(t *testing.T) {
	b := kafkatest.Require(t)
	in, dlq := b.Topic(t, 1), b.Topic(t, 1)
	input := produceBadInput(t, b, in, 60)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := kafkatest.UniqueName(t)
	out := t.TempDir()
	sql := `CREATE TABLE src (user_id BIGINT, n INT, ts AS TO_TIMESTAMP_LTZ(1700000000000 + n, 3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'kafka', 'topic' = '` + in + `', 'properties.bootstrap.servers' = '` + b.Addr + `',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json',
  'scan.bad-record.policy' = 'dead-letter', 'scan.bad-record.dead-letter.topic' = '` + dlq + `');
CREATE TABLE snk (user_id BIGINT NOT NULL, n INT, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'filesystem',
  'path' = '` + out + `', 'format' = 'csv', 'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.policy.kind' = 'success-file', 'partition.time-extractor.timestamp-pattern' = '$dt 00:00:00');
INSERT INTO snk SELECT user_id, n, DATE_FORMAT(ts, 'yyyy-MM-dd') FROM src;
`
	j, err := job.Compile(ctx, "dl.sql", sql, job.Options{Registry: job.NewRegistry(), JobName: name, Set: map[string]string{
		"restart-strategy.type": "none", "table.local-time-zone": "UTC",
		"execution.checkpointing.interval": "100ms", "execution.checkpointing.dir": filepath.Join(t.TempDir(), "ckpt")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want := append(append([]*kgo.Record{}, input.bad...), input.rejected...)
	if len(input.rejected) == 0 {
		t.Fatal("the input has no row for the NOT NULL column to reject")
	}
	b.AwaitStable(t, dlq)
	got := b.Consume(t, dlq, true, time.Minute, func(r []*kgo.Record) bool { return len(r) >= len(want) })
	checkDeadLetters(t, got, want, in, name, "snk/src")
	var rows []string
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
			return err
		}
		data, err := os.ReadFile(p)
		rows = append(rows, strings.Fields(string(data))...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(input.good) {
		t.Errorf("%d rows committed, want the %d good ones", len(rows), len(input.good))
	}
}
