package heap

import (
	"bytes"
	"encoding/binary"
)

// An hmap's entries are in chunks of chunkSize bytes: an entry's offset
// is its chunk's index << chunkShift | its position in the chunk, and an
// entry never spans two chunks. A table that grows adds chunks: nothing
// is copied and no memory is freed as it grows. One contiguous arena per
// key group, grown by an eighth each time (reserve), had copied each byte
// about nine times by the end of Nexmark q19 at 2·10⁶ events, and each
// old arena's pages went back to the OS and were faulted in again for the
// next (a quarter of that run's CPU was the kernel's page faults and the
// copies).
//
// The first chunk starts small and grows (by copying, as one arena did)
// while it is the table's only chunk, up to chunkSize: a small table
// stays small. A later chunk is allocated with chunkSize bytes, or, for
// an entry larger than chunkSize, with the entry's size: such a "large"
// chunk (its capacity is over chunkSize) holds that one entry at position
// 0 (and what a shorter update leaves dead after it); nothing else is
// written into it.
const (
	chunkShift = 16
	chunkSize  = 1 << chunkShift
	chunkMask  = chunkSize - 1
	// maxChunks bounds the chunks of one hmap: offset+1 fits in 32 bits.
	maxChunks = 1<<(32-chunkShift) - 1
)

// hmap is a hash table of byte keys and values: open addressing with
// linear probing and backward-shift deletion (no tombstones) over slots of
// 8 bytes (32 bits of the key's hash and the offset+1 of its entry, 0 for
// an empty slot), and the entries in chunks (see chunkSize). A BIGINT key
// with a COUNT and SUM accumulator takes about 15 bytes of entry and 8
// bytes per slot at a load of at most 3/4; no Go pointer per entry, so the
// garbage collector does not look at entries.
type hmap struct {
	epoch  uint64 // the backend's epoch when this copy was made (see Backend.shared)
	slots  []uint64
	chunks [][]byte
	used   int // bytes of entries (live and dead) in chunks: the sum of their lengths
	room   int // the sum of the chunks' capacities
	n      int // live entries
	dead   int // bytes of dead entries in chunks
	timed  bool
	// sweepC and sweepPos are where the TTL sweep goes on: a chunk and a
	// position in it.
	sweepC, sweepPos int
}

func newHmap(epoch uint64, timed bool) *hmap {
	return &hmap{epoch: epoch, timed: timed}
}

// mem returns the bytes the table holds.
func (m *hmap) mem() int64 {
	return int64(m.room) + 8*int64(cap(m.slots)) + 24*int64(cap(m.chunks)) + 120
}

// clone returns a copy that shares no memory with m. Each chunk keeps its
// capacity: a large chunk stays large.
func (m *hmap) clone(epoch uint64) *hmap {
	c := *m
	c.epoch = epoch
	c.slots = append([]uint64(nil), m.slots...)
	c.chunks = make([][]byte, len(m.chunks))
	for i, ch := range m.chunks {
		if ch != nil {
			c.chunks[i] = append(make([]byte, 0, cap(ch)), ch...)
		}
	}
	return &c
}

// off returns the offset of the entry of slot pos.
func (m *hmap) off(pos int) int { return int(uint32(m.slots[pos])) - 1 }

// at returns the chunk of offset off and the position in it.
func (m *hmap) at(off int) ([]byte, int) { return m.chunks[off>>chunkShift], off & chunkMask }

// large reports whether ch is a large chunk, one entry's.
func large(ch []byte) bool { return cap(ch) > chunkSize }

// find returns the slot of key (hash h) and whether it holds key; when it
// does not, the slot is where key would go.
func (m *hmap) find(h uint64, key []byte) (pos int, found bool) {
	if len(m.slots) == 0 {
		return 0, false
	}
	mask := len(m.slots) - 1
	frag := uint32(h)
	pos = int(frag) & mask
	for {
		s := m.slots[pos]
		if s == 0 {
			return pos, false
		}
		if uint32(s>>32) == frag {
			if m.keyAt(int(uint32(s))-1, key) {
				return pos, true
			}
		}
		pos = (pos + 1) & mask
	}
}

