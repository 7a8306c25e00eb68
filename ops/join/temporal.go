package join

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// TemporalSpec configures an event-time temporal join (NewTemporal): each
// row of the left input joined with the version of the right input (a
// versioned table: a changelog keyed by its primary key, with event time)
// that was valid at the left row's time, FROM l JOIN r FOR SYSTEM_TIME
// AS OF l.t ON l.k = r.pk.
type TemporalSpec struct {
	// Type is Inner or Left.
	Type        Type
	Left, Right Side
	KeyTypes    []types.Type
	NullSafe    []bool
	// NewCondition returns the residual condition of one task; nil: none.
	NewCondition func() Condition
	// LeftTime and RightTime are the columns of each input's rowtime
	// attribute.
	LeftTime, RightTime int
}

// NewTemporal returns the factory of event-time temporal join operators
// of spec (Flink's TemporalRowTimeJoinOperator).
//
// The right input's rows are versions of its rows by key, each valid from
// its time until the next version's: an INSERT or UPDATE_AFTER starts a
// version, a DELETE ends the key's row (UPDATE_BEFORE rows are dropped:
// the next version replaces the old one anyway, as Flink drops them before
// its temporal join). A left row waits until the watermark reaches its
// time, when no version before it can still arrive; it is then joined with
// the key's version at its time and emitted with its own kind (a LEFT
// join emits it padded when there is no such version, or it fails the
// residual condition). The left rows of one key are emitted in their
// arrival order.
//
// State: the left rows that wait for the watermark, and per key the right
// versions from the one valid at the watermark on; older versions are
// dropped as the watermark passes them, so the right state holds about a
// version per key. Side.TTL forgets rows not written for that long
// (table.exec.state.ttl).
func NewTemporal(spec TemporalSpec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		s := Spec{Type: spec.Type, Left: spec.Left, Right: spec.Right, KeyTypes: spec.KeyTypes, NullSafe: spec.NullSafe, NewCondition: spec.NewCondition}
		if err := s.check("temporal join"); err != nil {
			return nil, err
		}
		if spec.Type != Inner && spec.Type != Left {
			return nil, fmt.Errorf("temporal join: %s is not a temporal join type (INNER or LEFT)", spec.Type)
		}
		if spec.LeftTime < 0 || spec.LeftTime >= len(spec.Left.Types) || spec.RightTime < 0 || spec.RightTime >= len(spec.Right.Types) {
			return nil, fmt.Errorf("temporal join: no time column %d or %d", spec.LeftTime, spec.RightTime)
		}
		tj := &temporal{spec: spec, kgs: task.KeyGroups}
		tj.joiner = newJoiner(&s, task, "temporal join")
		if tj.kgs.Len() == 0 {
			tj.kgs = state.KeyGroupRange{Start: 0, End: tj.maxP}
		}
		return tj, nil
	}
}

type temporal struct {
	stream.Base
	joiner
	spec TemporalSpec
	kgs  state.KeyGroupRange
	ctx  *stream.Context

	// left maps a key to its waiting left rows: sub-key the arrival
	// sequence number (8 bytes, big-endian), value the row's time (8
	// bytes), kind (a byte) and the row (AppendRow). seq holds each key's
	// next sequence number. right maps a key to its versions: sub-key the
	// version's time (BIGINT key encoding), value its kind and row.
	left, right state.MapTable
	seq         state.ValueTable
	// timers holds per key the time at which it has work (its earliest
	// waiting row or version); pending the same in a heap, rebuilt at
	// Open (entries the table no longer holds are stale).
	timers  state.ValueTable
	pending timerHeap

	buf, sub []byte
	row      []types.Value
	versions []version
	varena   []types.Value
	done     [][]byte
	lefts    []leftRow
}

// version is a right row of the key being processed.
type version struct {
	time       int64
	accumulate bool
	fields     [2]int // in varena
	sub        []byte
}

// leftRow is a waiting left row due at the watermark.
type leftRow struct {
	kind   types.RowKind
	fields [2]int
}

