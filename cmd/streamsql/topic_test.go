package main

import (
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestDebeziumExampleOnEmbeddedBroker runs examples/sql/debezium_upsert.sql
// as its comment says, in a child process on the embedded broker with the
// change events the example ships (--load): both SELECTs print what
// debezium_upsert.expected holds (the changelog rows, and the upsert
// topic read back), and SIGTERM stops it with exit 0. Before --load the
// embedded run printed nothing: the topic was created empty.
func TestDebeziumExampleOnEmbeddedBroker(t *testing.T) {
	want, err := os.ReadFile("../../examples/sql/debezium_upsert.expected")
	if err != nil {
		t.Fatal(err)
	}
	wantLines := strings.Split(strings.TrimSpace(string(want)), "\n")
	cmd, stdout, stderr := runChild(t, nil, "run", "--embedded-kafka",
		"--load", "dbserver1.inventory.products=../../examples/data/debezium_upsert/dbserver1.inventory.products.jsonl", "../../examples/sql/debezium_upsert.sql")
	cmd.Env = withoutVar(cmd.Env, bootstrapVar)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rows := func() []string {
		var out []string
		for _, l := range strings.Split(stdout.String(), "\n") {
			if strings.Contains(l, "> +") || strings.Contains(l, "> -") {
				out = append(out, l)
			}
		}
		return out
	}
	deadline := time.Now().Add(time.Minute)
	for len(rows()) < len(wantLines) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitWithin(t, cmd, time.Minute, stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// The two queries' rows interleave; each query's keep their order.
	got := rows()
	for _, q := range []string{"1> ", "2> "} {
		of := func(lines []string) []string {
			return slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return !strings.HasPrefix(l, q) })
		}
		if g, w := of(got), of(wantLines); !slices.Equal(g, w) {
			t.Errorf("query %s printed\n  %s\nwant\n  %s\nstderr:\n%s", q, strings.Join(g, "\n  "), strings.Join(w, "\n  "), stderr)
		}
	}
	if !strings.Contains(stderr.String(), "records=6") {
		t.Errorf("no log line of the 6 records loaded:\n%s", stderr)
	}
}

// TestTopicLoadCommand runs 'streamsql topic load' in a child process
// against the real broker: the topic is created, and a read_committed
// reader finds the file's lines, then standard input's, in order.
func TestTopicLoadCommand(t *testing.T) {
	b := kafkatest.Require(t)
	topic := kafkatest.UniqueName(t)
	adm := b.Admin(t)
	t.Cleanup(func() { _, _ = adm.DeleteTopic(t.Context(), topic) })
	file := t.TempDir() + "/in.jsonl"
	if err := os.WriteFile(file, []byte("{\"id\":1}\n{\"id\":2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, stdout, stderr := runChild(t, nil, "topic", "load", "--bootstrap-servers", b.Addr, "--topic", topic, file, "-")
	cmd.Stdin = strings.NewReader("{\"id\":3}\n")
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr)
	}
	if want := "wrote 3 records to topic " + topic + "\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	got := kafkatest.Values(b.Consume(t, topic, true, time.Minute, func(r []*kgo.Record) bool { return len(r) >= 3 }))
	if want := []string{`{"id":1}`, `{"id":2}`, `{"id":3}`}; !slices.Equal(got, want) {
		t.Fatalf("topic holds %q, want %q", got, want)
	}
}

// TestLoadNeedsEmbeddedBroker: --load without --embedded-kafka is a usage
// error (exit 2) that points at 'streamsql topic load'; loading on every
// run of a job against a real cluster would write the records again.
func TestLoadNeedsEmbeddedBroker(t *testing.T) {
	job := writeJob(t, seededJob)
	var stdout, stderr syncBuffer
	code := execute([]string{"run", "--load", "t=f.jsonl", job}, &env{stdout: &stdout, stderr: &stderr})
	if code != 2 || !strings.Contains(stderr.String(), "streamsql topic load") {
		t.Fatalf("exit %d, stderr %q; want 2 naming 'streamsql topic load'", code, stderr.String())
	}
}
