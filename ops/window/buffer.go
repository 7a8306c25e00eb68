package window

import (
	"github.com/streamsql/streamsql/ops/agg"
)

// bufferLimit is the number of (slice, key) entries the window
// aggregation's buffer holds before it writes them all into the state.
const bufferLimit = 1 << 12

// buffer combines the rows of a window aggregation's (slice, key) pairs in
// memory before they reach the state, as Flink's window buffer does: a row
// updates its pair's accumulators here, and the state is read and written
// once per pair when the buffer is flushed (before windows fire, at a
// checkpoint, or when it is full) rather than once per row. It is an
// open-addressing hash table with linear probing; its entries and their
// accumulators are reused from one flush to the next, so that a row
// allocates nothing once the buffer has grown.
type buffer struct {
	slots []bufEntry // a power of two, twice bufferLimit
	used  []int32    // indexes of the slots in use, in the order they were taken
	proto *agg.Accumulators
	// free are the accumulators of emptied slots, for reuse: at most
	// bufferLimit accumulators exist.
	free []*agg.Accumulators
}

type bufEntry struct {
	end  int64 // the slice's end (the window's for TUMBLE)
	hash uint64
	kg   int
	key  []byte
	acc  *agg.Accumulators
	used bool
}

func newBuffer(proto *agg.Accumulators) *buffer {
	return &buffer{slots: make([]bufEntry, 2*bufferLimit), proto: proto}
}

// full reports whether the buffer must be flushed before a new entry.
func (b *buffer) full() bool { return len(b.used) >= bufferLimit }

// entry returns the accumulators of (end, key), whose key hashes to h and
// falls in key group kg: the buffered ones, or new empty ones (the buffer
// must not be full).
func (b *buffer) entry(end int64, h uint64, kg int, key []byte) *agg.Accumulators {
	mask := uint64(len(b.slots) - 1)
	h ^= uint64(end) * 0x9e3779b97f4a7c15
	for i := h & mask; ; i = (i + 1) & mask {
		e := &b.slots[i]
		if !e.used {
			e.end, e.hash, e.kg, e.key, e.used = end, h, kg, append(e.key[:0], key...), true
			if n := len(b.free); n > 0 {
				e.acc, b.free = b.free[n-1], b.free[:n-1]
			} else {
				e.acc = b.proto.Owned()
			}
			e.acc.Reset()
			b.used = append(b.used, int32(i))
			return e.acc
		}
		if e.hash == h && e.end == end && string(e.key) == string(key) {
			return e.acc
		}
	}
}

// drain calls fn with each entry in the order they were made, then empties
// the buffer. fn's slices are valid during the call only. After an error
// the buffer is in no defined state (the task fails and restarts from a
// checkpoint).
func (b *buffer) drain(fn func(end int64, kg int, key []byte, acc *agg.Accumulators) error) error {
	for _, i := range b.used {
		e := &b.slots[i]
		if err := fn(e.end, e.kg, e.key, e.acc); err != nil {
			return err
		}
		b.free = append(b.free, e.acc)
		e.acc, e.used = nil, false
	}
	b.used = b.used[:0]
	return nil
}
