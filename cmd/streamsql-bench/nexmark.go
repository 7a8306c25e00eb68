package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The Nexmark suite (-nexmark q0,q1,...) runs the public Nexmark query files
// (ddl/testdata/nexmark, copied unchanged from nexmark/nexmark, where the
// parser's and planner's tests read them too) through streamsql and,
// beside it on the same events in the same run, through Flink 2.2 on a
// MiniCluster at parallelism 1 (tools/flink-sql-runner). Each query runs as
// its public suite runs it: a DDL file (ddl_kafka.sql: events read as JSON
// from a Kafka topic; ddl_gen.sql: events made in the job by the nexmark
// connector), ddl_views.sql (the person, auction and bid views), then the
// query file, whose sink is a blackhole (q10: partitioned files).
//
// Per-core rate by two input sizes. Every engine runs pinned to one CPU
// (taskset; the broker on the others), once over N events and once over
// 2N, each a whole process from exec to exit. The rate reported is the
// marginal one, N / (wall(2N) − wall(N)): what the second N events cost,
// with start-up (Flink's JVM, MiniCluster and planner: seconds; streamsql:
// milliseconds) and Flink's JIT warm-up cancelled out — what a
// long-running job sees. CPU-seconds per million events are marginal the
// same way, from the children's rusage. Each figure is the median of the
// runs, taken interleaved (every query and engine at both sizes, then the
// next run), so that the shared machine's load falls on all of them alike.
// Peak RSS is the largest VmHWM any run of the engine reported (each child
// reads its own /proc/self/status at the end).
//
// The Kafka table is bounded with option hints, not by editing the file:
// 'scan.bounded.mode' = 'specific-offsets' at offset N or 2N of the topic's
// one partition, for streamsql as a job.Options hint and for Flink as an
// ALTER TABLE ... SET after the file's CREATE TABLE. The generator table of
// ddl_gen.sql is bounded by its own events.num, set to N or 2N, with the
// same rate and proportions for both engines: streamsql's nexmark connector
// makes the events in streamsql, the public one (not on Maven Central;
// tools/nexmark-connector builds it from github.com/nexmark/nexmark at a
// pinned commit against Flink 2.2.1, and -flink-nexmark-jar finds it) in
// Flink. A query that streamsql
// cannot plan is reported as not supported yet, with the planner's message;
// one that Flink refuses (q6: an OVER window over retractions) likewise.

// nexmarkDir is where the query files are, from the repository's root.
const nexmarkDir = "ddl/testdata/nexmark"

// nexmarkSuite is the public suite's default list of queries
// (nexmark-flink's conf/nexmark.yaml: q6 is left out, Flink does not run it).
var nexmarkSuite = []string{"q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8", "q9", "q10", "q11", "q12", "q13",
	"q14", "q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22", "q23"}

// The event mix of the public suite's configuration (nexmark.yaml): per
// 50 events, 1 person, 3 auctions and 46 bids.
const (
	nexmarkPersonProportion  = 1
	nexmarkAuctionProportion = 3
	nexmarkBidProportion     = 46
)

// nexmarkTPS is the public suite's event rate (nexmark.yaml's 10,000,000
// events/s): the spacing of the events' times, for the Kafka topic's
// events and ddl_gen.sql's alike.
const nexmarkTPS = "10000000"

// nexmarkFlags are the suite's flags.
type nexmarkFlags struct {
	queries string // -nexmark: q0,q1,... or "all"
	events  int64  // N: the smaller input; the larger is 2N
	runs    int
	ddl     string // kafka, gen or kafka,gen
	flink   string // auto, off, or a class path
	// flinkGen is the public nexmark connector's jar for Flink over
	// ddl_gen.sql: auto (build tools/nexmark-connector), off, or a path.
	flinkGen string
	flinkJVM string // extra JVM options for Flink's process
	cpu      string // the CPU the engines are pinned to; "none" pins nothing
	mdOut    string // the table as Markdown, for BENCHMARKS.md
	// flinkAll runs Flink on the queries streamsql refuses or fails too
	// (by default they are "not run" for Flink, which saves most of a
	// recorded run's time while streamsql runs few of them).
	flinkAll bool
}

