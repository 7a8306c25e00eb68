package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// The runtime crash tests run a job — a deterministic source
// (testkit.SeqSource: rows (p, seq)) feeding three factory-created Kafka
// sinks — in a child process (this test binary, re-executed as the role
// "three-sinks"; crashtest), which the
// runtime's fault injector SIGKILLs at a failure point of the checkpoint
// protocol. A second child restarts the job from its checkpoint and runs
// it to the end. An independent read_committed reader then checks each
// output topic.

// rtJob describes the child's job; it is passed in the environment.
type rtJob struct {
	broker, job, dir, guarantee string
	naming                      string // sink.transaction-naming-strategy; "": the default
	txnTimeout                  string // properties.transaction.timeout.ms; "": the default
	retention                   string // jobconfig.Retention as a number; "": RETAIN_ON_CANCELLATION
	topics                      [3]string
	per                         int64
	// chained gives each sink a pipeline of its own (the same source
	// table read three times), so that its tasks run chained with the
	// source's; the child then writes how many of its tasks its status
	// showed chained to <dir>/tasks ("chained/all").
	chained bool
}

const rtPartitions = 4

func (j rtJob) env() []string {
	return []string{"RT_BROKER=" + j.broker, "RT_JOB=" + j.job, "RT_DIR=" + j.dir,
		"RT_GUARANTEE=" + j.guarantee, "RT_NAMING=" + j.naming, "RT_TXN_TIMEOUT=" + j.txnTimeout, "RT_RETENTION=" + j.retention, "RT_TOPIC_A=" + j.topics[0], "RT_TOPIC_B=" + j.topics[1], "RT_TOPIC_C=" + j.topics[2],
		"RT_PER=" + strconv.FormatInt(j.per, 10), "RT_CHAINED=" + strconv.FormatBool(j.chained)}
}

func rtJobFromEnv() (rtJob, error) {
	per, err := strconv.ParseInt(os.Getenv("RT_PER"), 10, 64)
	return rtJob{broker: os.Getenv("RT_BROKER"), job: os.Getenv("RT_JOB"), dir: os.Getenv("RT_DIR"),
		guarantee: os.Getenv("RT_GUARANTEE"), naming: os.Getenv("RT_NAMING"), txnTimeout: os.Getenv("RT_TXN_TIMEOUT"), retention: os.Getenv("RT_RETENTION"), topics: [3]string{os.Getenv("RT_TOPIC_A"), os.Getenv("RT_TOPIC_B"), os.Getenv("RT_TOPIC_C")}, per: per,
		chained: os.Getenv("RT_CHAINED") == "true"}, err
}

// table is output table i (0: kafka with an explicit transactional-id
// prefix, 1: kafka with a derived one, 2: upsert-kafka with PRIMARY KEY
// p), keyed by the source partition p so that each p's rows stay in one
// Kafka partition, in order.
func (j rtJob) table(i int) factory.Table {
	opts := map[string]string{"connector": "kafka", "topic": j.topics[i], "properties.bootstrap.servers": j.broker,
		"key.format": "json", "key.fields": "p", "value.format": "json", "sink.delivery-guarantee": j.guarantee,
		"scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset", "properties.isolation.level": "read_committed"}
	if j.naming != "" {
		opts["sink.transaction-naming-strategy"] = j.naming
	}
	if j.txnTimeout != "" {
		opts["properties.transaction.timeout.ms"] = j.txnTimeout
	}
	var pk []string
	switch i {
	case 0:
		opts["sink.transactional-id-prefix"] = j.job + "-explicit"
	case 2:
		opts["connector"] = "upsert-kafka"
		delete(opts, "key.fields")
		delete(opts, "scan.startup.mode")
		pk = []string{"p"}
	}
	return factory.Table{Name: fmt.Sprintf("cat.db.out_%d", i), Options: opts, Schema: factory.Schema{Columns: []factory.Column{
		{Name: "p", Type: types.BigInt()}, {Name: "seq", Type: types.BigInt()}}, PrimaryKey: pk}}
}

