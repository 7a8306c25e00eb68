package main

// The scale-out mode (-scale-out 1,2,4) measures one job run as N
// cooperating `streamsql run --instance-id ID` processes
// (pipeline.scale-out, docs/scale-out.md): the same filter + projection
// as the other modes, Kafka → Kafka, exactly-once and at-least-once, with
// the instances free to run on any core and pinned one core each
// (taskset). The parent counts the sink's records as they appear and
// checks every one of them, so that no figure is reported for a run that
// lost or (exactly-once) duplicated a record.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// envScaleLogs, when set to a directory, makes the scale-out mode write
// each instance's standard error there as <sink topic>.<instance>.log.
const envScaleLogs = "STREAMSQL_BENCH_SCALE_LOGS"

// scaleFlags are the scale-out mode's command-line settings.
type scaleFlags struct {
	counts     string // instance counts, "1,2,4"; empty: the mode is off
	guarantees string // sink.delivery-guarantee values to run
	pin        string // "both", "no" or "yes": taskset one core per instance
	streamsql  string // the streamsql binary; empty: built from this module
	brokerPID  int    // the broker's process, for its CPU time; 0: not measured
}

func (f *scaleFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.counts, "scale-out", "", "run the scale-out mode instead: instance counts to compare, e.g. 1,2,4 (BENCHMARKS.md, Scale-out)")
	fs.StringVar(&f.guarantees, "scale-guarantees", "exactly-once,at-least-once", "scale-out mode: sink delivery guarantees to run")
	fs.StringVar(&f.pin, "scale-taskset", "both", "scale-out mode: pin instance i to core i mod nproc with taskset: no, yes or both")
	fs.StringVar(&f.streamsql, "streamsql", "", "scale-out mode: the streamsql binary (default: go build ./cmd/streamsql into a temporary directory)")
	pid := 0
	if dir := os.Getenv("STREAMSQL_KAFKA_DIR"); dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, "pid")); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	fs.IntVar(&f.brokerPID, "broker-pid", pid, "scale-out mode: the broker's process id, to report its CPU time (default: from $STREAMSQL_KAFKA_DIR/pid, which scripts/bench.sh sets)")
}

// scaleConfig is one configuration of the scale-out mode.
type scaleConfig struct {
	Guarantee string // exactly-once or at-least-once
	Instances int
	Pinned    bool // instance i runs on core i mod nproc only
}

func (c scaleConfig) String() string {
	s := fmt.Sprintf("%s-%d", map[string]string{"exactly-once": "eo", "at-least-once": "alo"}[c.Guarantee], c.Instances)
	if c.Pinned {
		s += "-taskset"
	}
	return s
}

// configs returns the configurations the flags select, in the order of
// one round.
func (f scaleFlags) configs() ([]scaleConfig, error) {
	var counts []int
	for s := range strings.SplitSeq(f.counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-scale-out %q: want instance counts like 1,2,4", f.counts)
		}
		counts = append(counts, n)
	}
	var pins []bool
	switch f.pin {
	case "no":
		pins = []bool{false}
	case "yes":
		pins = []bool{true}
	case "both":
		pins = []bool{false, true}
	default:
		return nil, fmt.Errorf("-scale-taskset %q: want no, yes or both", f.pin)
	}
	var out []scaleConfig
	for g := range strings.SplitSeq(f.guarantees, ",") {
		if g != "exactly-once" && g != "at-least-once" {
			return nil, fmt.Errorf("-scale-guarantees: %q is not exactly-once or at-least-once", g)
		}
		for _, p := range pins {
			for _, n := range counts {
				out = append(out, scaleConfig{Guarantee: g, Instances: n, Pinned: p})
			}
		}
	}
	return out, nil
}

