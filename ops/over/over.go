// Package over holds the OVER aggregation operator (Flink's
// OverAggregate): agg(...) OVER (PARTITION BY ... ORDER BY time ROWS|RANGE
// BETWEEN ... PRECEDING AND CURRENT ROW), which appends to every input
// row the aggregates of the rows of its frame — the rows of its partition
// up to it, all of them (UNBOUNDED PRECEDING) or the last N rows (ROWS)
// or those within a time span before it (RANGE). Over an insert-only input
// the output inserts only; over an updating one (Spec.Updating, which
// Flink refuses) it is the changelog of the OVER of the input's current
// table (updating.go).
//
// Over event time a row is kept until the watermark reaches its time;
// then the rows of each partition are aggregated in time order: one at a
// time for ROWS (rows of equal time in arrival order), all rows of one
// time together for RANGE (they get the same aggregates). A row the
// operator can no longer order is late, dropped and counted
// (stream.Metrics.LateRows): for an unbounded frame one whose time is not
// after the watermark, for a bounded one a row not after the last time
// its partition aggregated (Flink's rules). Over processing time a row is
// aggregated when it arrives, except for RANGE frames, which aggregate
// the rows of one millisecond together when it has passed.
//
// The aggregate functions are package agg's; a bounded frame takes rows
// out again, so its MIN and MAX keep a count per value (the next extreme
// when the current one leaves), and FIRST_VALUE, LAST_VALUE and LISTAGG
// are refused there.
package over

import (
	"container/heap"
	"fmt"
	"slices"
	"time"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/internal/rowlist"
	"github.com/streamsql/streamsql/ops/internal/slab"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Frame is an OVER window's frame, which always ends at the current row.
type Frame struct {
	// Rows makes a ROWS frame (counted in rows); otherwise RANGE (a span
	// of the ORDER BY time).
	Rows bool
	// Unbounded starts the frame at the partition's first row (UNBOUNDED
	// PRECEDING).
	Unbounded bool
	// Rows frames: the number of rows before the current one (ROWS
	// BETWEEN n PRECEDING); RANGE frames: the span before the current
	// row's time (RANGE BETWEEN INTERVAL ... PRECEDING).
	PrecedingRows int64
	PrecedingTime time.Duration
}

// String returns the frame in SQL: "ROWS BETWEEN 2 PRECEDING AND CURRENT
// ROW".
func (f Frame) String() string {
	kind := "RANGE"
	if f.Rows {
		kind = "ROWS"
	}
	switch {
	case f.Unbounded:
		return kind + " BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
	case f.Rows:
		return fmt.Sprintf("ROWS BETWEEN %d PRECEDING AND CURRENT ROW", f.PrecedingRows)
	}
	return fmt.Sprintf("RANGE BETWEEN INTERVAL '%d' MILLISECOND PRECEDING AND CURRENT ROW", f.PrecedingTime.Milliseconds())
}

// Spec configures an OVER aggregation (New). Its input rows hold the
// partition's columns, the ORDER BY time (for event time) and the calls'
// argument and filter columns; its output rows are the input rows
// followed by the calls' results.
type Spec struct {
	// Types are the input row's column types.
	Types []types.Type
	// Partition are the PARTITION BY columns (nil: one partition, in one
	// task).
	Partition []int
	// Time is the ORDER BY column, a rowtime attribute (TIMESTAMP(3) or
	// TIMESTAMP_LTZ(3)); -1 orders by processing time.
	Time int
	// Frame is the window's frame.
	Frame Frame
	// Calls are the aggregate calls over the frame (ROW_NUMBER is COUNT(*)
	// over a ROWS frame).
	Calls []agg.Call
	// Updating takes an input that updates and deletes (a GROUP BY's, a
	// Top-N's, a join's), which Flink refuses: the operator orders each
	// partition's rows by column Order (any orderable type; Time must be
	// -1) and emits the changes of the results (see updating.go).
	Updating bool
	// Order is the ORDER BY column of an Updating operator.
	Order int
	// UpdateBefore makes an Updating operator emit UPDATE_BEFORE rows
	// (the old results of a row whose results changed) before the
	// UPDATE_AFTER ones; its consumer asks for them (a sink such as
	// blackhole does not).
	UpdateBefore bool
	// TTL forgets a partition's state not written for TTL
	// (table.exec.state.ttl); 0: never. As in Flink, rows that expire
	// while in a bounded frame are not taken out of its aggregates.
	TTL time.Duration
}

func (s *Spec) check() error {
	for _, c := range append(slices.Clone(s.Partition), s.Time) {
		if c >= len(s.Types) || c < -1 {
			return fmt.Errorf("over aggregate: the input has no column %d", c)
		}
	}
	if len(s.Calls) == 0 {
		return fmt.Errorf("over aggregate: no aggregate call")
	}
	bounded := !s.Frame.Unbounded
	for _, c := range s.Calls {
		if c.Arg >= len(s.Types) || c.Filter >= len(s.Types) {
			return fmt.Errorf("over aggregate: %s reads a column the input does not have", c)
		}
		if bounded && (c.Func == agg.FirstValue || c.Func == agg.LastValue || c.Func == agg.ListAgg) {
			return fmt.Errorf("over aggregate: %s over a bounded frame (%s) is not supported yet", c.Func, s.Frame)
		}
	}
	switch {
	case bounded && s.Frame.Rows && s.Frame.PrecedingRows < 0:
		return fmt.Errorf("over aggregate: a negative number of preceding rows")
	case bounded && !s.Frame.Rows && s.Frame.PrecedingTime < 0:
		return fmt.Errorf("over aggregate: a negative preceding span")
	}
	return nil
}

// New returns the factory of OVER aggregation operators of spec. Its
// input must be hashed by Spec.Partition (or gathered in one task without
// a partition) and insert only.
func New(spec Spec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		if err := spec.check(); err != nil {
			return nil, err
		}
		if spec.Updating {
			if err := spec.checkUpdating(); err != nil {
				return nil, err
			}
			return newUpdating(spec, task), nil
		}
		o := &overAgg{spec: spec, maxP: task.MaxParallelism, kgs: task.KeyGroups}
		if o.maxP <= 0 {
			o.maxP = state.DefaultMaxParallelism
		}
		if o.kgs.Len() == 0 {
			o.kgs = state.KeyGroupRange{Start: 0, End: o.maxP}
		}
		return o, nil
	}
}

