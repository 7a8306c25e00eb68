package runtime

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Building a run: the job's graph becomes tasks. Each vertex runs as
// Parallelism subtasks (members); a task runs a chain of members — a head
// (a source's reader, or input channels), operators, and a tail (a sink's
// writer, or the exchanges of the chain's last vertex's edges) — in one
// goroutine.
//
// Fusion (chaining, as Flink calls it). The edges into a one-input vertex
// V fuse when they are all Forward, their upstream vertices have no other
// edge out, and those vertices have as many tasks together as V: then
// every task of V gets the rows of exactly one upstream task and of
// nothing else, and runs in that task's goroutine, with no channel in
// between. With GOMAXPROCS 1, an edge of any exchange from one task into
// one task fuses too (attempt.oneToOne). Pipelines so fuse each source with its transform always, and
// with its one sink when the sink has as many tasks as the pipeline has
// source tasks and rows go forward; jobconfig.Config.DisableChaining keeps sinks in
// tasks of their own. What a vertex does is the same code either way; only
// who calls it differs.

// vertexRT is a vertex of the running graph.
type vertexRT struct {
	v     *Vertex
	id    string
	table string
	par   int
	src   *sourceRT // sources
	sink  *sinkRT   // sinks
	in    []*edgeRT
	out   []*edgeRT
	// fused is set when the vertex's tasks run in the tasks of the
	// vertices before it (see above).
	fused   bool
	members []*member
	// dead is the dead-letter sink of a source (SourceSpec.DeadLetter,
	// not in the pipeline's sink): one task per source task.
	dead *vertexRT
}

// edgeRT is an edge of the running graph.
type edgeRT struct {
	e        Edge
	from, to *vertexRT
	// offset numbers the tasks of from among the upstream tasks of to's
	// input: from's task u is upstream task offset+u (Forward).
	offset int
	fused  bool
	// chans[u][k] carries messages from task u of from to task k of to
	// (not fused).
	chans [][]chan message
}

// member is one task of one vertex (a subtask), run by a task: what the
// status shows. A lowered transform shares its source's member.
type member struct {
	v     *vertexRT
	index int
	t     *task
	// recordsIn counts rows read (source) or received (operator);
	// recordsOut rows emitted (a source's after its transform); dropped
	// rows a source's transform dropped (connector.ErrDropRow).
	recordsIn, recordsOut, dropped atomic.Int64
	// rd and w are the member's reader (source) and writer (sink).
	rd *readerHead
	w  *writerTail
	op *opStage
	// backend and metrics are a stateful operator's, for Status (set
	// when the task opens).
	backend atomic.Pointer[state.Backend]
	metrics atomic.Pointer[stream.Metrics]
}

