package job

import (
	"context"
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/types"
)

// This file is where a plan becomes a running job's description: package
// job is the one place that puts the planner's output, the connectors
// and the runtime together (the composition root).

// parallelismOf returns the parallelism a table asks for in role: the
// shared option of the role (option.ScanParallelism of a source,
// option.SinkParallelism of a sink) among its validated options, whatever
// its connector; 0 (the runtime's default) when it is not set or the
// table has no options (a VALUES source, a bare query's sink).
func parallelismOf(valid *factory.Validated, role factory.Role) int {
	if valid == nil {
		return 0
	}
	o := option.SinkParallelism
	if role == factory.AsSource {
		o = option.ScanParallelism
	}
	return max(o.Get(valid.Config), 0)
}

// BuildOptions configure Build and RuntimeSpec.
type BuildOptions struct {
	// QuerySink creates the sink of a bare query (the Sink with Print
	// set) from the query's fields; query is its index among the job's
	// bare queries, in file order. The planner knows no connector: a plan
	// with a bare query needs it (package job passes the print
	// connector's).
	QuerySink func(query int, fields []types.Field) (connector.Sink, error)
}

// ErrNoQuerySink is returned by Build when the plan has a bare query and
// BuildOptions.QuerySink is nil.
var ErrNoQuerySink = errors.New("job: a bare query needs BuildOptions.QuerySink")

// Build creates the sources and sinks of every stateless INSERT that is
// to run (not those of EXPLAIN statements) through the plan's registry, and
// compiles the transforms, into the runtime's pipelines: one per INSERT,
// named as Plan.PipelineNames says, its sources named by their tables (#2,
// #3, ... for a table read twice). With one source the pipeline's
// Transform is the flow's filter and projection; with several (UNION ALL)
// each source has its own (SourceSpec.Transform) and Transform is nil.
// INSERTs with stateful operators become a graph instead (RuntimeSpec
// builds both). The factories create clients but Build itself reads and
// writes nothing. The sink of a bare query comes from bo.QuerySink.
func Build(ctx context.Context, pl *planner.Plan, bo BuildOptions) ([]runtime.Pipeline, error) {
	pipes, _, err := build(ctx, pl, bo)
	return pipes, err
}

// build builds the pipelines of the stateless INSERTs and the graph of
// the stateful ones and of those whose sources generate watermarks.
func build(ctx context.Context, pl *planner.Plan, bo BuildOptions) ([]runtime.Pipeline, runtime.Graph, error) {
	var g runtime.Graph
	opts, err := pl.ExprOptions()
	if err != nil {
		return nil, g, err
	}
	if pl.ScaleOut && pl.InstanceID == "" {
		return nil, g, fmt.Errorf("%s = true needs this instance's id: run with --instance-id ID (or set %s), unique among the job's instances and the same across restarts", planner.SettingScaleOut, planner.SettingInstanceID)
	}
	var out []runtime.Pipeline
	names := pl.PipelineNames()
	gb := &graphBuilder{ctx: ctx, pl: pl, opts: opts, bo: bo, g: &g}
	i := 0
	for _, ins := range pl.Inserts {
		if ins.Explain {
			continue
		}
		name := names[i]
		i++
		if ins.Graph() {
			if err := gb.insert(ins, name); err != nil {
				return nil, g, err
			}
			continue
		}
		p, err := buildPipeline(ctx, pl, ins, name, opts, bo)
		if err != nil {
			return nil, g, err
		}
		out = append(out, p)
	}
	if len(out) == 0 && len(g.Vertices) == 0 {
		return nil, g, planner.ErrNoJob
	}
	return out, g, nil
}

