package runtime

import (
	"fmt"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Graph is a job's dataflow: vertices (sources, operators, sinks) joined by
// edges. The runtime runs each vertex as Parallelism tasks and each edge as
// an exchange between the tasks of its ends (the package doc, "Execution").
// JobSpec.Pipelines are lowered onto the same graph.
type Graph struct {
	Vertices []Vertex
	Edges    []Edge
}

// Vertex is a source, an operator or a sink of a Graph: exactly one of
// Source, Operator and Sink is set.
type Vertex struct {
	// ID identifies the vertex, stable across restarts: it keys the
	// vertex's checkpoint state (a source's split positions, an
	// operator's keyed state, a sink's pending commits). Sources and
	// sinks of pipelines have "<pipeline>/<table>".
	ID string
	// Name describes the vertex for logs and the status page (for an
	// operator, e.g. "GroupAggregate(keys=[bidder])"); for a source or a
	// sink it is the table's name (connector.TaskInfo.Table). Default: ID.
	Name string
	// Parallelism is the number of tasks; 0 means 1.
	Parallelism int

	Source   *SourceVertex
	Operator *OperatorVertex
	Sink     *SinkVertex

	// transform, when set, makes the vertex the lowered transform of
	// Pipeline or SourceSpec (transform.go): an operator the status
	// shows as part of its source.
	transform *transformSpec
}

// SourceVertex is a source of a Graph.
type SourceVertex struct {
	// Source is the connector's source.
	Source connector.Source
	// Watermark, when set, generates the source's event-time watermarks;
	// nil: its rows carry no event time.
	Watermark *WatermarkSpec
	// DeadLetter and DeadLettersInSink are SourceSpec's. The dead-letter
	// sink's id is the source's id up to its last "/" followed by
	// DeadLetter.Name ("<pipeline>/<table>.dead-letter"); with
	// DeadLettersInSink the source's rows must reach one sink, through
	// Forward edges between fused vertices or one edge into the sink.
	DeadLetter        *SinkSpec
	DeadLettersInSink bool
	// Columns, when set, are the columns the source's rows hold (its
	// table's physical and metadata columns, in declaration order): the
	// rows of each reader's first batch are checked against them
	// (connector.CheckRow), and a misfit fails the job (ErrInvalidSpec).
	Columns []types.Field
}

// WatermarkSpec says how a source's rows carry event time.
type WatermarkSpec struct {
	// Generate returns the watermark candidate of a source row: the
	// WATERMARK FOR expression over the row as the reader delivers it, in
	// milliseconds since the epoch; ok is false when it is NULL.
	Generate func(row types.Row) (ms int64, ok bool, err error)
	// IdleTimeout is table.exec.source.idle-timeout: a split that
	// delivered no row for this long does not hold the watermark back; 0:
	// never idle.
	IdleTimeout time.Duration
}

// OperatorVertex is an operator of a Graph (package stream).
type OperatorVertex struct {
	// New creates the operator of each task.
	New stream.Factory
	// Inputs is the number of the operator's inputs; 0 means 1. Edges say
	// which input they feed.
	Inputs int
	// Stateful makes the runtime open a keyed-state backend for each task
	// (stream.Context.State), snapshot it at checkpoints and restore it.
	Stateful bool
	// Copies promises that the operator's output rows share no memory
	// with its input rows: a reader right before it may then reuse the
	// memory of its batches (connector.RowRecycler).
	Copies bool
	// CopiesNested promises, with Copies, that the output rows refer to
	// no nested value (ROW, ARRAY, MAP) of the input rows either: a reader
	// right before it may then reuse their memory too
	// (connector.NestedRowRecycler).
	CopiesNested bool
}

// SinkVertex is a sink of a Graph.
type SinkVertex struct {
	// Sink is the connector's sink; a connector.TwoPhaseSink gets its
	// committables committed after each completed checkpoint.
	Sink connector.Sink
}

// Edge joins the tasks of vertex From to those of vertex To (indexes into
// Graph.Vertices).
type Edge struct {
	From, To int
	// Input is the input of To that the edge feeds (0 for one-input
	// operators and sinks).
	Input int
	// Exchange says which task of To receives each row.
	Exchange Exchange
	// Transform, when set, maps the rows of the source vertex From (only
	// a source's edges may have one) to what the edge carries, in the
	// source's task, before the exchange: the filter and projection of
	// one reader of a scan that several read (a shared scan). Each edge
	// out of the source gets the source's rows as they are and keeps
	// only its reader's, projected: no copy of the whole row between,
	// and no reader filters rows another kept. The edge is never fused.
	// The source's RecordsOut counts the rows its edges' transforms
	// return (a row two readers keep counts twice).
	Transform *EdgeTransform
}

// EdgeTransform is a row function run in the tasks of an edge's source
// (Edge.Transform), as a pipeline's transform is: a row it rejects
// (connector.ErrBadRow, connector.ErrDropRow) goes by the source's
// bad-record policy, else a dropped row counts in the source's Dropped,
// and any other error fails the task, its message prefixed by Name.
type EdgeTransform struct {
	// Name describes the transform in errors ("pipeline 'sink'").
	Name string
	// New returns the function of one task (it may keep scratch memory
	// between calls: one task calls it). It keeps each row's kind.
	New func() func(in types.Row, out []types.Row) ([]types.Row, error)
	// NewRecycling, when set, is New's form whose function cuts its
	// output rows' fields from slabs of Values it takes from take
	// (take(k) returns k Values), and whose drop makes it forget the slab
	// it cuts from. Every field of a row it cuts must be written. With
	// it, when the operator that reads the edge copies what it keeps
	// (OperatorVertex.Copies), the runtime calls drop after each batch
	// and hands a batch's slabs out again once that operator is done with
	// the batch's rows.
	NewRecycling func(take func(k int) []types.Value) (fn func(in types.Row, out []types.Row) ([]types.Row, error), drop func())
	// Copies and CopiesNested are OperatorVertex's promises for the
	// function's output: when every edge out of a source has a
	// transform that copies, the source's reader may reuse the memory
	// of its batches (and of their nested values).
	Copies, CopiesNested bool
}

// ExchangeKind is how an edge distributes rows among the tasks of its
// target.
type ExchangeKind uint8

// The exchange kinds.
const (
	// Forward sends the rows of upstream task u to task u mod n of the
	// target, where the upstream tasks are numbered over all Forward
	// edges into the same input, in edge order (each source task's order
	// is kept). A Forward edge whose target task gets the rows of exactly
	// one upstream task is fused: one task runs both vertices.
	Forward ExchangeKind = iota
	// Hash sends each row to the task owning its key's key group
	// (Exchange.Key, state.KeyGroupOf, state.TaskOf).
	Hash
	// Broadcast sends every row to every task of the target.
	Broadcast
	// Single sends every row to task 0 of the target.
	Single
	// Partition sends each row to the task Exchange.Partition chooses
	// (Pipeline.Partition).
	Partition
)

var exchangeNames = []string{"forward", "hash", "broadcast", "single", "partition"}

// String returns the kind's name.
func (k ExchangeKind) String() string {
	if int(k) < len(exchangeNames) {
		return exchangeNames[k]
	}
	return fmt.Sprintf("ExchangeKind(%d)", k)
}

// Exchange is an edge's distribution of rows.
type Exchange struct {
	Kind ExchangeKind
	// Key appends the row's encoded key (state.AppendKey over the key
	// columns) to dst and returns it; Hash only.
	Key func(row types.Row, dst []byte) []byte
	// Partition chooses the target task (0 <= i < n) of a row; Partition
	// only.
	Partition func(row types.Row, n int) int
}

func (v *Vertex) parallelism() int { return max(v.Parallelism, 1) }

func (v *Vertex) name() string {
	if v.Name != "" {
		return v.Name
	}
	return v.ID
}

func (v *Vertex) kind() string {
	switch {
	case v.Source != nil:
		return "source"
	case v.Sink != nil:
		return "sink"
	}
	return "operator"
}

func (v *Vertex) inputs() int {
	switch {
	case v.Source != nil:
		return 0
	case v.Operator != nil && v.Operator.Inputs > 1:
		return v.Operator.Inputs
	}
	return 1
}

// validate checks g: ids, exactly one role per vertex, edges between
// existing vertices into existing inputs, every input fed, no cycle, no
// more tasks behind a hash exchange than key groups (maxP).
func (g *Graph) validate(maxP int) error {
	// Sources, operators and sinks key their checkpoint state in separate
	// places (split positions, operator state, committables): an id is
	// unique among the vertices of its kind (a job may read and write
	// tables of the same name).
	ids := map[string]bool{}
	for i := range g.Vertices {
		v := &g.Vertices[i]
		roles := 0
		for _, set := range []bool{v.Source != nil, v.Operator != nil, v.Sink != nil} {
			if set {
				roles++
			}
		}
		switch {
		case v.ID == "":
			return fmt.Errorf("%w: vertex %d has no id", ErrInvalidSpec, i)
		case roles != 1:
			return fmt.Errorf("%w: vertex %q must be exactly one of a source, an operator and a sink", ErrInvalidSpec, v.ID)
		case v.Parallelism < 0:
			return fmt.Errorf("%w: vertex %q: parallelism %d is negative", ErrInvalidSpec, v.ID, v.Parallelism)
		case v.Source != nil && v.Source.Source == nil, v.Sink != nil && v.Sink.Sink == nil:
			return fmt.Errorf("%w: %s %q has no connector", ErrInvalidSpec, v.kind(), v.ID)
		case v.Operator != nil && v.Operator.New == nil && v.transform == nil:
			return fmt.Errorf("%w: operator %q has no factory (OperatorVertex.New)", ErrInvalidSpec, v.ID)
		case v.Operator != nil && v.Operator.Inputs < 0:
			return fmt.Errorf("%w: operator %q: %d inputs", ErrInvalidSpec, v.ID, v.Operator.Inputs)
		case v.Source != nil && v.Source.Watermark != nil && v.Source.Watermark.Generate == nil:
			return fmt.Errorf("%w: source %q: its WatermarkSpec has no Generate", ErrInvalidSpec, v.ID)
		case ids[v.kind()+v.ID]:
			return fmt.Errorf("%w: %s %q appears twice", ErrInvalidSpec, v.kind(), v.ID)
		}
		ids[v.kind()+v.ID] = true
		if v.Source != nil && v.Source.DeadLettersInSink && v.Source.DeadLetter == nil {
			return fmt.Errorf("%w: source %q: DeadLettersInSink needs a DeadLetter sink", ErrInvalidSpec, v.ID)
		}
		if dl := v.Source; dl != nil && dl.DeadLetter != nil {
			id := deadLetterID(v.ID, dl.DeadLetter.Name)
			switch {
			case dl.DeadLetter.Name == "":
				return fmt.Errorf("%w: source %q: its dead-letter sink has no name", ErrInvalidSpec, v.ID)
			case dl.DeadLetter.Sink == nil:
				return fmt.Errorf("%w: sink %q has no connector", ErrInvalidSpec, id)
			case ids["sink"+id]:
				return fmt.Errorf("%w: sink %q appears twice", ErrInvalidSpec, id)
			}
			ids["sink"+id] = true
		}
	}
	fed := make([][]bool, len(g.Vertices))
	out := make([]int, len(g.Vertices))
	for i := range g.Vertices {
		fed[i] = make([]bool, g.Vertices[i].inputs())
	}
	for i, e := range g.Edges {
		if e.From < 0 || e.From >= len(g.Vertices) || e.To < 0 || e.To >= len(g.Vertices) {
			return fmt.Errorf("%w: edge %d joins vertices %d and %d of %d", ErrInvalidSpec, i, e.From, e.To, len(g.Vertices))
		}
		from, to := &g.Vertices[e.From], &g.Vertices[e.To]
		switch {
		case from.Sink != nil:
			return fmt.Errorf("%w: edge %d leaves sink %q", ErrInvalidSpec, i, from.ID)
		case to.Source != nil:
			return fmt.Errorf("%w: edge %d enters source %q", ErrInvalidSpec, i, to.ID)
		case e.Input < 0 || e.Input >= to.inputs():
			return fmt.Errorf("%w: edge %d feeds input %d of %q, which has %d", ErrInvalidSpec, i, e.Input, to.ID, to.inputs())
		case e.Exchange.Kind > Partition:
			return fmt.Errorf("%w: edge %d: unknown exchange %s", ErrInvalidSpec, i, e.Exchange.Kind)
		case e.Exchange.Kind == Hash && e.Exchange.Key == nil:
			return fmt.Errorf("%w: edge %d (%q → %q) is a hash exchange without a Key", ErrInvalidSpec, i, from.ID, to.ID)
		case e.Exchange.Kind == Partition && e.Exchange.Partition == nil:
			return fmt.Errorf("%w: edge %d (%q → %q) is a partition exchange without a Partition function", ErrInvalidSpec, i, from.ID, to.ID)
		case e.Transform != nil && (from.Source == nil || e.Transform.New == nil):
			return fmt.Errorf("%w: edge %d (%q → %q) has a transform: only an edge out of a source may, with a function (EdgeTransform.New)", ErrInvalidSpec, i, from.ID, to.ID)
		}
		if e.Exchange.Kind == Hash && to.parallelism() > maxP {
			return fmt.Errorf("%w: %s %q has %d tasks behind a hash exchange, more than pipeline.max-parallelism (%d key groups)",
				ErrInvalidSpec, to.kind(), to.ID, to.parallelism(), maxP)
		}
		fed[e.To][e.Input] = true
		out[e.From]++
	}
	for i := range g.Vertices {
		v := &g.Vertices[i]
		for in, ok := range fed[i] {
			if !ok {
				return fmt.Errorf("%w: %s %q: no edge feeds its input %d", ErrInvalidSpec, v.kind(), v.ID, in)
			}
		}
	}
	for i := range g.Vertices {
		v := &g.Vertices[i]
		if v.Sink == nil && out[i] == 0 {
			return fmt.Errorf("%w: %s %q: no edge leaves it (its rows would go nowhere)", ErrInvalidSpec, v.kind(), v.ID)
		}
	}
	if cyc := g.cycle(); cyc != "" {
		return fmt.Errorf("%w: the graph has a cycle through %q", ErrInvalidSpec, cyc)
	}
	return nil
}

// cycle returns the id of a vertex on a cycle of g, or "".
func (g *Graph) cycle() string {
	state := make([]uint8, len(g.Vertices)) // 0 new, 1 on the path, 2 done
	next := make([][]int, len(g.Vertices))
	for _, e := range g.Edges {
		next[e.From] = append(next[e.From], e.To)
	}
	var visit func(i int) string
	visit = func(i int) string {
		switch state[i] {
		case 1:
			return g.Vertices[i].ID
		case 2:
			return ""
		}
		state[i] = 1
		for _, j := range next[i] {
			if c := visit(j); c != "" {
				return c
			}
		}
		state[i] = 2
		return ""
	}
	for i := range g.Vertices {
		if c := visit(i); c != "" {
			return c
		}
	}
	return ""
}

// deadLetterID returns the id of the dead-letter sink called name of the
// source whose id is src: src's prefix up to its last "/", then name.
func deadLetterID(src, name string) string {
	if i := strings.LastIndexByte(src, '/'); i >= 0 {
		return src[:i+1] + name
	}
	return name
}

// graph returns the job's graph: spec.Graph with the pipelines lowered onto
// it (after its own vertices). Each pipeline's sinks come first, then each
// source with its transform (an operator the status shows as part of the
// source), so that the sinks are numbered as they always were (their
// commit order). An edge joins each source (or its transform) to each
// sink: Forward, or Partition when the pipeline partitions rows by key
// among several sink tasks.
func (s *JobSpec) graph() Graph {
	g := Graph{Vertices: append([]Vertex(nil), s.Graph.Vertices...), Edges: append([]Edge(nil), s.Graph.Edges...)}
	for pi := range s.Pipelines {
		p := &s.Pipelines[pi]
		pn := pipelineName(p, pi)
		first := len(g.Vertices)
		for _, k := range p.Sinks {
			g.Vertices = append(g.Vertices, Vertex{ID: pn + "/" + k.Name, Name: k.Name, Parallelism: k.Parallelism,
				Sink: &SinkVertex{Sink: k.Sink}})
		}
		for si := range p.Sources {
			src := &p.Sources[si]
			g.Vertices = append(g.Vertices, Vertex{ID: pn + "/" + src.Name, Name: src.Name, Parallelism: src.Parallelism,
				Source: &SourceVertex{Source: src.Source, DeadLetter: src.DeadLetter, DeadLettersInSink: src.DeadLettersInSink, Columns: src.Columns}})
			last := len(g.Vertices) - 1
			if ts := transformOf(p, pn, src); ts != nil {
				g.Vertices = append(g.Vertices, Vertex{ID: pn + "/" + src.Name + "#transform", Name: src.Name,
					Parallelism: src.Parallelism, Operator: &OperatorVertex{Copies: ts.copies, CopiesNested: ts.nested}, transform: ts})
				g.Edges = append(g.Edges, Edge{From: last, To: last + 1})
				last++
			}
			for k := range p.Sinks {
				ex := Exchange{Kind: Forward}
				if p.Partition != nil && max(p.Sinks[k].Parallelism, 1) > 1 {
					ex = Exchange{Kind: Partition, Partition: p.Partition}
				}
				g.Edges = append(g.Edges, Edge{From: last, To: first + k, Exchange: ex})
			}
		}
	}
	return g
}
