package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// statusDoc is what these tests read of /status, decoded on their own so
// that the checks do not lean on the server's type.
type statusDoc struct {
	State    string `json:"state"`
	Restarts int64  `json:"restarts"`
	Tasks    []struct {
		Kind       string `json:"kind"`
		Name       string `json:"name"`
		RecordsIn  int64  `json:"records_in"`
		RecordsOut int64  `json:"records_out"`
	} `json:"tasks"`
	Checkpoints struct {
		Completed int64 `json:"completed"`
	} `json:"checkpoints"`
	Recent []struct {
		Level   string `json:"level"`
		Message string `json:"message"`
		Attrs   string `json:"attrs"`
	} `json:"recent"`
	Degraded []struct {
		Sink    string `json:"sink"`
		Problem string `json:"problem"`
	} `json:"degraded"`
}

// sum adds records in and out of the tasks of kind.
func (s statusDoc) sum(kind string) (in, out int64) {
	for _, t := range s.Tasks {
		if t.Kind == kind {
			in += t.RecordsIn
			out += t.RecordsOut
		}
	}
	return in, out
}

// httpAddrOf waits for the child's log line naming the status page's
// address.
func httpAddrOf(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	var addr string
	waitFor(t, "the HTTP address", func() bool {
		if m := addrRE.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
		return addr != ""
	})
	return addr
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(body)
}