// buildPipeline builds the pipeline of a stateless INSERT.
func buildPipeline(ctx context.Context, pl *planner.Plan, ins *planner.Insert, name string, opts expr.Options, bo BuildOptions) (runtime.Pipeline, error) {
	p := runtime.Pipeline{Name: name}
	srcNames := map[string]int{}
	for _, fl := range ins.Flows {
		src, valid, err := buildSource(ctx, pl, fl.Source, fl.ReadFields, fl.ReadRows, opts)
		if err != nil {
			return p, err
		}
		ft, err := fl.Compile(opts)
		if err != nil {
			return p, fmt.Errorf("pipeline %s: %w", p.Name, err)
		}
		tf, ntf, rtf := ft.Shared(), ft.PerTask(), ft.PerTaskReusing()
		spec := runtime.SourceSpec{Source: src, Parallelism: parallelismOf(valid, factory.AsSource), Columns: sourceColumns(valid)}
		// A flow's transform builds every output row anew (Flow.Transform):
		// the source may reuse its rows' memory, and that of their nested
		// values when the flow outputs scalars only (Flow.ScalarOutput).
		// The runtime uses the per-task form (slab-allocated fields);
		// Transform stays set for callers that apply the pipeline's
		// transform themselves.
		// Where the runtime finds that nobody keeps the output rows (a
		// fused sink writer that forgets them), the reusing form takes
		// them from the same slabs batch after batch.
		nested := fl.ScalarOutput()
		if len(ins.Flows) == 1 {
			p.Transform, p.NewTransform, p.NewReusingTransform, p.TransformCopies, p.TransformCopiesNested = tf, ntf, rtf, true, nested
		} else {
			spec.Transform, spec.NewTransform, spec.NewReusingTransform, spec.TransformCopies, spec.TransformCopiesNested = tf, ntf, rtf, true, nested
		}
		spec.Name = fl.Source.Name()
		if srcNames[spec.Name]++; srcNames[spec.Name] > 1 {
			spec.Name = fmt.Sprintf("%s#%d", spec.Name, srcNames[spec.Name])
		}
		if spec.DeadLetter, err = deadLetterSink(src, fl.Source, p.Name, spec.Name, pl.JobName); err != nil {
			return p, err
		}
		spec.DeadLettersInSink = spec.DeadLetter != nil && fl.Source.DeadLettersInSink
		p.Sources = append(p.Sources, spec)
	}
	snk, valid, err := buildSink(ctx, pl, ins.Sink, bo)
	if err != nil {
		return p, err
	}
	p.Sinks = []runtime.SinkSpec{{Name: ins.Sink.Name(), Sink: snk, Parallelism: parallelismOf(valid, factory.AsSink)}}
	return p, nil
}

// buildSource creates the source of s for a flow that reads the fields read
// marks (nil: all) and of its ROW fields those rows marks (nil: whole).
func buildSource(ctx context.Context, pl *planner.Plan, s *planner.Source, read []bool, rows []*factory.RowRead, opts expr.Options) (connector.Source, *factory.Validated, error) {
	if s.Table == nil {
		src, err := newValuesSource(s, opts)
		return src, nil, err
	}
	src, err := pl.Registry().NewProjectedSource(ctx, s.Validated, read, rows)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", planner.ErrInvalidTable, err)
	}
	return src, s.Validated, nil
}

func buildSink(ctx context.Context, pl *planner.Plan, s *planner.Sink, bo BuildOptions) (connector.Sink, *factory.Validated, error) {
	if s.Print {
		if bo.QuerySink == nil {
			return nil, nil, ErrNoQuerySink
		}
		query := 0
		for _, ins := range pl.Inserts {
			if ins.Sink == s {
				break
			}
			if ins.Sink.Print && !ins.Explain {
				query++
			}
		}
		snk, err := bo.QuerySink(query, s.Fields)
		return snk, nil, err
	}
	snk, err := pl.Registry().NewSink(ctx, s.Validated)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", planner.ErrInvalidTable, err)
	}
	return snk, s.Validated, nil
}

// RuntimeSpec builds the job and returns the runtime's description of it:
// its name, the runtime configuration parsed from the job's settings, one
// runtime pipeline per stateless INSERT (see Build) and the graph of the
// stateful ones (sources, Calc and stateful operators, sinks; graph.go).
// It is what package job hands to runtime.NewJob.
func RuntimeSpec(ctx context.Context, pl *planner.Plan, bo BuildOptions) (runtime.JobSpec, error) {
	pipes, g, err := build(ctx, pl, bo)
	if err != nil {
		return runtime.JobSpec{}, err
	}
	return runtime.JobSpec{Name: pl.JobName, Config: pl.Runtime, Pipelines: pipes, Graph: g}, nil
}

// sourceColumns returns the columns the rows of a table's source hold: its
// physical and metadata columns in declaration order, metadata with the
// type its connector gives it (nil for VALUES). The runtime checks each
// reader's first batch against them.
func sourceColumns(v *factory.Validated) []types.Field {
	if v == nil {
		return nil
	}
	var out []types.Field
	for _, c := range v.Table.Schema.Columns {
		if c.Kind != factory.Computed {
			out = append(out, types.Field{Name: c.Name, Type: c.Type})
		}
	}
	return out
}

// deadLetterSink returns the sink of the dead letters of src, the source
// of planned source fs named name in pipeline pipe, or nil when src sets
// no bad records aside.
func deadLetterSink(src connector.Source, fs *planner.Source, pipe, name, jobName string) (*runtime.SinkSpec, error) {
	dls, ok := src.(connector.DeadLetterSource)
	if !ok {
		return nil, nil
	}
	dl, err := dls.DeadLetterSink(connector.DeadLetterConfig{Name: pipe + "/" + name, Job: jobName, ExactlyOnce: fs.DeadLettersExactlyOnce})
	if err != nil {
		return nil, fmt.Errorf("%w: source '%s': %w", planner.ErrInvalidTable, fs.Name(), err)
	}
	if dl == nil {
		return nil, nil
	}
	return &runtime.SinkSpec{Name: name + ".dead-letter", Sink: dl}, nil
}