// ScaleOutResult is one scale-out configuration's figures, as written to the
// JSON file.
type ScaleOutResult struct {
	Config     string `json:"config"`
	Guarantee  string `json:"guarantee"`
	Instances  int    `json:"instances"`
	Pinned     bool   `json:"taskset"`
	Records    int64  `json:"records"`     // source records
	RecordsOut int64  `json:"records_out"` // distinct sink records, every one checked
	// RecordsPerSec is the median of the runs of source records over the
	// wall time from starting the instances to the moment the parent's
	// consumer of the sink had every output record (read_committed for
	// exactly-once): start-up and the group's first rebalances included.
	RecordsPerSec float64 `json:"records_per_sec"`
	OutPerSec     float64 `json:"records_out_per_sec"`
	// Ratio is RecordsPerSec over that of 1 instance with the same
	// guarantee and pinning, measured in the same run.
	Ratio float64 `json:"ratio_to_1_instance,omitempty"`
	// SteadyPerSec is the median rate between the moments the sink had 10%
	// and 90% of its records (start-up left out).
	SteadyPerSec float64 `json:"steady_records_per_sec"`
	// FirstMS is the median time from the start to the first sink record.
	FirstMS float64 `json:"start_to_first_ms"`
	// PeakRSSMB are the instances' VmHWM (largest of the runs), by
	// instance; MaxRSSMB the largest of them.
	PeakRSSMB []float64 `json:"peak_rss_mb"`
	MaxRSSMB  float64   `json:"max_peak_rss_mb"`
	// CPU seconds per million source records (mean of the runs): all
	// instances together, the broker, and the parent's counting consumer.
	CPUSecPerM       float64 `json:"cpu_sec_per_million"`
	BrokerCPUSecPerM float64 `json:"broker_cpu_sec_per_million,omitempty"`
	ParentCPUSecPerM float64 `json:"parent_cpu_sec_per_million"`
	// CPUBoundPerSec is the rate the machine's cores could sustain if
	// the instances, the broker and the counting consumer had them to
	// themselves: cores / (their CPU seconds per record). A ceiling that
	// does not depend on other users' load (0 without the broker's CPU).
	CPUBoundPerSec float64 `json:"cpu_bound_records_per_sec,omitempty"`
	// BusyCores is the machine's mean busy cores (from /proc/stat) while
	// the run worked, median of the runs; every process counts, other
	// users' too.
	BusyCores float64 `json:"busy_cores"`
	// Duplicates are sink records beyond the first of their id (zero for
	// exactly-once, or the run fails), summed over the runs; Restarts and
	// Reassignments are the instances' "job failed; restarting" and
	// "pipelines restarted over reassigned splits" log lines, summed.
	Duplicates int64 `json:"duplicates"`
	// Redelivered are records the parent's consumer returned again at an
	// offset it had passed: its own doing, skipped, not a second copy.
	Redelivered   int64 `json:"redelivered_by_counter,omitempty"`
	Restarts      int   `json:"restarts"`
	Reassignments int   `json:"reassignments"`
	Runs          int   `json:"runs"`
}

// scaleRun is what one run of one configuration measured.
type scaleRun struct {
	elapsed, steady, first time.Duration
	stop                   time.Duration // from SIGTERM to the last instance's exit
	rssKB                  []int64
	cpu, brokerCPU, parent time.Duration
	busyCores              float64
	duplicates             int64
	redelivered            int64 // records the counting consumer delivered twice (same partition and offset)
	restarts, reassigns    int
}

// scalePartitions is the scale-out mode's default number of source (and
// sink) partitions: 1, 2, 3, 4 and 6 instances get equal shares.
const scalePartitions = 12

