package runtime

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/ckptpath"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// JobSpec describes a job to run: what the planner produces for the
// runtime.
type JobSpec struct {
	// Name is the job's name (docs/runtime.md, "Job identity"): stable across
	// restarts, it names the checkpoint folder.
	Name string
	// Config is the runtime configuration (see jobconfig.ParseConfig).
	Config jobconfig.Config
	// Pipelines are the job's independent dataflows (one per INSERT).
	// Each is lowered onto the job's graph: its sources and sinks become
	// vertices ("<pipeline>/<table>"), its transform an operator fused
	// with each source, and an edge joins each source to each sink.
	Pipelines []Pipeline
	// Graph holds dataflows given as a graph of sources, operators and
	// sinks (a planner's stateful plans); the pipelines are lowered onto
	// it. A job needs at least one pipeline or vertex.
	Graph Graph
	// RestorePath, when set, names the checkpoint to restore on the first
	// run instead of the latest one of the job: a checkpoint file or a
	// job's checkpoint folder (plain path or file:// URI).
	RestorePath string
	// AllowNonRestoredState lets a run restore a checkpoint that holds the
	// positions of sources the job no longer has (Flink's
	// --allowNonRestoredState): they are dropped. Without it such a
	// restore fails with ErrInvalidSpec, since the usual cause is a renamed
	// table or pipeline, whose source would otherwise start afresh and
	// write again what its old id already wrote.
	AllowNonRestoredState bool
	// RestoreHint, when set, is appended to the error of a restore that
	// fails because the checkpoint holds the positions or state of sources
	// or operators the job does not have: what else, besides a renamed
	// table or a changed query, changes them (a planner's setting, say).
	RestoreHint string
	// ResetSources names sources that start afresh, from their start
	// options, instead of from their positions in the checkpoint restored
	// at the process's start (by table name, by id "<pipeline>/<table>",
	// or "*" for all): for a checkpoint taken against another Kafka
	// cluster, or a topic created again. The checkpoint's pending commits
	// are still recovered; checkpoints of this process's own runs restore
	// whole.
	ResetSources []string
	// Logger receives the job's log; nil: slog.Default().
	Logger *slog.Logger
	// StartWarnings are warnings about the job found before it runs (the
	// planner's, which the caller logs): Status.Recent lists them first,
	// without logging them again.
	StartWarnings []string
	// Faults, when set, is consulted at the protocol's failure points
	// (tests only; see package testkit).
	Faults FaultInjector
}

// Pipeline is one dataflow: rows of its sources pass through Transform
// and go to every one of its sinks.
type Pipeline struct {
	// Name identifies the pipeline in ids of its sources and sinks, which
	// key checkpoint state; it must stay the same across restarts.
	// Default: "pipeline-<index>".
	Name string
	// Sources feed the pipeline; each source task applies Transform.
	Sources []SourceSpec
	// Transform maps one input row to zero or more output rows, appended
	// to out; nil passes rows through. It is called from several
	// goroutines at once (one per source task) and must not keep in or
	// out. An error fails the job, naming the row's source position when
	// the reader knows it (connector.RowPositioner); an error wrapping
	// connector.ErrDropRow drops the row and counts it
	// (TaskStatus.Dropped).
	Transform func(in types.Row, out []types.Row) ([]types.Row, error)
	// TransformCopies promises that Transform's output rows share no
	// memory with its input rows (it builds rows of its own rather than
	// passing in, or in.Fields, on): the runtime then hands the input rows
	// back to a reader that reuses them (connector.RowRecycler).
	TransformCopies bool
	// TransformCopiesNested promises, with TransformCopies, that
	// Transform's output rows refer to no nested value (ROW, ARRAY, MAP)
	// of its input rows either (their columns are all scalars, say): a
	// reader may then reuse the memory of those nested values too
	// (connector.NestedRowRecycler). Strings and bytes may still be
	// shared: readers never overwrite them.
	TransformCopiesNested bool
	// NewTransform, when set, is used instead of Transform: each source
	// task calls it once and applies the function it returns alone, so
	// that function may keep state between calls (e.g. take output rows'
	// fields from a slab it allocates per few rows). Its contract is
	// Transform's otherwise, TransformCopies included; and since sinks may
	// keep output rows, it must never reuse the memory of a row it
	// returned.
	NewTransform func() func(in types.Row, out []types.Row) ([]types.Row, error)
	// NewReusingTransform, when set, is used instead of NewTransform by a
	// source task whose transform's output nobody keeps: the task's chain
	// is the transform and a sink writer fused after it (no operator, no
	// exchange) that promises to keep no row past its Write
	// (connector.RowForgetter). Each such task calls it once; release,
	// called after each batch's output was written, lets fn reuse the
	// memory of the rows (and their Fields) it returned so far. Its
	// contract is NewTransform's otherwise, TransformCopies included.
	NewReusingTransform func() (fn func(in types.Row, out []types.Row) ([]types.Row, error), release func())
	// Partition, when set, chooses the sink task (0 <= i < n) of each row;
	// nil sends every row of source task i to sink task i mod n, which
	// keeps each split's order.
	Partition func(row types.Row, n int) int
	// Sinks receive every output row.
	Sinks []SinkSpec
}

