package runtime

import (
	"errors"
	"fmt"
	"sync/atomic"

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
	// pool, when set (recycling: EdgeTransform.NewRecycling), holds the
	// arenas the edge's downstream tasks are done with; cur is the one of
	// the batch being transformed, and drop makes fn forget its slab.
	pool chan *slabArena
	cur  *slabArena
	drop func()
}

// recycle makes the stage cut its output from arenas that the edge's
// downstream tasks hand back (slabArena), at most capacity of them kept.
func (s *edgeStage) recycle(capacity int) {
	s.pool = make(chan *slabArena, capacity)
	s.fn, s.drop = s.spec.NewRecycling(func(k int) []types.Value { return s.cur.take(k) })
}

// apply returns the transform's output for rows, a batch of reader rd.
// With reuse the output slice is the stage's again at the next call;
// otherwise it is new (the downstream keeps it). When the stage recycles
// (pool), the output is in arena a, which holds a reference for the
// caller: each message that carries its rows takes one more
// (slabArena.hold), and the caller releases its own after sending.
func (s *edgeStage) apply(rd *readerHead, rows []types.Row, reuse bool) (_ []types.Row, a *slabArena, _ error) {
	if s.fn == nil {
		s.fn = s.spec.New()
	}
	var out []types.Row
	switch {
	case s.pool != nil:
		select {
		case a = <-s.pool:
			a.reset()
		default:
			a = &slabArena{pool: s.pool}
		}
		a.refs.Store(1)
		s.cur = a
		out = a.rows[:0]
		defer func() {
			s.drop()
			s.cur = nil
		}()
	case reuse:
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
			return nil, nil, s.rowError(rd, err, i)
		}
	}
	switch {
	case a != nil:
		a.rows = out
	case reuse:
		s.out = out
	}
	s.m.recordsOut.Add(int64(len(out)))
	return out, a, nil
}

// maxArenaSlabs bounds the slabs an arena keeps for reuse: 128 × 4 KiB,
// over 2,000 rows of the benchmark's 5 columns (a Kafka reader's batch is
// at most 500 rows by default). A batch that needs more takes the rest
// from slabs the arena does not keep.
const maxArenaSlabs = 128

// slabArena is the memory of one output batch of a recycling edge
// transform (EdgeTransform.NewRecycling): the slabs its rows' fields were
// cut from and the batch's slice. refs counts who may still read the
// rows: the sending task until it sent them, and each message that
// carries some until the downstream task processed it. The last to let
// go puts the arena back into its pool, for a later batch.
type slabArena struct {
	slabs recycled[types.Value]
	rows  []types.Row
	// batches are an operator's output batches (opStage.cut), handed out
	// in order.
	batches recycled[types.Row]
	refs    atomic.Int32
	pool    chan *slabArena
}

// reset makes the arena hand out its slabs and batches from the first.
func (a *slabArena) reset() { a.slabs.next, a.batches.next = 0, 0 }

// take returns k Values for the transform to cut rows from: a slab of
// the arena's when one is free and large enough, else a new one.
func (a *slabArena) take(k int) []types.Value { return a.slabs.get(k) }

// batch returns a slice of capacity at least n for an output batch: the
// arena's next one when it is large enough, else a new one.
func (a *slabArena) batch(n int) []types.Row { return a.batches.get(n)[:0] }

// recycled is a list of slices handed out in order and again after a
// reset (next = 0): at most maxArenaSlabs are kept.
type recycled[E any] struct {
	list [][]E
	next int // list[next] is the next slice to hand out
}

// get returns n elements: the next kept slice when it is large enough,
// else a new one, kept in its place.
func (r *recycled[E]) get(n int) []E {
	if r.next < len(r.list) {
		if s := r.list[r.next]; cap(s) >= n {
			r.next++
			return s[:n]
		}
	}
	s := make([]E, n)
	switch {
	case r.next < len(r.list):
		r.list[r.next] = s
		r.next++
	case len(r.list) < maxArenaSlabs:
		r.list = append(r.list, s)
		r.next++
	}
	return s
}

// hold counts one more reader of the arena's rows (a message).
func (a *slabArena) hold() { a.refs.Add(1) }

// release lets go of one reference; the last puts the arena back into its
// pool (or leaves it to the collector when the pool is full).
func (a *slabArena) release() {
	if a.refs.Add(-1) != 0 {
		return
	}
	select {
	case a.pool <- a:
	default:
	}
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
