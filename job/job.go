// Package job is streamsql's embedding API: a Go program compiles a job
// from SQL text, runs it under a context and watches its status, with the
// connectors and formats registered in the program and any it registers
// itself. It is the composition root over the packages that do the work:
// planner (SQL to plan), factory (connector and format registries) and
// runtime (tasks, checkpoints, two-phase commit). `streamsql run`,
// `validate` and `explain` are clients of this package.
//
// The types to learn first: [Options], [Job] ([Compile], [Job.Run],
// [Job.Status]) and, for inspection, [Pipeline] and [Warning].
//
// # Compiling
//
// [Compile] plans a job file's text (every INSERT, statement set and bare
// SELECT of the file is one job). [Options] give ${NAME} values (Vars,
// Env), settings below the file's SET statements (Defaults, as the CLI's
// --config) and over them (Set, as the CLI's --set), the job's name, a
// registry of connectors and formats, and Hints: table options applied to
// every use of a table, as an OPTIONS hint written in the file would be —
// the way a program or test bounds a job written for production
// (number-of-rows on a datagen table, scan.bounded.mode on a Kafka table,
// another topic) without editing it. Compiling validates every table's
// options and connects nowhere. [Errors] lists a Compile error's parse and
// planning errors one by one. [SettingKeys] and [CheckSettings] serve a
// program that reads settings from elsewhere (the CLI's --config file).
//
// A compiled Job describes itself with copies, not the planner's
// structures: [Job.Pipelines] and [Job.Describe] (tables, connectors,
// options, columns), [Job.Config] (checkpointing, restarts),
// [Job.Warnings] (each with a [WarningKind]) and [Job.Explain].
//
// # Connectors and formats
//
// Package job registers no connector or format of its own accord (only
// the print connector, which it uses to print bare SELECTs): a program
// imports the ones its SQL names, each registering itself in
// factory.Default from init(). Import connectors/all for every built-in
// connector and format, as the CLI does:
//
//	import _ "github.com/streamsql/streamsql/connectors/all"
//
// or only some, such as connectors/kafka and formats, to keep the others
// (and their dependencies) out of the program.
//
// [NewRegistry] returns a copy of what is registered; register a
// [factory.ConnectorFactory] or [factory.FormatFactory] in it and pass it
// as Options.Registry, and the job's SQL can name them in 'connector' and
// 'format'. The copy keeps the program's additions out of
// factory.Default. A connector declares its traits in its factory, as the
// built-in ones do: readable and writable metadata, changelog modes,
// whether tables need a primary key, and, through its Describe hook, the
// delivery guarantee of a sink, options it derives, resources a job may
// use only once, and EXPLAIN's lines; the planner then runs the same
// checks on it as on the built-in connectors. A connector that declares
// nothing is append-only, at-least-once, and trusted with whatever
// metadata its tables declare.
//
// # Running
//
// [Job.Run] creates the sources and sinks through their factories and runs
// the job with the runtime until its bounded sources are done (nil), ctx
// is cancelled (a graceful stop with a final checkpoint; nil), or it fails
// (a [*StartError] when it could not start). A Job runs once.
// [Job.Status] may be called from any goroutine at any time: before Run it
// reports [runtime.StateCreated]; package job/jobhttp serves it, with
// Prometheus metrics, over HTTP. Bare SELECTs print their rows, in the
// style of Flink's SQL client, to Options.Output. Options.RestoreFrom
// restores the first run from a given checkpoint; Options.Testing injects
// faults between the phases of a checkpoint (tests only).
// Options.Pipelines runs only some of the job's INSERTs (named by the
// table they write, see [Job.Pipelines]); a test uses it to run the
// writing half of a job before its reading half.
package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/print"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/types"

	// The in-memory keyed-state backend, state.backend.type's default
	// (hashmap). The on-disk one (rocksdb, state/lsm: pebble) is
	// registered by the program: connectors/all imports it, so that a
	// program that does not use it does not link pebble.
	_ "github.com/streamsql/streamsql/state/heap"
)

// ErrAlreadyRun is returned by Run on a Job that was run before.
var ErrAlreadyRun = errors.New("job: a Job runs only once; compile it again")

