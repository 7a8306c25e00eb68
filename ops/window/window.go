package window

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// New returns the factory of window aggregation operators of spec. Its
// input must be hashed by Spec.Keys (or gathered in one task without
// keys).
//
// A row belongs to the windows its time falls in ([start, end)); a window
// fires when the watermark reaches end-1 (event time) or the clock reaches
// end (processing time): its keys' results are emitted as inserts and its
// state dropped. A row whose first window (TUMBLE: its window; HOP and
// CUMULATE: the slice of Slide it falls in, as Flink's slicing does;
// SESSION: the session it would open) has fired is late: it is dropped
// and counted in stream.Metrics.LateRows.
func New(spec Spec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		if err := spec.check(); err != nil {
			return nil, err
		}
		w := &windowAgg{spec: spec, maxP: task.MaxParallelism, kgs: task.KeyGroups}
		if w.maxP <= 0 {
			w.maxP = state.DefaultMaxParallelism
		}
		if w.kgs.Len() == 0 {
			w.kgs = state.KeyGroupRange{Start: 0, End: w.maxP}
		}
		return w, nil
	}
}

func (s *Spec) check() error {
	ms := func(d time.Duration) int64 { return d.Milliseconds() }
	switch {
	case len(s.Keys) != len(s.KeyTypes):
		return fmt.Errorf("window aggregate: %d key columns but %d key types", len(s.Keys), len(s.KeyTypes))
	case s.Kind == Session && ms(s.Gap) <= 0:
		return fmt.Errorf("window aggregate: SESSION needs a positive gap")
	case s.Kind != Session && ms(s.Size) <= 0:
		return fmt.Errorf("window aggregate: %s needs a positive size", s.Kind)
	case (s.Kind == Hop || s.Kind == Cumulate) && (ms(s.Slide) <= 0 || ms(s.Size)%ms(s.Slide) != 0):
		return fmt.Errorf("window aggregate: the size of %s (%s) must be a positive whole multiple of its slide (%s)", s.Kind, s.Size, s.Slide)
	case s.Attached && (s.Kind == Session || s.Time < 0):
		return fmt.Errorf("window aggregate: only event-time TUMBLE, HOP and CUMULATE windows can be attached to their input's window_end")
	}
	return nil
}

type windowAgg struct {
	stream.Base
	spec Spec
	maxP int
	kgs  state.KeyGroupRange
	ctx  *stream.Context

	size, slide, gap, offset int64 // milliseconds
	ltz                      bool  // TIMESTAMP_LTZ time attribute aligned in spec.Location

	// windows maps (slice end, key) to the key's accumulators of the rows
	// of that slice; pending holds the ends of the windows that hold a
	// slice with state, smallest first (rebuilt from the state at Open).
	// A slice is a window of TUMBLE and of an attached window; HOP and
	// CUMULATE windows are cut into slices of Slide, as Flink's slicing
	// windows are, and a row updates its one slice's accumulators: a
	// window's result merges its slices' when it fires (see slicing.go).
	windows state.MapTable
	pending endHeap
	inHeap  map[int64]bool
	sliced  bool
	// live holds the ends of the slices with state (sliced only); last
	// is the slice the previous row went to.
	live map[int64]bool
	last int64
	// legacy maps (window end, key) to the accumulators of a HOP or
	// CUMULATE window in a checkpoint of a version before slicing (the
	// "windows" table then held whole windows); legacyEnds are its
	// windows. They fire merged with the slices' rows after the restore.
	legacy     state.MapTable
	legacyEnds map[int64]bool
	// marks keeps, per key group, the end of the last window that fired
	// (sliced only): a slice outlives the first windows it is in, and a
	// restored one must not fire those again. marked holds the restored
	// marks (by key group less kgs.Start; nil: none), lastFired the end
	// of the last window the task fired, savedFired the one last written.
	marks                 state.ValueTable
	marked                []int64
	lastFired, savedFired int64
	// buf combines rows per (slice, key) before they reach the state (nil
	// for calls whose accumulators grow with the rows: LISTAGG,
	// ARRAY_AGG, JSON_ARRAYAGG, JSON_OBJECTAGG).
	buf *buffer
	// merge holds the entries of a key group's slices while a window of
	// several slices fires (see fireMerged).
	merge []mergeEntry
	arena []byte
	// sessions maps (key, session start) to the session's end and
	// accumulators; timers holds (end, key group, key) of sessions,
	// smallest end first; an entry whose session changed is skipped.
	sessions state.MapTable
	timers   sessionHeap
	// cache keeps recent keys' sessions decoded in front of sessions (nil
	// for calls whose accumulators grow with the rows); merged is scratch.
	cache  *sessionCache
	merged []cachedSession

	// distinct holds, for each DISTINCT call (nil for the others), the
	// values its windows' keys have seen: (window end, key ‖ value) →
	// present. With DISTINCT calls HOP and CUMULATE windows are not
	// sliced (a value seen in two slices of a window counts once): a row
	// goes to each of its windows (ends), as TUMBLE's to its one.
	distinct []state.MapTable
	skip     []bool
	ends     []int64
	sub      []byte

	acc, other   *agg.Accumulators
	key, k8, enc []byte
	width        int
}

