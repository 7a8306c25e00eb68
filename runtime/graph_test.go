package runtime_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// copyOp is a stateless operator that emits a copy of each row.
type copyOp struct{ stream.Base }

func (copyOp) Open(*stream.Context) error { return nil }

func (copyOp) Process(_ int, rows []types.Row, out *stream.Output) error {
	for _, r := range rows {
		out.Emit(types.Row{Kind: r.Kind, Fields: slices.Clone(r.Fields)})
	}
	return nil
}

func newCopyOp(stream.TaskInfo) (stream.Operator, error) { return copyOp{}, nil }

// graphRig is a test job given as a graph: the rig's SeqSource, then
// operators, then a FileSink, in a line.
type graphRig struct {
	*rig
	ops     []runtime.Vertex // between the source and the sink
	edges   []runtime.Exchange
	sinkPar int
	// backend, when set, is state.backend.type.
	backend string
}

func (g *graphRig) graphSpec() runtime.JobSpec {
	tweak := g.tweak
	g.tweak = nil
	s := g.spec()
	g.tweak = tweak
	p := s.Pipelines[0]
	s.Pipelines = nil
	vs := []runtime.Vertex{{ID: "main/seq", Name: "seq", Parallelism: g.srcPar, Source: &runtime.SourceVertex{Source: p.Sources[0].Source}}}
	vs = append(vs, g.ops...)
	vs = append(vs, runtime.Vertex{ID: "main/out", Name: "out", Parallelism: g.sinkPar, Sink: &runtime.SinkVertex{Sink: g.fileSinks[0]}})
	var es []runtime.Edge
	for i := 1; i < len(vs); i++ {
		es = append(es, runtime.Edge{From: i - 1, To: i, Exchange: g.edges[i-1]})
	}
	s.Graph = runtime.Graph{Vertices: vs, Edges: es}
	if g.backend != "" {
		s.Config.StateBackend = g.backend
	}
	if tweak != nil {
		tweak(&s)
	}
	return s
}

