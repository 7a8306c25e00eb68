// Package job is streamsql's embedding API: a Go program compiles a job
// from SQL text, runs it under a context and watches its status, with the
// built-in connectors and formats and any it registers itself. It is a thin
// layer over the packages that do the work: planner (SQL to plan),
// factory (connector and format registries) and runtime (tasks,
// checkpoints, two-phase commit); `streamsql run` does the same.
//
// # Compiling
//
// [Compile] plans a job file's text (every INSERT, statement set and bare
// SELECT of the file is one job). [Options] give ${NAME} values (Vars,
// Env), settings that win over the file's SET statements (Set, as the
// CLI's --set), the job's name, a registry of connectors and formats, and
// Hints: table options applied to every use of a table, as an OPTIONS hint
// written in the file would be — the way a program or test bounds a job
// written for production (number-of-rows on a datagen table,
// scan.bounded.mode on a Kafka table, another topic) without editing it.
// Compiling validates every table's options and connects nowhere.
//
// # Custom connectors and formats
//
// [NewRegistry] returns a copy of the built-in registry (every connector
// of connectors/all and every format); register a [factory.ConnectorFactory]
// or [factory.FormatFactory] in it and pass it as Options.Registry, and
// the job's SQL can name them in 'connector' and 'format'. The copy keeps
// the program's additions out of factory.Default. Connector traits
// (readable metadata, changelog modes) of a program's connector go in
// Options.Traits; without them it is append-only without metadata.
//
// # Running
//
// [Job.Run] creates the sources and sinks through their factories and runs
// the job with the runtime until its bounded sources are done (nil), ctx
// is cancelled (a graceful stop with a final checkpoint; nil), or it fails.
// A Job runs once. [Job.Status] may be called from any goroutine at any
// time: before Run it reports [runtime.StateCreated]. Bare SELECTs print
// their rows, in the style of Flink's SQL client, to Options.Output.
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
	"sync"

	_ "github.com/streamsql/streamsql/connectors/all" // the built-in connectors and formats
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/runtime"
)

// ErrAlreadyRun is returned by Run on a Job that was run before.
var ErrAlreadyRun = errors.New("job: a Job runs only once; compile it again")

// ErrUnknownPipeline is wrapped by the error of Compile when
// Options.Pipelines or Options.Hints name something the job does not have.
var ErrUnknownPipeline = errors.New("job: unknown pipeline or table")

// NewRegistry returns a registry holding the built-in connectors and
// formats, a copy that the caller may register its own into.
func NewRegistry() *factory.Registry { return factory.Default.Clone() }

// Options configure Compile.
type Options struct {
	// Registry holds the connectors and formats the SQL may name; nil
	// means the built-ins (factory.Default).
	Registry *factory.Registry
	// Traits declare metadata keys and changelog modes of connectors the
	// planner does not know (see planner.ConnectorTraits).
	Traits map[string]planner.ConnectorTraits
	// Vars give values for ${NAME} in the SQL text; Env is consulted
	// after Vars (pass os.LookupEnv for the process environment; nil
	// means none).
	Vars map[string]string
	Env  func(string) (string, bool)
	// Set are job settings that win over the file's SET statements
	// (execution.checkpointing.interval, pipeline.name, ...).
	Set map[string]string
	// JobName overrides the job's name (default: pipeline.name, else the
	// file name without directory and extension).
	JobName string
	// Hints are table options by table name (as written in the file,
	// without catalog and database), applied to every read and write of
	// the table over its WITH options. They are validated by the table's
	// factory when the job is built (at Run); the planner's checks across
	// tables (EXPLAIN's warnings, shared transactional-id prefixes) see
	// the options as written in the file.
	Hints map[string]map[string]string
	// Pipelines, when not empty, names the pipelines to run (see
	// Job.Pipelines); the others are planned and validated but not run.
	Pipelines []string
	// Output receives the rows printed by bare SELECTs; nil means
	// standard output.
	Output io.Writer
	// Logger receives the runtime's log (checkpoints, restarts,
	// warnings); nil means slog.Default().
	Logger *slog.Logger
}

// Job is a compiled job. Its methods are safe for concurrent use.
type Job struct {
	plan      *planner.Plan
	pipelines []string
	logger    *slog.Logger

	mu  sync.Mutex
	run *runtime.Job
	ran bool
}

