package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
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

// The projection crash test runs, in a child process (this test binary,
// re-executed as the role "chained"; crashtest), a job file a Flink SQL user could write: an exactly-once
// Kafka → Kafka INSERT whose WHERE drops most rows on a column it does
// not select and on a computed column, and that selects metadata columns
// (a 1:1 pipeline, chained, so projected decoding and chaining both
// apply); next to it, in the same job, an unchained UNION ALL of two
// other Kafka tables into a third sink. The child is SIGKILLed at failure
// points and at random moments and restarted; independent read_committed
// readers then check each output is exactly the expected multiset.

// chainJob describes the child's job; it travels in the environment.
type chainJob struct {
	broker, name, dir    string
	in, u1, u2, out, uni string
	// offsetsInTxn: no checkpoint files; the group-offsets sources'
	// offsets go in the sinks' transactions.
	offsetsInTxn bool
}

const chainPartitions = 3

func (j chainJob) env() []string {
	mode := "files"
	if j.offsetsInTxn {
		mode = "txn"
	}
	return []string{"CH_BROKER=" + j.broker, "CH_JOB=" + j.name, "CH_DIR=" + j.dir,
		"CH_TOPICS=" + strings.Join([]string{j.in, j.u1, j.u2, j.out, j.uni}, ","), "CH_MODE=" + mode}
}

func chainJobFromEnv() chainJob {
	ts := strings.Split(os.Getenv("CH_TOPICS")+",,,,", ",")
	return chainJob{broker: os.Getenv("CH_BROKER"), name: os.Getenv("CH_JOB"), dir: os.Getenv("CH_DIR"),
		in: ts[0], u1: ts[1], u2: ts[2], out: ts[3], uni: ts[4], offsetsInTxn: os.Getenv("CH_MODE") == "txn"}
}

