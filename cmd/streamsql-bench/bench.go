package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// scenario is one pipe configuration.
type scenario struct {
	Name      string
	Guarantee string // "at-least-once" or "exactly-once"
	Baseline  string // "default" or "tuned" for the encoding/json pipe
	// Reference is refRawCopy or refFastJSON for the reference pipes
	// (handpipe.go), "" for the others.
	Reference string
	// Optional scenarios run only when -only names them.
	Optional bool
	// CopiesAll is set for the raw copy, which writes every record it
	// reads (the others write those that pass the filter).
	CopiesAll bool
	// Settings are a baseline's client settings, passed to its child (so
	// that -tuned and -tune can change them); nil for streamsql.
	Settings *ClientSettings
	mode     streamsqlMode // streamsql's scenarios
	run      func(ctx context.Context, bootstrap, src, dst string, expect int64, ready func()) (pipeResult, error)
}

func baselineScenario(name, guarantee, which string, set ClientSettings) scenario {
	txn := guarantee == "exactly-once"
	return scenario{Name: name, Guarantee: guarantee, Baseline: which, Settings: &set,
		run: func(ctx context.Context, bootstrap, src, dst string, expect int64, ready func()) (pipeResult, error) {
			return runBaseline(ctx, bootstrap, src, dst, expect, txn, set, ready)
		}}
}

// withSettings returns the baseline scenario sc running with set instead.
func (sc scenario) withSettings(set ClientSettings) scenario {
	return baselineScenario(sc.Name, sc.Guarantee, sc.Baseline, set)
}

// scenarios are the pipes the benchmark runs: the reference pipes, the
// encoding/json baselines (the tuned ones only on request), then streamsql.
var scenarios = []scenario{
	referenceScenario(scenarioRawALO, "at-least-once", refRawCopy),
	referenceScenario(scenarioRawTxn, "exactly-once", refRawCopy),
	referenceScenario(scenarioFastALO, "at-least-once", refFastJSON),
	referenceScenario(scenarioFastTxn, "exactly-once", refFastJSON),
	baselineScenario("baseline-alo-default", "at-least-once", "default", defaultSettings),
	optional(baselineScenario("baseline-alo-tuned", "at-least-once", "tuned", tunedSettings)),
	baselineScenario("baseline-txn-default", "exactly-once", "default", defaultSettings),
	optional(baselineScenario("baseline-txn-tuned", "exactly-once", "tuned", tunedSettings)),
	streamsqlScenario(scenarioALO, "at-least-once", streamsqlMode{guarantee: "at-least-once"}),
	streamsqlScenario(scenarioALOCkpt, "at-least-once", streamsqlMode{guarantee: "at-least-once", checkpoint: true}),
	streamsqlScenario(scenarioEO, "exactly-once", streamsqlMode{guarantee: "exactly-once", checkpoint: true}),
	streamsqlScenario("streamsql-upsert-alo", "at-least-once", streamsqlMode{upsert: true, guarantee: "at-least-once"}),
	// The runtime's channel hand-off between source and sink task instead
	// of chaining them (jobconfig.Config.DisableChaining), for A/B runs.
	optional(streamsqlScenario(scenarioALO+"-unchained", "at-least-once", streamsqlMode{guarantee: "at-least-once", unchained: true})),
	optional(streamsqlScenario(scenarioEO+"-unchained", "exactly-once", streamsqlMode{guarantee: "exactly-once", checkpoint: true, unchained: true})),
}

// The two scenarios whose ratio is the cost of checkpointing, and the
// exactly-once one.
const (
	scenarioALO     = "streamsql-alo"
	scenarioALOCkpt = "streamsql-alo-ckpt1s"
	scenarioEO      = "streamsql-eo-ckpt1s"
)

func scenarioByName(name string) (scenario, bool) {
	for _, s := range scenarios {
		if s.Name == name {
			return s, true
		}
	}
	return scenario{}, false
}

