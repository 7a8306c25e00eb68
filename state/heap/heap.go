// Package heap is the in-memory keyed-state backend (state.backend.type
// "heap", or Flink's name "hashmap"): a task's state lives in its memory as
// encoded bytes, in one hash table per table and key group, and each
// checkpoint writes it whole into one file.
//
// # Layout
//
// A ValueTable's entries of one key group are in an open-addressing hash
// table whose slots hold 32 bits of the key's hash and the offset of the
// entry in chunks of 64 KiB ([]byte) that hold the entries one after the
// other (a growing table adds chunks: nothing is copied as it grows):
// no Go pointer per entry, so the garbage collector does not look at them,
// and a COUNT/SUM accumulator over a BIGINT key takes about 40 bytes. A
// MapTable keeps, per key group, such a table from each key to a sorted
// map of its sub-keys (an arena and the entries' offsets in sub-key order,
// so that RangeKey is in order).
//
// # Snapshots
//
// Backend.Snapshot freezes the tables in the task's goroutine, in time
// proportional to the number of tables and key groups: the snapshot keeps
// the current tables, and the first write to a key group's table after the
// cut copies it (copy-on-write per key group, and per key for a MapTable's
// sorted maps), so later writes never reach what the snapshot writes. A
// table is copied only while a snapshot that holds it is not released.
// Snapshot.Write then serialises the frozen tables on another goroutine
// into one file with a section per key group (each with a CRC-32C), so that
// a restore with another parallelism reads the sections of the key groups
// it owns and skips the others.
//
// # TTL
//
// A table with a TTL (state.TTL) keeps each entry's last write time:
// reads never return an entry older than the TTL, Snapshot.Write leaves
// such entries out, and each write to the table also sweeps a few entries
// of it, dropping the expired ones (Stats.Expired counts them).
//
// # Memory
//
// Stats.Bytes is the memory of the live tables (chunks, arenas and slots); the
// frozen copies a snapshot holds until it is released are not counted.
// With state.Config.MemoryLimit set, a write that takes the state past it
// fails with an error that wraps state.ErrMemoryLimit, names the operator
// and says what to do; the backend must not be used after such an error
// (the job fails and restarts from its last checkpoint).
package heap

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/state"
)

// Name is the backend's state.backend.type; "hashmap" (Flink's name of its
// in-memory backend) is an alias.
const Name = "heap"

func init() { state.Register(Kind{}, "hashmap") }

// Kind is the heap backend's state.Kind.
type Kind struct{}

// Name returns "heap".
func (Kind) Name() string { return Name }

// Open opens a task's heap backend, restoring cfg.Restore.
func (Kind) Open(ctx context.Context, cfg state.Config) (state.Backend, error) {
	return Open(ctx, cfg)
}

// sweepBudget is how many entries a write to a table with a TTL looks at
// for expired ones (Flink's incremental cleanup looks at 5 per access).
const sweepBudget = 8

// Backend is a task's in-memory keyed state.
type Backend struct {
	cfg    state.Config
	kgs    state.KeyGroupRange
	now    func() int64
	seed   maphash.Seed
	tables map[string]*table
	order  []*table // in creation order: the order of snapshot files
	closed bool

	// epoch stamps each table copy made since the last Snapshot; frozen is
	// the epoch of the latest snapshot not yet released (0: none). A copy
	// with epoch <= frozen may be held by a snapshot and must be copied
	// before it changes.
	epoch  uint64
	frozen atomic.Uint64
	mu     sync.Mutex // guards snaps
	snaps  []uint64   // epochs of unreleased snapshots

	bytes, entries, expired atomic.Int64

	sp spill // the list tables' spill file (spill.go)
}

// Open opens a task's heap backend, restoring the key groups of cfg.KeyGroups
// from cfg.Restore.
func Open(ctx context.Context, cfg state.Config) (*Backend, error) {
	if cfg.KeyGroups.Len() <= 0 {
		return nil, fmt.Errorf("heap state of %s: empty key group range %v", operator(cfg), cfg.KeyGroups)
	}
	b := &Backend{
		cfg:    cfg,
		kgs:    cfg.KeyGroups,
		now:    cfg.Now,
		seed:   maphash.MakeSeed(),
		tables: map[string]*table{},
		epoch:  1,
	}
	b.sp = spill{b: b, dir: cfg.Dir, threshold: cfg.SpillThreshold}
	if b.now == nil {
		b.now = func() int64 { return time.Now().UnixMilli() }
	}
	for _, h := range cfg.Restore {
		if err := b.restore(ctx, h); err != nil {
			return nil, fmt.Errorf("restoring heap state of %s: %w", operator(cfg), err)
		}
	}
	return b, nil
}