type overAgg struct {
	stream.Base
	spec Spec
	maxP int
	kgs  state.KeyGroupRange
	ctx  *stream.Context

	accs *accs
	// rows holds a partition's rows by time (the rows of one time in
	// arrival order): those waiting to be aggregated, and a bounded
	// frame's rows that may still leave it. Rows that wait have no TTL:
	// only their aggregation removes them.
	rows state.MapTable
	// last holds the last time a partition aggregated and, for a ROWS
	// frame, the number of rows in its frame.
	last state.ValueTable
	// timers are (time, key group, partition) of the rows waiting:
	// event time fires at the watermark, processing-time RANGE frames
	// when the clock passed the time. A cleanup timer (a bounded RANGE
	// frame over event time) drops a partition's state once its last
	// rows left the frame. Rebuilt at Open.
	timers timerHeap

	partTypes []types.Type
	pkey, buf []byte
	row       []byte // a row's encoding, before it joins its list
	sub       []byte
	list      [][]byte
	slabs     slab.Slabs
	width     int
	span      int64 // PrecedingTime in milliseconds
}

// eventTime reports whether the operator orders by a rowtime.
func (o *overAgg) eventTime() bool { return o.spec.Time >= 0 }

// buffered reports whether rows wait in state before they are aggregated:
// over event time, and over processing time for RANGE frames.
func (o *overAgg) buffered() bool {
	return o.eventTime() || (!o.spec.Frame.Rows && !o.spec.Frame.Unbounded)
}

func (o *overAgg) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("over aggregate: the task has no keyed state")
	}
	o.ctx = ctx
	ttl := []state.TableOption{state.TTL(o.spec.TTL)}
	o.accs = newAccs(ctx.State, o.spec.Calls, !o.spec.Frame.Unbounded, ttl)
	rowOpts := ttl
	if o.eventTime() {
		rowOpts = nil
	}
	o.rows = ctx.State.Map("rows", rowOpts...)
	o.last = ctx.State.Value("last", ttl...)
	for _, c := range o.spec.Partition {
		o.partTypes = append(o.partTypes, o.spec.Types[c])
	}
	o.width = len(o.spec.Types) + len(o.spec.Calls)
	o.span = o.spec.Frame.PrecedingTime.Milliseconds()
	if !o.buffered() {
		return nil
	}
	return o.restoreTimers()
}

