package join

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// WindowSpec configures a window join (NewWindow): the rows of two
// insert-only inputs that fall in the same window (equal window_start and
// window_end, which are not part of the equi-join key) and match.
type WindowSpec struct {
	// Type is any join type: Inner, Left, Right, Full, Semi or Anti.
	Type        Type
	Left, Right WindowSide
	KeyTypes    []types.Type
	NullSafe    []bool
	// NewCondition returns the residual condition of one task; nil: none.
	NewCondition func() Condition
	// Location is the session time zone in which windows over a
	// TIMESTAMP_LTZ attribute are aligned (their window_end is a wall
	// clock there); nil: UTC.
	Location *time.Location
}

// WindowSide is one input of a window join.
type WindowSide struct {
	// Side's Types are the side's columns as the join sees them (its
	// output and its condition): for a side with Assign, the input row's
	// columns then window_start, window_end and window_time, which the
	// join computes. Keys are input columns; UniqueKey and TTL are
	// ignored.
	Side
	// WindowEnd is the column holding the row's window end, a
	// TIMESTAMP(3), when the input carries its window (the output of a
	// window aggregation); ignored with Assign.
	WindowEnd int
	// Assign, when set, assigns the rows of this side (read straight from
	// a window table function) to their windows: TUMBLE, HOP or CUMULATE
	// over the event-time column Assign.Time.
	Assign *window.Spec
}

// NewWindow returns the factory of window join operators of spec (Flink's
// WindowJoin). Each row is kept under its window (each of its windows,
// for a HOP or CUMULATE side that assigns them) until the watermark
// reaches the window's end minus one millisecond; then the window's rows
// of both sides are joined by key and emitted (+I pairs, padded rows of
// outer sides, the left rows of SEMI and ANTI), and dropped. A row whose
// window fired already is late: it is dropped and counted in
// stream.Metrics.LateRows. The output is insert-only.
func NewWindow(spec WindowSpec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		s := Spec{Type: spec.Type, Left: spec.Left.Side, Right: spec.Right.Side, KeyTypes: spec.KeyTypes, NullSafe: spec.NullSafe, NewCondition: spec.NewCondition}
		if err := s.check("window join"); err != nil {
			return nil, err
		}
		wj := &windowJoin{spec: spec, kgs: task.KeyGroups}
		for i, sd := range []*WindowSide{&spec.Left, &spec.Right} {
			n := len(sd.Types)
			if a := sd.Assign; a != nil {
				if a.Kind == window.Session {
					return nil, fmt.Errorf("window join: SESSION windows cannot be joined")
				}
				if n < 3 || a.Time < 0 || a.Time >= n-3 {
					return nil, fmt.Errorf("window join: input %d: no time column %d among %d columns", i, a.Time, n-3)
				}
				n -= 3
			} else if sd.WindowEnd < 0 || sd.WindowEnd >= n {
				return nil, fmt.Errorf("window join: input %d has no window end column %d", i, sd.WindowEnd)
			}
			wj.stored[i] = sd.Types[:n]
			wj.cols[i] = allColumns(n)
		}
		wj.joiner = newJoiner(&s, task, "window join")
		if wj.kgs.Len() == 0 {
			wj.kgs = state.KeyGroupRange{Start: 0, End: wj.maxP}
		}
		return wj, nil
	}
}

type windowJoin struct {
	stream.Base
	joiner
	spec WindowSpec
	kgs  state.KeyGroupRange
	ctx  *stream.Context

	// stored[s] are the types of the columns of side s that the state
	// keeps (without the window columns the join assigns), cols[s] their
	// indexes.
	stored [2][]types.Type
	cols   [2][]int
	// rows maps a window end (8 bytes) to the window's rows of both
	// sides: sub-key a byte (0 for a row whose join key holds a NULL that
	// matches nothing, then no key; 1 then the join key's encoding), the
	// side (a byte), the row's key encoding; value the row's count. The
	// rows of one join key come together, left ones first.
	rows    state.MapTable
	pending endHeap
	inHeap  map[int64]bool
	// buf holds rows not written into rows yet (see windowBuffer).
	buf windowBuffer

	k8, sub, kbuf []byte
	ends          []int64
	keyVals       []types.Value
	// The rows of the join key being gathered at a window's firing: their
	// encodings (the state's, without the side byte) in enc, decoded only
	// when the group is joined (one window's rows without an equi-join key
	// are one group: kept encoded, they take a fraction of the memory).
	group     []byte
	gathering bool
	nullGroup bool
	enc       []byte
	members   [2][]member
	// vals holds the decoded right rows of the group (right row i is
	// vals[rstart[i]:rstart[i+1]]), lrow the left row being joined.
	vals     []types.Value
	rstart   []int
	lrow     []types.Value
	rmatched []bool
}

