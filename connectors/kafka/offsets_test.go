package kafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// The copy tests run a Kafka → Kafka job — a group-offsets source
// ('properties.auto.offset.reset' earliest) feeding one Kafka sink — the way
// a user without 'execution.checkpointing.dir' runs it: each start resumes
// from the group's committed offsets, not from a checkpoint. The child
// process (this test binary, re-executed as the role "copy"; crashtest) is
// SIGKILLed at failure points of
// the checkpoint protocol and at random moments and restarted until the
// input is copied; an independent read_committed reader then checks the
// output.

// copyJob describes the child's job; it is passed in the environment.
type copyJob struct {
	broker, job, dir, guarantee string
	in, out, group              string
	per                         int64
	// repartition routes rows by key to the sink tasks (Pipeline.Partition),
	// so that a source task's rows reach several transactions and the
	// offsets cannot be committed inside one.
	repartition bool
	// rowDelay slows the pipeline down so that a run lasts long enough to
	// be killed in the middle.
	rowDelay time.Duration
}

const copyPartitions = 4

func (j copyJob) env() []string {
	return []string{"CP_BROKER=" + j.broker, "CP_JOB=" + j.job, "CP_DIR=" + j.dir, "CP_GUARANTEE=" + j.guarantee,
		"CP_IN=" + j.in, "CP_OUT=" + j.out, "CP_GROUP=" + j.group, "CP_PER=" + strconv.FormatInt(j.per, 10),
		"CP_REPARTITION=" + strconv.FormatBool(j.repartition), "CP_ROW_DELAY=" + j.rowDelay.String()}
}

func copyJobFromEnv() (copyJob, error) {
	per, err1 := strconv.ParseInt(os.Getenv("CP_PER"), 10, 64)
	rep, err2 := strconv.ParseBool(os.Getenv("CP_REPARTITION"))
	delay, err3 := time.ParseDuration(os.Getenv("CP_ROW_DELAY"))
	return copyJob{broker: os.Getenv("CP_BROKER"), job: os.Getenv("CP_JOB"), dir: os.Getenv("CP_DIR"), guarantee: os.Getenv("CP_GUARANTEE"),
		in: os.Getenv("CP_IN"), out: os.Getenv("CP_OUT"), group: os.Getenv("CP_GROUP"), per: per, repartition: rep, rowDelay: delay}, errors.Join(err1, err2, err3)
}

var copySchema = factory.Schema{Columns: []factory.Column{{Name: "p", Type: types.BigInt()}, {Name: "seq", Type: types.BigInt()}}}

// source is the input table: group offsets, bounded by the input's end.
func (j copyJob) source() factory.Table {
	return factory.Table{Name: "cat.db.src", Schema: copySchema, Options: map[string]string{"connector": "kafka", "topic": j.in,
		"properties.bootstrap.servers": j.broker, "properties.group.id": j.group, "scan.startup.mode": "group-offsets",
		"properties.auto.offset.reset": "earliest", "properties.isolation.level": "read_committed", "scan.bounded.mode": "latest-offset",
		"properties.max.poll.records": "50", "key.format": "json", "key.fields": "p", "value.format": "json"}}
}

// sink is the output table, keyed by p so that each p's rows stay in one
// partition, in order.
func (j copyJob) sink() factory.Table {
	return factory.Table{Name: "cat.db.dst", Schema: copySchema, Options: map[string]string{"connector": "kafka", "topic": j.out,
		"properties.bootstrap.servers": j.broker, "sink.delivery-guarantee": j.guarantee, "sink.transactional-id-prefix": j.job,
		"key.format": "json", "key.fields": "p", "value.format": "json"}}
}

func (j copyJob) spec(faults runtime.FaultInjector, log *slog.Logger) (runtime.JobSpec, error) {
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 30 * time.Millisecond
	if j.dir != "" {
		cfg.Checkpoint.Dir = filepath.Join(j.dir, "checkpoints")
	}
	cfg.Checkpoint.Retention = jobconfig.RetainOnCancellation
	cfg.Restart.Strategy = jobconfig.RestartNone
	ctx := context.Background()
	src, _, err := factory.Default.CreateSource(ctx, j.source())
	if err != nil {
		return runtime.JobSpec{}, err
	}
	snk, _, err := factory.Default.CreateSink(ctx, j.sink())
	if err != nil {
		return runtime.JobSpec{}, err
	}
	p := runtime.Pipeline{Name: "copy", Sources: []runtime.SourceSpec{{Name: "src", Source: src, Parallelism: 2}},
		Sinks: []runtime.SinkSpec{{Name: "dst", Sink: snk, Parallelism: 2}}}
	if d := j.rowDelay; d > 0 {
		p.Transform = func(in types.Row, out []types.Row) ([]types.Row, error) {
			time.Sleep(d)
			return append(out, in), nil
		}
	}
	if j.repartition {
		p.Partition = func(row types.Row, n int) int { return int(row.Fields[0].Int64()) % n }
	}
	return runtime.JobSpec{Name: j.job, Config: cfg, Pipelines: []runtime.Pipeline{p}, Logger: log, Faults: faults}, nil
}

