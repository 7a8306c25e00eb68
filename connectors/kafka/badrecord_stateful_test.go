package kafka

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

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
