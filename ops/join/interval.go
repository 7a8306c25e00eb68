package join

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// IntervalSpec configures an interval join (NewInterval): the rows of two
// insert-only inputs whose times are within bounds of each other, l.t
// BETWEEN r.t + Lower AND r.t + Upper (with the same equi-join key and
// residual condition as a regular join).
type IntervalSpec struct {
	// Type is Inner, Left, Right or Full.
	Type        Type
	Left, Right Side
	KeyTypes    []types.Type
	NullSafe    []bool
	// NewCondition returns the residual condition of one task (the time
	// bounds are checked apart); nil: none.
	NewCondition func() Condition
	// LeftTime and RightTime are the columns of each side's time
	// attribute (a TIMESTAMP(3) or TIMESTAMP_LTZ(3) rowtime); ignored for
	// processing time.
	LeftTime, RightTime int
	// Lower and Upper bound the difference of a matching pair's times:
	// Lower <= l.t - r.t <= Upper.
	Lower, Upper time.Duration
	// ProcTime joins by processing time: a row's time is the clock when it
	// arrives.
	ProcTime bool
}

// NewInterval returns the factory of interval join operators of spec
// (Flink's IntervalJoin: RowTimeIntervalJoin, ProcTimeIntervalJoin).
//
// A row is joined at once with the other side's rows within its bounds
// and emitted as +I pairs; it is kept while rows of the other side that it
// may match can still arrive on time, that is until the watermark (the
// clock for processing time) passes its time plus the bound: the left
// side's rows until l.t - Lower, the right side's until r.t + Upper. An
// outer side's row that matched nothing is emitted padded when it is
// dropped (or at once, when it arrives too late to be kept). Rows are
// never retracted: the output is insert-only.
//
// A pair carries the times of both rows, and is emitted when the later of
// them arrives: the operator holds the watermark it forwards back by the
// larger bound (stream.WatermarkHolder), as Flink does, so that its
// output is not late downstream.
func NewInterval(spec IntervalSpec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		s := Spec{Type: spec.Type, Left: spec.Left, Right: spec.Right, KeyTypes: spec.KeyTypes, NullSafe: spec.NullSafe, NewCondition: spec.NewCondition}
		if err := s.check("interval join"); err != nil {
			return nil, err
		}
		if spec.Type > Full {
			return nil, fmt.Errorf("interval join: %s is not an interval join type", spec.Type)
		}
		if spec.Lower > spec.Upper {
			return nil, fmt.Errorf("interval join: the lower bound %s is above the upper bound %s", spec.Lower, spec.Upper)
		}
		if !spec.ProcTime && (spec.LeftTime < 0 || spec.LeftTime >= len(spec.Left.Types) || spec.RightTime < 0 || spec.RightTime >= len(spec.Right.Types)) {
			return nil, fmt.Errorf("interval join: no time column %d or %d", spec.LeftTime, spec.RightTime)
		}
		ij := &interval{spec: spec, kgs: task.KeyGroups}
		ij.joiner = newJoiner(&s, task, "interval join")
		if ij.kgs.Len() == 0 {
			ij.kgs = state.KeyGroupRange{Start: 0, End: ij.maxP}
		}
		// A left row at lt matches right rows at lt-Upper .. lt-Lower: it
		// waits for them until lt-Lower; a right row at rt waits for left
		// rows until rt+Upper.
		ij.wait = [2]int64{-spec.Lower.Milliseconds(), spec.Upper.Milliseconds()}
		ij.cols = [2][]int{allColumns(len(spec.Left.Types)), allColumns(len(spec.Right.Types))}
		return ij, nil
	}
}

type interval struct {
	stream.Base
	joiner
	spec IntervalSpec
	kgs  state.KeyGroupRange
	ctx  *stream.Context

	// cols[s] are every column of side s.
	cols [2][]int
	// wait[s] is how long after its time a row of side s may still find
	// matches (Flink's leftRelativeSize and rightRelativeSize).
	wait [2]int64
	// rows[s] maps a join key to side s's rows: sub-key the row's time
	// (BIGINT key encoding: in time order) then the row's key encoding;
	// value its count and whether it matched (two uvarints).
	rows [2]state.MapTable
	// timers[s] holds, per join key with rows of side s, the time at
	// which the earliest of them expires; pending[s] the same in a heap
	// (rebuilt at Open), whose entries the table no longer holds are
	// stale.
	timers  [2]state.ValueTable
	pending [2]timerHeap

	other     []types.Value
	sub, buf  []byte
	flagged   [][3]int // offsets in arena of the sub-key and value of each matched row to mark
	arena     []byte
	expired   []int // offsets in arena of sub-keys to delete
	nextTimer []byte
}

// timer is a join key's expiry time in a pending heap.
type timer struct {
	at  int64
	kg  int
	key string
}

