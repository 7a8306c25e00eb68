package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	_ "github.com/streamsql/streamsql/connectors/kafka" // registers kafka and upsert-kafka
	_ "github.com/streamsql/streamsql/formats/json"     // registers json
	"github.com/streamsql/streamsql/internal/memlimit"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
)

// envHeapProfile, when set in the parent's environment, makes each
// streamsql child write, to "$STREAMSQL_BENCH_HEAPPROFILE.<scenario>.<pid>",
// the heap profile taken (every 100 ms) when the live heap (as the last
// garbage collection found it) was largest.
const envHeapProfile = "STREAMSQL_BENCH_HEAPPROFILE"

// envCPUProfile, when set in the parent's environment, makes each streamsql
// child write a CPU profile to "$STREAMSQL_BENCH_CPUPROFILE.<scenario>.<pid>".
const envCPUProfile = "STREAMSQL_BENCH_CPUPROFILE"

// envAllocProfile, when set in the parent's environment, makes each
// Nexmark child write, at its end, its allocation profile (pprof's
// "allocs": go tool pprof -sample_index=alloc_space) to
// "$STREAMSQL_BENCH_ALLOCPROFILE.<job name>.<pid>", and the exact bytes and
// objects it allocated (runtime/metrics) and the events it read to the
// same name with ".txt" added.
const envAllocProfile = "STREAMSQL_BENCH_ALLOCPROFILE"

// streamsqlMode is one of streamsql's benchmarked modes.
type streamsqlMode struct {
	upsert     bool
	guarantee  string // sink.delivery-guarantee
	checkpoint bool   // 1 s checkpoints
	// pipelines is the number of INSERT INTO statements (a STATEMENT SET
	// when more than one), each reading the source into a sink topic of
	// its own; 0 means 1.
	pipelines int
	// unchained keeps a goroutine and a channel between source and sink
	// task (jobconfig.Config.DisableChaining).
	unchained bool
}

func streamsqlScenario(name, guarantee string, m streamsqlMode) scenario {
	return scenario{Name: name, Guarantee: guarantee, mode: m,
		run: func(ctx context.Context, bootstrap, src, dst string, expect int64, ready func()) (pipeResult, error) {
			return runStreamsql(ctx, name, bootstrap, src, dst, expect, m, ready)
		}}
}

// withPipelines returns the streamsql scenario sc running n pipelines in
// one job; its dst argument is then n comma-separated topics.
func (sc scenario) withPipelines(n int) scenario {
	m := sc.mode
	m.pipelines = n
	return streamsqlScenario(sc.Name, sc.Guarantee, m)
}

// jobSQL is the job every streamsql scenario runs: the same work as the
// baseline (filter amount > 100, project 5 of the 10 columns).
func jobSQL(bootstrap, src, dst string, bounded bool, m streamsqlMode, ckptDir string) string {
	dsts := strings.Split(dst, ",")
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var b strings.Builder
	if m.checkpoint {
		fmt.Fprintf(&b, "SET 'execution.checkpointing.interval' = '1s';\nSET 'execution.checkpointing.dir' = %s;\n", q(ckptDir))
	}
	srcOpts := []string{"'connector' = 'kafka'", "'topic' = " + q(src), "'properties.bootstrap.servers' = " + q(bootstrap),
		"'format' = 'json'", "'scan.startup.mode' = 'earliest-offset'"}
	if bounded {
		srcOpts = append(srcOpts, "'scan.bounded.mode' = 'latest-offset'")
	}
	if m.guarantee == "exactly-once" {
		srcOpts = append(srcOpts, "'properties.isolation.level' = 'read_committed'")
	}
	fmt.Fprintf(&b, "CREATE TABLE source (id BIGINT NOT NULL, `user` STRING, amount DOUBLE, currency STRING, country STRING, ts BIGINT,\n"+
		"  active BOOLEAN, score DOUBLE, tags STRING, note STRING) WITH (%s);\n", strings.Join(srcOpts, ", "))
	for i, dst := range dsts {
		sink := "sink"
		if len(dsts) > 1 {
			sink = fmt.Sprintf("sink%d", i+1)
		}
		createSink(&b, sink, bootstrap, dst, m, q)
	}
	if len(dsts) == 1 {
		b.WriteString("INSERT INTO sink SELECT id, `user`, amount, country, ts FROM source WHERE amount > 100;\n")
		return b.String()
	}
	b.WriteString("EXECUTE STATEMENT SET BEGIN\n")
	for i := range dsts {
		fmt.Fprintf(&b, "  INSERT INTO sink%d SELECT id, `user`, amount, country, ts FROM source WHERE amount > 100;\n", i+1)
	}
	b.WriteString("END;\n")
	return b.String()
}

