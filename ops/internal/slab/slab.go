// Package slab cuts the fields of an operator's output rows from 4 KiB
// slabs, which the operator gets back once the runtime says that nothing
// after it keeps a row past the call that emitted it
// (stream.OutputReuser). ops/join, ops/rank and ops/agg's GROUP BY emit
// their rows this way; ops/over and ops/timesort cut theirs without reuse.
package slab

import "github.com/streamsql/streamsql/types"

// Kept bounds the slabs kept for reuse between calls (Slabs.Release):
// 128 × 4 KiB, over 1,000 output rows of sixteen columns. A call that
// emits more takes the rest from slabs it does not keep.
const Kept = 128

// Slabs cuts rows' fields from slabs. An emitted row keeps its slice, so
// by default a slab is never reused; after Reuse, Release makes the slabs
// cut since the last release the operator's again, and the next call's
// rows are cut from them. The zero value is ready to use.
type Slabs struct {
	reuse bool
	kept  [][]types.Value // slabs kept for reuse, in order (reuse)
	next  int             // kept[next] is the next one to cut from
	slab  []types.Value
}

// Reuse lets Release give the slabs back to the operator: its rows go to
// nothing that keeps them past the call.
func (s *Slabs) Reuse() { s.reuse = true }

// Take returns width fields. After Reuse they may hold an earlier row's
// values: the caller writes every one (or appends to Take(width)[:0]).
func (s *Slabs) Take(width int) []types.Value {
	if len(s.slab) < width {
		n := width * max(4096/(max(width, 1)*24), 1)
		switch {
		case !s.reuse:
			s.slab = make([]types.Value, n)
		case s.next < len(s.kept):
			s.slab = s.kept[s.next]
			s.next++
		case len(s.kept) < Kept:
			s.slab = make([]types.Value, n)
			s.kept = append(s.kept, s.slab)
			s.next++
		default:
			s.slab = make([]types.Value, n)
		}
	}
	f := s.slab[:width:width]
	s.slab = s.slab[width:]
	return f
}

// Release makes every slab kept since the last release the operator's
// again (after Reuse; before, nothing is kept).
func (s *Slabs) Release() { s.next, s.slab = 0, nil }