func (g *graphRig) job(t testing.TB) *runtime.Job {
	t.Helper()
	j, err := runtime.NewJob(g.graphSpec())
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestGraphFusion runs a source → operator → sink graph with forward
// edges: a vertex is fused with the one before it exactly when each of its
// tasks gets the rows of one upstream task (equal parallelisms), and the
// output is the input exactly once, in order per partition, either way.
func TestGraphFusion(t *testing.T) {
	for _, c := range []struct {
		srcPar, opPar, sinkPar int
		// chained counts the tasks the status shows as chained.
		chained int
	}{
		{2, 2, 2, 6},
		{2, 1, 1, 2}, // 2 → 1 is not fused; the sink is fused with the operator
		{1, 2, 2, 4}, // 1 → 2 neither (a fan-out); 2 → 2 fused
		{2, 2, 1, 4},
	} {
		t.Run(fmt.Sprintf("%d-%d-%d", c.srcPar, c.opPar, c.sinkPar), func(t *testing.T) {
			g := &graphRig{rig: newRig(t), sinkPar: c.sinkPar}
			g.srcPar = c.srcPar
			g.fileSinks = []*testkit.FileSink{{Dir: filepath.Join(g.dir, "out")}}
			g.ops = []runtime.Vertex{{ID: "main/copy", Parallelism: c.opPar, Operator: &runtime.OperatorVertex{New: newCopyOp, Copies: true}}}
			g.edges = []runtime.Exchange{{Kind: runtime.Forward}, {Kind: runtime.Forward}}
			j := g.job(t)
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			g.verify(t, g.full())
			st := j.Status()
			chained, ops := 0, 0
			for _, ts := range st.Tasks {
				if ts.Chained {
					chained++
				}
				if ts.Kind == runtime.OperatorTask {
					ops++
					if ts.RecordsIn != ts.RecordsOut {
						t.Errorf("operator task %d: %d rows in, %d out", ts.Index, ts.RecordsIn, ts.RecordsOut)
					}
				}
			}
			if chained != c.chained || ops != c.opPar || len(st.Tasks) != c.srcPar+c.opPar+c.sinkPar {
				t.Fatalf("%d of %d tasks chained (%d operator tasks); want %d chained: %+v", chained, len(st.Tasks), ops, c.chained, st.Tasks)
			}
		})
	}
}

// TestGraphInvalid checks that NewJob refuses graphs that cannot run, each
// with a message naming what is wrong.
func TestGraphInvalid(t *testing.T) {
	src := func(id string) runtime.Vertex {
		return runtime.Vertex{ID: id, Source: &runtime.SourceVertex{Source: &testkit.SeqSource{Partitions: 1}}}
	}
	op := func(id string) runtime.Vertex {
		return runtime.Vertex{ID: id, Operator: &runtime.OperatorVertex{New: newCopyOp}}
	}
	snk := func(id string) runtime.Vertex {
		return runtime.Vertex{ID: id, Sink: &runtime.SinkVertex{Sink: &countSink{}}}
	}
	for _, c := range []struct {
		name string
		g    runtime.Graph
		want string
	}{
		{"no id", runtime.Graph{Vertices: []runtime.Vertex{{Source: &runtime.SourceVertex{Source: &testkit.SeqSource{}}}}}, "has no id"},
		{"two roles", runtime.Graph{Vertices: []runtime.Vertex{{ID: "x", Source: &runtime.SourceVertex{}, Sink: &runtime.SinkVertex{}}}}, "exactly one of"},
		{"duplicate", runtime.Graph{Vertices: []runtime.Vertex{src("a"), src("a"), snk("s")},
			Edges: []runtime.Edge{{From: 0, To: 2}, {From: 1, To: 2}}}, `source "a" appears twice`},
		{"unfed sink", runtime.Graph{Vertices: []runtime.Vertex{src("a"), op("o"), snk("s")},
			Edges: []runtime.Edge{{From: 0, To: 1}}}, `sink "s": no edge feeds its input 0`},
		{"dead end", runtime.Graph{Vertices: []runtime.Vertex{src("a"), op("o"), snk("s")},
			Edges: []runtime.Edge{{From: 0, To: 1}, {From: 0, To: 2}}}, `operator "o": no edge leaves it`},
		{"into a source", runtime.Graph{Vertices: []runtime.Vertex{src("a"), src("b"), snk("s")},
			Edges: []runtime.Edge{{From: 0, To: 1}, {From: 1, To: 2}}}, `enters source "b"`},
		{"cycle", runtime.Graph{Vertices: []runtime.Vertex{src("a"), op("o"), op("p"), snk("s")},
			Edges: []runtime.Edge{{From: 0, To: 1}, {From: 1, To: 2}, {From: 2, To: 1}, {From: 2, To: 3}}}, "cycle"},
		{"hash without key", runtime.Graph{Vertices: []runtime.Vertex{src("a"), snk("s")},
			Edges: []runtime.Edge{{From: 0, To: 1, Exchange: runtime.Exchange{Kind: runtime.Hash}}}}, "hash exchange without a Key"},
		{"transform after an operator", runtime.Graph{Vertices: []runtime.Vertex{src("a"), op("o"), snk("s")},
			Edges: []runtime.Edge{{From: 0, To: 1}, {From: 1, To: 2, Transform: &runtime.EdgeTransform{
				New: func() func(types.Row, []types.Row) ([]types.Row, error) { return nil }}}}}, "only an edge out of a source"},
		{"input out of range", runtime.Graph{Vertices: []runtime.Vertex{src("a"), snk("s")},
			Edges: []runtime.Edge{{From: 0, To: 1, Input: 1}}}, "feeds input 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := runtime.NewJob(runtime.JobSpec{Name: "g", Config: jobconfig.DefaultConfig(), Graph: c.g})
			if !errors.Is(err, runtime.ErrInvalidSpec) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("NewJob: %v; want ErrInvalidSpec saying %q", err, c.want)
			}
		})
	}
}

// byPartition is a Hash key: a SeqSource row's partition.
func byPartition(row types.Row, dst []byte) []byte {
	return strconv.AppendInt(dst, row.Fields[0].Int64(), 10)
}

// exchangeRig is source (2 tasks, 4 partitions) → copy operator → sink,
// the operator fed by ex, the sink fused with it.
func exchangeRig(t testing.TB, ex runtime.Exchange, opPar int) *graphRig {
	g := &graphRig{rig: newRig(t), sinkPar: opPar}
	g.fileSinks = []*testkit.FileSink{{Dir: filepath.Join(g.dir, "out")}}
	g.ops = []runtime.Vertex{{ID: "main/copy", Parallelism: opPar, Operator: &runtime.OperatorVertex{New: newCopyOp, Copies: true}}}
	g.edges = []runtime.Exchange{ex, {Kind: runtime.Forward}}
	return g
}

