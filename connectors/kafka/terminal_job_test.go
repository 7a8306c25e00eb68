package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
)

// runTerminal runs text under the default restart strategy and checks the
// job fails at once (no restart) with an error containing want. Before
// these errors were terminal the job restarted until the deadline.
func runTerminal(t *testing.T, name, text, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j, err := job.Compile(ctx, name, text, job.Options{Registry: job.NewRegistry(), JobName: name,
		Set: map[string]string{"execution.checkpointing.dir": t.TempDir(), "execution.checkpointing.interval": "1s"}})
	if err != nil {
		t.Fatal(err)
	}
	err = j.Run(ctx)
	if ctx.Err() != nil {
		t.Fatalf("job still running (restarts %d) at the deadline; last error: %v", j.Status().Restarts, err)
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("job error %v; want it to contain %q", err, want)
	}
	if r := j.Status().Restarts; r != 0 {
		t.Fatalf("job restarted %d times; want it to fail without a restart", r)
	}
}

// TestTransactionTimeoutAboveBrokerMaxIsTerminal: an exactly-once sink whose
// 'properties.transaction.timeout.ms' exceeds the broker's
// transaction.max.timeout.ms (Kafka's default is 15 min; 24 h is above any
// sane setting) fails the job at once instead of restarting forever.
func TestTransactionTimeoutAboveBrokerMaxIsTerminal(t *testing.T) {
	b := kafkatest.Require(t)
	in, out := b.Topic(t, 1), b.Topic(t, 1)
	text := `CREATE TABLE src (n INT) WITH ('connector' = 'kafka', 'topic' = '` + in + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE snk (n INT) WITH ('connector' = 'kafka', 'topic' = '` + out + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + out + `',
  'properties.transaction.timeout.ms' = '86400000');
INSERT INTO snk SELECT n FROM src;
`
	runTerminal(t, "txn-timeout-"+out, text, "exceeds the broker's transaction.max.timeout.ms")
}

// TestAutoOffsetResetNoneIsTerminal: a group-offsets source with
// 'properties.auto.offset.reset' = 'none' and no committed offset fails
// the job at once, naming the group and partition.
func TestAutoOffsetResetNoneIsTerminal(t *testing.T) {
	b := kafkatest.Require(t)
	in, out := b.Topic(t, 1), b.Topic(t, 1)
	text := `CREATE TABLE src (n INT) WITH ('connector' = 'kafka', 'topic' = '` + in + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'scan.startup.mode' = 'group-offsets',
  'properties.group.id' = '` + in + `-g', 'properties.auto.offset.reset' = 'none', 'format' = 'json');
CREATE TABLE snk (n INT) WITH ('connector' = 'kafka', 'topic' = '` + out + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'format' = 'json');
INSERT INTO snk SELECT n FROM src;
`
	runTerminal(t, "offset-none-"+in, text, "has no committed offset for topic "+in+" partition 0")
}
