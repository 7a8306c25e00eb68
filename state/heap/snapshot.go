package heap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/streamsql/streamsql/state"
)

// A snapshot file:
//
//	header:  "SSQLHEAP" | uvarint format | uvarint codec version | uvarint max parallelism
//	         | uvarint key groups start | uvarint end | uvarint tables
//	         | per table: uvarint len(name) | name | kind (0 value, 1 map, 2 list) | timed (0, 1) | uvarint TTL ms
//	         | CRC-32C of the header after the magic (4 bytes LE)
//	per key group with state, in increasing order:
//	         uvarint kg+1 | uvarint len(body) | body | CRC-32C of body (4 bytes LE)
//	body:    per table with entries in the key group: uvarint table | uvarint n | n entries
//	         value table entry: uvarint len(key) | key | [varint write time] | uvarint len(value) | value
//	         map table entry:   uvarint len(key) | key | uvarint subs | subs × (uvarint len(sub) | sub | [varint time] | uvarint len(value) | value)
//	         list table entry:  uvarint len(key) | key | uvarint values | values × (uvarint len(value) | value), in append order
//	trailer: uvarint 0 | uvarint number of sections
//
// Write times are there for timed tables only. The format is versioned by
// its header; the entries' keys and values are the callers' bytes. A file
// with a list table is of format 2 (an older version refuses it: it does
// not know the kind); one without is of format 1, as before list tables.

