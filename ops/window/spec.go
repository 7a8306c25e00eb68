// Package window holds the window aggregation operator (Flink's
// WindowAggregate): GROUP BY over the window table functions TUMBLE, HOP,
// CUMULATE and SESSION (and the legacy GROUP BY TUMBLE(...) group
// windows), over event time or processing time. Results are insert-only:
// a window's rows are emitted once, when the watermark (or the clock)
// passes its end. Rows that arrive after their window fired are dropped
// and counted (stream.Metrics.LateRows).
package window

import (
	"fmt"
	"time"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/types"
)

// Kind is a window table function.
type Kind uint8

// The window kinds.
const (
	// Tumble windows are consecutive and do not overlap: [k·Size+Offset,
	// (k+1)·Size+Offset).
	Tumble Kind = iota
	// Hop windows have length Size and start every Slide: a row belongs
	// to Size/Slide of them.
	Hop
	// Cumulate windows start every Size (MaxSize) and grow by Slide (the
	// step) up to Size: [start, start+Slide), [start, start+2·Slide), ...
	Cumulate
	// Session windows of a key end Gap after its last row; a row within
	// Gap of a session joins it (and may merge two).
	Session
)

var kindNames = [...]string{"TUMBLE", "HOP", "CUMULATE", "SESSION"}

// String returns the function's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Spec configures a window aggregation. Its input rows hold the grouping
// key's columns, the calls' argument and filter columns, and (for event
// time) the time attribute; its output rows are the key's values, the
// calls' results, then window_start, window_end and window_time.
type Spec struct {
	Kind Kind
	// Size is the window length (TUMBLE, HOP; CUMULATE's max size), Slide
	// HOP's slide or CUMULATE's step, Gap SESSION's gap, Offset the
	// alignment offset of TUMBLE, HOP and CUMULATE.
	Size, Slide, Gap, Offset time.Duration
	// Time is the input column of the event-time attribute, a TIMESTAMP(3)
	// or TIMESTAMP_LTZ(3); -1 for processing time (a row belongs to the
	// windows of the moment it arrives, which fire by the clock).
	Time int
	// TimeType is the time attribute's type: window_time has it (for
	// processing time TIMESTAMP_LTZ(3)); window_start and window_end are
	// TIMESTAMP(3).
	TimeType types.Type
	// Location is the session time zone (table.local-time-zone) in which
	// windows over a TIMESTAMP_LTZ attribute are aligned and window_start
	// and window_end are shown, as Flink does; nil: UTC.
	Location *time.Location
	// Keys are the input columns of the grouping key (besides the
	// window), KeyTypes their types.
	Keys     []int
	KeyTypes []types.Type
	// Calls are the aggregate calls (insert-only input: the accumulators
	// never retract).
	Calls []agg.Call
	// Attached is set for a window aggregation over rows that already
	// belong to one window each (TUMBLE, HOP, CUMULATE; event time): the
	// output of a window aggregation grouped again by its window_start and
	// window_end (Flink's cascading window aggregation, its
	// WindowAttachedWindowingStrategy). Time is then the input column of
	// the row's window_end, a TIMESTAMP(3) in the windows' own time; the
	// row goes to that window alone, which fires as any window does.
	Attached bool
}
