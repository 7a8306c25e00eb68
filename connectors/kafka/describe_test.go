package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner"
)

// TestRestoredJobKeepsTransactionalIDs pins the one rule that derives an
// exactly-once sink's transactional-id prefix when the table sets none:
// "<job>-<table name>", the planner's rule since the first release. A
// restored job must find the transactions of its previous run under the
// same ids, so the planner's EXPLAIN, the options it hands the factory and
// the prefix the running sink uses must all be exactly this value — and a
// sink created outside the planner derives the same.
func TestRestoredJobKeepsTransactionalIDs(t *testing.T) {
	const want = "orders-job-big_orders" // golden: do not change
	if got := defaultTransactionalIDPrefix("orders-job", "big_orders"); got != want {
		t.Fatalf("DefaultTransactionalIDPrefix = %q, want %q", got, want)
	}
	text := `SET 'pipeline.name' = 'orders-job';
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'file:///tmp/cp';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json');
CREATE TABLE big_orders (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'big-orders',
  'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO big_orders SELECT * FROM src;`
	pl, err := planner.Compile(context.Background(), "job.sql", text, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sink := pl.Inserts[0].Sink
	if got := sink.Options["sink.transactional-id-prefix"]; got != want {
		t.Errorf("planner passes prefix %q to the factory, want %q", got, want)
	}
	if !strings.Contains(pl.String(), "transactional-id prefix: "+want+" (derived from job name and table)") {
		t.Errorf("EXPLAIN does not show the derived prefix %q:\n%s", want, pl)
	}
	pipes, err := job.Build(context.Background(), pl, job.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts, ok := pipes[0].Sinks[0].Sink.(*exactlyOnceSink)
	if !ok {
		t.Fatalf("sink is %T, want *TransactionalSink", pipes[0].Sinks[0].Sink)
	}
	if err := ts.resolvePrefix("orders-job"); err != nil || ts.TransactionalIDPrefix() != want {
		t.Errorf("the running sink uses prefix %q (%v), want %q", ts.TransactionalIDPrefix(), err, want)
	}

	// A sink created outside the planner, named as the planner names it.
	tbl := kafkaTable("sink.delivery-guarantee", "exactly-once")
	tbl.Name, tbl.ObjectName = "default_catalog.default_database.big_orders", "big_orders"
	s, _, err := factory.Default.CreateSink(context.Background(), tbl)
	if err != nil {
		t.Fatal(err)
	}
	ts = s.(*exactlyOnceSink)
	if err := ts.resolvePrefix("orders-job"); err != nil || ts.TransactionalIDPrefix() != want {
		t.Errorf("a sink created from a factory.Table derives %q (%v), want %q", ts.TransactionalIDPrefix(), err, want)
	}
}

// TestValidateTransactionTimeout: an error only when the timeout cannot
// cover one checkpoint interval plus the min pause; a warning when only a
// slow checkpoint outlives it; Flink's 600000 ms with a 10 s interval is
// accepted.
func TestValidateTransactionTimeout(t *testing.T) {
	job := func(interval, minPause, timeout time.Duration) factory.JobContext {
		return factory.JobContext{CheckpointInterval: interval, MinPause: minPause, CheckpointTimeout: timeout}
	}
	for _, tc := range []struct {
		name      string
		timeout   time.Duration
		job       factory.JobContext
		err, warn bool
	}{
		{"flink's example", 10 * time.Minute, job(10*time.Second, 0, 10*time.Minute), false, true},
		{"above interval + checkpoint timeout", 15 * time.Minute, job(time.Minute, 0, 10*time.Minute), false, false},
		{"equal to the interval", time.Minute, job(time.Minute, 0, 10*time.Minute), true, false},
		{"below interval + min pause", 65 * time.Second, job(10*time.Second, time.Minute, 30*time.Second), true, false},
		{"just above interval + min pause", 71 * time.Second, job(10*time.Second, time.Minute, 30*time.Second), false, true},
		{"no checkpointing", time.Second, job(0, 0, 10*time.Minute), false, false},
		{"broker's maximum", 0, job(time.Minute, 0, 10*time.Minute), false, false},
	} {
		warn, err := validateTransactionTimeout(tc.timeout, tc.job)
		if (err != nil) != tc.err || (warn != "") != tc.warn {
			t.Errorf("%s: warning %q, error %v; want warning %v, error %v", tc.name, warn, err, tc.warn, tc.err)
			continue
		}
		for _, msg := range []string{warn, errText(err)} {
			if msg != "" && !strings.Contains(msg, "'properties.transaction.timeout.ms'") {
				t.Errorf("%s: %q does not name the option", tc.name, msg)
			}
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDescribeKafka: what the factories declare about a table — the
// consumer group a source resumes from, the cluster whose offsets an
// exactly-once sink can commit, and the metadata types the planner used
// to keep in a table of its own.
func TestDescribeKafka(t *testing.T) {
	v, err := factory.Default.Validate(kafkaTable("scan.startup.mode", "group-offsets", "properties.group.id", "g",
		"properties.bootstrap.servers", "b:1, a:1"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := v.Describe(factory.AsSource)
	if err != nil {
		t.Fatal(err)
	}
	if info.ResumesFrom == nil || info.ResumesFrom.Group != "g" || info.ResumesFrom.System != clusterSystemID("a:1,b:1") || !info.ReadsUncommitted {
		t.Errorf("source info %+v", info)
	}
	// Without a group, or with another startup mode, there is nothing a
	// sink could commit to.
	for _, kv := range [][]string{{"scan.startup.mode", "group-offsets"}, {"properties.group.id", "g"}} {
		v, err := factory.Default.Validate(kafkaTable(kv...))
		if err != nil {
			t.Fatal(err)
		}
		if info, _ := v.Describe(factory.AsSource); info.ResumesFrom != nil {
			t.Errorf("%v: resumes from %+v", kv, info.ResumesFrom)
		}
	}
	v, err = factory.Default.Validate(kafkaTable("sink.delivery-guarantee", "exactly-once", "sink.transactional-id-prefix", "p",
		"properties.bootstrap.servers", "a:1,b:1"))
	if err != nil {
		t.Fatal(err)
	}
	if info, err = v.Describe(factory.AsSink); err != nil || info.Delivery != factory.ExactlyOnce ||
		info.CommitsPositionsOf != clusterSystemID("b:1,a:1") || len(info.Exclusive) != 1 {
		t.Errorf("sink info %+v, %v", info, err)
	}
	f := Factory()
	if got := f.ReadableMetadata["leader-epoch"]; got.NotNull {
		t.Errorf("leader-epoch is %s, want nullable", got)
	}
	if got := f.WritableMetadata["timestamp"]; got.NotNull || got.String() != "TIMESTAMP_LTZ(3)" {
		t.Errorf("writable timestamp is %s", got)
	}
	if len(f.ReadableMetadata) != 7 || len(f.WritableMetadata) != 3 {
		t.Errorf("metadata %v / %v", f.ReadableMetadata, f.WritableMetadata)
	}
}
