package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/streamsql/streamsql/cmd/streamsql/internal/embedkafka"
	"github.com/streamsql/streamsql/cmd/streamsql/internal/topicload"
	"github.com/streamsql/streamsql/internal/memlimit"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/job/jobhttp"
	"github.com/streamsql/streamsql/option"
)

// bootstrapVar is the variable --embedded-kafka sets to the broker's
// address, for ${KAFKA_BOOTSTRAP} in job files.
const bootstrapVar = "KAFKA_BOOTSTRAP"

// runFlags are the flags of `streamsql run`.
type runFlags struct {
	jobFlags
	fromCheckpoint   string
	allowNonRestored bool
	resetSources     []string
	embedded         string
	loads            []string
	httpAddr         string
	logFormat        string
	instanceID       string
	memoryLimit      string
}

func runCommand(e *env) *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "run JOB.sql",
		Short: "Run a job until its bounded sources end or it is stopped",
		Long: `Plan a job file and run every INSERT of it (all INSERTs and statement sets of
a file are one job) until its bounded sources end, or until it is stopped.

SIGINT (Ctrl-C) or SIGTERM stops the job gracefully: the sources stop, a final
checkpoint is taken and committed, and the command exits 0. A second signal
stops at once (exit 1); the next run recovers from the last checkpoint.

A bare SELECT in the job file prints its rows on standard output in the style
of Flink's SQL client: a header of column names, then one line per row,
"+I[1, foo]".

On a terminal a status line shows records/s in and out, the last checkpoint
and pending commits (and, for bounded generated input, progress). Otherwise
structured logs (slog) go to standard error, as text or JSON (--log-format).

--embedded-kafka starts an in-process Kafka-protocol broker (kfake, for
trying things out: it is not Apache Kafka) for the run, creates the topics of
the job's Kafka tables that point at it, sets ${KAFKA_BOOTSTRAP} to its
address unless that variable is set in the environment, and prints the
address on standard error so that other clients can connect. It is never
used in place of a broker the job configures. Its data lives in memory, so
the job's checkpoints go to a temporary folder too (unless the job sets
execution.checkpointing.dir): each such run starts afresh. --load TOPIC=FILE
writes the lines of FILE to that topic of the embedded broker, one record
each, before the job starts (examples/data holds the examples' input; 'streamsql
topic load' fills a topic of another broker once).

A job that checkpoints (execution.checkpointing.interval, or an exactly-once
sink) and sets no execution.checkpointing.dir keeps its checkpoints in
$XDG_STATE_HOME/streamsql/checkpoints/<job> (else ~/.local/state/...), printed
at start; the next run of the job resumes from them. A Kafka source refuses a
checkpoint read from another cluster or a topic created again:
--reset-source TABLE starts that source afresh, and 'streamsql checkpoint
drop' deletes the job's checkpoints.

--http ADDR serves a status page for people at / (state, records in and out,
lag, checkpoints, pending commits, sinks that cannot deliver, recent warnings
and errors), the same as JSON at /status, /metrics (Prometheus) and /healthz.

--memory-limit SIZE (64mb, 1gb, ...) sets the Go runtime's soft memory limit
(as GOMEMLIMIT does, which it overrides): the garbage collector runs more
often as the process's memory nears it, instead of letting the heap grow to
twice what is live. It trades CPU for memory; a limit below what the job
keeps live makes the collector run nearly all the time. By default (no
--memory-limit, no GOMEMLIMIT) the limit is adaptive: 30 MiB, or 5/4 of
the collector's heap goal when that is larger, set again after every
collection, so that a small job stays small and a large one is not held
back; --memory-limit off sets none (docs/runtime.md, "Memory").

--config FILE holds job options in YAML with the keys of SET, flat or nested;
unknown keys are errors. Precedence, lowest first: defaults, the config file,
the job file's SET statements, --set.

  execution.checkpointing:
    interval: 5s
    dir: /var/lib/streamsql
  restart-strategy.type: fixed-delay

Exit codes:
  0  the job ended: bounded sources finished, or it was stopped gracefully
  1  the job failed, the job file has errors, or a second signal stopped it
  2  usage error: wrong command line or --config file`,
		Example: `  streamsql run job.sql
  streamsql run --embedded-kafka examples/sql/quickstart.sql
  streamsql run --set execution.checkpointing.interval=5s --set execution.checkpointing.dir=/var/lib/streamsql job.sql
  streamsql run --config prod.yaml --http :9249 --log-format json job.sql
  streamsql run --from-checkpoint /var/lib/streamsql/orders/chk-00000000000000000042.json job.sql`,
		Args: exactlyOneFile,
	}
	rf.register(cmd)
	f := cmd.Flags()
	f.StringVar(&rf.jobName, "job-name", "", "the job's `NAME` (default: pipeline.name, else the file's base name); names the checkpoint folder")
	f.StringVar(&rf.fromCheckpoint, "from-checkpoint", "", "restore the first run from this checkpoint file or job checkpoint folder `PATH`")
	f.BoolVar(&rf.allowNonRestored, "allow-non-restored-state", false, "restore a checkpoint that holds positions of sources the job no longer has (a renamed table or INSERT), dropping them; without it such a restore fails")
	f.StringArrayVar(&rf.resetSources, "reset-source", nil, "start the source `TABLE` afresh, from its start options, instead of from its positions in the restored checkpoint (repeatable; * for all): for a checkpoint taken against another Kafka cluster or a topic created again; pending commits are still recovered")
	f.StringVar(&rf.embedded, "embedded-kafka", "", "start an in-process Kafka-protocol broker on `ADDR` (default 127.0.0.1, a free port) and set ${KAFKA_BOOTSTRAP}")
	f.Lookup("embedded-kafka").NoOptDefVal = "127.0.0.1:0"
	f.StringArrayVar(&rf.loads, "load", nil, "with --embedded-kafka: write the lines of `TOPIC=FILE` to that topic of the embedded broker before the job starts, one record each (as 'streamsql topic load'; repeatable)")
	f.StringVar(&rf.httpAddr, "http", "", "serve /metrics, /healthz and /status on `ADDR` (host:port)")
	f.StringVar(&rf.instanceID, "instance-id", "", "this process's `ID` among the instances of a scaled-out job (pipeline.scale-out; docs/scale-out.md): unique, and the same across restarts")
	f.StringVar(&rf.logFormat, "log-format", "text", "log format on standard error: `text` or json")
	f.StringVar(&rf.memoryLimit, "memory-limit", "", "soft limit of the process's memory, such as 64mb (`SIZE`; Go's GOMEMLIMIT): the GC works harder as the heap nears it; off for none; default adaptive (30 MiB or 5/4 of the GC's heap goal, and GOGC raised for a heap goal of at least 10 MiB)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return rf.run(cmd.Context(), e, args[0])
	}
	return cmd
}