// spec is the child's job.
func (j rtJob) spec(faults runtime.FaultInjector, log *slog.Logger) (runtime.JobSpec, error) {
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 30 * time.Millisecond
	cfg.Checkpoint.Dir = filepath.Join(j.dir, "checkpoints")
	cfg.Checkpoint.Retention = jobconfig.RetainOnCancellation
	if j.retention != "" {
		n, err := strconv.Atoi(j.retention)
		if err != nil {
			return runtime.JobSpec{}, fmt.Errorf("RT_RETENTION: %w", err)
		}
		cfg.Checkpoint.Retention = jobconfig.Retention(n)
	}
	cfg.Restart.Strategy = jobconfig.RestartNone
	source := func() []runtime.SourceSpec {
		return []runtime.SourceSpec{{Name: "seq", Parallelism: 2,
			Source: &testkit.SeqSource{Partitions: rtPartitions, PerPartition: j.per, Batch: 16, Delay: 2 * time.Millisecond}}}
	}
	p := runtime.Pipeline{Name: "main", Sources: source()}
	var ps []runtime.Pipeline
	for i := range len(j.topics) {
		sink, _, err := factory.Default.CreateSink(context.Background(), j.table(i))
		if err != nil {
			return runtime.JobSpec{}, err
		}
		s := runtime.SinkSpec{Name: fmt.Sprintf("out_%d", i), Sink: sink, Parallelism: 2}
		if j.chained {
			ps = append(ps, runtime.Pipeline{Name: fmt.Sprintf("main-%d", i), Sources: source(), Sinks: []runtime.SinkSpec{s}})
			continue
		}
		p.Sinks = append(p.Sinks, s)
	}
	if !j.chained {
		ps = []runtime.Pipeline{p}
	}
	return runtime.JobSpec{Name: j.job, Config: cfg, Pipelines: ps, Logger: log, Faults: faults}, nil
}

// threeSinksChild runs the job with the faults of testkit.FaultsEnv; it exits
// 0 when the job finished.
func threeSinksChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "runtime child:", err); return 3 }
	j, err := rtJobFromEnv()
	if err != nil {
		return fail(err)
	}
	f, err := testkit.FaultsFromEnv()
	if err != nil {
		return fail(err)
	}
	var faults runtime.FaultInjector
	if f != nil {
		faults = f
	}
	spec, err := j.spec(faults, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	if err != nil {
		return fail(err)
	}
	job, err := runtime.NewJob(spec)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := job.Run(ctx); err != nil {
		return fail(err)
	}
	if j.chained && len(job.Status().Tasks) > 0 {
		// A run that restored a checkpoint taken after the sources ended
		// (the previous child was killed as it finished) runs no task.
		chained, all := 0, 0
		for _, ts := range job.Status().Tasks {
			all++
			if ts.Chained {
				chained++
			}
		}
		if err := os.WriteFile(filepath.Join(j.dir, "tasks"), fmt.Appendf(nil, "%d/%d", chained, all), 0o644); err != nil {
			return fail(err)
		}
	}
	return 0
}

// runChild runs the child with faults and reports whether it died of
// SIGKILL; any other failure fails the test.
func (j rtJob) runChild(t *testing.T, faults string) (killed bool) {
	t.Helper()
	return j.runChildKilledAfter(t, faults, 0)
}

// runChildKilledAfter is runChild, with a SIGKILL after killAfter when it
// is positive.
func (j rtJob) runChildKilledAfter(t *testing.T, faults string, killAfter time.Duration) (killed bool) {
	t.Helper()
	killed, _, err := j.exec(t, faults, killAfter)
	if err != nil {
		t.Fatalf("faults %q: %v", faults, err)
	}
	return killed
}

// exec runs the child; err is its failure other than a SIGKILL.
func (j rtJob) exec(t *testing.T, faults string, killAfter time.Duration) (killed bool, stderr string, err error) {
	t.Helper()
	return crashtest.Exec(t, crashtest.Spec{Role: "three-sinks", Env: append(j.env(), testkit.FaultsEnv+"="+faults)}, killAfter)
}