// copyChild runs the job with the faults of testkit.FaultsEnv; it exits 0
// when the job finished.
func copyChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "copy child:", err); return 3 }
	j, err := copyJobFromEnv()
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
	spec, err := j.spec(faults, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return fail(err)
	}
	job, err := runtime.NewJob(spec)
	if err != nil {
		return fail(err)
	}
	// No deadline: a job stopped by one would end gracefully, and the test
	// would take the copy for finished (the test binary's -timeout bounds
	// a hang).
	if err := job.Run(context.Background()); err != nil {
		return fail(err)
	}
	return 0
}

// run runs the child with faults, SIGKILLed after killAfter when positive;
// it reports whether the child died of SIGKILL, and fails the test on any
// other failure.
func (j copyJob) run(t *testing.T, faults string, killAfter time.Duration) (killed bool) {
	t.Helper()
	killed, _, err := crashtest.Exec(t, crashtest.Spec{Role: "copy", Env: append(j.env(), testkit.FaultsEnv+"="+faults)}, killAfter)
	if err != nil {
		t.Fatalf("faults %q: %v", faults, err)
	}
	return killed
}

// newCopyJob creates the topics and produces per rows {p, seq} to each
// partition p of the input.
func newCopyJob(t *testing.T, b kafkatest.Broker, guarantee string, per int64) copyJob {
	t.Helper()
	j := copyJob{broker: b.Addr, job: kafkatest.UniqueName(t), guarantee: guarantee, in: b.Topic(t, copyPartitions), out: b.Topic(t, 3),
		per: per, rowDelay: 300 * time.Microsecond}
	j.group = j.job + "-group"
	cl := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(j.in))
	recs := make([]*kgo.Record, 0, copyPartitions*per)
	for s := range per {
		for p := range int64(copyPartitions) {
			recs = append(recs, &kgo.Record{Partition: int32(p), Key: fmt.Appendf(nil, `{"p":%d}`, p),
				Value: fmt.Appendf(nil, `{"p":%d,"seq":%d}`, p, s)})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return j
}

// copyOutcome counts, per input partition,
// rows lost, rows duplicated and rows out of order.
type copyOutcome struct{ lost, duplicated, disordered int }

func (j copyJob) outcome(t *testing.T) copyOutcome {
	t.Helper()
	b := kafkatest.Broker{Addr: j.broker}
	b.AwaitStable(t, j.out)
	tbl := factory.Table{Name: "cat.db.check", Schema: copySchema, Options: map[string]string{"connector": "kafka", "topic": j.out,
		"properties.bootstrap.servers": j.broker, "scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset",
		"properties.isolation.level": "read_committed", "key.format": "json", "key.fields": "p", "value.format": "json"}}
	rows, _, err := readTable(t, tbl)
	if err != nil {
		t.Fatal(err)
	}
	var o copyOutcome
	seen := make([][]int, copyPartitions)
	last := make([]int64, copyPartitions)
	for p := range seen {
		seen[p] = make([]int, j.per)
		last[p] = -1
	}
	for _, r := range rows {
		p, s := r.Fields[0].Int64(), r.Fields[1].Int64()
		if p < 0 || p >= copyPartitions || s < 0 || s >= j.per {
			t.Fatalf("unexpected row %v", r.Fields)
		}
		if seen[p][s]++; seen[p][s] > 1 {
			o.duplicated++
		} else if s < last[p] {
			o.disordered++
		}
		last[p] = max(last[p], s)
	}
	for p := range seen {
		for _, n := range seen[p] {
			if n == 0 {
				o.lost++
			}
		}
	}
	return o
}

// groupAtEnd checks that the group's committed offsets are the input's end
// offsets: the final checkpoint's offsets were committed.
func (j copyJob) groupAtEnd(t *testing.T) {
	t.Helper()
	adm := kafkatest.Broker{Addr: j.broker}.Admin(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	committed, err := adm.FetchOffsets(ctx, j.group)
	if err != nil {
		t.Fatal(err)
	}
	for p := range int32(copyPartitions) {
		if o, ok := committed.Lookup(j.in, p); !ok || o.Err != nil || o.At != j.per {
			t.Errorf("group %s, partition %d: committed %+v, want %d", j.group, p, o, j.per)
		}
	}
}

// crashLoop runs the child once per fault rule and then with kills at
// random moments, restarting it after each kill, and finally to the end.
// It returns the number of kills.
func (j copyJob) crashLoop(t *testing.T, rules []string, randomKills int, rng *rand.Rand) int {
	t.Helper()
	kills := 0
	for _, r := range rules {
		if j.run(t, r, 0) {
			kills++
		}
	}
	for range randomKills {
		if !j.run(t, "", time.Duration(150+rng.IntN(500))*time.Millisecond) {
			break // finished before the kill: nothing left to copy
		}
		kills++
	}
	for attempt := 0; j.run(t, "", 0); attempt++ {
		if attempt > 3 {
			t.Fatal("the job keeps dying without a fault")
		}
	}
	return kills
}

// copyFaults are the failure points the crash tests kill the job at: after
// the pre-commit, after the checkpoint completed and before its commit
// (with a delay, so that anything that races the commit — the group
// offsets once did — has happened), between commit and acknowledgement.
var copyFaults = []string{
	string(runtime.AfterPreCommit) + "@2:kill",
	string(runtime.CommitDelay) + "@3:kill:200ms",
	string(runtime.AfterCheckpointWritten) + "@4:kill",
	string(runtime.AfterCommit) + "@2:kill",
}

// TestCopyCrash is the exactly-once copy with group-offsets startup, with
// no checkpoint directory (each start resumes from the group: the source
// offsets are committed inside the sink's transactions) and with one (each
// start restores the checkpoint, whose positions agree with the group's).
// After SIGKILLs at the protocol's failure points and at random moments
// the output is the input exactly once and in order per key, and the group
// ends at the input's end.
func TestCopyCrash(t *testing.T) {
	t.Parallel()
	for _, b := range kafkatest.RequireAll(t) {
		for _, withDir := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dir=%v", b.Name, withDir), func(t *testing.T) {
				t.Parallel()
				j := newCopyJob(t, b, "exactly-once", 600)
				if withDir {
					j.dir = t.TempDir()
				}
				rng := crashtest.Rand(t, 11)
				kills := j.crashLoop(t, copyFaults, 2, rng)
				if kills < len(copyFaults) {
					t.Fatalf("only %d kills: the job finished too early to test the failure points", kills)
				}
				if o := j.outcome(t); o != (copyOutcome{}) {
					t.Fatalf("after %d kills: %d lost, %d duplicated, %d out of order; want 0 (exactly once, in order)", kills, o.lost, o.duplicated, o.disordered)
				}
				j.groupAtEnd(t)
			})
		}
	}
}