// Compile plans the job file text (name is the file name shown in errors;
// without directory and extension it is the default job name). Errors
// are those of planner.Compile: a planner.ErrorList of the file's parse
// and planning errors together, in file order, whose entries carry
// positions (see planner.Errors).
func Compile(ctx context.Context, name, text string, opts Options) (*Job, error) {
	plan, err := planner.Compile(ctx, name, text, planner.Options{
		Registry: opts.Registry,
		Traits:   opts.Traits,
		Vars:     opts.Vars,
		Env:      opts.Env,
		Set:      opts.Set,
		JobName:  opts.JobName,
	})
	if err != nil {
		return nil, err
	}
	plan.QueryOutput = opts.Output
	if err := applyHints(plan, opts.Hints); err != nil {
		return nil, err
	}
	j := &Job{plan: plan, logger: opts.Logger}
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

// applyHints overlays hints on the options of every source and sink that
// uses a hinted table. The maps are copied: the catalog is not changed.
func applyHints(plan *planner.Plan, hints map[string]map[string]string) error {
	used := map[string]bool{}
	overlay := func(name string, opts map[string]string) map[string]string {
		h, ok := hints[name]
		if !ok {
			return opts
		}
		used[name] = true
		out := maps.Clone(opts)
		maps.Copy(out, h)
		return out
	}
	for _, ins := range plan.Inserts {
		for _, fl := range ins.Flows {
			if fl.Source.Table != nil {
				fl.Source.Options = overlay(fl.Source.Name(), fl.Source.Options)
			}
		}
		if ins.Sink.Table != nil {
			ins.Sink.Options = overlay(ins.Sink.Name(), ins.Sink.Options)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(hints)) {
		if !used[name] {
			return fmt.Errorf("%w: hints for table %q, which the job neither reads nor writes", ErrUnknownPipeline, name)
		}
	}
	return nil
}

// Name returns the job's name.
func (j *Job) Name() string { return j.plan.JobName }

// Plan returns the planner's plan of the job, for inspection.
func (j *Job) Plan() *planner.Plan { return j.plan }

// Warnings returns the planner's findings that do not stop the job.
func (j *Job) Warnings() []planner.Warning { return j.plan.Warnings }

// Explain writes the job's plan as `streamsql explain` shows it.
func (j *Job) Explain(w io.Writer) error { return j.plan.Explain(w) }

// Pipelines returns the names of the job's pipelines in file order: the
// table each INSERT writes ("print" for a bare SELECT), suffixed -2, -3,
// ... when several write the same table.
func (j *Job) Pipelines() []string {
	var out []string
	seen := map[string]int{}
	for _, ins := range j.plan.Inserts {
		if ins.Explain {
			continue
		}
		name := ins.Sink.Name()
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s-%d", name, seen[name])
		}
		out = append(out, name)
	}
	return out
}

// Run builds the job's sources and sinks and runs it until its bounded
// sources are done or ctx is cancelled (both return nil after a final
// checkpoint is committed), or until it fails.
func (j *Job) Run(ctx context.Context) error {
	j.mu.Lock()
	if j.ran {
		j.mu.Unlock()
		return ErrAlreadyRun
	}
	j.ran = true
	j.mu.Unlock()

	spec, err := j.plan.RuntimeSpec(ctx)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.plan.JobName, err)
	}
	if len(j.pipelines) > 0 {
		spec.Pipelines = slices.DeleteFunc(spec.Pipelines, func(p runtime.Pipeline) bool {
			return !slices.Contains(j.pipelines, p.Name)
		})
	}
	spec.Logger = j.logger
	rj, err := runtime.NewJob(spec)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.plan.JobName, err)
	}
	j.mu.Lock()
	j.run = rj
	j.mu.Unlock()
	return rj.Run(ctx)
}

// Status returns a snapshot of the job's state and metrics (see
// runtime.Status); before Run it has the job's name and StateCreated.
func (j *Job) Status() runtime.Status {
	j.mu.Lock()
	rj := j.run
	j.mu.Unlock()
	if rj == nil {
		return runtime.Status{Job: j.plan.JobName, State: runtime.StateCreated}
	}
	return rj.Status()
}
