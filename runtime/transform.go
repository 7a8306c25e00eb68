package runtime

import (
	"errors"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// The transform of a Pipeline (or SourceSpec) is lowered onto an operator
// vertex fused with its source: it runs in the source task, row by row,
// between the reader and the rest of the chain, as it always has. It is
// not a stream.Operator: it needs the reader (its bad-record policy and
// row positions for the rows it rejects, the recycling of the batches it
// copied), and its per-row loop appends straight into the batch it hands
// on. The status shows it as part of its source (RecordsOut, Dropped).

// transformSpec is a lowered transform.
type transformSpec struct {
	pipe  string // the pipeline's name, for errors
	fn    func(in types.Row, out []types.Row) ([]types.Row, error)
	newFn func() func(in types.Row, out []types.Row) ([]types.Row, error)
	// reuseFn is NewReusingTransform, or nil.
	reuseFn func() (func(in types.Row, out []types.Row) ([]types.Row, error), func())
	copies  bool
	nested  bool // copies nested values too (TransformCopiesNested)
}

// transformOf returns the transform that applies to the rows of source s
// of pipeline p (named pn), or nil: the source's own (UNION ALL
// branches), else the pipeline's; NewTransform before Transform.
func transformOf(p *Pipeline, pn string, s *SourceSpec) *transformSpec {
	fn, nt, rt, copies, nested := s.Transform, s.NewTransform, s.NewReusingTransform, s.TransformCopies, s.TransformCopiesNested
	if fn == nil && nt == nil {
		fn, nt, rt, copies, nested = p.Transform, p.NewTransform, p.NewReusingTransform, p.TransformCopies, p.TransformCopiesNested
	}
	if fn == nil && nt == nil {
		return nil
	}
	return &transformSpec{pipe: pn, fn: fn, newFn: nt, reuseFn: rt, copies: copies, nested: copies && nested}
}

// transformStage runs a transform in one task.
type transformStage struct {
	spec *transformSpec
	fn   func(in types.Row, out []types.Row) ([]types.Row, error)
	// m is the source's member: the transform's output and drops count
	// there.
	m *member
	// rd is the reader whose batches the transform gets (the task's
	// head), for its bad-record policy and row positions.
	rd   *readerHead
	next func(rows []types.Row) error
	// release, when set (reuse), lets fn reuse the memory of its output
	// once next returned; out is then the output batch kept for the next.
	release func()
	out     []types.Row
}

func newTransformStage(spec *transformSpec, m *member, rd *readerHead) *transformStage {
	return &transformStage{spec: spec, m: m, rd: rd}
}

// init makes the stage's function, before the first batch, once the task
// knows whether anything keeps the transform's output past next: with
// reuse (a fused writer that forgets rows, nothing else after the
// transform) the spec's reusing transform when it has one, else its
// per-task or shared one.
func (s *transformStage) init(reuse bool) {
	switch {
	case reuse && s.spec.reuseFn != nil:
		s.fn, s.release = s.spec.reuseFn()
	case s.spec.newFn != nil:
		s.fn = s.spec.newFn()
	default:
		s.fn = s.spec.fn
	}
}

// push transforms rows (a batch of the reader) and hands the output on.
func (s *transformStage) push(rows []types.Row) error {
	var out []types.Row
	if s.release != nil {
		out = s.out[:0]
		defer func() {
			// Whatever next did, it is done with the rows: their memory
			// is the transform's again (Pipeline.NewReusingTransform).
			s.out = out[:0]
			s.release()
		}()
	} else {
		out = make([]types.Row, 0, len(rows))
	}
	var err error
	for i, row := range rows {
		if out, err = s.fn(row, out); err != nil {
			drop := errors.Is(err, connector.ErrDropRow)
			if bad := s.rd.bad; bad != nil && (drop || errors.Is(err, connector.ErrBadRow)) && bad.RejectRow(i, err) {
				continue
			}
			if drop {
				s.m.dropped.Add(1)
				continue
			}
			return rowError(s.spec.pipe, err, s.rd.positioner, i)
		}
	}
	if len(out) == 0 {
		return nil
	}
	s.m.recordsOut.Add(int64(len(out)))
	return s.next(out)
}