// scaleMain runs the scale-out mode: it loads the source topic once and
// runs every configuration o.runs times, interleaved. fs is the parsed
// command line (-partitions defaults to scalePartitions here).
func scaleMain(ctx context.Context, o options, fs *flag.FlagSet, stdout io.Writer) error {
	f := o.scale
	cfgs, err := f.configs()
	if err != nil {
		return err
	}
	if o.taskset != "" {
		return errors.New("-taskset pins every child to one CPU list; the scale-out mode pins instance i to core i mod nproc with -scale-taskset yes or both")
	}
	partitionsSet := false
	fs.Visit(func(fl *flag.Flag) { partitionsSet = partitionsSet || fl.Name == "partitions" })
	if !partitionsSet {
		o.partitions = scalePartitions
	}
	bin := f.streamsql
	if bin == "" {
		dir, err := os.MkdirTemp("", "streamsql-bench-bin-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		fmt.Fprintln(stdout, "building streamsql (go build ./cmd/streamsql)")
		if bin, err = buildStreamsql(ctx, dir); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "machine: %d cores (runtime.NumCPU); broker pid %d\n", goruntime.NumCPU(), f.brokerPID)
	results, err := runScale(ctx, o, cfgs, bin, f.brokerPID, stdout)
	if err != nil {
		return err
	}
	printScaleTable(stdout, results)
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(o.jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// buildStreamsql builds cmd/streamsql into dir and returns the binary's
// path. It needs the go command and this module's source (run from
// inside the repository).
func buildStreamsql(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "streamsql")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/streamsql/streamsql/cmd/streamsql")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building streamsql (pass -streamsql PATH to use a built one): %w: %s", err, bytes.TrimSpace(out))
	}
	return bin, nil
}