func (rf *runFlags) run(ctx context.Context, e *env, file string) error {
	if rf.logFormat != "text" && rf.logFormat != "json" {
		return fmt.Errorf("--log-format %q: want text or json", rf.logFormat)
	}
	loads, err := parseLoads(rf.loads, rf.embedded != "")
	if err != nil {
		return err
	}
	if rf.config != "" {
		// A wrong config file is a usage error, reported before anything starts.
		if _, err := loadConfig(rf.config); err != nil {
			return err
		}
	}
	if _, err := parseSets(rf.sets); err != nil {
		return err
	}
	memPolicy := "adaptive"
	switch {
	case rf.memoryLimit == "off":
		memPolicy = "off"
	case rf.memoryLimit != "":
		limit, err := option.ParseMemorySize(rf.memoryLimit)
		if err != nil || limit <= 0 {
			if err == nil {
				err = errors.New("it must be above zero")
			}
			return fmt.Errorf("--memory-limit %q: %w", rf.memoryLimit, err)
		}
		// Restored when the run ends (tests run jobs in one process).
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(limit)))
		memPolicy = "fixed"
	case os.Getenv("GOMEMLIMIT") != "":
		memPolicy = "GOMEMLIMIT"
	default:
		// Stopped, and the limit restored, when the run ends.
		defer memlimit.Start(memlimit.DefaultFloor).Stop()
	}
	term := e.isTerminal()
	out := newConsole(e.stderr, term)
	log := slog.New(out.handler(rf.logFormat))
	switch memPolicy {
	case "fixed", "GOMEMLIMIT":
		log.Info("soft memory limit set", "memory_limit", debug.SetMemoryLimit(-1), "from", memPolicy)
	case "adaptive":
		log.Debug("soft memory limit adaptive", "floor", memlimit.DefaultFloor)
	}

	// Bare SELECTs print to standard output (on a terminal, above the
	// status line), after a header naming the columns.
	var qout io.Writer = e.stdout
	if term && e.terminal >= 0 && isTerminalWriter(e.stdout) {
		qout = out.other(e.stdout)
	}
	header := &headerWriter{w: qout}
	opts := job.Options{Output: header, Logger: log, RestoreFrom: rf.fromCheckpoint, AllowNonRestoredState: rf.allowNonRestored,
		ResetSources: rf.resetSources, Testing: e.testing, InstanceID: rf.instanceID}
	if rf.embedded != "" {
		b, err := embedkafka.Start(embedkafka.Options{Addr: rf.embedded})
		if err != nil {
			log.Error("cannot start the embedded Kafka broker", "err", err)
			return errFailed
		}
		defer b.Close()
		log.Info("embedded Kafka broker (kfake, for trying things out) listening", "addr", b.Addr())
		// The broker's data lives in memory and ends with the process, so
		// the job's checkpoints do too, unless the job names a folder: each
		// run starts afresh (a checkpoint of an earlier broker would hold
		// offsets of another cluster, which the Kafka source refuses).
		tmp, err := os.MkdirTemp("", "streamsql-embedded-")
		if err != nil {
			log.Error("cannot create the embedded run's checkpoint folder", "err", err)
			return errFailed
		}
		defer os.RemoveAll(tmp)
		opts.DefaultCheckpointDir = tmp
		log.Info("the embedded broker keeps its data in memory: the job's checkpoints go to a temporary folder too, "+
			"and each run starts afresh (unless the job sets execution.checkpointing.dir)", "folder", tmp)
		if v, ok := os.LookupEnv(bootstrapVar); ok {
			log.Warn(bootstrapVar+" is set in the environment: job files use that, not the embedded broker", bootstrapVar, v)
		} else {
			opts.Vars = map[string]string{bootstrapVar: b.Addr()}
		}
		j, err := rf.compileWith(ctx, e, file, opts)
		if err != nil {
			return err
		}
		if err := b.CreateTopics(ctx, embeddedTopics(j, b.Addr())...); err != nil {
			log.Error("cannot create the job's topics on the embedded Kafka broker", "err", err)
			return errFailed
		}
		for _, l := range loads {
			n, err := loadFile(ctx, os.Stdin, l.file, topicload.Options{Brokers: []string{b.Addr()}, Topic: l.topic})
			if err != nil {
				log.Error("cannot load a file into the embedded Kafka broker", "topic", l.topic, "file", l.file, "err", err)
				return errFailed
			}
			log.Info("loaded a file into the embedded Kafka broker", "topic", l.topic, "file", l.file, "records", n)
		}
		return rf.runJob(ctx, e, file, j, header, out, log, term)
	}
	j, err := rf.compileWith(ctx, e, file, opts)
	if err != nil {
		return err
	}
	return rf.runJob(ctx, e, file, j, header, out, log, term)
}

