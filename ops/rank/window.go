package rank

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// WindowSpec configures a window Top-N or a window deduplication
// (NewWindow): the ranks Start..End of each partition of each window,
// emitted when the window ends. Its output rows are the input rows, then
// window_start, window_end and window_time when the operator assigns the
// windows (Assign), then the row number when OutputRank is set.
type WindowSpec struct {
	// Types, Partition (besides the window), Order, Start, End and
	// OutputRank are the Top-N's, as in Spec; its other fields are
	// ignored (the input inserts only, and a window's state goes when it
	// fires).
	Spec
	// Dedup keeps one row of each partition and window by event time
	// (Flink's WindowDeduplicate): the first, or the last when KeepLast
	// is set, by the rowtime column DedupTime; Order is ignored. Rows of
	// equal time: the first kept, or the last.
	Dedup     bool
	KeepLast  bool
	DedupTime int
	// Assign, when set, assigns each row to its windows (TUMBLE, HOP or
	// CUMULATE over the event-time column Assign.Time): the input is a
	// window table function's. Otherwise the input carries its window
	// (a window aggregation's output) and WindowEnd is its window_end
	// column, a TIMESTAMP(3).
	Assign    *window.Spec
	WindowEnd int
	// Location is the session time zone in which windows over a
	// TIMESTAMP_LTZ attribute are aligned (their window_end is a wall
	// clock there), for carried windows; nil: UTC.
	Location *time.Location
}

// Describe returns the operator's Flink name.
func (s *WindowSpec) Describe() string {
	if s.Dedup {
		return "WindowDeduplicate"
	}
	return "WindowRank"
}

// NewWindow returns the factory of window Top-N operators of spec
// (Flink's WindowRank and WindowDeduplicate). Its input must be hashed by
// Spec.Partition and insert only. A row is kept under each of its
// windows (at most End rows of a partition, the best ones) until the
// watermark reaches the window's end minus one millisecond; then the
// window's ranks are emitted as inserts and its state dropped. A row
// whose window fired already is late: dropped and counted.
func NewWindow(spec WindowSpec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		// Each task's own copy: the tasks of a vertex call the factory
		// at once.
		spec := spec
		if spec.Dedup {
			spec.Order = []SortKey{{Col: spec.DedupTime, Desc: spec.KeepLast, NullsLast: spec.KeepLast}}
			spec.Start, spec.End = 1, 1
		}
		if err := spec.check(); err != nil {
			return nil, fmt.Errorf("window %w", err)
		}
		if a := spec.Assign; a != nil {
			if a.Kind == window.Session {
				return nil, fmt.Errorf("window top-n: SESSION windows are not supported")
			}
			if err := checkCols("window top-n", spec.Types, []int{a.Time}); err != nil {
				return nil, err
			}
		} else if err := checkCols("window top-n", spec.Types, []int{spec.WindowEnd}); err != nil {
			return nil, err
		}
		w := &windowRank{spec: spec, maxP: task.MaxParallelism, kgs: task.KeyGroups}
		if w.maxP <= 0 {
			w.maxP = state.DefaultMaxParallelism
		}
		if w.kgs.Len() == 0 {
			w.kgs = state.KeyGroupRange{Start: 0, End: w.maxP}
		}
		return w, nil
	}
}

type windowRank struct {
	stream.Base
	spec WindowSpec
	maxP int
	kgs  state.KeyGroupRange
	ctx  *stream.Context

	// rows maps (window end, partition) to the partition's best rows in
	// the window: sub-key the sort key, value the list of its rows in
	// arrival order. parts maps a window end to the partitions that have
	// rows in it (sub-keys), so a window fires without a scan.
	rows, parts state.MapTable
	pending     endHeap
	inHeap      map[int64]bool

	partTypes      []types.Type
	pkey, key, sk  []byte
	k8, buf, in    []byte
	ends           []int64
	list           rowList
	width, nassign int
	slab           []types.Value
}