// openDistinct opens the DISTINCT calls' tables of seen values.
func (w *windowAgg) openDistinct(ctx *stream.Context) {
	if !w.spec.hasDistinct() {
		return
	}
	w.distinct = make([]state.MapTable, len(w.spec.Calls))
	w.skip = make([]bool, len(w.spec.Calls))
	for k, c := range w.spec.Calls {
		if c.Distinct {
			w.distinct[k] = ctx.State.Map(fmt.Sprintf("distinct%d", k))
		}
	}
}

// hasDistinct reports whether a call aggregates DISTINCT values.
func (s *Spec) hasDistinct() bool {
	for _, c := range s.Calls {
		if c.Distinct {
			return true
		}
	}
	return false
}

func (w *windowAgg) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("window aggregate: the task has no keyed state")
	}
	w.ctx = ctx
	w.size, w.slide, w.gap, w.offset = w.spec.Size.Milliseconds(), w.spec.Slide.Milliseconds(), w.spec.Gap.Milliseconds(), w.spec.Offset.Milliseconds()
	w.ltz = w.spec.TimeType.Kind == types.KindTimestampLTZ && w.spec.Location != nil
	w.acc, w.other = agg.NewAccumulators(w.spec.Calls), agg.NewAccumulators(w.spec.Calls)
	w.width = len(w.spec.Keys) + len(w.spec.Calls) + 3
	w.openDistinct(ctx)
	if w.spec.Kind == Session {
		w.sessions = ctx.State.Map("sessions")
		if w.bufferable() && w.distinct == nil {
			w.cache = newSessionCache(w.acc)
		}
		return w.restoreSessions()
	}
	w.inHeap = map[int64]bool{}
	w.last = math.MinInt64
	w.lastFired, w.savedFired = math.MinInt64, math.MinInt64
	w.sliced = (w.spec.Kind == Hop || w.spec.Kind == Cumulate) && !w.spec.Attached && w.slide != w.size && !w.spec.hasDistinct()
	if w.bufferable() {
		w.buf = newBuffer(w.acc)
	}
	if !w.sliced {
		w.windows = ctx.State.Map("windows")
		if err := w.eachStateKey(w.windows, w.schedule); err != nil {
			return err
		}
	} else if err := w.openSlices(ctx); err != nil {
		return err
	}
	if w.spec.Time < 0 && len(w.pending) > 0 {
		ctx.SetProcessingTimer(w.pending[0])
	}
	return nil
}

// bufferable reports whether rows may be combined in memory: not for
// calls whose accumulators grow with the rows (they would escape the
// state's memory limit).
func (w *windowAgg) bufferable() bool {
	for _, c := range w.spec.Calls {
		switch c.Func {
		case agg.ListAgg, agg.ArrayAgg, agg.JSONArrayAgg, agg.JSONObjectAgg, agg.SingleValue:
			return false
		}
	}
	return true
}