// runScale loads the source topic and runs each configuration o.runs
// times, interleaved: round 1 of every configuration, then round 2, ...
func runScale(ctx context.Context, o options, cfgs []scaleConfig, bin string, brokerPID int, log io.Writer) ([]ScaleOutResult, error) {
	for _, c := range cfgs {
		if c.Instances > o.partitions {
			return nil, fmt.Errorf("%d instances need at least as many source partitions (-partitions %d)", c.Instances, o.partitions)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(o.bootstrap))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	topics := &benchTopics{adm: kadm.NewClient(cl), stamp: time.Now().UnixNano()}
	defer topics.deleteAll()
	src, passing, _, err := loadSource(ctx, o, topics, log)
	if err != nil {
		return nil, err
	}
	want := passingIDs(o.records)
	runs := make([][]scaleRun, len(cfgs))
	for round := range o.runs {
		for i, c := range cfgs {
			r, err := scaleOnce(ctx, o, topics, c, bin, brokerPID, src, want, passing)
			if err != nil {
				return nil, fmt.Errorf("scale-out %s round %d: %w", c, round+1, err)
			}
			runs[i] = append(runs[i], r)
			if r.redelivered > 0 {
				fmt.Fprintf(log, "%-18s round %d: the counting consumer delivered %d records again at offsets it had passed (skipped)\n", c, round+1, r.redelivered)
			}
			steady := "-"
			if r.steady > 0 {
				steady = fmt.Sprintf("%.0f", float64(o.records)*0.8/r.steady.Seconds())
			}
			fmt.Fprintf(log, "%-18s round %d: %.0f records/s (steady %s), first after %d ms, peak RSS %s MB, CPU %.1f s (broker %.1f s, counting consumer %.1f s), %.2f busy cores, %d duplicates, %d restarts, %d reassignments, stopped in %d ms, load average %s\n",
				c, round+1, float64(o.records)/r.elapsed.Seconds(), steady, r.first.Milliseconds(),
				rssList(r.rssKB), r.cpu.Seconds(), r.brokerCPU.Seconds(), r.parent.Seconds(), r.busyCores, r.duplicates, r.restarts, r.reassigns, r.stop.Milliseconds(), loadAverage())
		}
	}
	results := make([]ScaleOutResult, len(cfgs))
	perM := func(d time.Duration) float64 { return d.Seconds() / float64(o.runs) / (float64(o.records) / 1e6) }
	for i, c := range cfgs {
		res := ScaleOutResult{Config: c.String(), Guarantee: c.Guarantee, Instances: c.Instances, Pinned: c.Pinned,
			Records: o.records, RecordsOut: passing, Runs: o.runs, PeakRSSMB: make([]float64, c.Instances)}
		var rates, outs, steady, firsts, busy []float64
		var cpu, broker, parent time.Duration
		for _, r := range runs[i] {
			rates = append(rates, float64(o.records)/r.elapsed.Seconds())
			outs = append(outs, float64(passing)/r.elapsed.Seconds())
			if r.steady > 0 {
				steady = append(steady, float64(o.records)*0.8/r.steady.Seconds())
			}
			firsts = append(firsts, float64(r.first)/1e6)
			busy = append(busy, r.busyCores)
			cpu += r.cpu
			broker += r.brokerCPU
			parent += r.parent
			for j, kb := range r.rssKB {
				res.PeakRSSMB[j] = max(res.PeakRSSMB[j], float64(kb)/1024)
			}
			res.Duplicates += r.duplicates
			res.Redelivered += r.redelivered
			res.Restarts += r.restarts
			res.Reassignments += r.reassigns
		}
		res.RecordsPerSec, res.OutPerSec, res.SteadyPerSec, res.FirstMS, res.BusyCores = median(rates), median(outs), median(steady), median(firsts), median(busy)
		res.MaxRSSMB = slices.Max(res.PeakRSSMB)
		res.CPUSecPerM, res.BrokerCPUSecPerM, res.ParentCPUSecPerM = perM(cpu), perM(broker), perM(parent)
		if res.BrokerCPUSecPerM > 0 {
			res.CPUBoundPerSec = float64(goruntime.NumCPU()) * 1e6 / (res.CPUSecPerM + res.BrokerCPUSecPerM + res.ParentCPUSecPerM)
		}
		results[i] = res
	}
	for i := range results {
		for _, b := range results {
			if b.Instances == 1 && b.Guarantee == results[i].Guarantee && b.Pinned == results[i].Pinned && b.RecordsPerSec > 0 {
				results[i].Ratio = results[i].RecordsPerSec / b.RecordsPerSec
			}
		}
	}
	return results, nil
}

// passingIDs marks the ids of the source records that pass the filter.
func passingIDs(n int64) []bool {
	want := make([]bool, n)
	for i := range n {
		want[i] = makeRecord(i, zeroTime).passes()
	}
	return want
}

func rssList(kb []int64) string {
	s := make([]string, len(kb))
	for i, v := range kb {
		s[i] = strconv.FormatInt(v/1024, 10)
	}
	return strings.Join(s, "/")
}

// scaleJobSQL is the job file every instance runs: the other modes' filter
// and projection, with the source read as a member of group and the
// sink's transactional ids (exactly-once) prefixed by txnPrefix (the
// runtime appends the instance id).
func scaleJobSQL(bootstrap, src, dst, group, guarantee, txnPrefix string) string {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var b strings.Builder
	b.WriteString("SET 'pipeline.scale-out' = 'true';\nSET 'execution.checkpointing.interval' = '1s';\n")
	srcOpts := []string{"'connector' = 'kafka'", "'topic' = " + q(src), "'properties.bootstrap.servers' = " + q(bootstrap),
		"'properties.group.id' = " + q(group), "'scan.startup.mode' = 'group-offsets'", "'properties.auto.offset.reset' = 'earliest'",
		"'format' = 'json'"}
	sinkOpts := []string{"'connector' = 'kafka'", "'topic' = " + q(dst), "'properties.bootstrap.servers' = " + q(bootstrap),
		"'format' = 'json'", "'sink.delivery-guarantee' = " + q(guarantee)}
	if guarantee == "exactly-once" {
		srcOpts = append(srcOpts, "'properties.isolation.level' = 'read_committed'")
		sinkOpts = append(sinkOpts, "'sink.transactional-id-prefix' = "+q(txnPrefix))
	}
	fmt.Fprintf(&b, "CREATE TABLE source (id BIGINT NOT NULL, `user` STRING, amount DOUBLE, currency STRING, country STRING, ts BIGINT,\n"+
		"  active BOOLEAN, score DOUBLE, tags STRING, note STRING) WITH (%s);\n", strings.Join(srcOpts, ", "))
	fmt.Fprintf(&b, "CREATE TABLE sink (id BIGINT, `user` STRING, amount DOUBLE, country STRING, ts BIGINT) WITH (%s);\n",
		strings.Join(sinkOpts, ", "))
	b.WriteString("INSERT INTO sink SELECT id, `user`, amount, country, ts FROM source WHERE amount > 100;\n")
	return b.String()
}

// instance is one running `streamsql run` process.
type instance struct {
	id   string
	cmd  *exec.Cmd
	log  *lockedLog
	done chan struct{} // closed when Wait returned
	err  error         // Wait's result, set before done closes
}

// lockedLog collects an instance's standard error.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tail returns the last lines of s, for error messages.
func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}