// runJob runs a compiled job until it ends, fails or is stopped by a
// signal. header is the job's Output, given its header here.
func (rf *runFlags) runJob(ctx context.Context, e *env, file string, j *job.Job, header *headerWriter, out *console, log *slog.Logger, term bool) error {
	for _, w := range j.Warnings() {
		if w.Line > 0 {
			log.Warn(w.Message, "file", file, "line", w.Line, "column", w.Column)
		} else {
			log.Warn(w.Message, "file", file)
		}
	}
	header.header = j.QueryHeader()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if rf.httpAddr != "" {
		srv, err := jobhttp.Serve(rf.httpAddr, j)
		if err != nil {
			log.Error("--http: cannot serve the status page", "err", err)
			return errFailed
		}
		defer srv.Close()
		log.Info("serving the status page /, /status, /metrics and /healthz", "addr", srv.Addr())
	}

	stopSignals := e.handleSignals(cancel, log)
	defer stopSignals()
	mon := startMonitor(j, out, log, term, e.statusEvery, totalRows(j))
	cfg := j.Config()
	folder, isDefault := j.CheckpointFolder()
	switch {
	case folder == "":
		folder = "memory (a new run starts afresh)"
	case isDefault:
		folder += " (the default folder; execution.checkpointing.dir sets another)"
	}
	log.Info("job started", "job", j.Name(), "pipelines", len(j.Pipelines()),
		"checkpoint_interval", cfg.Checkpoint.Interval.String(), "checkpoints", folder)
	err := j.Run(ctx)
	mon.stop()
	st := j.Status()
	in, outRecs := totals(st)
	var se *job.StartError
	if errors.As(err, &se) {
		log.Error("job could not start", "job", j.Name(), "err", se.Err)
		return errFailed
	}
	if err != nil {
		log.Error("job failed", "job", j.Name(), "err", err)
		return errFailed
	}
	log.Info("job "+strings.ToLower(string(st.State)), "job", j.Name(), "records_in", in, "records_out", outRecs,
		"checkpoints", st.Checkpoints.Completed, "last_checkpoint", st.Checkpoints.LastID)
	return nil
}