// TestCopyOffsetsNeverAhead re-partitions rows by key, so the offsets
// cannot be committed inside one transaction: they are committed to the
// group after the checkpoint's commits. A kill after a checkpoint completed
// and before its commit (with time for anything racing the commit) must
// lose nothing on the restart from the group's offsets (at-least-once:
// duplicates are allowed here).
func TestCopyOffsetsNeverAhead(t *testing.T) {
	t.Parallel()
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			j := newCopyJob(t, b, "exactly-once", 400)
			j.repartition = true
			rules := []string{string(runtime.CommitDelay) + "@3:kill:300ms", string(runtime.CommitDelay) + "@4:kill:300ms"}
			if kills := j.crashLoop(t, rules, 0, nil); kills < len(rules) {
				t.Fatalf("only %d kills", kills)
			}
			if o := j.outcome(t); o.lost > 0 || o.disordered > 0 {
				t.Fatalf("%d rows lost, %d out of order (%d duplicated): the group's offsets were ahead of the committed output", o.lost, o.disordered, o.duplicated)
			}
			j.groupAtEnd(t)
		})
	}
}

// TestCopyGracefulStopRestart stops the job gracefully in the middle and
// starts it again with no checkpoint directory: the final checkpoint's
// offsets were committed, so nothing is copied twice — through the sink's
// transactions (exactly-once) and through the group commit after the
// final checkpoint's commits (at-least-once, re-partitioned exactly-once).
func TestCopyGracefulStopRestart(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	for _, tc := range []struct {
		guarantee   string
		repartition bool
	}{{"exactly-once", false}, {"at-least-once", false}, {"exactly-once", true}} {
		t.Run(fmt.Sprintf("%s/repartition=%v", tc.guarantee, tc.repartition), func(t *testing.T) {
			t.Parallel()
			j := newCopyJob(t, b, tc.guarantee, 500)
			j.repartition = tc.repartition
			// The job's log is shown when a round fails.
			logs := lockedBuffer{mu: new(sync.Mutex), b: new(bytes.Buffer)}
			for round := range 3 {
				spec, err := j.spec(nil, slog.New(slog.NewTextHandler(&logs, nil)))
				if err != nil {
					t.Fatal(err)
				}
				job, err := runtime.NewJob(spec)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				if round < 2 {
					time.AfterFunc(300*time.Millisecond, cancel)
				}
				err = job.Run(ctx)
				cancel()
				if err != nil {
					t.Fatalf("round %d: %v\nthe job's log:\n%s", round, err, logs.b.String())
				}
			}
			if o := j.outcome(t); o != (copyOutcome{}) {
				t.Fatalf("after two graceful stops: %d lost, %d duplicated, %d out of order; want 0", o.lost, o.duplicated, o.disordered)
			}
			j.groupAtEnd(t)
		})
	}
}

