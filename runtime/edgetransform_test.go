package runtime_test

import (
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// TestEdgeTransformRecycles runs source → sink graphs whose edge has a
// transform (Edge.Transform), 2 source tasks into 1 and 2 sink tasks, over
// a reader that overwrites the rows handed back to it: the output is the
// input exactly once either way, and the reader gets its batches back
// exactly when the transform promises to copy (EdgeTransform.Copies).
func TestEdgeTransformRecycles(t *testing.T) {
	copyRow := func() func(types.Row, []types.Row) ([]types.Row, error) {
		return func(in types.Row, out []types.Row) ([]types.Row, error) {
			return append(out, types.Row{Kind: in.Kind, Fields: slices.Clone(in.Fields)}), nil
		}
	}
	for _, c := range []struct {
		name    string
		copies  bool
		sinkPar int
		x       runtime.ExchangeKind
	}{
		{"copies forward", true, 2, runtime.Forward},
		{"copies hash", true, 2, runtime.Hash},
		{"copies hash into one", true, 1, runtime.Hash},
		{"copies not declared", false, 2, runtime.Forward},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &graphRig{rig: newRig(t), sinkPar: c.sinkPar}
			g.srcPar = 2
			g.fileSinks = []*testkit.FileSink{{Dir: filepath.Join(g.dir, "out")}}
			x := runtime.Exchange{Kind: c.x}
			if c.x == runtime.Hash {
				x.Key = byPartition
			}
			g.edges = []runtime.Exchange{x}
			var src *recyclingSource
			g.tweak = func(s *runtime.JobSpec) {
				sv := s.Graph.Vertices[0].Source
				src = &recyclingSource{Source: sv.Source}
				sv.Source = src
				s.Graph.Edges[0].Transform = &runtime.EdgeTransform{Name: "copy", New: copyRow, Copies: c.copies}
			}
			j := g.job(t)
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			g.verify(t, g.full())
			if n := src.recycled.Load(); (n > 0) != c.copies {
				t.Fatalf("%d batches recycled, want recycling %v", n, c.copies)
			}
			for _, ts := range j.Status().Tasks {
				if ts.Chained {
					t.Errorf("task %s %d chained: an edge with a transform is never fused", ts.Name, ts.Index)
				}
			}
		})
	}
}

// TestEdgeTransformArenas runs source → operator → sink graphs whose edge
// has a recycling transform (EdgeTransform.NewRecycling) that cuts one
// row per slab and poisons each slab it takes: a slab handed out again
// while the operator could still read its rows would show in the output.
// The output is the input exactly once; slabs are handed out again
// exactly when the operator copies what it keeps (OperatorVertex.Copies)
// and the edge does not spread rows over several tasks' buffers.
func TestEdgeTransformArenas(t *testing.T) {
	for _, c := range []struct {
		name   string
		copies bool
		opPar  int
		x      runtime.ExchangeKind
		reuse  bool
	}{
		{"forward into one", true, 1, runtime.Forward, true},
		{"forward into two", true, 2, runtime.Forward, true},
		{"hash into one", true, 1, runtime.Hash, true},
		{"hash into two", true, 2, runtime.Hash, false},
		{"operator does not copy", false, 1, runtime.Forward, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var (
				mu     sync.Mutex
				slabs  = map[*types.Value]bool{}
				takes  int
				copies atomic.Int64 // rows the plain function copied
			)
			recycling := func(take func(k int) []types.Value) (func(types.Row, []types.Row) ([]types.Row, error), func()) {
				return func(in types.Row, out []types.Row) ([]types.Row, error) {
					f := take(len(in.Fields))
					mu.Lock()
					takes++
					slabs[&f[0]] = true
					mu.Unlock()
					for i := range f {
						f[i] = types.Int64(-1)
					}
					copy(f, in.Fields)
					return append(out, types.Row{Kind: in.Kind, Fields: f}), nil
				}, func() {}
			}
			plain := func() func(types.Row, []types.Row) ([]types.Row, error) {
				return func(in types.Row, out []types.Row) ([]types.Row, error) {
					copies.Add(1)
					return append(out, types.Row{Kind: in.Kind, Fields: slices.Clone(in.Fields)}), nil
				}
			}
			g := &graphRig{rig: newRig(t), sinkPar: c.opPar}
			g.srcPar = 2
			g.fileSinks = []*testkit.FileSink{{Dir: filepath.Join(g.dir, "out")}}
			g.ops = []runtime.Vertex{{ID: "main/copy", Parallelism: c.opPar, Operator: &runtime.OperatorVertex{New: newCopyOp, Copies: c.copies}}}
			x := runtime.Exchange{Kind: c.x}
			if c.x == runtime.Hash {
				x.Key = byPartition
			}
			g.edges = []runtime.Exchange{x, {Kind: runtime.Forward}}
			g.tweak = func(s *runtime.JobSpec) {
				s.Graph.Edges[0].Transform = &runtime.EdgeTransform{Name: "copy", New: plain, NewRecycling: recycling, Copies: true}
			}
			j := g.job(t)
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			g.verify(t, g.full())
			mu.Lock()
			defer mu.Unlock()
			if reused := len(slabs) < takes; reused != c.reuse {
				t.Fatalf("%d slabs for %d rows (%d rows copied without): want reuse %v", len(slabs), takes, copies.Load(), c.reuse)
			}
			if !c.reuse && copies.Load() == 0 && len(slabs) != takes {
				t.Fatalf("%d slabs for %d rows", len(slabs), takes)
			}
		})
	}
}