// ErrUnknownPipeline is wrapped by the error of Compile when
// Options.Pipelines or Options.Hints name something the job does not have.
var ErrUnknownPipeline = errors.New("job: unknown pipeline or table")

// StartError is returned by Run when the job could not start: a source or
// sink could not be created, or the runtime refused the job. Nothing of
// the job ran. Err is the cause.
type StartError struct {
	// Job is the job's name.
	Job string
	Err error
}

func (e *StartError) Error() string { return fmt.Sprintf("job %s: %v", e.Job, e.Err) }

// Unwrap returns the cause.
func (e *StartError) Unwrap() error { return e.Err }

// NewRegistry returns a copy of the connectors and formats registered in
// factory.Default (by the packages the program imports, such as
// connectors/all), which the caller may register its own into.
func NewRegistry() *factory.Registry { return factory.Default.Clone() }

// Errors returns the errors of a Compile error one by one, in file order:
// parse and planning errors, each naming its file, line and column. Any
// other error is returned alone.
func Errors(err error) []error { return planner.Errors(err) }

// Options configure Compile.
type Options struct {
	// Registry holds the connectors and formats the SQL may name; nil
	// means factory.Default: those of the packages the program imports
	// (connectors/all for every built-in one).
	Registry *factory.Registry
	// Vars give values for ${NAME} in the SQL text; Env is consulted
	// after Vars (pass os.LookupEnv for the process environment; nil
	// means none).
	Vars map[string]string
	Env  func(string) (string, bool)
	// Defaults are job settings below the file's SET statements (the
	// CLI's --config file): a SET of the file wins over them, and a RESET
	// goes back to them.
	Defaults map[string]string
	// Set are job settings that win over the file's SET statements
	// (execution.checkpointing.interval, pipeline.name, ...), as the
	// CLI's --set.
	Set map[string]string
	// JobName overrides the job's name (default: pipeline.name, else the
	// file name without directory and extension).
	JobName string
	// InstanceID is this process's id among the instances of a scaled-out
	// job (pipeline.scale-out; docs/scale-out.md): when set, it is the
	// setting pipeline.instance-id, over Set. It must be unique among the
	// job's instances and the same across the process's restarts.
	InstanceID string
	// Hints are table options by table name (the bare name of a table of
	// the default catalog and database, else database.name, or
	// catalog.database.name outside the default catalog), applied to every read and write of
	// the table over its WITH options and OPTIONS hints, before the
	// options are validated (at Compile): the planner's checks across
	// tables (EXPLAIN's warnings, shared transactional-id prefixes) see
	// them.
	Hints map[string]map[string]string
	// Functions are scalar functions written in Go that the job's SQL may
	// call by name, and that CREATE FUNCTION name AS 'class' binds to by
	// its name or one of the function's Classes: a job file written for
	// Flink with a Java function runs unchanged with the Go function that
	// does the same (expr.Function).
	Functions []*expr.Function
	// Pipelines, when not empty, names the pipelines to run (see
	// Job.Pipelines); the others are planned and validated but not run.
	Pipelines []string
	// Output receives the rows printed by bare SELECTs; nil means
	// standard output. The job serialises its writes: the tasks of
	// several SELECTs never call Write at once, and a line is one Write.
	// `streamsql run` writes Job.QueryHeader before the first row.
	Output io.Writer
	// Logger receives the job's log: the runtime's (checkpoints, restarts,
	// warnings) and the connectors' own (factory.Context.Logger, then
	// connector.TaskInfo.Logger), with the job's name; nil means
	// slog.Default(). Nothing of a job goes to slog.Default() when it is
	// set.
	Logger *slog.Logger
	// RestoreFrom, when set, names the checkpoint the job restores on its
	// first run instead of the latest one of the job: a checkpoint file or
	// a job's checkpoint folder (plain path or file:// URI), as `streamsql
	// run --from-checkpoint`. A checkpoint that cannot be read fails Run.
	RestoreFrom string
	// AllowNonRestoredState lets the job restore a checkpoint holding the
	// positions of sources it no longer has, dropping them, as `streamsql
	// run --allow-non-restored-state` (runtime.JobSpec.AllowNonRestoredState).
	AllowNonRestoredState bool
	// ResetSources names source tables (or "*" for all) that start afresh
	// from their start options instead of from their positions in the
	// checkpoint the job restores when it starts, as `streamsql run
	// --reset-source` (runtime.JobSpec.ResetSources): the way on when a
	// Kafka source refuses a checkpoint taken against another cluster or
	// a topic created again. Pending commits are still recovered.
	ResetSources []string
	// DefaultCheckpointDir, when set, replaces the per-user default folder
	// (ckptpath.Default, $XDG_STATE_HOME/streamsql/checkpoints or
	// ~/.local/state/streamsql/checkpoints) of a job that checkpoints and
	// sets no execution.checkpointing.dir; Job.CheckpointFolder says which
	// folder the job uses.
	DefaultCheckpointDir string
	// UnsetVar, when set, stands in for a ${NAME} without a default that
	// Vars and Env do not define: the value it returns (ok) is used
	// instead of failing Compile. For checking and explaining a job file
	// without its environment (`streamsql validate` and `explain` pass the
	// reference itself); a job compiled so should not be run.
	UnsetVar func(name string) (string, bool)
	// Testing holds knobs for tests of the job's failure handling; a
	// production program leaves it zero.
	Testing Testing
}