func getStatus(t *testing.T, addr string) statusDoc {
	t.Helper()
	var st statusDoc
	if err := json.Unmarshal([]byte(httpGet(t, "http://"+addr+"/status")), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestUnreachableSinkShowsDegraded: a Kafka sink whose brokers nobody
// listens on (issue item 4) is DEGRADED with the reason on /status,
// /metrics, the page's data and the console, counts no record as out
// (none was acknowledged), and a graceful stop waits for it at most its
// delivery timeout, saying so, instead of the whole stop timeout.
func TestUnreachableSinkShowsDegraded(t *testing.T) {
	job := writeJob(t, `SET 'execution.checkpointing.interval' = '300ms';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100');
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'nowhere',
  'properties.bootstrap.servers' = '127.0.0.1:1', 'properties.delivery.timeout.ms' = '15000', 'format' = 'json');
INSERT INTO snk SELECT id FROM src;
`)
	cmd, _, stderr := runChild(t, nil, "run", "--http", "127.0.0.1:0", job)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	addr := httpAddrOf(t, stderr)
	var st statusDoc
	waitFor(t, "the degraded sink in /status", func() bool {
		st = getStatus(t, addr)
		return len(st.Degraded) > 0
	})
	if st.State != "RUNNING" || st.Degraded[0].Sink != "snk/snk" || !strings.Contains(st.Degraded[0].Problem, "127.0.0.1:1") {
		t.Errorf("/status: state %s, degraded %+v", st.State, st.Degraded)
	}
	if in, out := st.sum("sink"); in == 0 || out != 0 {
		t.Errorf("sink records in %d, out %d: want rows received and none delivered", in, out)
	}
	if m := httpGet(t, "http://"+addr+"/metrics"); !strings.Contains(m, `streamsql_sink_degraded{job="job",sink="snk/snk"} 1`) ||
		!strings.Contains(m, `streamsql_task_records_out_total{index="0",job="job",kind="sink",name="snk/snk"} 0`) {
		t.Errorf("/metrics lacks the degraded sink or its zero records out:\n%s", m)
	}
	waitFor(t, "the console's DEGRADED line", func() bool {
		return strings.Contains(stderr.String(), `msg="DEGRADED: a sink cannot deliver; its output waits" degraded="sink snk/snk:`)
	})
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := exitWithin(t, cmd, 45*time.Second, stderr)
	took := time.Since(start)
	if code != 1 {
		t.Errorf("exit %d after the stop; want 1 (the final checkpoint could not complete)", code)
	}
	for _, want := range []string{`msg="stopping: the final checkpoint waits for a sink that cannot deliver; send the signal again to stop at once" job=job sink=snk/snk`,
		"records_out=0"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	t.Logf("the stop took %s (delivery timeout 15 s, stop timeout 1 min)", took.Round(100*time.Millisecond))
}

// TestStatusTellsTheTruth (issue item 7): the start's warnings are in the
// status's recent list; a sink's records out are the records the broker
// acknowledged; a failure the job restarts after is listed once; the
// counters go on across the restart instead of starting again from zero;
// and "checkpoint completed" is logged when the checkpoint completes,
// before its rows become visible to a read_committed reader.
func TestStatusTellsTheTruth(t *testing.T) {
	b := kafkatest.Require(t)
	out := b.Topic(t, 1)
	job := writeJob(t, fmt.Sprintf(`SET 'execution.checkpointing.interval' = '500ms';
SET 'restart-strategy.exponential-delay.initial-backoff' = '200ms';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '200',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000');
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
  'sink.semantic' = 'exactly-once', 'sink.transactional-id-prefix' = '%s', 'format' = 'json');
INSERT INTO snk SELECT id FROM src;
`, out, b.Addr, out))
	cmd, _, stderr := runChild(t, []string{testkit.FaultsEnv + "=before-pre-commit@4:fail"}, "run", "--http", "127.0.0.1:0", job)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	addr := httpAddrOf(t, stderr)

	// When a read_committed reader sees the first record.
	seen := make(chan time.Time, 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr), kgo.ConsumeTopics(out), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if fs := cl.PollFetches(ctx); fs.NumRecords() > 0 {
				seen <- time.Now()
				return
			}
		}
	}()

	var before int64 // source records in, last seen before the restart
	var st statusDoc
	waitFor(t, "the restart and a checkpoint after it", func() bool {
		st = getStatus(t, addr)
		in, _ := st.sum("source")
		if in < before {
			t.Fatalf("records in went down from %d to %d (restarts %d)", before, in, st.Restarts)
		}
		if st.Restarts == 0 {
			before = in
		}
		return st.Restarts == 1 && st.State == "RUNNING" && strings.Count(stderr.String(), "checkpoint completed") >= 5
	})
	in, _ := st.sum("source")
	if in <= before {
		t.Errorf("records in %d after the restart, %d before: the count started again", in, before)
	}
	if _, delivered := st.sum("sink"); delivered == 0 || delivered > in {
		t.Errorf("sink records out %d (source in %d): want the acknowledged records", delivered, in)
	}
	var deprecation, restarting, failed int
	for _, e := range st.Recent {
		switch {
		case strings.Contains(e.Message, "option 'sink.semantic' is deprecated"):
			deprecation++
		case e.Message == "job failed; restarting":
			restarting++
		case e.Message == "job failed":
			failed++
		}
	}
	if deprecation != 1 || restarting != 1 || failed != 0 {
		t.Errorf("recent: %d deprecation warnings, %d restarts, %d failures; want 1, 1, 0: %+v", deprecation, restarting, failed, st.Recent)
	}
	if m := httpGet(t, "http://"+addr+"/metrics"); !strings.Contains(m, `streamsql_task_records_out_total{index="0",job="job",kind="sink",name="snk/snk"}`) {
		t.Errorf("/metrics lacks the sink's records out:\n%s", m)
	}
	// The log line of the first checkpoint that committed rows precedes
	// the moment a read_committed reader saw them.
	var firstSeen time.Time
	select {
	case firstSeen = <-seen:
	case <-ctx.Done():
		t.Fatal("no committed record within a minute")
	}
	m := regexp.MustCompile(`time=(\S+) level=INFO msg="checkpoint completed" job=job checkpoint=(\d+) [^\n]*new_committables=[1-9]`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no \"checkpoint completed\" line with committables:\n%s", stderr)
	}
	logged, err := time.Parse(time.RFC3339Nano, m[1])
	if err != nil {
		t.Fatal(err)
	}
	if logged.After(firstSeen) {
		t.Errorf("checkpoint %s was logged complete at %s, after its rows were visible at %s", m[2], logged, firstSeen)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitWithin(t, cmd, time.Minute, stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
}