// build creates the run's vertices, tasks and channels from the job's
// graph.
func (a *attempt) build() error {
	g := &a.j.graph
	capacity := a.j.spec.Config.ChannelCapacity
	verts := make([]*vertexRT, len(g.Vertices))
	for i := range g.Vertices {
		v := &g.Vertices[i]
		vr := &vertexRT{v: v, id: v.ID, table: v.name(), par: v.parallelism()}
		verts[i] = vr
		switch {
		case v.Sink != nil:
			vr.sink = &sinkRT{id: v.ID, index: len(a.sinks), spec: &SinkSpec{Name: vr.table, Sink: v.Sink.Sink, Parallelism: vr.par}}
			a.sinks = append(a.sinks, vr.sink)
		case v.Source != nil:
			vr.src = &sourceRT{id: v.ID, table: vr.table, par: vr.par, v: v.Source, vr: vr}
			a.sources = append(a.sources, vr.src)
			if dl := v.Source.DeadLetter; dl != nil && !v.Source.DeadLettersInSink {
				dv := &vertexRT{id: deadLetterID(v.ID, dl.Name), table: dl.Name, par: vr.par}
				dv.sink = &sinkRT{id: dv.id, index: len(a.sinks), spec: dl}
				a.sinks = append(a.sinks, dv.sink)
				vr.dead = dv
			}
			a.recoveryOnlySink(vr)
		}
		a.vertices = append(a.vertices, vr)
		if vr.dead != nil {
			a.vertices = append(a.vertices, vr.dead)
		}
	}
	var edges []*edgeRT
	for _, e := range g.Edges {
		er := &edgeRT{e: e, from: verts[e.From], to: verts[e.To]}
		er.from.out = append(er.from.out, er)
		er.to.in = append(er.to.in, er)
		edges = append(edges, er)
	}
	for _, vr := range verts {
		offsets := map[int]int{}
		for _, e := range vr.in {
			e.offset = offsets[e.e.Input]
			offsets[e.e.Input] += e.from.par
		}
		vr.fused = a.fusable(vr)
		for _, e := range vr.in {
			e.fused = vr.fused
		}
	}
	for _, vr := range a.vertices {
		for k := range vr.par {
			vr.members = append(vr.members, &member{v: vr, index: k})
		}
	}
	for _, e := range edges {
		if e.fused {
			continue
		}
		c := channelCapacity(capacity, e.to)
		e.chans = make([][]chan message, e.from.par)
		for u := range e.chans {
			e.chans[u] = make([]chan message, e.to.par)
			for k := range e.chans[u] {
				e.chans[u][k] = make(chan message, c)
			}
		}
	}
	// One task per subtask of each vertex that is not fused; the chain
	// goes on through fused vertices.
	for _, vr := range verts {
		if vr.fused {
			continue
		}
		for k := range vr.par {
			if err := a.newTask(vr, k); err != nil {
				return err
			}
		}
	}
	for _, vr := range a.vertices {
		if vr.dead != nil {
			for k := range vr.par {
				a.newDeadLetterTask(vr, k)
			}
		}
	}
	for _, sr := range a.sources {
		sr.oneWriter = sr.vr.oneWriter()
	}
	a.tracker = newTracker(len(a.sinks))
	a.j.graphStatus.Store(graphStatusOf(verts, edges))
	return nil
}

// graphStatusOf returns the run's graph as Status shows it: a lowered
// transform is part of its source (the edge into it goes, the edges out
// of it leave the source), a source's own dead-letter sink a vertex after
// it.
func graphStatusOf(verts []*vertexRT, edges []*edgeRT) *GraphStatus {
	gs := &GraphStatus{Vertices: []VertexStatus{}, Edges: []EdgeStatus{}}
	index := make(map[*vertexRT]int, len(verts))
	for _, vr := range verts {
		if vr.v.transform != nil {
			continue
		}
		vs := VertexStatus{Kind: OperatorTask, ID: vr.id, Name: vr.v.name(), Parallelism: vr.par}
		switch {
		case vr.src != nil:
			vs.Kind = SourceTask
		case vr.sink != nil:
			vs.Kind = SinkTask
		default:
			vs.Stateful = vr.v.Operator.Stateful
		}
		index[vr] = len(gs.Vertices)
		gs.Vertices = append(gs.Vertices, vs)
	}
	// A transform has one edge in, from its source.
	for _, vr := range verts {
		if vr.v.transform != nil && len(vr.in) == 1 {
			index[vr] = index[vr.in[0].from]
		}
	}
	for _, e := range edges {
		if e.to.v.transform != nil {
			continue
		}
		gs.Edges = append(gs.Edges, EdgeStatus{From: index[e.from], To: index[e.to], Input: e.e.Input,
			Exchange: e.e.Exchange.Kind.String(), Fused: e.fused})
	}
	for _, vr := range verts {
		if dv := vr.dead; dv != nil {
			gs.Edges = append(gs.Edges, EdgeStatus{From: index[vr], To: len(gs.Vertices), Exchange: "dead-letter"})
			gs.Vertices = append(gs.Vertices, VertexStatus{Kind: SinkTask, ID: dv.id, Name: dv.table, Parallelism: dv.par})
		}
	}
	return gs
}