// Testing holds the knobs of Options that only tests set.
type Testing struct {
	// Faults, when set, is consulted at the runtime's failure points
	// (between the phases of a checkpoint's two-phase commit; see
	// runtime/testkit, whose FaultsFromEnv reads them from the
	// environment of a child process).
	Faults runtime.FaultInjector
	// DisableChaining keeps every sink in a task of its own, fed over a
	// channel, where it would run in its source task's loop
	// (jobconfig.Config.DisableChaining): the benchmark program's A/B of
	// chaining.
	DisableChaining bool
}

// Job is a compiled job. Its methods are safe for concurrent use.
type Job struct {
	plan      *planner.Plan
	pipelines []string
	opts      Options
	// queryOut is Options.Output (or standard output) behind one lock
	// that every bare SELECT's printing sink shares.
	queryOut *syncWriter

	mu  sync.Mutex
	run *runtime.Job
	ran bool
}

// Compile plans the job file text (name is the file name shown in errors;
// without directory and extension it is the default job name). Its error
// lists the file's parse and planning errors together, in file order,
// each with its position (see Errors); errors.Is matches ddl.ErrSyntax
// and the planner's error classes (planner.ErrType, ...) in it.
func Compile(ctx context.Context, name, text string, opts Options) (*Job, error) {
	if opts.InstanceID != "" {
		opts.Set = maps.Clone(opts.Set)
		if opts.Set == nil {
			opts.Set = map[string]string{}
		}
		opts.Set[planner.SettingInstanceID] = opts.InstanceID
	}
	plan, err := planner.Compile(ctx, name, text, planner.Options{
		Registry:  opts.Registry,
		Functions: opts.Functions,
		Vars:      opts.Vars,
		Env:       opts.Env,
		Defaults:  opts.Defaults,
		Set:       opts.Set,
		JobName:   opts.JobName,
		Hints:     opts.Hints,

		DefaultCheckpointDir: opts.DefaultCheckpointDir,
		Unset:                opts.UnsetVar,
	})
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Hints)) {
		if !slices.Contains(plan.HintedTables, name) {
			return nil, fmt.Errorf("%w: hints for table %q, which the job neither reads nor writes", ErrUnknownPipeline, name)
		}
	}
	out := opts.Output
	if out == nil {
		out = os.Stdout
	}
	j := &Job{plan: plan, opts: opts, queryOut: &syncWriter{w: out}}
	all := j.Pipelines()
	for _, p := range opts.Pipelines {
		if !slices.Contains(all, p) {
			return nil, fmt.Errorf("%w: pipeline %q (the job has %q)", ErrUnknownPipeline, p, all)
		}
	}
	j.pipelines = slices.Clone(opts.Pipelines)
	return j, nil
}