// options are the benchmark's flags.
type options struct {
	bootstrap      string
	records        int64
	partitions     int
	runs           int
	latencyRate    int
	latencySeconds int
	// latencyRuns is the number of latency runs per scenario, interleaved
	// across the scenarios; the median p50 and p99 are reported.
	latencyRuns int
	jsonOut     string
	mdOut       string // the tables as Markdown (markdown.go)
	only        string
	tuned       string // client settings replacing the tuned set ("key=value,...")
	tune        bool   // run the tuning sweep instead of the benchmark
	// taskset, when not empty, is the CPU list every child process (pipes
	// and hogs) is pinned to with taskset -c.
	taskset string
	// hogs is the number of busy-loop child processes that run during
	// each latency run.
	hogs int
	// payload, when positive, is the size in bytes the source records are
	// padded to (their note field); 0 keeps the standard ~265-byte record.
	payload int
	// scaling runs the scaling sweep (scaling.go) instead of the benchmark.
	scaling bool
	scale   scaleFlags // the scale-out mode (scaleout.go)
	// nexmark is the Nexmark suite (nexmark.go).
	nexmark nexmarkFlags
}

// Result is one scenario's figures, as written to the JSON file.
type Result struct {
	Scenario        string  `json:"scenario"`
	Guarantee       string  `json:"guarantee"`
	Records         int64   `json:"records"`
	RecordsOut      int64   `json:"records_out"`
	RecordsPerSec   float64 `json:"records_per_sec"`  // median of the runs
	MBPerSec        float64 `json:"mb_per_sec"`       // median of the runs
	RatioDefault    float64 `json:"ratio_to_default"` // to baseline with the same guarantee, default settings
	RatioTuned      float64 `json:"ratio_to_tuned"`   // to baseline with the same guarantee, tuned settings
	PeakRSSMB       float64 `json:"peak_rss_mb"`      // largest of the runs
	CPUSecPerMillon float64 `json:"cpu_sec_per_million"`
	// StartToFirstMS is the median time from starting the child process
	// to the moment a read_uncommitted consumer in the parent sees the
	// first output record in the sink topic.
	StartToFirstMS float64 `json:"start_to_first_record_ms"`
	// LatencyP50MS and LatencyP99MS are the medians over the latency runs
	// of each run's p50 and p99; LatencyRuns holds every run's figures.
	LatencyP50MS float64      `json:"latency_p50_ms"`
	LatencyP99MS float64      `json:"latency_p99_ms"`
	LatencyRuns  []LatencyRun `json:"latency_runs,omitempty"`
	// CheckpointP99MS is the p99 of the checkpoint durations of all runs
	// (streamsql with checkpoints only).
	CheckpointP99MS float64 `json:"checkpoint_p99_ms,omitempty"`
	// CheckpointCostPct is, for the at-least-once run with 1 s
	// checkpoints, the throughput lost to checkpointing: 100 × (1 −
	// rate with / rate without).
	CheckpointCostPct float64 `json:"checkpoint_cost_pct,omitempty"`
	Runs              int     `json:"runs"`
	// ClientSettings are a baseline's client settings.
	ClientSettings string `json:"client_settings,omitempty"`

	// RatioRaw and RatioFastJSON are the ratios of records/s to the raw
	// copy and to the fastjson pipe with the same guarantee (at least
	// once, or transactional with a commit every second); CPURatioRaw is
	// CPU seconds per record over the raw copy's. (RatioDefault and
	// RatioTuned are to the encoding/json baselines.)
	RatioRaw      float64 `json:"ratio_to_rawcopy,omitempty"`
	RatioFastJSON float64 `json:"ratio_to_fastjson,omitempty"`
	CPURatioRaw   float64 `json:"cpu_ratio_to_rawcopy,omitempty"`
	// Taskset is the CPU list the children were pinned to, if any; Hogs
	// the number of busy-loop processes during the latency run.
	Taskset string `json:"taskset,omitempty"`
	Hogs    int    `json:"latency_hogs,omitempty"`
	// StartPhases splits StartToFirstMS into the steps of streamsql's
	// start-up (median of each over the runs; streamsql scenarios only).
	StartPhases []StartPhase `json:"start_phases,omitempty"`
}

// LatencyRun is the figures of one latency run: the p50 and p99 of the
// end-to-end latencies of the records it measured.
type LatencyRun struct {
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
}

