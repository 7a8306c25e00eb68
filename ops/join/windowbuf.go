package join

import (
	"bytes"
	"slices"
)

// bufferBytes is how many bytes of row encodings a window join buffers
// before it writes them into its state.
const bufferBytes = 16 << 20

// windowBuffer holds a window join's rows, per window, before they reach
// the state: a row is appended to its windows' lists (no state read or
// write per row), and a window that fires joins its buffered rows with
// those of the state in the state's order, so that most rows never go
// through the state. The buffer is written into the state at every
// checkpoint barrier and when it holds bufferBytes (in sub-key order per
// window: the hashmap backend's sorted tables take such keys at their
// end).
type windowBuffer struct {
	wins  map[int64]*bufWindow
	bytes int
	// last is the window of the last row added (rows come in runs of a
	// window), spare emptied windows for reuse.
	last  *bufWindow
	spare []*bufWindow
}

// bufWindow is one window's buffered rows: their sub-keys (the state's
// sub-key encoding) in arena.
type bufWindow struct {
	end    int64
	arena  []byte
	rows   []bufRow
	sorted bool
}

type bufRow struct {
	kg       int32
	off, len int32
}

func (b *windowBuffer) full() bool { return b.bytes >= bufferBytes }

// add appends a row of sub-key sub in key group kg to the window ending at
// end.
func (b *windowBuffer) add(end int64, kg int, sub []byte) {
	w := b.last
	if w == nil || w.end != end {
		if w = b.wins[end]; w == nil {
			if b.wins == nil {
				b.wins = map[int64]*bufWindow{}
			}
			if n := len(b.spare); n > 0 {
				w, b.spare = b.spare[n-1], b.spare[:n-1]
				w.arena, w.rows = w.arena[:0], w.rows[:0]
			} else {
				w = &bufWindow{}
			}
			w.end = end
			b.wins[end] = w
		}
		b.last = w
	}
	w.rows = append(w.rows, bufRow{kg: int32(kg), off: int32(len(w.arena)), len: int32(len(sub))})
	w.arena = append(w.arena, sub...)
	w.sorted = false
	b.bytes += len(sub) + 12
}

// take removes the window ending at end from the buffer and returns it
// (nil: none); it stays valid until the next call of take or clear.
func (b *windowBuffer) take(end int64) *bufWindow {
	w := b.wins[end]
	if w == nil {
		return nil
	}
	delete(b.wins, end)
	if b.last == w {
		b.last = nil
	}
	b.bytes -= len(w.arena) + 12*len(w.rows)
	b.recycle(w)
	return w
}

// recycle keeps w's memory for a later window (after the caller is done
// with it: the next add of a new window).
func (b *windowBuffer) recycle(w *bufWindow) {
	if len(b.spare) > 0 {
		// One spare is enough: windows fire one at a time.
		return
	}
	b.spare = append(b.spare, w)
}

// clear empties the buffer.
func (b *windowBuffer) clear() {
	for end, w := range b.wins {
		delete(b.wins, end)
		b.recycle(w)
	}
	b.last, b.bytes = nil, 0
}

func (w *bufWindow) sub(r bufRow) []byte { return w.arena[r.off : r.off+r.len] }

// sort orders the rows by key group, then sub-key (the state's order).
func (w *bufWindow) sort() {
	if w.sorted {
		return
	}
	slices.SortFunc(w.rows, func(a, b bufRow) int {
		if a.kg != b.kg {
			return int(a.kg - b.kg)
		}
		return bytes.Compare(w.sub(a), w.sub(b))
	})
	w.sorted = true
}

// same returns the index after the run of rows equal to row i (sorted).
func (w *bufWindow) same(i int) int {
	j := i + 1
	for j < len(w.rows) && w.rows[j].kg == w.rows[i].kg && bytes.Equal(w.sub(w.rows[j]), w.sub(w.rows[i])) {
		j++
	}
	return j
}