// CompileFile reads the job file at path and compiles it.
func CompileFile(ctx context.Context, path string, opts Options) (*Job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	return Compile(ctx, path, string(data), opts)
}

// Name returns the job's name.
func (j *Job) Name() string { return j.plan.JobName }

// Config returns the runtime configuration of the job (checkpointing,
// restart strategy, ...), parsed from its settings. It is a copy.
func (j *Job) Config() jobconfig.Config {
	c := j.plan.Runtime
	c.Ignored = slices.Clone(c.Ignored)
	return c
}

// CheckpointFolder returns the folder the job's checkpoints are written
// to: <execution.checkpointing.dir>/<job name>, or, for a job that
// checkpoints (execution.checkpointing.interval set, or an exactly-once
// sink) without that setting, the same under the per-user default folder
// (ckptpath.Default: $XDG_STATE_HOME/streamsql/checkpoints, else
// ~/.local/state/streamsql/checkpoints). "" when they are kept in memory;
// default reports whether the folder is the default one.
func (j *Job) CheckpointFolder() (folder string, isDefault bool) {
	return j.plan.CheckpointFolder(), j.plan.CheckpointDirDefault
}

// Explain writes the job's plan as `streamsql explain` shows it.
func (j *Job) Explain(w io.Writer) error { return j.plan.Explain(w) }

// Pipelines returns the names of the job's pipelines in file order: the
// table each INSERT writes ("print" for a bare SELECT), suffixed -2, -3,
// ... when several write the same table.
func (j *Job) Pipelines() []string { return j.plan.PipelineNames() }

// Pipeline describes one of a job's pipelines (see Job.Describe).
type Pipeline struct {
	// Name is the pipeline's name (see Job.Pipelines).
	Name string
	// Statement is a short description: "INSERT INTO big_orders" or
	// "SELECT (printed)".
	Statement string
	// Query is set for a bare SELECT, whose rows are printed to
	// Options.Output ("+I[1, foo]", one line per row).
	Query bool
	// Columns are the fields of the rows the pipeline writes.
	Columns []types.Field
	// Sources are the tables the pipeline reads (several for UNION ALL).
	Sources []Table
	// Sink is the table the pipeline writes; for a bare SELECT only its
	// Name, "print", is set.
	Sink Table
}

// Table describes a table a pipeline reads or writes.
type Table struct {
	// Name is the table's name as written in the file (without catalog
	// and database), or "VALUES" for literal rows.
	Name string
	// Connector is the value of its 'connector' option ("values" for
	// literal rows).
	Connector string
	// Options are its options with hints applied, as the connector's
	// factory receives them. They may hold secrets: do not log them.
	Options map[string]string
	// Rows is the number of literal rows of VALUES.
	Rows int
	// BoundedRows is the number of rows a source reads when its connector
	// knows it before it starts (datagen's number-of-rows), else 0.
	BoundedRows int64
	// Servers and Topics are the addresses of the external system the
	// table reads or writes and its topics there (Kafka's bootstrap
	// servers and topics), as its connector declares them.
	Servers, Topics []string
}

// Describe returns the job's pipelines in file order (those of
// Job.Pipelines, run or not), as copies.
func (j *Job) Describe() []Pipeline {
	var out []Pipeline
	names := j.plan.PipelineNames()
	for _, ins := range j.plan.Inserts {
		if ins.Explain {
			continue
		}
		p := Pipeline{
			Name:      names[len(out)],
			Statement: ins.Statement,
			Query:     ins.Sink.Print,
			Columns:   slices.Clone(ins.Sink.Fields),
		}
		if ins.Sink.Print {
			p.Sink = Table{Name: ins.Sink.Name()}
		} else {
			p.Sink = Table{Name: ins.Sink.Name(), Connector: ins.Sink.Connector(), Options: maps.Clone(ins.Sink.Options),
				Servers: slices.Clone(ins.Sink.Info.Servers), Topics: slices.Clone(ins.Sink.Info.Topics)}
		}
		for _, fl := range ins.Flows {
			p.Sources = append(p.Sources, Table{Name: fl.Source.Name(), Connector: fl.Source.Connector(),
				Options: maps.Clone(fl.Source.Options), Rows: len(fl.Source.Values), BoundedRows: fl.Source.Info.BoundedRows,
				Servers: slices.Clone(fl.Source.Info.Servers), Topics: slices.Clone(fl.Source.Info.Topics)})
		}
		out = append(out, p)
	}
	return out
}