// handleSignals cancels the job on the first SIGINT or SIGTERM and ends
// the process at once on the second. The returned function stops
// listening and waits for the listener goroutine.
func (e *env) handleSignals(cancel context.CancelFunc, log *slog.Logger) func() {
	sigs := e.signals
	var ch chan os.Signal
	if sigs == nil {
		ch = make(chan os.Signal, 2)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
		sigs = ch
	}
	exit := e.exit
	if exit == nil {
		exit = os.Exit
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case s := <-sigs:
			log.Info("stopping gracefully with a final checkpoint; send the signal again to stop at once", "signal", s.String())
			cancel()
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			log.Error("stopping at once; the next run recovers from the last completed checkpoint", "signal", s.String())
			exit(exitFailed)
		case <-done:
		}
	})
	return func() {
		if ch != nil {
			signal.Stop(ch)
		}
		close(done)
		wg.Wait()
	}
}

// topicFile is one --load: a file whose lines go to a topic.
type topicFile struct{ topic, file string }

// parseLoads parses the --load flags (TOPIC=FILE), which only the
// embedded broker takes: loading a file on every run of a job against a
// real cluster would write its records again each time.
func parseLoads(flags []string, embedded bool) ([]topicFile, error) {
	if len(flags) > 0 && !embedded {
		return nil, errors.New("--load needs --embedded-kafka; to load a file into another broker once, use 'streamsql topic load'")
	}
	var out []topicFile
	for _, fl := range flags {
		topic, file, ok := strings.Cut(fl, "=")
		if !ok || topic == "" || file == "" {
			return nil, fmt.Errorf("--load %q: want TOPIC=FILE", fl)
		}
		out = append(out, topicFile{topic, file})
	}
	return out, nil
}

// embeddedTopics returns the topics of the job's tables whose servers
// (as their connectors declare them: Kafka's bootstrap servers) are the
// embedded broker's address.
func embeddedTopics(j *job.Job, addr string) []string {
	var topics []string
	add := func(t job.Table) {
		if slices.Contains(t.Servers, addr) {
			topics = append(topics, t.Topics...)
		}
	}
	for _, p := range j.Describe() {
		for _, src := range p.Sources {
			add(src)
		}
		if !p.Query {
			add(p.Sink)
		}
	}
	slices.Sort(topics)
	return slices.Compact(topics)
}