// TestCopyGroupCommitRefused runs the copy while another consumer is an
// active member of the job's group. The job is no member, so the group
// refuses its plain offset commits (re-partitioned rows: offsets are
// committed after the checkpoint's commits): each refusal is a warning and
// a metric, and the job still copies everything. (Offsets committed inside
// a transaction with generation -1 are accepted by the broker whatever the
// group's members, as for the Java producer's sendOffsetsToTransaction with
// a group id: that path has nothing to refuse here.)
func TestCopyGroupCommitRefused(t *testing.T) {
	t.Parallel()
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			j := newCopyJob(t, b, "exactly-once", 200)
			j.repartition = true
			other := b.Topic(t, 1)
			member := b.Client(t, kgo.ConsumerGroup(j.group), kgo.ConsumeTopics(other))
			awaitMember(t, b, j.group, member)
			var logs bytes.Buffer
			spec, err := j.spec(nil, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})))
			if err != nil {
				t.Fatal(err)
			}
			job, err := runtime.NewJob(spec)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			err = job.Run(ctx)
			cancel()
			if err != nil {
				t.Fatalf("the job failed on a refused group commit: %v", err)
			}
			if n := job.Status().GroupCommitFailures; n == 0 {
				t.Errorf("no group commit failure counted; logs:\n%s", logs.String())
			}
			if !strings.Contains(logs.String(), "cannot commit consumer group positions") || !strings.Contains(logs.String(), j.group) {
				t.Errorf("no warning names the group:\n%s", logs.String())
			}
			if o := j.outcome(t); o != (copyOutcome{}) {
				t.Fatalf("%d lost, %d duplicated, %d out of order", o.lost, o.duplicated, o.disordered)
			}
		})
	}
}

// awaitMember waits until cl has joined group.
func awaitMember(t *testing.T, b kafkatest.Broker, group string, cl *kgo.Client) {
	t.Helper()
	adm := b.Admin(t)
	deadline := time.Now().Add(waitLong)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		cl.PollFetches(ctx) // drives the join
		cancel()
		gs, err := adm.DescribeGroups(context.Background(), group)
		if err == nil {
			if g, ok := gs[group]; ok && g.Err == nil && len(g.Members) > 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the member never joined group %s: %v %+v", group, err, gs)
		}
	}
}

// TestCopyCrashSoak is the long version (STREAMSQL_SOAK=1): 100 kills at
// failure points and random moments, with no checkpoint directory and
// with one (group-offsets startup either way).
func TestCopyCrashSoak(t *testing.T) {
	if os.Getenv("STREAMSQL_SOAK") != "1" {
		t.Skip("set STREAMSQL_SOAK=1 to run the soak")
	}
	for _, b := range kafkatest.RequireAll(t) {
		for _, withDir := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dir=%v", b.Name, withDir), func(t *testing.T) {
				j := newCopyJob(t, b, "exactly-once", 50000)
				if withDir {
					j.dir = t.TempDir()
				}
				rng := crashtest.Rand(t, 13)
				kills := 0
				for kills < 100 {
					rules := ""
					if rng.IntN(2) == 0 {
						rules = copyFaults[rng.IntN(len(copyFaults))]
					}
					killed := j.run(t, rules, time.Duration(100+rng.IntN(900))*time.Millisecond)
					if !killed {
						break
					}
					kills++
				}
				for j.run(t, "", 0) {
				}
				o := j.outcome(t)
				t.Logf("%d kills: %d lost, %d duplicated, %d out of order", kills, o.lost, o.duplicated, o.disordered)
				if o != (copyOutcome{}) {
					t.Fatal("want exactly once, in order")
				}
				j.groupAtEnd(t)
			})
		}
	}
}