func (f *nexmarkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.queries, "nexmark", "", "run these Nexmark queries (q0,q1,... or all) through streamsql and Flink instead of the benchmark")
	fs.Int64Var(&f.events, "nexmark-events", 2_000_000, "Nexmark: events of the smaller run; the larger reads twice as many, and the rate is the difference's")
	fs.IntVar(&f.runs, "nexmark-runs", 3, "Nexmark: runs of each query, engine and size (the median is reported)")
	fs.StringVar(&f.ddl, "nexmark-ddl", "kafka", "Nexmark: the event tables to run the queries over: kafka (ddl_kafka.sql), gen (ddl_gen.sql: streamsql's nexmark connector, and Flink's through the public one, see -flink-nexmark-jar), or both, comma-separated")
	fs.StringVar(&f.flink, "flink", "auto", "Nexmark: Flink beside streamsql: auto (build tools/flink-sql-runner when java and mvn are there), off, or the runner's class path")
	fs.StringVar(&f.flinkGen, "flink-nexmark-jar", "auto", "Nexmark: the public nexmark connector's jar for Flink over -nexmark-ddl gen: auto (build tools/nexmark-connector: git, java and mvn, GitHub and Maven Central on first use), off (Flink does not run gen), or the jar's path")
	fs.StringVar(&f.flinkJVM, "flink-jvm-opts", "", "Nexmark: extra options for Flink's JVM (space-separated), e.g. -Xmx1g")
	fs.StringVar(&f.cpu, "nexmark-cpu", "", "Nexmark: the CPU every engine is pinned to (taskset -c; default the last CPU; the broker, when this run started it, goes on the others); none: no pinning")
	fs.StringVar(&f.mdOut, "nexmark-md", "", "Nexmark: also write the table as Markdown to this file")
	fs.BoolVar(&f.flinkAll, "nexmark-flink-all", false, "Nexmark: run Flink also on the queries streamsql does not run (by default they are not run for Flink either)")
}

// NexmarkResult is one query's figures through one engine and event table.
type NexmarkResult struct {
	Query  string `json:"query"`
	DDL    string `json:"ddl"`    // kafka or gen
	Engine string `json:"engine"` // streamsql or flink
	// Status is "ok", "not supported yet" (the engine refused the query
	// when planning it), "failed" (it failed while running) or "not run".
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	// Events is N, the events of the smaller run.
	Events int64 `json:"events"`
	// EventsPerSec and CPUSecPerMEvents are marginal: from the medians
	// of the runs over N and 2N events (0: not measured, or the larger
	// run was not slower).
	EventsPerSec     float64 `json:"events_per_sec"`
	CPUSecPerMEvents float64 `json:"cpu_sec_per_million_events"`
	// WallSmall and WallLarge are the medians of the whole runs (seconds,
	// exec to exit) over N and 2N events; CPUSmall and CPULarge the
	// medians of their CPU seconds.
	WallSmall float64 `json:"wall_small_s"`
	WallLarge float64 `json:"wall_large_s"`
	CPUSmall  float64 `json:"cpu_small_s"`
	CPULarge  float64 `json:"cpu_large_s"`
	// PeakRSSMB is the largest peak RSS (VmHWM) of the runs.
	PeakRSSMB float64      `json:"peak_rss_mb"`
	Runs      []NexmarkRun `json:"runs,omitempty"`
}

// NexmarkRun is one run of one query through one engine.
type NexmarkRun struct {
	Events    int64   `json:"events"`
	WallS     float64 `json:"wall_s"`
	CPUS      float64 `json:"cpu_s"`
	PeakRSSMB float64 `json:"peak_rss_mb"`
}

// NexmarkReport is what -json writes for -nexmark.
type NexmarkReport struct {
	Events int64  `json:"events"`
	Runs   int    `json:"runs"`
	CPU    string `json:"cpu,omitempty"` // the CPU the engines were pinned to
	// BrokerCPUs is the CPU list the broker was pinned to, "" when it
	// was not (the broker was not started by this run).
	BrokerCPUs string          `json:"broker_cpus,omitempty"`
	Flink      string          `json:"flink"` // the Flink version, or why it did not run
	Results    []NexmarkResult `json:"results"`
}

// nexmarkEngine is one engine's way of running a query.
type nexmarkEngine struct {
	name string
	// command returns the child process that runs the files of one query
	// over events events; the child prints one JSON line (nexmarkChild).
	command func(ctx context.Context, q nexmarkQuery, events int64) (*exec.Cmd, error)
}

// nexmarkQuery is one query over one event table.
type nexmarkQuery struct {
	name, ddl string
	files     []string // paths of the DDL, views and query files
	// vars returns the values of the files' ${NAME} for a run over events
	// events.
	vars func(events int64) map[string]string
	// table is the DDL's table ("kafka" or "datagen") and bounded returns
	// the options that end its read after events events.
	table   string
	bounded func(events int64) map[string]string
	outDir  string // q10's output directory, emptied after each run
	// flinkHome is ${FLINK_HOME}, where q13 reads its side input.
	flinkHome string
}

// flinkSkipped is the message of a Flink cell left out because streamsql
// does not run its query (the tables list only the streamsql message).
const flinkSkipped = "streamsql does not run this query (-nexmark-flink-all runs Flink on it)"

