package rank

import (
	"container/heap"
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/ops/internal/slab"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// NewDeduplicate returns the factory of deduplication operators of spec
// (Flink's Deduplicate). Its input must be hashed by Spec.Partition and
// insert only.
//
//   - Keep the first row over processing time: a partition's first row is
//     emitted as an insert, later ones dropped (Flink's
//     ProcTimeDeduplicateKeepFirstRowFunction).
//   - Keep the first row over event time: the earliest row of a partition
//     is emitted as an insert once the watermark reaches its time, later
//     ones dropped; a row behind the watermark is late, dropped and
//     counted (RowTimeDeduplicateKeepFirstRowFunction).
//   - Keep the last row over processing time: each row replaces the
//     partition's row, emitted as an update (an insert for the first), a
//     row equal to the one it replaces emits nothing unless a TTL is set
//     (ProcTimeDeduplicateKeepLastRowFunction).
//   - Keep the last row over event time: a row whose time is not before
//     the partition's row's replaces it, emitted as an update at once
//     (RowTimeDeduplicateFunction).
func NewDeduplicate(spec DedupSpec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		if err := checkCols("deduplicate", spec.Types, spec.Partition); err != nil {
			return nil, err
		}
		if spec.Time >= 0 {
			if err := checkCols("deduplicate", spec.Types, []int{spec.Time}); err != nil {
				return nil, err
			}
		}
		d := &dedup{spec: spec, maxP: task.MaxParallelism, kgs: task.KeyGroups}
		if d.maxP <= 0 {
			d.maxP = state.DefaultMaxParallelism
		}
		if d.kgs.Len() == 0 {
			d.kgs = state.KeyGroupRange{Start: 0, End: d.maxP}
		}
		return d, nil
	}
}

type dedup struct {
	stream.Base
	spec DedupSpec
	maxP int
	kgs  state.KeyGroupRange
	ctx  *stream.Context

	// rows holds each partition's kept row (keep last), or its first row
	// waiting for the watermark (keep first on event time); seen marks
	// the partitions whose first row was emitted (keep first).
	rows, seen state.ValueTable
	// timeOnly says that rows holds only the kept row's time (keep last
	// on event time, no UPDATE_BEFORE: the kept row is never emitted
	// again, only its time compared); wholeRows is then the table of
	// whole rows of a restored checkpoint (a version before the time-only
	// layout, or a job whose consumer needed UPDATE_BEFORE), read once per
	// partition when legacy says it holds state.
	timeOnly, legacy bool
	wholeRows        state.ValueTable
	// timers holds (time, key group, partition) of the rows waiting in
	// rows (keep first on event time), earliest first; rebuilt at Open.
	timers timerHeap

	partTypes []types.Type
	pkey, buf []byte
	slabs     slab.Slabs // output rows' fields (fields)
}

func (d *dedup) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("deduplicate: the task has no keyed state")
	}
	d.ctx = ctx
	for _, c := range d.spec.Partition {
		d.partTypes = append(d.partTypes, d.spec.Types[c])
	}
	ttl := state.TTL(d.spec.TTL)
	switch {
	case d.spec.KeepLast && d.spec.Time >= 0 && !d.spec.UpdateBefore:
		// Another table than the one of whole rows, so that the two
		// layouts never read each other's state.
		d.timeOnly = true
		d.rows = ctx.State.Value("row-time", ttl)
		d.wholeRows = ctx.State.Value("row", ttl)
		found, err := holdsState(ctx, func(kg int, fn func([]byte) bool) error {
			return d.wholeRows.Range(kg, func(k, _ []byte) bool { return fn(k) })
		})
		if err != nil {
			return fmt.Errorf("deduplicate: %w", err)
		}
		d.legacy = found
	case d.spec.KeepLast:
		d.rows = ctx.State.Value("row", ttl)
		if d.spec.Time >= 0 {
			if err := refuseTimeOnlyState(ctx, ctx.State.Value("row-time", ttl)); err != nil {
				return err
			}
		}
	case d.spec.Time < 0:
		d.seen = ctx.State.Value("seen", ttl)
	default:
		// The waiting rows have no TTL: the watermark clears them (as in
		// Flink, whose TTL there would lose rows).
		d.rows = ctx.State.Value("first")
		d.seen = ctx.State.Value("seen", ttl)
		return d.restoreTimers()
	}
	return nil
}