// channelCapacity returns the capacity of each channel into a task of
// vertex to: jobconfig.Config.ChannelCapacity when the task has one or two channels,
// less when it has more, so that what a task has queued stays near
// 2×ChannelCapacity messages whatever the upstream parallelism (a hash
// exchange has a channel per upstream task), and at least 2 each.
func channelCapacity(capacity int, to *vertexRT) int {
	k := 0
	for _, e := range to.in {
		k += e.from.par
	}
	if k <= 2 {
		return capacity
	}
	return max(2, (2*capacity+k-1)/k)
}

// fusable reports whether vertex vr runs in the tasks of the vertices
// before it (see the top of the file).
func (a *attempt) fusable(vr *vertexRT) bool {
	if len(vr.in) == 0 || vr.v.inputs() != 1 || (vr.sink != nil && a.j.spec.Config.DisableChaining) {
		return false
	}
	n := 0
	for _, e := range vr.in {
		if len(e.from.out) != 1 || e.e.Transform != nil || (e.e.Exchange.Kind != Forward && !a.oneToOne(vr)) {
			return false
		}
		n += e.from.par
	}
	return n == vr.par
}

// oneToOne reports whether vertex vr's one input edge goes from one task
// into one task (vr's), and the process runs Go code on one processor
// (GOMAXPROCS 1: a job pinned to one core): then the edge fuses whatever
// its exchange, for it sends every row to vr's one task as a Forward edge
// does. A job at parallelism 1 hashes its rows to its keyed operators
// (Nexmark q18's deduplication, q19's Top-N): with one processor, a task
// of their own brought no parallelism, only a channel and a goroutine
// switch per batch, and the Calc before them could not reuse its output
// rows (a third of q18's and q19's allocation). With more processors the
// edge keeps its channel, so that the two tasks run at once.
//
// The rows must come from a source through stateless operators only: an
// operator that emits on a watermark (a window) hands its rows to a fused
// operator after the task's watermark advanced, which would take them for
// late, where over a channel they arrive before the watermark.
func (a *attempt) oneToOne(vr *vertexRT) bool {
	if !a.oneProc || len(vr.in) != 1 || vr.in[0].from.par != 1 || vr.par != 1 {
		return false
	}
	for v := vr.in[0].from; v.src == nil; v = v.in[0].from {
		if v.v.Operator == nil || v.v.Operator.Stateful || len(v.in) != 1 {
			return false
		}
	}
	return true
}

// oneWriter reports whether every row of each task of source vertex vr
// reaches one writer task (one sink, each edge on the way Forward or into
// one task): only then can that writer commit the source's group positions
// with its own work. The positions travel with the barriers to it.
func (vr *vertexRT) oneWriter() bool {
	for v := vr; ; {
		if v.sink != nil {
			return true
		}
		if len(v.out) != 1 {
			return false
		}
		e := v.out[0]
		if e.e.Exchange.Kind != Forward && e.to.par != 1 {
			return false
		}
		v = e.to
	}
}