// keyAt reports whether the entry at off has key.
func (m *hmap) keyAt(off int, key []byte) bool {
	ch, p := m.at(off)
	p++
	kl, n := binary.Uvarint(ch[p:])
	if int(kl) != len(key) {
		return false
	}
	p += n
	return bytes.Equal(ch[p:p+int(kl)], key)
}

func (m *hmap) entryAt(pos int) entry {
	ch, p := m.at(m.off(pos))
	return decode(ch, p, m.timed)
}

// get returns key's entry.
func (m *hmap) get(h uint64, key []byte) (entry, bool) {
	pos, ok := m.find(h, key)
	if !ok {
		return entry{}, false
	}
	return m.entryAt(pos), true
}

// put sets key's value and write time; it reports whether key is new.
func (m *hmap) put(h uint64, key, value []byte, time int64) (added bool, err error) {
	if (m.n+1)*4 > len(m.slots)*3 {
		m.grow()
	}
	size := entrySize(key, value, m.timed)
	pos, found := m.find(h, key)
	if found {
		ch, _ := m.at(m.off(pos))
		e := decode(ch, m.off(pos)&chunkMask, m.timed)
		if len(e.value) == len(value) {
			copy(e.value, value)
			if m.timed {
				binary.LittleEndian.PutUint64(ch[e.timeAt:], uint64(time))
			}
			return false, nil
		}
		if m.rewrite(pos, e, key, value, time) {
			m.maybeCompact()
			return false, nil
		}
		// Room first: a compaction moves the entries, the old one too.
		if size <= chunkSize {
			if err := m.makeRoom(size); err != nil {
				return false, err
			}
		}
		m.kill(m.off(pos))
		off, err := m.place(key, value, time, size)
		if err != nil {
			return false, err
		}
		m.slots[pos] = uint64(uint32(h))<<32 | uint64(off+1)
		m.maybeCompact()
		return false, nil
	}
	off, err := m.place(key, value, time, size)
	if err != nil {
		return false, err
	}
	m.slots[pos] = uint64(uint32(h))<<32 | uint64(off+1)
	m.n++
	return true, nil
}

// place writes a new entry of size bytes and returns its offset: at the
// end of the last chunk (makeRoom), or, larger than chunkSize, in a
// large chunk of its own (in the place of a freed one, if any).
func (m *hmap) place(key, value []byte, time int64, size int) (int, error) {
	if size <= chunkSize {
		if err := m.makeRoom(size); err != nil {
			return 0, err
		}
		c := len(m.chunks) - 1
		ch := m.chunks[c]
		m.chunks[c] = appendEntry(ch, key, value, time, m.timed)
		m.used += size
		return c<<chunkShift | len(ch), nil
	}
	if size > maxArena {
		return 0, errTooLarge
	}
	c := 0
	for c < len(m.chunks) && cap(m.chunks[c]) != 0 {
		c++
	}
	if c == len(m.chunks) {
		if c >= maxChunks {
			return 0, errTooLarge
		}
		m.chunks = append(m.chunks, nil)
	}
	m.chunks[c] = appendEntry(make([]byte, 0, size), key, value, time, m.timed)
	m.used += size
	m.room += size
	return c << chunkShift, nil
}

// maxDeadAfter bounds the dead entries after an entry that rewrite looks
// at.
const maxDeadAfter = 8