func benchMain(ctx context.Context, args []string, stdout io.Writer) error {
	var o options
	fs := flag.NewFlagSet("streamsql-bench", flag.ContinueOnError)
	fs.StringVar(&o.bootstrap, "bootstrap", os.Getenv("STREAMSQL_KAFKA_BOOTSTRAP"), "Kafka bootstrap address")
	fs.Int64Var(&o.records, "records", 1_000_000, "records to load into the source topic")
	fs.IntVar(&o.partitions, "partitions", 6, "partitions of the source topic")
	fs.IntVar(&o.runs, "runs", 3, "runs per scenario (the median is reported)")
	fs.IntVar(&o.latencyRate, "latency-rate", 20_000, "offered load of the latency run, records/s (0 skips it)")
	fs.IntVar(&o.latencySeconds, "latency-seconds", 10, "duration of the latency run")
	fs.IntVar(&o.latencyRuns, "latency-runs", 3, "latency runs per scenario, interleaved across scenarios (the median p50 and p99 are reported)")
	fs.StringVar(&o.jsonOut, "json", "", "write the results as JSON to this file")
	fs.StringVar(&o.mdOut, "md", "", "write the scenario and targets tables as Markdown to this file")
	fs.StringVar(&o.only, "only", "", "comma-separated scenario names to run (default all)")
	fs.StringVar(&o.tuned, "tuned", "", "client settings for the tuned baselines, key=value,... over the built-in tuned set")
	fs.BoolVar(&o.tune, "tune", false, "search for the best client settings of the at-least-once baseline instead of benchmarking")
	fs.StringVar(&o.taskset, "taskset", "", "pin every child process to these CPUs (taskset -c LIST, e.g. 0)")
	fs.IntVar(&o.hogs, "hogs", 2, "busy-loop processes competing for the CPUs during each latency run")
	fs.IntVar(&o.payload, "payload", 0, "pad source records to about this many bytes (0: the standard ~265-byte record)")
	fs.BoolVar(&o.scaling, "scaling", false, "run the scaling sweep (partitions, payload sizes, pipelines per job) instead of the benchmark")
	o.scale.register(fs)
	o.nexmark.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.bootstrap == "" {
		return errors.New("no broker: pass -bootstrap or set STREAMSQL_KAFKA_BOOTSTRAP (scripts/bench.sh starts one)")
	}
	if o.scale.counts != "" {
		return scaleMain(ctx, o, fs, stdout)
	}
	if o.nexmark.queries != "" {
		return nexmarkMain(ctx, o, stdout)
	}
	if o.tuned != "" {
		set, err := parseSettings(tunedSettings, o.tuned)
		if err != nil {
			return err
		}
		for i, sc := range scenarios {
			if sc.Baseline == "tuned" {
				scenarios[i] = sc.withSettings(set)
			}
		}
	}
	if o.tune {
		_, err := tune(ctx, o, tuneSteps, stdout)
		return err
	}
	if o.scaling {
		return scalingMain(ctx, o, stdout)
	}
	results, err := runAll(ctx, o, stdout)
	if err != nil {
		return err
	}
	printTable(stdout, results)
	printPhases(stdout, results)
	fmt.Fprintln(stdout)
	printTargets(stdout, results)
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(o.jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if o.mdOut != "" {
		var b bytes.Buffer
		writeMarkdown(&b, results)
		if err := os.WriteFile(o.mdOut, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// benchTopics creates and, when the run ends, deletes the benchmark's
// topics.
type benchTopics struct {
	adm     *kadm.Client
	stamp   int64
	n       int
	created []string
}

// make creates a topic named for kind with the given partitions.
func (t *benchTopics) make(ctx context.Context, kind string, partitions int) (string, error) {
	t.n++
	name := fmt.Sprintf("bench-%d-%s-%d", t.stamp, kind, t.n)
	resp, err := t.adm.CreateTopic(ctx, int32(partitions), 1, nil, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return "", fmt.Errorf("creating topic %s: %w", name, err)
	}
	t.created = append(t.created, name)
	return name, awaitTopic(ctx, t.adm, name, partitions)
}

func (t *benchTopics) deleteAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if len(t.created) > 0 {
		_, _ = t.adm.DeleteTopics(ctx, t.created...)
	}
}

// loadSource creates the source topic and loads o.records into it; it
// returns the topic, how many records pass the filter and the bytes of
// the values.
func loadSource(ctx context.Context, o options, topics *benchTopics, log io.Writer) (src string, passing, loaded int64, err error) {
	if src, err = topics.make(ctx, "src", o.partitions); err != nil {
		return "", 0, 0, err
	}
	fmt.Fprintf(log, "loading %d records into %s (%d partitions)\n", o.records, src, o.partitions)
	passing, loaded, err = load(ctx, o.bootstrap, src, o.records, o.payload)
	return src, passing, loaded, err
}

// throughputRun runs sc once over the whole source topic into a new sink
// topic and checks the counts.
func throughputRun(ctx context.Context, o options, topics *benchTopics, sc scenario, src string, passing int64) (measured, error) {
	n := int64(max(1, sc.mode.pipelines))
	var dsts []string
	for range n {
		dst, err := topics.make(ctx, "dst", o.partitions)
		if err != nil {
			return measured{}, err
		}
		dsts = append(dsts, dst)
	}
	m, err := runChild(ctx, sc, o, src, strings.Join(dsts, ","), 0, nil)
	if err != nil {
		return m, err
	}
	wantOut := passing
	if sc.CopiesAll {
		wantOut = o.records
	}
	// The INSERTs of a multi-pipeline job are one statement set, which
	// reads the source once (its scan is shared, as in Flink) and writes
	// every sink.
	if m.res.In != o.records || m.res.Out != n*wantOut {
		return m, fmt.Errorf("consumed %d and produced %d records, want %d and %d", m.res.In, m.res.Out, o.records, n*wantOut)
	}
	return m, nil
}

// runAll loads the source topic and runs every selected scenario o.runs
// times, interleaved (run 1 of every scenario, then run 2, ...) so that a
// change in the load of the shared machine falls on every scenario alike,
// then o.latencyRuns latency runs of each, interleaved the same way. A
// single p99 under CPU hogs moves several-fold between runs on a shared
// machine, so the reported p50 and p99 are the medians over the runs.
func runAll(ctx context.Context, o options, log io.Writer) ([]Result, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(o.bootstrap))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	topics := &benchTopics{adm: kadm.NewClient(cl), stamp: time.Now().UnixNano()}
	defer topics.deleteAll()
	src, passing, loaded, err := loadSource(ctx, o, topics, log)
	if err != nil {
		return nil, err
	}
	if err := warmUp(ctx, o.bootstrap, topics); err != nil {
		return nil, err
	}

	var selected []scenario
	for _, sc := range scenarios {
		if o.only == "" && !sc.Optional || slices.Contains(strings.Split(o.only, ","), sc.Name) {
			selected = append(selected, sc)
		}
	}
	type runs struct {
		rates, mbs, starts, ckpts []float64
		phases                    [][]float64
		cpu, rss                  float64
		out                       int64
	}
	acc := make([]runs, len(selected))
	for run := range o.runs {
		for i, sc := range selected {
			m, err := throughputRun(ctx, o, topics, sc, src, passing)
			if err != nil {
				return nil, fmt.Errorf("%s run %d: %w", sc.Name, run+1, err)
			}
			a := &acc[i]
			secs := float64(m.res.ElapsedNS) / 1e9
			a.rates = append(a.rates, float64(m.res.In)/secs)
			// Every pipe reads the same values: MB/s counts the source's
			// JSON values (keys and protocol overhead left out).
			a.mbs = append(a.mbs, float64(loaded)/secs/1e6)
			if m.res.CheckpointP99NS > 0 {
				a.ckpts = append(a.ckpts, float64(m.res.CheckpointP99NS)/1e6)
			}
			a.starts = append(a.starts, float64(m.firstOut.Sub(m.started))/1e6)
			a.cpu += m.cpu.Seconds()
			a.rss = max(a.rss, m.maxRSSMB)
			a.out = m.res.Out
			fmt.Fprintf(log, "%-24s run %d: %.0f records/s, %.1f MB/s, peak RSS %.0f MB (ru_maxrss %.0f MB), start→first %.0f ms\n",
				sc.Name, run+1, a.rates[run], a.mbs[run], m.maxRSSMB, m.parentRSSMB, a.starts[run])
			if d := m.res.Phases.durations(m.started, m.firstOut); d != nil {
				a.phases = append(a.phases, d)
				fmt.Fprintf(log, "%-24s run %d start-up ms: %s\n", sc.Name, run+1, formatPhases(d))
			}
		}
	}
	var results []Result
	for i, sc := range selected {
		a := acc[i]
		res := Result{Scenario: sc.Name, Guarantee: sc.Guarantee, Records: o.records, Runs: o.runs, RecordsOut: a.out, PeakRSSMB: a.rss,
			Taskset: o.taskset, StartPhases: medianPhases(a.phases),
			RecordsPerSec: median(a.rates), MBPerSec: median(a.mbs), StartToFirstMS: median(a.starts),
			CPUSecPerMillon: a.cpu / float64(o.runs) / (float64(o.records) / 1e6)}
		if sc.Settings != nil {
			res.ClientSettings = sc.Settings.String()
		}
		if len(a.ckpts) > 0 {
			res.CheckpointP99MS = slices.Max(a.ckpts)
		}
		results = append(results, res)
	}
	if o.latencyRate > 0 {
		for run := range max(1, o.latencyRuns) {
			for i, sc := range selected {
				p50, p99, err := latencyRun(ctx, o, sc, topics)
				if err != nil {
					return nil, fmt.Errorf("%s latency run %d: %w", sc.Name, run+1, err)
				}
				fmt.Fprintf(log, "%-24s latency run %d: p50 %.1f ms, p99 %.1f ms (%d CPU hogs)\n", sc.Name, run+1, p50, p99, o.hogs)
				results[i].LatencyRuns = append(results[i].LatencyRuns, LatencyRun{P50MS: p50, P99MS: p99})
			}
		}
		for i := range results {
			results[i].Hogs = o.hogs
			results[i].summarizeLatency()
		}
	}
	fillRatios(results)
	return results, nil
}

// summarizeLatency sets LatencyP50MS and LatencyP99MS to the medians of
// the latency runs' figures (the lower middle one for an even count).
func (r *Result) summarizeLatency() {
	var p50s, p99s []float64
	for _, l := range r.LatencyRuns {
		p50s, p99s = append(p50s, l.P50MS), append(p99s, l.P99MS)
	}
	r.LatencyP50MS, r.LatencyP99MS = median(p50s), median(p99s)
}

// fillRatios sets each result's ratios to the baselines of its guarantee.
func fillRatios(results []Result) {
	rate := map[string]float64{}
	for _, r := range results {
		rate[r.Scenario] = r.RecordsPerSec
	}
	for i := range results {
		if results[i].Scenario == scenarioALOCkpt && rate[scenarioALO] > 0 {
			results[i].CheckpointCostPct = 100 * (1 - results[i].RecordsPerSec/rate[scenarioALO])
		}
		for _, b := range results {
			sc, _ := scenarioByName(b.Scenario)
			if b.Guarantee != results[i].Guarantee || b.RecordsPerSec == 0 {
				continue
			}
			ratio := results[i].RecordsPerSec / b.RecordsPerSec
			switch {
			case sc.Reference == refRawCopy:
				results[i].RatioRaw = ratio
				if b.CPUSecPerMillon > 0 {
					results[i].CPURatioRaw = results[i].CPUSecPerMillon / b.CPUSecPerMillon
				}
			case sc.Reference == refFastJSON:
				results[i].RatioFastJSON = ratio
			case sc.Baseline == "default":
				results[i].RatioDefault = ratio
			case sc.Baseline == "tuned":
				results[i].RatioTuned = ratio
			}
		}
	}
}

type measured struct {
	res      pipeResult
	started  time.Time
	firstOut time.Time // when the parent first saw an output record (throughput runs)
	cpu      time.Duration
	maxRSSMB float64
	// parentRSSMB is ru_maxrss as wait4 reports it, for comparison only.
	parentRSSMB float64
}

// runChild runs one pipe in a child process (this binary, in pipe mode).
// ready, when not nil, is closed once the pipe has connected; when nil (a
// throughput run), a read_uncommitted consumer in this process watches dst
// for the first output record.
func runChild(ctx context.Context, sc scenario, o options, src, dst string, expect int64, ready chan<- struct{}) (measured, error) {
	var m measured
	bootstrap := o.bootstrap
	args := []string{"-scenario", sc.Name, "-bootstrap", bootstrap, "-src", src, "-dst", dst, "-expect", fmt.Sprint(expect)}
	if sc.Settings != nil {
		args = append(args, "-settings", sc.Settings.String())
	}
	if sc.mode.pipelines > 1 {
		args = append(args, "-pipelines", fmt.Sprint(sc.mode.pipelines))
		dst, _, _ = strings.Cut(dst, ",") // watchFirst watches the first sink
	}
	cmd, err := childCommand(ctx, o, args...)
	if err != nil {
		return m, err
	}
	cmd.Env = append(os.Environ(), envPipe+"=1")
	var first <-chan time.Time
	if ready == nil {
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if first, err = watchFirst(wctx, bootstrap, dst); err != nil {
			return m, err
		}
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return m, err
	}
	m.started = time.Now()
	if err := cmd.Start(); err != nil {
		return m, err
	}
	// The child writes "ready" on a line of its own, then its result.
	lines := bufio.NewScanner(stdout)
	var result []byte
	for lines.Scan() {
		if lines.Text() == readyLine {
			if ready != nil {
				close(ready)
				ready = nil
			}
			continue
		}
		result = append(result, lines.Bytes()...)
	}
	if err := cmd.Wait(); err != nil {
		return m, fmt.Errorf("%w: %s", err, strings.TrimSpace(errb.String()))
	}
	if err := json.Unmarshal(result, &m.res); err != nil {
		return m, fmt.Errorf("reading the pipe's result %q: %w", result, err)
	}
	if first != nil {
		select {
		case m.firstOut = <-first:
		case <-time.After(10 * time.Second):
			return m, fmt.Errorf("the consumer watching %s saw no output record", dst)
		}
	}
	m.maxRSSMB = float64(m.res.PeakRSSKB) / 1024
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.parentRSSMB = float64(ru.Maxrss) / 1024 // KiB on Linux; includes the parent's peak, see peakRSSKB
		m.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return m, nil
}

// watchFirst starts a read_uncommitted consumer of every partition of topic
// from its start and returns a channel that receives the time it first
// sees a record. The consumer ends then, or when ctx ends.
func watchFirst(ctx context.Context, bootstrap, topic string) (<-chan time.Time, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	if err != nil {
		return nil, err
	}
	if err := cl.Ping(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	first := make(chan time.Time, 1)
	go func() {
		defer cl.Close()
		for ctx.Err() == nil {
			if fs := cl.PollRecords(ctx, 1); fs.NumRecords() > 0 {
				first <- time.Now()
				return
			}
		}
	}()
	return first, nil
}

// latencyRun offers load at a fixed rate to a running pipe and measures, for
// each output record, the time from its production to the moment a consumer
// with the matching isolation level sees it.
func latencyRun(ctx context.Context, o options, sc scenario, topics *benchTopics) (p50, p99 float64, err error) {
	src, err := topics.make(ctx, "lsrc-"+sc.Name, o.partitions)
	if err != nil {
		return 0, 0, err
	}
	dst, err := topics.make(ctx, "ldst-"+sc.Name, o.partitions)
	if err != nil {
		return 0, 0, err
	}
	total := int64(o.latencyRate * o.latencySeconds)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	childErr := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		_, err := runChild(ctx, sc, o, src, dst, total, ready)
		childErr <- err
	}()
	select {
	case <-ready:
	case err := <-childErr:
		return 0, 0, fmt.Errorf("the pipe ended before it was ready: %v", err)
	}
	stopHogs, err := startHogs(ctx, o)
	if err != nil {
		return 0, 0, err
	}
	defer stopHogs()

	iso := kgo.ReadUncommitted()
	if sc.Guarantee == "exactly-once" {
		iso = kgo.ReadCommitted()
	}
	consumer, err := kgo.NewClient(kgo.SeedBrokers(o.bootstrap), kgo.ConsumeTopics(dst),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(iso), kgo.FetchMaxWait(50*time.Millisecond))
	if err != nil {
		return 0, 0, err
	}
	defer consumer.Close()
	producer, err := kgo.NewClient(kgo.SeedBrokers(o.bootstrap), kgo.DefaultProduceTopic(src), kgo.ProducerLinger(0))
	if err != nil {
		return 0, 0, err
	}
	defer producer.Close()

	var passing int64
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		perTick := int64(o.latencyRate / 100)
		for i := int64(0); i < total; {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for j := int64(0); j < perTick && i < total; j++ {
				rec := makeRecord(i, time.Now())
				b, _ := json.Marshal(rec)
				producer.Produce(ctx, &kgo.Record{Value: b}, nil)
				i++
			}
		}
	}()
	for i := range total {
		if sc.CopiesAll || makeRecord(i, zeroTime).passes() {
			passing++ // the raw copy writes every record
		}
	}
	// Records produced in the first second are warm-up: counted, not measured.
	warmUntil := time.Now().Add(time.Second).UnixMicro()
	var lats []float64
	seen := int64(0)
	deadline := time.Now().Add(time.Duration(o.latencySeconds)*time.Second + 2*time.Minute)
	for seen < passing {
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("saw %d of %d output records before the deadline", seen, passing)
		}
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		fs := consumer.PollFetches(pctx)
		pcancel()
		now := time.Now()
		fs.EachRecord(func(r *kgo.Record) {
			var s sinkRecord
			if json.Unmarshal(r.Value, &s) == nil {
				seen++
				if s.TS >= warmUntil {
					lats = append(lats, float64(now.UnixMicro()-s.TS)/1000)
				}
			}
		})
		select {
		case err := <-childErr:
			if err != nil {
				return 0, 0, err
			}
			childErr <- nil
		default:
		}
	}
	if err := <-childErr; err != nil {
		return 0, 0, err
	}
	sort.Float64s(lats)
	return quantile(lats, 0.5), quantile(lats, 0.99), nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	return quantile(s, 0.5)
}

