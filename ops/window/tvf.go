package window

import (
	"fmt"

	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// NewTableFunction returns the factory of the window table function
// operator (Flink's WindowTableFunction): a TUMBLE, HOP or CUMULATE
// window table function read as a table, not by a window aggregation,
// join or ranking. Each input row goes out at once, once for each window
// its time falls in, with the window's window_start, window_end and
// window_time after its columns; a row without a time goes nowhere. It
// keeps no state and drops no late row (Flink's does not either: what
// reads its rows decides). Spec.Keys and Spec.Calls are not used.
func NewTableFunction(spec Spec) stream.Factory {
	return func(stream.TaskInfo) (stream.Operator, error) {
		if spec.Kind == Session {
			return nil, fmt.Errorf("window table function: SESSION windows are not assigned row by row")
		}
		if err := spec.check(); err != nil {
			return nil, err
		}
		return &tableFunction{spec: spec}, nil
	}
}

type tableFunction struct {
	stream.Base
	spec Spec
	ctx  *stream.Context
	ends []int64
	ltz  bool // window_time is a TIMESTAMP_LTZ instant
	// slab is what output rows' fields are cut from: emitted rows are
	// kept downstream, so a slab is never reused, only replaced.
	slab []types.Value
}

// slabValues is the number of values a new slab holds.
const slabValues = 4096

func (f *tableFunction) Open(ctx *stream.Context) error {
	f.ctx = ctx
	f.ltz = f.spec.TimeType.Kind == types.KindTimestampLTZ
	return nil
}

func (f *tableFunction) Process(_ int, rows []types.Row, out *stream.Output) error {
	for i := range rows {
		r := &rows[i]
		var t int64
		if f.spec.Time < 0 {
			t = f.spec.Local(f.ctx.Now())
		} else {
			v := r.Fields[f.spec.Time]
			if v.IsNull() {
				continue // no time: no window (Flink drops such rows too)
			}
			t = f.spec.Local(v.Timestamp().Millis)
		}
		f.ends, _ = f.spec.Ends(f.ends[:0], t)
		n := len(r.Fields)
		for _, end := range f.ends {
			if len(f.slab) < n+3 {
				f.slab = make([]types.Value, max(slabValues, n+3))
			}
			// The capacity ends at the row's last field: an append to
			// one row's fields never writes into the next row's.
			fields := f.slab[: n+3 : n+3]
			f.slab = f.slab[n+3:]
			copy(fields, r.Fields)
			// window_time is the window's last instant: a TIMESTAMP_LTZ
			// instant, or a TIMESTAMP in the windows' own time.
			wt := end - 1
			if f.ltz {
				wt = f.spec.Instant(end) - 1
			}
			fields[n] = types.TimestampValue(types.Timestamp{Millis: f.spec.Start(end)})
			fields[n+1] = types.TimestampValue(types.Timestamp{Millis: end})
			fields[n+2] = types.TimestampValue(types.Timestamp{Millis: wt})
			out.Emit(types.Row{Kind: r.Kind, Fields: fields})
		}
	}
	return nil
}