// nexmarkChild is the line each engine's child prints at its end.
type nexmarkChild struct {
	PeakRSSKB int64 `json:"vm_hwm_kb"`
	// Events is what each of streamsql's source vertices read, the
	// fewest (-1 for Flink, which does not report it).
	Events int64 `json:"events"`
}

// exitNotSupported is the exit status of a child whose engine refused the
// query while planning it (streamsql's child; the Flink runner's is 2).
const exitNotSupported = 3

// nexmarkMain runs the suite, prints its table and writes the files -json
// and -nexmark-md ask for.
func nexmarkMain(ctx context.Context, o options, stdout io.Writer) error {
	report, err := runNexmarkSuite(ctx, o, stdout)
	if err != nil {
		return err
	}
	printNexmark(stdout, report)
	if o.nexmark.mdOut != "" || o.mdOut != "" {
		md := o.nexmark.mdOut
		if md == "" {
			md = o.mdOut
		}
		var b bytes.Buffer
		writeNexmarkMarkdown(&b, report)
		if err := os.WriteFile(md, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(report, "", "  ")
		if err := os.WriteFile(o.jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runNexmarkSuite loads the events and runs every query of -nexmark through
// each engine, logging each run to log.
func runNexmarkSuite(ctx context.Context, o options, log io.Writer) (NexmarkReport, error) {
	f := o.nexmark
	files, err := findUp(nexmarkDir)
	if err != nil {
		return NexmarkReport{}, err
	}
	queries, err := nexmarkQueries(f.queries, files)
	if err != nil {
		return NexmarkReport{}, err
	}
	if f.events <= 0 || f.runs <= 0 {
		return NexmarkReport{}, errors.New("-nexmark-events and -nexmark-runs must be positive")
	}
	ddls := strings.Split(f.ddl, ",")
	for _, d := range ddls {
		if d != "kafka" && d != "gen" {
			return NexmarkReport{}, fmt.Errorf("-nexmark-ddl: %q is neither kafka nor gen", d)
		}
	}
	dir, err := os.MkdirTemp("", "streamsql-nexmark-")
	if err != nil {
		return NexmarkReport{}, err
	}
	defer os.RemoveAll(dir)
	// q13's side input, as the public suite's side_input_gen.sh makes it:
	// rows i,i for i in [0, 10000), in $FLINK_HOME/data/side_input.txt.
	flinkHome := filepath.Join(dir, "flink-home")
	if err := writeSideInput(filepath.Join(flinkHome, "data", "side_input.txt"), 10000); err != nil {
		return NexmarkReport{}, err
	}
	report := NexmarkReport{Events: f.events, Runs: f.runs}
	if f.cpu == "" {
		f.cpu = strconv.Itoa(goruntime.NumCPU() - 1)
	}
	if f.cpu != "none" {
		report.CPU = f.cpu
		if report.BrokerCPUs, err = pinBroker(f.cpu); err != nil {
			return NexmarkReport{}, err
		}
	}
	if report.BrokerCPUs == "" {
		fmt.Fprintln(log, "the broker is not pinned (this run did not start it, or -nexmark-cpu none)")
	}
	flinkCP, why := flinkClassPath(ctx, f.flink, log)
	report.Flink = why
	if flinkCP != "" {
		report.Flink = "Flink " + flinkVersion
	} else {
		fmt.Fprintf(log, "Flink does not run: %s; streamsql runs alone\n", why)
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(o.bootstrap))
	if err != nil {
		return NexmarkReport{}, err
	}
	defer cl.Close()
	topics := &benchTopics{adm: kadm.NewClient(cl), stamp: time.Now().UnixNano()}
	defer topics.deleteAll()
	var topic string
	if slices.Contains(ddls, "kafka") {
		if topic, err = topics.make(ctx, "nexmark", 1); err != nil {
			return NexmarkReport{}, err
		}
		fmt.Fprintf(log, "loading %d Nexmark events into %s\n", 2*f.events, topic)
		start := time.Now()
		if err := loadNexmark(ctx, o.bootstrap, topic, 2*f.events); err != nil {
			return NexmarkReport{}, fmt.Errorf("loading the Nexmark events: %w", err)
		}
		fmt.Fprintf(log, "loaded in %.1f s\n", time.Since(start).Seconds())
	}

	// Flink over ddl_gen.sql needs the public nexmark connector on its
	// class path (it is not on Maven Central).
	genJar, genWhy := "", ""
	if flinkCP != "" && slices.Contains(ddls, "gen") {
		if genJar, genWhy = nexmarkConnectorJar(ctx, f.flinkGen, log); genJar == "" {
			fmt.Fprintf(log, "Flink does not run ddl_gen.sql: %s\n", genWhy)
		}
	}
	engines := map[string][]nexmarkEngine{}
	for _, d := range ddls {
		engines[d] = append(engines[d], streamsqlNexmarkEngine(o, f.cpu, dir))
		switch {
		case flinkCP == "":
		case d == "kafka":
			engines[d] = append(engines[d], flinkNexmarkEngine(f, flinkCP))
		case genJar != "":
			engines[d] = append(engines[d], flinkNexmarkEngine(f, flinkCP+string(os.PathListSeparator)+genJar))
		default:
			engines[d] = append(engines[d], nexmarkEngine{name: "flink"})
		}
	}
	type cell struct {
		res  *NexmarkResult
		eng  nexmarkEngine
		q    nexmarkQuery
		runs map[int64][]NexmarkRun
	}
	var cells []*cell
	for _, d := range ddls {
		for _, q := range queries {
			nq := makeNexmarkQuery(q, d, files, dir, o.bootstrap, topic)
			nq.flinkHome = flinkHome
			for _, e := range engines[d] {
				if e.command == nil {
					cells = append(cells, &cell{res: &NexmarkResult{Query: q, DDL: d, Engine: e.name, Events: f.events,
						Status: "not run", Message: "the public nexmark connector is not there: " + genWhy}})
					continue
				}
				cells = append(cells, &cell{res: &NexmarkResult{Query: q, DDL: d, Engine: e.name, Events: f.events, Status: "ok"},
					eng: e, q: nq, runs: map[int64][]NexmarkRun{}})
			}
		}
	}
	// A warm-up run of each engine: the broker's page cache, the
	// children's binaries and jars. Not measured.
	if len(cells) > 0 {
		for _, e := range []string{"streamsql", "flink"} {
			for _, c := range cells {
				if c.eng.name == e && c.res.Status == "ok" {
					fmt.Fprintf(log, "warm-up: %s %s over %s events\n", e, c.q.name, fmt.Sprint(f.events))
					if _, err := runNexmark(ctx, c.eng, c.q, f.events); err != nil {
						fmt.Fprintf(log, "warm-up: %v\n", err)
					}
					break
				}
			}
		}
	}
	// ran says whether streamsql ran a query over a DDL in the first run
	// (its cell comes before Flink's).
	ran := map[[2]string]bool{}
	for run := range f.runs {
		for _, c := range cells {
			if run == 0 && c.res.Status == "ok" && c.eng.name == "flink" && !f.flinkAll && !ran[[2]string{c.res.Query, c.res.DDL}] {
				c.res.Status, c.res.Message = "not run", flinkSkipped
				fmt.Fprintf(log, "%-4s %-5s %-9s: %s: %s\n", c.res.Query, c.res.DDL, c.res.Engine, c.res.Status, c.res.Message)
				continue
			}
			for _, n := range []int64{f.events, 2 * f.events} {
				if c.res.Status != "ok" {
					break
				}
				r, err := runNexmark(ctx, c.eng, c.q, n)
				if err != nil {
					if ctx.Err() != nil {
						return NexmarkReport{}, ctx.Err()
					}
					var ns *notSupportedError
					if errors.As(err, &ns) {
						c.res.Status, c.res.Message = "not supported yet", ns.msg
					} else {
						c.res.Status, c.res.Message = "failed", err.Error()
					}
					fmt.Fprintf(log, "%-4s %-5s %-9s: %s: %s\n", c.res.Query, c.res.DDL, c.res.Engine, c.res.Status, firstLine(c.res.Message))
					break
				}
				c.runs[n] = append(c.runs[n], r)
				if c.eng.name == "streamsql" && n == 2*f.events {
					ran[[2]string{c.res.Query, c.res.DDL}] = true
				}
				c.res.Runs = append(c.res.Runs, r)
				fmt.Fprintf(log, "%-4s %-5s %-9s run %d, %8d events: %6.2f s wall, %6.2f s CPU, peak RSS %4.0f MB\n",
					c.res.Query, c.res.DDL, c.res.Engine, run+1, n, r.WallS, r.CPUS, r.PeakRSSMB)
			}
		}
	}
	for _, c := range cells {
		if c.res.Status == "ok" {
			c.res.summarize(c.runs[f.events], c.runs[2*f.events])
		}
		report.Results = append(report.Results, *c.res)
	}
	return report, nil
}

// nexmarkQueries parses -nexmark's list, checking that dir holds each
// query's file.
func nexmarkQueries(list, dir string) ([]string, error) {
	if list == "all" {
		return nexmarkSuite, nil
	}
	var out []string
	for _, q := range strings.Split(list, ",") {
		q = strings.TrimSpace(q)
		if _, err := os.Stat(filepath.Join(dir, q+".sql")); err != nil || !strings.HasPrefix(q, "q") {
			return nil, fmt.Errorf("-nexmark: no query %q in %s (q0 to q23, or all)", q, dir)
		}
		out = append(out, q)
	}
	return out, nil
}

// makeNexmarkQuery returns query q over the event table of ddl (kafka or
// gen), with the query files in files and its output (q10's) under dir.
func makeNexmarkQuery(q, ddl, files, dir, bootstrap, topic string) nexmarkQuery {
	out := filepath.Join(dir, "out-"+q+"-"+ddl)
	vars := map[string]string{"NEXMARK_DIR": out, "SUBMIT_TIME": "run"}
	nq := nexmarkQuery{name: q, ddl: ddl, outDir: out}
	if ddl == "kafka" {
		nq.table = "kafka"
		nq.files = []string{filepath.Join(files, "ddl_kafka.sql"), filepath.Join(files, "ddl_views.sql"), filepath.Join(files, q+".sql")}
		vars["BOOTSTRAP_SERVERS"] = bootstrap
		vars["NEXMARK_TABLE"] = "kafka"
		nq.vars = func(int64) map[string]string { return vars }
		nq.bounded = func(events int64) map[string]string {
			// The file names topic 'nexmark'; the hint names this run's.
			return map[string]string{"topic": topic, "scan.bounded.mode": "specific-offsets",
				"scan.bounded.specific-offsets": fmt.Sprintf("partition:0,offset:%d", events)}
		}
		return nq
	}
	nq.table = "datagen"
	nq.files = []string{filepath.Join(files, "ddl_gen.sql"), filepath.Join(files, "ddl_views.sql"), filepath.Join(files, q+".sql")}
	vars["NEXMARK_TABLE"] = "datagen"
	vars["TPS"] = nexmarkTPS
	vars["PERSON_PROPORTION"] = strconv.Itoa(nexmarkPersonProportion)
	vars["AUCTION_PROPORTION"] = strconv.Itoa(nexmarkAuctionProportion)
	vars["BID_PROPORTION"] = strconv.Itoa(nexmarkBidProportion)
	nq.vars = func(events int64) map[string]string {
		v := maps.Clone(vars)
		v["EVENTS_NUM"] = strconv.FormatInt(events, 10)
		return v
	}
	nq.bounded = func(int64) map[string]string { return nil } // events.num bounds it
	return nq
}

// allVars returns the values of every ${NAME} of the query's files for a
// run over events events.
func (q nexmarkQuery) allVars(events int64) map[string]string {
	v := maps.Clone(q.vars(events))
	v["FLINK_HOME"] = q.flinkHome
	return v
}

// writeSideInput writes q13's side input file: rows "i,i" for i in [0, n),
// as the public suite's SideInputGenerator does.
func writeSideInput(path string, n int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// notSupportedError is a child's report that its engine refused the query
// while planning it.
type notSupportedError struct{ msg string }

func (e *notSupportedError) Error() string { return "not supported yet: " + e.msg }

// runNexmark runs one query over events events through engine e and
// measures it.
func runNexmark(ctx context.Context, e nexmarkEngine, q nexmarkQuery, events int64) (NexmarkRun, error) {
	defer os.RemoveAll(q.outDir)
	cmd, err := e.command(ctx, q, events)
	if err != nil {
		return NexmarkRun{}, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return NexmarkRun{}, err
	}
	err = cmd.Wait()
	wall := time.Since(start)
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) && (ee.ExitCode() == exitNotSupported || e.name == "flink" && ee.ExitCode() == 2) {
			return NexmarkRun{}, &notSupportedError{msg: msg}
		}
		return NexmarkRun{}, fmt.Errorf("%s %s: %w: %s", e.name, q.name, err, lastLines(msg, 20))
	}
	res := nexmarkChild{Events: -1}
	line := lastLine(out.String())
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		return NexmarkRun{}, fmt.Errorf("%s %s: reading the child's result %q: %w", e.name, q.name, line, err)
	}
	if res.Events >= 0 && res.Events != events {
		return NexmarkRun{}, fmt.Errorf("%s %s: read %d events, want %d", e.name, q.name, res.Events, events)
	}
	r := NexmarkRun{Events: events, WallS: wall.Seconds(), PeakRSSMB: float64(res.PeakRSSKB) / 1024}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.CPUS = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	return r, nil
}

// summarize fills the medians and the marginal figures from the runs over
// N (small) and 2N (large) events.
func (r *NexmarkResult) summarize(small, large []NexmarkRun) {
	get := func(runs []NexmarkRun, f func(NexmarkRun) float64) float64 {
		xs := make([]float64, len(runs))
		for i, x := range runs {
			xs[i] = f(x)
		}
		return median(xs)
	}
	wall := func(x NexmarkRun) float64 { return x.WallS }
	cpu := func(x NexmarkRun) float64 { return x.CPUS }
	r.WallSmall, r.WallLarge = get(small, wall), get(large, wall)
	r.CPUSmall, r.CPULarge = get(small, cpu), get(large, cpu)
	if d := r.WallLarge - r.WallSmall; d > 0 {
		r.EventsPerSec = float64(r.Events) / d
	}
	if d := r.CPULarge - r.CPUSmall; d > 0 {
		r.CPUSecPerMEvents = d / (float64(r.Events) / 1e6)
	}
	for _, x := range append(slices.Clone(small), large...) {
		r.PeakRSSMB = max(r.PeakRSSMB, x.PeakRSSMB)
	}
}

// streamsqlNexmarkEngine runs a query through streamsql: this binary as a
// child (nexmarkChildMain), pinned to cpu.
func streamsqlNexmarkEngine(o options, cpu, dir string) nexmarkEngine {
	return nexmarkEngine{name: "streamsql", command: func(ctx context.Context, q nexmarkQuery, events int64) (*exec.Cmd, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		args := []string{"-name", "nexmark-" + q.name}
		for _, f := range q.files {
			args = append(args, "-file", f)
		}
		vars := q.allVars(events)
		for _, k := range sortedKeys(vars) {
			args = append(args, "-var", k+"="+vars[k])
		}
		hints := q.bounded(events)
		for _, k := range sortedKeys(hints) {
			args = append(args, "-hint", q.table+"."+k+"="+hints[k])
		}
		// A bounded job keeps its checkpoints (and FINISHED.json) in a
		// folder of its own per run.
		ck, err := os.MkdirTemp(dir, "ckpt-")
		if err != nil {
			return nil, err
		}
		args = append(args, "-set", "execution.checkpointing.dir="+ck)
		// The same table settings as Flink's run (flinkSuiteConf).
		for _, kv := range flinkSuiteConf {
			args = append(args, "-set", kv)
		}
		cmd, err := pinned(ctx, cpu, exe, args...)
		if err != nil {
			return nil, err
		}
		cmd.Env = append(os.Environ(), envNexmark+"=1")
		return cmd, nil
	}}
}

// flinkNexmarkEngine runs a query through Flink: tools/flink-sql-runner's
// Run on a MiniCluster at parallelism 1, pinned to the same CPU.
func flinkNexmarkEngine(f nexmarkFlags, classPath string) nexmarkEngine {
	return nexmarkEngine{name: "flink", command: func(ctx context.Context, q nexmarkQuery, events int64) (*exec.Cmd, error) {
		args := strings.Fields(f.flinkJVM)
		args = append(args, "-cp", classPath, "streamsql.flinkrunner.Run")
		vars := q.allVars(events)
		for _, k := range sortedKeys(vars) {
			args = append(args, "--var", k+"="+vars[k])
		}
		hints := q.bounded(events)
		for _, k := range sortedKeys(hints) {
			args = append(args, "--table-option", q.table+"."+k+"="+hints[k])
		}
		// The public suite's table settings (nexmark-flink's
		// conf/config.yaml), which matter to its stateful queries.
		for _, kv := range flinkSuiteConf {
			args = append(args, "--conf", kv)
		}
		args = append(args, q.files...)
		return pinned(ctx, f.cpu, "java", args...)
	}}
}

// flinkSuiteConf are the table settings of the public suite's Flink
// configuration (mini-batches of up to 50,000 rows or 2 s, split distinct
// aggregates), which both engines run with: streamsql folds a GROUP BY's
// rows per key within an input batch under the first three and says in
// EXPLAIN that it does not split distinct aggregates. Its state backend (RocksDB) and 3-minute checkpoints are
// left out: the runs here are bounded and shorter than a checkpoint
// interval, and take no checkpoint on either engine.
var flinkSuiteConf = []string{
	"table.exec.mini-batch.enabled=true",
	"table.exec.mini-batch.allow-latency=2s",
	"table.exec.mini-batch.size=50000",
	"table.optimizer.distinct-agg.split.enabled=true",
}

// flinkVersion is the Flink version of tools/flink-sql-runner/pom.xml.
const flinkVersion = "2.2.1"

// pinned returns a command that runs name with args pinned to cpu with
// taskset (not pinned when cpu is "none").
func pinned(ctx context.Context, cpu, name string, args ...string) (*exec.Cmd, error) {
	if cpu == "none" || cpu == "" {
		return exec.CommandContext(ctx, name, args...), nil
	}
	ts, err := exec.LookPath("taskset")
	if err != nil {
		return nil, fmt.Errorf("pinning to CPU %s: %w", cpu, err)
	}
	return exec.CommandContext(ctx, ts, append([]string{"-c", cpu, name}, args...)...), nil
}

// pinBroker pins every thread of the broker this run started (its pid in
// $STREAMSQL_KAFKA_DIR/pid, as scripts/bench.sh starts it) to the CPUs
// other than cpu, and returns their list; "" when there is no such
// broker or no other CPU.
func pinBroker(cpu string) (string, error) {
	dir := os.Getenv("STREAMSQL_KAFKA_DIR")
	if dir == "" {
		return "", nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		return "", nil
	}
	pid := strings.TrimSpace(string(b))
	engine, err := strconv.Atoi(cpu)
	if err != nil {
		return "", fmt.Errorf("-nexmark-cpu %q: one CPU number, or none", cpu)
	}
	var others []string
	for c := range goruntime.NumCPU() {
		if c != engine {
			others = append(others, strconv.Itoa(c))
		}
	}
	if len(others) == 0 {
		return "", nil
	}
	list := strings.Join(others, ",")
	if out, err := exec.Command("taskset", "-a", "-p", "-c", list, pid).CombinedOutput(); err != nil {
		return "", fmt.Errorf("pinning the broker (pid %s) to CPUs %s: %w: %s", pid, list, err, out)
	}
	return list, nil
}

// flinkClassPath returns the Flink runner's class path for -flink (auto,
// off or a class path), building it in auto mode; "" and the reason when
// Flink cannot run.
func flinkClassPath(ctx context.Context, flag string, log io.Writer) (cp, why string) {
	switch flag {
	case "off":
		return "", "-flink off"
	case "auto":
	default:
		return flag, ""
	}
	if _, err := exec.LookPath("java"); err != nil {
		return "", "no java on PATH"
	}
	if _, err := exec.LookPath("mvn"); err != nil {
		return "", "no mvn on PATH to build tools/flink-sql-runner"
	}
	build, err := findUp(filepath.Join("tools", "flink-sql-runner", "build.sh"))
	if err != nil {
		return "", err.Error()
	}
	fmt.Fprintln(log, "building the Flink runner (tools/flink-sql-runner; Maven Central on first use)")
	var errb bytes.Buffer
	cmd := exec.CommandContext(ctx, build)
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Sprintf("building tools/flink-sql-runner failed: %v: %s", err, lastLines(errb.String(), 10))
	}
	return strings.TrimSpace(lastLine(string(out))), ""
}

// nexmarkConnectorJar returns the public nexmark connector's jar for
// -flink-nexmark-jar (auto, off or a path), building it in auto mode
// (tools/nexmark-connector, cached after the first build); "" and the
// reason when there is none.
func nexmarkConnectorJar(ctx context.Context, flag string, log io.Writer) (jar, why string) {
	switch flag {
	case "off":
		return "", "-flink-nexmark-jar off"
	case "auto":
	default:
		if _, err := os.Stat(flag); err != nil {
			return "", fmt.Sprintf("-flink-nexmark-jar: %v", err)
		}
		return flag, ""
	}
	if _, err := exec.LookPath("git"); err != nil {
		return "", "no git on PATH to build tools/nexmark-connector"
	}
	build, err := findUp(filepath.Join("tools", "nexmark-connector", "build.sh"))
	if err != nil {
		return "", err.Error()
	}
	fmt.Fprintln(log, "building the public nexmark connector (tools/nexmark-connector; GitHub and Maven Central on first use)")
	var errb bytes.Buffer
	cmd := exec.CommandContext(ctx, build)
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Sprintf("building tools/nexmark-connector failed: %v: %s", err, lastLines(errb.String(), 10))
	}
	return strings.TrimSpace(lastLine(string(out))), ""
}