// member is a gathered row: its encoding enc[off:end] and its count.
type member struct {
	off, end int
	count    int64
}

// endHeap holds window ends, the smallest first.
type endHeap []int64

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h endHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (wj *windowJoin) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("window join: the task has no keyed state")
	}
	wj.ctx = ctx
	wj.rows = ctx.State.Map("windows")
	wj.inHeap = map[int64]bool{}
	for kg := wj.kgs.Start; kg < wj.kgs.End; kg++ {
		err := wj.rows.Keys(kg, func(k []byte) bool {
			wj.schedule(int64(binary.BigEndian.Uint64(k)))
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (wj *windowJoin) schedule(end int64) {
	if !wj.inHeap[end] {
		wj.inHeap[end] = true
		heap.Push(&wj.pending, end)
	}
}

// instant returns the instant of a window end.
func (wj *windowJoin) instant(local int64) int64 {
	if wj.spec.Location == nil {
		return local
	}
	_, off := time.UnixMilli(local).In(wj.spec.Location).Zone()
	return local - int64(off)*1000
}

func (wj *windowJoin) fired(end int64) bool {
	wm := wj.ctx.Watermark()
	return wm != stream.MinWatermark && wj.instant(end)-1 <= wm
}

func (wj *windowJoin) wside(s int) *WindowSide {
	if s == 0 {
		return &wj.spec.Left
	}
	return &wj.spec.Right
}

func (wj *windowJoin) Process(input int, rows []types.Row, out *stream.Output) error {
	if input != 0 && input != 1 {
		return fmt.Errorf("window join: no input %d", input)
	}
	sd := wj.wside(input)
	for i := range rows {
		row := &rows[i]
		if row.Kind != types.Insert && row.Kind != types.UpdateAfter {
			return fmt.Errorf("window join: a %s row in an insert-only input", row.Kind)
		}
		wj.ends = wj.ends[:0]
		if a := sd.Assign; a != nil {
			v := row.Fields[a.Time]
			if v.IsNull() {
				continue // no time: no window
			}
			wj.ends, _ = a.Ends(wj.ends, a.Local(v.Timestamp().Millis))
		} else {
			v := row.Fields[sd.WindowEnd]
			if v.IsNull() {
				continue
			}
			wj.ends = append(wj.ends, v.Timestamp().Millis)
		}
		kg, ok := wj.keyOf(&sd.Side, row.Fields)
		wj.sub = wj.sub[:0]
		if ok {
			wj.sub = append(append(wj.sub, 1), wj.key...)
		} else {
			// A NULL key matches nothing; its row still belongs to a task
			// (the one its key encoding hashes to).
			wj.key = state.AppendKey(wj.key[:0], row.Fields, sd.Keys, wj.spec.KeyTypes)
			kg = state.KeyGroupOf(wj.key, wj.maxP)
			wj.sub = append(wj.sub, 0)
		}
		wj.sub = append(wj.sub, byte(input))
		wj.sub = state.AppendKey(wj.sub, row.Fields, wj.cols[input], wj.stored[input])
		for _, end := range wj.ends {
			if wj.fired(end) {
				wj.ctx.Metrics.LateRows.Add(1)
				continue
			}
			if wj.buf.full() {
				if err := wj.flush(); err != nil {
					return err
				}
			}
			wj.buf.add(end, kg, wj.sub)
			wj.schedule(end)
		}
	}
	return nil
}

// add adds n rows of sub-key sub to the window ending at end in the
// state.
func (wj *windowJoin) add(kg int, end int64, sub []byte, n uint64) error {
	wj.k8 = binary.BigEndian.AppendUint64(wj.k8[:0], uint64(end))
	old, had, err := wj.rows.Get(kg, wj.k8, sub)
	if err != nil {
		return err
	}
	if had {
		c, used := binary.Uvarint(old)
		if used <= 0 {
			return fmt.Errorf("window join: key group %d: %w: a row's count", kg, state.ErrCorrupt)
		}
		n += c
	}
	wj.kbuf = binary.AppendUvarint(wj.kbuf[:0], n)
	return wj.rows.Put(kg, wj.k8, sub, wj.kbuf)
}

// flush writes the buffered rows into the state.
func (wj *windowJoin) flush() error {
	for end, w := range wj.buf.wins {
		w.sort()
		for i := 0; i < len(w.rows); {
			r := w.rows[i]
			j := w.same(i)
			if err := wj.add(int(r.kg), end, w.sub(r), uint64(j-i)); err != nil {
				return err
			}
			i = j
		}
	}
	wj.buf.clear()
	return nil
}

// PrepareSnapshot writes the buffered rows into the state.
func (wj *windowJoin) PrepareSnapshot(int64, *stream.Output) error { return wj.flush() }

func (wj *windowJoin) Watermark(wm int64, out *stream.Output) error {
	for len(wj.pending) > 0 && wj.instant(wj.pending[0])-1 <= wm {
		if err := wj.fire(heap.Pop(&wj.pending).(int64), out); err != nil {
			return err
		}
	}
	return nil
}

// fire joins and drops the rows of the window ending at end: those of
// the state and of the buffer, merged in the state's order (by sub-key).
func (wj *windowJoin) fire(end int64, out *stream.Output) error {
	delete(wj.inHeap, end)
	w := wj.buf.take(end)
	if w != nil {
		w.sort()
	}
	next := 0 // w's next row
	wj.k8 = binary.BigEndian.AppendUint64(wj.k8[:0], uint64(end))
	for kg := wj.kgs.Start; kg < wj.kgs.End; kg++ {
		wj.reset()
		var ferr error
		err := wj.rows.RangeKey(kg, wj.k8, func(sub, value []byte) bool {
			count, used := binary.Uvarint(value)
			if used <= 0 {
				ferr = fmt.Errorf("%w: a row's count", state.ErrCorrupt)
				return false
			}
			if ferr = wj.gatherBuffered(w, &next, kg, sub, end, out); ferr != nil {
				return false
			}
			if w != nil && next < len(w.rows) && int(w.rows[next].kg) == kg && bytes.Equal(w.sub(w.rows[next]), sub) {
				j := w.same(next)
				count += uint64(j - next)
				next = j
			}
			ferr = wj.gather(sub, count, end, out)
			return ferr == nil
		})
		if err == nil {
			err = ferr
		}
		if err == nil {
			err = wj.gatherBuffered(w, &next, kg, nil, end, out)
		}
		if err == nil && wj.gathering {
			err = wj.joinGroup(out, end)
		}
		if err == nil {
			err = wj.rows.DeleteKey(kg, wj.k8)
		}
		if err != nil {
			return fmt.Errorf("window join: key group %d: %w", kg, err)
		}
	}
	return nil
}

// gatherBuffered gathers the buffered rows of window w (from *next) of key
// group kg whose sub-keys sort before sub (nil: all of the key group's).
func (wj *windowJoin) gatherBuffered(w *bufWindow, next *int, kg int, sub []byte, end int64, out *stream.Output) error {
	if w == nil {
		return nil
	}
	for *next < len(w.rows) && int(w.rows[*next].kg) == kg {
		b := w.sub(w.rows[*next])
		if sub != nil && bytes.Compare(b, sub) >= 0 {
			return nil
		}
		j := w.same(*next)
		if err := wj.gather(b, uint64(j-*next), end, out); err != nil {
			return err
		}
		*next = j
	}
	return nil
}

func (wj *windowJoin) reset() {
	wj.gathering, wj.nullGroup = false, false
	wj.enc = wj.enc[:0]
	wj.members[0], wj.members[1] = wj.members[0][:0], wj.members[1][:0]
}

// gather adds a row of the firing window to the group of its join key,
// joining the group before when the key changed.
func (wj *windowJoin) gather(sub []byte, count uint64, end int64, out *stream.Output) error {
	if len(sub) < 2 {
		return fmt.Errorf("%w: a window join row", state.ErrCorrupt)
	}
	rest := sub[1:]
	var key []byte
	if sub[0] == 1 {
		var err error
		if wj.keyVals, rest, err = state.ReadKey(rest, wj.spec.KeyTypes, wj.keyVals[:0]); err != nil {
			return err
		}
		key = sub[1 : len(sub)-len(rest)]
	}
	null := sub[0] == 0
	if wj.gathering && (null != wj.nullGroup || !bytes.Equal(key, wj.group)) {
		if err := wj.joinGroup(out, end); err != nil {
			return err
		}
		wj.reset()
	}
	wj.gathering, wj.nullGroup = true, null
	wj.group = append(wj.group[:0], key...)
	if len(rest) < 1 || rest[0] > 1 {
		return fmt.Errorf("%w: a window join row's side", state.ErrCorrupt)
	}
	s := int(rest[0])
	off := len(wj.enc)
	wj.enc = append(wj.enc, rest[1:]...)
	wj.members[s] = append(wj.members[s], member{off: off, end: len(wj.enc), count: int64(count)})
	return nil
}

// decode appends the fields of gathered row m of side s to dst: its
// stored columns, then the window columns of a side that assigns them.
func (wj *windowJoin) decode(dst []types.Value, s int, m member, end int64) ([]types.Value, error) {
	dst, _, err := state.ReadKey(wj.enc[m.off:m.end], wj.stored[s], dst)
	if err != nil {
		return dst, err
	}
	if a := wj.wside(s).Assign; a != nil {
		ws := types.TimestampValue(types.Timestamp{Millis: a.Start(end)})
		we := types.TimestampValue(types.Timestamp{Millis: end})
		wt := types.TimestampValue(types.Timestamp{Millis: a.Instant(end) - 1})
		if a.TimeType.Kind != types.KindTimestampLTZ {
			wt = types.TimestampValue(types.Timestamp{Millis: end - 1})
		}
		dst = append(dst, ws, we, wt)
	}
	return dst, nil
}

// joinGroup emits the join of the gathered rows of one join key.
// The right rows are decoded once each and kept; each left row is decoded
// in turn and joined with them.
func (wj *windowJoin) joinGroup(out *stream.Output, end int64) error {
	t := wj.spec.Type
	left, right := wj.members[0], wj.members[1]
	wj.vals, wj.rstart = wj.vals[:0], append(wj.rstart[:0], 0)
	for _, r := range right {
		var err error
		if wj.vals, err = wj.decode(wj.vals, 1, r, end); err != nil {
			return err
		}
		wj.rstart = append(wj.rstart, len(wj.vals))
	}
	row := func(j int) []types.Value { return wj.vals[wj.rstart[j]:wj.rstart[j+1]:wj.rstart[j+1]] }
	wj.rmatched = wj.rmatched[:0]
	for range right {
		wj.rmatched = append(wj.rmatched, false)
	}
	for _, l := range left {
		var err error
		if wj.lrow, err = wj.decode(wj.lrow[:0], 0, l, end); err != nil {
			return err
		}
		lr := wj.lrow[:len(wj.lrow):len(wj.lrow)]
		any := false
		if !wj.nullGroup {
			for j, r := range right {
				rr := row(j)
				ok, err := wj.matches(lr, rr)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				any, wj.rmatched[j] = true, true
				if t.SemiOrAnti() {
					break
				}
				for range l.count * r.count {
					wj.emit(out, types.Insert, lr, rr)
				}
			}
		}
		switch {
		case t == Semi && any, t == Anti && !any, !any && t.LeftOuter():
			for range l.count {
				wj.emit(out, types.Insert, lr, nil)
			}
		}
	}
	if t.RightOuter() {
		for j, r := range right {
			if !wj.rmatched[j] {
				for range r.count {
					wj.emit(out, types.Insert, nil, row(j))
				}
			}
		}
	}
	return nil
}
