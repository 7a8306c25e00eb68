package heap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
)

// Entries live in arenas (a sorted map's []byte; a hash table's chunks,
// see chunkSize), one after the other:
//
//	flag (1: live, 0: dead) | uvarint len(key) | key | [write time: 8 bytes LE] | uvarint len(value) | value
//
// The write time is there only in a table with a TTL. An update whose value
// has the length of the old one overwrites it in place; in a hash table, a
// shorter one is rewritten in place too, the bytes it no longer needs
// becoming a dead entry of their own (key length 0), and so is a longer one
// that fits in its entry and the dead entries after it, or whose entry is
// the last of its chunk (hmap.rewrite); any other update appends a new
// entry and marks the old one dead, and a hash table compacts its chunks
// when more than a quarter of their entries' bytes are dead (a sorted map:
// half, and before it grows its arena it moves its live entries down over
// the dead ones when a quarter of it is dead).
// Entries are addressed by 32-bit offsets: a table holds at most 4 GiB per
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
