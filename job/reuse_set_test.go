package job_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/runtime"
)

// statementSetJob splits one Kafka topic into two exactly-once Kafka
// sinks with a statement set: as in Flink, the two INSERTs read the
// table once.
const statementSetJob = `CREATE TABLE src (k BIGINT, v BIGINT) WITH ('connector' = 'kafka', 'topic' = '%[1]s',
  'properties.bootstrap.servers' = '%[4]s', 'properties.group.id' = '%[5]s', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE evens (k BIGINT, v BIGINT) WITH ('connector' = 'kafka', 'topic' = '%[2]s', 'properties.bootstrap.servers' = '%[4]s',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '%[5]s-evens');
CREATE TABLE odds (k BIGINT, v BIGINT) WITH ('connector' = 'kafka', 'topic' = '%[3]s', 'properties.bootstrap.servers' = '%[4]s',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '%[5]s-odds');
EXECUTE STATEMENT SET BEGIN
INSERT INTO evens SELECT k, v FROM src WHERE MOD(v, 2) = 0;
INSERT INTO odds SELECT k, v FROM src WHERE MOD(v, 2) = 1;
END;`

// TestStatementSetSharesScan runs a statement set of two stateless
// INSERTs over one table of the real broker: the plan reads the table
// once (one source vertex feeding both INSERTs), each exactly-once sink
// gets exactly its rows once (read_committed), and the consumer group's
// positions end at the topic's end — committed by the one scan, not by two
// readers overwriting each other. Running only the second pipeline keeps
// the shared scan, which the first pipeline's id names. Without source
// reuse each INSERT reads the table itself, as before.
func TestStatementSetSharesScan(t *testing.T) {
	b := kafkatest.Require(t)
	in, evens, odds := b.Topic(t, 2), b.Topic(t, 1), b.Topic(t, 1)
	cl := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	const n = 300
	var recs []*kgo.Record
	var wantEvens, wantOdds []string
	for i := range n {
		v := fmt.Sprintf(`{"k":%d,"v":%d}`, i%5, i)
		recs = append(recs, &kgo.Record{Topic: in, Partition: int32(i % 2), Value: []byte(v)})
		if i%2 == 0 {
			wantEvens = append(wantEvens, v)
		} else {
			wantOdds = append(wantOdds, v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	run := func(set map[string]string, pipelines []string, sources int) {
		t.Helper()
		group := kafkatest.UniqueName(t)
		text := fmt.Sprintf(statementSetJob, in, evens, odds, b.Addr, group)
		settings := map[string]string{"execution.checkpointing.dir": t.TempDir(), "execution.checkpointing.interval": "200ms"}
		for k, v := range set {
			settings[k] = v
		}
		j, err := job.Compile(ctx, "split.sql", text, job.Options{Set: settings, Logger: quiet, Pipelines: pipelines})
		if err != nil {
			t.Fatal(err)
		}
		var ex strings.Builder
		if err := j.Explain(&ex); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Count(ex.String(), "Source: src: reused, the scan above"), 2-sources; got != want {
			t.Fatalf("EXPLAIN says the scan is reused %d times, want %d:\n%s", got, want, ex.String())
		}
		if err := j.Run(ctx); err != nil {
			t.Fatal(err)
		}
		st := j.Status()
		var scans []string
		for _, ts := range st.Tasks {
			if ts.Kind == runtime.SourceTask && !slices.Contains(scans, ts.Name) {
				scans = append(scans, ts.Name)
			}
		}
		if len(scans) != sources {
			t.Errorf("scans %q, want %d", scans, sources)
		}
		// The group's positions are the topic's end: the scan committed
		// them after the final checkpoint's commits.
		offs, err := b.Admin(t).FetchOffsets(ctx, group)
		if err != nil {
			t.Fatal(err)
		}
		for p := range int32(2) {
			o, ok := offs.Lookup(in, p)
			if !ok || o.At != n/2 {
				t.Errorf("group %s, partition %d: committed %v (%v), want %d", group, p, o.At, ok, n/2)
			}
		}
	}
	check := func(topic string, want []string) {
		t.Helper()
		got := kafkatest.Values(b.Consume(t, topic, true, time.Minute, func(r []*kgo.Record) bool { return len(r) >= len(want) }))
		// A moment more for a duplicate to show.
		got = append(got, kafkatest.Values(b.Consume(t, topic, true, time.Second, func(r []*kgo.Record) bool { return false }))[len(got):]...)
		slices.Sort(got)
		w := slices.Clone(want)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Fatalf("topic %s: %d records, want %d (each once)", topic, len(got), len(w))
		}
	}
	run(nil, nil, 1)
	check(evens, wantEvens)
	check(odds, wantOdds)
	// Only the second pipeline: the shared scan feeds it alone.
	run(nil, []string{"odds"}, 1)
	check(odds, append(slices.Clone(wantOdds), wantOdds...))
	check(evens, wantEvens)
	// Without source reuse: a scan per INSERT.
	run(map[string]string{planner.SettingReuseSource: "false"}, nil, 2)
	check(evens, append(slices.Clone(wantEvens), wantEvens...))
}