// rewrite writes key's new value (and time) over its entry e, at slot
// pos, when it fits where e is: in e's bytes and the dead entries right
// after it (up to maxDeadAfter of them), the rest of them becoming one
// dead filler; or, when nothing but dead entries follows e in its chunk,
// in the chunk's free room (the first chunk grows for it while it is the
// only one). It reports false, writing nothing, when the entry has to
// move.
//
// A deduplication's last row per key changes length with its strings: a
// shorter value leaves a few dead bytes after it instead of the whole old
// entry, and a longer one takes them back. A packed Top-N partition
// (Nexmark q19) grows by a row at each of its first rows, while the
// partition is the newest of its key group's, the last entry of its
// chunk: moving it to the end each time left a dead copy per row and
// compacted the arena over and over (a fifth of q19's CPU).
func (m *hmap) rewrite(pos int, e entry, key, value []byte, time int64) bool {
	off := m.off(pos)
	c, at := off>>chunkShift, off&chunkMask
	ch := m.chunks[c]
	size := entrySize(key, value, m.timed)
	if large(ch) && size <= cap(ch)/2 {
		return false // it moves, and its chunk is freed
	}
	end := e.end
	for i := 0; i < maxDeadAfter && end < len(ch) && ch[end] == flagDead; i++ {
		end = decode(ch, end, m.timed).end
	}
	last := end == len(ch)
	switch {
	case at+size == end || (last && at+size < end):
	case at+size < end && fillable(end-at-size, m.timed):
	case at+size < e.end && fillable(e.end-at-size, m.timed):
		end = e.end
	case last && at+size <= cap(ch):
	case last && len(m.chunks) == 1 && at+size <= chunkSize:
		m.growFirst(at + size - len(ch))
		ch = m.chunks[0]
	default:
		return false
	}
	m.dead -= end - e.end
	if last {
		m.chunks[c] = appendEntry(ch[:at], key, value, time, m.timed)
		m.used += at + size - len(ch)
	} else {
		appendEntry(ch[:at:end], key, value, time, m.timed)
		if at+size < end {
			m.fill(ch, at+size, end)
		}
	}
	// The sweep goes on after the entry; at the chunk's end when it was
	// there.
	if m.sweepC == c && m.sweepPos > at && (m.sweepPos < max(end, at+size) || last) {
		m.sweepPos = at + size
	}
	return true
}

// fillable reports whether one dead entry fills exactly n bytes.
func fillable(n int, timed bool) bool {
	_, ok := fillerValueLen(n, timed)
	return ok
}

// fillerValueLen returns the value length of a dead entry of n bytes,
// and false when no entry has exactly that size.
func fillerValueLen(n int, timed bool) (int, bool) {
	// flag | key length 0 | [time] | uvarint value length | value
	head := 2
	if timed {
		head += 8
	}
	n -= head
	vl := n - 1
	if vl >= 0x80 {
		vl = n - uvarintLen(n-2)
		if uvarintLen(vl)+vl != n {
			return 0, false
		}
	}
	return vl, vl >= 0
}

// fill writes a dead entry over ch[from:to], the room a value's shorter
// update left. It reports false, writing nothing, when no entry has
// exactly that size.
func (m *hmap) fill(ch []byte, from, to int) bool {
	vl, ok := fillerValueLen(to-from, m.timed)
	if !ok {
		return false
	}
	b := ch[from:from:to]
	b = append(b, flagDead, 0)
	if m.timed {
		b = append(b, make([]byte, 8)...)
	}
	binary.AppendUvarint(b, uint64(vl))
	m.dead += to - from
	return true
}

// kill marks the entry at off dead. The last entry of a chunk is cut off
// instead (its chunk ends where it started), and a large chunk's entry
// frees its chunk.
func (m *hmap) kill(off int) {
	c, p := off>>chunkShift, off&chunkMask
	ch := m.chunks[c]
	e := decode(ch, p, m.timed)
	switch {
	case large(ch) && p == 0:
		// Dead bytes after the entry (a filler) go with the chunk.
		m.dead -= len(ch) - e.end
		m.used -= len(ch)
		m.room -= cap(ch)
		m.chunks[c] = nil
	case e.end == len(ch):
		m.chunks[c] = ch[:p]
		m.used -= e.end - p
	default:
		ch[p] = flagDead
		m.dead += e.end - p
		return
	}
	if m.sweepC == c && m.sweepPos > p {
		m.sweepPos = p
	}
}

