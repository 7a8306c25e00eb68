package heap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
)

// Entries live in arenas (one []byte per hash table or sorted map), one
// after the other:
//
//	flag (1: live, 0: dead) | uvarint len(key) | key | [write time: 8 bytes LE] | uvarint len(value) | value
//
// The write time is there only in a table with a TTL. An update whose value
// has the length of the old one overwrites it in place; in a hash table, a
// shorter one is rewritten in place too, the bytes it no longer needs
// becoming a dead entry of their own (key length 0), and so is a longer one
// that fits in its entry and the dead entries after it, or whose entry is
// the last of the arena (hmap.rewrite); any other update appends a new
// entry and marks the old one dead, and a hash table compacts
// its arena when more than a quarter of it is dead (a sorted map: half, and
// before it grows its arena it moves its live entries down over the dead
// ones when a quarter of it is dead).
// Arenas are addressed by 32-bit offsets: a table holds at most 4 GiB per
// key group.

const (
	flagDead = 0
	flagLive = 1
	maxArena = 1<<32 - 2
)

// errTooLarge is returned when one table's entries of one key group pass
// 4 GiB.
var errTooLarge = errors.New("a table's state of one key group passed 4 GiB, the heap backend's bound (use the disk backend)")

// entry is an entry decoded in place.
type entry struct {
	key, value []byte
	time       int64 // write time (ms), in a timed arena
	timeAt     int   // offset of the time field
	end        int   // offset after the entry
	live       bool
}

// decode reads the entry at off of arena (which the table wrote: it is not
// checked).
func decode(arena []byte, off int, timed bool) entry {
	e := entry{live: arena[off] == flagLive}
	p := off + 1
	kl, n := binary.Uvarint(arena[p:])
	p += n
	e.key = arena[p : p+int(kl) : p+int(kl)]
	p += int(kl)
	if timed {
		e.timeAt = p
		e.time = int64(binary.LittleEndian.Uint64(arena[p:]))
		p += 8
	}
	vl, n := binary.Uvarint(arena[p:])
	p += n
	e.value = arena[p : p+int(vl) : p+int(vl)]
	e.end = p + int(vl)
	return e
}

func entrySize(key, value []byte, timed bool) int {
	n := 1 + uvarintLen(len(key)) + len(key) + uvarintLen(len(value)) + len(value)
	if timed {
		n += 8
	}
	return n
}

func uvarintLen(n int) int {
	l := 1
	for n >= 0x80 {
		n >>= 7
		l++
	}
	return l
}

func appendEntry(arena, key, value []byte, time int64, timed bool) []byte {
	arena = append(arena, flagLive)
	arena = binary.AppendUvarint(arena, uint64(len(key)))
	arena = append(arena, key...)
	if timed {
		arena = binary.LittleEndian.AppendUint64(arena, uint64(time))
	}
	arena = binary.AppendUvarint(arena, uint64(len(value)))
	return append(arena, value...)
}

// hmap is a hash table of byte keys and values: open addressing with
// linear probing and backward-shift deletion (no tombstones) over slots of
// 8 bytes (32 bits of the key's hash and the offset+1 of its entry, 0 for
// an empty slot), and the entries in an arena. A BIGINT key with a COUNT
// and SUM accumulator takes about 15 bytes of arena and 8 bytes per slot
// at a load of at most 3/4; no Go pointer per entry, so the garbage
// collector does not look at entries.
type hmap struct {
	epoch    uint64 // the backend's epoch when this copy was made (see Backend.shared)
	slots    []uint64
	arena    []byte
	n        int  // live entries
	dead     int  // bytes of dead entries in arena
	timed    bool // entries carry a write time
	sweepPos int  // where the TTL sweep goes on in arena
	// quarter makes a large arena grow by about a quarter, not an eighth:
	// a map table's key index (newIndex), which holds the one-entry keys'
	// whole entries (a join's rows) and grows with every key.
	quarter bool
}

func newHmap(epoch uint64, timed bool) *hmap {
	return &hmap{epoch: epoch, timed: timed}
}

