package heap

import (
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/state"
)

// A list table (state.ListTable) keeps, per key group, an index (an hmap)
// from each key to its list's head, and the lists' values as records in
// chunks of chunkSize bytes shared by the key group's keys:
//
//	record: prev (4 bytes LE: offset+1 of the key's previous record, 0 for its first) | uvarint len(value) | value
//	index value: offset+1 of the key's last record (4 bytes LE) | number of records (4 bytes LE)
//
// An append writes a record at the end of the last chunk and updates the
// key's index value in place: no search among the key's values, no count
// per distinct value, no allocation per key and no Go pointer per record
// (the collector does not look at them). A key's values are read by
// walking its records back from the last one and are given in append
// order. Records are never changed once written, so a snapshot's cut
// shares the chunks (a copy of their slice headers: appends after the cut
// go beyond the lengths the cut holds) and copies only the index; DeleteIf
// writes a key's remaining values as new records, and a group a third of
// whose bytes are dead is compacted into new chunks.
//
// A full chunk is packed (pack.go) or spilled to the backend's working
// file (spill.go) and read through a cache of unpacked chunks; offsets
// are those of the unpacked chunk.
//
// Nexmark's joins (q4, q7, q9, q20) keep both inputs so: their inputs are
// insert-only and have no unique key.

// lgroup is a list table's state of one key group.
type lgroup struct {
	epoch  uint64
	index  *hmap
	chunks []lchunk
	used   int // bytes of records, live and dead
	room   int // the chunks' capacities
	dead   int // bytes of dead records
	n      int // live records
}

func (g *lgroup) mem() int64 {
	return g.index.mem() + int64(g.room) + lchunkSize*int64(cap(g.chunks)) + 64
}

// clone returns a copy of g for writing after a snapshot's cut: its own
// index, the chunks shared (records are never rewritten; the last chunk's
// appends go past the length the cut holds).
func (g *lgroup) clone(epoch uint64) *lgroup {
	c := *g
	c.epoch = epoch
	c.index = g.index.clone(epoch)
	c.chunks = append(make([]lchunk, 0, cap(g.chunks)), g.chunks...)
	return &c
}

// cloneMem is what a clone adds to the memory count (its index and chunk
// list; the chunks are shared).
func (g *lgroup) cloneMem() int64 { return g.index.mem() + lchunkSize*int64(cap(g.chunks)) + 64 }

// record returns the record at off: its previous record's offset+1 and its
// value. A packed chunk is read through c: value is valid until the next
// read through c.
func (g *lgroup) record(off int, c *lcache) (prev uint32, value []byte) {
	ch := g.chunks[off>>chunkShift].b
	if lc := &g.chunks[off>>chunkShift]; lc.id != 0 {
		ch = c.get(lc)
	}
	p := off & chunkMask
	prev = binary.LittleEndian.Uint32(ch[p:])
	p += 4
	n, k := binary.Uvarint(ch[p:])
	p += k
	return prev, ch[p : p+int(n) : p+int(n)]
}

// add writes a record of value after prev and returns its offset. The
// chunk it leaves for a new one is packed by p.
func (g *lgroup) add(prev uint32, value []byte, p *packer) (int, error) {
	size := 4 + uvarintLen(len(value)) + len(value)
	c := len(g.chunks) - 1
	if c < 0 || large(g.chunks[c].b) || cap(g.chunks[c].b)-len(g.chunks[c].b) < size {
		if len(g.chunks) >= maxChunks {
			return 0, errTooLarge
		}
		// The first chunk starts small: a small group stays small.
		want := chunkSize
		if size > chunkSize {
			want = size
		} else if c < 0 {
			want = max(256, size)
		} else if cap(g.chunks[c].b) < chunkSize && len(g.chunks) == 1 {
			// The only chunk grows by doubling, up to chunkSize, into a new
			// slice (a cut may hold the old one).
			want = min(chunkSize, max(2*cap(g.chunks[c].b), size+len(g.chunks[c].b)))
			if want >= len(g.chunks[c].b)+size {
				ch := make([]byte, len(g.chunks[c].b), want)
				copy(ch, g.chunks[c].b)
				g.room += want - cap(g.chunks[c].b)
				g.chunks[c].b = ch
				return g.write(c, prev, value)
			}
			want = chunkSize
		}
		if c >= 0 && cap(g.chunks[c].b) == chunkSize {
			// The chunk is sealed: no record is added to it again.
			old := cap(g.chunks[c].b)
			sealed, err := p.seal(g.chunks[c].b)
			g.chunks[c] = sealed
			g.room += g.chunks[c].mem() - old
			if err != nil {
				return 0, err
			}
		}
		g.chunks = append(g.chunks, lchunk{b: make([]byte, 0, want)})
		g.room += want
		c++
	}
	return g.write(c, prev, value)
}

