package main

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestRestoreAgainstAnotherClusterRefused (issue item 2): a job's
// checkpoint records the Kafka cluster and topic its positions were read
// from. Run again with KAFKA_BOOTSTRAP pointing at another cluster that
// has a topic of the same name, the job fails at once naming both cluster
// ids and the ways on, instead of resuming at offsets that mean nothing
// there; --reset-source starts the source afresh (it reads the other
// cluster's topic from its start), and `streamsql checkpoint drop` deletes
// the checkpoints so that a plain run starts afresh too.
func TestRestoreAgainstAnotherClusterRefused(t *testing.T) {
	brokers := kafkatest.RequireAll(t)
	if len(brokers) < 2 {
		t.Fatal("two test brokers needed (STREAMSQL_KAFKA_BOOTSTRAP and STREAMSQL_KAFKA_BOOTSTRAP_TV1)")
	}
	a, b := brokers[0], brokers[1]
	topic := a.Topic(t, 1)
	if _, err := b.Admin(t).CreateTopic(context.Background(), 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = b.Admin(t).DeleteTopic(context.Background(), topic) })
	b.AwaitPartitions(t, topic, 1)
	produceValues(t, a, topic, `{"id":1}`, `{"id":2}`)
	produceValues(t, b, topic, `{"id":101}`, `{"id":102}`, `{"id":103}`)
	job := writeJob(t, fmt.Sprintf(`SET 'execution.checkpointing.interval' = '200ms';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
SELECT id FROM src;
`, topic))
	// run runs the job against broker addr until it printed want rows (or
	// failed), then stops it; it returns the exit code and the outputs.
	run := func(addr string, want int, extra ...string) (int, string, string) {
		t.Helper()
		cmd, stdout, stderr := runChild(t, []string{"KAFKA_BOOTSTRAP=" + addr}, append(append([]string{"run"}, extra...), job)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			deadline := time.Now().Add(time.Minute)
			for time.Now().Before(deadline) && strings.Count(stdout.String(), "+I[") < want &&
				!strings.Contains(stderr.String(), `msg="job failed"`) {
				time.Sleep(50 * time.Millisecond)
			}
			for time.Now().Before(deadline) && !strings.Contains(stderr.String(), "checkpoint completed") &&
				!strings.Contains(stderr.String(), `msg="job failed"`) {
				time.Sleep(50 * time.Millisecond)
			}
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}()
		code := exitWithin(t, cmd, 2*time.Minute, stderr)
		<-done
		return code, stdout.String(), stderr.String()
	}
	if code, out, se := run(a.Addr, 2); code != 0 || !strings.Contains(out, "+I[1]\n+I[2]\n") {
		t.Fatalf("first run on cluster A: exit %d, stdout %q\n%s", code, out, se)
	}
	code, out, se := run(b.Addr, 1)
	if code != 1 || strings.Contains(out, "+I[") {
		t.Fatalf("run on cluster B: exit %d, stdout %q; want a refusal and no row\n%s", code, out, se)
	}
	for _, want := range []string{"was read from the Kafka cluster with id ", "are the cluster with id ", "--reset-source src", "streamsql checkpoint drop"} {
		if !strings.Contains(se, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, se)
		}
	}
	if strings.Contains(se, "restarting") {
		t.Errorf("the refusal restarted the job:\n%s", se)
	}
	// --reset-source: the source reads cluster B's topic from its start.
	if code, out, se := run(b.Addr, 3, "--reset-source", "src"); code != 0 || !strings.Contains(out, "+I[101]\n+I[102]\n+I[103]\n") {
		t.Fatalf("run on cluster B with --reset-source: exit %d, stdout %q\n%s", code, out, se)
	}
	// Back on cluster A the checkpoint is B's now: refused; drop it.
	if code, _, se := run(a.Addr, 1); code != 1 || !strings.Contains(se, "was read from the Kafka cluster with id ") {
		t.Fatalf("back on cluster A: exit %d\n%s", code, se)
	}
	t.Setenv("KAFKA_BOOTSTRAP", a.Addr)
	if code, out, se := cli("checkpoint", "drop", job); code != 0 || !strings.Contains(out, "the next run starts afresh") {
		t.Fatalf("checkpoint drop: exit %d, %q %s", code, out, se)
	}
	if code, out, se := run(a.Addr, 2); code != 0 || !strings.Contains(out, "+I[1]\n+I[2]\n") {
		t.Fatalf("run on cluster A after the drop: exit %d, stdout %q\n%s", code, out, se)
	}
}

// TestQuickstartTwiceStartsAfresh (issue item 2): the quick start on the
// embedded broker, run twice, starts afresh the second time (its broker's
// data is gone, and so are its checkpoints: a temporary folder), printing
// the first orders again, instead of resuming at offsets of the earlier
// broker and printing nothing for a while.
func TestQuickstartTwiceStartsAfresh(t *testing.T) {
	t.Setenv(bootstrapVar, "")
	for run := range 2 {
		cmd, stdout, stderr := runChild(t, []string{"KAFKA_BOOTSTRAP="}, "run", "--embedded-kafka", "../../examples/sql/quickstart.sql")
		// An empty KAFKA_BOOTSTRAP is still set: unset it for the child.
		cmd.Env = withoutVar(cmd.Env, bootstrapVar)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the first order", func() bool { return strings.Contains(stdout.String(), "+I[1, ") })
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := exitWithin(t, cmd, time.Minute, stderr); code != 0 {
			t.Fatalf("run %d: exit %d\n%s", run+1, code, stderr)
		}
		if !strings.HasPrefix(stdout.String(), "op[id, customer, amount]\n+I[1, ") || strings.Contains(stderr.String(), "restoring checkpoint") {
			t.Fatalf("run %d did not start afresh: stdout %q\n%s", run+1, stdout, stderr)
		}
	}
}

// withoutVar returns env without the variable name.
func withoutVar(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
