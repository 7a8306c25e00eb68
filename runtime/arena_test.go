package runtime_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// cuttingOp copies each row into fields it cuts from the runtime's memory
// when given some (stream.OutputCutter), one row per take, poisoning each
// slab it takes; it records the slabs it got.
type cuttingOp struct {
	stream.Base
	take  func(k int) []types.Value
	mu    *sync.Mutex
	slabs map[*types.Value]bool
	takes *int
}

func (o *cuttingOp) Open(*stream.Context) error { return nil }

func (o *cuttingOp) CutOutputFrom(take func(k int) []types.Value) func() {
	o.take = take
	return func() {}
}

func (o *cuttingOp) Process(_ int, rows []types.Row, out *stream.Output) error {
	for _, r := range rows {
		if o.take == nil {
			out.Emit(types.Row{Kind: r.Kind, Fields: append([]types.Value(nil), r.Fields...)})
			continue
		}
		f := o.take(len(r.Fields))
		o.mu.Lock()
		o.slabs[&f[0]] = true
		*o.takes++
		o.mu.Unlock()
		for i := range f {
			f[i] = types.Int64(-1)
		}
		copy(f, r.Fields)
		out.Emit(types.Row{Kind: r.Kind, Fields: f})
	}
	return nil
}

// TestOperatorOutputArenas runs source → cutting operator → copying
// operator → sink graphs where the first operator's rows cross an
// exchange: it cuts them (and the runtime its output batches) from the
// runtime's arenas exactly when the operator after the exchange copies
// what it keeps and the exchange does not spread rows over several tasks'
// buffers, the arenas are reused, and the output is the input exactly
// once (a slab or batch handed out again while a downstream task could
// still read its rows would show there).
func TestOperatorOutputArenas(t *testing.T) {
	for _, c := range []struct {
		name         string
		copies       bool
		opPar, cpPar int
		x            runtime.ExchangeKind
		cut          bool
	}{
		{"forward two into one", true, 2, 1, runtime.Forward, true},
		{"hash into one", true, 2, 1, runtime.Hash, true},
		{"hash into two", true, 2, 2, runtime.Hash, false},
		{"operator does not copy", false, 2, 1, runtime.Forward, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var (
				mu    sync.Mutex
				slabs = map[*types.Value]bool{}
				takes int
			)
			newCutting := func(stream.TaskInfo) (stream.Operator, error) {
				return &cuttingOp{mu: &mu, slabs: slabs, takes: &takes}, nil
			}
			g := &graphRig{rig: newRig(t), sinkPar: c.cpPar}
			g.srcPar = 2
			g.fileSinks = []*testkit.FileSink{{Dir: filepath.Join(g.dir, "out")}}
			g.ops = []runtime.Vertex{
				{ID: "main/cut", Parallelism: c.opPar, Operator: &runtime.OperatorVertex{New: newCutting, Copies: true}},
				{ID: "main/copy", Parallelism: c.cpPar, Operator: &runtime.OperatorVertex{New: newCopyOp, Copies: c.copies}},
			}
			x := runtime.Exchange{Kind: c.x}
			if c.x == runtime.Hash {
				x.Key = byPartition
			}
			g.edges = []runtime.Exchange{{Kind: runtime.Forward}, x, {Kind: runtime.Forward}}
			j := g.job(t)
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			g.verify(t, g.full())
			mu.Lock()
			defer mu.Unlock()
			if (takes > 0) != c.cut {
				t.Fatalf("%d rows cut from the runtime's memory, want cutting %v", takes, c.cut)
			}
			if c.cut && len(slabs) >= takes {
				t.Fatalf("%d slabs for %d rows: none reused", len(slabs), takes)
			}
		})
	}
}