func (g *lgroup) write(c int, prev uint32, value []byte) (int, error) {
	ch := g.chunks[c].b
	off := c<<chunkShift | len(ch)
	ch = binary.LittleEndian.AppendUint32(ch, prev)
	ch = binary.AppendUvarint(ch, uint64(len(value)))
	ch = append(ch, value...)
	g.used += len(ch) - len(g.chunks[c].b)
	g.chunks[c].b = ch
	g.n++
	return off, nil
}

// walk appends to offs the offsets of the records of the list whose last
// record is at last-1, in append order.
func (g *lgroup) walk(last uint32, offs []uint32, c *lcache) []uint32 {
	start := len(offs)
	for p := last; p != 0; {
		offs = append(offs, p-1)
		p, _ = g.record(int(p-1), c)
	}
	for i, j := start, len(offs)-1; i < j; i, j = i+1, j-1 {
		offs[i], offs[j] = offs[j], offs[i]
	}
	return offs
}

func recordSize(value []byte) int { return 4 + uvarintLen(len(value)) + len(value) }

// listTable is a list table of the heap backend.
type listTable struct{ t *table }

// List returns the list table called name. A list table has no TTL: a
// TTL option is refused (the table's calls fail).
func (b *Backend) List(name string, opts ...state.TableOption) state.ListTable {
	var tc state.TableConfig
	for _, o := range opts {
		o(&tc)
	}
	if tc.TTL > 0 {
		return badList{fmt.Errorf("state table %q of %s: a list table has no TTL", name, operator(b.cfg))}
	}
	t := b.tables[name]
	if t == nil {
		t = b.newTable(name, false, false)
		t.isList, t.vals = true, nil
		t.lists = make([]*lgroup, b.kgs.Len())
	}
	if !t.isList {
		return badList{fmt.Errorf("state table %q of %s is not a list table", name, operator(b.cfg))}
	}
	return listTable{t}
}

// lgroupW returns key group i's list group ready for a write.
func (t *table) lgroupW(i int) *lgroup {
	g := t.lists[i]
	if g == nil {
		g = &lgroup{epoch: t.b.epoch, index: newHmap(t.b.epoch, false)}
		t.lists[i] = g
		t.b.bytes.Add(g.mem())
	} else if t.b.shared(g.epoch) {
		c := g.clone(t.b.epoch)
		t.b.bytes.Add(c.cloneMem())
		t.lists[i], g = c, c
	}
	return g
}

func (l listTable) Append(kg int, key, value []byte) error {
	t := l.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	g := t.lgroupW(i)
	before := g.mem()
	err = g.append(t.b.hash(key), key, value, &t.scratch, &t.pk)
	t.b.bytes.Add(g.mem() - before)
	if err != nil {
		return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
	}
	t.b.entries.Add(1)
	return t.b.checkMemory()
}

// append adds value to key's (hash h) list.
func (g *lgroup) append(h uint64, key, value []byte, scratch *[]byte, p *packer) error {
	if g.used+recordSize(value) > maxArena {
		return errTooLarge
	}
	pos, found := g.index.find(h, key)
	if found {
		head := g.index.entryAt(pos).value
		off, err := g.add(binary.LittleEndian.Uint32(head), value, p)
		if err != nil {
			return err
		}
		binary.LittleEndian.PutUint32(head, uint32(off+1))
		binary.LittleEndian.PutUint32(head[4:], binary.LittleEndian.Uint32(head[4:])+1)
		return nil
	}
	off, err := g.add(0, value, p)
	if err != nil {
		return err
	}
	v := binary.LittleEndian.AppendUint32((*scratch)[:0], uint32(off+1))
	v = binary.LittleEndian.AppendUint32(v, 1)
	*scratch = v
	_, err = g.index.put(h, key, v, 0)
	return err
}

func (l listTable) RangeList(kg int, key []byte, fn func(value []byte) bool) error {
	t := l.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	g := t.lists[i]
	if g == nil {
		return nil
	}
	e, ok := g.index.get(t.b.hash(key), key)
	if !ok {
		return nil
	}
	// The offsets are collected first: fn may be long, and records are
	// given in append order.
	c := &t.pk.cache
	offs := g.walk(binary.LittleEndian.Uint32(e.value), t.offs[:0], c)
	t.offs = offs[:0]
	for _, off := range offs {
		_, v := g.record(int(off), c)
		if c.err != nil {
			return t.readErr()
		}
		if !fn(v) {
			break
		}
	}
	return t.readErr()
}

// readErr returns the error of the table's failed read of a spilled chunk,
// if any.
func (t *table) readErr() error {
	if err := t.pk.cache.err; err != nil {
		return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
	}
	return nil
}