// TestGraphExchanges runs each exchange kind between two tasks of a source
// and the tasks of an operator: Hash by the partition keeps every
// partition in one task, in order; Single sends everything to one task;
// Broadcast every row to every task; Partition where the function says.
func TestGraphExchanges(t *testing.T) {
	for _, c := range []struct {
		name   string
		ex     runtime.Exchange
		opPar  int
		copies int64 // of each row in the output
		busy   int   // operator tasks that get rows
	}{
		{"hash", runtime.Exchange{Kind: runtime.Hash, Key: byPartition}, 3, 1, 0},
		{"single", runtime.Exchange{Kind: runtime.Single}, 3, 1, 1},
		{"broadcast", runtime.Exchange{Kind: runtime.Broadcast}, 2, 2, 2},
		{"partition", runtime.Exchange{Kind: runtime.Partition, Partition: func(r types.Row, n int) int { return int(r.Fields[0].Int64()) % n }}, 3, 1, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := exchangeRig(t, c.ex, c.opPar)
			j := g.job(t)
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			rows, err := testkit.ReadCommitted(g.fileSinks[0].Dir)
			if err != nil {
				t.Fatal(err)
			}
			if c.copies == 1 {
				g.verify(t, g.full())
			} else {
				seen := map[[2]int64]int64{}
				for _, r := range rows {
					seen[[2]int64{r[0], r[1]}]++
				}
				for p := range int64(g.partitions) {
					for s := range g.per {
						if n := seen[[2]int64{p, s}]; n != c.copies {
							t.Fatalf("row (%d, %d) committed %d times, want %d", p, s, n, c.copies)
						}
					}
				}
				if len(rows) != int(c.copies)*g.partitions*int(g.per) {
					t.Fatalf("%d rows committed, want %d", len(rows), int(c.copies)*g.partitions*int(g.per))
				}
			}
			busy := 0
			for _, ts := range j.Status().Tasks {
				if ts.Kind == runtime.OperatorTask && ts.RecordsIn > 0 {
					busy++
				}
			}
			if c.busy > 0 && busy != c.busy {
				t.Fatalf("%d operator tasks got rows, want %d", busy, c.busy)
			}
		})
	}
}

