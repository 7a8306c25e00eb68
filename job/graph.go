package job

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/ops/calc"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// graphBuilder adds the stateful INSERTs of a plan (those with stateful
// operators: Insert.Stateful) to the runtime's graph: each table read
// becomes a source vertex, each flow's filter and projection a Calc
// operator (fused with what feeds it; none for a flow that passes an
// operator's rows on unchanged), each stateful operator a vertex fed
// through a keyed exchange, each sink a sink vertex.
type graphBuilder struct {
	ctx  context.Context
	pl   *planner.Plan
	opts expr.Options
	bo   BuildOptions
	g    *runtime.Graph

	pipe     string         // the INSERT's pipeline name
	srcNames map[string]int // tables read so far by the INSERT (#2, #3, ...)
	calcs    int            // Calc vertices of the INSERT so far
	// built are the vertices (and parallelism) of the job's scans and
	// operators so far: a scan or an operator the planner shared
	// (planner.Flow.Reused), within an INSERT or across INSERTs, is one
	// vertex with an edge to each reader. It keeps the id of the INSERT
	// that read it first.
	built map[any][2]int
	// readers are the flows that read each table scan of the graph's
	// INSERTs (sharedReaders), found at the first scan built.
	readers map[*planner.Source][]*planner.Flow
}

func (b *graphBuilder) add(v runtime.Vertex) int {
	b.g.Vertices = append(b.g.Vertices, v)
	return len(b.g.Vertices) - 1
}

func (b *graphBuilder) edge(from, to int, x runtime.Exchange) {
	b.g.Edges = append(b.g.Edges, runtime.Edge{From: from, To: to, Exchange: x})
}

// insert adds ins, planned as pipeline name.
func (b *graphBuilder) insert(ins *planner.Insert, name string) error {
	b.pipe, b.srcNames, b.calcs = name, map[string]int{}, 0
	if b.built == nil {
		b.built = map[any][2]int{}
	}
	snk, valid, err := buildSink(b.ctx, b.pl, ins.Sink, b.bo)
	if err != nil {
		return err
	}
	par := parallelismOf(valid, factory.AsSink)
	sink := b.add(runtime.Vertex{ID: name + "/" + ins.Sink.Name(), Name: ins.Sink.Name(), Parallelism: par,
		Sink: &runtime.SinkVertex{Sink: snk}})
	for _, fl := range ins.Flows {
		from, tf, err := b.flow(fl)
		if err != nil {
			return err
		}
		x := runtime.Exchange{Kind: runtime.Forward}
		if !fl.Changelog.Kinds.InsertOnly() && max(par, 1) > 1 && len(ins.Sink.PrimaryKey) > 0 {
			// Every change of a key reaches one sink task, in order.
			x = hashOn(ins.Sink.PrimaryKey, fieldTypes(ins.Sink.Fields))
		}
		b.g.Edges = append(b.g.Edges, runtime.Edge{From: from, To: sink, Exchange: x, Transform: tf})
	}
	return nil
}

