package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// No endless loops: what restarting cannot fix ends the job, naming the
// cause and the way out, instead of restarting it for ever (issue:
// "Runs unchanged and fails loudly", item 3). Each test runs the CLI in a
// child process against the real broker.

// exitWithin waits for cmd to end within d and returns its exit code; it
// fails the test (killing the child) when it does not end.
func exitWithin(t *testing.T, cmd *exec.Cmd, d time.Duration, stderr *syncBuffer) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the job was still running after %s; stderr:\n%s", d, stderr)
		return -1
	}
}

// produceValues writes values to topic and waits for them.
func produceValues(t *testing.T, b kafkatest.Broker, topic string, values ...string) {
	t.Helper()
	cl := b.Client(t)
	for _, v := range values {
		cl.Produce(context.Background(), &kgo.Record{Topic: topic, Value: []byte(v)}, nil)
	}
	if err := cl.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestMissingSourceTopicFailsAtOnce: a source topic that does not exist
// fails the job at once, naming the topic and the way out, with restarts
// on (checkpointing makes exponential-delay the strategy, which would
// otherwise restart for ever); 'scan.missing-topic' = 'wait' waits for
// it with a warning, and reads it once it exists.
func TestMissingSourceTopicFailsAtOnce(t *testing.T) {
	b := kafkatest.Require(t)
	topic := kafkatest.UniqueName(t)
	job := func(extra string) string {
		return writeJob(t, fmt.Sprintf(`SET 'execution.checkpointing.interval' = '200ms';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'%s);
SELECT id FROM src;
`, topic, b.Addr, extra))
	}
	cmd, _, stderr := runChild(t, nil, "run", job(""))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if code := exitWithin(t, cmd, 30*time.Second, stderr); code != 1 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"topic '" + topic + "' does not exist", "'scan.missing-topic' = 'wait'"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr.String(), "restarting") {
		t.Errorf("the job restarted:\n%s", stderr)
	}

	cmd, stdout, stderr := runChild(t, nil, "run", job(", 'scan.missing-topic' = 'wait'"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitFor(t, "the warning about the missing topic", func() bool { return strings.Contains(stderr.String(), "waiting for topic '"+topic+"'") })
	if _, err := b.Admin(t).CreateTopic(context.Background(), 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = b.Admin(t).DeleteTopic(context.Background(), topic) })
	produceValues(t, b, topic, `{"id":7}`)
	waitFor(t, "the row of the new topic", func() bool { return strings.Contains(stdout.String(), "+I[7]") })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitWithin(t, cmd, time.Minute, stderr); code != 0 {
		t.Fatalf("exit %d after SIGTERM; stderr:\n%s", code, stderr)
	}
}

// TestPoisonRecordStopsRestarting: a record that does not decode, under
// 'scan.bad-record.policy' = 'fail' with checkpointing on, fails every run
// at the same offset: after restart-strategy.max-failures-per-record runs
// (3) the job ends, and the error names the record, the policy option
// and what its values do.
func TestPoisonRecordStopsRestarting(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	produceValues(t, b, topic, `{"id":1}`, `{"id":`, `{"id":3}`)
	job := writeJob(t, fmt.Sprintf(`SET 'execution.checkpointing.interval' = '200ms';
SET 'restart-strategy.exponential-delay.initial-backoff' = '100ms';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
SELECT id FROM src;
`, topic, b.Addr))
	cmd, _, stderr := runChild(t, nil, "run", job)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if code := exitWithin(t, cmd, time.Minute, stderr); code != 1 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	out := stderr.String()
	for _, want := range []string{
		fmt.Sprintf("topic %s partition 0 offset 1 failed 3 runs in a row (restart-strategy.max-failures-per-record = 3)", topic),
		"'scan.bad-record.policy' = 'fail' (the default)", "'skip' counts and logs such records", "'dead-letter'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, `msg="job failed; restarting"`); n != 2 {
		t.Errorf("%d restarts, want 2 (3 runs); stderr:\n%s", n, out)
	}
}

// incompressible returns n random characters (base64 of random bytes):
// snappy, franz-go's default codec, cannot shrink them much.
func incompressible(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)[:n]
}