// findUp looks for rel in the working directory and its parents (the
// benchmark runs from the repository, or a directory of it).
func findUp(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no %s in the working directory or above it (run from the repository)", rel)
		}
		dir = parent
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// nexmarkPair is one query's row of the table: streamsql and Flink over one
// event table.
type nexmarkPair struct {
	query, ddl       string
	streamsql, flink *NexmarkResult
}

func nexmarkPairs(results []NexmarkResult) []nexmarkPair {
	var out []nexmarkPair
	for i := range results {
		r := &results[i]
		j := slices.IndexFunc(out, func(p nexmarkPair) bool { return p.query == r.Query && p.ddl == r.DDL })
		if j < 0 {
			out = append(out, nexmarkPair{query: r.Query, ddl: r.DDL})
			j = len(out) - 1
		}
		if r.Engine == "streamsql" {
			out[j].streamsql = r
		} else {
			out[j].flink = r
		}
	}
	return out
}

// cellText is one engine's figures in a table cell.
func cellText(r *NexmarkResult) string {
	switch {
	case r == nil:
		return "not run"
	case r.Status != "ok":
		return r.Status
	case r.EventsPerSec == 0:
		return "no marginal rate (the larger run was not slower)"
	}
	return fmt.Sprintf("%s/s, %.2f CPU-s/M, %.0f MB", siCount(r.EventsPerSec), r.CPUSecPerMEvents, r.PeakRSSMB)
}