// WarningKind classifies a warning, for programs and tests that act on
// some kinds; the message is for people. The constants below are the
// kinds of the built-in checks (factory's and the planner's kinds under
// the same names); a program's own connector may declare others
// (factory.TableWarning.Kind), which keep their string.
type WarningKind string

// The warning kinds of the built-in checks.
const (
	// WarnDeprecatedOption: an option was written with a deprecated key.
	WarnDeprecatedOption = WarningKind(factory.WarnDeprecatedOption)
	// WarnDerivedOption: an option the job did not set was derived (a
	// Kafka transactional-id prefix from the job and table names).
	WarnDerivedOption = WarningKind(factory.WarnDerivedOption)
	// WarnDeliveryMismatch: the job's checkpointing mode promises more
	// than a sink delivers.
	WarnDeliveryMismatch = WarningKind(factory.WarnDeliveryMismatch)
	// WarnTransactionTimeout: a transaction timeout shorter than a slow
	// checkpoint may take.
	WarnTransactionTimeout = WarningKind(factory.WarnTransactionTimeout)
	// WarnUncommittedRead: a source reads uncommitted records of a
	// resource an exactly-once sink of the job writes.
	WarnUncommittedRead = WarningKind(factory.WarnUncommittedRead)
	// WarnIgnoredSetting: a setting the runtime accepts and ignores.
	WarnIgnoredSetting = WarningKind(planner.WarnIgnoredSetting)
	// WarnCommitOnStop: an exactly-once sink in a job without
	// checkpointing commits only when the job stops.
	WarnCommitOnStop = WarningKind(planner.WarnCommitOnStop)
	// WarnAtLeastOnceCheckpoints: execution.checkpointing.mode is
	// AT_LEAST_ONCE, so an exactly-once sink delivers at least once.
	WarnAtLeastOnceCheckpoints = WarningKind(planner.WarnAtLeastOnceCheckpoints)
	// WarnIgnoredJar: ADD JAR or REMOVE JAR, whose JAR is not loaded (the
	// connectors and formats are built in).
	WarnIgnoredJar = WarningKind(planner.WarnIgnoredJar)
)

// Warning is a finding of the planner that does not stop the job: shown
// by EXPLAIN, logged by `streamsql run`.
type Warning struct {
	// Kind is what the warning is about.
	Kind WarningKind
	// Line and Column are where in the file the warning is about (from
	// 1); both 0 when it is about the job as a whole.
	Line, Column int
	// Message is the text shown to the user.
	Message string
}

// String returns "line:column: message", or the message alone.
func (w Warning) String() string {
	if w.Line == 0 {
		return w.Message
	}
	return fmt.Sprintf("%d:%d: %s", w.Line, w.Column, w.Message)
}

// Warnings returns the planner's findings that do not stop the job.
func (j *Job) Warnings() []Warning {
	out := make([]Warning, 0, len(j.plan.Warnings))
	for _, w := range j.plan.Warnings {
		jw := Warning{Kind: WarningKind(w.Kind), Message: w.Message}
		if w.Pos.IsValid() {
			jw.Line, jw.Column = w.Pos.Line, w.Pos.Column
		}
		out = append(out, jw)
	}
	return out
}

// querySink creates the printing sink of a bare SELECT: rows in Flink's
// "+I[1, foo]" shape on Options.Output.
func (j *Job) querySink(query int, fields []types.Field) (connector.Sink, error) {
	colTypes := make([]types.Type, len(fields))
	for i, f := range fields {
		colTypes[i] = f.Type
	}
	return print.NewTo(print.Config{Identifier: j.queryLabel(query)}, colTypes, j.queryOut), nil
}