// SourceSpec is a source with its parallelism.
type SourceSpec struct {
	// Name is the table's name; the source's id is "<pipeline>/<name>".
	Name string
	// Source is the connector's source.
	Source connector.Source
	// Parallelism is the number of reader tasks; default 1. Splits are
	// assigned to tasks round robin.
	Parallelism int
	// Transform, when set, replaces the pipeline's Transform for the rows
	// of this source (each branch of a UNION ALL has its own projection).
	Transform func(in types.Row, out []types.Row) ([]types.Row, error)
	// DeadLetter, when set, is the sink of the source's dead letters
	// (connector.DeadLetterSource): it receives only the rows its readers
	// set aside (connector.DeadLetterReader), never the pipeline's
	// output. Its id is "<pipeline>/<DeadLetter.Name>" and it runs one task
	// per source task, each fed by that source task alone; it takes part
	// in checkpoints as any sink does (barriers, pre-commit, commit by
	// the completed checkpoint, recovery). Its Parallelism is ignored.
	DeadLetter *SinkSpec
	// DeadLettersInSink, with DeadLetter, sends the dead letters to the
	// pipeline's sink instead, whose writers write them inside their own
	// transactions (connector.DeadLetterWriter) as DeadLetter would write
	// them; DeadLetter is then never opened and takes no part in
	// checkpoints, except that a connector.TwoPhaseSink DeadLetter commits
	// the pending commits of its own that a restored checkpoint holds
	// (taken while its dead letters had transactions of their own). Each
	// dead letter commits with the output and the source positions of the
	// checkpoint that reads past its record. The
	// pipeline must have one sink, and its writers must implement
	// connector.DeadLetterWriter (checked when they open).
	DeadLettersInSink bool
	// Columns are SourceVertex.Columns: when set, each reader's first
	// batch is checked against them.
	Columns []types.Field
	// TransformCopies and TransformCopiesNested are Pipeline's for
	// Transform and NewTransform.
	TransformCopies, TransformCopiesNested bool
	// NewTransform is Pipeline.NewTransform for this source: when set it
	// is used instead of Transform, and either replaces the pipeline's.
	NewTransform func() func(in types.Row, out []types.Row) ([]types.Row, error)
	// NewReusingTransform is Pipeline.NewReusingTransform for this
	// source, which it replaces with NewTransform.
	NewReusingTransform func() (fn func(in types.Row, out []types.Row) ([]types.Row, error), release func())
}

// SinkSpec is a sink with its parallelism.
type SinkSpec struct {
	// Name is the table's name; the sink's id is "<pipeline>/<name>".
	Name string
	// Sink is the connector's sink; a connector.TwoPhaseSink gets its
	// committables committed after each completed checkpoint.
	Sink connector.Sink
	// Parallelism is the number of writer tasks; default 1.
	Parallelism int
}

// ErrInvalidSpec is wrapped by errors about a JobSpec that cannot run.
var ErrInvalidSpec = errors.New("invalid job spec")

func pipelineName(p *Pipeline, i int) string {
	if p.Name != "" {
		return p.Name
	}
	return fmt.Sprintf("pipeline-%d", i)
}

func (s *JobSpec) validate() error {
	if err := ckptpath.ValidJobName(s.Name); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	if err := s.Config.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	if len(s.Pipelines) == 0 && len(s.Graph.Vertices) == 0 {
		return fmt.Errorf("%w: job %q has no pipelines", ErrInvalidSpec, s.Name)
	}
	ids := map[string]bool{}
	for i := range s.Pipelines {
		p := &s.Pipelines[i]
		pn := pipelineName(p, i)
		if len(p.Sources) == 0 || len(p.Sinks) == 0 {
			return fmt.Errorf("%w: pipeline %q needs at least one source and one sink", ErrInvalidSpec, pn)
		}
		check := func(kind, name string, par int, nilConn bool) error {
			id := pn + "/" + name
			switch {
			case name == "":
				return fmt.Errorf("%w: pipeline %q: a %s has no name", ErrInvalidSpec, pn, kind)
			case nilConn:
				return fmt.Errorf("%w: %s %q has no connector", ErrInvalidSpec, kind, id)
			case par < 0:
				return fmt.Errorf("%w: %s %q: parallelism %d is negative", ErrInvalidSpec, kind, id, par)
			case ids[kind+id]:
				return fmt.Errorf("%w: %s %q appears twice", ErrInvalidSpec, kind, id)
			}
			ids[kind+id] = true
			return nil
		}
		for _, src := range p.Sources {
			if err := check("source", src.Name, src.Parallelism, src.Source == nil); err != nil {
				return err
			}
			if dl := src.DeadLetter; dl != nil {
				if err := check("sink", dl.Name, 0, dl.Sink == nil); err != nil {
					return err
				}
			}
			if src.DeadLettersInSink && (src.DeadLetter == nil || len(p.Sinks) != 1) {
				return fmt.Errorf("%w: source %q: DeadLettersInSink needs a DeadLetter sink and a pipeline with one sink (it has %d)", ErrInvalidSpec, pn+"/"+src.Name, len(p.Sinks))
			}
		}
		for _, snk := range p.Sinks {
			if err := check("sink", snk.Name, snk.Parallelism, snk.Sink == nil); err != nil {
				return err
			}
		}
	}
	g := s.graph()
	if err := g.validate(s.Config.MaxParallelism); err != nil {
		return err
	}
	for _, v := range g.Vertices {
		if v.Operator == nil || !v.Operator.Stateful {
			continue
		}
		if _, ok := state.Lookup(s.Config.StateBackend); !ok {
			return fmt.Errorf("%w: operator %q keeps keyed state, and state.backend.type '%s' names no backend (registered: %s; package job "+
				"registers hashmap; a program registers rocksdb by importing github.com/streamsql/streamsql/state/lsm, or connectors/all, as the CLI does)",
				ErrInvalidSpec, v.ID, s.Config.StateBackend, strings.Join(state.Names(), ", "))
		}
	}
	return nil
}