// newTask creates the task that runs subtask k of vertex vr (not fused) and
// the fused vertices after it.
func (a *attempt) newTask(vr *vertexRT, k int) error {
	t := &task{a: a, global: len(a.tasks), wake: make(chan struct{}, 1), nIn: 1, wm: stream.MinWatermark, wmOut: stream.MinWatermark}
	t.wmPub.Store(stream.MinWatermark)
	a.tasks = append(a.tasks, t)
	cur, idx := vr, k
	for {
		m := cur.members[idx]
		m.t = t
		t.members = append(t.members, m)
		if len(cur.out) != 1 || !cur.out[0].fused {
			break
		}
		e := cur.out[0]
		cur, idx = e.to, e.offset+idx
	}
	for _, m := range t.members {
		if op := m.v.v.Operator; op != nil && op.Stateful && t.sw == nil {
			t.sw = &stateWriter{t: t, jobs: make(chan stateJob), done: make(chan struct{})}
			a.stateful = true
		}
	}
	head := t.members[0]
	switch {
	case head.v.src != nil:
		rd := &readerHead{t: t, src: head.v.src, index: k, global: len(a.readers), m: head}
		head.rd = rd
		t.rd, t.head = rd, rd
		a.readers = append(a.readers, rd)
		if dv := head.v.dead; dv != nil {
			dm := dv.members[k]
			t.dead = make(chan message, a.j.spec.Config.ChannelCapacity)
			dm.w = &writerTail{a: a, sink: dv.sink, index: k, m: dm}
			dv.sink.tasks = append(dv.sink.tasks, dm.w)
		}
	default:
		t.wakeOnComplete.Store(true)
		ch := &channelHead{t: t}
		for _, e := range head.v.in {
			for u := range e.from.par {
				ch.inputs = append(ch.inputs, e.chans[u][k])
				ch.inputOf = append(ch.inputOf, e.e.Input)
			}
		}
		t.ch, t.head, t.nIn = ch, ch, len(ch.inputs)
	}
	last := t.members[len(t.members)-1]
	if sk := last.v.sink; sk != nil {
		last.w = &writerTail{a: a, sink: sk, index: last.index, m: last}
		sk.tasks = append(sk.tasks, last.w)
		t.w = last.w
	}
	for _, e := range last.v.out {
		o := &outEdge{t: t, to: e.to, kind: e.e.Exchange.Kind, chans: e.chans[last.index], fwd: e.offset + last.index,
			part: e.e.Exchange.Partition, key: e.e.Exchange.Key, maxP: a.maxParallelism}
		if o.kind == Hash || o.kind == Partition {
			o.bufs = make([][]types.Row, len(o.chans))
			o.bytes = make([]int, len(o.chans))
		}
		if tf := e.e.Transform; tf != nil {
			// Only a source's edges have one (Graph.validate), and they
			// are never fused: last is the source, its reader the head.
			o.tf = &edgeStage{spec: tf, m: last}
			if op := e.to.v.Operator; tf.NewRecycling != nil && op != nil && op.Copies && !o.spread() {
				// The operator that gets the rows copies what it keeps
				// (and keeps no row, package stream): the memory of a
				// batch may be reused once it processed it. At most the
				// channels' messages and one batch on either side are in
				// flight.
				o.tf.recycle(len(o.chans)*cap(o.chans[0]) + 2)
			}
		}
		t.outs = append(t.outs, o)
	}
	t.name = t.describe()
	return a.routeDeadLettersToSink(t)
}

// newDeadLetterTask creates task k of source vertex vr's dead-letter sink:
// its one input is the source's task k.
func (a *attempt) newDeadLetterTask(vr *vertexRT, k int) {
	dm := vr.dead.members[k]
	src := vr.members[k].t
	t := &task{a: a, global: len(a.tasks), wake: make(chan struct{}, 1), nIn: 1, members: []*member{dm}, w: dm.w, wm: stream.MinWatermark, wmOut: stream.MinWatermark}
	t.wmPub.Store(stream.MinWatermark)
	dm.t = t
	t.wakeOnComplete.Store(true)
	t.ch = &channelHead{t: t, inputs: []chan message{src.dead}, inputOf: []int{0}}
	t.head = t.ch
	t.name = t.describe()
	a.tasks = append(a.tasks, t)
}

// describe names the task for errors and panics: its vertices and their
// tasks, the head first ("source "p/t" task 0 (chained with sink "p/u"
// task 0)").
func (t *task) describe() string {
	var ds []string
	for _, m := range t.members {
		kind := "operator"
		switch {
		case m.v.src != nil:
			kind = "source"
		case m.v.sink != nil:
			kind = "sink"
		case m.v.v.transform != nil:
			continue // part of its source
		}
		ds = append(ds, fmt.Sprintf("%s %q task %d", kind, m.v.id, m.index))
	}
	if len(ds) == 1 {
		return ds[0]
	}
	return ds[0] + " (chained with " + strings.Join(ds[1:], ", ") + ")"
}