// newIndex returns the key index of a map table's key group (mgroup):
// its arena grows by about a quarter. By an eighth, every byte of a
// join's one-entry keys was copied about eight times as the key group
// grew (Nexmark q7's bids by price: 5% of its CPU at 10⁶ events in
// reserve, and the collector's share of the copies); by a quarter about
// four times, for a larger last growth's unused room.
func newIndex(epoch uint64) *hmap {
	return &hmap{epoch: epoch, quarter: true}
}

// mem returns the bytes the table holds.
func (m *hmap) mem() int64 { return int64(cap(m.arena)) + 8*int64(cap(m.slots)) + 96 }

// clone returns a copy that shares no memory with m.
func (m *hmap) clone(epoch uint64) *hmap {
	c := *m
	c.epoch = epoch
	c.slots = slices.Clone(m.slots)
	c.arena = slices.Clone(m.arena)
	return &c
}

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
			off := int(uint32(s)) - 1
			if m.keyAt(off, key) {
				return pos, true
			}
		}
		pos = (pos + 1) & mask
	}
}

// keyAt reports whether the entry at off has key.
func (m *hmap) keyAt(off int, key []byte) bool {
	p := off + 1
	kl, n := binary.Uvarint(m.arena[p:])
	if int(kl) != len(key) {
		return false
	}
	p += n
	return bytes.Equal(m.arena[p:p+int(kl)], key)
}

func (m *hmap) entryAt(pos int) entry {
	return decode(m.arena, int(uint32(m.slots[pos]))-1, m.timed)
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
	pos, found := m.find(h, key)
	if found {
		e := m.entryAt(pos)
		if len(e.value) == len(value) {
			copy(e.value, value)
			if m.timed {
				binary.LittleEndian.PutUint64(m.arena[e.timeAt:], uint64(time))
			}
			return false, nil
		}
		if m.rewrite(pos, e, key, value, time) {
			m.maybeCompact()
			return false, nil
		}
		off := len(m.arena)
		if off+entrySize(key, value, m.timed) > maxArena {
			return false, errTooLarge
		}
		// Room first: a compaction moves the entries, the old one too.
		m.makeRoom(entrySize(key, value, m.timed))
		at := int(uint32(m.slots[pos])) - 1
		m.kill(at, decode(m.arena, at, m.timed))
		off = len(m.arena)
		m.arena = appendEntry(m.arena, key, value, time, m.timed)
		m.slots[pos] = uint64(uint32(h))<<32 | uint64(off+1)
		m.maybeCompact()
		return false, nil
	}
	off := len(m.arena)
	if off+entrySize(key, value, m.timed) > maxArena {
		return false, errTooLarge
	}
	m.makeRoom(entrySize(key, value, m.timed))
	off = len(m.arena)
	m.arena = appendEntry(m.arena, key, value, time, m.timed)
	m.slots[pos] = uint64(uint32(h))<<32 | uint64(off+1)
	m.n++
	return true, nil
}

// maxDeadAfter bounds the dead entries after an entry that rewrite looks
// at.
const maxDeadAfter = 8