// eachStateKey calls fn with the end (the 8-byte key) of every window or
// slice of table m in the task's key groups.
func (w *windowAgg) eachStateKey(m state.MapTable, fn func(end int64)) error {
	for kg := w.kgs.Start; kg < w.kgs.End; kg++ {
		err := m.Keys(kg, func(k []byte) bool {
			fn(int64(binary.BigEndian.Uint64(k)))
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// schedule notes that the window ending at end has state.
func (w *windowAgg) schedule(end int64) {
	if !w.inHeap[end] {
		w.inHeap[end] = true
		heap.Push(&w.pending, end)
	}
}

// timeOf returns the row's time in the window's time space: the event
// time's milliseconds (a TIMESTAMP's local date-time read as UTC; a
// TIMESTAMP_LTZ instant shifted to the session time zone's wall clock), or
// the clock for processing time.
func (w *windowAgg) timeOf(r *types.Row) (int64, bool) {
	if w.spec.Time < 0 {
		return w.local(w.ctx.Now()), true
	}
	v := r.Fields[w.spec.Time]
	if v.IsNull() {
		return 0, false
	}
	if w.spec.Attached {
		return v.Timestamp().Millis, true // window_end is in the windows' time already
	}
	return w.local(v.Timestamp().Millis), true
}

// local shifts an instant to the wall clock windows are aligned on;
// instant undoes it (Spec.Local, Spec.Instant).
func (w *windowAgg) local(ms int64) int64 { return w.spec.Local(ms) }

func (w *windowAgg) instant(local int64) int64 { return w.spec.Instant(local) }

// fired reports whether a window ending at end (local time) has fired.
func (w *windowAgg) fired(end int64) bool {
	if w.spec.Time < 0 {
		return false // processing time: a row goes to the windows of its arrival
	}
	wm := w.ctx.Watermark()
	return wm != stream.MinWatermark && w.instant(end)-1 <= wm
}

// start returns the start of the window (not SESSION) ending at end.
func (w *windowAgg) start(end int64) int64 { return w.spec.Start(end) }

func (w *windowAgg) Process(_ int, rows []types.Row, out *stream.Output) error {
	for i := range rows {
		r := &rows[i]
		if r.Kind != types.Insert && r.Kind != types.UpdateAfter {
			return fmt.Errorf("window aggregate: a %s row in an insert-only input", r.Kind)
		}
		t, ok := w.timeOf(r)
		if !ok {
			continue // no time: no window (Flink drops such rows too)
		}
		w.key = state.AppendKey(w.key[:0], r.Fields, w.spec.Keys, w.spec.KeyTypes)
		h := state.Hash(w.key)
		kg := state.KeyGroupOfHash(h, w.maxP)
		var err error
		if w.cache != nil {
			err = w.sessionCached(kg, h, r, t)
		} else if w.spec.Kind == Session {
			err = w.session(kg, r, t)
		} else {
			err = w.add(kg, h, r, t)
		}
		if err != nil {
			return err
		}
	}
	if w.spec.Time < 0 {
		w.armTimer()
	}
	return nil
}

// add adds row r (time t) to its slice; with an attached window, t is
// the end of the row's one window.
func (w *windowAgg) add(kg int, h uint64, r *types.Row, t int64) error {
	slice := t
	if !w.spec.Attached {
		slice = w.sliceEnd(t)
	}
	if w.fired(slice) {
		w.ctx.Metrics.LateRows.Add(1)
		return nil
	}
	if w.distinct != nil && !w.spec.Attached && w.spec.Kind != Tumble {
		// Unsliced HOP or CUMULATE: the row goes to each of its
		// windows. The first of them ends with its first slice (not
		// fired: checked above).
		w.ends, _ = w.spec.Ends(w.ends[:0], t)
		for _, end := range w.ends {
			if err := w.addTo(kg, h, r, end); err != nil {
				return err
			}
		}
		return nil
	}
	return w.addTo(kg, h, r, slice)
}

// addTo adds row r to the slice (or unsliced window) ending at slice.
func (w *windowAgg) addTo(kg int, h uint64, r *types.Row, slice int64) error {
	skip, err := w.seen(kg, slice, r.Fields)
	if err != nil {
		return err
	}
	if slice != w.last {
		w.addSlice(slice)
	}
	if w.buf != nil {
		if w.buf.full() {
			if err := w.flush(); err != nil {
				return err
			}
		}
		if err := w.buf.entry(slice, h, kg, w.key).Apply(r.Fields, false, skip); err != nil {
			return fmt.Errorf("window aggregate: %w", err)
		}
		return nil
	}
	w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(slice))
	old, ok, err := w.windows.Get(kg, w.k8, w.key)
	if err != nil {
		return err
	}
	if ok {
		if err := w.acc.Read(old); err != nil {
			return fmt.Errorf("window aggregate: key group %d: %w", kg, err)
		}
	} else {
		w.acc.Reset()
	}
	if err := w.acc.Apply(r.Fields, false, skip); err != nil {
		return fmt.Errorf("window aggregate: %w", err)
	}
	w.enc = w.acc.Append(w.enc[:0])
	return w.windows.Put(kg, w.k8, w.key, w.enc)
}

// seen records the values of the row's DISTINCT calls in the window (or
// slice) ending at end, and returns which calls skip the row: those whose
// value the window's key has seen before (nil: no DISTINCT calls). A
// value a call's filter or a NULL keeps out is not recorded.
func (w *windowAgg) seen(kg int, end int64, row []types.Value) ([]bool, error) {
	if w.distinct == nil {
		return nil, nil
	}
	w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(end))
	for k, m := range w.distinct {
		w.skip[k] = false
		if m == nil {
			continue
		}
		c := &w.spec.Calls[k]
		if c.Filter >= 0 && (row[c.Filter].IsNull() || !row[c.Filter].Bool()) {
			continue
		}
		v := row[c.Arg]
		if v.IsNull() {
			continue
		}
		// The key's encoding delimits itself: key ‖ value is one pair.
		w.sub = state.AppendKeyValue(append(w.sub[:0], w.key...), v, c.ArgType)
		_, ok, err := m.Get(kg, w.k8, w.sub)
		if err != nil {
			return nil, err
		}
		if ok {
			w.skip[k] = true
			continue
		}
		if err := m.Put(kg, w.k8, w.sub, present); err != nil {
			return nil, err
		}
	}
	return w.skip, nil
}

// recountSession merges the DISTINCT calls' sets of values of key group
// kg's key w.key in the sessions starting at starts (merged into the one
// starting at start) with the values of row, writes the merged set under
// start, and computes each DISTINCT call's accumulator in w.acc again from
// it (the sessions' merged accumulators count a value seen in two of
// them twice).
func (w *windowAgg) recountSession(kg int, starts []int64, start int64, row []types.Value) error {
	for k, m := range w.distinct {
		if m == nil {
			continue
		}
		c := &w.spec.Calls[k]
		set := map[string]bool{}
		if err := eachSessionValue(m, kg, w.key, starts, func(v []byte) { set[string(v)] = true }); err != nil {
			return err
		}
		if !(c.Filter >= 0 && (row[c.Filter].IsNull() || !row[c.Filter].Bool())) && !row[c.Arg].IsNull() {
			set[string(state.AppendKeyValue(nil, row[c.Arg], c.ArgType))] = true
		}
		if err := w.dropSessionDistinct(kg, w.key, starts, m); err != nil {
			return err
		}
		w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(start))
		w.acc.ResetCall(k)
		for _, enc := range slices.Sorted(maps.Keys(set)) {
			w.sub = append(append(w.sub[:0], w.key...), enc...)
			if err := m.Put(kg, w.k8, w.sub, present); err != nil {
				return err
			}
			vals, _, err := state.ReadKey([]byte(enc), []types.Type{c.ArgType}, nil)
			if err != nil {
				return fmt.Errorf("window aggregate: key group %d: a DISTINCT value: %w", kg, err)
			}
			if err := w.acc.AddValue(k, vals[0]); err != nil {
				return fmt.Errorf("window aggregate: %w", err)
			}
		}
	}
	return nil
}

// eachSessionValue calls fn with the encoding of each value of DISTINCT
// table m of key group kg's key in the sessions starting at starts.
func eachSessionValue(m state.MapTable, kg int, key []byte, starts []int64, fn func(v []byte)) error {
	var k8 [8]byte
	for _, s := range starts {
		binary.BigEndian.PutUint64(k8[:], uint64(s))
		err := m.RangeKey(kg, k8[:], func(sub, _ []byte) bool {
			if v, ok := bytes.CutPrefix(sub, key); ok {
				fn(v)
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// dropSessionDistinct drops the values of key group kg's key in the
// sessions starting at starts from DISTINCT table m (nil: every DISTINCT
// table).
func (w *windowAgg) dropSessionDistinct(kg int, key []byte, starts []int64, m state.MapTable) error {
	tables := w.distinct
	if m != nil {
		tables = []state.MapTable{m}
	}
	for _, t := range tables {
		if t == nil {
			continue
		}
		var subs [][]byte
		if err := eachSessionValue(t, kg, key, starts, func(v []byte) { subs = append(subs, append(slices.Clone(key), v...)) }); err != nil {
			return err
		}
		for _, s := range starts {
			w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(s))
			for _, sub := range subs {
				if err := t.Delete(kg, w.k8, sub); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// present is the value of a DISTINCT call's entry: the value's presence.
var present = []byte{1}

// dropDistinct drops the DISTINCT calls' values of key group kg's keys in
// the window ending at end.
func (w *windowAgg) dropDistinct(kg int, end int64) error {
	for _, m := range w.distinct {
		if m == nil {
			continue
		}
		w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(end))
		if err := m.DeleteKey(kg, w.k8); err != nil {
			return err
		}
	}
	return nil
}

// flush writes the buffer's accumulators into the state: merged after
// those the state holds, whose rows came first.
func (w *windowAgg) flush() error {
	if w.buf == nil {
		return nil
	}
	return w.buf.drain(func(end int64, kg int, key []byte, acc *agg.Accumulators) error {
		w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(end))
		old, ok, err := w.windows.Get(kg, w.k8, key)
		if err != nil {
			return err
		}
		if ok {
			if err := w.acc.Read(old); err != nil {
				return fmt.Errorf("window aggregate: key group %d: %w", kg, err)
			}
			if err := w.acc.Merge(acc); err != nil {
				return fmt.Errorf("window aggregate: %w", err)
			}
			acc = w.acc
		}
		w.enc = acc.Append(w.enc[:0])
		return w.windows.Put(kg, w.k8, key, w.enc)
	})
}

// PrepareSnapshot writes the buffered rows into the state, and (sliced)
// the end of the last window fired.
func (w *windowAgg) PrepareSnapshot(int64, *stream.Output) error {
	if w.spec.Kind == Session {
		return w.writeSessions()
	}
	if err := w.flush(); err != nil {
		return err
	}
	return w.saveFired()
}

func (w *windowAgg) Watermark(wm int64, out *stream.Output) error {
	if w.spec.Time < 0 {
		return nil
	}
	if w.spec.Kind == Session {
		return w.fireSessions(wm, out)
	}
	if len(w.pending) == 0 || w.instant(w.pending[0])-1 > wm {
		return nil
	}
	if err := w.flush(); err != nil {
		return err
	}
	for len(w.pending) > 0 && w.instant(w.pending[0])-1 <= wm {
		if err := w.fire(heap.Pop(&w.pending).(int64), out); err != nil {
			return err
		}
	}
	return nil
}

// WatermarkStep returns the watermark at which the next window fires, when
// it is below wm (stream.WatermarkStepper): a jump of the watermark over
// several windows fires them one at a time, each handed on before the
// next. SESSION windows fire per key; they are not stepped.
func (w *windowAgg) WatermarkStep(wm int64) (int64, bool) {
	if w.spec.Time < 0 || w.spec.Kind == Session || len(w.pending) == 0 {
		return 0, false
	}
	step := w.instant(w.pending[0]) - 1
	return step, step < wm
}

func (w *windowAgg) ProcessingTime(now int64, out *stream.Output) error {
	if w.spec.Time >= 0 {
		return nil
	}
	local := w.local(now)
	if len(w.pending) > 0 && w.pending[0] <= local {
		if err := w.flush(); err != nil {
			return err
		}
	}
	for len(w.pending) > 0 && w.pending[0] <= local {
		if err := w.fire(heap.Pop(&w.pending).(int64), out); err != nil {
			return err
		}
	}
	w.armTimer()
	return nil
}

// armTimer asks for the clock to fire the next processing-time window.
func (w *windowAgg) armTimer() {
	if len(w.pending) > 0 {
		w.ctx.SetProcessingTimer(w.instant(w.pending[0]))
	}
}

// fire emits every key's result of the window ending at end, and drops
// the state no later window needs.
func (w *windowAgg) fire(end int64, out *stream.Output) error {
	delete(w.inHeap, end)
	if w.sliced {
		return w.fireSliced(end, out)
	}
	w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(end))
	start := w.start(end)
	for kg := w.kgs.Start; kg < w.kgs.End; kg++ {
		var ferr error
		err := w.windows.RangeKey(kg, w.k8, func(key, acc []byte) bool {
			ferr = w.emitEncoded(out, key, acc, start, end)
			return ferr == nil
		})
		if err == nil {
			err = ferr
		}
		if err == nil {
			err = w.windows.DeleteKey(kg, w.k8)
		}
		if err == nil {
			err = w.dropDistinct(kg, end)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// emitEncoded emits one key's result of window [start, end) from its
// encoded accumulators.
func (w *windowAgg) emitEncoded(out *stream.Output, key, acc []byte, start, end int64) error {
	if err := w.acc.Read(acc); err != nil {
		return fmt.Errorf("window aggregate: %w", err)
	}
	return w.emit(out, key, w.acc, start, end)
}

// emit emits one key's result of window [start, end) from acc.
func (w *windowAgg) emit(out *stream.Output, key []byte, acc *agg.Accumulators, start, end int64) error {
	f := make([]types.Value, 0, w.width)
	var err error
	if f, _, err = state.ReadKey(key, w.spec.KeyTypes, f); err != nil {
		return fmt.Errorf("window aggregate: %w", err)
	}
	if f, err = acc.Results(f); err != nil {
		return err
	}
	wt := types.TimestampValue(types.Timestamp{Millis: w.instant(end) - 1})
	if !w.ltz && w.spec.TimeType.Kind != types.KindTimestampLTZ {
		wt = types.TimestampValue(types.Timestamp{Millis: end - 1})
	}
	f = append(f, types.TimestampValue(types.Timestamp{Millis: start}), types.TimestampValue(types.Timestamp{Millis: end}), wt)
	out.Emit(types.Row{Kind: types.Insert, Fields: f})
	return nil
}

// Sessions. A session's value is its end (8 bytes) then its
// accumulators; it is keyed by its start. The timers hold one entry per
// session, by the end it had when the entry was made: a session that grew
// since is found at its timer's pop and scheduled again at its new end.

// session adds row r (time t) to its key's sessions, merging those it
// bridges.
func (w *windowAgg) session(kg int, r *types.Row, t int64) error {
	start, end := t, t+w.gap
	if w.fired(end) {
		w.ctx.Metrics.LateRows.Add(1)
		return nil
	}
	// The sessions it overlaps or touches merge into one.
	type found struct {
		start int64
		val   []byte
	}
	var merge []found
	err := w.sessions.RangeKey(kg, w.key, func(sub, val []byte) bool {
		s, e := int64(binary.BigEndian.Uint64(sub)), int64(binary.BigEndian.Uint64(val))
		if s <= end && e >= start {
			merge = append(merge, found{s, slices.Clone(val)})
		}
		return true
	})
	if err != nil {
		return err
	}
	// DISTINCT calls: when the row joins one session without moving its
	// start, or opens one, its values are looked up in (and added to)
	// that session's sets; else the sessions' sets are merged and the
	// calls' accumulators computed again from the merged set (recount).
	var skip []bool
	recount := false
	if w.distinct != nil {
		newStart := start
		for _, m := range merge {
			newStart = min(newStart, m.start)
		}
		switch {
		case len(merge) == 0 || len(merge) == 1 && merge[0].start == newStart:
			if skip, err = w.seen(kg, newStart, r.Fields); err != nil {
				return err
			}
		default:
			recount = true
			skip = w.skip
			for k, m := range w.distinct {
				skip[k] = m != nil // applied by recountSessions
			}
		}
	}
	w.acc.Reset()
	if err := w.acc.Apply(r.Fields, false, skip); err != nil {
		return fmt.Errorf("window aggregate: %w", err)
	}
	for _, m := range merge {
		if err := w.other.Read(m.val[8:]); err != nil {
			return fmt.Errorf("window aggregate: key group %d: %w", kg, err)
		}
		// The earlier session's rows came first.
		if m.start < start {
			if err := w.other.Merge(w.acc); err != nil {
				return err
			}
			w.acc, w.other = w.other, w.acc
		} else if err := w.acc.Merge(w.other); err != nil {
			return err
		}
		start, end = min(start, m.start), max(end, int64(binary.BigEndian.Uint64(m.val)))
	}
	if recount {
		starts := make([]int64, len(merge))
		for i, m := range merge {
			starts[i] = m.start
		}
		if err := w.recountSession(kg, starts, start, r.Fields); err != nil {
			return err
		}
	}
	scheduled := false
	for _, m := range merge {
		if m.start == start {
			scheduled = true // its timer finds the session under this start
			continue
		}
		w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(m.start))
		if err := w.sessions.Delete(kg, w.key, w.k8); err != nil {
			return err
		}
	}
	w.enc = binary.BigEndian.AppendUint64(w.enc[:0], uint64(end))
	w.enc = w.acc.Append(w.enc)
	w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(start))
	if err := w.sessions.Put(kg, w.key, w.k8, w.enc); err != nil {
		return err
	}
	if !scheduled {
		heap.Push(&w.timers, sessionTimer{end: end, start: start, kg: kg, key: string(w.key)})
	}
	return nil
}

// restoreSessions rebuilds the session timers from the state.
func (w *windowAgg) restoreSessions() error {
	for kg := w.kgs.Start; kg < w.kgs.End; kg++ {
		var keys []string
		if err := w.sessions.Keys(kg, func(k []byte) bool { keys = append(keys, string(k)); return true }); err != nil {
			return err
		}
		for _, k := range keys {
			err := w.sessions.RangeKey(kg, []byte(k), func(sub, val []byte) bool {
				heap.Push(&w.timers, sessionTimer{end: int64(binary.BigEndian.Uint64(val)), start: int64(binary.BigEndian.Uint64(sub)), kg: kg, key: k})
				return true
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// fireSessions emits and drops the sessions the watermark wm closed.
func (w *windowAgg) fireSessions(wm int64, out *stream.Output) error {
	for len(w.timers) > 0 && w.instant(w.timers[0].end)-1 <= wm {
		tm := heap.Pop(&w.timers).(sessionTimer)
		if w.cache != nil {
			w.key = append(w.key[:0], tm.key...)
			if e := w.cache.find(state.Hash(w.key), w.key); e != nil {
				if err := w.fireCached(e, tm, out); err != nil {
					return err
				}
				continue
			}
		}
		key := []byte(tm.key)
		w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(tm.start))
		val, ok, err := w.sessions.Get(tm.kg, key, w.k8)
		if err != nil {
			return err
		}
		if !ok {
			continue // merged into a session of another start
		}
		if end := int64(binary.BigEndian.Uint64(val)); end != tm.end {
			tm.end = end // it grew: wait for its new end
			heap.Push(&w.timers, tm)
			continue
		}
		val = slices.Clone(val)
		if err := w.emitEncoded(out, key, val[8:], tm.start, tm.end); err != nil {
			return err
		}
		if err := w.sessions.Delete(tm.kg, key, w.k8); err != nil {
			return err
		}
		if err := w.dropSessionDistinct(tm.kg, key, []int64{tm.start}, nil); err != nil {
			return err
		}
	}
	return nil
}

// endHeap is a min-heap of window ends.
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

type sessionTimer struct {
	end, start int64
	kg         int
	key        string
}

// sessionHeap is a min-heap of session timers by end.
type sessionHeap []sessionTimer

func (h sessionHeap) Len() int           { return len(h) }
func (h sessionHeap) Less(i, j int) bool { return h[i].end < h[j].end }
func (h sessionHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *sessionHeap) Push(x any)        { *h = append(*h, x.(sessionTimer)) }
func (h *sessionHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