// flow adds fl's source (a table or a stateful operator) and its Calc, and
// returns the Calc's vertex; or the operator's, when the flow would pass
// its rows on unchanged (passThrough); or, for a reader of a shared scan,
// the source's vertex and the flow's Calc as the transform of the edge
// out of it that the caller adds (runtime.Edge.Transform).
func (b *graphBuilder) flow(fl *planner.Flow) (int, *runtime.EdgeTransform, error) {
	var from, par int
	if n := fl.Source.Node; n != nil {
		var err error
		if from, par, err = b.node(n); err != nil {
			return 0, nil, err
		}
	} else if v, ok := b.built[fl.Source]; ok {
		from, par = v[0], v[1]
	} else {
		src, valid, err := buildSource(b.ctx, b.pl, fl.Source, fl.ReadFields, fl.ReadRows, b.opts)
		if err != nil {
			return 0, nil, err
		}
		name := fl.Source.Name()
		if b.srcNames[name]++; b.srcNames[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, b.srcNames[name])
		}
		par = parallelismOf(valid, factory.AsSource)
		sv := &runtime.SourceVertex{Source: src, Columns: sourceColumns(valid)}
		if w := fl.Source.Watermark; w != nil {
			gen, err := watermarkOf(w, b.opts)
			if err != nil {
				return 0, nil, fmt.Errorf("pipeline %s: source %s: %w", b.pipe, name, err)
			}
			sv.Watermark = &runtime.WatermarkSpec{Generate: gen, IdleTimeout: b.pl.IdleTimeout}
		}
		// The source's dead letters go to a sink of their own: an
		// exchange or an operator separates its rows from the sink, so
		// they cannot ride in the sink's transactions (the planner never
		// sets Source.DeadLettersInSink in a graph).
		if sv.DeadLetter, err = deadLetterSink(src, fl.Source, b.pipe, name, b.pl.JobName); err != nil {
			return 0, nil, err
		}
		from = b.add(runtime.Vertex{ID: b.pipe + "/" + name, Name: fl.Source.Name(), Parallelism: par, Source: sv})
		b.built[fl.Source] = [2]int{from, par}
	}
	b.calcs++
	if n := fl.Source.Node; n != nil && passThrough(fl, n.Types) {
		// The flow would copy the operator's rows unchanged (Nexmark
		// q17's projection after its aggregate): they go on as they
		// are. An operator reuses its emitted rows only when what comes
		// right after it forgets them (stream.OutputReuser: a writer
		// that forgets rows, an operator that forgets its input), which
		// then holds for whatever takes them here, so nothing needs the
		// copy. The next Calc keeps its number.
		return from, nil, nil
	}
	ft, err := fl.Compile(b.opts)
	if err != nil {
		return 0, nil, fmt.Errorf("pipeline %s: %w", b.pipe, err)
	}
	if fl.Source.Node == nil && len(b.sharedReaders(fl.Source)) > 1 {
		// A reader of a shared scan: its filter and projection run in
		// the source's task, on the edge to what reads the flow, over
		// the source's rows as they are (runtime.Edge.Transform). The
		// rows it drops go no further than the source's task, the rows
		// it keeps cross in the projection's copy: no copy of the whole
		// row first, no second filtering in a task of its own. Its Calc
		// keeps its number (b.calcs), so the ids of the rest stay.
		return from, &runtime.EdgeTransform{Name: "pipeline '" + b.pipe + "'", New: ft.PerTask(),
			NewRecycling: ft.PerTaskSlabs(), Copies: true, CopiesNested: fl.ScalarOutput()}, nil
	}
	c := b.add(runtime.Vertex{ID: fmt.Sprintf("%s/calc-%d", b.pipe, b.calcs), Name: "Calc", Parallelism: par,
		Operator: &runtime.OperatorVertex{New: calc.New(calc.Spec{New: ft.PerTask(), NewReusing: ft.PerTaskReusing(), NewCutting: ft.PerTaskSlabs(), Name: "pipeline '" + b.pipe + "'", AfterState: fl.Source.Node != nil}), Copies: true,
			// A flow whose output is scalars only refers to no nested
			// value of its input: a reader right before it may reuse
			// their memory (as a pipeline's transform, Flow.ScalarOutput).
			CopiesNested: fl.ScalarOutput()}})
	b.edge(from, c, runtime.Exchange{Kind: runtime.Forward})
	return c, nil, nil
}

// sharedReaders returns the flows of the graph's INSERTs that read table
// scan src: more than one for a shared scan (planner.Flow.Reused).
func (b *graphBuilder) sharedReaders(src *planner.Source) []*planner.Flow {
	if b.readers == nil {
		b.readers = map[*planner.Source][]*planner.Flow{}
		for _, ins := range b.pl.Inserts {
			if ins.Explain || !ins.Graph() {
				continue
			}
			for _, fl := range ins.Leaves() {
				if !slices.Contains(b.readers[fl.Source], fl) {
					b.readers[fl.Source] = append(b.readers[fl.Source], fl)
				}
			}
		}
	}
	return b.readers[src]
}