// TestGraphFailurePointsInProcess is TestFailurePointsInProcess on a graph
// with a hash exchange between a source's two tasks and an operator's
// three (each aligning the barriers of two channels): the job fails at
// each failure point, restarts within the process, and the committed
// output is the input exactly once, in order per partition.
func TestGraphFailurePointsInProcess(t *testing.T) {
	points := []runtime.FaultPoint{runtime.BeforePreCommit, runtime.AfterPreCommit, runtime.AfterCheckpointWritten,
		runtime.BetweenSinkCommits, runtime.AfterCommit, runtime.DuringRecovery}
	for _, mode := range []jobconfig.Mode{jobconfig.ExactlyOnce, jobconfig.AtLeastOnce} {
		for _, p := range points {
			if p == runtime.BetweenSinkCommits {
				continue // one sink
			}
			t.Run(fmt.Sprintf("%s/%s", mode, p), func(t *testing.T) {
				g := exchangeRig(t, runtime.Exchange{Kind: runtime.Hash, Key: byPartition}, 3)
				f := &testkit.Faults{}
				if p == runtime.DuringRecovery {
					f.On(runtime.AfterCheckpointWritten, 2, testkit.Fail, 0)
					f.On(p, 1, testkit.Fail, 0)
				} else {
					f.On(p, 2, testkit.Fail, 0)
				}
				g.faults = f
				g.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.Mode = mode }
				j := g.job(t)
				if err := runJob(t, j, time.Minute); err != nil {
					t.Fatal(err)
				}
				if !f.Fired(p) {
					t.Fatalf("failure point %s was not reached", p)
				}
				if mode == jobconfig.ExactlyOnce {
					g.verify(t, g.full())
					return
				}
				rows, err := testkit.ReadCommitted(g.fileSinks[0].Dir)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := testkit.CheckAtLeastOnce(rows, g.full()); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestGraphMaxParallelism: no vertex behind a hash exchange may have more
// tasks than there are key groups (pipeline.max-parallelism), and the
// setting is read and checked.
func TestGraphMaxParallelism(t *testing.T) {
	cfg, err := jobconfig.ParseConfig(map[string]string{"pipeline.max-parallelism": "2"})
	if err != nil || cfg.MaxParallelism != 2 {
		t.Fatalf("ParseConfig: %v, max parallelism %d", err, cfg.MaxParallelism)
	}
	if _, err := jobconfig.ParseConfig(map[string]string{"pipeline.max-parallelism": "0"}); err == nil ||
		!strings.Contains(err.Error(), "pipeline.max-parallelism") {
		t.Fatalf("max parallelism 0: %v", err)
	}
	g := runtime.Graph{Vertices: []runtime.Vertex{
		{ID: "a", Source: &runtime.SourceVertex{Source: &testkit.SeqSource{Partitions: 1}}},
		{ID: "s", Parallelism: 3, Sink: &runtime.SinkVertex{Sink: &countSink{}}}},
		Edges: []runtime.Edge{{From: 0, To: 1, Exchange: runtime.Exchange{Kind: runtime.Hash, Key: byPartition}}}}
	if _, err := runtime.NewJob(runtime.JobSpec{Name: "g", Config: cfg, Graph: g}); !errors.Is(err, runtime.ErrInvalidSpec) ||
		!strings.Contains(err.Error(), "more than pipeline.max-parallelism (2 key groups)") {
		t.Fatalf("3 tasks behind a hash exchange, 2 key groups: %v", err)
	}
	cfg.MaxParallelism = 3
	if _, err := runtime.NewJob(runtime.JobSpec{Name: "g", Config: cfg, Graph: g}); err != nil {
		t.Fatal(err)
	}
}

// fatOp emits, for each input row, fatRows rows of fatBytes bytes each.
type fatOp struct{ stream.Base }

const (
	fatRows  = 16
	fatBytes = 32 << 10
)

func (fatOp) Open(*stream.Context) error { return nil }

func (fatOp) Process(_ int, rows []types.Row, out *stream.Output) error {
	pad := strings.Repeat("x", fatBytes)
	for _, r := range rows {
		for range fatRows {
			out.Emit(types.Row{Kind: r.Kind, Fields: []types.Value{r.Fields[0], r.Fields[1], types.Str(pad)}})
		}
	}
	return nil
}

// batchMeter is an operator that records the most bytes
// (types.Row.MemSize) and rows of one batch it was handed, and emits
// nothing.
type batchMeter struct {
	stream.Base
	mu             *sync.Mutex
	maxBytes, rows *int
}

func (batchMeter) Open(*stream.Context) error { return nil }

func (m batchMeter) Process(_ int, rows []types.Row, _ *stream.Output) error {
	size := 0
	for _, r := range rows {
		size += r.MemSize()
	}
	m.mu.Lock()
	*m.maxBytes = max(*m.maxBytes, size)
	*m.rows += len(rows)
	m.mu.Unlock()
	return nil
}

// TestExchangeBoundsBytes sends rows of 32 KiB through each exchange kind
// (an operator's output batches hold 4 MiB of them) and checks that no
// message the next task gets holds more than 256 KiB plus one row, so that
// what a channel holds is bounded in bytes, not only in messages — and
// that every row still arrives.
func TestExchangeBoundsBytes(t *testing.T) {
	const bound = 256<<10 + fatBytes + 1024 // the runtime's exchangeBytes, plus one row
	for _, c := range []struct {
		name   string
		ex     runtime.Exchange
		par    int
		copies int
	}{
		{"forward", runtime.Exchange{Kind: runtime.Forward}, 1, 1},
		{"single", runtime.Exchange{Kind: runtime.Single}, 3, 1},
		{"broadcast", runtime.Exchange{Kind: runtime.Broadcast}, 2, 2},
		{"hash", runtime.Exchange{Kind: runtime.Hash, Key: byPartition}, 3, 1},
		{"partition", runtime.Exchange{Kind: runtime.Partition, Partition: func(r types.Row, n int) int { return int(r.Fields[0].Int64()) % n }}, 3, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var maxBytes, rows int
			g := &graphRig{rig: newRig(t), sinkPar: c.par}
			g.per, g.batch, g.delay = 40, 8, 0
			g.fileSinks = []*testkit.FileSink{{Dir: filepath.Join(g.dir, "out")}}
			g.ops = []runtime.Vertex{
				{ID: "main/fat", Parallelism: g.srcPar, Operator: &runtime.OperatorVertex{New: func(stream.TaskInfo) (stream.Operator, error) { return fatOp{}, nil }}},
				{ID: "main/meter", Parallelism: c.par, Operator: &runtime.OperatorVertex{New: func(stream.TaskInfo) (stream.Operator, error) {
					return batchMeter{mu: &mu, maxBytes: &maxBytes, rows: &rows}, nil
				}}},
			}
			g.edges = []runtime.Exchange{{Kind: runtime.Forward}, c.ex, {Kind: runtime.Forward}}
			j := g.job(t)
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := c.copies * fatRows * g.partitions * int(g.per); rows != want {
				t.Fatalf("the operator got %d rows, want %d", rows, want)
			}
			if maxBytes > bound {
				t.Fatalf("one message held %d bytes; want at most %d", maxBytes, bound)
			}
		})
	}
}
