package kafka

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// The scale-out tests run one job file as several child processes (this
// test binary re-executed, running the job through package job as
// `streamsql run --instance-id ID` does), each a member of the source's
// consumer group (pipeline.scale-out). The test SIGKILLs, restarts, adds,
// removes and SIGSTOPs them while a producer feeds the input; at the end
// an independent read_committed reader checks the output: every input
// record exactly once, each key's records in order.

// scaleJobSQL is the job every instance runs.
const scaleJobSQL = `
SET 'pipeline.scale-out' = 'true';
SET 'execution.checkpointing.interval' = '${INTERVAL}';
SET 'execution.checkpointing.timeout' = '10s';
SET 'restart-strategy.type' = 'fixed-delay';
SET 'restart-strategy.fixed-delay.attempts' = '1000';
SET 'restart-strategy.fixed-delay.delay' = '500ms';

CREATE TABLE src (k BIGINT, seq BIGINT) WITH (
  'connector' = 'kafka', 'topic' = '${IN}',
  'properties.bootstrap.servers' = '${BROKER}',
  'properties.group.id' = '${GROUP}',
  'scan.startup.mode' = '${STARTUP}', 'properties.auto.offset.reset' = 'earliest',
  'properties.isolation.level' = 'read_committed',
  'properties.session.timeout.ms' = '6000', 'properties.heartbeat.interval.ms' = '500',
  'format' = 'json'${SRC_EXTRA}
);

CREATE TABLE dst (k BIGINT, seq BIGINT) WITH (
  'connector' = 'kafka', 'topic' = '${OUT}',
  'properties.bootstrap.servers' = '${BROKER}',
  'sink.delivery-guarantee' = '${GUARANTEE}', 'sink.transactional-id-prefix' = '${GROUP}',
  'properties.transaction.timeout.ms' = '${TXN_TIMEOUT}',
  'key.format' = 'json', 'key.fields' = 'k', 'value.format' = 'json'
);

INSERT INTO dst SELECT k, seq FROM src;
`

// scaleChild runs the job until SIGTERM (graceful stop).
func scaleChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "scale child:", err); return 3 }
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	vars := map[string]string{"IN": os.Getenv("SC_IN"), "OUT": os.Getenv("SC_OUT"), "BROKER": os.Getenv("SC_BROKER"),
		"GROUP": os.Getenv("SC_GROUP"), "GUARANTEE": os.Getenv("SC_GUARANTEE"),
		"INTERVAL": "200ms", "STARTUP": "group-offsets", "TXN_TIMEOUT": "20000", "SRC_EXTRA": ""}
	// SC_SET_<VAR> overrides a default above (scaleCluster.startWith).
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "SC_SET_") {
			vars[strings.TrimPrefix(k, "SC_SET_")] = v
		}
	}
	faults, err := testkit.FaultsFromEnv()
	if err != nil {
		return fail(err)
	}
	opts := job.Options{Vars: vars, InstanceID: os.Getenv("SC_INSTANCE"), Logger: log}
	if faults != nil {
		opts.Testing.Faults = faults
	}
	j, err := job.Compile(context.Background(), "scale.sql", scaleJobSQL, opts)
	if err != nil {
		return fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := j.Run(ctx); err != nil {
		return fail(err)
	}
	return 0
}