type timerHeap []timer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)        { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

var _ stream.WatermarkHolder = (*interval)(nil)

func (ij *interval) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("interval join: the task has no keyed state")
	}
	ij.ctx = ctx
	for s, name := range [2]string{"left", "right"} {
		ij.rows[s] = ctx.State.Map(name)
		ij.timers[s] = ctx.State.Value(name + "-timer")
		for kg := ij.kgs.Start; kg < ij.kgs.End; kg++ {
			err := ij.timers[s].Range(kg, func(key, value []byte) bool {
				heap.Push(&ij.pending[s], timer{at: int64(binary.BigEndian.Uint64(value)), kg: kg, key: string(key)})
				return true
			})
			if err != nil {
				return err
			}
		}
	}
	ij.armTimer()
	return nil
}

// opTime is the operator's time: the watermark (0 before the first
// positive one, as Flink's), or the clock.
func (ij *interval) opTime() int64 {
	if ij.spec.ProcTime {
		return ij.ctx.Now()
	}
	return max(ij.ctx.Watermark(), 0)
}

// OutputWatermark holds the watermark back by the larger bound.
func (ij *interval) OutputWatermark(wm int64) int64 {
	if ij.spec.ProcTime || wm == stream.MaxWatermark || wm == stream.MinWatermark {
		return wm
	}
	return wm - max(ij.wait[0], ij.wait[1], 0)
}

func (ij *interval) Process(input int, rows []types.Row, out *stream.Output) error {
	if input != 0 && input != 1 {
		return fmt.Errorf("interval join: no input %d", input)
	}
	for i := range rows {
		if err := ij.row(input, &rows[i], out); err != nil {
			return err
		}
	}
	if ij.spec.ProcTime {
		ij.armTimer()
	}
	return nil
}

func (ij *interval) outer(s int) bool {
	if s == 0 {
		return ij.spec.Type.LeftOuter()
	}
	return ij.spec.Type.RightOuter()
}

func (ij *interval) side(s int) *Side {
	if s == 0 {
		return &ij.spec.Left
	}
	return &ij.spec.Right
}

// timeOf returns the time of a row of side s.
func (ij *interval) timeOf(s int, row []types.Value) (int64, bool) {
	if ij.spec.ProcTime {
		return ij.ctx.Now(), true
	}
	c := ij.spec.LeftTime
	if s == 1 {
		c = ij.spec.RightTime
	}
	if row[c].IsNull() {
		return 0, false
	}
	return row[c].Timestamp().Millis, true
}