const (
	magic          = "SSQLHEAP"
	fileFormat     = 1
	fileFormatList = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// snapshot is a frozen cut of a Backend.
type snapshot struct {
	b      *Backend
	id     int64
	epoch  uint64
	cut    int64 // the time of the cut, for TTL
	kgs    state.KeyGroupRange
	maxP   int
	tables []frozenTable
	spill  *os.File // the backend's spill file at the cut (nil: none yet)
	once   sync.Once
	freed  atomic.Bool
}

type frozenTable struct {
	name   string
	isMap  bool
	isList bool
	timed  bool
	ttl    int64
	vals   []*hmap
	maps   []*mgroup
	lists  []*lgroup
	// external converts a value to the snapshot's form (a table with a
	// codec: state.Recoder).
	external func(dst, value []byte) ([]byte, error)
}

func (t *frozenTable) expired(writeTime, cut int64) bool { return t.ttl > 0 && writeTime+t.ttl <= cut }

// meta is the Handle's Meta.
type meta struct {
	Format  int   `json:"format"`
	Codec   int   `json:"codec"`
	Entries int64 `json:"entries"`
}

// Snapshot freezes the state for checkpoint id: the tables as they are
// become the snapshot's, and later writes copy them first. It takes time
// proportional to the number of tables and key groups.
func (b *Backend) Snapshot(id int64) (state.Snapshot, error) {
	if b.closed {
		return nil, fmt.Errorf("heap state of %s: snapshot of a closed backend", operator(b.cfg))
	}
	s := &snapshot{b: b, id: id, epoch: b.epoch, cut: b.now(), kgs: b.kgs, maxP: b.cfg.MaxParallelism, spill: b.sp.f}
	for _, t := range b.order {
		ft := frozenTable{
			name: t.name, isMap: t.isMap, isList: t.isList, timed: t.timed, ttl: t.ttl,
			vals: slices.Clone(t.vals), maps: slices.Clone(t.maps), lists: slices.Clone(t.lists),
		}
		if t.codec != nil {
			ft.external = t.codec.Cut()
		}
		s.tables = append(s.tables, ft)
	}
	b.mu.Lock()
	b.snaps = append(b.snaps, b.epoch)
	b.frozen.Store(b.epoch) // epochs only grow: the latest is the largest
	b.mu.Unlock()
	b.epoch++
	return s, nil
}

// Release lets the task write the tables the snapshot holds in place again.
func (s *snapshot) Release() {
	s.once.Do(func() {
		b := s.b
		b.mu.Lock()
		defer b.mu.Unlock()
		if i := slices.Index(b.snaps, s.epoch); i >= 0 {
			b.snaps = slices.Delete(b.snaps, i, i+1)
		}
		var m uint64
		for _, e := range b.snaps {
			m = max(m, e)
		}
		b.frozen.Store(m)
		s.freed.Store(true)
		s.tables = nil
	})
}

// Write writes the snapshot into one file, prefix + "heap-<id>.state".
func (s *snapshot) Write(ctx context.Context, files state.Files, prefix string) (state.Handle, error) {
	if s.freed.Load() {
		return state.Handle{}, errors.New("heap snapshot written after its release")
	}
	name := prefix + "heap-" + strconv.FormatInt(s.id, 10) + ".state"
	r := &snapReader{s: s, kg: s.kgs.Start}
	r.unpack.f = s.spill
	r.header()
	size, err := files.PutFile(ctx, name, r)
	if err != nil {
		return state.Handle{}, fmt.Errorf("writing heap state of %s to %s: %w", operator(s.b.cfg), name, err)
	}
	if r.err != nil {
		return state.Handle{}, fmt.Errorf("writing heap state of %s to %s: %w", operator(s.b.cfg), name, r.err)
	}
	if !r.done {
		return state.Handle{}, fmt.Errorf("writing heap state of %s to %s: the storage stopped reading before the end", operator(s.b.cfg), name)
	}
	m, _ := json.Marshal(meta{Format: fileFormat, Codec: state.CodecVersion, Entries: r.entries})
	return state.Handle{
		Kind:      Name,
		KeyGroups: s.kgs,
		Files:     []state.FileRef{{Name: name, Size: size}},
		Meta:      m,
	}, nil
}

// snapReader produces the snapshot file as it is read, one key group's
// section at a time.
type snapReader struct {
	s        *snapshot
	buf      []byte
	pos      int
	kg       int // the next key group to write
	sections int
	entries  int64
	done     bool
	err      error // a value's conversion failed (frozenTable.external)
	// scratch, ents and subs are reused from section to section: a
	// section, one table's entries in it, one map key's sub-entries.
	scratch, ents, subs []byte
	conv                []byte   // a value converted to the snapshot's form
	offs                []uint32 // a list's record offsets
	unpack              unpacker // a list group's packed chunks, unpacked
}

func (r *snapReader) Read(p []byte) (int, error) {
	for r.pos == len(r.buf) {
		if r.err != nil {
			return 0, r.err
		}
		if r.done {
			return 0, io.EOF
		}
		r.buf, r.pos = r.buf[:0], 0
		r.next()
	}
	n := copy(p, r.buf[r.pos:])
	r.pos += n
	return n, nil
}

func (r *snapReader) header() {
	s := r.s
	b := append(r.buf[:0], magic...)
	format := uint64(fileFormat)
	for _, t := range s.tables {
		if t.isList {
			format = fileFormatList
		}
	}
	b = binary.AppendUvarint(b, format)
	b = binary.AppendUvarint(b, state.CodecVersion)
	b = binary.AppendUvarint(b, uint64(s.maxP))
	b = binary.AppendUvarint(b, uint64(s.kgs.Start))
	b = binary.AppendUvarint(b, uint64(s.kgs.End))
	b = binary.AppendUvarint(b, uint64(len(s.tables)))
	for _, t := range s.tables {
		b = binary.AppendUvarint(b, uint64(len(t.name)))
		b = append(b, t.name...)
		kind := boolByte(t.isMap)
		if t.isList {
			kind = 2
		}
		b = append(b, kind, boolByte(t.timed))
		b = binary.AppendUvarint(b, uint64(t.ttl))
	}
	r.buf = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[len(magic):], castagnoli))
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// next appends the next non-empty key group's section, or the trailer.
func (r *snapReader) next() {
	s := r.s
	for ; r.kg < s.kgs.End; r.kg++ {
		body := r.section(r.kg - s.kgs.Start)
		if len(body) == 0 {
			continue
		}
		r.buf = binary.AppendUvarint(r.buf, uint64(r.kg+1))
		r.buf = binary.AppendUvarint(r.buf, uint64(len(body)))
		r.buf = append(r.buf, body...)
		r.buf = binary.LittleEndian.AppendUint32(r.buf, crc32.Checksum(body, castagnoli))
		r.sections++
		r.kg++
		return
	}
	r.buf = binary.AppendUvarint(r.buf, 0)
	r.buf = binary.AppendUvarint(r.buf, uint64(r.sections))
	r.done = true
}

// section encodes key group i's entries of every table (nothing when it
// has none).
func (r *snapReader) section(i int) []byte {
	body := r.scratch[:0]
	for ti := range r.s.tables {
		t := &r.s.tables[ti]
		var n int
		if t.isList {
			n, r.ents = r.listEntries(r.ents[:0], t.lists[i])
		} else if t.isMap {
			n, r.ents = r.mapEntries(r.ents[:0], t, t.maps[i])
		} else {
			n, r.ents = r.valueEntries(r.ents[:0], t, t.vals[i])
		}
		if n == 0 {
			continue
		}
		body = binary.AppendUvarint(body, uint64(ti))
		body = binary.AppendUvarint(body, uint64(n))
		body = append(body, r.ents...)
		r.entries += int64(n)
	}
	r.scratch = body
	return body
}

