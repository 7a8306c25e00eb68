// Package timesort holds the temporal sort operator (Flink's
// TemporalSort): ORDER BY a time attribute ascending, then any other
// columns, over a stream without LIMIT. Its rows leave in that order as
// time passes them.
//
// Over event time a row waits in state until the watermark reaches its
// time; at each watermark the rows of every time up to it go out, oldest
// time first, the rows of one time sorted by the other ORDER BY columns
// (rows equal in all of them in arrival order). A row whose time is not
// after the last time that went out is late: dropped and counted
// (stream.Metrics.LateRows), as Flink's RowTimeSortOperator drops it. A
// row with a NULL time cannot be ordered and is dropped too.
//
// Over processing time a row's time is the clock's when it arrives; the
// rows of one millisecond go out sorted by the other columns once the
// clock has passed it, and every row that waits when the input ends.
//
// The input is insert-only and the output inserts only. The operator runs
// in one task (the sort is global).
package timesort

import (
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/ops/internal/rowlist"
	"github.com/streamsql/streamsql/ops/internal/slab"
	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Spec configures a temporal sort (New).
type Spec struct {
	// Types are the input row's column types, which are the output's.
	Types []types.Type
	// Time is the rowtime column (TIMESTAMP(3) or TIMESTAMP_LTZ(3)) the
	// rows are sorted by first; -1 sorts by processing time.
	Time int
	// Order are the ORDER BY columns after the time.
	Order []rank.SortKey
}

func (s *Spec) check() error {
	if s.Time < -1 || s.Time >= len(s.Types) {
		return fmt.Errorf("temporal sort: the input has no column %d", s.Time)
	}
	for _, k := range s.Order {
		if k.Col < 0 || k.Col >= len(s.Types) {
			return fmt.Errorf("temporal sort: the input has no column %d", k.Col)
		}
	}
	return nil
}

// New returns the factory of temporal sort operators of spec. Its input
// must be gathered in one task and insert only.
func New(spec Spec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		if err := spec.check(); err != nil {
			return nil, err
		}
		maxP := task.MaxParallelism
		if maxP <= 0 {
			maxP = state.DefaultMaxParallelism
		}
		return &sorter{spec: spec, kg: state.KeyGroupOf(nil, maxP)}, nil
	}
}

type sorter struct {
	stream.Base
	spec Spec
	ctx  *stream.Context
	// kg is the key group of the operator's one (empty) key.
	kg int
	// rows holds the waiting rows under sub-keys that sort them: the
	// time (rowlist.AppendTime), then the other ORDER BY columns
	// (rank.AppendSortKey); each value is the rowlist list of the rows of
	// that sub-key in arrival order.
	rows state.MapTable
	// last holds the last time whose rows went out (rows not after it
	// are late).
	last state.ValueTable
	// lastTime and hasLast cache last; earliest is the first waiting
	// time (processing time: when to wake), waiting whether there is one.
	lastTime, earliest int64
	hasLast, waiting   bool

	sub, buf []byte
	row      []byte // a row's encoding, before it joins its list
	slabs    slab.Slabs
	list     [][]byte
}

var lastTypes = []types.Type{types.BigInt()}

func (s *sorter) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("temporal sort: the task has no keyed state")
	}
	s.ctx = ctx
	s.rows = ctx.State.Map("rows")
	s.last = ctx.State.Value("last")
	v, ok, err := s.last.Get(s.kg, nil)
	if err != nil {
		return err
	}
	if ok {
		f, _, err := state.ReadRow(v, lastTypes, nil)
		if err != nil {
			return fmt.Errorf("temporal sort: %w", err)
		}
		s.lastTime, s.hasLast = f[0].Int64(), true
	}
	// The first waiting time of the restored state.
	err = s.rows.RangeKey(s.kg, nil, func(sub, _ []byte) bool {
		s.earliest, s.waiting = rowlist.Time(sub), true
		return false
	})
	if err != nil {
		return err
	}
	if s.spec.Time < 0 && s.waiting {
		ctx.SetProcessingTimer(s.earliest + 1)
	}
	return nil
}

