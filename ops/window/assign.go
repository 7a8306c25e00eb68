package window

import (
	"time"

	"github.com/streamsql/streamsql/types"
)

// This file assigns rows to windows: which TUMBLE, HOP and CUMULATE
// windows a time falls in, in the windows' own time (the wall clock of the
// session time zone for a TIMESTAMP_LTZ attribute). The window aggregation
// and the window join (package ops/join) share it.

// Local shifts an instant (milliseconds since the epoch) to the time
// windows are aligned on: the instant itself, or, for a TIMESTAMP_LTZ
// attribute with a Location, its wall clock there. Instant undoes it.
func (s *Spec) Local(ms int64) int64 {
	if !s.shifted() {
		return ms
	}
	_, off := time.UnixMilli(ms).In(s.Location).Zone()
	return ms + int64(off)*1000
}

// Instant returns the instant of a time in the windows' time (Local's
// inverse).
func (s *Spec) Instant(local int64) int64 {
	if !s.shifted() {
		return local
	}
	_, off := time.UnixMilli(local).In(s.Location).Zone()
	return local - int64(off)*1000
}

func (s *Spec) shifted() bool { return s.TimeType.Kind == types.KindTimestampLTZ && s.Location != nil }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Ends appends to dst the ends of the windows (TUMBLE, HOP, CUMULATE)
// that time t (in the windows' time) falls in, and reports the end of its
// first slice: once that window fired, a row at t is late (Flink's slicing
// windows decide lateness so).
func (s *Spec) Ends(dst []int64, t int64) (ends []int64, first int64) {
	size, slide, offset := s.Size.Milliseconds(), s.Slide.Milliseconds(), s.Offset.Milliseconds()
	switch s.Kind {
	case Tumble:
		end := floorDiv(t-offset, size)*size + offset + size
		return append(dst, end), end
	case Hop:
		lastStart := floorDiv(t-offset, slide)*slide + offset
		for start := lastStart; start > t-size; start -= slide {
			dst = append(dst, start+size)
		}
		return dst, lastStart + slide
	case Cumulate:
		cycle := floorDiv(t-offset, size)*size + offset
		first := floorDiv(t-offset, slide)*slide + offset + slide
		for end := first; end <= cycle+size; end += slide {
			dst = append(dst, end)
		}
		return dst, first
	}
	return dst, 0
}

// SliceEnd returns the end of the slice time t (in the windows' time)
// falls in: its window for TUMBLE, the step of Slide it falls in for HOP
// and CUMULATE. A HOP or CUMULATE window is made of the slices between
// its start and its end.
func (s *Spec) SliceEnd(t int64) int64 {
	step, offset := s.Slide.Milliseconds(), s.Offset.Milliseconds()
	if s.Kind == Tumble {
		step = s.Size.Milliseconds()
	}
	return floorDiv(t-offset, step)*step + offset + step
}

// Start returns the start of the window (TUMBLE, HOP, CUMULATE) ending at
// end.
func (s *Spec) Start(end int64) int64 {
	size, offset := s.Size.Milliseconds(), s.Offset.Milliseconds()
	if s.Kind == Cumulate {
		return floorDiv(end-1-offset, size)*size + offset
	}
	return end - size
}