// passThrough reports whether fl, over the rows of an operator of output
// types ts, changes nothing: no filter, no expansion, no NOT NULL check,
// and a projection of the operator's columns in order, of their types.
func passThrough(fl *planner.Flow, ts []types.Type) bool {
	if fl.Filter != nil || len(fl.Expand) > 0 || len(fl.Unnest) > 0 || len(fl.NotNull) > 0 || len(fl.Projection) != len(ts) {
		return false
	}
	for i, e := range fl.Projection {
		c, ok := e.(*expr.ColumnRef)
		if !ok || c.Index != i || !c.Type().Equal(ts[i]) {
			return false
		}
	}
	return true
}

// node adds stateful operator n after its inputs and returns its vertex
// and parallelism.
func (b *graphBuilder) node(n *planner.Node) (int, int, error) {
	if v, ok := b.built[n]; ok {
		return v[0], v[1], nil
	}
	v, par, err := b.newNode(n)
	if err == nil {
		b.built[n] = [2]int{v, par}
	}
	return v, par, err
}

// newNode adds n's vertex and its inputs.
func (b *graphBuilder) newNode(n *planner.Node) (int, int, error) {
	switch n.Kind {
	case planner.LookupJoin:
		return b.lookupNode(n) // lookup.go
	case planner.WindowTableFunction:
		return b.statelessNode(n)
	}
	f, err := n.Operator(b.opts)
	if err != nil {
		return 0, 0, fmt.Errorf("pipeline %s: %w", b.pipe, err)
	}
	par := b.pl.DefaultParallelism
	if keys, _ := n.InputKeys(0); keys == nil {
		par = 1
	}
	v := b.add(runtime.Vertex{ID: n.ID, Name: n.String(), Parallelism: par,
		Operator: &runtime.OperatorVertex{New: f, Inputs: n.InputCount(), Stateful: true, Copies: true}})
	for _, in := range n.Inputs {
		from, tf, err := b.flow(in)
		if err != nil {
			return 0, 0, err
		}
		x := runtime.Exchange{Kind: runtime.Single}
		if keys, ts := n.InputKeys(in.Input); keys != nil {
			x = runtime.Exchange{Kind: runtime.Hash, Key: keyOf(keys, ts)}
			if b.placed(n, in, from, par, keys, ts) {
				x = runtime.Exchange{Kind: runtime.Forward}
			}
		}
		b.g.Edges = append(b.g.Edges, runtime.Edge{From: from, To: v, Input: in.Input, Exchange: x, Transform: tf})
	}
	return v, par, nil
}

// placed reports whether the rows of flow in, the only flow into its
// input of node n (of par tasks), come out of vertex from already in the
// tasks a Hash exchange on keys of types ts would send them to: the flow
// comes from an operator that places its rows by a key
// (planner.Node.OutputKeys: a regular join by its left key), with par
// tasks too, and passes those columns on as they are to where n's key
// columns are (a pass-through flow, or a Calc whose projection reads them
// as columns and makes at most one row of each: Nexmark q9's Top-1 per
// auction after its join on the auction's id, a GROUP BY of the join key).
// Such an edge is Forward: the rows stay in their task, with no channel
// and no hashing in between.
func (b *graphBuilder) placed(n *planner.Node, in *planner.Flow, from, par int, keys []int, ts []types.Type) bool {
	up := in.Source.Node
	if up == nil || b.g.Vertices[from].Parallelism != par {
		return false
	}
	for _, o := range n.Inputs {
		if o != in && o.Input == in.Input {
			return false // UNION ALL: Forward edges into one input number their tasks together
		}
	}
	okeys, ots := up.OutputKeys()
	if len(okeys) != len(keys) || len(ots) != len(ts) {
		return false
	}
	through := passThrough(in, up.Types)
	if !through && (len(in.Expand) > 0 || len(in.Unnest) > 0) {
		return false
	}
	for i, k := range keys {
		if !ots[i].Nullable().Equal(ts[i].Nullable()) {
			return false
		}
		if through {
			if k != okeys[i] {
				return false
			}
			continue
		}
		if k >= len(in.Projection) {
			return false
		}
		if c, ok := in.Projection[k].(*expr.ColumnRef); !ok || c.Index != okeys[i] {
			return false
		}
	}
	return true
}