// scaleCluster starts and kills the instances of one scaled-out job.
type scaleCluster struct {
	t                                 *testing.T
	broker, in, out, group, guarantee string
	set                               map[string]string // job variables of every instance (startWith)
	mu                                sync.Mutex
	running                           map[string]*crashtest.Child
	logs                              map[string]*bytes.Buffer // every run of each instance
	done                              map[string]<-chan struct{}
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (c *scaleCluster) start(id string) {
	c.t.Helper()
	c.startWith(id, nil)
}

// startWith starts instance id with job variables set (INTERVAL, STARTUP,
// TXN_TIMEOUT; see scaleChild) on top of the cluster's, and env added to
// its environment (testkit.FaultsEnv, say).
func (c *scaleCluster) startWith(id string, set map[string]string, env ...string) {
	c.t.Helper()
	env = append([]string{"SC_IN=" + c.in, "SC_OUT=" + c.out, "SC_BROKER=" + c.broker,
		"SC_GROUP=" + c.group, "SC_GUARANTEE=" + c.guarantee, "SC_INSTANCE=" + id}, env...)
	for k, v := range c.set {
		env = append(env, "SC_SET_"+k+"="+v)
	}
	for k, v := range set {
		env = append(env, "SC_SET_"+k+"="+v)
	}
	c.mu.Lock()
	if c.logs[id] == nil {
		c.logs[id] = &bytes.Buffer{}
	}
	c.logs[id].WriteString(processStart)
	stderr := lockedBuffer{&c.mu, c.logs[id]}
	c.mu.Unlock()
	child := crashtest.Start(c.t, crashtest.Spec{Role: "scale", Env: env, Stderr: stderr})
	c.mu.Lock()
	c.running[id], c.done[id] = child, child.Done()
	c.mu.Unlock()
}

// signal sends sig to instance id; SIGKILL and SIGTERM wait for its end.
func (c *scaleCluster) signal(id string, sig syscall.Signal) {
	c.t.Helper()
	c.mu.Lock()
	child, done := c.running[id], c.done[id]
	c.mu.Unlock()
	if child == nil {
		c.t.Fatalf("instance %s is not running", id)
	}
	child.Signal(sig)
	if sig != syscall.SIGKILL && sig != syscall.SIGTERM {
		return
	}
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		c.t.Fatalf("instance %s did not end after %v", id, sig)
	}
	c.mu.Lock()
	delete(c.running, id)
	c.mu.Unlock()
	if sig == syscall.SIGTERM && child.ExitCode() != 0 {
		c.t.Fatalf("instance %s failed:\n%s", id, c.log(id))
	}
}

func (c *scaleCluster) log(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logs[id].String()
}

