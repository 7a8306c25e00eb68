package runtime_test

import (
	"path/filepath"
	"slices"
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