// valueEntries appends the entries of g to b.
func (r *snapReader) valueEntries(b []byte, t *frozenTable, g *hmap) (int, []byte) {
	if g == nil {
		return 0, b
	}
	n := 0
	g.scan(func(e entry) bool {
		if t.timed && t.expired(e.time, r.s.cut) {
			return true
		}
		b = binary.AppendUvarint(b, uint64(len(e.key)))
		b = append(b, e.key...)
		if t.timed {
			b = binary.AppendVarint(b, e.time)
		}
		v := e.value
		if t.external != nil {
			var err error
			if r.conv, err = t.external(r.conv[:0], v); err != nil {
				r.err = fmt.Errorf("state table %q: %w", t.name, err)
				return false
			}
			v = r.conv
		}
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
		n++
		return true
	})
	return n, b
}

// mapEntries appends the entries of g to b.
func (r *snapReader) mapEntries(b []byte, t *frozenTable, g *mgroup) (int, []byte) {
	if g == nil {
		return 0, b
	}
	subs := r.subs
	keys, total := 0, 0
	g.index.scan(func(e entry) bool {
		var sm *submap
		var one entry
		size := 1
		if e.value[0] == refTag {
			sm = g.subs[binary.LittleEndian.Uint32(e.value[1:])]
			size = len(sm.offs)
		} else {
			one = decode(e.value, 0, t.timed) // the key's one entry
		}
		subs = subs[:0]
		n := 0
		for j := range size {
			se := one
			if sm != nil {
				se = sm.entry(j)
			}
			if t.timed && t.expired(se.time, r.s.cut) {
				continue
			}
			subs = binary.AppendUvarint(subs, uint64(len(se.key)))
			subs = append(subs, se.key...)
			if t.timed {
				subs = binary.AppendVarint(subs, se.time)
			}
			subs = binary.AppendUvarint(subs, uint64(len(se.value)))
			subs = append(subs, se.value...)
			n++
		}
		if n == 0 {
			return true
		}
		b = binary.AppendUvarint(b, uint64(len(e.key)))
		b = append(b, e.key...)
		b = binary.AppendUvarint(b, uint64(n))
		b = append(b, subs...)
		keys++
		total += n
		return true
	})
	r.subs = subs
	r.entries += int64(total - keys) // section counts keys; entries count sub-entries
	return keys, b
}