func (c *scaleCluster) ids() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for id := range c.running {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// awaitSpread waits until the group is stable with one member per running
// instance and the partitions spread evenly over them (counts differ by at
// most one); it fails the test after a deadline that catches hangs.
func (c *scaleCluster) awaitSpread(adm *kadm.Client, partitions int) {
	c.t.Helper()
	want := c.ids()
	deadline := time.Now().Add(90 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		groups, err := adm.DescribeGroups(ctx, c.group)
		cancel()
		if err == nil {
			g := groups[c.group]
			counts := map[string]int{}
			total := 0
			for _, m := range g.Members {
				if m.InstanceID == nil {
					continue
				}
				n := 0
				if ca, ok := m.Assigned.AsConsumer(); ok {
					for _, t := range ca.Topics {
						n += len(t.Partitions)
					}
				}
				counts[*m.InstanceID] += n
				total += n
			}
			var got []string
			lo, hi := partitions, 0
			for id, n := range counts {
				got = append(got, id)
				lo, hi = min(lo, n), max(hi, n)
			}
			slices.Sort(got)
			last = fmt.Sprintf("state %s members %v counts %v", g.State, got, counts)
			if g.State == "Stable" && slices.Equal(got, want) && total == partitions && hi-lo <= 1 {
				c.t.Logf("group spread evenly: %v", counts)
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("group %s never spread its %d partitions evenly over %v; last: %s", c.group, partitions, want, last)
}

// pauses returns the pauses the instances logged matching re, whose
// first group is the duration.
func (c *scaleCluster) pauses(re *regexp.Regexp) []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Duration
	for _, b := range c.logs {
		for _, m := range re.FindAllStringSubmatch(b.String(), -1) {
			if d, err := time.ParseDuration(m[1]); err == nil {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return out
}

// count returns how many lines of the instances' logs match re.
func (c *scaleCluster) count(re *regexp.Regexp) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, b := range c.logs {
		n += len(re.FindAllStringIndex(b.String(), -1))
	}
	return n
}

// processStart separates the logs of an instance's processes.
const processStart = "--- process started ---\n"

// failurePauses returns, for each failed run of an instance, the time
// from its failure to the start of the next run.
func (c *scaleCluster) failurePauses() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	failed := regexp.MustCompile(`time=(\S+) level=WARN msg="job failed; restarting"`)
	started := regexp.MustCompile(`time=(\S+) level=INFO msg="restoring checkpoint"`)
	var out []time.Duration
	for _, b := range c.logs {
		log := b.String()
		for _, m := range failed.FindAllStringSubmatchIndex(log, -1) {
			rest := log[m[1]:]
			next := started.FindStringSubmatchIndex(rest)
			if next == nil || strings.Contains(rest[:next[0]], processStart) {
				continue // the process ended before a next run
			}
			t0, err0 := time.Parse(time.RFC3339Nano, log[m[2]:m[3]])
			t1, err1 := time.Parse(time.RFC3339Nano, rest[next[2]:next[3]])
			if err0 == nil && err1 == nil {
				out = append(out, t1.Sub(t0))
			}
		}
	}
	slices.Sort(out)
	return out
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(float64(len(ds)-1) * p)
	return ds[i]
}

type scaleRow struct {
	K   int64 `json:"k"`
	Seq int64 `json:"seq"`
}

// feed produces rows {k, seq} keyed by k (per-key seq 0, 1, 2, ...) until
// stop is closed; it returns the number produced per key.
func feed(t *testing.T, cl *kgo.Client, topic string, keys int, stop <-chan struct{}) map[int64]int64 {
	next := map[int64]int64{}
	ctx := context.Background()
	for {
		select {
		case <-stop:
			if err := cl.Flush(ctx); err != nil {
				t.Error(err)
			}
			return next
		case <-time.After(5 * time.Millisecond):
		}
		var recs []*kgo.Record
		for range 10 {
			k := rand.Int64N(int64(keys))
			v, _ := json.Marshal(scaleRow{K: k, Seq: next[k]})
			next[k]++
			recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(strconv.FormatInt(k, 10)), Value: v})
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Errorf("producing the input: %v", err)
			return next
		}
	}
}

// checkOutput reads the output read_committed until every produced row is
// there (or a deadline passes), then checks: nothing lost, nothing twice,
// each key's rows in order.
func checkOutput(t *testing.T, b kafkatest.Broker, topic string, produced map[int64]int64, exactlyOnce bool) []*kgo.Record {
	t.Helper()
	var total int64
	for _, n := range produced {
		total += n
	}
	// Done once every produced row is there (repeats of at-least-once
	// output do not count), or at the deadline.
	distinct := map[scaleRow]bool{}
	parsed := 0
	recs := b.Consume(t, topic, true, 3*time.Minute, func(recs []*kgo.Record) bool {
		for _, r := range recs[parsed:] {
			var row scaleRow
			if json.Unmarshal(r.Value, &row) == nil && row.Seq < produced[row.K] {
				distinct[row] = true
			}
		}
		parsed = len(recs)
		return int64(len(distinct)) >= total
	})
	seen := map[int64][]int64{}
	for _, r := range recs {
		var row scaleRow
		if err := json.Unmarshal(r.Value, &row); err != nil {
			t.Fatalf("output record at partition %d offset %d: %v", r.Partition, r.Offset, err)
		}
		seen[row.K] = append(seen[row.K], row.Seq)
	}
	lost, dup, disorder := 0, 0, 0
	for k, n := range produced {
		got := seen[k]
		have := map[int64]int{}
		for i, s := range got {
			have[s]++
			if exactlyOnce && i > 0 && s != got[i-1]+1 {
				disorder++
			}
		}
		for s := range n {
			switch c := have[s]; {
			case c == 0:
				lost++
			case c > 1:
				dup += c - 1
			}
		}
		if !exactlyOnce && !sort.SliceIsSorted(dedupe(got), func(i, j int) bool { return dedupe(got)[i] < dedupe(got)[j] }) {
			disorder++
		}
	}
	t.Logf("output: %d records for %d produced; lost %d, duplicated %d, out of order %d", len(recs), total, lost, dup, disorder)
	if lost > 0 || (exactlyOnce && (dup > 0 || disorder > 0)) {
		t.Fatalf("output of %d produced rows: %d lost, %d duplicated, %d keys out of order", total, lost, dup, disorder)
	}
	return recs
}

// dedupe drops repeats of the row just before (an at-least-once replay
// repeats a run of rows in order).
func dedupe(seqs []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, s := range seqs {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func TestScaleOutExactlyOnce(t *testing.T) {
	testScaleOut(t, "exactly-once")
}

// TestScaleOutAtLeastOnce: the same scenario with an at-least-once sink,
// whose offsets the members commit once the writes are acknowledged:
// nothing lost (repeats allowed), first occurrences of each key in order.
func TestScaleOutAtLeastOnce(t *testing.T) {
	testScaleOut(t, "at-least-once")
}

// testScaleOut runs the scenario: three instances with random SIGKILLs
// (restarted within the session timeout), an instance added and one
// removed, a SIGSTOP/SIGCONT zombie; then checks the output. With
// STREAMSQL_SOAK=1 the kills go on until 100 have been done.
func testScaleOut(t *testing.T, guarantee string) {
	b := kafkatest.Require(t)
	const partitions = 6
	c := &scaleCluster{t: t, broker: b.Addr, in: b.Topic(t, partitions), out: b.Topic(t, partitions), group: kafkatest.UniqueName(t),
		guarantee: guarantee, running: map[string]*crashtest.Child{}, logs: map[string]*bytes.Buffer{}, done: map[string]<-chan struct{}{}}
	adm := b.Admin(t)
	t.Cleanup(func() {
		for _, id := range c.ids() {
			c.mu.Lock()
			child := c.running[id]
			c.mu.Unlock()
			child.Signal(syscall.SIGCONT)
			child.Kill()
		}
		if t.Failed() || os.Getenv("STREAMSQL_SCALE_LOGS") == "1" {
			for id := range c.logs {
				t.Logf("instance %s log:\n%s", id, c.log(id))
			}
		}
	})
	prod := b.Client(t, kgo.DefaultProduceTopic(c.in))
	stop := make(chan struct{})
	producedCh := make(chan map[int64]int64, 1)
	go func() { producedCh <- feed(t, prod, c.in, 60, stop) }()

	for _, id := range []string{"a", "b", "c"} {
		c.start(id)
	}
	c.awaitSpread(adm, partitions)

	kills := 6
	if os.Getenv("STREAMSQL_SOAK") == "1" {
		kills = 100
	}
	for i := range kills {
		id := c.ids()[rand.IntN(3)]
		time.Sleep(time.Duration(300+rand.IntN(1200)) * time.Millisecond)
		c.signal(id, syscall.SIGKILL)
		time.Sleep(time.Duration(rand.IntN(1500)) * time.Millisecond)
		c.start(id) // within the session timeout: static membership keeps its partitions
		if i%10 == 9 {
			c.awaitSpread(adm, partitions)
		}
	}
	c.awaitSpread(adm, partitions)

	t.Log("adding instance d")
	c.start("d")
	c.awaitSpread(adm, partitions)
	t.Log("removing instance a (SIGKILL, not restarted)")
	c.signal("a", syscall.SIGKILL)
	c.awaitSpread(adm, partitions)

	t.Log("pausing instance b past the session timeout (zombie)")
	c.signal("b", syscall.SIGSTOP)
	time.Sleep(10 * time.Second)
	c.signal("b", syscall.SIGCONT)
	c.awaitSpread(adm, partitions)
	if l := c.log("b"); !regexp.MustCompile(`consumer group lost partitions|fenced this instance`).MatchString(l) {
		t.Errorf("the paused instance b did not report that the group fenced it:\n%s", l)
	}

	close(stop)
	produced := <-producedCh
	checkOutput(t, b, c.out, produced, guarantee == "exactly-once")
	ps := c.pauses(regexp.MustCompile(`revoked partitions released after the final checkpoint .*pause=(\S+)`))
	t.Logf("rebalance hold (revocation held until the final checkpoint committed), %d samples: p50 %v, p99 %v, max %v",
		len(ps), percentile(ps, 0.5), percentile(ps, 0.99), percentile(ps, 1))
	ps = c.pauses(regexp.MustCompile(`pipelines restarted over reassigned splits.*pause=(\S+)`))
	t.Logf("rebalance pause (an instance's pipelines stopped, from the group's callback to the next run), %d samples: p50 %v, p99 %v, max %v",
		len(ps), percentile(ps, 0.5), percentile(ps, 0.99), percentile(ps, 1))
	ps = c.failurePauses()
	t.Logf("runs failed and restarted (from the failure to the next run; the failed run's open transaction is redone), %d samples: p50 %v, p99 %v, max %v; %d of them because the group refused their offsets (fenced)",
		len(ps), percentile(ps, 0.5), percentile(ps, 0.99), percentile(ps, 1), c.count(regexp.MustCompile(`job failed; restarting.*fenced this instance`)))
	for _, id := range c.ids() {
		c.signal(id, syscall.SIGTERM)
	}
}

// newScaleCluster returns a cluster of instances copying a new input topic
// of the given partitions to a new output topic, all instances killed at
// the end of the test (their logs shown when it failed).
func newScaleCluster(t *testing.T, b kafkatest.Broker, partitions int32, guarantee string, set map[string]string) *scaleCluster {
	c := &scaleCluster{t: t, broker: b.Addr, in: b.Topic(t, partitions), out: b.Topic(t, partitions), group: kafkatest.UniqueName(t),
		guarantee: guarantee, set: set, running: map[string]*crashtest.Child{}, logs: map[string]*bytes.Buffer{}, done: map[string]<-chan struct{}{}}
	t.Cleanup(func() {
		for _, id := range c.ids() {
			c.mu.Lock()
			child := c.running[id]
			c.mu.Unlock()
			child.Signal(syscall.SIGCONT)
			child.Kill()
		}
		if t.Failed() || os.Getenv("STREAMSQL_SCALE_LOGS") == "1" {
			for id := range c.logs {
				t.Logf("instance %s log:\n%s", id, c.log(id))
			}
		}
	})
	return c
}

// awaitLog waits until instance id has logged n lines matching re (over
// all its runs); it fails the test after a deadline that catches hangs.
func (c *scaleCluster) awaitLog(id string, re *regexp.Regexp, n int) {
	c.t.Helper()
	c.mu.Lock()
	done := c.done[id]
	c.mu.Unlock()
	deadline := time.After(90 * time.Second)
	for len(re.FindAllStringIndex(c.log(id), -1)) < n {
		select {
		case <-deadline:
			c.t.Fatalf("instance %s never logged %d lines matching %q", id, n, re)
		case <-done:
			c.t.Fatalf("instance %s ended before it logged %d lines matching %q", id, n, re)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// produceRows produces n rows {k, seq} over keys, continuing the per-key
// sequences of next (updated).
func produceRows(t *testing.T, cl *kgo.Client, topic string, keys, n int, next map[int64]int64) {
	t.Helper()
	var recs []*kgo.Record
	for i := range n {
		k := int64(i % keys)
		v, _ := json.Marshal(scaleRow{K: k, Seq: next[k]})
		next[k]++
		recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(strconv.FormatInt(k, 10)), Value: v})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatalf("producing the input: %v", err)
	}
}

// TestScaleOutLatestStartIsDurable: a scaled-out source starting at the
// latest offset of partitions its group never committed commits that
// start (as the member) before it reads. An instance SIGKILLed before its
// first checkpoint therefore resumes there when it comes back, instead of
// at a newer end, which would skip every record written in between.
func TestScaleOutLatestStartIsDurable(t *testing.T) {
	b := kafkatest.Require(t)
	const partitions, keys = 2, 4
	c := newScaleCluster(t, b, partitions, "exactly-once", map[string]string{"STARTUP": "latest-offset"})
	prod := b.Client(t, kgo.DefaultProduceTopic(c.in))
	// Rows from before the first start: latest-offset never reads them.
	old := map[int64]int64{}
	for k := range int64(keys) {
		old[k] = -1000
	}
	produceRows(t, prod, c.in, keys, 20, old)

	// The first run resolves its starts at the end and is killed before
	// any checkpoint (the interval is ten minutes) commits a position.
	c.startWith("a", map[string]string{"INTERVAL": "10min", "TXN_TIMEOUT": "900000"})
	c.awaitLog("a", regexp.MustCompile(`never committed by the group; starting at its end offset`), partitions)
	produced := map[int64]int64{}
	produceRows(t, prod, c.in, keys, 40, produced) // written after the first start
	c.signal("a", syscall.SIGKILL)

	c.start("a")
	// More rows until the restarted instance's output shows them: it
	// runs, and what it reads next was written after it started.
	before := maps.Clone(produced)
	for deadline := time.Now().Add(90 * time.Second); ; {
		produceRows(t, prod, c.in, keys, 8, produced)
		recs := b.Consume(t, c.out, true, time.Second, func([]*kgo.Record) bool { return false })
		if slices.ContainsFunc(recs, func(r *kgo.Record) bool {
			var row scaleRow
			return json.Unmarshal(r.Value, &row) == nil && row.Seq >= before[row.K]
		}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restarted instance wrote none of the rows produced after its start:\n%s", c.log("a"))
		}
	}
	recs := checkOutput(t, b, c.out, produced, true)
	for _, r := range recs {
		var row scaleRow
		if json.Unmarshal(r.Value, &row) == nil && row.Seq < 0 {
			t.Fatalf("output has row %+v written before the first start ('latest-offset')", row)
		}
	}
	c.signal("a", syscall.SIGTERM)
}