func operator(cfg state.Config) string {
	if cfg.Operator == "" {
		return "the operator"
	}
	return cfg.Operator
}

// shared reports whether a table copy stamped with epoch may be held by an
// unreleased snapshot.
func (b *Backend) shared(epoch uint64) bool { return epoch <= b.frozen.Load() }

func (b *Backend) hash(key []byte) uint64 { return maphash.Bytes(b.seed, key) }

// table returns the table called name, created empty when there is none.
func (b *Backend) table(name string, isMap bool, opts []state.TableOption) *table {
	var tc state.TableConfig
	for _, o := range opts {
		o(&tc)
	}
	ttl := tc.TTL.Milliseconds()
	if tc.TTL > 0 && ttl == 0 {
		ttl = 1
	}
	t := b.tables[name]
	if t == nil {
		t = b.newTable(name, isMap, ttl > 0)
	}
	if t.isMap != isMap {
		return t // the caller reports the mismatch
	}
	if (ttl > 0) != t.timed {
		t.retime(ttl > 0)
	}
	t.ttl = ttl
	return t
}

func (b *Backend) newTable(name string, isMap, timed bool) *table {
	t := &table{b: b, name: name, isMap: isMap, timed: timed}
	t.pk.off = !b.cfg.CompressLists
	t.pk.sp, t.pk.cache.sp = &b.sp, &b.sp
	if isMap {
		t.maps = make([]*mgroup, b.kgs.Len())
	} else {
		t.vals = make([]*hmap, b.kgs.Len())
	}
	b.tables[name] = t
	b.order = append(b.order, t)
	return t
}

// Value returns the value table called name.
func (b *Backend) Value(name string, opts ...state.TableOption) state.ValueTable {
	if t := b.tables[name]; t != nil && t.isList {
		return badValue{fmt.Errorf("state table %q of %s is a list table, asked for as a value table", name, operator(b.cfg))}
	}
	t := b.table(name, false, opts)
	if t.isMap {
		return badValue{fmt.Errorf("state table %q of %s is a map table, asked for as a value table", name, operator(b.cfg))}
	}
	return valueTable{t}
}

// Map returns the map table called name.
func (b *Backend) Map(name string, opts ...state.TableOption) state.MapTable {
	if t := b.tables[name]; t != nil && t.isList {
		return badMap{fmt.Errorf("state table %q of %s is a list table, asked for as a map table", name, operator(b.cfg))}
	}
	t := b.table(name, true, opts)
	if !t.isMap {
		return badMap{fmt.Errorf("state table %q of %s is a value table, asked for as a map table", name, operator(b.cfg))}
	}
	return mapTable{t}
}

// Stats returns the state's size; it is safe from any goroutine.
func (b *Backend) Stats() state.Stats {
	return state.Stats{Bytes: b.bytes.Load(), Entries: b.entries.Load(), Expired: b.expired.Load()}
}

// Close releases the state.
func (b *Backend) Close() error {
	b.closed = true
	b.tables, b.order = nil, nil
	b.bytes.Store(0)
	b.entries.Store(0)
	if err := b.sp.close(); err != nil {
		return fmt.Errorf("heap state of %s: %w", operator(b.cfg), err)
	}
	return nil
}