// restoreTimers rebuilds the timers of the rows waiting for the watermark.
func (d *dedup) restoreTimers() error {
	for kg := d.kgs.Start; kg < d.kgs.End; kg++ {
		var ferr error
		err := d.rows.Range(kg, func(key, val []byte) bool {
			var ts int64
			if ts, ferr = d.rowtimeOf(val); ferr != nil {
				return false
			}
			heap.Push(&d.timers, timer{at: ts, kg: kg, key: string(key)})
			return true
		})
		if err == nil {
			err = ferr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rowtimeOf decodes an encoded row's time.
func (d *dedup) rowtimeOf(enc []byte) (int64, error) {
	f, _, err := state.ReadRow(enc, d.spec.Types, nil)
	if err != nil {
		return 0, fmt.Errorf("deduplicate: %w", err)
	}
	return f[d.spec.Time].Timestamp().Millis, nil
}

func (d *dedup) Process(_ int, rows []types.Row, out *stream.Output) error {
	for i := range rows {
		r := &rows[i]
		if r.Kind != types.Insert {
			return fmt.Errorf("deduplicate: a %s row in an insert-only input", r.Kind)
		}
		d.pkey = state.AppendKey(d.pkey[:0], r.Fields, d.spec.Partition, d.partTypes)
		kg := state.KeyGroupOf(d.pkey, d.maxP)
		var err error
		switch {
		case d.spec.KeepLast:
			err = d.keepLast(kg, r, out)
		case d.spec.Time < 0:
			err = d.firstOnProcTime(kg, r, out)
		default:
			err = d.firstOnRowTime(kg, r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *dedup) firstOnProcTime(kg int, r *types.Row, out *stream.Output) error {
	if _, ok, err := d.seen.Get(kg, d.pkey); err != nil || ok {
		return err
	}
	if err := d.seen.Put(kg, d.pkey, nil); err != nil {
		return err
	}
	out.Emit(types.Row{Kind: types.Insert, Fields: d.output(r.Fields)})
	return nil
}

func (d *dedup) firstOnRowTime(kg int, r *types.Row) error {
	tv := r.Fields[d.spec.Time]
	if tv.IsNull() {
		return nil // no time: it cannot be ordered (Flink fails on it)
	}
	ts := tv.Timestamp().Millis
	if wm := d.ctx.Watermark(); wm != stream.MinWatermark && ts < wm {
		d.ctx.Metrics.LateRows.Add(1)
		return nil
	}
	if _, ok, err := d.seen.Get(kg, d.pkey); err != nil || ok {
		return err // emitted already: nothing can change it
	}
	prev, ok, err := d.rows.Get(kg, d.pkey)
	if err != nil {
		return err
	}
	if ok {
		pt, err := d.rowtimeOf(prev)
		if err != nil {
			return err
		}
		if ts >= pt {
			return nil // not earlier than the waiting row
		}
	}
	d.buf = state.AppendRow(d.buf[:0], r.Fields, d.spec.Types)
	if err := d.rows.Put(kg, d.pkey, d.buf); err != nil {
		return err
	}
	heap.Push(&d.timers, timer{at: ts, kg: kg, key: string(d.pkey)})
	return nil
}

// keepLastTime is keepLast when only the kept row's time is kept
// (timeOnly): a row not earlier than it replaces it, emitted as an insert
// for the partition's first row and as an UPDATE_AFTER for the others.
// Nexmark q18 (the last bid per bidder and auction) so keeps 14 bytes of
// state per partition instead of a bid row of ~155.
func (d *dedup) keepLastTime(kg int, r *types.Row, out *stream.Output) error {
	tv := r.Fields[d.spec.Time]
	if tv.IsNull() {
		return nil
	}
	ts := tv.Timestamp().Millis
	prev, had, err := d.rows.Get(kg, d.pkey)
	if err != nil {
		return err
	}
	if !had && d.legacy {
		if prev, had, err = d.restoredTime(kg); err != nil {
			return err
		}
	}
	if had {
		pt, n := binary.Varint(prev)
		if n <= 0 || n != len(prev) {
			return fmt.Errorf("deduplicate: key group %d: %w: a kept row's time", kg, state.ErrCorrupt)
		}
		if ts < pt {
			return nil // earlier than the kept row
		}
	}
	d.buf = binary.AppendVarint(d.buf[:0], ts)
	if err := d.rows.Put(kg, d.pkey, d.buf); err != nil {
		return err
	}
	kind := types.UpdateAfter
	if !had {
		kind = types.Insert
	}
	out.Emit(types.Row{Kind: kind, Fields: d.output(r.Fields)})
	return nil
}

// restoredTime returns the time of the partition's row from the whole-row
// table of a restored checkpoint (timeOnly), moving it to the time-only
// table.
func (d *dedup) restoredTime(kg int) ([]byte, bool, error) {
	row, ok, err := d.wholeRows.Get(kg, d.pkey)
	if err != nil || !ok {
		return nil, false, err
	}
	pt, err := state.ReadRowField(row, d.spec.Types, d.spec.Time)
	if err != nil {
		return nil, false, fmt.Errorf("deduplicate: key group %d: %w", kg, err)
	}
	d.buf = binary.AppendVarint(d.buf[:0], pt.Timestamp().Millis)
	if err := d.rows.Put(kg, d.pkey, d.buf); err != nil {
		return nil, false, err
	}
	if err := d.wholeRows.Delete(kg, d.pkey); err != nil {
		return nil, false, err
	}
	return d.buf, true, nil
}

// refuseTimeOnlyState fails when the restored state holds the kept rows'
// times only (the job's consumer needed no UPDATE_BEFORE): a
// deduplication that must retract each partition's row cannot get the
// rows back.
func refuseTimeOnlyState(ctx *stream.Context, times state.ValueTable) error {
	found, err := holdsState(ctx, func(kg int, fn func([]byte) bool) error {
		return times.Range(kg, func(k, _ []byte) bool { return fn(k) })
	})
	if err != nil {
		return fmt.Errorf("deduplicate: %w", err)
	}
	if found {
		return fmt.Errorf("deduplicate: the checkpoint holds the kept rows' times only (its sink needed no UPDATE_BEFORE rows), " +
			"and the job now needs whole rows to retract (a sink that takes UPDATE_BEFORE): it cannot be restored from this checkpoint; " +
			"start it without the checkpoint, or keep a sink that needs no UPDATE_BEFORE")
	}
	return nil
}

func (d *dedup) keepLast(kg int, r *types.Row, out *stream.Output) error {
	if d.timeOnly {
		return d.keepLastTime(kg, r, out)
	}
	var ts int64
	if d.spec.Time >= 0 {
		tv := r.Fields[d.spec.Time]
		if tv.IsNull() {
			return nil
		}
		ts = tv.Timestamp().Millis
	}
	prev, had, err := d.rows.Get(kg, d.pkey)
	if err != nil {
		return err
	}
	var prevFields []types.Value
	switch {
	case had && d.spec.UpdateBefore:
		if prevFields, _, err = state.ReadRow(prev, d.spec.Types, d.fields()); err != nil {
			return fmt.Errorf("deduplicate: key group %d: %w", kg, err)
		}
		if d.spec.Time >= 0 && ts < prevFields[d.spec.Time].Timestamp().Millis {
			return nil // earlier than the kept row
		}
	case had && d.spec.Time >= 0:
		// Only the kept row's time is needed: no UPDATE_BEFORE of it.
		pt, err := state.ReadRowField(prev, d.spec.Types, d.spec.Time)
		if err != nil {
			return fmt.Errorf("deduplicate: key group %d: %w", kg, err)
		}
		if ts < pt.Timestamp().Millis {
			return nil // earlier than the kept row
		}
	}
	d.buf = state.AppendRow(d.buf[:0], r.Fields, d.spec.Types)
	if had && d.spec.Time < 0 && d.spec.TTL == 0 && string(d.buf) == string(prev) {
		return nil // the same row again (Flink's processing-time shortcut)
	}
	if err := d.rows.Put(kg, d.pkey, d.buf); err != nil {
		return err
	}
	if !had {
		out.Emit(types.Row{Kind: types.Insert, Fields: d.output(r.Fields)})
		return nil
	}
	if d.spec.UpdateBefore {
		// prevFields is a slice of fields' own, with room for the rank.
		if d.spec.OutputRank {
			prevFields = append(prevFields, types.Int64(1))
		}
		out.Emit(types.Row{Kind: types.UpdateBefore, Fields: prevFields})
	}
	out.Emit(types.Row{Kind: types.UpdateAfter, Fields: d.output(r.Fields)})
	return nil
}

// fields returns an empty slice with room for a row and its rank, from a
// slab shared by a few rows (slabs: an emitted row keeps its slice unless
// nothing after the operator keeps a row).
func (d *dedup) fields() []types.Value {
	return d.slabs.Take(len(d.spec.Types) + 1)[:0]
}

// ForgetsInput implements stream.InputForgetter: a row's values are
// encoded into the state or copied into the operator's own output rows.
func (d *dedup) ForgetsInput() bool { return true }

// ReuseOutput implements stream.OutputReuser: the rows emitted are cut
// from slabs that are the operator's again at each release.
func (d *dedup) ReuseOutput() (release func()) {
	d.slabs.Reuse()
	return d.slabs.Release
}

// Watermark emits the waiting first rows whose time the watermark
// reached (keep first on event time).
func (d *dedup) Watermark(wm int64, out *stream.Output) error {
	if d.spec.KeepLast || d.spec.Time < 0 {
		return nil
	}
	for len(d.timers) > 0 && d.timers[0].at <= wm {
		tm := heap.Pop(&d.timers).(timer)
		key := []byte(tm.key)
		val, ok, err := d.rows.Get(tm.kg, key)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		f, _, err := state.ReadRow(val, d.spec.Types, nil)
		if err != nil {
			return fmt.Errorf("deduplicate: key group %d: %w", tm.kg, err)
		}
		if f[d.spec.Time].Timestamp().Millis != tm.at {
			continue // replaced by an earlier row, which has its own timer
		}
		if err := d.rows.Delete(tm.kg, key); err != nil {
			return err
		}
		if err := d.seen.Put(tm.kg, key, nil); err != nil {
			return err
		}
		out.Emit(types.Row{Kind: types.Insert, Fields: d.output(f)})
	}
	return nil
}

// output returns an output row's fields: a copy of f, with the row
// number 1 when the spec outputs it.
func (d *dedup) output(f []types.Value) []types.Value {
	out := append(d.fields(), f...)
	if d.spec.OutputRank {
		out = append(out, types.Int64(1))
	}
	return out
}

// timer is an event-time timer of a partition.
type timer struct {
	at  int64
	kg  int
	key string
}

// timerHeap is a min-heap of timers by time.
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