// quantile returns the q-quantile of sorted xs by the nearest-rank
// method: the smallest value with at least q of the values at or below it
// (the middle one of 3 for q = 0.5).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// latencyRuns formats the p99 of each latency run, in run order.
func latencyRuns(runs []LatencyRun) string {
	if len(runs) == 0 {
		return "–"
	}
	parts := make([]string, len(runs))
	for i, l := range runs {
		parts[i] = fmt.Sprintf("%.0f", l.P99MS)
	}
	return strings.Join(parts, "/")
}

// printTable writes the figures of every scenario; the ratios are to the
// pipes of the same guarantee ("–" where that pipe did not run).
func printTable(w io.Writer, results []Result) {
	ratio := func(x float64) string {
		if x == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", x)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tguarantee\trecords/s\tMB/s\t×raw\t×fastjson\t×stdjson\tCPU s/M\tCPU ×raw\tpeak RSS MB\tstart→first ms\tp50 ms\tp99 ms\tp99 runs ms\tckpt p99 ms\tckpt cost %\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.1f\t%s\t%s\t%s\t%.2f\t%s\t%.0f\t%.0f\t%.1f\t%.1f\t%s\t%.0f\t%.1f\t\n", r.Scenario, r.Guarantee,
			r.RecordsPerSec, r.MBPerSec, ratio(r.RatioRaw), ratio(r.RatioFastJSON), ratio(r.RatioDefault), r.CPUSecPerMillon, ratio(r.CPURatioRaw),
			r.PeakRSSMB, r.StartToFirstMS, r.LatencyP50MS, r.LatencyP99MS, latencyRuns(r.LatencyRuns), r.CheckpointP99MS, r.CheckpointCostPct)
	}
	tw.Flush()
}