// scaleOnce runs one configuration once: a new sink topic and group, the
// instances started together, the parent's consumer counting the sink
// until it has every passing record; then the instances are stopped
// gracefully (SIGTERM) and the sink is checked once nothing more arrives.
func scaleOnce(ctx context.Context, o options, topics *benchTopics, c scaleConfig, bin string, brokerPID int,
	src string, want []bool, passing int64) (r scaleRun, err error) {
	dst, err := topics.make(ctx, "sdst-"+c.String(), o.partitions)
	if err != nil {
		return r, err
	}
	dir, err := os.MkdirTemp("", "streamsql-bench-scale-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	jobFile := filepath.Join(dir, "job.sql")
	sql := scaleJobSQL(o.bootstrap, src, dst, "group-"+dst, c.Guarantee, "txn-"+dst)
	if err := os.WriteFile(jobFile, []byte(sql), 0o644); err != nil {
		return r, err
	}

	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	w, err := watchSink(wctx, o.bootstrap, dst, c.Guarantee == "exactly-once", want, passing)
	if err != nil {
		return r, err
	}
	defer func() { stopWatch(); <-w.stopped }()

	cores := goruntime.NumCPU()
	var insts []*instance
	defer func() { // runs last: every instance has ended
		if err != nil && len(insts) > 0 {
			err = fmt.Errorf("%w (%s)", err, keepLogs(dst, insts))
		}
	}()
	stopAll := func(sig syscall.Signal) {
		for _, in := range insts {
			_ = in.cmd.Process.Signal(sig)
		}
	}
	defer func() { // on an error: kill what still runs
		stopAll(syscall.SIGKILL)
		for _, in := range insts {
			<-in.done
		}
	}()
	parent0 := selfCPU()
	broker0 := procCPU(brokerPID)
	busy0, total0 := machineCPU()
	start := time.Now()
	for i := range c.Instances {
		args := []string{"run", "--instance-id", fmt.Sprintf("i%d", i), jobFile}
		name := bin
		if c.Pinned {
			args = append([]string{"-c", strconv.Itoa(i % cores), bin}, args...)
			name = "taskset"
		}
		in := &instance{id: fmt.Sprintf("i%d", i), cmd: exec.Command(name, args...), log: &lockedLog{}, done: make(chan struct{})}
		in.cmd.Stderr, in.cmd.Stdout = in.log, in.log
		if err := in.cmd.Start(); err != nil {
			return r, fmt.Errorf("starting instance %s: %w", in.id, err)
		}
		go func() { in.err = in.cmd.Wait(); close(in.done) }()
		insts = append(insts, in)
	}

	deadline := time.NewTimer(2*time.Minute + time.Duration(o.records/10_000)*time.Second)
	defer deadline.Stop()
	exited := make(chan *instance, len(insts))
	for _, in := range insts {
		go func() {
			select {
			case <-in.done:
				exited <- in
			case <-wctx.Done():
			}
		}()
	}
	select {
	case <-w.complete:
	case in := <-exited:
		return r, fmt.Errorf("instance %s ended before the sink had every record (%v): %s", in.id, in.err, tail(in.log.String(), 20))
	case err := <-w.failed:
		return r, err
	case <-deadline.C:
		return r, fmt.Errorf("the sink had %d of %d records at the deadline", w.distinct(), passing)
	case <-ctx.Done():
		return r, ctx.Err()
	}
	end := time.Now()
	busy1, total1 := machineCPU()
	r.brokerCPU = procCPU(brokerPID) - broker0
	r.parent = selfCPU() - parent0
	if total1 > total0 {
		r.busyCores = float64(busy1-busy0) / float64(total1-total0) * float64(cores)
	}
	for _, in := range insts {
		kb, err := peakRSS(in.cmd.Process.Pid)
		if err != nil {
			return r, fmt.Errorf("instance %s: %w", in.id, err)
		}
		r.rssKB = append(r.rssKB, kb)
	}
	r.elapsed = end.Sub(start)
	first, p10, p90 := w.times()
	r.first = first.Sub(start)
	if d := p90.Sub(p10); !p10.IsZero() && !p90.IsZero() && d >= 100*time.Millisecond {
		r.steady = d // shorter: too few fetches apart to mean anything
	}

	// Graceful stop: a final checkpoint and its commits, then exit 0 —
	// once the group has settled: an instance stopped while the group
	// rebalances does not leave it (static membership), so the others'
	// stop would wait out its session timeout for the rebalance to end.
	if err := awaitSettled(ctx, topics.adm, "group-"+dst, c.Instances, o.partitions); err != nil {
		return r, err
	}
	stopAll(syscall.SIGTERM)
	stopping := time.Now()
	stopBy := time.After(2 * time.Minute)
	for _, in := range insts {
		select {
		case <-in.done:
		case <-stopBy:
			return r, fmt.Errorf("instance %s did not stop within 2 minutes of SIGTERM: %s", in.id, tail(in.log.String(), 20))
		}
		if in.err != nil {
			return r, fmt.Errorf("instance %s: %v after SIGTERM: %s", in.id, in.err, tail(in.log.String(), 20))
		}
		if ru, ok := in.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
		l := in.log.String()
		r.restarts += strings.Count(l, "job failed; restarting")
		r.reassigns += strings.Count(l, "pipelines restarted over reassigned splits")
	}
	r.stop = time.Since(stopping)
	if d := os.Getenv(envScaleLogs); d != "" {
		for _, in := range insts {
			_ = os.WriteFile(filepath.Join(d, fmt.Sprintf("%s.%s.log", dst, in.id)), []byte(in.log.String()), 0o644)
		}
	}
	// Every instance has exited, so nothing more can be written: anything
	// the consumer sees from here on was in the topic already.
	if err := w.awaitQuiet(ctx, 3*time.Second, time.Minute); err != nil {
		return r, err
	}
	r.duplicates = w.duplicates()
	w.mu.Lock()
	r.redelivered = w.redelivered
	w.mu.Unlock()
	return r, nil
}

// awaitSettled waits until group is stable with n members and the
// partitions spread evenly over them (counts differ by at most one).
func awaitSettled(ctx context.Context, adm *kadm.Client, group string, n, partitions int) error {
	deadline := time.Now().Add(time.Minute)
	var last string
	for {
		dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		groups, err := adm.DescribeGroups(dctx, group)
		cancel()
		if err == nil {
			g := groups[group]
			total, lo, hi := 0, partitions, 0
			for _, m := range g.Members {
				k := 0
				if ca, ok := m.Assigned.AsConsumer(); ok {
					for _, t := range ca.Topics {
						k += len(t.Partitions)
					}
				}
				total, lo, hi = total+k, min(lo, k), max(hi, k)
			}
			if g.State == "Stable" && len(g.Members) == n && total == partitions && hi-lo <= 1 {
				return nil
			}
			last = fmt.Sprintf("state %s, %d members, %d partitions assigned (%d to %d each)", g.State, len(g.Members), total, lo, hi)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("group %s did not settle with %d members sharing %d partitions within a minute: %s", group, n, partitions, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// keepLogs writes the instances' logs of a failed run into a new
// directory and says where.
func keepLogs(dst string, insts []*instance) string {
	dir, err := os.MkdirTemp("", "streamsql-bench-failed-")
	if err != nil {
		return "instance logs lost: " + err.Error()
	}
	for _, in := range insts {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s.%s.log", dst, in.id)), []byte(in.log.String()), 0o644); err != nil {
			return "instance logs lost: " + err.Error()
		}
	}
	return "instance logs in " + dir
}

// sinkWatch is the parent's consumer of a scale-out run's sink topic.
type sinkWatch struct {
	want     []bool // the ids that pass the filter
	passing  int64
	eo       bool
	complete chan struct{} // closed when every passing id has been seen
	failed   chan error    // a wrong record (exactly-once: a duplicate)

	mu      sync.Mutex
	seen    []uint8 // per id, saturating
	firstAt []int64 // exactly-once: where each id was first seen, partition<<40 | offset
	// next is, per partition, the offset after the last record seen: a
	// record below it is the consumer delivering a record again (not a
	// second copy in the topic), counted in redelivered and skipped.
	next               map[int32]int64
	redelivered        int64
	nDistinct, nDup    int64
	first, p10, p90    time.Time
	last               time.Time // when the last record arrived
	bad                error
	closedComplete     bool
	fetchErr           error
	stopped            chan struct{}
	p10Count, p90Count int64
}

// watchSink starts a consumer of every partition of topic from its start
// (read_committed when eo) that checks each record's id against want.
func watchSink(ctx context.Context, bootstrap, topic string, eo bool, want []bool, passing int64) (*sinkWatch, error) {
	iso := kgo.ReadUncommitted()
	if eo {
		iso = kgo.ReadCommitted()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(iso), kgo.FetchMaxWait(500*time.Millisecond))
	if err != nil {
		return nil, err
	}
	if err := cl.Ping(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	w := &sinkWatch{want: want, passing: passing, eo: eo, complete: make(chan struct{}), failed: make(chan error, 1),
		seen: make([]uint8, len(want)), stopped: make(chan struct{}),
		p10Count: max(1, passing/10), p90Count: max(1, passing*9/10)}
	if eo {
		w.firstAt = make([]int64, len(want))
	}
	go func() {
		defer close(w.stopped)
		defer cl.Close()
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			now := time.Now()
			fs.EachError(func(t string, p int32, err error) {
				if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
					w.mu.Lock()
					w.fetchErr = fmt.Errorf("consuming %s partition %d: %w", t, p, err)
					w.mu.Unlock()
				}
			})
			w.mu.Lock()
			fs.EachRecord(func(rec *kgo.Record) { w.record(rec, now) })
			w.mu.Unlock()
		}
	}()
	return w, nil
}

// record checks one sink record; w.mu is held.
func (w *sinkWatch) record(rec *kgo.Record, now time.Time) {
	w.last = now
	if w.next == nil {
		w.next = map[int32]int64{}
	}
	if n, ok := w.next[rec.Partition]; ok && rec.Offset < n {
		w.redelivered++
		return
	}
	w.next[rec.Partition] = rec.Offset + 1
	if w.first.IsZero() {
		w.first = now
	}
	id, ok := sinkID(rec.Value)
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("sink %s partition %d offset %d: a record without a readable id: %.80q", rec.Topic, rec.Partition, rec.Offset, rec.Value)
	case id < 0 || id >= int64(len(w.want)) || !w.want[id]:
		err = fmt.Errorf("sink %s partition %d offset %d: id %d does not pass the filter or was never produced", rec.Topic, rec.Partition, rec.Offset, id)
	case w.seen[id] > 0 && w.eo:
		err = fmt.Errorf("sink %s partition %d offset %d: id %d a second time (read_committed, exactly-once; first at partition %d offset %d)",
			rec.Topic, rec.Partition, rec.Offset, id, w.firstAt[id]>>40, w.firstAt[id]&(1<<40-1))
	}
	if err != nil {
		if w.bad == nil {
			w.bad = err
			w.failed <- err
		}
		return
	}
	if w.seen[id] > 0 {
		w.nDup++
	} else {
		w.nDistinct++
		switch w.nDistinct {
		case w.p10Count:
			w.p10 = now
		case w.p90Count:
			w.p90 = now
		}
	}
	if w.seen[id] < 255 {
		w.seen[id]++
	}
	if w.firstAt != nil {
		w.firstAt[id] = int64(rec.Partition)<<40 | rec.Offset
	}
	if w.nDistinct == w.passing && !w.closedComplete {
		w.closedComplete = true
		close(w.complete)
	}
}

// sinkID reads the id of a sink record: the first field of the JSON that
// streamsql writes ({"id":N,...}), without decoding the rest so that the
// counting consumer takes little of the CPU the instances need. Other
// shapes go through encoding/json.
func sinkID(v []byte) (int64, bool) {
	if rest, ok := bytes.CutPrefix(v, []byte(`{"id":`)); ok {
		end := bytes.IndexAny(rest, ",}")
		if end > 0 {
			if id, err := strconv.ParseInt(string(rest[:end]), 10, 64); err == nil {
				return id, true
			}
		}
	}
	var s struct {
		ID *int64 `json:"id"`
	}
	if json.Unmarshal(v, &s) != nil || s.ID == nil {
		return 0, false
	}
	return *s.ID, true
}

func (w *sinkWatch) distinct() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.nDistinct
}

func (w *sinkWatch) duplicates() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.nDup
}