// verify reads output table i read_committed and checks that it holds
// every input row — exactly once and in order per source partition under
// exactly-once, at least once otherwise. The upsert table's changelog
// (INSERT then UPDATE_AFTERs per key) must also end with each key's last
// row.
func (j rtJob) verify(t *testing.T, i int) {
	t.Helper()
	kafkatest.Broker{Addr: j.broker}.AwaitStable(t, j.topics[i])
	rows, _, err := readTable(t, j.table(i))
	if err != nil {
		t.Fatal(err)
	}
	seqs := make([][]int64, rtPartitions)
	if i == 2 {
		last := map[int64]int64{}
		for _, r := range rows {
			p := r.Fields[0].Int64()
			_, present := last[p]
			if r.Kind != types.UpdateAfter && (r.Kind != types.Insert || present) {
				t.Fatalf("upsert table: %v row for key %d (present: %v)", r.Kind, p, present)
			}
			last[p] = r.Fields[1].Int64()
		}
		for p := range int64(rtPartitions) {
			if last[p] != j.per-1 {
				t.Errorf("upsert table: key %d holds %d, want %d", p, last[p], j.per-1)
			}
		}
	}
	for _, r := range rows {
		p := r.Fields[0].Int64()
		if p < 0 || p >= rtPartitions {
			t.Fatalf("row of partition %d", p)
		}
		seqs[p] = append(seqs[p], r.Fields[1].Int64())
	}
	for p, got := range seqs {
		if j.guarantee == "exactly-once" {
			if int64(len(got)) != j.per {
				t.Errorf("table %d, partition %d: %d rows, want %d exactly once", i, p, len(got), j.per)
			}
			for k, s := range got {
				if s != int64(k) {
					t.Errorf("table %d, partition %d: row %d is seq %d (duplicate, loss or reordering)", i, p, k, s)
					break
				}
			}
			continue
		}
		seen := make([]bool, j.per)
		for _, s := range got {
			if s >= 0 && s < j.per {
				seen[s] = true
			}
		}
		for s, ok := range seen {
			if !ok {
				t.Errorf("table %d, partition %d: seq %d lost", i, p, s)
				break
			}
		}
	}
}

// TestRuntimeCrash SIGKILLs a job writing three Kafka sinks (kafka twice,
// upsert-kafka) at the runtime's
// failure points — between pre-commit and commit, after the checkpoint is
// written, between the two sinks' commits, after a commit whose
// acknowledgement is not durable — restarts it, and checks the output on
// both brokers: exactly once and in order under exactly-once (which also
// shows that the killed run's lingering transactions do not hold back
// read_committed readers), nothing lost under at-least-once.
func TestRuntimeCrash(t *testing.T) {
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			for _, tc := range []struct {
				guarantee string
				point     runtime.FaultPoint
				naming    string
			}{
				{"exactly-once", runtime.AfterPreCommit, ""},
				{"exactly-once", runtime.AfterCheckpointWritten, ""},
				{"exactly-once", runtime.BetweenSinkCommits, ""},
				{"exactly-once", runtime.AfterCommit, ""},
				{"exactly-once", runtime.AfterCommit, "INCREMENTING"},
				{"at-least-once", runtime.AfterPreCommit, ""},
				{"at-least-once", runtime.AfterCheckpointWritten, ""},
			} {
				t.Run(tc.guarantee+"/"+string(tc.point)+tc.naming, func(t *testing.T) {
					j := rtJob{broker: b.Addr, job: kafkatest.UniqueName(t), dir: t.TempDir(), guarantee: tc.guarantee, naming: tc.naming,
						topics: [3]string{b.Topic(t, 3), b.Topic(t, 3), b.Topic(t, 2)}, per: 400}
					rule := fmt.Sprintf("%s@3:kill", tc.point)
					if !j.runChild(t, rule) {
						t.Fatalf("the job finished before %s", rule)
					}
					if j.runChild(t, "") {
						t.Fatal("the restarted job was killed without a fault")
					}
					for i := range len(j.topics) {
						j.verify(t, i)
					}
				})
			}
		})
	}
}

// TestRuntimeFinishedRestart runs an exactly-once job with the default
// retention (its checkpoints are deleted when it finishes) to the end in a
// child process, then starts it again as a supervisor does after a SIGKILL
// between that deletion and the exit (issue 15: the files on disk are the
// same). The restart must write nothing: a read_committed reader sees each
// row once.
func TestRuntimeFinishedRestart(t *testing.T) {
	b := kafkatest.Require(t)
	j := rtJob{broker: b.Addr, job: kafkatest.UniqueName(t), dir: t.TempDir(), guarantee: "exactly-once",
		retention: strconv.Itoa(int(jobconfig.NoExternalizedCheckpoints)),
		topics:    [3]string{b.Topic(t, 3), b.Topic(t, 3), b.Topic(t, 2)}, per: 200}
	for run := range 2 {
		if j.runChild(t, "") {
			t.Fatalf("run %d was killed without a fault", run+1)
		}
	}
	for i := range len(j.topics) {
		j.verify(t, i)
	}
}