// ratioText is streamsql's marginal rate over Flink's, and Flink's CPU per
// event over streamsql's (the same ratio, by CPU time: less sensitive to
// what else the machine runs).
func ratioText(p nexmarkPair) string {
	if p.streamsql == nil || p.flink == nil || p.streamsql.Status != "ok" || p.flink.Status != "ok" {
		return "–"
	}
	rate, cpu := "–", "–"
	if p.streamsql.EventsPerSec > 0 && p.flink.EventsPerSec > 0 {
		rate = fmt.Sprintf("%.2f×", p.streamsql.EventsPerSec/p.flink.EventsPerSec)
	}
	if p.streamsql.CPUSecPerMEvents > 0 && p.flink.CPUSecPerMEvents > 0 {
		cpu = fmt.Sprintf("%.2f×", p.flink.CPUSecPerMEvents/p.streamsql.CPUSecPerMEvents)
	}
	return rate + " (CPU " + cpu + ")"
}

// nexmarkTargetText says whether a query meets issue 34's targets: a
// marginal rate at least 5× Flink's, and a peak RSS at most a tenth of
// Flink's ("–" when either engine has no figure).
func nexmarkTargetText(p nexmarkPair) string {
	if p.streamsql == nil || p.flink == nil || p.streamsql.EventsPerSec == 0 || p.flink.EventsPerSec == 0 || p.flink.PeakRSSMB == 0 {
		return "–"
	}
	rate := p.streamsql.EventsPerSec >= 5*p.flink.EventsPerSec
	rss := p.streamsql.PeakRSSMB <= p.flink.PeakRSSMB/10
	switch {
	case rate && rss:
		return "yes"
	case rss:
		return "no (rate)"
	case rate:
		return "no (RSS)"
	}
	return "no (rate, RSS)"
}