// createSink writes the CREATE TABLE statement of one sink.
func createSink(b *strings.Builder, sink, bootstrap, dst string, m streamsqlMode, q func(string) string) {
	if m.upsert {
		fmt.Fprintf(b, "CREATE TABLE %s (id BIGINT, `user` STRING, amount DOUBLE, country STRING, ts BIGINT,\n"+
			"  PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = %s, 'properties.bootstrap.servers' = %s,\n"+
			"  'key.format' = 'json', 'value.format' = 'json');\n", sink, q(dst), q(bootstrap))
	} else {
		sinkOpts := []string{"'connector' = 'kafka'", "'topic' = " + q(dst), "'properties.bootstrap.servers' = " + q(bootstrap),
			"'format' = 'json'", "'sink.delivery-guarantee' = " + q(m.guarantee)}
		if m.guarantee == "exactly-once" {
			sinkOpts = append(sinkOpts, "'sink.transactional-id-prefix' = "+q(fmt.Sprintf("bench-%s-%d", dst, os.Getpid())))
		}
		fmt.Fprintf(b, "CREATE TABLE %s (id BIGINT, `user` STRING, amount DOUBLE, country STRING, ts BIGINT) WITH (%s);\n",
			sink, strings.Join(sinkOpts, ", "))
	}
}

// statusPoll is how often runStreamsql reads the job's Status: every
// millisecond until what the run measures from it is seen — the first
// output record for a throughput run (expect 0; its start-up phases), the
// job running for a latency run — then every 20 ms, enough to collect the
// checkpoint durations and to see that a latency run has read the offered
// records. Polling every millisecond all along is an observer the reference
// pipes do not have, and it cost streamsql throughput and latency under
// load (BENCHMARKS.md, "Record-path changes").
func statusPoll(expect int64, running, sawOutput bool) time.Duration {
	if expect > 0 && running || expect == 0 && sawOutput {
		return 20 * time.Millisecond
	}
	return time.Millisecond
}

// defaultMemoryPolicy applies `streamsql run`'s default soft memory limit
// (internal/memlimit's governor) unless GOMEMLIMIT is set, so that
// streamsql's children run at its default settings; it returns the function
// that undoes it.
func defaultMemoryPolicy() (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	return memlimit.Start(memlimit.DefaultFloor).Stop
}