// TestRuntimeLostCommit kills the job after a checkpoint is written and
// before its commits, lets the broker abort the pre-committed transactions
// (their timeout, 10 s, expires), and restarts the job: it fails loudly with
// the lost commit, every time, instead of going on without the data. The
// timeout must also cover the first run up to the kill: 3 s was once too
// short on a heavily loaded machine (the broker aborted checkpoint 1's
// transaction before its pre-commit, and under transaction version 1 that
// abort fences the producer: INVALID_PRODUCER_EPOCH), and 6 s too once the
// runtime fails over at 4/5 of the timeout of an open transaction (the
// first checkpoint once took 4.8 s).
func TestRuntimeLostCommit(t *testing.T) {
	t.Parallel()
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			j := rtJob{broker: b.Addr, job: kafkatest.UniqueName(t), dir: t.TempDir(), guarantee: "exactly-once", txnTimeout: "10000",
				topics: [3]string{b.Topic(t, 3), b.Topic(t, 3), b.Topic(t, 2)}, per: 400}
			if !j.runChild(t, string(runtime.AfterCheckpointWritten)+"@2:kill") {
				t.Fatal("the job finished before the failure point")
			}
			// The killed run never committed the latest checkpoint's own
			// transactions: every sink that has one must be named.
			store, err := checkpoint.OpenDir(filepath.Join(j.dir, "checkpoints"), j.job)
			if err != nil {
				t.Fatal(err)
			}
			md, err := store.Latest()
			if err != nil || md == nil {
				t.Fatalf("latest checkpoint: %v", err)
			}
			lostSinks := map[string]bool{}
			for _, c := range md.Pending {
				if c.Checkpoint == md.ID {
					lostSinks[c.Sink] = true
				}
			}
			waitNoOpenTransactions(t, b, j.job)
			for attempt := range 2 {
				killed, stderr, err := j.exec(t, "", 0)
				if killed || err == nil {
					t.Fatalf("attempt %d: the restarted job did not fail (killed %v)", attempt, killed)
				}
				for _, want := range []string{"lost committable", j.job, "aborted by the broker", "acknowledge the loss"} {
					if !strings.Contains(stderr, want) {
						t.Errorf("attempt %d: the failure does not mention %q:\n%s", attempt, want, stderr)
					}
				}
				// Recovery goes on past the first lost commit: every sink's
				// lost transactions are named, not just the first one.
				if len(lostSinks) < 2 {
					t.Fatalf("checkpoint %d has transactions of %d sinks; the test needs several", md.ID, len(lostSinks))
				}
				for sink := range lostSinks {
					if want := fmt.Sprintf(`sink %q lost committable`, sink); !strings.Contains(stderr, want) {
						t.Errorf("attempt %d: the failure does not name %s:\n%s", attempt, want, stderr)
					}
				}
			}
		})
	}
}

// waitNoOpenTransactions waits until no transaction of the job's ids is
// open or aborting: the broker aborted them by timeout.
func waitNoOpenTransactions(t *testing.T, b kafkatest.Broker, job string) {
	t.Helper()
	adm := b.Admin(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	for {
		list, err := adm.ListTransactions(context.Background(), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		open := 0
		for _, tx := range list.Sorted() {
			if strings.HasPrefix(tx.TxnID, job) && (tx.State == "Ongoing" || tx.State == "PrepareAbort" || tx.State == "PrepareCommit") {
				open++
			}
		}
		if open == 0 {
			return
		}
		select {
		case <-ctx.Done():
			for _, tx := range list.Sorted() {
				if strings.HasPrefix(tx.TxnID, job) {
					d, _ := adm.DescribeTransactions(context.Background(), tx.TxnID)
					t.Logf("%s %s %+v", tx.TxnID, tx.State, d[tx.TxnID])
				}
			}
			t.Fatalf("%d transactions of %s are still open", open, job)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestRuntimeRandomKills SIGKILLs the exactly-once job at random times,
// three times, restarting it each time, then lets it finish: the output is
// exactly once and in order.
func TestRuntimeRandomKills(t *testing.T) {
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			j := rtJob{broker: b.Addr, job: kafkatest.UniqueName(t), dir: t.TempDir(), guarantee: "exactly-once",
				topics: [3]string{b.Topic(t, 3), b.Topic(t, 3), b.Topic(t, 2)}, per: 3000}
			rng := crashtest.Rand(t, 7)
			kills := 0
			for kills < 3 {
				after := time.Duration(200+rng.IntN(600)) * time.Millisecond
				if !j.runChildKilledAfter(t, "", after) {
					break // finished before the kill
				}
				kills++
			}
			if kills == 0 {
				t.Fatal("the job finished before the first kill")
			}
			t.Logf("%d kills", kills)
			if j.runChild(t, "") {
				t.Fatal("the job was killed without a fault")
			}
			for i := range len(j.topics) {
				j.verify(t, i)
			}
		})
	}
}

// TestRuntimeCommitDelay holds the commits of a checkpoint back for many
// checkpoint intervals while the job runs in this process: the job goes on
// without error (the runtime stops triggering checkpoints while commits
// lag, the writers reuse no transactional id whose commit is not durably
// acknowledged), and once commits resume the output is exactly once.
func TestRuntimeCommitDelay(t *testing.T) {
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			j := rtJob{broker: b.Addr, job: kafkatest.UniqueName(t), dir: t.TempDir(), guarantee: "exactly-once",
				topics: [3]string{b.Topic(t, 3), b.Topic(t, 3), b.Topic(t, 2)}, per: 1500}
			faults := (&testkit.Faults{}).On(runtime.CommitDelay, 2, testkit.Delay, 20*30*time.Millisecond)
			spec, err := j.spec(faults, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			job, err := runtime.NewJob(spec)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := job.Run(ctx); err != nil {
				t.Fatalf("job failed while commits were delayed: %v", err)
			}
			if !faults.Fired(runtime.CommitDelay) {
				t.Fatal("the commit delay never happened")
			}
			for i := range len(j.topics) {
				j.verify(t, i)
			}
		})
	}
}

