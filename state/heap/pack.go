package heap

import (
	"bytes"
	"fmt"
	"os"

	"github.com/klauspost/compress/huff0"
)

// A list table's chunk is packed once it is full (sealed: no record is
// added to it again, and records are never rewritten): its bytes are
// Huffman-coded as one block (huff0, four streams, its own table), and it
// is read back through a small cache of unpacked chunks. Offsets stay
// those of the unpacked chunk, so prev links and index heads do not
// change. The last chunk of a group, a group's only chunk (it grows by
// doubling up to chunkSize) and chunks of one large record stay as they
// are: a small table is never packed. A chunk that would not shrink by a
// sixteenth stays as it is.
//
// Huffman coding alone, not an LZ codec: Nexmark's rows are mostly random
// strings over a small alphabet (url, extra, channel), which an LZ codec
// such as s2 does not shrink (0.91 of the bytes in 64 KiB chunks of q7's
// bids) and zstd's fastest level shrinks to 0.69, mostly by its entropy
// stage, at a fifth of huff0's speed (80 MB/s to pack on this machine,
// against 400 MB/s for 0.78 with huff0; unpacking 250 against 520 MB/s).
// A table whose reads keep missing the cache stops packing (maxMisses).

// lchunk is a chunk of a list group: its records (id 0), or, packed, the
// huff0 block of its records and their length, or, spilled (spill.go),
// where its records are in the backend's spill file.
type lchunk struct {
	b    []byte
	tail []byte // a packed chunk's bytes after b (see split)
	id   uint64 // a packed or spilled chunk's number (unique in its table): the cache's key
	raw  int    // a packed or spilled chunk's unpacked length
	at   int64  // a spilled chunk's offset in the spill file + 1; 0: in memory
}

// lchunkSize is the size of an lchunk, for the memory count.
const lchunkSize = 72

// packed reports whether c is packed (in memory).
func (c *lchunk) packed() bool { return c.id != 0 && c.at == 0 }

// mem returns the bytes c's slices hold.
func (c *lchunk) mem() int { return cap(c.b) + cap(c.tail) }

// split returns a copy of packed in one or two new slices: an allocation
// larger than 32 KiB takes whole 8 KiB pages, and a packed chunk (about
// 52 KiB of Nexmark's rows) would leave 4 KiB of its last page unused on
// average, a twelfth of it; its whole pages and a small tail (whose size
// class wastes a few hundred bytes) do not.
func split(packed []byte) (b, tail []byte) {
	const page = 8 << 10
	head := len(packed) &^ (page - 1)
	if head <= 32<<10 || head == len(packed) {
		return bytes.Clone(packed), nil
	}
	b = make([]byte, head)
	copy(b, packed)
	tail = make([]byte, len(packed)-head)
	copy(tail, packed[head:])
	return b, tail
}

// packer packs a list table's sealed chunks, and keeps the cache its
// reads unpack them through. Only the table's writer uses it.
type packer struct {
	off   bool // state.Config.CompressLists is false: chunks stay as they are
	sp    *spill
	s     *huff0.Scratch
	last  uint64 // the last packed chunk's id
	cache lcache
}

// maxMisses is the number of chunks a table's reads may unpack between
// two seals for the second to be packed: a table whose reads keep
// missing the cache (a join side probed by most rows of the other, whose
// matches are spread over more chunks than the cache keeps) spends more
// unpacking than packing saves, and keeps its chunks as they are until
// its reads miss less.
const maxMisses = 4

// seal returns the sealed chunk ch spilled, when the backend's memory is
// past its spill threshold (spill.go), else packed, or as it is when
// packing is off (state.Config.CompressLists), when the table's reads
// missed the cache more than maxMisses times since the last seal or when
// it does not shrink by a sixteenth. The error is the spill file's (ch
// is then kept as it is).
func (p *packer) seal(ch []byte) (lchunk, error) {
	misses := p.cache.misses
	p.cache.misses = 0
	if misses > maxMisses {
		return lchunk{b: ch}, nil
	}
	if p.sp != nil && p.sp.wants() {
		at, err := p.sp.write(ch)
		if err != nil {
			return lchunk{b: ch}, err
		}
		p.last++
		return lchunk{id: p.last, at: at + 1, raw: len(ch)}, nil
	}
	if p.off {
		return lchunk{b: ch}, nil
	}
	if p.s == nil {
		p.s = new(huff0.Scratch)
	}
	p.s.Reuse = huff0.ReusePolicyNone
	p.s.WantLogLess = 4
	out, _, err := huff0.Compress4X(ch, p.s)
	if err != nil { // huff0.ErrIncompressible, ErrUseRLE (one byte value, not rows)
		return lchunk{b: ch}, nil
	}
	p.last++
	b, tail := split(out)
	return lchunk{b: b, tail: tail, id: p.last, raw: len(ch)}, nil
}