func (w *sinkWatch) times() (first, p10, p90 time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first, w.p10, w.p90
}

// awaitQuiet waits until the consumer has seen no record for quiet (its
// fetches wait at most 500 ms, so a record in the topic shows up well
// within that), at most limit, and reports a wrong record seen meanwhile.
func (w *sinkWatch) awaitQuiet(ctx context.Context, quiet, limit time.Duration) error {
	until := time.Now().Add(limit)
	for {
		w.mu.Lock()
		last, bad, ferr := w.last, w.bad, w.fetchErr
		w.mu.Unlock()
		if bad != nil {
			return bad
		}
		if time.Since(last) >= quiet {
			if ferr != nil {
				return fmt.Errorf("the counting consumer failed: %w", ferr)
			}
			return nil
		}
		if time.Now().After(until) {
			return fmt.Errorf("the sink still received records %s after every instance had exited", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// peakRSS reads the VmHWM (KiB) of a running process.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the peak RSS: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			if f := strings.Fields(rest); len(f) == 2 && f[1] == "kB" {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("no VmHWM line in /proc/%d/status", pid)
}

// loadAverage returns the 1-minute load average (/proc/loadavg).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// clockTick is USER_HZ, the unit of /proc's CPU times (100 on Linux).
const clockTick = 100

// procCPU returns the user + system CPU time of process pid so far, 0 when
// pid is 0 or unreadable.
func procCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) start at
	// state; utime and stime are fields 14 and 15 of the line.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clockTick
}

// selfCPU returns this process's user + system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineCPU returns the busy and total jiffies of all cores (/proc/stat).
func machineCPU() (busy, total int64) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	if !s.Scan() {
		return 0, 0
	}
	fields := strings.Fields(s.Text()) // cpu user nice system idle iowait irq softirq steal ...
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, 0
	}
	for i, v := range fields[1:9] {
		n, _ := strconv.ParseInt(v, 10, 64)
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}

