package runtime_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/types"
)

// recyclingSource wraps a source whose readers scribble over the rows the
// runtime hands back (connector.RowRecycler), as a reader reusing them
// would.
type recyclingSource struct {
	connector.Source
	recycled atomic.Int64
}

func (s *recyclingSource) Open(ctx context.Context, task connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r, err := s.Source.Open(ctx, task, splits)
	if err != nil {
		return nil, err
	}
	return &recyclingReader{Reader: r, src: s}, nil
}

type recyclingReader struct {
	connector.Reader
	src *recyclingSource
}

func (r *recyclingReader) Recycle(rows []types.Row) {
	r.src.recycled.Add(1)
	for _, row := range rows {
		for i := range row.Fields {
			row.Fields[i] = types.Int64(-1)
		}
	}
}

// TestRecycleOnlyWhatTheTransformCopied runs a job whose reader overwrites
// recycled rows: with a copying transform (TransformCopies) the runtime
// hands every batch back after the transform and the output is still
// exactly the input; with a transform that passes rows on, or none, it
// hands nothing back.
func TestRecycleOnlyWhatTheTransformCopied(t *testing.T) {
	copyRow := func(in types.Row, out []types.Row) ([]types.Row, error) {
		return append(out, types.Row{Kind: in.Kind, Fields: slices.Clone(in.Fields)}), nil
	}
	passOn := func(in types.Row, out []types.Row) ([]types.Row, error) { return append(out, in), nil }
	for _, c := range []struct {
		name      string
		transform func(types.Row, []types.Row) ([]types.Row, error)
		copies    bool
		recycles  bool
	}{
		{"copying transform", copyRow, true, true},
		{"copying transform not declared", copyRow, false, false},
		{"passing transform", passOn, false, false},
		{"no transform", nil, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			var src *recyclingSource
			r.tweak = func(s *runtime.JobSpec) {
				p := &s.Pipelines[0]
				src = &recyclingSource{Source: p.Sources[0].Source}
				p.Sources[0].Source = src
				p.Transform, p.TransformCopies = c.transform, c.copies
			}
			if err := runJob(t, r.job(t), 2*time.Minute); err != nil {
				t.Fatal(err)
			}
			r.verify(t, r.full())
			if n := src.recycled.Load(); (n > 0) != c.recycles {
				t.Fatalf("%d batches recycled, want recycling %v", n, c.recycles)
			}
		})
	}
}

// nestedRecyclingSource is recyclingSource whose readers also reuse nested
// values (connector.NestedRowRecycler), counting each kind of hand-back.
type nestedRecyclingSource struct {
	recyclingSource
	nested atomic.Int64
}

func (s *nestedRecyclingSource) Open(ctx context.Context, task connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r, err := s.Source.Open(ctx, task, splits)
	if err != nil {
		return nil, err
	}
	return &nestedRecyclingReader{recyclingReader{Reader: r, src: &s.recyclingSource}, s}, nil
}

type nestedRecyclingReader struct {
	recyclingReader
	src *nestedRecyclingSource
}

func (r *nestedRecyclingReader) RecycleNested(rows []types.Row) {
	r.src.nested.Add(1)
	for _, row := range rows {
		for i := range row.Fields {
			row.Fields[i] = types.Int64(-2)
		}
	}
}

// TestRecycleNestedOnlyWhenDeclared runs a job whose reader reuses nested
// values too: the runtime hands batches back through RecycleNested only
// when the transform promises to copy nested values as well
// (TransformCopiesNested with TransformCopies), through Recycle when it
// promises only TransformCopies, and not at all otherwise; the output is
// the input each time.
func TestRecycleNestedOnlyWhenDeclared(t *testing.T) {
	copyRow := func(in types.Row, out []types.Row) ([]types.Row, error) {
		return append(out, types.Row{Kind: in.Kind, Fields: slices.Clone(in.Fields)}), nil
	}
	for _, c := range []struct {
		name             string
		copies, nested   bool
		recycle, recycNs bool
	}{
		{"copies nested", true, true, false, true},
		{"copies rows only", true, false, true, false},
		{"nested without copies", false, true, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			var src *nestedRecyclingSource
			r.tweak = func(s *runtime.JobSpec) {
				p := &s.Pipelines[0]
				src = &nestedRecyclingSource{recyclingSource: recyclingSource{Source: p.Sources[0].Source}}
				p.Sources[0].Source = src
				p.Transform, p.TransformCopies, p.TransformCopiesNested = copyRow, c.copies, c.nested
			}
			if err := runJob(t, r.job(t), 2*time.Minute); err != nil {
				t.Fatal(err)
			}
			r.verify(t, r.full())
			if n := src.recycled.Load(); (n > 0) != c.recycle {
				t.Fatalf("%d batches recycled, want Recycle %v", n, c.recycle)
			}
			if n := src.nested.Load(); (n > 0) != c.recycNs {
				t.Fatalf("%d batches recycled with nested values, want RecycleNested %v", n, c.recycNs)
			}
		})
	}
}