// cacheSlots is the number of unpacked chunks an lcache keeps (64 KiB
// each, allocated as they are first used): a key group's chunks, for a
// sweep of its keys (DeleteIf per key).
const cacheSlots = 64

// lcache keeps the chunks a table's reads (probes, DeleteIf) last
// unpacked, least recently used first out.
type lcache struct {
	ids  [cacheSlots]uint64
	used [cacheSlots]uint64 // the tick of each slot's last use
	bufs [cacheSlots][]byte
	lens [cacheSlots]int
	tick uint64
	hit  int    // the slot of the last hit
	in   []byte // a packed chunk whose tail is joined to it
	// misses counts the chunks unpacked or read back since the owner
	// last reset it.
	misses int
	s      *huff0.Scratch
	sp     *spill // where spilled chunks are
	// err is the first failed read of a spilled chunk: the table's reads
	// fail from then on (the chunk reads as zeros, an empty first record).
	err error
}

// get returns the records of the packed or spilled chunk ch.
func (c *lcache) get(ch *lchunk) []byte {
	c.tick++
	if c.ids[c.hit] == ch.id {
		c.used[c.hit] = c.tick
		return c.bufs[c.hit][:c.lens[c.hit]:c.lens[c.hit]]
	}
	lru := 0
	for i := range c.ids {
		if c.ids[i] == ch.id {
			c.hit, c.used[i] = i, c.tick
			return c.bufs[i][:c.lens[i]:c.lens[i]]
		}
		if c.used[i] < c.used[lru] {
			lru = i
		}
	}
	buf := c.bufs[lru]
	if cap(buf) < ch.raw {
		buf = make([]byte, max(ch.raw, chunkSize))
		c.bufs[lru] = buf
	}
	c.misses++
	if ch.at != 0 {
		if c.err == nil {
			c.err = readSpilled(c.sp.f, ch, buf)
		}
		if c.err != nil {
			clear(buf[:ch.raw])
			c.ids[lru] = 0
			return buf[:ch.raw:ch.raw]
		}
	} else {
		c.s = unpack(c.s, ch, buf, &c.in)
	}
	c.ids[lru], c.used[lru], c.lens[lru], c.hit = ch.id, c.tick, ch.raw, lru
	return buf[:ch.raw:ch.raw]
}

// unpack writes the records of the packed chunk ch to dst[:ch.raw] and
// returns the scratch it used (s, or a new one when s is nil); in is a
// buffer for joining the chunk's tail to it.
func unpack(s *huff0.Scratch, ch *lchunk, dst []byte, in *[]byte) *huff0.Scratch {
	src := ch.b
	if ch.tail != nil {
		*in = append(append((*in)[:0], ch.b...), ch.tail...)
		src = *in
	}
	s, rest, err := huff0.ReadTable(src, s)
	if err != nil {
		panic(fmt.Sprintf("heap state: a packed list chunk does not read: %v", err))
	}
	// Decompress4X wants the unpacked length as the capacity.
	out, err := s.Decoder().Decompress4X(dst[:0:ch.raw], rest)
	if err != nil || len(out) != ch.raw {
		panic(fmt.Sprintf("heap state: a packed list chunk does not unpack: %d of %d bytes, %v", len(out), ch.raw, err))
	}
	return s
}

// unpacker gives a list group whose chunks are all unpacked (or read
// back), for reading all of its records at once (a snapshot's scan, a
// compaction): through the cache, a group of more chunks than it keeps
// would unpack chunks again and again as the walk of each key goes back
// through them.
type unpacker struct {
	buf    []byte
	chunks []lchunk
	s      *huff0.Scratch
	in     []byte
	f      *os.File // the spill file, for spilled chunks
}

// group returns g itself when it has no packed or spilled chunk, else a
// copy of g whose chunks are unpacked into u's buffer (valid until the
// next call). The error is a spilled chunk's read.
func (u *unpacker) group(g *lgroup) (*lgroup, error) {
	total := 0
	for i := range g.chunks {
		total += g.chunks[i].raw
	}
	if total == 0 {
		return g, nil
	}
	if cap(u.buf) < total {
		u.buf = make([]byte, total)
	}
	u.chunks = append(u.chunks[:0], g.chunks...)
	at := 0
	for i := range u.chunks {
		ch := &u.chunks[i]
		if ch.id == 0 {
			continue
		}
		dst := u.buf[at : at+ch.raw : at+ch.raw]
		if ch.at != 0 {
			if err := readSpilled(u.f, ch, dst); err != nil {
				return nil, err
			}
		} else {
			u.s = unpack(u.s, ch, dst, &u.in)
		}
		at += ch.raw
		*ch = lchunk{b: dst}
	}
	c := *g
	c.chunks = u.chunks
	return &c, nil
}