// delete removes key; it reports whether key was there.
func (m *hmap) delete(h uint64, key []byte) bool {
	pos, found := m.find(h, key)
	if !found {
		return false
	}
	m.deleteAt(pos)
	return true
}

func (m *hmap) deleteAt(pos int) {
	m.kill(m.off(pos))
	m.n--
	// Backward shift: move later entries of the probe run into the hole
	// unless their home slot lies cyclically in (hole, their slot].
	mask := len(m.slots) - 1
	i, j := pos, pos
	for {
		j = (j + 1) & mask
		s := m.slots[j]
		if s == 0 {
			break
		}
		k := int(uint32(s>>32)) & mask
		if i <= j {
			if i < k && k <= j {
				continue
			}
		} else if i < k || k <= j {
			continue
		}
		m.slots[i] = s
		i = j
	}
	m.slots[i] = 0
	m.maybeCompact()
}

func (m *hmap) grow() {
	n := max(len(m.slots)*2, 8)
	old := m.slots
	m.slots = make([]uint64, n)
	mask := n - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		p := int(uint32(s>>32)) & mask
		for m.slots[p] != 0 {
			p = (p + 1) & mask
		}
		m.slots[p] = s
	}
}

// maybeCompact moves the live entries down over the dead ones when the
// dead ones are more than a quarter of the entries' bytes. A table whose
// values change length (a deduplication's last row per key, Nexmark q18)
// leaves a dead entry per update: at half, q18's rows at 2·10⁶ events
// were 38% dead (60 of 160 MB). The compaction copies live entries three
// times per dead byte instead of once.
func (m *hmap) maybeCompact() {
	if m.dead*4 <= m.used || m.used < 256 {
		return
	}
	m.compactInPlace()
}

// makeRoom makes room for an entry of size bytes (at most chunkSize) at the end of the last
// chunk: when it has no room and an eighth of the entries' bytes or more
// are dead (a sixteenth when the entries are large), enough to hold the
// entry, the live entries move down over the dead ones; otherwise the
// first chunk grows while it is the only one and stays within chunkSize,
// or a chunk is added. Entries so stay within about a fifth of their live
// bytes (a tenth with large entries): with compactions at a quarter dead
// only, a table whose values keep changing length (a packed Top-N
// partition) held up to two thirds more.
func (m *hmap) makeRoom(size int) error {
	if m.fits(size) {
		return nil
	}
	// An eighth dead; a sixteenth in a table of large entries (512 bytes
	// and more on average), which leave more dead room per update and
	// cost less to move per byte.
	dead := 8
	if m.used-m.dead >= 512*m.n {
		dead = 16
	}
	if m.dead >= size && m.dead*dead >= m.used {
		m.compactInPlace()
		if m.fits(size) {
			return nil
		}
	}
	switch {
	case len(m.chunks) == 0:
		m.growFirst(size)
	case len(m.chunks) == 1 && !large(m.chunks[0]) && len(m.chunks[0])+size <= chunkSize:
		m.growFirst(size)
	case len(m.chunks) >= maxChunks:
		return errTooLarge
	default:
		m.chunks = append(m.chunks, make([]byte, 0, chunkSize))
		m.room += chunkSize
	}
	return nil
}

// fits reports whether the last chunk has room for an entry of size bytes
// at its end (never a large chunk's).
func (m *hmap) fits(size int) bool {
	if len(m.chunks) == 0 {
		return false
	}
	ch := m.chunks[len(m.chunks)-1]
	return !large(ch) && cap(ch)-len(ch) >= size
}

