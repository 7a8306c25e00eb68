package rank

import "github.com/streamsql/streamsql/types"

// keptSlabs bounds the slabs an operator keeps for reuse between calls
// (slabs.release): 128 × 4 KiB, over 2,000 output rows of Nexmark's bid
// columns. A call that emits more takes the rest from slabs it does not
// keep.
const keptSlabs = 128

// slabs cuts the fields of output rows from 4 KiB slabs. An emitted row
// keeps its slice, so by default a slab is never reused; once the runtime
// says that nothing after the operator keeps a row past the call that
// emitted it (stream.OutputReuser: the rows go to a sink writer that
// forgets them), release makes the slabs cut since the last release the
// operator's again, and the next call's rows are cut from them. Each
// slice take returns is empty: its rows are appended, so a reused slab
// holds no value of an earlier row in a row that goes out.
type slabs struct {
	width int // fields per row
	reuse bool
	kept  [][]types.Value // slabs kept for reuse, in order (reuse)
	next  int             // kept[next] is the next one to cut from
	slab  []types.Value
}

// take returns an empty slice with room for width fields.
func (s *slabs) take() []types.Value {
	if len(s.slab) < s.width {
		n := s.width * max(4096/(s.width*24), 1)
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
	f := s.slab[:0:s.width]
	s.slab = s.slab[s.width:]
	return f
}

// release makes every slab kept since the last release the operator's
// again (reuse only).
func (s *slabs) release() { s.next, s.slab = 0, nil }