// listEntries appends the lists of g to b.
func (r *snapReader) listEntries(b []byte, g *lgroup) (int, []byte) {
	if g == nil {
		return 0, b
	}
	keys, total := 0, 0
	g, err := r.unpack.group(g)
	if err != nil {
		r.err = err
		return 0, b
	}
	r.offs = g.scanLists(r.offs, nil, func(key []byte, offs []uint32) {
		b = binary.AppendUvarint(b, uint64(len(key)))
		b = append(b, key...)
		b = binary.AppendUvarint(b, uint64(len(offs)))
		for _, off := range offs {
			_, v := g.record(int(off), nil)
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
		keys++
		total += len(offs)
	})
	r.entries += int64(total - keys) // section counts keys; entries count values
	return keys, b
}

// restore loads the key groups of h that the backend owns.
func (b *Backend) restore(ctx context.Context, h state.Handle) error {
	if h.Kind != Name {
		return fmt.Errorf("the checkpoint holds state of the %q backend, not of %q: restore it with state.backend.type = '%s'", h.Kind, Name, h.Kind)
	}
	if h.KeyGroups.Intersect(b.kgs).Len() == 0 {
		return nil
	}
	if b.cfg.Files == nil {
		return errors.New("no state files to restore from (Config.Files is nil)")
	}
	for _, f := range h.Files {
		if err := b.restoreFile(ctx, f.Name); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

func (b *Backend) restoreFile(ctx context.Context, name string) error {
	rc, err := b.cfg.Files.OpenFile(ctx, name)
	if err != nil {
		return err
	}
	defer rc.Close()
	r := bufio.NewReaderSize(rc, 64<<10)
	tables, err := b.readHeader(r)
	if err != nil {
		return err
	}
	now := b.now()
	sections := uint64(0)
	var body []byte
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		kg1, err := binary.ReadUvarint(r)
		if err != nil {
			return corrupt(err)
		}
		if kg1 == 0 {
			n, err := binary.ReadUvarint(r)
			if err != nil {
				return corrupt(err)
			}
			if n != sections {
				return fmt.Errorf("%w: the trailer counts %d sections, the file holds %d", state.ErrCorrupt, n, sections)
			}
			return nil
		}
		sections++
		size, err := binary.ReadUvarint(r)
		if err != nil {
			return corrupt(err)
		}
		if size > 1<<40 {
			return fmt.Errorf("%w: section of %d bytes", state.ErrCorrupt, size)
		}
		kg := int(kg1 - 1)
		if !b.kgs.Contains(kg) {
			if _, err := r.Discard(int(size) + 4); err != nil {
				return corrupt(err)
			}
			continue
		}
		// Read what is there rather than allocate what a damaged size
		// claims.
		buf := bytes.NewBuffer(body[:0])
		if _, err := io.CopyN(buf, r, int64(size)+4); err != nil {
			return corrupt(err)
		}
		body = buf.Bytes()
		if crc32.Checksum(body[:size], castagnoli) != binary.LittleEndian.Uint32(body[size:]) {
			return fmt.Errorf("%w: checksum of key group %d's section", state.ErrCorrupt, kg)
		}
		if err := b.loadSection(kg-b.kgs.Start, body[:size], tables, now); err != nil {
			return fmt.Errorf("key group %d: %w", kg, err)
		}
	}
}

func corrupt(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: truncated file", state.ErrCorrupt)
	}
	return err
}

// fileTable is a table as a snapshot file describes it.
type fileTable struct {
	t     *table
	timed bool
	ttl   int64
}

func (b *Backend) readHeader(r *bufio.Reader) ([]fileTable, error) {
	m := make([]byte, len(magic))
	if _, err := io.ReadFull(r, m); err != nil {
		return nil, corrupt(err)
	}
	if string(m) != magic {
		return nil, fmt.Errorf("%w: not a heap state file", state.ErrCorrupt)
	}
	// The header is read through a tee so that its CRC can be checked.
	var hb bytes.Buffer
	tr := &teeByteReader{r: r, w: &hb}
	format, err := binary.ReadUvarint(tr)
	if err != nil {
		return nil, corrupt(err)
	}
	if format != fileFormat && format != fileFormatList {
		return nil, fmt.Errorf("heap state file format %d is not known to this version (it reads %d and %d)", format, fileFormat, fileFormatList)
	}
	codec, err := binary.ReadUvarint(tr)
	if err != nil {
		return nil, corrupt(err)
	}
	if codec > state.CodecVersion {
		return nil, fmt.Errorf("state codec version %d is newer than this version's %d", codec, state.CodecVersion)
	}
	var hdr [4]uint64 // max parallelism, key groups start, end, tables
	for i := range hdr {
		if hdr[i], err = binary.ReadUvarint(tr); err != nil {
			return nil, corrupt(err)
		}
	}
	if mp := b.cfg.MaxParallelism; mp > 0 && hdr[0] > 0 && hdr[0] != uint64(mp) {
		return nil, fmt.Errorf("the state was written with %d key groups (pipeline.max-parallelism), the job has %d", hdr[0], mp)
	}
	if hdr[3] > 1<<16 {
		return nil, fmt.Errorf("%w: %d tables", state.ErrCorrupt, hdr[3])
	}
	tables := make([]fileTable, hdr[3])
	for i := range tables {
		n, err := binary.ReadUvarint(tr)
		if err != nil {
			return nil, corrupt(err)
		}
		if n > 1<<16 {
			return nil, fmt.Errorf("%w: table name of %d bytes", state.ErrCorrupt, n)
		}
		name := make([]byte, n+2)
		if _, err := io.ReadFull(tr, name); err != nil {
			return nil, corrupt(err)
		}
		isMap, isList, timed := name[n] == 1, name[n] == 2, name[n+1] == 1
		if name[n] > 2 || (isList && (timed || format < fileFormatList)) {
			return nil, fmt.Errorf("%w: table %q of kind %d", state.ErrCorrupt, name[:n], name[n])
		}
		ttl, err := binary.ReadUvarint(tr)
		if err != nil {
			return nil, corrupt(err)
		}
		t := b.tables[string(name[:n])]
		if t == nil && isList {
			b.List(string(name[:n]))
			t = b.tables[string(name[:n])]
		} else if t == nil {
			t = b.newTable(string(name[:n]), isMap, timed)
			t.ttl = int64(ttl)
		} else if t.isMap != isMap || t.isList != isList {
			return nil, fmt.Errorf("%w: table %q is a map table in one handle and a value table in another", state.ErrCorrupt, name[:n])
		}
		tables[i] = fileTable{t: t, timed: timed, ttl: int64(ttl)}
	}
	var crc [4]byte
	if _, err := io.ReadFull(r, crc[:]); err != nil {
		return nil, corrupt(err)
	}
	if crc32.Checksum(hb.Bytes(), castagnoli) != binary.LittleEndian.Uint32(crc[:]) {
		return nil, fmt.Errorf("%w: header checksum", state.ErrCorrupt)
	}
	return tables, nil
}

// teeByteReader reads from r and copies what it reads to w.
type teeByteReader struct {
	r *bufio.Reader
	w *bytes.Buffer
}

func (t *teeByteReader) ReadByte() (byte, error) {
	c, err := t.r.ReadByte()
	if err == nil {
		t.w.WriteByte(c)
	}
	return c, err
}

func (t *teeByteReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.w.Write(p[:n])
	return n, err
}

// loadSection adds the entries of a key group's section (checked by its
// CRC, but parsed defensively) to the tables; entries that expired by the
// file's TTL are left out.
func (b *Backend) loadSection(i int, body []byte, tables []fileTable, now int64) error {
	rd := &sliceReader{b: body}
	for len(rd.b) > 0 {
		ti, n := rd.uvarint(), rd.uvarint()
		if rd.err != nil {
			return rd.err
		}
		if ti >= uint64(len(tables)) {
			return fmt.Errorf("%w: table %d of %d", state.ErrCorrupt, ti, len(tables))
		}
		ft := tables[ti]
		t := ft.t
		for range n {
			key := rd.bytes()
			if t.isList {
				if err := b.loadList(t, i, key, rd.uvarint(), rd); err != nil {
					return err
				}
				continue
			}
			if t.isMap {
				subs := rd.uvarint()
				if err := b.loadSubs(t, ft, i, key, subs, rd, now); err != nil {
					return err
				}
				continue
			}
			var wt int64
			if ft.timed {
				wt = rd.varint()
			}
			val := rd.bytes()
			if rd.err != nil {
				return rd.err
			}
			if ft.ttl > 0 && wt+ft.ttl <= now {
				b.expired.Add(1)
				continue
			}
			if !t.timed {
				wt = 0
			} else if !ft.timed {
				wt = now
			}
			g := t.hmapW(i)
			before := g.mem()
			added, err := g.put(b.hash(key), key, val, wt)
			b.bytes.Add(g.mem() - before)
			if err != nil {
				return err
			}
			if added {
				b.entries.Add(1)
			}
		}
	}
	return b.checkMemory()
}

func (b *Backend) loadSubs(t *table, ft fileTable, i int, key []byte, n uint64, rd *sliceReader, now int64) error {
	if rd.err != nil {
		return rd.err
	}
	g := t.mgroupW(i)
	h := b.hash(key)
	for range n {
		sub := rd.bytes()
		var wt int64
		if ft.timed {
			wt = rd.varint()
		}
		val := rd.bytes()
		if rd.err != nil {
			return rd.err
		}
		if ft.ttl > 0 && wt+ft.ttl <= now {
			b.expired.Add(1)
			continue
		}
		if !t.timed {
			wt = 0
		} else if !ft.timed {
			wt = now
		}
		if _, _, err := t.put(g, h, key, sub, val, wt, false); err != nil {
			return err
		}
	}
	return nil
}

// loadList appends n values of key's list to t's key group i.
func (b *Backend) loadList(t *table, i int, key []byte, n uint64, rd *sliceReader) error {
	if rd.err != nil {
		return rd.err
	}
	g := t.lgroupW(i)
	h := b.hash(key)
	before := g.mem()
	defer func() { b.bytes.Add(g.mem() - before) }()
	for range n {
		v := rd.bytes()
		if rd.err != nil {
			return rd.err
		}
		if err := g.append(h, key, v, &t.scratch, &t.pk); err != nil {
			return err
		}
		b.entries.Add(1)
	}
	return nil
}

// sliceReader decodes varints and length-prefixed bytes, keeping the first
// error.
type sliceReader struct {
	b   []byte
	err error
}

func (r *sliceReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: bad varint", state.ErrCorrupt)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *sliceReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: bad varint", state.ErrCorrupt)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *sliceReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("%w: truncated entry", state.ErrCorrupt)
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
