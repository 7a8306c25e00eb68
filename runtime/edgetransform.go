package runtime

import (
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// edgeStage runs an edge's transform (Edge.Transform) in one task of the
// edge's source, on the reader's batches as they are.
type edgeStage struct {
	spec *EdgeTransform
	fn   func(in types.Row, out []types.Row) ([]types.Row, error)
	// m is the source's member: the transform's output and drops count
	// there.
	m *member
	// out is the output batch kept for the next, when the exchange
	// copies the rows it gets (Hash, Partition).
	out []types.Row
}

// apply returns the transform's output for rows, a batch of reader rd.
// With reuse the output slice is the stage's again at the next call;
// otherwise it is new (the downstream keeps it).
func (s *edgeStage) apply(rd *readerHead, rows []types.Row, reuse bool) ([]types.Row, error) {
	if s.fn == nil {
		s.fn = s.spec.New()
	}
	var out []types.Row
	if reuse {
		out = s.out[:0]
	}
	var err error
	for i, row := range rows {
		if out, err = s.fn(row, out); err != nil {
			drop := errors.Is(err, connector.ErrDropRow)
			if rd != nil && rd.bad != nil && (drop || errors.Is(err, connector.ErrBadRow)) && rd.bad.RejectRow(i, err) {
				continue
			}
			if drop {
				s.m.dropped.Add(1)
				continue
			}
			return nil, s.rowError(rd, err, i)
		}
	}
	if reuse {
		s.out = out
	}
	s.m.recordsOut.Add(int64(len(out)))
	return out, nil
}

// rowError is the error of row i of the reader's batch: the transform's
// name and, when the reader knows it, where the row comes from.
func (s *edgeStage) rowError(rd *readerHead, err error, i int) error {
	pos := ""
	if rd != nil && rd.positioner != nil {
		pos = rd.positioner.RowPosition(i)
	}
	if pos == "" {
		return fmt.Errorf("%s: %w", s.spec.Name, err)
	}
	return &connector.BadRecordError{Record: pos, Err: fmt.Errorf("%s: %w (row from %s)", s.spec.Name, err, pos)}
}

// edgesCopy reports whether task t's rows leave it only through edges
// whose transforms copy them (Edge.Transform), nested values too when
// nested is set: its reader may then reuse the memory of its batches.
func (t *task) edgesCopy(nested bool) bool {
	if len(t.members) != 1 || t.w != nil || len(t.outs) == 0 {
		return false
	}
	for _, o := range t.outs {
		if o.tf == nil || !o.tf.spec.Copies || (nested && !o.tf.spec.CopiesNested) {
			return false
		}
	}
	return true
}
