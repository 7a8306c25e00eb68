package kafka

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// The dead-letter crash tests run an exactly-once Kafka → Kafka SQL job
// whose source has 'scan.bad-record.policy' = 'dead-letter' in a child
// process (this test binary, re-executed as the role "dead-letter";
// crashtest), SIGKILL it at a failure point
// of the checkpoint protocol (or at a random moment), restart it until it
// finishes, and check with independent read_committed readers that every
// good record is in the sink once and every bad one (undecodable, or
// rejected for a NULL in the NOT NULL column) in the dead-letter topic
// once, byte for byte.

const dlPartitions = 4

// deadLetterJob describes the child's job; it travels in the environment.
type deadLetterJob struct {
	broker, name, dir, in, out, dlq string
	mode                            dlMode
	// scanParallelism is the source's parallelism ("": 2, as the sink's,
	// so that the pipeline runs chained).
	scanParallelism string
}

// dlMode is the way the dead letters go.
type dlMode string

const (
	// dlInSink: the sink writes the dead letters in its transactions; the
	// job keeps its checkpoints in files.
	dlInSink dlMode = "in-sink"
	// dlOffsetsInTxn: the same without checkpoint files: a group-offsets
	// source whose offsets the sink commits in its transactions, as the
	// dead letters.
	dlOffsetsInTxn dlMode = "offsets-in-transaction"
	// dlSeparate: the sink names the broker by another address, which the
	// planner cannot tell is the same cluster: the dead letters go through
	// the source's own dead-letter sink, in transactions of their own,
	// with checkpoint files.
	dlSeparate dlMode = "separate"
	// dlGraph: the rows go through a stateful operator (a deduplication
	// on (p, seq), over a hash exchange), so the pipeline runs as a graph
	// of tasks: the dead letters go through the source's own dead-letter
	// sink, in transactions of their own, with checkpoint files.
	dlGraph dlMode = "graph"
)

// ownTransactions reports whether the dead letters go in transactions of
// their own rather than in the sink's.
func (m dlMode) ownTransactions() bool { return m == dlSeparate || m == dlGraph }

func (j deadLetterJob) env() []string {
	return []string{"DL_BROKER=" + j.broker, "DL_JOB=" + j.name, "DL_DIR=" + j.dir,
		"DL_IN=" + j.in, "DL_OUT=" + j.out, "DL_DLQ=" + j.dlq, "DL_MODE=" + string(j.mode), "DL_SCANPAR=" + j.scanParallelism}
}

// otherSpelling returns addr with its host written another way
// (127.0.0.1 and localhost).
func otherSpelling(addr string) string {
	if h, ok := strings.CutPrefix(addr, "127.0.0.1:"); ok {
		return "localhost:" + h
	}
	if h, ok := strings.CutPrefix(addr, "localhost:"); ok {
		return "127.0.0.1:" + h
	}
	panic("cannot respell broker address " + addr)
}