func (l listTable) DeleteIf(kg int, key []byte, drop func(value []byte) bool) error {
	t := l.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	if g := t.lists[i]; g == nil {
		return nil
	} else if _, ok := g.index.get(t.b.hash(key), key); !ok {
		return nil
	}
	g := t.lgroupW(i)
	before := g.mem()
	h := t.b.hash(key)
	pos, _ := g.index.find(h, key)
	head := g.index.entryAt(pos).value
	offs := g.walk(binary.LittleEndian.Uint32(head), t.offs[:0], &t.pk.cache)
	t.offs = offs[:0]
	keep := offs[:0]
	for _, off := range offs {
		_, v := g.record(int(off), &t.pk.cache)
		if err := t.readErr(); err != nil {
			return err
		}
		if !drop(v) {
			keep = append(keep, off)
		}
	}
	dropped := len(offs) - len(keep)
	if dropped == 0 {
		return nil
	}
	// The dropped records' bytes, and those of the kept ones (written
	// again below), die.
	for _, off := range offs {
		_, v := g.record(int(off), &t.pk.cache)
		g.dead += recordSize(v)
	}
	g.n -= len(offs)
	t.b.entries.Add(-int64(dropped))
	if len(keep) == 0 {
		g.index.deleteAt(pos)
	} else {
		var last uint32
		for _, off := range keep {
			_, v := g.record(int(off), &t.pk.cache)
			if err := t.readErr(); err != nil {
				return err
			}
			no, err := g.add(last, v, &t.pk)
			if err != nil {
				t.b.bytes.Add(g.mem() - before)
				return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
			}
			last = uint32(no + 1)
		}
		binary.LittleEndian.PutUint32(head, last)
		binary.LittleEndian.PutUint32(head[4:], uint32(len(keep)))
	}
	err = g.maybeCompact(&t.offs, &t.pk)
	t.b.bytes.Add(g.mem() - before)
	if err != nil {
		return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
	}
	if err := t.readErr(); err != nil {
		return err
	}
	return t.b.checkMemory()
}

func (l listTable) DeleteKey(kg int, key []byte) error {
	return l.DeleteIf(kg, key, func([]byte) bool { return true })
}

func (l listTable) Keys(kg int, fn func(key []byte) bool) error {
	t := l.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	if g := t.lists[i]; g != nil {
		g.index.scan(func(e entry) bool { return fn(e.key) })
	}
	return nil
}

// maybeCompact writes the live records into new chunks when a third of
// the group's bytes are dead (the old chunks may be held by a cut: they
// are left as they are; the slots of spilled ones are freed once no cut
// may read them). The error is the spill file's: the group is then
// partly written, and the table must not be used again.
func (g *lgroup) maybeCompact(offs *[]uint32, p *packer) error {
	if g.dead*3 <= g.used || g.used < 4096 {
		return nil
	}
	u := unpacker{f: p.sp.f} // the old chunks, unpacked at once (freed after)
	og, err := u.group(g)
	if err != nil {
		return err
	}
	old := *og
	p.sp.release(g.chunks)
	g.chunks, g.used, g.room, g.dead, g.n = nil, 0, 0, 0, 0
	var kept []uint32
	old.index.scan(func(e entry) bool {
		kept = old.walk(binary.LittleEndian.Uint32(e.value), kept[:0], nil)
		var last uint32
		for _, off := range kept {
			_, v := old.record(int(off), nil)
			var no int
			// No more than the old chunks held: only the spill file fails.
			if no, err = g.add(last, v, p); err != nil {
				return false
			}
			last = uint32(no + 1)
		}
		binary.LittleEndian.PutUint32(e.value, last) // the index is g's own (lgroupW)
		return true
	})
	*offs = kept[:0]
	return err
}

// scanLists calls fn with each key of g and its values, in append order
// (c reads g's packed chunks).
func (g *lgroup) scanLists(offs []uint32, c *lcache, fn func(key []byte, offs []uint32)) []uint32 {
	g.index.scan(func(e entry) bool {
		offs = g.walk(binary.LittleEndian.Uint32(e.value), offs[:0], c)
		fn(e.key, offs)
		return true
	})
	return offs
}

type badList struct{ err error }

func (b badList) Append(int, []byte, []byte) error               { return b.err }
func (b badList) RangeList(int, []byte, func([]byte) bool) error { return b.err }
func (b badList) DeleteIf(int, []byte, func([]byte) bool) error  { return b.err }
func (b badList) DeleteKey(int, []byte) error                    { return b.err }
func (b badList) Keys(int, func([]byte) bool) error              { return b.err }

var _ state.Lister = (*Backend)(nil)