// statelessNode adds operator n, which keeps no state (a window table
// function), after its one input: its input's rows are forwarded to it
// where they are, at the input's parallelism.
func (b *graphBuilder) statelessNode(n *planner.Node) (int, int, error) {
	f, err := n.Operator(b.opts)
	if err != nil {
		return 0, 0, fmt.Errorf("pipeline %s: %w", b.pipe, err)
	}
	if len(n.Inputs) != 1 {
		return 0, 0, fmt.Errorf("pipeline %s: %s has %d inputs, want one", b.pipe, n, len(n.Inputs))
	}
	from, tf, err := b.flow(n.Inputs[0])
	if err != nil {
		return 0, 0, err
	}
	par := b.g.Vertices[from].Parallelism
	v := b.add(runtime.Vertex{ID: n.ID, Name: n.String(), Parallelism: par,
		Operator: &runtime.OperatorVertex{New: f}})
	b.g.Edges = append(b.g.Edges, runtime.Edge{From: from, To: v, Exchange: runtime.Exchange{Kind: runtime.Forward}, Transform: tf})
	return v, par, nil
}

// hashOn returns the Hash exchange on columns cols of types (by position
// in the row; nil: the caller sets Key).
func hashOn(cols []int, rowTypes []types.Type) runtime.Exchange {
	x := runtime.Exchange{Kind: runtime.Hash}
	if rowTypes != nil {
		ts := make([]types.Type, len(cols))
		for i, c := range cols {
			ts[i] = rowTypes[c]
		}
		x.Key = keyOf(cols, ts)
	}
	return x
}

// keyOf returns the function that encodes a row's key: the columns cols,
// of types ts, as state.AppendKey encodes them (what the operator behind
// the exchange keys its state with).
func keyOf(cols []int, ts []types.Type) func(row types.Row, dst []byte) []byte {
	return func(row types.Row, dst []byte) []byte { return state.AppendKey(dst, row.Fields, cols, ts) }
}

func fieldTypes(fs []types.Field) []types.Type {
	out := make([]types.Type, len(fs))
	for i, f := range fs {
		out[i] = f.Type
	}
	return out
}

// watermarkOf compiles a source's WATERMARK FOR expression (over the row
// as the reader delivers it) into the runtime's generator: the
// expression's TIMESTAMP in milliseconds since the epoch (a TIMESTAMP's
// local date-time read as UTC, as Flink's rowtime is).
//
// The usual bounded-delay form, `ts - INTERVAL 'n' unit` with a unit of
// whole milliseconds (delayOf), compiles only ts: the candidate is ts's
// milliseconds plus the constant, added here. That is what the whole
// expression gives (TIMESTAMPADD of such a unit adds the milliseconds and
// keeps NULL), without an evaluator and a types.Value per row for the
// addition: the source evaluates the candidate of every row it reads.
func watermarkOf(e expr.Expr, opts expr.Options) (func(row types.Row) (int64, bool, error), error) {
	r, err := expr.Resolve(e)
	if err != nil {
		return nil, fmt.Errorf("compiling the WATERMARK expression %s: %w", e, err)
	}
	ts, delta := delayOf(r)
	prog, err := expr.Compile(ts, opts)
	if err != nil {
		return nil, fmt.Errorf("compiling the WATERMARK expression %s: %w", e, err)
	}
	if prog.Peeks() {
		// ts is a column, a field or a CASE choosing among them (Nexmark's
		// dateTime): read where it is, not copied out of an evaluator.
		return func(row types.Row) (int64, bool, error) {
			v, err := prog.Peek(row.Fields)
			if err != nil || v.IsNull() {
				return 0, false, err
			}
			return v.Timestamp().Millis + delta, true, nil
		}, nil
	}
	return func(row types.Row) (int64, bool, error) {
		v, err := prog.Eval(row.Fields)
		if err != nil || v.IsNull() {
			return 0, false, err
		}
		return v.Timestamp().Millis + delta, true, nil
	}, nil
}