// restoreTimers schedules the rows that wait in the restored state.
func (o *overAgg) restoreTimers() error {
	for kg := o.kgs.Start; kg < o.kgs.End; kg++ {
		var keys [][]byte
		if err := o.rows.Keys(kg, func(k []byte) bool { keys = append(keys, slices.Clone(k)); return true }); err != nil {
			return err
		}
		for _, k := range keys {
			last, _, ok, err := o.lastOf(kg, k)
			if err != nil {
				return err
			}
			err = o.rows.RangeKey(kg, k, func(sub, _ []byte) bool {
				ts := rowlist.Time(sub)
				if !ok || ts > last {
					heap.Push(&o.timers, timer{at: ts, kg: kg, key: string(k)})
				}
				return true
			})
			if err != nil {
				return err
			}
			if ok && o.cleans() {
				heap.Push(&o.timers, timer{at: last + o.span + 1, kg: kg, key: string(k), cleanup: true})
			}
		}
	}
	if !o.eventTime() && len(o.timers) > 0 {
		o.ctx.SetProcessingTimer(o.timers[0].at + 1)
	}
	return nil
}

// cleans reports whether partitions get cleanup timers: a bounded RANGE
// frame over event time, whose rows leave the frame only when a later row
// of the partition comes (a partition that goes quiet would keep them).
func (o *overAgg) cleans() bool {
	return o.eventTime() && !o.spec.Frame.Rows && !o.spec.Frame.Unbounded
}

// Times are sub-keys of the rows table (rowlist.AppendTime), so that
// RangeKey returns them oldest first.

// lastOf reads a partition's last aggregated time and frame row count.
func (o *overAgg) lastOf(kg int, key []byte) (last, count int64, ok bool, err error) {
	v, ok, err := o.last.Get(kg, key)
	if err != nil || !ok {
		return 0, 0, false, err
	}
	f, _, err := state.ReadRow(v, lastTypes, nil)
	if err != nil {
		return 0, 0, false, fmt.Errorf("over aggregate: key group %d: %w", kg, err)
	}
	return f[0].Int64(), f[1].Int64(), true, nil
}

var lastTypes = []types.Type{types.BigInt(), types.BigInt()}

func (o *overAgg) setLast(kg int, key []byte, last, count int64) error {
	o.buf = state.AppendRow(o.buf[:0], []types.Value{types.Int64(last), types.Int64(count)}, lastTypes)
	return o.last.Put(kg, key, o.buf)
}

func (o *overAgg) Process(_ int, rows []types.Row, out *stream.Output) error {
	for i := range rows {
		r := &rows[i]
		if r.Kind != types.Insert {
			return fmt.Errorf("over aggregate: a %s row in an insert-only input", r.Kind)
		}
		o.pkey = state.AppendKey(o.pkey[:0], r.Fields, o.spec.Partition, o.partTypes)
		kg := state.KeyGroupOf(o.pkey, o.maxP)
		var err error
		switch {
		case o.eventTime():
			err = o.bufferRowtime(kg, r)
		case o.buffered():
			err = o.buffer(kg, r, o.ctx.Now())
		default:
			err = o.procTimeRow(kg, r, out)
		}
		if err != nil {
			return err
		}
	}
	if !o.eventTime() && len(o.timers) > 0 {
		o.ctx.SetProcessingTimer(o.timers[0].at + 1)
	}
	return nil
}

// bufferRowtime keeps a row until the watermark reaches its time, unless
// it is late.
func (o *overAgg) bufferRowtime(kg int, r *types.Row) error {
	tv := r.Fields[o.spec.Time]
	if tv.IsNull() {
		return nil // no time: it cannot be ordered (Flink fails on it)
	}
	ts := tv.Timestamp().Millis
	if o.spec.Frame.Unbounded {
		if wm := o.ctx.Watermark(); wm != stream.MinWatermark && ts <= wm {
			o.ctx.Metrics.LateRows.Add(1)
			return nil
		}
	} else {
		last, _, ok, err := o.lastOf(kg, o.pkey)
		if err != nil {
			return err
		}
		if ok && ts <= last {
			o.ctx.Metrics.LateRows.Add(1)
			return nil
		}
	}
	return o.buffer(kg, r, ts)
}

// buffer appends row r to its partition's rows of time ts and schedules
// the time when it is new.
func (o *overAgg) buffer(kg int, r *types.Row, ts int64) error {
	o.sub = rowlist.AppendTime(o.sub[:0], ts)
	old, ok, err := o.rows.Get(kg, o.pkey, o.sub)
	if err != nil {
		return err
	}
	o.buf = o.buf[:0]
	if ok {
		o.buf = append(o.buf, old...)
	} else {
		heap.Push(&o.timers, timer{at: ts, kg: kg, key: string(o.pkey)})
	}
	o.row = state.AppendRow(o.row[:0], r.Fields, o.spec.Types)
	o.buf = rowlist.Append(o.buf, o.row)
	return o.rows.Put(kg, o.pkey, o.sub, o.buf)
}