func printScaleTable(w io.Writer, results []ScaleOutResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\tinstances\ttaskset\trecords/s\tout/s\t×1\tsteady/s\tfirst ms\tpeak RSS MB (each)\tCPU s/M\tbroker CPU s/M\tcounter CPU s/M\tCPU-bound/s\tbusy cores\tdup\trestarts\treassign\t")
	for _, r := range results {
		rss := make([]string, len(r.PeakRSSMB))
		for i, v := range r.PeakRSSMB {
			rss[i] = strconv.FormatFloat(v, 'f', 0, 64)
		}
		fmt.Fprintf(tw, "%s\t%d\t%v\t%.0f\t%.0f\t%.2f\t%.0f\t%.0f\t%s\t%.2f\t%.2f\t%.2f\t%.0f\t%.2f\t%d\t%d\t%d\t\n", r.Config, r.Instances, r.Pinned,
			r.RecordsPerSec, r.OutPerSec, r.Ratio, r.SteadyPerSec, r.FirstMS, strings.Join(rss, "/"), r.CPUSecPerM, r.BrokerCPUSecPerM,
			r.ParentCPUSecPerM, r.CPUBoundPerSec, r.BusyCores, r.Duplicates, r.Restarts, r.Reassignments)
	}
	tw.Flush()
}