func (tj *temporal) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("temporal join: the task has no keyed state")
	}
	tj.ctx = ctx
	tj.left = ctx.State.Map("left", state.TTL(tj.spec.Left.TTL))
	tj.seq = ctx.State.Value("left-seq", state.TTL(tj.spec.Left.TTL))
	tj.right = ctx.State.Map("right", state.TTL(tj.spec.Right.TTL))
	tj.timers = ctx.State.Value("timer")
	for kg := tj.kgs.Start; kg < tj.kgs.End; kg++ {
		err := tj.timers.Range(kg, func(key, value []byte) bool {
			heap.Push(&tj.pending, timer{at: int64(binary.BigEndian.Uint64(value)), kg: kg, key: string(key)})
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (tj *temporal) Process(input int, rows []types.Row, out *stream.Output) error {
	for i := range rows {
		var err error
		switch input {
		case 0:
			err = tj.leftRow(&rows[i], out)
		case 1:
			err = tj.rightRow(&rows[i])
		default:
			err = fmt.Errorf("temporal join: no input %d", input)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// timeOf returns the time of a row (a NULL time counts as 0, as Flink
// reads it).
func timeOf(row []types.Value, c int) int64 {
	if row[c].IsNull() {
		return 0
	}
	return row[c].Timestamp().Millis
}

func (tj *temporal) leftRow(row *types.Row, out *stream.Output) error {
	kg, ok := tj.keyOf(&tj.spec.Left, row.Fields)
	if !ok {
		// A NULL key has no version.
		if tj.spec.Type == Left {
			tj.emit(out, row.Kind, row.Fields, nil)
		}
		return nil
	}
	t := timeOf(row.Fields, tj.spec.LeftTime)
	seq := uint64(0)
	old, had, err := tj.seq.Get(kg, tj.key)
	if err != nil {
		return err
	}
	if had && len(old) == 8 {
		seq = binary.BigEndian.Uint64(old)
	}
	tj.sub = binary.BigEndian.AppendUint64(tj.sub[:0], seq+1)
	if err := tj.seq.Put(kg, tj.key, tj.sub); err != nil {
		return err
	}
	tj.sub = binary.BigEndian.AppendUint64(tj.sub[:0], seq)
	tj.buf = binary.BigEndian.AppendUint64(tj.buf[:0], uint64(t))
	tj.buf = append(tj.buf, byte(row.Kind))
	tj.buf = state.AppendRow(tj.buf, row.Fields, tj.spec.Left.Types)
	if err := tj.left.Put(kg, tj.key, tj.sub, tj.buf); err != nil {
		return err
	}
	return tj.schedule(kg, t)
}

func (tj *temporal) rightRow(row *types.Row) error {
	if row.Kind == types.UpdateBefore {
		return nil // the version that replaces it follows
	}
	kg, ok := tj.keyOf(&tj.spec.Right, row.Fields)
	if !ok {
		return nil // no left row has a NULL key to match
	}
	t := timeOf(row.Fields, tj.spec.RightTime)
	tj.sub = state.AppendKeyValue(tj.sub[:0], types.Int64(t), types.BigInt())
	tj.buf = append(tj.buf[:0], byte(row.Kind))
	tj.buf = state.AppendRow(tj.buf, row.Fields, tj.spec.Right.Types)
	if err := tj.right.Put(kg, tj.key, tj.sub, tj.buf); err != nil {
		return err
	}
	return tj.schedule(kg, t)
}

// schedule makes sure the key (tj.key) is processed once the watermark
// reaches at.
func (tj *temporal) schedule(kg int, at int64) error {
	cur, ok, err := tj.timers.Get(kg, tj.key)
	if err != nil {
		return err
	}
	if ok && len(cur) == 8 && int64(binary.BigEndian.Uint64(cur)) <= at {
		return nil
	}
	return tj.setTimer(kg, tj.key, at)
}

func (tj *temporal) setTimer(kg int, key []byte, at int64) error {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(at))
	if err := tj.timers.Put(kg, key, b[:]); err != nil {
		return err
	}
	heap.Push(&tj.pending, timer{at: at, kg: kg, key: string(key)})
	return nil
}

func (tj *temporal) Watermark(wm int64, out *stream.Output) error {
	for len(tj.pending) > 0 && tj.pending[0].at <= wm {
		tm := heap.Pop(&tj.pending).(timer)
		tj.key = append(tj.key[:0], tm.key...)
		cur, ok, err := tj.timers.Get(tm.kg, tj.key)
		if err != nil {
			return err
		}
		if !ok || int64(binary.BigEndian.Uint64(cur)) != tm.at {
			continue // stale: the key's timer moved
		}
		if err := tj.fire(tm.kg, wm, out); err != nil {
			return fmt.Errorf("temporal join: key group %d: %w", tm.kg, err)
		}
	}
	return nil
}

// fire emits the key's left rows whose time the watermark reached, drops
// the versions before the one valid at the watermark, and sets the key's
// next timer.
func (tj *temporal) fire(kg int, wm int64, out *stream.Output) error {
	// The key's versions, in time order.
	tj.versions, tj.varena = tj.versions[:0], tj.varena[:0]
	var ferr error
	err := tj.right.RangeKey(kg, tj.key, func(sub, value []byte) bool {
		tv, _, err := state.ReadKeyValue(sub, types.BigInt())
		if err != nil || len(value) < 1 {
			ferr = fmt.Errorf("%w: a version", state.ErrCorrupt)
			return false
		}
		start := len(tj.varena)
		if tj.varena, _, err = state.ReadRow(value[1:], tj.spec.Right.Types, tj.varena); err != nil {
			ferr = err
			return false
		}
		k := types.RowKind(value[0])
		tj.versions = append(tj.versions, version{time: tv.Int64(), accumulate: isAccumulate(k),
			fields: [2]int{start, len(tj.varena)}, sub: append([]byte(nil), sub...)})
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	// The due left rows, in arrival order.
	tj.done, tj.lefts, tj.row = tj.done[:0], tj.lefts[:0], tj.row[:0]
	next := int64(-1)
	err = tj.left.RangeKey(kg, tj.key, func(sub, value []byte) bool {
		if len(value) < 9 {
			ferr = fmt.Errorf("%w: a waiting row", state.ErrCorrupt)
			return false
		}
		t := int64(binary.BigEndian.Uint64(value))
		if t > wm {
			if next < 0 || t < next {
				next = t
			}
			return true
		}
		start := len(tj.row)
		var err error
		if tj.row, _, err = state.ReadRow(value[9:], tj.spec.Left.Types, tj.row); err != nil {
			ferr = err
			return false
		}
		tj.lefts = append(tj.lefts, leftRow{kind: types.RowKind(value[8]), fields: [2]int{start, len(tj.row)}})
		tj.done = append(tj.done, append([]byte(nil), sub...))
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	for _, l := range tj.lefts {
		lr := tj.row[l.fields[0]:l.fields[1]:l.fields[1]]
		t := timeOf(lr, tj.spec.LeftTime)
		// The latest version at or before t.
		i := sort.Search(len(tj.versions), func(i int) bool { return tj.versions[i].time > t }) - 1
		matched := false
		if i >= 0 && tj.versions[i].accumulate {
			v := tj.versions[i]
			rr := tj.varena[v.fields[0]:v.fields[1]:v.fields[1]]
			ok, err := tj.matches(lr, rr)
			if err != nil {
				return err
			}
			if ok {
				tj.emit(out, l.kind, lr, rr)
				matched = true
			}
		}
		if !matched && tj.spec.Type == Left {
			tj.emit(out, l.kind, lr, nil)
		}
	}
	for _, sub := range tj.done {
		if err := tj.left.Delete(kg, tj.key, sub); err != nil {
			return err
		}
	}
	// Keep the version valid at the watermark and those after it.
	keep := sort.Search(len(tj.versions), func(i int) bool { return tj.versions[i].time > wm }) - 1
	for i := 0; i < keep; i++ {
		if err := tj.right.Delete(kg, tj.key, tj.versions[i].sub); err != nil {
			return err
		}
	}
	if next < 0 {
		if len(tj.done) > 0 {
			if err := tj.seq.Delete(kg, tj.key); err != nil {
				return err
			}
		}
		return tj.timers.Delete(kg, tj.key)
	}
	return tj.setTimer(kg, tj.key, next)
}
