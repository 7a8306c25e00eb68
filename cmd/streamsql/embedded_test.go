package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

var embeddedRE = regexp.MustCompile(`broker \(kfake, for trying things out\) listening" addr=(127\.0\.0\.1:\d+)`)

// TestEmbeddedKafkaExactlyOnce runs datagen → Kafka (exactly-once) on the
// embedded broker, reads the topic back with a second `streamsql run`
// (read_committed, bounded at the latest offsets) while the first runs,
// and checks that what was committed is exactly a prefix of the seeded
// generator's rows: nothing lost, nothing twice.
func TestEmbeddedKafkaExactlyOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Setenv(bootstrapVar, "")
	os.Unsetenv(bootstrapVar)
	const src = `CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '200', 'seed' = '5', 'fields.name.length' = '3');
`
	writer := writeJob(t, `SET 'execution.checkpointing.interval' = '100ms'; SET 'execution.checkpointing.dir' = '`+t.TempDir()+`';
`+src+`CREATE TABLE orders (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'orders',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'emb-test');
INSERT INTO orders SELECT * FROM src;
`)
	b := startCLI(t, "run", "--embedded-kafka", writer)
	var addr string
	waitFor(t, "the broker's address and two checkpoints", func() bool {
		s := b.stderr.String()
		if m := embeddedRE.FindStringSubmatch(s); m != nil {
			addr = m[1]
		}
		return addr != "" && strings.Count(s, "checkpoint completed") >= 2
	})
	reader := writeJob(t, `CREATE TABLE orders (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'orders',
  'properties.bootstrap.servers' = '`+addr+`', 'format' = 'json', 'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
SELECT * FROM orders;
`)
	code, got, stderr := cli("run", reader)
	if code != 0 {
		t.Fatalf("reader: exit %d: %s", code, stderr)
	}
	if code := b.stop(t); code != 0 {
		t.Fatalf("writer: exit %d: %s", code, b.stderr)
	}
	rows := strings.Count(got, "\n") - 1
	if rows < 1 || !strings.HasPrefix(got, "op[id, name]\n+I[") {
		t.Fatalf("read back %q", got)
	}
	// The same generator, bounded to as many rows, gives the expected ones.
	code, want, stderr := cli("run", writeJob(t, strings.Replace(src, "'rows-per-second' = '200'", "'number-of-rows' = '"+strconv.Itoa(rows)+"'", 1)+"SELECT * FROM src;\n"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got != want {
		t.Errorf("read back %d rows:\n%s\nwant:\n%s", rows, got, want)
	}
	t.Logf("%d rows read back from %s", rows, addr)
}

func TestEmbeddedKafkaKeepsTheEnvironmentsBroker(t *testing.T) {
	t.Setenv(bootstrapVar, "127.0.0.1:1")
	job := writeJob(t, `CREATE TABLE o (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'o',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'format' = 'json');
EXPLAIN INSERT INTO o SELECT 1;
SELECT 1 AS one;
`)
	code, stdout, stderr := cli("run", "--embedded-kafka", job)
	if code != 0 || stdout != "op[one]\n+I[1]\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, `msg="KAFKA_BOOTSTRAP is set in the environment: job files use that, not the embedded broker" KAFKA_BOOTSTRAP=127.0.0.1:1`) {
		t.Errorf("stderr %s", stderr)
	}
}