func (j chainJob) sql() string {
	start := func(table string) string {
		if j.offsetsInTxn {
			return `'scan.startup.mode' = 'group-offsets', 'properties.group.id' = '` + j.name + `-` + table + `', 'properties.auto.offset.reset' = 'earliest'`
		}
		return `'scan.startup.mode' = 'earliest-offset'`
	}
	src := func(table, topic string) string {
		return `CREATE TABLE ` + table + ` (
  p BIGINT, seq BIGINT, tag STRING, pad STRING,
  k AS seq * 2,
  ` + "`partition`" + ` INT METADATA VIRTUAL,
  ` + "`offset`" + ` BIGINT METADATA VIRTUAL
) WITH ('connector' = 'kafka', 'topic' = '` + topic + `', 'properties.bootstrap.servers' = '` + j.broker + `',
  'properties.isolation.level' = 'read_committed', 'properties.max.poll.records' = '16',
  ` + start(table) + `, 'scan.bounded.mode' = 'latest-offset', 'format' = 'json', 'scan.parallelism' = '2');
`
	}
	sink := func(table, topic, cols string) string {
		return `CREATE TABLE ` + table + ` (` + cols + `) WITH ('connector' = 'kafka', 'topic' = '` + topic + `',
  'properties.bootstrap.servers' = '` + j.broker + `', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + j.name + `-` + table + `', 'sink.parallelism' = '2');
`
	}
	return `SET 'execution.checkpointing.interval' = '30ms';
` + src("src", j.in) + src("u1", j.u1) + src("u2", j.u2) +
		sink("out_f", j.out, "p BIGINT, seq BIGINT, k BIGINT, part INT, off BIGINT") +
		sink("out_u", j.uni, "src STRING, p BIGINT, seq BIGINT") + `
EXECUTE STATEMENT SET BEGIN
INSERT INTO out_f SELECT p, seq, k, ` + "`partition`, `offset`" + ` FROM src WHERE tag = 'keep' AND MOD(k, 3) = 0;
INSERT INTO out_u SELECT CAST('u1' AS STRING), p, seq FROM u1 UNION ALL SELECT CAST('u2' AS STRING), p, seq FROM u2 WHERE pad <> '';
END;
`
}

// chainChild runs the job with the faults of testkit.FaultsEnv; it exits 0
// when the job finished, having written the chained tasks (kind/name#index)
// to the file "chained" in the job's directory.
func chainChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "chained child:", err); return 3 }
	j := chainJobFromEnv()
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
	set := map[string]string{"restart-strategy.type": "none"}
	if !j.offsetsInTxn {
		set["execution.checkpointing.dir"] = filepath.Join(j.dir, "checkpoints")
	} else {
		// No checkpoint files at all: not even the default folder.
		set["execution.checkpointing.storage"] = "jobmanager"
	}
	sql := j.sql()
	if text := os.Getenv("CH_SQL"); text != "" {
		sql = text
	}
	jb, err := job.Compile(ctx, "chained.sql", sql, job.Options{Registry: job.NewRegistry(), JobName: j.name,
		Set:     set,
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Testing: job.Testing{Faults: faults}})
	if err != nil {
		return fail(err)
	}
	if err := jb.Run(ctx); err != nil {
		return fail(err)
	}
	var chained []string
	for _, ts := range jb.Status().Tasks {
		if ts.Chained {
			chained = append(chained, fmt.Sprintf("%s/%s#%d", ts.Kind, ts.Name, ts.Index))
		}
	}
	// A run that restores a checkpoint taken after every source ended
	// (the last run was killed as it finished) runs no task.
	if tasks := jb.Status().Tasks; len(tasks) > 0 {
		if err := os.WriteFile(filepath.Join(j.dir, "chained"), []byte(strings.Join(chained, ",")), 0o644); err != nil {
			return fail(err)
		}
	} else {
		fmt.Fprintln(os.Stderr, "chained child: no tasks ran")
	}
	return 0
}

// run runs the child with faults, SIGKILLed after killAfter when that is
// positive, and reports whether it died of SIGKILL; any other failure
// fails the test.
func (j chainJob) run(t *testing.T, faults string, killAfter time.Duration) (killed bool) {
	t.Helper()
	return runChainChild(t, append(j.env(), testkit.FaultsEnv+"="+faults), killAfter)
}

// runSQL is run for the job text sql (with checkpoint files in dir
// unless j.offsetsInTxn).
func (j chainJob) runSQL(t *testing.T, dir, name, sql, faults string, killAfter time.Duration) (killed bool) {
	t.Helper()
	mode := "files"
	if j.offsetsInTxn {
		mode = "txn"
	}
	return runChainChild(t, []string{"CH_DIR=" + dir, "CH_JOB=" + name, "CH_MODE=" + mode,
		"CH_SQL=" + sql, testkit.FaultsEnv + "=" + faults}, killAfter)
}

// runChainChild runs the child with env added, SIGKILLed after killAfter when
// that is positive, and reports whether it died of SIGKILL; any other
// failure fails the test.
func runChainChild(t *testing.T, env []string, killAfter time.Duration) (killed bool) {
	t.Helper()
	return crashtest.Run(t, crashtest.Spec{Role: "chained", Env: env}, killAfter)
}

// chainInput writes per records to each partition of the job's three input
// topics and returns the sorted lines each output must hold.
func (j chainJob) input(t *testing.T, b kafkatest.Broker, per int) (filtered, union []string) {
	t.Helper()
	var recs []*kgo.Record
	for ti, topic := range []string{j.in, j.u1, j.u2} {
		for q := range int32(chainPartitions) {
			for i := range per {
				tag, pad := "drop", strings.Repeat("x", 1+i%40)
				if i%4 == 1 {
					tag = "keep"
				}
				if i%9 == 0 {
					pad = ""
				}
				v := fmt.Sprintf(`{"p":%d,"seq":%d,"tag":%q,"pad":%q}`, q, i, tag, pad)
				recs = append(recs, &kgo.Record{Topic: topic, Partition: q, Value: []byte(v)})
				switch {
				case ti == 0 && tag == "keep" && (2*i)%3 == 0:
					// A fresh topic: the record's offset is i.
					filtered = append(filtered, fmt.Sprintf("%d/%d/%d/%d/%d", q, i, 2*i, q, i))
				case ti == 1:
					union = append(union, fmt.Sprintf("u1/%d/%d", q, i))
				case ti == 2 && pad != "":
					union = append(union, fmt.Sprintf("u2/%d/%d", q, i))
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(filtered)
	slices.Sort(union)
	return filtered, union
}

// verify reads both outputs read_committed and compares them, as sorted
// multisets, with what input expects.
func (j chainJob) verify(t *testing.T, b kafkatest.Broker, filtered, union []string) {
	t.Helper()
	var gotF, gotU []string
	for _, r := range readCommitted(t, b, j.out, 2) {
		var row struct {
			P, Seq, K, Off int64
			Part           int32
		}
		if err := json.Unmarshal(r.Value, &row); err != nil {
			t.Fatalf("out_f record %q: %v", r.Value, err)
		}
		gotF = append(gotF, fmt.Sprintf("%d/%d/%d/%d/%d", row.P, row.Seq, row.K, row.Part, row.Off))
	}
	for _, r := range readCommitted(t, b, j.uni, 2) {
		var row struct {
			Src    string
			P, Seq int64
		}
		if err := json.Unmarshal(r.Value, &row); err != nil {
			t.Fatalf("out_u record %q: %v", r.Value, err)
		}
		gotU = append(gotU, fmt.Sprintf("%s/%d/%d", row.Src, row.P, row.Seq))
	}
	for _, c := range []struct {
		name      string
		got, want []string
	}{{"filtered", gotF, filtered}, {"union", gotU, union}} {
		slices.Sort(c.got)
		if !slices.Equal(c.got, c.want) {
			missing, extra := multisetDiff(c.want, c.got), multisetDiff(c.got, c.want)
			t.Errorf("%s output: %d rows, want %d: %d missing (%q), %d extra or duplicated (%q)",
				c.name, len(c.got), len(c.want), len(missing), missing[:min(3, len(missing))], len(extra), extra[:min(3, len(extra))])
		}
	}
}

// multisetDiff returns the elements of a not matched by one in b.
func multisetDiff(a, b []string) []string {
	n := map[string]int{}
	for _, s := range b {
		n[s]++
	}
	var out []string
	for _, s := range a {
		if n[s] > 0 {
			n[s]--
			continue
		}
		out = append(out, s)
	}
	return out
}

// TestChainedProjectionCrash SIGKILLs the job above at failure points of
// the two-phase commit and at a random moment, with checkpoint files and
// without (offsets in the sinks' transactions), restarts it until it
// finishes, and checks both outputs hold exactly the expected rows.
func TestChainedProjectionCrash(t *testing.T) {
	b := kafkatest.Require(t)
	for _, offsetsInTxn := range []bool{false, true} {
		for _, rule := range []string{"after-pre-commit@3:kill", "after-checkpoint-written@2:kill", "after-commit@2:kill", "random"} {
			mode := "files"
			if offsetsInTxn {
				mode = "offsets-in-transaction"
			}
			t.Run(mode+"/"+rule, func(t *testing.T) {
				j := chainJob{broker: b.Addr, name: kafkatest.UniqueName(t), dir: t.TempDir(), offsetsInTxn: offsetsInTxn,
					in: b.Topic(t, chainPartitions), u1: b.Topic(t, chainPartitions), u2: b.Topic(t, chainPartitions),
					out: b.Topic(t, 2), uni: b.Topic(t, 2)}
				// The random kill comes 30-330 ms after the start: with
				// 1,000 records a partition the job may be done by then (it
				// got that fast), so that rule reads thirty times as many.
				// The failure points need the job to run a few 30 ms
				// checkpoint intervals: 1,000 records a partition ended
				// before the second checkpoint was written in 3 of 4 runs
				// of main at e54f3e0, so they read 10,000.
				per := 10000
				if rule == "random" {
					per = 30000
				}
				filtered, union := j.input(t, b, per)
				finished := false
				if rule == "random" {
					// Up to 3 kills; a run that is not killed finished the job.
					rng := crashtest.Rand(t, 3)
					kills := 0
					for kills < 3 && !finished {
						if j.run(t, "", time.Duration(30+rng.IntN(300))*time.Millisecond) {
							kills++
						} else {
							finished = true
						}
					}
					t.Logf("%d kills", kills)
					if kills == 0 {
						t.Fatal("the job finished before the first kill: no SIGKILL was tested")
					}
				} else if !j.run(t, rule, 0) {
					t.Fatalf("the job finished before %s", rule)
				}
				if !finished && j.run(t, "", 0) {
					t.Fatal("the restarted job was killed without a fault")
				}
				chained, err := os.ReadFile(filepath.Join(j.dir, "chained"))
				if rule == "random" && errors.Is(err, fs.ErrNotExist) {
					// The last kill came after the final checkpoint: the
					// restarted run had no task to run.
					t.Log("no run with tasks finished")
				} else if want := "source/out_f/src#0,source/out_f/src#1,sink/out_f/out_f#0,sink/out_f/out_f#1"; err != nil || string(chained) != want {
					t.Errorf("chained tasks of the restarted job: %q (%v), want the filtered INSERT's only: %s", chained, err, want)
				}
				j.verify(t, b, filtered, union)
			})
		}
	}
}

// upsertSQL is a job that copies an upsert-kafka table (updates and
// deletions per key) into another, exactly-once, through a filter on a
// column it does not write: a 1:1 pipeline, chained, whose source decodes
// only the key and the columns read.
func upsertSQL(broker, name, in, out string) string {
	return `SET 'execution.checkpointing.interval' = '30ms';
CREATE TABLE usrc (id BIGINT, v BIGINT, note STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'topic' = '` + in + `', 'properties.bootstrap.servers' = '` + broker + `', 'properties.isolation.level' = 'read_committed',
  'properties.max.poll.records' = '16', 'scan.bounded.mode' = 'latest-offset',
  'key.format' = 'json', 'value.format' = 'json', 'scan.parallelism' = '2');
CREATE TABLE usnk (id BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'topic' = '` + out + `', 'properties.bootstrap.servers' = '` + broker + `', 'key.format' = 'json', 'value.format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + name + `', 'sink.parallelism' = '2');
INSERT INTO usnk SELECT id, v FROM usrc WHERE note <> 'skip';
`
}

// TestChainedUpsertCrash SIGKILLs the chained exactly-once upsert-kafka
// copy above at failure points and at random moments (with checkpoint
// files), restarts it until it finishes, and checks that its committed
// output, read read_committed, is per key exactly the changelog that an
// uninterrupted run of the same job writes (nothing lost, nothing twice).
func TestChainedUpsertCrash(t *testing.T) {
	b := kafkatest.Require(t)
	in := b.Topic(t, chainPartitions)
	ref := b.Topic(t, 2)
	var recs []*kgo.Record
	// 60,000 records: over 20,000 the job could end before its third
	// checkpoint (30 ms apart) once it got fast enough.
	for i := range 60000 {
		id := int64(i % 997)
		r := &kgo.Record{Topic: in, Key: fmt.Appendf(nil, `{"id":%d}`, id)}
		switch {
		case i%13 == 4:
			// a deletion (tombstone)
		case i%5 == 2:
			r.Value = fmt.Appendf(nil, `{"id":%d,"v":%d,"note":"skip"}`, id, i)
		default:
			r.Value = fmt.Appendf(nil, `{"id":%d,"v":%d,"note":"n%d"}`, id, i, i%7)
		}
		recs = append(recs, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.Client(t).ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	runUpsert := func(t *testing.T, name, dir, out, faults string, killAfter time.Duration) bool {
		t.Helper()
		return chainJob{}.runSQL(t, dir, name, upsertSQL(b.Addr, name, in, out), faults, killAfter)
	}
	start := time.Now()
	if runUpsert(t, kafkatest.UniqueName(t), t.TempDir(), ref, "", 0) {
		t.Fatal("the reference run was killed")
	}
	// The random rule kills within the first 60 % of the reference run's
	// time: a fixed window (it was 20-320 ms) outlived the whole job once
	// it got fast enough, and no SIGKILL was tested.
	refTime := time.Since(start)
	want := upsertChangelog(t, b, ref)
	if len(want) < 500 {
		t.Fatalf("the reference run wrote only %d keys", len(want))
	}
	for _, rule := range []string{"after-pre-commit@3:kill", "after-checkpoint-written@2:kill", "after-commit@2:kill", "random"} {
		t.Run(rule, func(t *testing.T) {
			name, dir, out := kafkatest.UniqueName(t), t.TempDir(), b.Topic(t, 2)
			finished := false
			if rule == "random" {
				rng := crashtest.Rand(t, 5)
				kills := 0
				// A run under load can take half the reference run's time
				// or twice it: when one ends before its first kill, the
				// next attempt starts afresh (new output, new checkpoints)
				// with half the window.
				window := refTime
				for attempt := 0; kills == 0 && attempt < 4; attempt++ {
					if attempt > 0 {
						name, dir, out, finished = kafkatest.UniqueName(t), t.TempDir(), b.Topic(t, 2), false
						window /= 2
						t.Logf("the job finished before its first kill; again within %v", window*12/20)
					}
					for kills < 3 && !finished {
						if runUpsert(t, name, dir, out, "", window/20+time.Duration(rng.Int64N(int64(window*11/20)))) {
							kills++
						} else {
							finished = true
						}
					}
				}
				t.Logf("%d kills", kills)
				if kills == 0 {
					t.Fatal("the job finished before the first kill: no SIGKILL was tested")
				}
			} else if !runUpsert(t, name, dir, out, rule, 0) {
				t.Fatalf("the job finished before %s", rule)
			}
			if !finished && runUpsert(t, name, dir, out, "", 0) {
				t.Fatal("the restarted job was killed without a fault")
			}
			if chained, err := os.ReadFile(filepath.Join(dir, "chained")); rule == "random" && errors.Is(err, fs.ErrNotExist) {
				t.Log("no run with tasks finished") // killed after the final checkpoint
			} else if err != nil || !strings.Contains(string(chained), "sink/usnk/usnk#0") {
				t.Errorf("chained tasks of the last run: %q (%v), want the copy's", chained, err)
			}
			got := upsertChangelog(t, b, out)
			for id, w := range want {
				if g := got[id]; !slices.Equal(g, w) {
					t.Errorf("key %s: committed changelog %q, want %q (the uninterrupted run's)", id, g, w)
				}
			}
			for id := range got {
				if _, ok := want[id]; !ok {
					t.Errorf("key %s written, but not by the uninterrupted run", id)
				}
			}
		})
	}
}

// upsertChangelog reads topic read_committed and returns each key's
// values in order ("<nil>" for a deletion).
func upsertChangelog(t *testing.T, b kafkatest.Broker, topic string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, r := range readCommitted(t, b, topic, 2) {
		v := "<nil>"
		if r.Value != nil {
			v = string(r.Value)
		}
		out[string(r.Key)] = append(out[string(r.Key)], v)
	}
	return out
}