func (j deadLetterJob) sql() string {
	start := `'scan.startup.mode' = 'earliest-offset'`
	if j.mode == dlOffsetsInTxn {
		start = `'scan.startup.mode' = 'group-offsets', 'properties.group.id' = '` + j.name + `-g', 'properties.auto.offset.reset' = 'earliest'`
	}
	scanPar := j.scanParallelism
	if scanPar == "" {
		scanPar = "2"
	}
	sinkBroker := j.broker
	if j.mode == dlSeparate {
		sinkBroker = otherSpelling(j.broker)
	}
	cols, query := "p BIGINT, seq BIGINT", "SELECT p, seq FROM src"
	if j.mode == dlGraph {
		cols = "p BIGINT, seq BIGINT, pt AS PROCTIME()"
		// The NULL p rows are filtered out: past the deduplication a row
		// is no single record's, and the sink's NOT NULL check would fail
		// the job rather than set a record aside.
		query = "SELECT p, seq FROM (SELECT p, seq, ROW_NUMBER() OVER (PARTITION BY p, seq ORDER BY pt) AS rn FROM src WHERE p IS NOT NULL) WHERE rn = 1"
	}
	return `SET 'execution.checkpointing.interval' = '30ms';
CREATE TABLE src (` + cols + `) WITH ('connector' = 'kafka', 'topic' = '` + j.in + `',
  'properties.bootstrap.servers' = '` + j.broker + `', 'properties.isolation.level' = 'read_committed',
  'properties.max.poll.records' = '8', ` + start + `, 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'scan.parallelism' = '` + scanPar + `',
  'scan.bad-record.policy' = 'dead-letter', 'scan.bad-record.dead-letter.topic' = '` + j.dlq + `');
CREATE TABLE snk (p BIGINT NOT NULL, seq BIGINT) WITH ('connector' = 'kafka', 'topic' = '` + j.out + `',
  'properties.bootstrap.servers' = '` + sinkBroker + `', 'key.format' = 'json', 'key.fields' = 'p', 'value.format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + j.name + `-out', 'sink.parallelism' = '2');
INSERT INTO snk ` + query + `;
`
}

// deadLetterChild runs the job with the faults of testkit.FaultsEnv; it
// exits 0 when the job finished.
func deadLetterChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "dead-letter child:", err); return 3 }
	j := deadLetterJob{broker: os.Getenv("DL_BROKER"), name: os.Getenv("DL_JOB"), dir: os.Getenv("DL_DIR"),
		in: os.Getenv("DL_IN"), out: os.Getenv("DL_OUT"), dlq: os.Getenv("DL_DLQ"), mode: dlMode(os.Getenv("DL_MODE")),
		scanParallelism: os.Getenv("DL_SCANPAR")}
	f, err := testkit.FaultsFromEnv()
	if err != nil {
		return fail(err)
	}
	var faults runtime.FaultInjector
	if f != nil {
		faults = f
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	set := map[string]string{"restart-strategy.type": "none", "execution.checkpointing.dir": filepath.Join(j.dir, "checkpoints")}
	if j.mode == dlOffsetsInTxn {
		// No checkpoint files at all: not even the default folder.
		delete(set, "execution.checkpointing.dir")
		set["execution.checkpointing.storage"] = "jobmanager"
	}
	jb, err := job.Compile(ctx, "dl.sql", j.sql(), job.Options{Registry: job.NewRegistry(), JobName: j.name,
		Set:     set,
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Testing: job.Testing{Faults: faults}})
	if err != nil {
		return fail(err)
	}
	if err := jb.Run(ctx); err != nil {
		return fail(err)
	}
	return 0
}

// exec runs the child with faults, SIGKILLed after killAfter when it is
// positive; killed reports a SIGKILL, err any other failure.
func (j deadLetterJob) exec(t *testing.T, faults string, killAfter time.Duration) (killed bool, stderr string, err error) {
	t.Helper()
	return crashtest.Exec(t, crashtest.Spec{Role: "dead-letter", Env: append(j.env(), testkit.FaultsEnv+"="+faults)}, killAfter)
}

func (j deadLetterJob) run(t *testing.T, faults string, killAfter time.Duration) (killed bool) {
	t.Helper()
	killed, stderr, err := j.exec(t, faults, killAfter)
	if err != nil {
		t.Fatalf("faults %q: %v\n%s", faults, err, stderr)
	}
	return killed
}

// dlInput is what produceDeadLetterInput wrote: the good rows' seqs per
// source partition (p = partition), and the bad records by
// "partition/offset".
type dlInput struct {
	good map[int64][]int64
	bad  map[string]*kgo.Record
	// nullP are the positions of bad whose record is JSON with a NULL p
	// (the rest are not JSON).
	nullP map[string]bool
}

// produceDeadLetterInput writes per records to each of the dlPartitions
// partitions of topic: record i of partition q is {"p":q,"seq":i}, except
// that every 7th is not JSON (with a key and headers) and every 11th has
// a NULL p, which the sink's NOT NULL column rejects.
func produceDeadLetterInput(t *testing.T, b kafkatest.Broker, topic string, per int) dlInput {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in := dlInput{good: map[int64][]int64{}, bad: map[string]*kgo.Record{}, nullP: map[string]bool{}}
	var recs []*kgo.Record
	var bad []*kgo.Record
	for q := range int32(dlPartitions) {
		for i := range per {
			r := &kgo.Record{Topic: topic, Partition: q}
			switch {
			case i%7 == 3:
				r.Key = []byte(fmt.Sprintf("k%d-%d", q, i))
				r.Value = []byte(fmt.Sprintf("not json %d/%d", q, i))
				r.Headers = []kgo.RecordHeader{{Key: "trace", Value: []byte(strconv.Itoa(i))}, {Key: "trace", Value: nil}}
				bad = append(bad, r)
			case i%11 == 5:
				r.Value = []byte(fmt.Sprintf(`{"p":null,"seq":%d}`, i))
				bad = append(bad, r)
			default:
				r.Value = []byte(fmt.Sprintf(`{"p":%d,"seq":%d}`, q, i))
				in.good[int64(q)] = append(in.good[int64(q)], int64(i))
			}
			recs = append(recs, r)
		}
	}
	cl := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for _, r := range bad {
		pos := strconv.Itoa(int(r.Partition)) + "/" + strconv.FormatInt(r.Offset, 10)
		in.bad[pos] = r
		in.nullP[pos] = bytes.HasPrefix(r.Value, []byte(`{"p":null`))
	}
	return in
}

// readCommitted reads every committed record of topic: it appends a
// sentinel to each partition (outside any transaction) and reads
// read_committed until it has seen all of them.
func readCommitted(t *testing.T, b kafkatest.Broker, topic string, partitions int32) []*kgo.Record {
	t.Helper()
	b.AwaitStable(t, topic)
	cl := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for p := range partitions {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Value: []byte("sentinel")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	isSentinel := func(r *kgo.Record) bool { return string(r.Value) == "sentinel" && r.Headers == nil }
	recs := b.Consume(t, topic, true, time.Minute, func(rs []*kgo.Record) bool {
		n := 0
		for _, r := range rs {
			if isSentinel(r) {
				n++
			}
		}
		return n == int(partitions)
	})
	var out []*kgo.Record
	sentinels := 0
	for _, r := range recs {
		if isSentinel(r) {
			sentinels++
			continue
		}
		out = append(out, r)
	}
	if sentinels != int(partitions) {
		t.Fatalf("topic %s: read %d of %d sentinels", topic, sentinels, partitions)
	}
	return out
}

// producerTxn identifies the transaction that wrote a record: its
// producer id and epoch (every transaction of a transactional id has an
// epoch of its own: a new producer below transaction version 2, a bumped
// epoch at each commit at 2).
type producerTxn struct {
	id    int64
	epoch int16
}

// verify checks the sink (every good row once, in order per source
// partition) and the dead-letter topic (every bad record once, byte for
// byte, with its position in the headers). Where the sink writes the dead
// letters (every mode but dlSeparate), it also checks that each committed
// dead letter came in a transaction that committed output rows too: the
// dead letters and the output of a checkpoint commit atomically. (Every
// batch of 8 records that holds a bad one holds good ones, so each dead
// letter's transaction has output.)
func (j deadLetterJob) verify(t *testing.T, b kafkatest.Broker, in dlInput) {
	t.Helper()
	seqs := map[int64][]int64{}
	outTxns := map[producerTxn]bool{}
	for _, r := range readCommitted(t, b, j.out, 2) {
		outTxns[producerTxn{r.ProducerID, r.ProducerEpoch}] = true
		var row struct{ P, Seq int64 }
		if err := json.Unmarshal(r.Value, &row); err != nil {
			t.Fatalf("sink record %q: %v", r.Value, err)
		}
		seqs[row.P] = append(seqs[row.P], row.Seq)
	}
	for q := range int64(dlPartitions) {
		got, want := seqs[q], in.good[q]
		if j.mode == dlGraph {
			// The hash exchange by (p, seq) keeps no order within p.
			slices.Sort(got)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("sink, source partition %d: %d rows, want %d exactly once in order (duplicates, loss or reordering)", q, len(got), len(want))
		}
	}
	seen := map[string]int{}
	withOutput, alone := 0, 0
	dead := readCommitted(t, b, j.dlq, 1)
	for _, r := range dead {
		pos := headerValue(r, HeaderDeadLetterPartition) + "/" + headerValue(r, HeaderDeadLetterOffset)
		seen[pos]++
		if outTxns[producerTxn{r.ProducerID, r.ProducerEpoch}] {
			withOutput++
		} else if !j.mode.ownTransactions() {
			if alone++; alone == 1 {
				t.Errorf("dead letter of %s committed in transaction (producer %d, epoch %d), which committed no output row: not atomic with its checkpoint's output",
					pos, r.ProducerID, r.ProducerEpoch)
			}
		}
		w, ok := in.bad[pos]
		if !ok {
			t.Errorf("dead letter for %s, which is no bad record", pos)
			continue
		}
		if seen[pos] == 1 && (!bytes.Equal(r.Key, w.Key) || (r.Key == nil) != (w.Key == nil) || !bytes.Equal(r.Value, w.Value) ||
			len(r.Headers) != len(w.Headers)+8) {
			t.Errorf("dead letter of %s: key %q value %q, %d headers; want key %q value %q, %d+8 headers", pos, r.Key, r.Value, len(r.Headers), w.Key, w.Value, len(w.Headers))
		}
	}
	for pos := range in.bad {
		if j.mode == dlGraph && in.nullP[pos] {
			// The query filters the row out (see sql).
			if seen[pos] != 0 {
				t.Errorf("record %s, which the query filters out, has %d dead letters", pos, seen[pos])
			}
			continue
		}
		if seen[pos] != 1 {
			t.Errorf("bad record %s: %d dead letters, want exactly 1", pos, seen[pos])
		}
	}
	if alone > 1 {
		t.Errorf("%d of %d dead letters committed in transactions without output", alone, len(dead))
	}
	if j.mode.ownTransactions() && withOutput > 0 {
		t.Errorf("%d dead letters share a transaction with the output, but mode %s writes them in transactions of their own", withOutput, j.mode)
	}
}

func newDLJob(t *testing.T, b kafkatest.Broker, mode dlMode) deadLetterJob {
	return deadLetterJob{broker: b.Addr, name: kafkatest.UniqueName(t), dir: t.TempDir(),
		in: b.Topic(t, dlPartitions), out: b.Topic(t, 2), dlq: b.Topic(t, 1), mode: mode}
}

// TestDeadLetterCrash SIGKILLs the job at the worst moments of the
// checkpoint protocol — after pre-commit (transactions complete, not
// committed), after the checkpoint is written (nothing committed), between
// the commits of the sink and of the dead-letter sink (separate), between
// the commits of the two sink tasks, after a commit whose acknowledgement
// is not durable — and restarts it: the sink holds every good record once
// and the dead-letter topic every bad one once, in each way the dead
// letters go. Without checkpoint files (dead letters and offsets in the
// sink's transactions) it runs on both transaction versions, and so does
// the stateful pipeline (a deduplication: a graph of tasks, its dead
// letters in transactions of their own), killed also while its state is
// written.
func TestDeadLetterCrash(t *testing.T) {
	brokers := kafkatest.RequireAll(t)
	// Each rule fires at the first to fifth checkpoint that reaches its
	// point (each sink task pre-commits and commits at every checkpoint
	// with work): the job reads 16,000 records in a few checkpoints of
	// 30 ms (8,000 sometimes took fewer than two once the record path got
	// cheaper: "the job finished before after-checkpoint-written@2").
	for _, tc := range []struct {
		mode    dlMode
		brokers []kafkatest.Broker
		rules   []string
	}{
		{dlSeparate, brokers[:1], []string{"after-pre-commit@5:kill", "after-checkpoint-written@2:kill", "between-sink-commits@1:kill", "after-commit@3:kill"}},
		// The final checkpoint of the ended input writes no state: the
		// state write is killed at the first periodic checkpoint's.
		{dlGraph, brokers, []string{"between-sink-commits@1:kill", "during-state-write@1:kill"}},
		{dlInSink, brokers[:1], []string{"after-pre-commit@3:kill", "after-checkpoint-written@2:kill", "after-commit@1:kill"}},
		{dlOffsetsInTxn, brokers, []string{"after-pre-commit@3:kill", "after-checkpoint-written@2:kill", "after-commit@1:kill"}},
	} {
		for _, b := range tc.brokers {
			for _, rule := range tc.rules {
				t.Run(fmt.Sprintf("%s/%s/%s", tc.mode, b.Name, rule), func(t *testing.T) {
					j := newDLJob(t, b, tc.mode)
					in := produceDeadLetterInput(t, b, j.in, 4000)
					if !j.run(t, rule, 0) {
						t.Fatalf("the job finished before %s", rule)
					}
					if j.run(t, "", 0) {
						t.Fatal("the restarted job was killed without a fault")
					}
					j.verify(t, b, in)
				})
			}
		}
	}
}

// TestDeadLetterRandomKillsSoak SIGKILLs the job at random moments on
// both transaction versions before letting it finish: a few kills in one
// round normally (dead letters and offsets in the sink's transactions on
// transaction version 2, in the sink's transactions with checkpoint files
// on 1), many in six rounds over every way the dead letters go with
// STREAMSQL_SOAK=1.
func TestDeadLetterRandomKillsSoak(t *testing.T) {
	// 10,000 records sometimes finished before the first kill (100-700 ms
	// after the start) once sinks ran chained; 30,000 and kills from 50 ms
	// keep a kill inside the job's run most times, extra rounds (below)
	// the rest.
	rounds, maxKills, minTotal, records := 1, 3, 1, 30000
	if os.Getenv("STREAMSQL_SOAK") == "1" {
		rounds, maxKills, minTotal, records = 6, 20, 10, 60000
	}
	modes := []dlMode{dlOffsetsInTxn, dlInSink, dlSeparate, dlGraph}
	for bi, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			total := 0
			// A round whose job finished before its first kill (the
			// record path got faster; a quiet machine) is followed by
			// another, up to three more, so that the kills still happen.
			for round := 0; round < rounds || (total < minTotal && round < rounds+3); round++ {
				j := newDLJob(t, b, modes[(round+bi)%len(modes)])
				in := produceDeadLetterInput(t, b, j.in, records)
				rng := crashtest.Rand(t, uint64(round))
				kills := 0
				for kills < maxKills && j.run(t, "", time.Duration(50+rng.IntN(450))*time.Millisecond) {
					kills++
				}
				if kills > 0 && j.run(t, "", 0) {
					t.Fatal("the job was killed without a fault")
				}
				t.Logf("round %d (%s): %d kills", round, j.mode, kills)
				total += kills
				j.verify(t, b, in)
			}
			if total < minTotal {
				t.Fatalf("only %d kills in %d rounds: the job finishes too fast to test recovery", total, rounds)
			}
		})
	}
}

// TestDeadLetterCrashUnchained is TestDeadLetterCrash's
// offsets-in-transaction case (no checkpoint files: offsets and dead
// letters in the sink's transactions) with three source tasks for two
// sink tasks, so that the pipeline is not chained and dead letters cross
// from source tasks to sink tasks that are not theirs; killed at failure
// points and at random moments.
func TestDeadLetterCrashUnchained(t *testing.T) {
	b := kafkatest.Require(t)
	for _, rule := range []string{"after-pre-commit@3:kill", "after-checkpoint-written@2:kill", "after-commit@1:kill", "random"} {
		t.Run(rule, func(t *testing.T) {
			j := newDLJob(t, b, dlOffsetsInTxn)
			j.scanParallelism = "3"
			// 2,000 records were all read before the third checkpoint
			// (and before a random kill) once the record path got faster;
			// 100,000 keep the job running past the kills.
			in := produceDeadLetterInput(t, b, j.in, 100000)
			finished := false
			if rule == "random" {
				rng := crashtest.Rand(t, 9)
				kills := 0
				for kills < 3 && !finished {
					if j.run(t, "", time.Duration(50+rng.IntN(400))*time.Millisecond) {
						kills++
					} else {
						finished = true
					}
				}
				if kills == 0 {
					t.Fatal("the job finished before the first kill: no SIGKILL was tested")
				}
			} else if !j.run(t, rule, 0) {
				t.Fatalf("the job finished before %s", rule)
			}
			if !finished && j.run(t, "", 0) {
				t.Fatal("the restarted job was killed without a fault")
			}
			j.verify(t, b, in)
		})
	}
}
