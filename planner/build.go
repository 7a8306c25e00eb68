package planner

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/print"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/types"
)

// Pipeline is a runnable pipeline built from one planned INSERT: its
// sources (created by their factories), the per-row transform, and its
// sink. It has the shape of the runtime's pipeline description.
type Pipeline struct {
	// Name identifies the pipeline in checkpoint state: the sink table's
	// name, suffixed with -2, -3, ... when several INSERTs write one table.
	Name    string
	Sources []NamedSource
	// Transform is the flow's filter and projection when the pipeline has
	// one source; with several (UNION ALL) each source applies its own
	// flow's transform and Transform is nil.
	Transform TransformFunc
	Sinks     []NamedSink
}

// NamedSource is a source with its name (the table's, unique within the
// pipeline) and parallelism (0: the runtime's default).
type NamedSource struct {
	Name        string
	Source      connector.Source
	Parallelism int
}

// NamedSink is a sink with its name and parallelism (0: the runtime's
// default).
type NamedSink struct {
	Name        string
	Sink        connector.Sink
	Parallelism int
}

// parallelism is implemented by sources and sinks that were given a
// parallelism option (sink.parallelism, scan.parallelism).
type parallelism interface{ Parallelism() int }

// parallelismOf returns the parallelism a source or sink asks for: its
// Parallelism method, else the validated option key (scan.parallelism,
// sink.parallelism), else 0 (the runtime's default).
func parallelismOf(v any, options map[string]string, key string) int {
	if p, ok := v.(parallelism); ok && p.Parallelism() > 0 {
		return p.Parallelism()
	}
	if n, err := strconv.Atoi(strings.TrimSpace(options[key])); err == nil && n > 0 {
		return n
	}
	return 0
}

// Build creates the sources and sinks of every INSERT that is to run (not
// those of EXPLAIN statements) through the plan's registry, and compiles
// the transforms. The factories create clients but Build itself reads and
// writes nothing. The printing sink of a bare query writes to standard
// output.
func (pl *Plan) Build(ctx context.Context) ([]Pipeline, error) {
	opts, err := pl.ExprOptions()
	if err != nil {
		return nil, err
	}
	var out []Pipeline
	names := map[string]int{}
	for _, ins := range pl.Inserts {
		if ins.Explain {
			continue
		}
		p := Pipeline{Name: ins.Sink.Name()}
		if names[p.Name]++; names[p.Name] > 1 {
			p.Name = fmt.Sprintf("%s-%d", p.Name, names[p.Name])
		}
		srcNames := map[string]int{}
		for _, fl := range ins.Flows {
			src, err := pl.buildSource(ctx, fl.Source, opts)
			if err != nil {
				return nil, err
			}
			tf, err := fl.Transform(opts)
			if err != nil {
				return nil, fmt.Errorf("pipeline %s: %w", p.Name, err)
			}
			if len(ins.Flows) == 1 {
				p.Transform = tf
			} else {
				src = &transformingSource{Source: src, tf: tf}
			}
			name := fl.Source.Name()
			if srcNames[name]++; srcNames[name] > 1 {
				name = fmt.Sprintf("%s#%d", name, srcNames[name])
			}
			p.Sources = append(p.Sources, NamedSource{Name: name, Source: src, Parallelism: parallelismOf(src, fl.Source.Options, "scan.parallelism")})
		}
		snk, err := pl.buildSink(ctx, ins.Sink)
		if err != nil {
			return nil, err
		}
		p.Sinks = []NamedSink{{Name: ins.Sink.Name(), Sink: snk, Parallelism: parallelismOf(snk, ins.Sink.Options, "sink.parallelism")}}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, ErrNoJob
	}
	return out, nil
}

func (pl *Plan) buildSource(ctx context.Context, s *Source, opts expr.Options) (connector.Source, error) {
	if s.Table == nil {
		return newValuesSource(s, opts)
	}
	src, _, err := pl.registry.CreateSource(ctx, factory.Table{Name: s.Table.ID.String(), Schema: s.Schema, Options: s.Options})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidTable, err)
	}
	return src, nil
}

func (pl *Plan) buildSink(ctx context.Context, s *Sink) (connector.Sink, error) {
	if s.Print {
		colTypes := make([]types.Type, len(s.Fields))
		for i, f := range s.Fields {
			colTypes[i] = f.Type
		}
		w := pl.QueryOutput
		if w == nil {
			w = os.Stdout
		}
		return print.NewTo(print.Config{}, colTypes, w), nil
	}
	snk, _, err := pl.registry.CreateSink(ctx, factory.Table{Name: s.Table.ID.String(), Schema: s.Schema, Options: s.Options})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidTable, err)
	}
	return snk, nil
}

// RuntimeSpec builds the pipelines (see Build) and returns the runtime's
// description of the job: its name, the runtime configuration parsed from
// the job's settings, and one runtime pipeline per INSERT. It is what
// `streamsql run` hands to runtime.NewJob.
func (pl *Plan) RuntimeSpec(ctx context.Context) (runtime.JobSpec, error) {
	pipes, err := pl.Build(ctx)
	if err != nil {
		return runtime.JobSpec{}, err
	}
	spec := runtime.JobSpec{Name: pl.JobName, Config: pl.Runtime}
	for _, p := range pipes {
		rp := runtime.Pipeline{Name: p.Name, Transform: p.Transform}
		for _, s := range p.Sources {
			rp.Sources = append(rp.Sources, runtime.SourceSpec{Name: s.Name, Source: s.Source, Parallelism: s.Parallelism})
		}
		for _, s := range p.Sinks {
			rp.Sinks = append(rp.Sinks, runtime.SinkSpec{Name: s.Name, Sink: s.Sink, Parallelism: s.Parallelism})
		}
		spec.Pipelines = append(spec.Pipelines, rp)
	}
	return spec, nil
}
