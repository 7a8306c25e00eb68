package window

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
)

// HOP and CUMULATE windows in slices, as Flink's slicing window operator
// keeps them: a window of Size that starts every Slide is made of
// Size/Slide slices of Slide, and a row updates the accumulators of the
// one slice it falls in rather than those of each of its windows. When a
// window fires, the accumulators of its slices are merged in time order
// (the rows of an earlier slice count as having come first, as Flink's
// merge of slices does) for each key that has rows in any of them. A HOP
// slice is dropped when the last window it is in fires; a CUMULATE cycle's
// slices when its largest window fires.
//
// State layout (version 2 of the window aggregation's state; version 1,
// before slicing, kept HOP and CUMULATE windows whole):
//   - "slices": (slice end, key) -> the key's accumulators of the slice's
//     rows;
//   - "fired": per key group, the end of the last window the task fired,
//     so that the windows a restored slice was in and that fired before
//     the checkpoint do not fire again;
//   - "windows": HOP and CUMULATE windows of a version 1 checkpoint,
//     (window end, key) -> accumulators. After a restore each fires once,
//     merged before the slices (its rows came before the checkpoint), and
//     is then dropped: an older checkpoint is migrated as it drains, and
//     nothing new is written there. TUMBLE windows and attached windows
//     are one slice each and keep the version 1 layout in "windows".

// firedKey is the key of the key groups' entries in "fired".
var firedKey = []byte{0}

// mergeEntry is one slice's entry of a key while a window of several
// slices fires: the key and the encoded accumulators, in windowAgg.arena.
type mergeEntry struct {
	off, keyLen, accLen int
}

// openSlices opens the state of sliced windows and schedules the windows
// of the slices and version 1 windows it holds.
func (w *windowAgg) openSlices(ctx *stream.Context) error {
	w.windows = ctx.State.Map("slices")
	w.legacy = ctx.State.Map("windows")
	w.marks = ctx.State.Value("fired")
	w.live, w.legacyEnds = map[int64]bool{}, map[int64]bool{}
	for kg := w.kgs.Start; kg < w.kgs.End; kg++ {
		v, ok, err := w.marks.Get(kg, firedKey)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if len(v) != 8 {
			return fmt.Errorf("window aggregate: key group %d: a fired window's end of %d bytes, want 8", kg, len(v))
		}
		if w.marked == nil {
			w.marked = make([]int64, w.kgs.Len())
			for i := range w.marked {
				w.marked[i] = math.MinInt64
			}
		}
		w.marked[kg-w.kgs.Start] = int64(binary.BigEndian.Uint64(v))
	}
	if err := w.eachStateKey(w.windows, w.addSlice); err != nil {
		return err
	}
	w.last = math.MinInt64
	return w.eachStateKey(w.legacy, func(end int64) {
		w.legacyEnds[end] = true
		w.schedule(end)
	})
}

// addSlice notes that the slice ending at end has state, and schedules the
// windows it is in.
func (w *windowAgg) addSlice(end int64) {
	w.last = end
	if !w.sliced {
		w.schedule(end)
		return
	}
	if w.live[end] {
		return
	}
	w.live[end] = true
	for e := end; e <= w.lastWindowOf(end); e += w.slide {
		w.schedule(e)
	}
}

// sliceEnd returns the end of the slice time t falls in.
func (w *windowAgg) sliceEnd(t int64) int64 { return w.spec.SliceEnd(t) }

// lastWindowOf returns the end of the last window the slice ending at end
// is in.
func (w *windowAgg) lastWindowOf(end int64) int64 {
	if w.spec.Kind == Cumulate {
		return w.start(end) + w.size
	}
	return end + w.size - w.slide
}

// firstSliceOf returns the end of the first slice of the window ending at
// end.
func (w *windowAgg) firstSliceOf(end int64) int64 { return w.start(end) + w.slide }