// rewrite writes key's new value (and time) over its entry e, at slot
// pos, when it fits where e is: in e's bytes and the dead entries right
// after it (up to maxDeadAfter of them), the rest of them becoming one
// dead filler; or, when nothing but dead entries follows e, at the end of
// the arena, which it then ends (making room there first, growing the
// arena or compacting it: the last live entry stays the last). It
// reports false, writing nothing, when the entry has to move.
//
// A deduplication's last row per key changes length with its strings: a
// shorter value leaves a few dead bytes after it instead of the whole old
// entry, and a longer one takes them back. A packed Top-N partition
// (Nexmark q19) grows by a row at each of its first rows, while the
// partition is the newest of its key group's, the last entry of the
// arena: moving it to the end each time left a dead copy per row and
// compacted the arena over and over (a fifth of q19's CPU).
func (m *hmap) rewrite(pos int, e entry, key, value []byte, time int64) bool {
	at := int(uint32(m.slots[pos])) - 1
	size := entrySize(key, value, m.timed)
	end := e.end
	for i := 0; i < maxDeadAfter && end < len(m.arena) && m.arena[end] == flagDead; i++ {
		end = decode(m.arena, end, m.timed).end
	}
	last := end == len(m.arena)
	switch {
	case at+size == end || (last && at+size < end):
	case at+size < end && fillable(end-at-size, m.timed):
	case at+size < e.end && fillable(e.end-at-size, m.timed):
		end = e.end
	case last:
		if at+size > maxArena {
			return false
		}
		if at+size > cap(m.arena) {
			m.makeRoom(at + size - len(m.arena))
			// A compaction moved the entry down and dropped the dead
			// ones after it.
			at = int(uint32(m.slots[pos])) - 1
			e = decode(m.arena, at, m.timed)
			end = len(m.arena)
		}
	default:
		return false
	}
	m.dead -= end - e.end
	if last {
		m.arena = appendEntry(m.arena[:at], key, value, time, m.timed)
	} else {
		appendEntry(m.arena[:at:end], key, value, time, m.timed)
		if at+size < end {
			m.fill(at+size, end)
		}
	}
	if m.sweepPos > at && m.sweepPos < max(end, at+size) {
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

// fill writes a dead entry over arena[from:to], the room a value's
// shorter update left. It reports false, writing nothing, when no entry
// has exactly that size.
func (m *hmap) fill(from, to int) bool {
	vl, ok := fillerValueLen(to-from, m.timed)
	if !ok {
		return false
	}
	b := m.arena[from:from:to]
	b = append(b, flagDead, 0)
	if m.timed {
		b = append(b, make([]byte, 8)...)
	}
	binary.AppendUvarint(b, uint64(vl))
	m.dead += to - from
	return true
}

// kill marks the entry e at off dead.
func (m *hmap) kill(off int, e entry) {
	m.arena[off] = flagDead
	m.dead += e.end - off
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
	off := int(uint32(m.slots[pos])) - 1
	m.kill(off, decode(m.arena, off, m.timed))
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

// maybeCompact rewrites the arena without its dead entries when they are
// more than a quarter of it. A table whose values change length (a
// deduplication's last row per key, Nexmark q18) leaves a dead entry per
// update: at half, q18's rows at 2·10⁶ events were 38% dead (60 of 160 MB).
// The rewrite copies live entries three times per dead byte instead of
// once, in memmoves of one key group's arena.
func (m *hmap) maybeCompact() {
	if m.dead*4 <= len(m.arena) || len(m.arena) < 256 {
		return
	}
	if cap(m.arena) <= 2*(len(m.arena)-m.dead) {
		// The arena is not much larger than its live entries need: they
		// move down in it, rather than to a new arena. A table whose
		// large values change length (a packed Top-N partition, Nexmark
		// q19) compacts often; a new arena each time was a copy of the key
		// group's entries to allocate, zero and return to the OS.
		m.compactInPlace()
		return
	}
	arena := make([]byte, 0, len(m.arena)-m.dead+len(m.arena)/8)
	for pos, s := range m.slots {
		if s == 0 {
			continue
		}
		off := int(uint32(s)) - 1
		e := decode(m.arena, off, m.timed)
		m.slots[pos] = s&^(1<<32-1) | uint64(len(arena)+1)
		arena = append(arena, m.arena[off:e.end]...)
	}
	m.arena = arena
	m.dead = 0
	m.sweepPos = 0
}

// makeRoom makes room for an entry of size bytes at the end of the
// arena: when the arena is full and an eighth of it or more is dead (a
// sixteenth when its entries are large), enough to hold the entry, its
// live entries move down over the dead ones in place; otherwise a large
// arena grows by an eighth (reserve), a small one as append grows it.
// Arenas so stay within about a fifth of their live entries (a tenth with
// large entries): with append's growth alone (by a quarter and more) and
// compactions at a quarter dead, a table whose values keep changing
// length (a packed Top-N partition) held up to two thirds more.
func (m *hmap) makeRoom(size int) {
	if cap(m.arena)-len(m.arena) >= size {
		return
	}
	// An eighth dead; a sixteenth in a table of large entries (512 bytes
	// and more on average), which leave more dead room per update and
	// cost less to move per byte.
	dead := 8
	if len(m.arena)-m.dead >= 512*m.n {
		dead = 16
	}
	if m.dead >= size && m.dead*dead >= len(m.arena) {
		m.compactInPlace()
		if cap(m.arena)-len(m.arena) >= size {
			return
		}
	}
	if len(m.arena) >= 4096 {
		n := size
		if m.quarter {
			n += len(m.arena) / 8 // and reserve's eighth on top
		}
		m.arena = reserve(m.arena, n)
	}
}

// compactInPlace moves the live entries, in arena order, to the front of
// the arena over the dead ones. The caller owns the arena (a shared hmap
// is copied before a write).
func (m *hmap) compactInPlace() {
	// The live entries' offsets and slots, in arena order.
	order := make([]uint64, 0, m.n)
	for pos, s := range m.slots {
		if s != 0 {
			order = append(order, uint64(uint32(s)-1)<<32|uint64(pos))
		}
	}
	order = sortByOffset(order, len(m.arena))
	w := 0
	for _, o := range order {
		off, pos := int(o>>32), int(uint32(o))
		end := decode(m.arena, off, m.timed).end
		if w != off {
			copy(m.arena[w:], m.arena[off:end])
		}
		m.slots[pos] = m.slots[pos]&^(1<<32-1) | uint64(w+1)
		w += end - off
	}
	m.arena = m.arena[:w]
	m.dead = 0
	m.sweepPos = 0
}

// sortByOffset sorts xs (offset<<32 | slot, offsets below arena) by
// offset and returns it: a radix sort on the offset's significant bits, 11
// at a time (a quarter of the comparison sort's time on Nexmark q18's key
// groups of ~10,000 entries).
func sortByOffset(xs []uint64, arena int) []uint64 {
	if len(xs) < 64 {
		slices.Sort(xs)
		return xs
	}
	tmp := make([]uint64, len(xs))
	var count [1 << 11]int
	for shift := 32; arena>>(shift-32) > 0; shift += 11 {
		clear(count[:])
		for _, x := range xs {
			count[x>>shift&(1<<11-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, x := range xs {
			d := x >> shift & (1<<11 - 1)
			tmp[count[d]] = x
			count[d]++
		}
		xs, tmp = tmp, xs
	}
	return xs
}

// scan calls fn with each live entry in arena order (not the order of
// keys) until fn returns false.
func (m *hmap) scan(fn func(e entry) bool) {
	for off := 0; off < len(m.arena); {
		e := decode(m.arena, off, m.timed)
		if e.live && !fn(e) {
			return
		}
		off = e.end
	}
}

// reserve returns arena with room for n more bytes. A sorted map's arena
// is small (a few kilobytes: the rows of one join key, one partition's
// Top-N) and there is one per key, so append's growth (doubling below 256
// bytes, then by a quarter and more, then up to the size class) left a
// fifth of a join's state unused: Nexmark q20's join at 10⁶ events kept
// 158 MB of entries in 191 MB of arenas. reserve grows by an eighth, up to
// the top of the allocation's size class (177 MB there), at the cost of
// more and smaller copies as a key's entries arrive.
func reserve(arena []byte, n int) []byte {
	if cap(arena)-len(arena) >= n {
		return arena
	}
	want := len(arena) + n
	want += want / 8
	// Appending to a slice of less than half want's capacity allocates the
	// size class that holds want and makes all of it the capacity; append
	// does not clear what it copies, only what it adds, so the first h
	// bytes come through it and the rest by copy: half the zeroing of
	// appending to nil (the zeroing was 10% of Nexmark q19's CPU, whose
	// key groups' arenas grow throughout).
	h := min(len(arena), (want-1)/2)
	b := append(arena[:h:h], make([]byte, want-h)...)
	copy(b[h:], arena[h:])
	return b[:len(arena)]
}

// submap is the sorted map of one key of a MapTable: entries in an arena
// (as hmap's) and their offsets sorted by sub-key.
type submap struct {
	epoch uint64
	offs  []uint32 // offsets of the live entries, by sub-key
	arena []byte
	dead  int
	timed bool
}

func (s *submap) mem() int64 { return int64(cap(s.arena)) + 4*int64(cap(s.offs)) + 80 }

func (s *submap) clone(epoch uint64) *submap {
	c := *s
	c.epoch = epoch
	c.offs = slices.Clone(s.offs)
	c.arena = slices.Clone(s.arena)
	return &c
}

// find returns the index of sub in offs, or where it would go.
func (s *submap) find(sub []byte) (int, bool) {
	return slices.BinarySearchFunc(s.offs, sub, func(off uint32, sub []byte) int {
		p := int(off) + 1
		kl, n := binary.Uvarint(s.arena[p:])
		p += n
		return bytes.Compare(s.arena[p:p+int(kl)], sub)
	})
}

func (s *submap) entry(i int) entry { return decode(s.arena, int(s.offs[i]), s.timed) }

func (s *submap) put(sub, value []byte, time int64) (added bool, err error) {
	i, found := s.find(sub)
	return s.putAt(i, found, sub, value, time)
}

// putAt is put with the result of find(sub).
func (s *submap) putAt(i int, found bool, sub, value []byte, time int64) (added bool, err error) {
	if found {
		e := s.entry(i)
		if len(e.value) == len(value) {
			copy(e.value, value)
			if s.timed {
				binary.LittleEndian.PutUint64(s.arena[e.timeAt:], uint64(time))
			}
			return false, nil
		}
		off := len(s.arena)
		size := entrySize(sub, value, s.timed)
		if off+size > maxArena {
			return false, errTooLarge
		}
		// Room first: a compaction moves the old entry too.
		s.makeRoom(size)
		e = s.entry(i)
		s.arena[s.offs[i]] = flagDead
		s.dead += e.end - int(s.offs[i])
		s.offs[i] = uint32(len(s.arena))
		s.arena = appendEntry(s.arena, sub, value, time, s.timed)
		s.maybeCompact()
		return false, nil
	}
	off := len(s.arena)
	size := entrySize(sub, value, s.timed)
	if off+size > maxArena {
		return false, errTooLarge
	}
	s.makeRoom(size)
	s.offs = slices.Insert(s.offs, i, uint32(len(s.arena)))
	s.arena = appendEntry(s.arena, sub, value, time, s.timed)
	return true, nil
}

// makeRoom makes room for an entry of size bytes at the end of the arena:
// when the arena is full and a quarter of it or more is dead, enough to
// hold the entry, it moves the live entries down over the dead ones in
// place; otherwise it grows the arena (reserve). A map whose entries come
// and go (a Top-N partition: each row that enters evicts one) so reuses
// its arena instead of growing a new one every few entries (those
// copies were 5% of Nexmark q19's CPU, and garbage for the collector).
func (s *submap) makeRoom(size int) {
	if cap(s.arena)-len(s.arena) >= size {
		return
	}
	if s.dead >= size && s.dead*4 >= len(s.arena) {
		s.compactInPlace()
		if cap(s.arena)-len(s.arena) >= size {
			return
		}
	}
	s.arena = reserve(s.arena, size)
}

// compactInPlace moves the live entries, in arena order, to the front of
// the arena over the dead ones. The caller owns the arena (no snapshot
// holds it: a shared submap is copied before a write).
func (s *submap) compactInPlace() {
	w := 0
	for r := 0; r < len(s.arena); {
		e := decode(s.arena, r, s.timed)
		if e.live {
			// The entries not moved yet are still at their offsets (w <= r),
			// and the moved ones at their new ones: find sees a sorted offs.
			i, _ := s.find(e.key)
			copy(s.arena[w:], s.arena[r:e.end])
			s.offs[i] = uint32(w)
			w += e.end - r
		}
		r = e.end
	}
	s.arena = s.arena[:w]
	s.dead = 0
}

func (s *submap) deleteAt(i int) {
	e := s.entry(i)
	s.arena[s.offs[i]] = flagDead
	s.dead += e.end - int(s.offs[i])
	s.offs = slices.Delete(s.offs, i, i+1)
	s.maybeCompact()
}

func (s *submap) maybeCompact() {
	if s.dead*2 <= len(s.arena) || len(s.arena) < 256 {
		return
	}
	arena := make([]byte, 0, len(s.arena)-s.dead+len(s.arena)/8)
	for i, off := range s.offs {
		e := decode(s.arena, int(off), s.timed)
		s.offs[i] = uint32(len(arena))
		arena = append(arena, s.arena[off:e.end]...)
	}
	s.arena = arena
	s.dead = 0
}