// checkMemory returns the error of a state past its memory limit.
func (b *Backend) checkMemory() error {
	if lim := b.cfg.MemoryLimit; lim > 0 {
		if n := b.bytes.Load(); n > lim {
			return fmt.Errorf("%w: %s keeps %s of keyed state in memory, over its limit of %s: "+
				"use the disk backend (SET 'state.backend.type' = 'rocksdb') or raise the state memory limit",
				state.ErrMemoryLimit, operator(b.cfg), mib(n), mib(lim))
		}
	}
	return nil
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// table is one named table's state: per key group a hash table (a value
// table) or an mgroup (a map table).
type table struct {
	b     *Backend
	name  string
	isMap bool
	timed bool  // entries carry write times
	ttl   int64 // milliseconds; 0: none
	vals  []*hmap
	maps  []*mgroup
	// isList: a list table (list.go), whose key groups are lists.
	isList bool
	lists  []*lgroup
	offs   []uint32 // a list's record offsets being read
	pk     packer   // a list table's packing of sealed chunks, its cache of unpacked ones

	sweepKG int    // the key group the TTL sweep is in
	scratch []byte // an index value being written
	// codec, when set (a value table's Recode), converts the values
	// between the operator's form and the snapshots'.
	codec state.ValueCodec
}

// mgroup is a map table's state of one key group: an index from each key
// to its sorted map. A key with one entry keeps it in the index itself (the
// index's value is the entry, in the arena format: its first byte is
// flagLive); a key with more has a submap (the value is refTag, then the
// submap's index in subs, 4 bytes little-endian). A submap costs three
// allocations (the struct, its offsets, its arena) and about 110 bytes
// beside its entries, and many keys hold one entry: a join side hashed by
// a near-unique column (Nexmark q7's bids by price: 531,000 keys for
// 920,000 rows), or with a unique key, and most COUNT DISTINCT keys.
type mgroup struct {
	epoch uint64
	index *hmap
	subs  []*submap
	free  []uint32 // unused indexes of subs
}

// refTag starts an index value that refers to a submap (see mgroup).
const refTag = 0

// keyMap is what an mgroup holds for a key: a submap, or one entry.
type keyMap struct {
	sm    *submap
	si    uint32
	one   entry // the key's one entry, when sm is nil
	found bool
}

// lookup returns key's (hash h) map in g.
func (t *table) lookup(g *mgroup, h uint64, key []byte) keyMap {
	if g == nil {
		return keyMap{}
	}
	e, ok := g.index.get(h, key)
	if !ok {
		return keyMap{}
	}
	if e.value[0] == refTag {
		si := binary.LittleEndian.Uint32(e.value[1:])
		return keyMap{sm: g.subs[si], si: si, found: true}
	}
	return keyMap{one: decode(e.value, 0, t.timed), found: true}
}

func (g *mgroup) mem() int64 { return g.index.mem() + 8*int64(cap(g.subs)) + 4*int64(cap(g.free)) + 72 }

func (t *table) slot(kg int) (int, error) {
	if !t.b.kgs.Contains(kg) {
		return 0, fmt.Errorf("state table %q of %s: key group %d is not in the task's range %v", t.name, operator(t.b.cfg), kg, t.b.kgs)
	}
	if t.b.closed {
		return 0, fmt.Errorf("state table %q of %s: the backend is closed", t.name, operator(t.b.cfg))
	}
	return kg - t.b.kgs.Start, nil
}

func (t *table) expired(writeTime, now int64) bool {
	return t.ttl > 0 && writeTime+t.ttl <= now
}

// writeTime returns the time to stamp a write with (0 in a table without
// TTL).
func (t *table) writeTime() int64 {
	if !t.timed {
		return 0
	}
	return t.b.now()
}

// hmapW returns key group i's hash table ready for a write: created, or
// copied when a snapshot holds it.
func (t *table) hmapW(i int) *hmap {
	g := t.vals[i]
	if g == nil {
		g = newHmap(t.b.epoch, t.timed)
		t.vals[i] = g
		t.b.bytes.Add(g.mem())
	} else if t.b.shared(g.epoch) {
		c := g.clone(t.b.epoch)
		t.b.bytes.Add(c.mem() - g.mem())
		t.vals[i], g = c, c
	}
	return g
}

// mgroupW is hmapW for a map table.
func (t *table) mgroupW(i int) *mgroup {
	g := t.maps[i]
	if g == nil {
		g = &mgroup{epoch: t.b.epoch, index: newHmap(t.b.epoch, false)}
		t.maps[i] = g
		t.b.bytes.Add(g.mem())
	} else if t.b.shared(g.epoch) {
		c := &mgroup{epoch: t.b.epoch, index: g.index.clone(t.b.epoch), subs: slices.Clone(g.subs), free: slices.Clone(g.free)}
		t.b.bytes.Add(c.mem() - g.mem())
		t.maps[i], g = c, c
	}
	return g
}

// subW returns km's submap ready for a write: copied when a snapshot
// holds it.
func (t *table) subW(g *mgroup, km *keyMap) *submap {
	if t.b.shared(km.sm.epoch) {
		c := km.sm.clone(t.b.epoch)
		t.b.bytes.Add(c.mem() - km.sm.mem())
		g.subs[km.si], km.sm = c, c
	}
	return km.sm
}

// addSub makes sm key's submap in g, in place of its one entry.
func (t *table) addSub(g *mgroup, h uint64, key []byte, sm *submap) (uint32, error) {
	var si uint32
	if n := len(g.free); n > 0 {
		si = g.free[n-1]
		g.free = g.free[:n-1]
		g.subs[si] = sm
	} else {
		si = uint32(len(g.subs))
		g.subs = append(g.subs, sm)
	}
	before := g.mem()
	var ref [5]byte
	ref[0] = refTag
	binary.LittleEndian.PutUint32(ref[1:], si)
	if _, err := g.index.put(h, key, ref[:], 0); err != nil {
		return 0, err
	}
	t.b.bytes.Add(g.mem() - before + sm.mem())
	return si, nil
}

// put sets the value of (key, sub) in g (writable) with write time now.
// With insert, an entry (key, sub) that g holds and that has not expired
// is left as it is and returned, wrote false.
func (t *table) put(g *mgroup, h uint64, key, sub, value []byte, now int64, insert bool) (held []byte, wrote bool, err error) {
	km := t.lookup(g, h, key)
	if !km.found || (km.sm == nil && bytes.Equal(km.one.key, sub)) {
		if km.found && insert && !t.expired(km.one.time, now) {
			return km.one.value, false, nil
		}
		// The key's one entry, in the index.
		before := g.mem()
		t.scratch = appendEntry(t.scratch[:0], sub, value, now, t.timed)
		if _, err := g.index.put(h, key, t.scratch, 0); err != nil {
			return nil, false, err
		}
		t.b.bytes.Add(g.mem() - before)
		if !km.found {
			t.b.entries.Add(1)
		}
		return nil, true, nil
	}
	if km.sm == nil {
		// A second entry: the key gets a submap, with its first entry
		// copied out of the index before the index changes.
		sm := &submap{epoch: t.b.epoch, timed: t.timed}
		if _, err := sm.put(km.one.key, km.one.value, km.one.time); err != nil {
			return nil, false, err
		}
		if km.si, err = t.addSub(g, h, key, sm); err != nil {
			return nil, false, err
		}
		km.sm = sm
	}
	sm := t.subW(g, &km)
	i, found := sm.find(sub)
	if found && insert {
		if e := sm.entry(i); !t.expired(e.time, now) {
			return e.value, false, nil
		}
	}
	before := sm.mem()
	added, err := sm.putAt(i, found, sub, value, now)
	t.b.bytes.Add(sm.mem() - before)
	if err != nil {
		return nil, false, err
	}
	if added {
		t.b.entries.Add(1)
	}
	return nil, true, nil
}

// deleteOne removes key's one entry from g (writable).
func (t *table) deleteOne(g *mgroup, h uint64, key []byte) {
	before := g.mem()
	g.index.delete(h, key)
	t.b.bytes.Add(g.mem() - before)
	t.b.entries.Add(-1)
}

// dropSub removes key's (empty or expired) sorted map si from g.
func (t *table) dropSub(g *mgroup, h uint64, key []byte, si uint32) {
	before := g.mem() + g.subs[si].mem()
	g.index.delete(h, key)
	g.subs[si] = nil
	g.free = append(g.free, si)
	t.b.bytes.Add(g.mem() - before)
}

// retime rebuilds the table's entries with write times (stamped now) or
// without them, when a restored table's TTL was turned on or off.
func (t *table) retime(timed bool) {
	now := t.b.now()
	was := t.timed
	t.timed = timed
	for i, g := range t.vals {
		if g == nil {
			continue
		}
		n := newHmap(t.b.epoch, timed)
		g.scan(func(e entry) bool {
			_, _ = n.put(t.b.hash(e.key), e.key, e.value, now) // no larger than g
			return true
		})
		t.b.bytes.Add(n.mem() - g.mem())
		t.vals[i] = n
	}
	for i, g := range t.maps {
		if g == nil {
			continue
		}
		// A new group: g may be held by a snapshot. One-entry keys are
		// written again with or without their time.
		ng := &mgroup{epoch: t.b.epoch, index: newHmap(t.b.epoch, false), subs: make([]*submap, len(g.subs)), free: slices.Clone(g.free)}
		g.index.scan(func(e entry) bool {
			v := e.value
			if v[0] != refTag {
				one := decode(v, 0, was)
				v = appendEntry(nil, one.key, one.value, now, timed)
			}
			_, _ = ng.index.put(t.b.hash(e.key), e.key, v, 0) // no larger than g's
			return true
		})
		t.b.bytes.Add(ng.mem() - g.mem())
		for si, sm := range g.subs {
			if sm == nil {
				continue
			}
			n := &submap{epoch: t.b.epoch, timed: timed}
			for j := range sm.offs {
				e := sm.entry(j)
				_, _ = n.put(e.key, e.value, now)
			}
			t.b.bytes.Add(n.mem() - sm.mem())
			ng.subs[si] = n
		}
		t.maps[i] = ng
	}
}

// sweep looks at a few entries of the table for expired ones and drops
// them. It skips key groups a snapshot holds.
func (t *table) sweep() {
	now := t.b.now()
	n := len(t.vals) + len(t.maps)
	budget := sweepBudget
	for moved := 0; budget > 0 && moved < n; budget-- {
		var done bool
		if t.isMap {
			done = t.sweepMap(t.maps[t.sweepKG], now, &budget)
		} else {
			done = t.sweepValue(t.vals[t.sweepKG], now)
		}
		if done {
			t.sweepKG = (t.sweepKG + 1) % n
			moved++
		}
	}
}

// sweepValue looks at the next entry of g; it reports whether g is done.
func (t *table) sweepValue(g *hmap, now int64) bool {
	if g == nil || t.b.shared(g.epoch) {
		return true
	}
	e, ok := g.sweepNext()
	if !ok {
		return true
	}
	if e.live && t.expired(e.time, now) {
		before := g.mem()
		g.delete(t.b.hash(e.key), e.key)
		t.b.bytes.Add(g.mem() - before)
		t.b.entries.Add(-1)
		t.b.expired.Add(1)
	}
	return false
}

// sweepMap looks at the next key of g and drops its expired entries; it
// reports whether g is done.
func (t *table) sweepMap(g *mgroup, now int64, budget *int) bool {
	if g == nil || t.b.shared(g.epoch) {
		return true
	}
	e, ok := g.index.sweepNext()
	if !ok {
		return true
	}
	if !e.live {
		return false
	}
	if e.value[0] != refTag {
		if one := decode(e.value, 0, true); t.expired(one.time, now) {
			t.deleteOne(g, t.b.hash(e.key), e.key)
			t.b.expired.Add(1)
		}
		return false
	}
	si := binary.LittleEndian.Uint32(e.value[1:])
	sm := g.subs[si]
	if t.b.shared(sm.epoch) {
		return false
	}
	*budget -= len(sm.offs) / 4
	before := sm.mem()
	dropped := 0
	for j := 0; j < len(sm.offs); {
		if se := sm.entry(j); t.expired(se.time, now) {
			sm.deleteAt(j)
			dropped++
			continue
		}
		j++
	}
	t.b.bytes.Add(sm.mem() - before)
	t.b.entries.Add(int64(-dropped))
	t.b.expired.Add(int64(dropped))
	if len(sm.offs) == 0 {
		t.dropSub(g, t.b.hash(e.key), e.key, si)
	}
	return false
}

// after finishes a write: the TTL sweep and the memory check.
func (t *table) after() error {
	if t.timed {
		t.sweep()
	}
	return t.b.checkMemory()
}

type valueTable struct{ t *table }

func (v valueTable) Get(kg int, key []byte) ([]byte, bool, error) {
	t := v.t
	i, err := t.slot(kg)
	if err != nil {
		return nil, false, err
	}
	g := t.vals[i]
	if g == nil {
		return nil, false, nil
	}
	e, ok := g.get(t.b.hash(key), key)
	if !ok || (t.timed && t.expired(e.time, t.b.now())) {
		return nil, false, nil
	}
	return e.value, true, nil
}

func (v valueTable) Put(kg int, key, value []byte) error {
	t := v.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	g := t.hmapW(i)
	before := g.mem()
	added, err := g.put(t.b.hash(key), key, value, t.writeTime())
	t.b.bytes.Add(g.mem() - before)
	if err != nil {
		return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
	}
	if added {
		t.b.entries.Add(1)
	}
	return t.after()
}

func (v valueTable) Delete(kg int, key []byte) error {
	t := v.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	h := t.b.hash(key)
	if g := t.vals[i]; g == nil {
		return nil
	} else if _, found := g.find(h, key); !found {
		return nil // no copy of a frozen table for nothing
	}
	g := t.hmapW(i)
	before := g.mem()
	g.delete(h, key)
	t.b.bytes.Add(g.mem() - before)
	t.b.entries.Add(-1)
	return t.after()
}

func (v valueTable) Range(kg int, fn func(key, value []byte) bool) error {
	t := v.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	g := t.vals[i]
	if g == nil {
		return nil
	}
	var now int64
	if t.timed {
		now = t.b.now()
	}
	g.scan(func(e entry) bool {
		if t.timed && t.expired(e.time, now) {
			return true
		}
		return fn(e.key, e.value)
	})
	return nil
}

// Recode implements state.Recoder: the values held are converted to the
// operator's form in place, key group by key group.
func (v valueTable) Recode(c state.ValueCodec) error {
	t := v.t
	if t.codec != nil {
		return fmt.Errorf("state table %q of %s: a second codec", t.name, operator(t.b.cfg))
	}
	if t.timed {
		// Rewriting the restored entries would restamp their write times.
		return fmt.Errorf("state table %q of %s: a codec on a table with a TTL", t.name, operator(t.b.cfg))
	}
	t.codec = c
	var keys, vals [][]byte
	for i, g := range t.vals {
		if g == nil {
			continue
		}
		keys, vals = keys[:0], vals[:0]
		g.scan(func(e entry) bool {
			keys = append(keys, e.key)
			vals = append(vals, e.value)
			return true
		})
		if len(keys) == 0 {
			continue
		}
		conv := make([][]byte, len(vals))
		for j, val := range vals {
			b, err := c.Internal(nil, val)
			if err != nil {
				return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
			}
			conv[j] = b
		}
		keys = slices.Clone(keys) // the puts below may move the entries the keys alias
		for j := range keys {
			keys[j] = slices.Clone(keys[j])
		}
		kg := t.b.kgs.Start + i
		for j := range keys {
			if err := v.Put(kg, keys[j], conv[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

type mapTable struct{ t *table }

func (m mapTable) Get(kg int, key, sub []byte) ([]byte, bool, error) {
	t := m.t
	i, err := t.slot(kg)
	if err != nil {
		return nil, false, err
	}
	km := t.lookup(t.maps[i], t.b.hash(key), key)
	var e entry
	switch {
	case !km.found:
		return nil, false, nil
	case km.sm == nil:
		if !bytes.Equal(km.one.key, sub) {
			return nil, false, nil
		}
		e = km.one
	default:
		j, found := km.sm.find(sub)
		if !found {
			return nil, false, nil
		}
		e = km.sm.entry(j)
	}
	if t.timed && t.expired(e.time, t.b.now()) {
		return nil, false, nil
	}
	return e.value, true, nil
}

func (m mapTable) Put(kg int, key, sub, value []byte) error {
	t := m.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	if _, _, err := t.put(t.mgroupW(i), t.b.hash(key), key, sub, value, t.writeTime(), false); err != nil {
		return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
	}
	return t.after()
}

// Insert is state.MapInserter's: one lookup of key and of sub, where Get
// then Put make two of each.
func (m mapTable) Insert(kg int, key, sub, value []byte) ([]byte, bool, error) {
	t := m.t
	i, err := t.slot(kg)
	if err != nil {
		return nil, false, err
	}
	held, wrote, err := t.put(t.mgroupW(i), t.b.hash(key), key, sub, value, t.writeTime(), true)
	if err != nil {
		return nil, false, fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
	}
	if !wrote {
		return held, false, nil
	}
	return nil, true, t.after()
}

func (m mapTable) Delete(kg int, key, sub []byte) error {
	t := m.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	h := t.b.hash(key)
	// Nothing is copied for a snapshot unless there is something to delete.
	if km := t.lookup(t.maps[i], h, key); !km.found {
		return nil
	} else if km.sm == nil {
		if !bytes.Equal(km.one.key, sub) {
			return nil
		}
		t.deleteOne(t.mgroupW(i), h, key)
		return t.after()
	} else if _, found := km.sm.find(sub); !found {
		return nil
	}
	g := t.mgroupW(i)
	km := t.lookup(g, h, key)
	sm := t.subW(g, &km)
	j, _ := sm.find(sub)
	before := sm.mem()
	sm.deleteAt(j)
	t.b.bytes.Add(sm.mem() - before)
	t.b.entries.Add(-1)
	if len(sm.offs) == 0 {
		t.dropSub(g, h, key, km.si)
	}
	return t.after()
}

func (m mapTable) DeleteKey(kg int, key []byte) error {
	t := m.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	h := t.b.hash(key)
	if km := t.lookup(t.maps[i], h, key); !km.found {
		return nil
	}
	g := t.mgroupW(i)
	km := t.lookup(g, h, key)
	if km.sm == nil {
		t.deleteOne(g, h, key)
		return t.after()
	}
	t.b.entries.Add(-int64(len(km.sm.offs)))
	t.dropSub(g, h, key, km.si)
	return t.after()
}

func (m mapTable) RangeKey(kg int, key []byte, fn func(sub, value []byte) bool) error {
	t := m.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	km := t.lookup(t.maps[i], t.b.hash(key), key)
	if !km.found {
		return nil
	}
	var now int64
	if t.timed {
		now = t.b.now()
	}
	if km.sm == nil {
		if !(t.timed && t.expired(km.one.time, now)) {
			fn(km.one.key, km.one.value)
		}
		return nil
	}
	sm := km.sm
	for j := range sm.offs {
		e := sm.entry(j)
		if t.timed && t.expired(e.time, now) {
			continue
		}
		if !fn(e.key, e.value) {
			return nil
		}
	}
	return nil
}

func (m mapTable) Keys(kg int, fn func(key []byte) bool) error {
	t := m.t
	i, err := t.slot(kg)
	if err != nil {
		return err
	}
	g := t.maps[i]
	if g == nil {
		return nil
	}
	var now int64
	if t.timed {
		now = t.b.now()
	}
	g.index.scan(func(e entry) bool {
		if t.timed {
			if e.value[0] != refTag {
				if t.expired(decode(e.value, 0, true).time, now) {
					return true
				}
			} else if !g.subs[binary.LittleEndian.Uint32(e.value[1:])].anyLive(t, now) {
				return true
			}
		}
		return fn(e.key)
	})
	return nil
}

// anyLive reports whether s has an entry that has not expired.
func (s *submap) anyLive(t *table, now int64) bool {
	for j := range s.offs {
		if !t.expired(s.entry(j).time, now) {
			return true
		}
	}
	return false
}

// badValue and badMap are returned for a table asked for with the wrong
// kind: every call fails.
type badValue struct{ err error }

func (b badValue) Get(int, []byte) ([]byte, bool, error)         { return nil, false, b.err }
func (b badValue) Put(int, []byte, []byte) error                 { return b.err }
func (b badValue) Delete(int, []byte) error                      { return b.err }
func (b badValue) Range(int, func(key, value []byte) bool) error { return b.err }

type badMap struct{ err error }

func (b badMap) Get(int, []byte, []byte) ([]byte, bool, error)            { return nil, false, b.err }
func (b badMap) Put(int, []byte, []byte, []byte) error                    { return b.err }
func (b badMap) Delete(int, []byte, []byte) error                         { return b.err }
func (b badMap) DeleteKey(int, []byte) error                              { return b.err }
func (b badMap) RangeKey(int, []byte, func(sub, value []byte) bool) error { return b.err }
func (b badMap) Keys(int, func(key []byte) bool) error                    { return b.err }

var (
	_ state.Backend     = (*Backend)(nil)
	_ state.ValueTable  = valueTable{}
	_ state.Recoder     = valueTable{}
	_ state.MapTable    = mapTable{}
	_ state.MapInserter = mapTable{}
	_ state.ValueTable  = badValue{}
	_ state.MapTable    = badMap{}
)