// A time's rows in the rows table are a rowlist list, in arrival order.

func (o *overAgg) Watermark(wm int64, out *stream.Output) error {
	if !o.eventTime() {
		return nil
	}
	return o.fire(wm, out)
}

func (o *overAgg) ProcessingTime(now int64, out *stream.Output) error {
	if o.eventTime() {
		return nil
	}
	// A millisecond's rows aggregate once it has passed.
	err := o.fire(now-1, out)
	if len(o.timers) > 0 {
		o.ctx.SetProcessingTimer(o.timers[0].at + 1)
	}
	return err
}

// fire aggregates the waiting rows of every time up to upTo, oldest first.
func (o *overAgg) fire(upTo int64, out *stream.Output) error {
	for len(o.timers) > 0 && o.timers[0].at <= upTo {
		tm := heap.Pop(&o.timers).(timer)
		key := []byte(tm.key)
		var err error
		if tm.cleanup {
			err = o.cleanup(tm, key)
		} else {
			err = o.aggregate(tm.kg, key, tm.at, out)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// cleanup drops a partition's state when no row came since the rows of
// its frame left it (the timer's time is past the last one's frame).
func (o *overAgg) cleanup(tm timer, key []byte) error {
	last, _, ok, err := o.lastOf(tm.kg, key)
	if err != nil || !ok || last+o.span+1 > tm.at {
		return err // a later row moved the partition's cleanup on
	}
	pending := false
	err = o.rows.RangeKey(tm.kg, key, func(sub, _ []byte) bool {
		pending = rowlist.Time(sub) > last
		return !pending
	})
	if err != nil || pending {
		return err
	}
	if err := o.accs.load(tm.kg, key); err != nil {
		return err
	}
	if err := o.accs.clear(); err != nil {
		return err
	}
	if err := o.rows.DeleteKey(tm.kg, key); err != nil {
		return err
	}
	return o.last.Delete(tm.kg, key)
}

// aggregate aggregates a partition's rows of time ts.
func (o *overAgg) aggregate(kg int, key []byte, ts int64, out *stream.Output) error {
	o.sub = rowlist.AppendTime(o.sub[:0], ts)
	v, ok, err := o.rows.Get(kg, key, o.sub)
	if err != nil || !ok {
		return err
	}
	// The rows outlive the table's next call.
	if o.list, err = rowlist.Rows(slices.Clone(v), o.list[:0]); err != nil {
		return fmt.Errorf("over aggregate: key group %d: %w", kg, err)
	}
	rows := o.list
	if err := o.accs.load(kg, key); err != nil {
		return err
	}
	_, count, _, err := o.lastOf(kg, key)
	if err != nil {
		return err
	}
	switch {
	case o.spec.Frame.Unbounded:
		if err := o.rows.Delete(kg, key, o.sub); err != nil {
			return err
		}
	case !o.spec.Frame.Rows:
		// RANGE: the rows older than the span leave the frame first.
		if err := o.retractOlder(kg, key, ts-o.span); err != nil {
			return err
		}
	}
	if o.spec.Frame.Rows {
		for _, enc := range rows {
			f, err := o.decode(enc)
			if err != nil {
				return err
			}
			if !o.spec.Frame.Unbounded {
				if count > o.spec.Frame.PrecedingRows {
					if err := o.retractOldest(kg, key); err != nil {
						return err
					}
				} else {
					count++
				}
			}
			if err := o.accs.apply(f, false); err != nil {
				return err
			}
			if err := o.emit(out, f); err != nil {
				return err
			}
		}
	} else {
		fields := make([][]types.Value, len(rows))
		for i, enc := range rows {
			if fields[i], err = o.decode(enc); err != nil {
				return err
			}
			if err := o.accs.apply(fields[i], false); err != nil {
				return err
			}
		}
		for _, f := range fields {
			if err := o.emit(out, f); err != nil {
				return err
			}
		}
	}
	if err := o.accs.store(); err != nil {
		return err
	}
	if err := o.setLast(kg, key, ts, count); err != nil {
		return err
	}
	if o.cleans() {
		heap.Push(&o.timers, timer{at: ts + o.span + 1, kg: kg, key: string(key), cleanup: true})
	}
	return nil
}

// retractOlder takes the partition's aggregated rows older than limit out
// of the frame and out of state.
func (o *overAgg) retractOlder(kg int, key []byte, limit int64) error {
	var subs [][]byte
	var lists [][]byte
	err := o.rows.RangeKey(kg, key, func(sub, val []byte) bool {
		if rowlist.Time(sub) >= limit {
			return false
		}
		subs, lists = append(subs, slices.Clone(sub)), append(lists, slices.Clone(val))
		return true
	})
	if err != nil {
		return err
	}
	for i, sub := range subs {
		rows, err := rowlist.Rows(lists[i], nil)
		if err != nil {
			return fmt.Errorf("over aggregate: key group %d: %w", kg, err)
		}
		for _, enc := range rows {
			f, err := o.decode(enc)
			if err != nil {
				return err
			}
			if err := o.accs.apply(f, true); err != nil {
				return err
			}
		}
		if err := o.rows.Delete(kg, key, sub); err != nil {
			return err
		}
	}
	return nil
}

// retractOldest takes the partition's oldest row out of a ROWS frame.
func (o *overAgg) retractOldest(kg int, key []byte) error {
	var sub, val []byte
	err := o.rows.RangeKey(kg, key, func(s, v []byte) bool {
		sub, val = slices.Clone(s), slices.Clone(v)
		return false
	})
	if err != nil || sub == nil {
		return err
	}
	rows, err := rowlist.Rows(val, nil)
	if err != nil {
		return fmt.Errorf("over aggregate: key group %d: %w", kg, err)
	}
	f, err := o.decode(rows[0])
	if err != nil {
		return err
	}
	if err := o.accs.apply(f, true); err != nil {
		return err
	}
	if len(rows) == 1 {
		return o.rows.Delete(kg, key, sub)
	}
	o.buf = o.buf[:0]
	for _, r := range rows[1:] {
		o.buf = rowlist.Append(o.buf, r)
	}
	return o.rows.Put(kg, key, sub, o.buf)
}

// procTimeRow aggregates a row at once: processing time, a ROWS frame or
// an unbounded one.
func (o *overAgg) procTimeRow(kg int, r *types.Row, out *stream.Output) error {
	if err := o.accs.load(kg, o.pkey); err != nil {
		return err
	}
	_, count, _, err := o.lastOf(kg, o.pkey)
	if err != nil {
		return err
	}
	if !o.spec.Frame.Unbounded {
		if count > o.spec.Frame.PrecedingRows {
			if err := o.retractOldest(kg, o.pkey); err != nil {
				return err
			}
		} else {
			count++
		}
		now := o.ctx.Now()
		o.sub = rowlist.AppendTime(o.sub[:0], now)
		old, ok, err := o.rows.Get(kg, o.pkey, o.sub)
		if err != nil {
			return err
		}
		o.buf = o.buf[:0]
		if ok {
			o.buf = append(o.buf, old...)
		}
		o.row = state.AppendRow(o.row[:0], r.Fields, o.spec.Types)
		o.buf = rowlist.Append(o.buf, o.row)
		if err := o.rows.Put(kg, o.pkey, o.sub, o.buf); err != nil {
			return err
		}
	}
	f := append(o.fields(), r.Fields...)
	if err := o.accs.apply(f, false); err != nil {
		return err
	}
	if err := o.emit(out, f); err != nil {
		return err
	}
	if err := o.accs.store(); err != nil {
		return err
	}
	if o.spec.Frame.Unbounded {
		return nil
	}
	return o.setLast(kg, o.pkey, 0, count)
}

func (o *overAgg) decode(enc []byte) ([]types.Value, error) {
	f, _, err := state.ReadRow(enc, o.spec.Types, o.fields())
	if err != nil {
		return nil, fmt.Errorf("over aggregate: %w", err)
	}
	return f, nil
}

// fields returns an empty slice with room for an output row (the input's
// columns, then the results) from a slab shared by a few output rows,
// never reused: the rows go downstream.
func (o *overAgg) fields() []types.Value { return o.slabs.Take(o.width)[:0] }

// emit emits row (the input's columns, in fields from o.fields) with the
// current results.
func (o *overAgg) emit(out *stream.Output, row []types.Value) error {
	res, err := o.accs.results()
	if err != nil {
		return err
	}
	out.Emit(types.Row{Kind: types.Insert, Fields: append(row, res...)})
	return nil
}

// timer is a partition's timer.
type timer struct {
	at      int64
	kg      int
	key     string
	cleanup bool
}

// timerHeap is a min-heap of timers by time (cleanup timers after the
// others of their time).
type timerHeap []timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return !h[i].cleanup && h[j].cleanup
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