// TestRuntimeCrashChained is TestRuntimeCrash and TestRuntimeRandomKills
// with each Kafka sink in a pipeline of its own, whose sink tasks run in
// their source tasks' loops (runtime chaining; the restarted child's
// status shows all 12 tasks chained): killed at the failure points of the
// two-phase commit and at random times, restarted, every output topic
// holds the input exactly once and in order, read read_committed.
func TestRuntimeCrashChained(t *testing.T) {
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			for _, point := range []runtime.FaultPoint{runtime.AfterPreCommit, runtime.AfterCheckpointWritten,
				runtime.BetweenSinkCommits, runtime.AfterCommit, ""} {
				name := string(point)
				if point == "" {
					name = "random"
				}
				t.Run(name, func(t *testing.T) {
					j := rtJob{broker: b.Addr, job: kafkatest.UniqueName(t), dir: t.TempDir(), guarantee: "exactly-once",
						topics: [3]string{b.Topic(t, 3), b.Topic(t, 3), b.Topic(t, 2)}, per: 400, chained: true}
					awaitLeaders(t, b, j.topics[:]...)
					if point != "" {
						rule := fmt.Sprintf("%s@3:kill", point)
						if !j.runChild(t, rule) {
							t.Fatalf("the job finished before %s", rule)
						}
					} else {
						j.per = 1500
						rng := crashtest.Rand(t, 8)
						if !j.runChildKilledAfter(t, "", time.Duration(200+rng.IntN(400))*time.Millisecond) {
							t.Fatal("the job finished before the kill")
						}
					}
					if j.runChild(t, "") {
						t.Fatal("the restarted job was killed without a fault")
					}
					switch tasks, err := os.ReadFile(filepath.Join(j.dir, "tasks")); {
					case errors.Is(err, fs.ErrNotExist):
						t.Log("the restarted job had no task to run: the kill came after the final checkpoint")
					case err != nil || string(tasks) != "12/12":
						t.Fatalf("chained/all tasks of the restarted job: %q (%v), want 12/12", tasks, err)
					}
					for i := range len(j.topics) {
						j.verify(t, i)
					}
				})
			}
		})
	}
}

// awaitLeaders waits until every partition of topics has a leader: on a
// loaded machine a topic just created may not be hosted yet, and a
// transactional produce to it fails (UNKNOWN_TOPIC_OR_PARTITION).
func awaitLeaders(t *testing.T, b kafkatest.Broker, topics ...string) {
	t.Helper()
	adm := b.Admin(t)
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		md, err := adm.Metadata(ctx, topics...)
		cancel()
		ready := err == nil
		for _, tp := range topics {
			td, ok := md.Topics[tp]
			if !ok || td.Err != nil || len(td.Partitions) == 0 {
				ready = false
				continue
			}
			for _, p := range td.Partitions {
				if p.Err != nil || p.Leader < 0 {
					ready = false
				}
			}
		}
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("topics %v have no leaders after 60 s: %v", topics, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
