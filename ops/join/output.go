package join

import "github.com/streamsql/streamsql/types"

// keptSlabs bounds the slabs a regular join keeps for reuse between calls
// (outSlabs.release): 128 × 4 KiB, over 1,000 output rows of Nexmark
// q20's sixteen columns. A call that emits more takes the rest from slabs
// it does not keep.
const keptSlabs = 128

// outSlabs cuts the fields of output rows from 4 KiB slabs. An emitted
// row keeps its slice, so by default a slab is never reused; once the
// runtime says that nothing after the operator keeps a row past the call
// that emitted it (stream.OutputReuser: the rows go to a sink writer that
// forgets them), release makes the slabs cut since the last release the
// operator's again, and the next call's rows are cut from them (emit
// writes every field of a row it cuts: a reused slab still holds an
// earlier row's values).
type outSlabs struct {
	reuse bool
	kept  [][]types.Value // slabs kept for reuse, in order (reuse)
	next  int             // kept[next] is the next one to cut from
	slab  []types.Value
}

// take returns width fields, which may hold an earlier row's values.
func (s *outSlabs) take(width int) []types.Value {
	if len(s.slab) < width {
		n := width * max(4096/(max(width, 1)*24), 1)
		switch {
		case !s.reuse:
			s.slab = make([]types.Value, n)
		case s.next < len(s.kept):
			s.slab = s.kept[s.next]
			s.next++
		case len(s.kept) < keptSlabs:
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

// release makes every slab kept since the last release the operator's
// again (reuse only).
func (s *outSlabs) release() { s.next, s.slab = 0, nil }

// ReuseOutput implements stream.OutputReuser: the pairs a regular join
// emits are cut from slabs that are the operator's again at each
// release. Their values are the input row's and the matched rows',
// whose strings are cut from chunks that are never rewritten
// (state.RowReader), so a reused slab frees no string a later row needs.
func (r *regular) ReuseOutput() (release func()) {
	r.slabs.reuse = true
	return r.slabs.release
}