func (s *sorter) Process(_ int, rows []types.Row, _ *stream.Output) error {
	now := int64(0)
	if s.spec.Time < 0 {
		now = s.ctx.Now()
	}
	for i := range rows {
		r := &rows[i]
		if r.Kind != types.Insert {
			return fmt.Errorf("temporal sort: a %s row in an insert-only input", r.Kind)
		}
		ts := now
		if s.spec.Time >= 0 {
			tv := r.Fields[s.spec.Time]
			if tv.IsNull() {
				s.ctx.Metrics.LateRows.Add(1)
				continue
			}
			ts = tv.Timestamp().Millis
		}
		if s.hasLast && ts <= s.lastTime {
			s.ctx.Metrics.LateRows.Add(1)
			continue
		}
		if err := s.buffer(r.Fields, ts); err != nil {
			return err
		}
	}
	if s.spec.Time < 0 && s.waiting {
		s.ctx.SetProcessingTimer(s.earliest + 1)
	}
	return nil
}

// buffer appends a row to the rows of its sub-key.
func (s *sorter) buffer(fields []types.Value, ts int64) error {
	s.sub = rank.AppendSortKey(rowlist.AppendTime(s.sub[:0], ts), fields, s.spec.Order, s.spec.Types)
	old, ok, err := s.rows.Get(s.kg, nil, s.sub)
	if err != nil {
		return err
	}
	s.buf = s.buf[:0]
	if ok {
		s.buf = append(s.buf, old...)
	}
	s.row = state.AppendRow(s.row[:0], fields, s.spec.Types)
	s.buf = rowlist.Append(s.buf, s.row)
	if !s.waiting || ts < s.earliest {
		s.earliest, s.waiting = ts, true
	}
	return s.rows.Put(s.kg, nil, s.sub, s.buf)
}

func (s *sorter) Watermark(wm int64, out *stream.Output) error {
	if s.spec.Time < 0 {
		return nil
	}
	return s.fire(wm, out)
}

func (s *sorter) ProcessingTime(now int64, out *stream.Output) error {
	if s.spec.Time >= 0 {
		return nil
	}
	// A millisecond's rows go out once it has passed.
	if err := s.fire(now-1, out); err != nil {
		return err
	}
	if s.waiting {
		s.ctx.SetProcessingTimer(s.earliest + 1)
	}
	return nil
}

// EndInput sends every waiting row of a processing-time sort: no row can
// come before them any more. (An event-time sort's input ends with the
// maximum watermark, which sent them.)
func (s *sorter) EndInput(_ int, out *stream.Output) error {
	if s.spec.Time >= 0 || !s.waiting {
		return nil
	}
	return s.fire(maxTime, out)
}

const maxTime = int64(^uint64(0) >> 1)

// fire sends the waiting rows of every time up to upTo, in order, and
// takes them out of state.
func (s *sorter) fire(upTo int64, out *stream.Output) error {
	if !s.waiting || s.earliest > upTo {
		return nil
	}
	var subs, lists [][]byte
	s.waiting = false
	err := s.rows.RangeKey(s.kg, nil, func(sub, val []byte) bool {
		if ts := rowlist.Time(sub); ts > upTo {
			s.earliest, s.waiting = ts, true
			return false
		}
		subs, lists = append(subs, slices.Clone(sub)), append(lists, slices.Clone(val))
		return true
	})
	if err != nil {
		return err
	}
	for i, sub := range subs {
		if s.list, err = rowlist.Rows(lists[i], s.list[:0]); err != nil {
			return fmt.Errorf("temporal sort: %w", err)
		}
		for _, enc := range s.list {
			f, _, err := state.ReadRow(enc, s.spec.Types, s.fields())
			if err != nil {
				return fmt.Errorf("temporal sort: %w", err)
			}
			out.Emit(types.Row{Kind: types.Insert, Fields: f})
		}
		if err := s.rows.Delete(s.kg, nil, sub); err != nil {
			return err
		}
	}
	if len(subs) > 0 {
		s.lastTime, s.hasLast = rowlist.Time(subs[len(subs)-1]), true
		s.buf = state.AppendRow(s.buf[:0], []types.Value{types.Int64(s.lastTime)}, lastTypes)
		if err := s.last.Put(s.kg, nil, s.buf); err != nil {
			return err
		}
	}
	return nil
}

// fields returns an empty slice with room for an output row from a slab
// shared by a few output rows, never reused (the rows go downstream).
func (s *sorter) fields() []types.Value { return s.slabs.Take(len(s.spec.Types))[:0] }