// syncWriter serialises the writes of several printing sinks to one
// writer (each sink only serialises its own tasks').
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p to the underlying writer under the lock.
func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// queryLabel is the label of bare query i's rows ("1", "2", ...) when the
// job has several, so that their rows can be told apart; "" otherwise.
func (j *Job) queryLabel(i int) string {
	n := 0
	for _, p := range j.Describe() {
		if p.Query {
			n++
		}
	}
	if n < 2 {
		return ""
	}
	return strconv.Itoa(i + 1)
}

// Run builds the job's sources and sinks and runs it until its bounded
// sources are done, ctx is cancelled, or it fails. Cancelling ctx is a
// graceful stop: the sources stop, a final checkpoint is taken and its
// commits done (bounded by execution.checkpointing's stop timeout), and
// Run returns nil, as it does when the bounded sources are done. A
// *StartError says the job could not start; any other error is a
// failure of the running job (a *runtime.CommitLostError among them).
func (j *Job) Run(ctx context.Context) error {
	j.mu.Lock()
	if j.ran {
		j.mu.Unlock()
		return ErrAlreadyRun
	}
	j.ran = true
	j.mu.Unlock()

	// The sources and sinks log through the job's log once it exists
	// (lateHandler): the embedder's Logger, the job's name, Status.Recent.
	log := j.opts.Logger
	if log == nil {
		log = slog.Default()
	}
	late := newLateHandler(log.Handler())
	spec, err := RuntimeSpec(factory.WithLogger(ctx, slog.New(late)), j.plan, BuildOptions{QuerySink: j.querySink})
	if err != nil {
		return &StartError{Job: j.plan.JobName, Err: err}
	}
	if len(j.pipelines) > 0 {
		spec.Pipelines = slices.DeleteFunc(spec.Pipelines, func(p runtime.Pipeline) bool {
			return !slices.Contains(j.pipelines, p.Name)
		})
		spec.Graph = keepPipelines(spec.Graph, j.pipelines)
	}
	spec.Logger = j.opts.Logger
	for _, w := range j.Warnings() {
		spec.StartWarnings = append(spec.StartWarnings, w.String())
	}
	spec.RestorePath = j.opts.RestoreFrom
	spec.AllowNonRestoredState = j.opts.AllowNonRestoredState
	spec.RestoreHint = planner.ReuseRestoreHint
	spec.ResetSources = j.opts.ResetSources
	spec.Faults = j.opts.Testing.Faults
	if j.opts.Testing.DisableChaining {
		spec.Config.DisableChaining = true
	}
	rj, err := runtime.NewJob(spec)
	if err != nil {
		return &StartError{Job: j.plan.JobName, Err: err}
	}
	late.set(rj.Logger().Handler())
	j.mu.Lock()
	j.run = rj
	j.mu.Unlock()
	return rj.Run(ctx)
}

// Status returns a snapshot of the job's state and metrics (see
// runtime.Status); before Run it has the job's name and StateCreated. A
// Job is a runtime.Metrics: package jobhttp serves its status and
// metrics over HTTP.
func (j *Job) Status() runtime.Status {
	j.mu.Lock()
	rj := j.run
	j.mu.Unlock()
	if rj == nil {
		return runtime.Status{Job: j.plan.JobName, State: runtime.StateCreated}
	}
	return rj.Status()
}

// QueryHeader returns the header `streamsql run` prints above the rows of
// the job's bare SELECTs: the column names in the shape of the rows that
// follow, "op[id, name]\n" (op is the change kind, +I, -U, +U or -D).
// With several bare SELECTs, one line each, labelled as their rows are by
// the query's number ("1> op[id, name]" above rows "1> +I[1, a]"). ""
// when the job has none.
func (j *Job) QueryHeader() string {
	var headers []string
	for _, p := range j.Describe() {
		if !p.Query {
			continue
		}
		names := make([]string, len(p.Columns))
		for i, f := range p.Columns {
			names[i] = f.Name
		}
		headers = append(headers, "op["+strings.Join(names, ", ")+"]")
	}
	if len(headers) == 0 {
		return ""
	}
	if len(headers) > 1 {
		for i := range headers {
			headers[i] = j.queryLabel(i) + "> " + headers[i]
		}
	}
	return strings.Join(headers, "\n") + "\n"
}