func (ij *interval) row(in int, row *types.Row, out *stream.Output) error {
	if row.Kind != types.Insert && row.Kind != types.UpdateAfter {
		return fmt.Errorf("interval join: a %s row in an insert-only input", row.Kind)
	}
	o := 1 - in
	t, ok := ij.timeOf(in, row.Fields)
	kg, keyOK := ij.keyOf(ij.side(in), row.Fields)
	if !ok || !keyOK {
		if ij.outer(in) {
			ij.emitPadded(out, in, row.Fields)
		}
		return nil
	}
	// The other side's rows at times lo..hi match.
	lo, hi := t-ij.wait[o], t+ij.wait[in]
	emitted := false
	ij.arena, ij.flagged = ij.arena[:0], ij.flagged[:0]
	var ferr error
	err := ij.rows[o].RangeKey(kg, ij.key, func(sub, value []byte) bool {
		tv, rest, err := state.ReadKeyValue(sub, types.BigInt())
		if err != nil {
			ferr = err
			return false
		}
		ot := tv.Int64()
		if ot < lo {
			return true
		}
		if ot > hi {
			return false
		}
		if ij.other, _, err = state.ReadKey(rest, ij.side(o).Types, ij.other[:0]); err != nil {
			ferr = err
			return false
		}
		count, matched, _, err := readCounts(value)
		if err != nil {
			ferr = err
			return false
		}
		l, r := row.Fields, ij.other
		if in == 1 {
			l, r = r, l
		}
		ok, err := ij.matches(l, r)
		if err != nil {
			ferr = err
			return false
		}
		if !ok {
			return true
		}
		emitted = true
		for range count {
			ij.emit(out, types.Insert, l, r)
		}
		if ij.outer(o) && matched == 0 {
			start := len(ij.arena)
			ij.arena = append(ij.arena, sub...)
			ij.arena = appendCounts(ij.arena, count, 1)
			ij.flagged = append(ij.flagged, [3]int{start, start + len(sub), len(ij.arena)})
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("interval join: key group %d: %w", kg, err)
	}
	for _, f := range ij.flagged {
		if err := ij.rows[o].Put(kg, ij.key, ij.arena[f[0]:f[1]], ij.arena[f[1]:f[2]]); err != nil {
			return err
		}
	}
	if ij.opTime() < t+ij.wait[in] {
		return ij.keep(in, kg, t, row.Fields, emitted)
	}
	if !emitted && ij.outer(in) {
		// Too late to wait for matches: padded at once.
		ij.emitPadded(out, in, row.Fields)
	}
	return nil
}

// keep adds a row of side s at time t to the state, and makes sure its key
// has an expiry timer.
func (ij *interval) keep(s, kg int, t int64, row []types.Value, emitted bool) error {
	side := ij.side(s)
	ij.sub = state.AppendKeyValue(ij.sub[:0], types.Int64(t), types.BigInt())
	ij.sub = state.AppendKey(ij.sub, row, ij.cols[s], side.Types)
	old, ok, err := ij.rows[s].Get(kg, ij.key, ij.sub)
	if err != nil {
		return err
	}
	count, matched := int64(1), int64(0)
	if emitted {
		matched = 1
	}
	if ok {
		c, m, _, err := readCounts(old)
		if err != nil {
			return fmt.Errorf("interval join: key group %d: %w", kg, err)
		}
		count, matched = c+1, max(m, matched)
	}
	ij.buf = appendCounts(ij.buf[:0], count, matched)
	if err := ij.rows[s].Put(kg, ij.key, ij.sub, ij.buf); err != nil {
		return err
	}
	if _, ok, err := ij.timers[s].Get(kg, ij.key); err != nil || ok {
		return err
	}
	return ij.setTimer(s, kg, ij.key, t+ij.wait[s]+1)
}

func (ij *interval) setTimer(s, kg int, key []byte, at int64) error {
	ij.nextTimer = binary.BigEndian.AppendUint64(ij.nextTimer[:0], uint64(at))
	if err := ij.timers[s].Put(kg, key, ij.nextTimer); err != nil {
		return err
	}
	heap.Push(&ij.pending[s], timer{at: at, kg: kg, key: string(key)})
	return nil
}

// Watermark expires the rows whose wait the watermark ended.
func (ij *interval) Watermark(_ int64, out *stream.Output) error {
	if ij.spec.ProcTime {
		return nil
	}
	return ij.expire(out)
}

// ProcessingTime expires the rows whose wait the clock ended.
func (ij *interval) ProcessingTime(_ int64, out *stream.Output) error {
	if !ij.spec.ProcTime {
		return nil
	}
	err := ij.expire(out)
	ij.armTimer()
	return err
}

// expire drops the rows whose wait ended by the operator's time.
func (ij *interval) expire(out *stream.Output) error {
	now := ij.opTime()
	for s := range 2 {
		for len(ij.pending[s]) > 0 && ij.pending[s][0].at <= now {
			tm := heap.Pop(&ij.pending[s]).(timer)
			if err := ij.expireKey(s, tm, now, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// expireKey drops the rows of side s and key tm.key whose wait ended by
// now, emitting those of an outer side that matched nothing padded.
func (ij *interval) expireKey(s int, tm timer, now int64, out *stream.Output) error {
	ij.key = append(ij.key[:0], tm.key...)
	cur, ok, err := ij.timers[s].Get(tm.kg, ij.key)
	if err != nil {
		return err
	}
	if !ok || int64(binary.BigEndian.Uint64(cur)) != tm.at {
		return nil // stale: the key's timer moved
	}
	limit := now - ij.wait[s] - 1 // rows at or before it expire
	if now == stream.MaxWatermark {
		limit = now // the inputs ended: every row
	}
	side := ij.side(s)
	ij.arena, ij.expired = ij.arena[:0], ij.expired[:0]
	next, left := int64(0), false
	var ferr error
	err = ij.rows[s].RangeKey(tm.kg, ij.key, func(sub, value []byte) bool {
		tv, rest, err := state.ReadKeyValue(sub, types.BigInt())
		if err != nil {
			ferr = err
			return false
		}
		if t := tv.Int64(); t > limit {
			next, left = t, true
			return false
		}
		ij.expired = append(ij.expired, len(ij.arena))
		ij.arena = append(ij.arena, sub...)
		ij.expired = append(ij.expired, len(ij.arena))
		if !ij.outer(s) {
			return true
		}
		count, matched, _, err := readCounts(value)
		if err != nil {
			ferr = err
			return false
		}
		if matched != 0 {
			return true
		}
		if ij.other, _, err = state.ReadKey(rest, side.Types, ij.other[:0]); err != nil {
			ferr = err
			return false
		}
		for range count {
			ij.emitPadded(out, s, ij.other)
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("interval join: key group %d: %w", tm.kg, err)
	}
	for i := 0; i < len(ij.expired); i += 2 {
		if err := ij.rows[s].Delete(tm.kg, ij.key, ij.arena[ij.expired[i]:ij.expired[i+1]]); err != nil {
			return err
		}
	}
	if !left {
		return ij.timers[s].Delete(tm.kg, ij.key)
	}
	return ij.setTimer(s, tm.kg, ij.key, next+ij.wait[s]+1)
}

func (ij *interval) emitPadded(out *stream.Output, s int, row []types.Value) {
	if s == 0 {
		ij.emit(out, types.Insert, row, nil)
	} else {
		ij.emit(out, types.Insert, nil, row)
	}
}

// armTimer asks for the clock to expire the next rows (processing time).
func (ij *interval) armTimer() {
	if !ij.spec.ProcTime {
		return
	}
	at := int64(0)
	for s := range 2 {
		if len(ij.pending[s]) > 0 && (at == 0 || ij.pending[s][0].at < at) {
			at = ij.pending[s][0].at
		}
	}
	ij.ctx.SetProcessingTimer(at)
}
