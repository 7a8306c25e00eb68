package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// topNJob is a Top-N SQL job: the three highest values of each key of a
// bounded Kafka topic, kept up to date, written exactly once as a Debezium
// changelog keyed by the key (so that a key's changes stay in one Kafka
// partition, in order). %[1]s is the broker, %[2]s and %[3]s the topics,
// %[4]s the checkpoint folder, %[5]s the state backend.
const topNJob = `SET 'execution.checkpointing.interval' = '50ms';
SET 'execution.checkpointing.dir' = '%[4]s';
SET 'state.backend.type' = '%[5]s';
SET 'parallelism.default' = '2';
CREATE TABLE src (k BIGINT, v BIGINT, id BIGINT) WITH (
  'connector' = 'kafka', 'topic' = '%[2]s', 'properties.bootstrap.servers' = '%[1]s',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'properties.isolation.level' = 'read_committed', 'format' = 'json');
CREATE TABLE top3 (k BIGINT, rn BIGINT, v BIGINT, id BIGINT) WITH (
  'connector' = 'kafka', 'topic' = '%[3]s', 'properties.bootstrap.servers' = '%[1]s',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '%[6]s',
  'key.format' = 'json', 'key.fields' = 'k', 'value.format' = 'debezium-json');
INSERT INTO top3 SELECT k, rn, v, id FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn FROM src) WHERE rn <= 3;
`

// TestTopNExactlyOnceAcrossKills runs a Top-N job in child processes,
// SIGKILLs it at random moments while it works through its input (each
// time after at least one checkpoint, so that the next run restores the
// Top-N's state from it), and runs it again until it finishes; then an
// independent read_committed reader applies the committed changelog and
// checks it against a batch oracle: every retraction takes back a row the
// changelog inserted, and the table it leaves is the top three of each key
// over the whole input. Both state backends. STREAMSQL_SOAK=1 kills more.
func TestTopNExactlyOnceAcrossKills(t *testing.T) {
	b := kafkatest.Require(t)
	kills := 3
	if os.Getenv("STREAMSQL_SOAK") == "1" {
		kills = 25
	}
	for _, backend := range []string{"hashmap", "rocksdb"} {
		t.Run(backend, func(t *testing.T) {
			topNCrash(t, b, backend, kills)
		})
	}
}

type topNRow struct{ K, V, ID int64 }

func topNCrash(t *testing.T, b kafkatest.Broker, backend string, kills int) {
	stateHome(t)
	in, out := b.Topic(t, 4), b.Topic(t, 3)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 1))
	const n, keys = 150000, 40
	rows := make([]topNRow, n)
	cl := b.Client(t)
	for i := range rows {
		rows[i] = topNRow{K: rnd.Int64N(keys), V: rnd.Int64N(100000), ID: int64(i)}
		cl.Produce(context.Background(), &kgo.Record{Topic: in, Value: fmt.Appendf(nil, `{"k":%d,"v":%d,"id":%d}`, rows[i].K, rows[i].V, rows[i].ID)}, nil)
	}
	if err := cl.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	job := filepath.Join(dir, "topn.sql")
	if err := os.WriteFile(job, fmt.Appendf(nil, topNJob, b.Addr, in, out, filepath.Join(dir, "checkpoints"), backend, kafkatest.UniqueName(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	restored := 0
	for run := 0; ; run++ {
		cmd, _, stderr := runChild(t, nil, "run", job)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		if run < kills {
			// Kill it once it checkpointed, somewhere in its work (unless
			// it finished first).
			if err = killAfterCheckpoint(t, cmd, stderr, done, rnd); err != nil {
				t.Fatalf("run %d failed: %v; stderr:\n%s", run, err, stderr)
			}
		} else {
			err = <-done
		}
		if strings.Contains(stderr.String(), `msg="restoring checkpoint"`) {
			restored++
		}
		if run >= kills {
			if err != nil {
				t.Fatalf("the last run: %v; stderr:\n%s", err, stderr)
			}
			break
		}
	}
	if restored == 0 {
		t.Fatalf("no run restored a checkpoint: the kills came before any (or after the end), which proves nothing")
	}
	t.Logf("%d runs restored a checkpoint", restored)

	// The committed changelog, applied per Kafka partition in order.
	recs := b.Consume(t, out, true, 5*time.Second, func([]*kgo.Record) bool { return false })
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Partition != recs[j].Partition {
			return recs[i].Partition < recs[j].Partition
		}
		return recs[i].Offset < recs[j].Offset
	})
	type outRow struct{ K, Rn, V, ID int64 }
	table := map[outRow]int{}
	for _, r := range recs {
		var env struct {
			Before, After *outRow
			Op            string
		}
		if err := json.Unmarshal(r.Value, &env); err != nil {
			t.Fatalf("record %q: %v", r.Value, err)
		}
		switch {
		case env.Op == "c" && env.After != nil:
			table[*env.After]++
		case env.Op == "d" && env.Before != nil:
			if table[*env.Before] == 0 {
				t.Fatalf("%q retracts a row the committed changelog does not hold (partition %d offset %d)", r.Value, r.Partition, r.Offset)
			}
			table[*env.Before]--
		default:
			t.Fatalf("record %q: not a Debezium create or delete", r.Value)
		}
	}
	var got, want []string
	for row, c := range table {
		for range c {
			got = append(got, fmt.Sprint(row))
		}
	}
	byKey := map[int64][]topNRow{}
	for _, r := range rows {
		byKey[r.K] = append(byKey[r.K], r)
	}
	for k, rs := range byKey {
		slices.SortFunc(rs, func(a, b topNRow) int {
			if a.V != b.V {
				return int(b.V - a.V)
			}
			return int(a.ID - b.ID)
		})
		for i, r := range rs[:min(3, len(rs))] {
			want = append(want, fmt.Sprint(outRow{K: k, Rn: int64(i + 1), V: r.V, ID: r.ID}))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the committed Top-3 (%d rows from %d records) differs from the oracle (%d rows):\n got %v\nwant %v", len(got), len(recs), len(want), got, want)
	}
}

// killAfterCheckpoint waits for a child's first completed checkpoint,
// SIGKILLs it after a random short while, and returns its exit (nil when
// it finished before the kill).
func killAfterCheckpoint(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer, done chan error, rnd *rand.Rand) error {
	t.Helper()
	deadline := time.After(time.Minute)
	for !strings.Contains(stderr.String(), "checkpoint completed") {
		select {
		case err := <-done:
			return err
		case <-deadline:
			t.Fatalf("no checkpoint within a minute; stderr:\n%s", stderr)
		case <-time.After(5 * time.Millisecond):
		}
	}
	select {
	case err := <-done:
		return err
	case <-time.After(time.Duration(rnd.IntN(80)) * time.Millisecond):
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
	return nil
}