func (w *windowRank) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("window top-n: the task has no keyed state")
	}
	w.ctx = ctx
	w.rows, w.parts = ctx.State.Map("rows"), ctx.State.Map("parts")
	for _, c := range w.spec.Partition {
		w.partTypes = append(w.partTypes, w.spec.Types[c])
	}
	if w.spec.Assign != nil {
		w.nassign = 3
	}
	w.width = len(w.spec.Types) + w.nassign
	if w.spec.OutputRank {
		w.width++
	}
	w.inHeap = map[int64]bool{}
	for kg := w.kgs.Start; kg < w.kgs.End; kg++ {
		err := w.parts.Keys(kg, func(k []byte) bool {
			w.schedule(int64(binary.BigEndian.Uint64(k)))
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *windowRank) schedule(end int64) {
	if !w.inHeap[end] {
		w.inHeap[end] = true
		heap.Push(&w.pending, end)
	}
}

// instant returns the instant of a window end (in the windows' time).
func (w *windowRank) instant(end int64) int64 {
	if a := w.spec.Assign; a != nil {
		return a.Instant(end)
	}
	if w.spec.Location == nil {
		return end
	}
	_, off := time.UnixMilli(end).In(w.spec.Location).Zone()
	return end - int64(off)*1000
}

func (w *windowRank) fired(end int64) bool {
	wm := w.ctx.Watermark()
	return wm != stream.MinWatermark && w.instant(end)-1 <= wm
}

func (w *windowRank) Process(_ int, rows []types.Row, out *stream.Output) error {
	for i := range rows {
		r := &rows[i]
		if r.Kind != types.Insert && r.Kind != types.UpdateAfter {
			return fmt.Errorf("window top-n: a %s row in an insert-only input", r.Kind)
		}
		w.ends = w.ends[:0]
		if a := w.spec.Assign; a != nil {
			tv := r.Fields[a.Time]
			if tv.IsNull() {
				continue
			}
			var first int64
			w.ends, first = a.Ends(w.ends, a.Local(tv.Timestamp().Millis))
			if w.fired(first) {
				w.ctx.Metrics.LateRows.Add(1)
				continue
			}
		} else {
			ev := r.Fields[w.spec.WindowEnd]
			if ev.IsNull() {
				continue
			}
			w.ends = append(w.ends, ev.Timestamp().Millis)
		}
		w.pkey = state.AppendKey(w.pkey[:0], r.Fields, w.spec.Partition, w.partTypes)
		kg := state.KeyGroupOf(w.pkey, w.maxP)
		w.sk = AppendSortKey(w.sk[:0], r.Fields, w.spec.Order, w.spec.Types)
		w.in = state.AppendRow(w.in[:0], r.Fields, w.spec.Types)
		late := false
		for _, end := range w.ends {
			if w.fired(end) {
				late = true
				continue
			}
			if err := w.add(kg, end); err != nil {
				return err
			}
		}
		if late && w.spec.Assign == nil {
			w.ctx.Metrics.LateRows.Add(1)
		}
	}
	return nil
}

// add puts the current row into window end's top of its partition,
// keeping the End best rows.
func (w *windowRank) add(kg int, end int64) error {
	w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(end))
	w.key = append(append(w.key[:0], w.k8...), w.pkey...)
	type ent struct {
		key []byte
		n   int
	}
	// The partition's sort keys and counts, best first.
	var ents []ent
	var total int
	var ferr error
	err := w.rows.RangeKey(kg, w.key, func(sub, val []byte) bool {
		n, used := binary.Uvarint(val)
		if used <= 0 {
			ferr = fmt.Errorf("window top-n: key group %d: %w: a rank list", kg, state.ErrCorrupt)
			return false
		}
		ents = append(ents, ent{slices.Clone(sub), int(n)})
		total += int(n)
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	limit := int(w.spec.End)
	tieReplaces := w.spec.Dedup && w.spec.KeepLast
	if total >= limit && len(ents) > 0 {
		worst := ents[len(ents)-1].key
		c := bytes.Compare(w.sk, worst)
		if c > 0 || (c == 0 && !tieReplaces) {
			return nil // it cannot rank
		}
	}
	replace := tieReplaces && limit == 1 && total > 0 && bytes.Equal(ents[0].key, w.sk)
	if err := w.appendRow(kg, w.sk, replace); err != nil {
		return err
	}
	if !replace {
		total++
	}
	// Drop the worst rows past End (the last of the last sort key first).
	for i := len(ents) - 1; total > limit && i >= 0; i-- {
		e := ents[i]
		if bytes.Equal(e.key, w.sk) {
			e.n++
		}
		drop := min(e.n, total-limit)
		if drop == e.n {
			if err := w.rows.Delete(kg, w.key, e.key); err != nil {
				return err
			}
		} else if err := w.truncate(kg, e.key, e.n-drop); err != nil {
			return err
		}
		total -= drop
	}
	if err := w.parts.Put(kg, w.k8, w.pkey, nil); err != nil {
		return err
	}
	w.schedule(end)
	return nil
}

// appendRow appends the current row to sort key sk's list (replacing it,
// for a deduplication that keeps the last of equal times).
func (w *windowRank) appendRow(kg int, sk []byte, replace bool) error {
	v, ok, err := w.rows.Get(kg, w.key, sk)
	if err != nil {
		return err
	}
	w.list.rows = w.list.rows[:0]
	if ok && !replace {
		if err := readList(v, &w.list, false, nil); err != nil {
			return fmt.Errorf("window top-n: key group %d: %w", kg, err)
		}
	}
	w.list.rows = append(w.list.rows, w.in)
	w.buf = appendList(w.buf[:0], &w.list, false)
	return w.rows.Put(kg, w.key, sk, w.buf)
}

// truncate keeps the first n rows of sort key sk's list.
func (w *windowRank) truncate(kg int, sk []byte, n int) error {
	v, ok, err := w.rows.Get(kg, w.key, sk)
	if err != nil || !ok {
		return err
	}
	if err := readList(v, &w.list, false, nil); err != nil {
		return fmt.Errorf("window top-n: key group %d: %w", kg, err)
	}
	w.list.rows = w.list.rows[:n]
	w.buf = appendList(w.buf[:0], &w.list, false)
	return w.rows.Put(kg, w.key, sk, w.buf)
}

func (w *windowRank) Watermark(wm int64, out *stream.Output) error {
	for len(w.pending) > 0 && w.instant(w.pending[0])-1 <= wm {
		if err := w.fire(heap.Pop(&w.pending).(int64), out); err != nil {
			return err
		}
	}
	return nil
}

// fire emits the ranks of every partition of the window ending at end,
// and drops the window's state.
func (w *windowRank) fire(end int64, out *stream.Output) error {
	delete(w.inHeap, end)
	w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(end))
	var start int64
	if a := w.spec.Assign; a != nil {
		start = a.Start(end)
	}
	for kg := w.kgs.Start; kg < w.kgs.End; kg++ {
		var parts [][]byte
		err := w.parts.RangeKey(kg, w.k8, func(sub, _ []byte) bool {
			parts = append(parts, slices.Clone(sub))
			return true
		})
		if err != nil {
			return err
		}
		for _, part := range parts {
			w.key = append(append(w.key[:0], w.k8...), part...)
			var lists [][]byte
			err := w.rows.RangeKey(kg, w.key, func(_, val []byte) bool {
				lists = append(lists, slices.Clone(val))
				return true
			})
			if err != nil {
				return err
			}
			rank := int64(0)
			for _, v := range lists {
				if err := readList(v, &w.list, false, nil); err != nil {
					return fmt.Errorf("window top-n: key group %d: %w", kg, err)
				}
				for _, enc := range w.list.rows {
					rank++
					if rank < w.spec.Start || rank > w.spec.End {
						continue
					}
					if err := w.emit(out, enc, start, end, rank); err != nil {
						return err
					}
				}
			}
			if err := w.rows.DeleteKey(kg, w.key); err != nil {
				return err
			}
		}
		if err := w.parts.DeleteKey(kg, w.k8); err != nil {
			return err
		}
	}
	return nil
}

func (w *windowRank) emit(out *stream.Output, enc []byte, start, end, rank int64) error {
	if len(w.slab) < w.width {
		w.slab = make([]types.Value, w.width*max(4096/(w.width*24), 1))
	}
	f := w.slab[:0:w.width]
	w.slab = w.slab[w.width:]
	f, _, err := state.ReadRow(enc, w.spec.Types, f)
	if err != nil {
		return fmt.Errorf("window top-n: %w", err)
	}
	if a := w.spec.Assign; a != nil {
		wt := types.TimestampValue(types.Timestamp{Millis: a.Instant(end) - 1})
		if a.TimeType.Kind != types.KindTimestampLTZ {
			wt = types.TimestampValue(types.Timestamp{Millis: end - 1})
		}
		f = append(f, types.TimestampValue(types.Timestamp{Millis: start}), types.TimestampValue(types.Timestamp{Millis: end}), wt)
	}
	if w.spec.OutputRank {
		f = append(f, types.Int64(rank))
	}
	out.Emit(types.Row{Kind: types.Insert, Fields: f})
	return nil
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