// growFirst grows the only chunk (or makes the first one) for n more
// bytes: by an eighth (doubling while under 4 KiB), up to chunkSize.
func (m *hmap) growFirst(n int) {
	var ch []byte
	if len(m.chunks) == 1 {
		ch = m.chunks[0]
	}
	want := len(ch) + n
	if want <= cap(ch) {
		return
	}
	if want < 4096 {
		want = max(want, 2*cap(ch), 64)
	} else {
		want += want / 8
	}
	want = min(want, chunkSize)
	b := make([]byte, len(ch), want)
	copy(b, ch)
	m.room += want - cap(ch)
	if len(m.chunks) == 1 {
		m.chunks[0] = b
	} else {
		m.chunks = append(m.chunks, b)
	}
}

// compactInPlace moves the live entries, in offset order, down over the
// dead ones, into the chunks they are in or earlier ones; the chunks left
// with nothing are dropped. The caller owns the chunks (a shared hmap is
// copied before a write). A large chunk keeps its entry where it is.
//
// An entry never moves to a later chunk: the write position stays at or
// before the read position, as the live entries before the one read fit
// in the chunks before it (moving to the next chunk when an entry does
// not fit at the end of one: a chunk after the first has chunkSize bytes,
// and every chunk before the one read has been read already).
func (m *hmap) compactInPlace() {
	// The live entries' offsets and slots, in offset order.
	order := make([]uint64, 0, m.n)
	for pos, s := range m.slots {
		if s != 0 {
			order = append(order, uint64(uint32(s)-1)<<32|uint64(pos))
		}
	}
	order = sortByOffset(order, len(m.chunks)<<chunkShift)
	out := make([][]byte, 0, len(m.chunks))
	cur, w := -1, 0 // out's chunk being written, and where
	next := 0       // the next of m.chunks to write into
	for _, o := range order {
		off, pos := int(o>>32), int(uint32(o))
		c, p := off>>chunkShift, off&chunkMask
		ch := m.chunks[c]
		end := decode(ch, p, m.timed).end
		if large(ch) {
			out = append(out, ch[:end])
			m.slots[pos] = m.slots[pos]&^(1<<32-1) | uint64((len(out)-1)<<chunkShift+1)
			continue
		}
		for cur < 0 || w+end-p > cap(out[cur]) {
			// The next chunk that is neither large nor freed: c at the
			// latest.
			for large(m.chunks[next]) || cap(m.chunks[next]) == 0 {
				next++
			}
			if cur >= 0 {
				out[cur] = out[cur][:w]
			}
			out = append(out, m.chunks[next][:0])
			cur, w = len(out)-1, 0
			next++
		}
		if dst := out[cur][:cap(out[cur])]; &dst[w] != &ch[p] {
			copy(dst[w:], ch[p:end])
		}
		m.slots[pos] = m.slots[pos]&^(1<<32-1) | uint64(cur<<chunkShift|w+1)
		w += end - p
	}
	if cur >= 0 {
		out[cur] = out[cur][:w]
	}
	m.chunks = out
	m.used, m.room, m.dead = 0, 0, 0
	for _, ch := range m.chunks {
		m.used += len(ch)
		m.room += cap(ch)
	}
	m.sweepC, m.sweepPos = 0, 0
}

// scan calls fn with each live entry in chunk order (not the order of
// keys) until fn returns false.
func (m *hmap) scan(fn func(e entry) bool) {
	for _, ch := range m.chunks {
		for p := 0; p < len(ch); {
			e := decode(ch, p, m.timed)
			if e.live && !fn(e) {
				return
			}
			p = e.end
		}
	}
}

// sweepNext returns the entry at the TTL sweep's position and moves the
// position past it; at the end of the entries, it returns false and the
// position goes back to the start.
func (m *hmap) sweepNext() (entry, bool) {
	for m.sweepC < len(m.chunks) {
		if ch := m.chunks[m.sweepC]; m.sweepPos < len(ch) {
			e := decode(ch, m.sweepPos, m.timed)
			m.sweepPos = e.end
			return e, true
		}
		m.sweepC, m.sweepPos = m.sweepC+1, 0
	}
	m.sweepC, m.sweepPos = 0, 0
	return entry{}, false
}