// TestTxnOffsetsCommittedWithTransaction stores source offsets in the
// writer's transactions: they reach the group when the transaction commits
// — also by a fresh process's raw EndTxn after a crash (recovery) — and
// never when it is aborted (a leftover of a crashed run).
func TestTxnOffsetsCommittedWithTransaction(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic, in := b.Topic(t, 1), b.Topic(t, 2)
		group := kafkatest.UniqueName(t)
		prefix := kafkatest.UniqueName(t)
		ctx := context.Background()
		run, err := startEOS(t, eosConfig(b, topic, prefix, &memoryAckTracker{}))
		if err != nil {
			t.Fatal(err)
		}
		pos := func(o0, o1 int64) connector.GroupPositions {
			return connector.GroupPositions{Cluster: run.sink.clusterID(), Group: group, Generation: -1,
				Offsets: []connector.PartitionOffset{{Topic: in, Partition: 0, Offset: o0}, {Topic: in, Partition: 1, Offset: o1}}}
		}
		if !run.w.AcceptsGroupPositions(pos(0, 0)) {
			t.Fatalf("the writer refuses positions of its own cluster %q", run.sink.clusterID())
		}
		if run.w.AcceptsGroupPositions(connector.GroupPositions{Cluster: "another-cluster", Group: group}) {
			t.Fatal("the writer accepts positions of another cluster")
		}
		// Checkpoint 1: pre-committed with offsets, then the process dies.
		mustWrite(t, run.w, rows(seq("a-", 0, 10)...))
		cs, err := run.w.PreCommitWithPositions(ctx, 1, []connector.GroupPositions{pos(10, 20)})
		if err != nil || len(cs) != 1 {
			t.Fatalf("PreCommitWithPositions: %v (%d committables)", err, len(cs))
		}
		expectGroup(t, b, group, in, -1, -1) // not before the commit
		run.w.Crash()
		// A new process recovers (commits) checkpoint 1 by raw EndTxn.
		run2, err := startEOS(t, eosConfig(b, topic, prefix, &memoryAckTracker{}), cs[0])
		if err != nil {
			t.Fatalf("recovery: %v", err)
		}
		expectGroup(t, b, group, in, 10, 20)
		// Checkpoint 2 is left open with offsets by a crash; the next
		// start aborts it, and the group keeps checkpoint 1's offsets.
		mustWrite(t, run2.w, rows(seq("b-", 0, 10)...))
		if _, err := run2.w.PreCommitWithPositions(ctx, 2, []connector.GroupPositions{pos(30, 40)}); err != nil {
			t.Fatal(err)
		}
		run2.w.Crash()
		if _, err := startEOS(t, eosConfig(b, topic, prefix, &memoryAckTracker{})); err != nil {
			t.Fatal(err)
		}
		expectGroup(t, b, group, in, 10, 20)
		expectValues(t, b, topic, true, seq("a-", 0, 10))
	})
}

// expectGroup checks the group's committed offsets of partitions 0 and 1
// of topic (-1: none), waiting for pending transactional commits.
func expectGroup(t *testing.T, b kafkatest.Broker, group, topic string, o0, o1 int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	var got [2]int64
	for {
		resp, err := b.Admin(t).FetchOffsets(kadm.RequireStable(ctx), group)
		if err == nil {
			for p := range int32(2) {
				got[p] = -1
				if o, ok := resp.Lookup(topic, p); ok && o.Err == nil {
					got[p] = o.At
				} else if ok && o.Err != nil {
					err = o.Err
				}
			}
		}
		if err == nil && got == [2]int64{o0, o1} {
			return
		}
		if ctx.Err() != nil || (err != nil && !kerr.IsRetriable(err)) {
			t.Fatalf("group %s offsets %v (err %v), want [%d %d]", group, got, err, o0, o1)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