// delayOf splits a resolved watermark expression of the form
// TIMESTAMPADD(unit, n, ts) (how `ts - INTERVAL 'n' unit` is lowered,
// expr.AddInterval) into ts and the milliseconds it adds, for a constant
// n, a TIMESTAMP ts (not TIMESTAMP_LTZ) and an hour, minute, second or
// millisecond unit: then the expression's milliseconds are ts's plus
// delta (wrapping as TIMESTAMPADD's do), and it is NULL exactly when ts
// is. Any other expression is returned whole, with delta 0.
func delayOf(e expr.Expr) (ts expr.Expr, delta int64) {
	c, ok := e.(*expr.Call)
	if !ok || c.Name != "TIMESTAMPADD" || len(c.Args) != 2 || c.Type().Kind != types.KindTimestamp || c.Args[1].Type().Kind != types.KindTimestamp {
		return e, 0
	}
	n, ok := c.Args[0].(*expr.Literal)
	if !ok || n.Val.IsNull() || n.Typ.Kind != types.KindBigInt && n.Typ.Kind != types.KindInt {
		return e, 0
	}
	var unit int64
	switch c.Unit {
	case expr.UnitHour:
		unit = 3_600_000
	case expr.UnitMinute:
		unit = 60_000
	case expr.UnitSecond:
		unit = 1000
	case expr.UnitMillisecond:
		unit = 1
	default:
		return e, 0
	}
	// TIMESTAMPADD multiplies in nanoseconds (time.Duration); where that
	// overflows it takes its general path, and so does this.
	amount := n.Val.Int64()
	if d := time.Duration(amount) * time.Duration(unit) * time.Millisecond; d/(time.Duration(unit)*time.Millisecond) != time.Duration(amount) {
		return e, 0
	}
	return c.Args[1], amount * unit
}

// keepPipelines returns the part of g that belongs to the pipelines
// names: the vertices whose ids start with "<pipeline>/", the vertices
// that feed them (a scan or an operator shared with another pipeline keeps
// the id of the first pipeline that read it), and the edges between them.
func keepPipelines(g runtime.Graph, names []string) runtime.Graph {
	keep := make([]bool, len(g.Vertices))
	for i, v := range g.Vertices {
		pipe, _, _ := strings.Cut(v.ID, "/")
		keep[i] = slices.Contains(names, pipe)
	}
	for changed := true; changed; {
		changed = false
		for _, e := range g.Edges {
			if keep[e.To] && !keep[e.From] {
				keep[e.From], changed = true, true
			}
		}
	}
	var out runtime.Graph
	index := make([]int, len(g.Vertices))
	for i, v := range g.Vertices {
		index[i] = -1
		if keep[i] {
			index[i] = len(out.Vertices)
			out.Vertices = append(out.Vertices, v)
		}
	}
	for _, e := range g.Edges {
		if index[e.From] >= 0 && index[e.To] >= 0 {
			e.From, e.To = index[e.From], index[e.To]
			out.Edges = append(out.Edges, e)
		}
	}
	return out
}