// TestTooLargeRecordIntoKafkaSink: a row whose record exceeds the sink
// topic's max.message.bytes (the brokers would answer MESSAGE_TOO_LARGE,
// and every restart would meet it again) goes through the sink's
// 'sink.bad-record.policy': fail names the size, the limit and the way
// out; skip drops it and delivers the others; dead-letter writes it to
// the dead-letter topic, in the exactly-once sink's transaction.
func TestTooLargeRecordIntoKafkaSink(t *testing.T) {
	b := kafkatest.Require(t)
	in := b.Topic(t, 1)
	big := incompressible(6000)
	produceValues(t, b, in, `{"id":1,"name":"a"}`, fmt.Sprintf(`{"id":2,"name":"%s"}`, big), `{"id":3,"name":"c"}`)
	b.AwaitStable(t, in)
	run := func(t *testing.T, policy string) (code int, out, dl string, stderr string) {
		out = b.TopicWithConfig(t, 1, map[string]string{"max.message.bytes": "2048"})
		extra := ""
		if policy != "" {
			extra = fmt.Sprintf(", 'sink.bad-record.policy' = '%s'", policy)
		}
		if policy == "dead-letter" {
			dl = b.Topic(t, 1)
			extra += fmt.Sprintf(", 'sink.bad-record.dead-letter.topic' = '%s'", dl)
		}
		job := writeJob(t, fmt.Sprintf(`SET 'execution.checkpointing.interval' = '200ms';
SET 'restart-strategy.exponential-delay.initial-backoff' = '100ms';
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = '%[1]s', 'properties.bootstrap.servers' = '%[3]s',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE snk (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = '%[2]s', 'properties.bootstrap.servers' = '%[3]s',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '%[2]s', 'format' = 'json'%[4]s);
INSERT INTO snk SELECT * FROM src;
`, in, out, b.Addr, extra))
		cmd, _, se := runChild(t, nil, "run", job)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return exitWithin(t, cmd, time.Minute, se), out, dl, se.String()
	}
	ids := func(recs []*kgo.Record) []string {
		var out []string
		for _, r := range recs {
			out = append(out, string(r.Value)[:min(len(r.Value), 8)])
		}
		return out
	}
	t.Run("fail", func(t *testing.T) {
		code, _, _, stderr := run(t, "")
		if code != 1 {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr)
		}
		for _, want := range []string{"kafka sink (table 'snk'): a record of 60", "whose limit is 2048 bytes", "MESSAGE_TOO_LARGE",
			"'sink.bad-record.policy' = 'fail' (the default)", "failed 3 runs in a row"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
	})
	t.Run("skip", func(t *testing.T) {
		code, out, _, stderr := run(t, "skip")
		if code != 0 || !strings.Contains(stderr, "skipped a record of 60") {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr)
		}
		recs := b.Consume(t, out, true, 10*time.Second, func(r []*kgo.Record) bool { return len(r) >= 2 })
		if got := ids(recs); len(got) != 2 || got[0] != `{"id":1,` || got[1] != `{"id":3,` {
			t.Errorf("output %q, want ids 1 and 3", got)
		}
	})
	t.Run("dead-letter", func(t *testing.T) {
		code, out, dl, stderr := run(t, "dead-letter")
		if code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr)
		}
		recs := b.Consume(t, out, true, 10*time.Second, func(r []*kgo.Record) bool { return len(r) >= 2 })
		if got := ids(recs); len(got) != 2 || got[0] != `{"id":1,` || got[1] != `{"id":3,` {
			t.Errorf("output %q, want ids 1 and 3", got)
		}
		dead := b.Consume(t, dl, true, 10*time.Second, func(r []*kgo.Record) bool { return len(r) >= 1 })
		if len(dead) != 1 || !strings.Contains(string(dead[0].Value), big) {
			t.Fatalf("dead letters: %d records", len(dead))
		}
		h := map[string]string{}
		for _, x := range dead[0].Headers {
			h[x.Key] = string(x.Value)
		}
		if h["streamsql.dead-letter.reason"] != "too-large" || h["streamsql.dead-letter.topic"] != out || h["streamsql.dead-letter.table"] != "snk" {
			t.Errorf("dead-letter headers %v", h)
		}
	})
}