// fireSliced emits every key's result of the window ending at end, merged
// from its slices, and drops the slices whose last window it is.
func (w *windowAgg) fireSliced(end int64, out *stream.Output) error {
	var ends []int64
	for s := w.firstSliceOf(end); s <= end; s += w.slide {
		if w.live[s] {
			ends = append(ends, s)
		}
	}
	legacy := w.legacyEnds[end]
	start := w.start(end)
	for kg := w.kgs.Start; kg < w.kgs.End; kg++ {
		if w.marked == nil || end > w.marked[kg-w.kgs.Start] {
			var err error
			if len(ends) == 1 && !legacy {
				err = w.emitSlice(out, kg, ends[0], start, end)
			} else {
				err = w.emitMerged(out, kg, ends, legacy, start, end)
			}
			if err != nil {
				return err
			}
		}
		for _, s := range ends {
			if w.lastWindowOf(s) == end {
				w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(s))
				if err := w.windows.DeleteKey(kg, w.k8); err != nil {
					return err
				}
			}
		}
		if legacy {
			w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(end))
			if err := w.legacy.DeleteKey(kg, w.k8); err != nil {
				return err
			}
		}
	}
	for _, s := range ends {
		if w.lastWindowOf(s) == end {
			delete(w.live, s)
			if s == w.last {
				w.last = math.MinInt64
			}
		}
	}
	delete(w.legacyEnds, end)
	w.lastFired = end
	return nil
}

// emitSlice emits the results of key group kg's keys in the one slice of
// the window [start, end) that has state.
func (w *windowAgg) emitSlice(out *stream.Output, kg int, slice, start, end int64) error {
	w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(slice))
	var ferr error
	err := w.windows.RangeKey(kg, w.k8, func(key, acc []byte) bool {
		ferr = w.emitEncoded(out, key, acc, start, end)
		return ferr == nil
	})
	if err == nil {
		err = ferr
	}
	return err
}

// emitMerged emits the results of key group kg's keys in the window
// [start, end): each key's accumulators of the window's slices (ends, in
// time order, after those of a version 1 window when legacy), merged.
func (w *windowAgg) emitMerged(out *stream.Output, kg int, ends []int64, legacy bool, start, end int64) error {
	w.merge, w.arena = w.merge[:0], w.arena[:0]
	collect := func(m state.MapTable, at int64) error {
		w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(at))
		return m.RangeKey(kg, w.k8, func(key, acc []byte) bool {
			w.merge = append(w.merge, mergeEntry{off: len(w.arena), keyLen: len(key), accLen: len(acc)})
			w.arena = append(append(w.arena, key...), acc...)
			return true
		})
	}
	if legacy {
		if err := collect(w.legacy, end); err != nil {
			return err
		}
	}
	for _, s := range ends {
		if err := collect(w.windows, s); err != nil {
			return err
		}
	}
	key := func(e mergeEntry) []byte { return w.arena[e.off : e.off+e.keyLen] }
	acc := func(e mergeEntry) []byte { return w.arena[e.off+e.keyLen : e.off+e.keyLen+e.accLen] }
	// Stable: a key's entries stay in time order.
	slices.SortStableFunc(w.merge, func(a, b mergeEntry) int { return bytes.Compare(key(a), key(b)) })
	for i := 0; i < len(w.merge); {
		k := key(w.merge[i])
		if err := w.acc.Read(acc(w.merge[i])); err != nil {
			return fmt.Errorf("window aggregate: key group %d: %w", kg, err)
		}
		j := i + 1
		for ; j < len(w.merge) && bytes.Equal(key(w.merge[j]), k); j++ {
			if err := w.other.Read(acc(w.merge[j])); err != nil {
				return fmt.Errorf("window aggregate: key group %d: %w", kg, err)
			}
			if err := w.acc.Merge(w.other); err != nil {
				return fmt.Errorf("window aggregate: %w", err)
			}
		}
		if err := w.emit(out, k, w.acc, start, end); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// saveFired writes the end of the last window fired into every key
// group's entry of "fired" (at a checkpoint, when it moved).
func (w *windowAgg) saveFired() error {
	if !w.sliced || w.lastFired == w.savedFired {
		return nil
	}
	for kg := w.kgs.Start; kg < w.kgs.End; kg++ {
		v := w.lastFired
		if w.marked != nil {
			v = max(v, w.marked[kg-w.kgs.Start])
		}
		w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(v))
		if err := w.marks.Put(kg, firedKey, w.k8); err != nil {
			return err
		}
	}
	w.savedFired = w.lastFired
	return nil
}