func siCount(x float64) string {
	switch {
	case x >= 1e6:
		return fmt.Sprintf("%.2f M", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.0f K", x/1e3)
	}
	return fmt.Sprintf("%.0f", x)
}

// printNexmark writes the suite's table and the messages of the queries
// that did not run.
func printNexmark(w io.Writer, rep NexmarkReport) {
	fmt.Fprintf(w, "\nNexmark, marginal rate between %d and %d events (medians of %d runs), engines pinned to CPU %s; %s\n",
		rep.Events, 2*rep.Events, rep.Runs, cmpOr(rep.CPU, "none"), rep.Flink)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "query\tevents\tstreamsql (events/s, CPU-s per M events, peak RSS)\tFlink\tstreamsql/Flink\t≥ 5×, RSS ≤ 1/10?\t")
	for _, p := range nexmarkPairs(rep.Results) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", p.query, p.ddl, cellText(p.streamsql), cellText(p.flink), ratioText(p), nexmarkTargetText(p))
	}
	tw.Flush()
	for _, r := range rep.Results {
		if r.Status != "ok" && r.Message != "" && r.Message != flinkSkipped {
			fmt.Fprintf(w, "%s %s %s: %s: %s\n", r.Query, r.DDL, r.Engine, r.Status, firstLine(r.Message))
		}
	}
}

// writeNexmarkMarkdown writes the table as Markdown, for BENCHMARKS.md.
func writeNexmarkMarkdown(w io.Writer, rep NexmarkReport) {
	fmt.Fprintln(w, "| query | events | streamsql: events/s, CPU-s per M events, peak RSS | Flink 2.2: events/s, CPU-s per M events, peak RSS | streamsql / Flink (by CPU) | ≥ 5×, RSS ≤ 1/10? |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, p := range nexmarkPairs(rep.Results) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", p.query, p.ddl, cellText(p.streamsql), cellText(p.flink), ratioText(p), nexmarkTargetText(p))
	}
	var notes []string
	for _, r := range rep.Results {
		if r.Status != "ok" && r.Message != "" && r.Message != flinkSkipped {
			notes = append(notes, fmt.Sprintf("%s (%s, %s): %s", r.Query, r.DDL, r.Engine, strings.ReplaceAll(firstLine(r.Message), "|", "\\|")))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