// runStreamsql runs the benchmark's job through the library as the CLI
// does: job.Compile on the SQL text, then Job.Run. With expect 0
// the source is bounded (latest offsets at start); otherwise it is unbounded
// and the job is stopped (context cancelled: final checkpoint and commit)
// once it has read expect records and handed every passing one to the sink.
//
// The figures come from the job's Status, polled as statusPoll says:
// ElapsedNS runs from the first record read to the end of Run (which
// includes the final flush or commit; from the call of Run when the job
// ended before a poll saw a record), and each completed checkpoint's
// duration is collected for the p99. (The parent measures start→first.)
func runStreamsql(ctx context.Context, name, bootstrap, src, dst string, expect int64, m streamsqlMode, ready func()) (pipeResult, error) {
	var res pipeResult
	defer defaultMemoryPolicy()()
	if p := os.Getenv(envCPUProfile); p != "" {
		f, err := os.Create(fmt.Sprintf("%s.%s.%d", p, name, os.Getpid()))
		if err != nil {
			return res, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return res, err
		}
		defer pprof.StopCPUProfile()
	}
	ckptDir, err := os.MkdirTemp("", "streamsql-bench-ckpt-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(ckptDir)
	if n := len(strings.Split(dst, ",")); n != max(1, m.pipelines) {
		return res, fmt.Errorf("%d sink topics for %d pipelines", n, max(1, m.pipelines))
	}
	sql := jobSQL(bootstrap, src, dst, expect == 0, m, ckptDir)
	j, err := job.Compile(ctx, "bench.sql", sql, job.Options{JobName: "bench-" + name,
		Logger: slog.New(slog.DiscardHandler), Testing: job.Testing{DisableChaining: m.unchained}})
	if err != nil {
		return res, fmt.Errorf("planning the job: %w", err)
	}
	phases := &startPhases{Main: processStart.UnixNano(), Built: time.Now().UnixNano()}
	res.Phases = phases
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- j.Run(jctx) }()

	var (
		start, end  time.Time
		readySent   bool
		lastCkpt    int64
		ckptDurs    []time.Duration
		runErr      error
		finished    bool
		tick        = time.NewTicker(statusPoll(expect, false, false))
		sawStopping bool
	)
	defer tick.Stop()
	heapProf := os.Getenv(envHeapProfile)
	var heapMax uint64
	var heapBuf bytes.Buffer
	var lastHeap time.Time
	liveHeap := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	observe := func() {
		if heapProf != "" && time.Since(lastHeap) >= 100*time.Millisecond {
			lastHeap = time.Now()
			// The heap profile's in-use figures are those of the last
			// GC: keep the one taken when the live heap was largest.
			metrics.Read(liveHeap)
			if v := liveHeap[0].Value.Uint64(); v > heapMax {
				heapMax = v
				heapBuf.Reset()
				_ = pprof.Lookup("heap").WriteTo(&heapBuf, 0)
			}
		}
		st := j.Status()
		if phases.Running == 0 && st.State == runtime.StateRunning {
			phases.Running = time.Now().UnixNano()
		}
		if !readySent && st.State == runtime.StateRunning {
			ready()
			readySent = true
			tick.Reset(statusPoll(expect, true, false))
		}
		if c := st.Checkpoints; c.LastID != lastCkpt && c.LastID != 0 {
			lastCkpt = c.LastID
			ckptDurs = append(ckptDurs, c.LastDuration)
		}
		var srcIn, srcOut, sinkIn int64
		for _, t := range st.Tasks {
			switch t.Kind {
			case runtime.SourceTask:
				srcIn += t.RecordsIn
				srcOut += t.RecordsOut
			case runtime.SinkTask:
				sinkIn += t.RecordsIn
			}
		}
		if start.IsZero() && srcIn > 0 && !finished {
			start = time.Now()
		}
		// Status reads the source tasks' counters before the sink
		// tasks': a row can reach the sink between the two.
		now := time.Now().UnixNano()
		if phases.FirstRead == 0 && (srcIn > 0 || sinkIn > 0) {
			phases.FirstRead = now
		}
		if phases.FirstSink == 0 && sinkIn > 0 {
			phases.FirstSink = now
			tick.Reset(statusPoll(expect, readySent, true))
		}
		// Status is read after Run returns too, so the final counts stand.
		res.In, res.Out = srcIn, sinkIn
		if expect > 0 && !sawStopping && srcIn >= expect && sinkIn >= srcOut {
			sawStopping = true
			cancel()
		}
	}
	for !finished {
		select {
		case runErr = <-done:
			end = time.Now()
			finished = true
		case <-tick.C:
		}
		observe()
	}
	if runErr != nil {
		return res, fmt.Errorf("running the job: %w", runErr)
	}
	if heapProf != "" {
		if err := os.WriteFile(fmt.Sprintf("%s.%s.%d", heapProf, name, os.Getpid()), heapBuf.Bytes(), 0o644); err != nil {
			return res, err
		}
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if start.IsZero() {
		// A job so short that it ended before any poll saw a record read
		// (the smoke test's few thousand records) is timed from the call
		// of Run; before, the poll after the end set start after end and
		// the rate came out negative.
		start = time.Unix(0, phases.Built)
	}
	res.ElapsedNS = int64(end.Sub(start))
	res.Commits = int64(len(ckptDurs))
	if len(ckptDurs) > 0 {
		ms := make([]float64, len(ckptDurs))
		for i, d := range ckptDurs {
			ms[i] = float64(d)
		}
		sort.Float64s(ms)
		res.CheckpointP99NS = int64(quantile(ms, 0.99))
	}
	return res, nil
}
