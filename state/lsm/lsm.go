// Package lsm is the on-disk keyed-state backend (state.backend.type
// "pebble", or Flink's name "rocksdb"): a task's state lives in a local
// pebble database (github.com/cockroachdb/pebble/v2, the log-structured
// merge tree CockroachDB stores its data in), so it may be much larger than
// memory, and checkpoints are incremental: each uploads only the table
// files (SSTs) no earlier checkpoint of the task uploaded.
//
// # Layout
//
// Every table of the backend shares one database. A key is
//
//	key group (2 bytes, big-endian) | table id (2 bytes) | key            (a ValueTable)
//	key group (2 bytes, big-endian) | table id (2 bytes) | uvarint len(key) | key | sub   (a MapTable)
//
// so that a key group's state is one contiguous range (a restore at another
// parallelism deletes or copies whole ranges) and a MapTable key's entries
// are contiguous and ordered by sub-key. A value is a flag byte (1 when an
// 8-byte write time follows, for tables with a TTL), then the caller's
// bytes. Keys that start with 0xffff (never a key group) hold the catalog:
// the tables' names and ids, and the number of entries of each key group.
//
// # Snapshots
//
// Backend.Snapshot runs in the task's goroutine: it records the entry
// counts, flushes the memtable (the database has no write-ahead log: a
// crashed task's database is never reused, a restore starts from a
// checkpoint) and makes a pebble checkpoint of the database in a folder of
// Config.Dir (DB.Checkpoint: hard links to the SSTs and synced copies of
// the manifest and options): later writes never reach it. The flush makes
// the cut's time proportional to what was written since the last
// checkpoint, as Flink's RocksDB backend does. Snapshot.Write uploads, on
// another goroutine, the checkpoint's SSTs that an earlier successful
// Write of this backend did not upload, and the other (small) files, and
// returns a Handle that lists every file the checkpoint needs, those
// shared with earlier checkpoints included (a file may be deleted only
// when no retained checkpoint lists it). Release deletes the local
// checkpoint.
//
// # Restore
//
// A restore downloads the files of the handle that covers most of the
// task's key groups into a fresh database, deletes the key groups the task
// does not own (range deletions), and copies the owned key groups of every
// other handle into it (a change of parallelism). The downloaded SSTs count
// as uploaded already: the next checkpoint references them.
//
// # TTL and memory
//
// A table with a TTL stores each entry's write time: reads never return an
// entry older than the TTL, and every 64 writes to the table sweep 256 of
// its entries in key order, deleting the expired ones (Stats.Expired counts
// them). Snapshots do not filter expired entries out (they are SST files);
// the readers of a restored backend never see them. Memory is pebble's
// block cache and memtables, sized from Config.MemoryLimit (half of it for
// the cache, an eighth per memtable) or 32 MiB and 8 MiB; the state's size
// is bounded by the disk.
package lsm

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/streamsql/streamsql/state"
)

// Name is the backend's state.backend.type; "rocksdb" (Flink's name of its
// on-disk backend) is an alias.
const Name = "pebble"

func init() { state.Register(Kind{}, "rocksdb") }

// Kind is the pebble backend's state.Kind.
type Kind struct{}

// Name returns "pebble".
func (Kind) Name() string { return Name }

// Open opens a task's pebble backend, restoring cfg.Restore.
func (Kind) Open(ctx context.Context, cfg state.Config) (state.Backend, error) {
	return Open(ctx, cfg)
}

const (
	// Default memory of a backend without Config.MemoryLimit.
	defaultCache    = 32 << 20
	defaultMemtable = 8 << 20

	// sweepEvery writes to a table with a TTL, the next sweepEntries of
	// its entries are looked at.
	sweepEvery   = 64
	sweepEntries = 256

	flagUntimed = 0
	flagTimed   = 1
)

// The catalog's keys.
var (
	catalog      = []byte{0xff, 0xff}
	catalogTable = []byte{0xff, 0xff, 't'} // + name → table id (2 bytes) | kind (0 value, 1 map)
	catalogCount = []byte{0xff, 0xff, 'c'} // + key group (2 bytes) → uvarint entries
)

// Backend is a task's keyed state in a local pebble database.
type Backend struct {
	cfg   state.Config
	kgs   state.KeyGroupRange
	now   func() int64
	dbDir string
	cache *pebble.Cache

	mu     sync.RWMutex // guards db against Close, for Stats
	db     *pebble.DB
	closed bool

	tables  map[string]*table
	nextID  uint16
	counts  []int64 // entries per owned key group
	saved   []int64 // counts as the catalog holds them (nil: not known)
	entries atomic.Int64
	expired atomic.Int64

	// The last point read: whether its key exists in the database
	// (expired or not), so that the Put or Delete that follows it keeps
	// the counts without reading again.
	lastKey    []byte
	lastExists bool
	lastValid  bool

	key, val []byte // scratch
	snapSeq  int

	upMu     sync.Mutex
	uploaded map[string]state.FileRef // local SST name → where an earlier checkpoint put it

	tweak func(*pebble.Options)
}

type table struct {
	b     *Backend
	name  string
	id    uint16
	isMap bool
	ttl   int64 // ms; 0: none
	since int64 // entries written without a time count as written then

	writes   int
	sweepKG  int
	sweepKey []byte
}

func operator(cfg state.Config) string {
	if cfg.Operator == "" {
		return "the operator"
	}
	return cfg.Operator
}

// Open opens a task's pebble backend in cfg.Dir, restoring the key groups
// of cfg.KeyGroups from cfg.Restore.
func Open(ctx context.Context, cfg state.Config) (*Backend, error) {
	return openWith(ctx, cfg, nil)
}

// openWith is Open with a change to the database's options (for tests).
func openWith(ctx context.Context, cfg state.Config, tweak func(*pebble.Options)) (*Backend, error) {
	if cfg.KeyGroups.Len() <= 0 || cfg.KeyGroups.End > state.MaxMaxParallelism {
		return nil, fmt.Errorf("pebble state of %s: bad key group range %v", operator(cfg), cfg.KeyGroups)
	}
	if cfg.Dir == "" {
		return nil, fmt.Errorf("pebble state of %s: no working folder (Config.Dir)", operator(cfg))
	}
	b := &Backend{
		cfg:      cfg,
		kgs:      cfg.KeyGroups,
		now:      cfg.Now,
		dbDir:    filepath.Join(cfg.Dir, "db"),
		tables:   map[string]*table{},
		nextID:   1,
		counts:   make([]int64, cfg.KeyGroups.Len()),
		uploaded: map[string]state.FileRef{},
		tweak:    tweak,
	}
	if b.now == nil {
		b.now = func() int64 { return time.Now().UnixMilli() }
	}
	if err := b.restore(ctx, cfg.Restore); err != nil {
		b.Close()
		return nil, fmt.Errorf("opening pebble state of %s: %w", operator(cfg), err)
	}
	return b, nil
}

// memory returns the block cache and memtable sizes: from
// Config.MemoryLimit, or the defaults.
func (b *Backend) memory() (cacheSize int64, memtable uint64) {
	if lim := b.cfg.MemoryLimit; lim > 0 {
		return max(lim/2, 1<<20), uint64(max(lim/8, 1<<20))
	}
	return defaultCache, defaultMemtable
}

func (b *Backend) options(c *pebble.Cache, memtable uint64, readOnly bool) *pebble.Options {
	o := &pebble.Options{
		Cache:                       c,
		MemTableSize:                memtable,
		MemTableStopWritesThreshold: 2,
		Logger:                      quietLogger{op: operator(b.cfg)},
		ReadOnly:                    readOnly,
		FS:                          vfs.Default,
		// Durability comes from checkpoints, and a restore never reuses a
		// crashed task's database: no write-ahead log.
		DisableWAL: true,
	}
	// A point read (every row of an aggregation reads its key's
	// accumulator) skips the tables whose bloom filter says they do not
	// hold the key instead of reading a data block of each: pebble has no
	// filter by default. Tables written without one still read.
	for i := range o.Levels {
		o.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	return o
}

// quietLogger keeps pebble's informational messages out of the job's log.
type quietLogger struct{ op string }

func (quietLogger) Infof(string, ...any) {}
func (l quietLogger) Errorf(format string, args ...any) {
	slog.Error("pebble state: "+fmt.Sprintf(format, args...), "operator", l.op)
}
func (l quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("pebble state of %s: %s", l.op, fmt.Sprintf(format, args...)))
}

// openMain opens the task's database in b.dbDir.
func (b *Backend) openMain() error {
	size, memtable := b.memory()
	b.cache = pebble.NewCache(size)
	o := b.options(b.cache, memtable, false)
	if b.tweak != nil {
		b.tweak(o)
	}
	db, err := pebble.Open(b.dbDir, o)
	if err != nil {
		return fmt.Errorf("opening the database in %s: %w", b.dbDir, err)
	}
	b.db = db
	return nil
}

// openTemp opens a downloaded database to copy from, with a small cache.
func (b *Backend) openTemp(dir string) (*pebble.DB, error) {
	c := pebble.NewCache(8 << 20)
	defer c.Unref()
	db, err := pebble.Open(dir, b.options(c, 4<<20, true))
	if err != nil {
		return nil, fmt.Errorf("opening the database in %s: %w", dir, err)
	}
	return db, nil
}

// Stats returns the state's size: Bytes is the database's disk usage.
func (b *Backend) Stats() state.Stats {
	st := state.Stats{Entries: b.entries.Load(), Expired: b.expired.Load()}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.db != nil && !b.closed {
		st.Bytes = int64(b.db.Metrics().DiskSpaceUsage())
	}
	return st
}

// Close closes the database.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	var err error
	if b.db != nil {
		err = b.db.Close()
		b.db = nil
	}
	if b.cache != nil {
		b.cache.Unref()
	}
	return err
}

// Value returns the value table called name.
func (b *Backend) Value(name string, opts ...state.TableOption) state.ValueTable {
	t, err := b.table(name, false, opts)
	if err != nil {
		return badValue{err}
	}
	return valueTable{t}
}

// Map returns the map table called name.
func (b *Backend) Map(name string, opts ...state.TableOption) state.MapTable {
	t, err := b.table(name, true, opts)
	if err != nil {
		return badMap{err}
	}
	return mapTable{t}
}

func (b *Backend) table(name string, isMap bool, opts []state.TableOption) (*table, error) {
	var tc state.TableConfig
	for _, o := range opts {
		o(&tc)
	}
	t := b.tables[name]
	if t == nil {
		var err error
		if t, err = b.createTable(name, isMap); err != nil {
			return nil, err
		}
	}
	if t.isMap != isMap {
		kinds := [2]string{"a value table", "a map table"}
		return nil, fmt.Errorf("state table %q of %s is %s, asked for as %s", name, operator(b.cfg), kinds[boolInt(t.isMap)], kinds[boolInt(isMap)])
	}
	ttl := tc.TTL.Milliseconds()
	if tc.TTL > 0 && ttl == 0 {
		ttl = 1
	}
	if ttl > 0 && t.ttl == 0 {
		t.since = b.now()
	}
	t.ttl = ttl
	return t, nil
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// createTable adds a table to the catalog.
func (b *Backend) createTable(name string, isMap bool) (*table, error) {
	if b.closed {
		return nil, fmt.Errorf("state table %q of %s: the backend is closed", name, operator(b.cfg))
	}
	if b.nextID == 0xffff {
		return nil, fmt.Errorf("state of %s: too many tables", operator(b.cfg))
	}
	t := &table{b: b, name: name, id: b.nextID, isMap: isMap}
	b.nextID++
	v := []byte{byte(t.id >> 8), byte(t.id), byte(boolInt(isMap))}
	if err := b.db.Set(append(bytes.Clone(catalogTable), name...), v, pebble.NoSync); err != nil {
		return nil, fmt.Errorf("state table %q of %s: %w", name, operator(b.cfg), err)
	}
	b.tables[name] = t
	return t, nil
}

// loadCatalog reads the tables and the entry counts of the key groups in
// counted (a subset of the task's) from db.
func loadCatalog(db *pebble.DB) (tables map[uint16]catalogEntry, counts map[int]int64, err error) {
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: catalog})
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	tables, counts = map[uint16]catalogEntry{}, map[int]int64{}
	for ok := it.First(); ok; ok = it.Next() {
		k, v := it.Key(), it.Value()
		switch {
		case bytes.HasPrefix(k, catalogTable):
			if len(v) != 3 {
				return nil, nil, fmt.Errorf("%w: catalog entry of table %q", state.ErrCorrupt, k[len(catalogTable):])
			}
			tables[uint16(v[0])<<8|uint16(v[1])] = catalogEntry{name: string(k[len(catalogTable):]), isMap: v[2] == 1}
		case bytes.HasPrefix(k, catalogCount):
			if len(k) != len(catalogCount)+2 {
				return nil, nil, fmt.Errorf("%w: catalog count key %x", state.ErrCorrupt, k)
			}
			n, m := binary.Uvarint(v)
			if m <= 0 {
				return nil, nil, fmt.Errorf("%w: catalog count %x", state.ErrCorrupt, v)
			}
			counts[int(k[len(k)-2])<<8|int(k[len(k)-1])] = int64(n)
		}
	}
	return tables, counts, it.Error()
}

type catalogEntry struct {
	name  string
	isMap bool
}

// prefix appends the prefix of table id's keys in key group kg.
func prefix(dst []byte, kg int, id uint16) []byte {
	return append(dst, byte(kg>>8), byte(kg), byte(id>>8), byte(id))
}

// succ returns the smallest key greater than every key that starts with p.
func succ(p []byte) []byte {
	s := bytes.Clone(p)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != 0xff {
			s[i]++
			return s[:i+1]
		}
	}
	return nil
}

func (t *table) slot(kg int) error {
	if !t.b.kgs.Contains(kg) {
		return fmt.Errorf("state table %q of %s: key group %d is not in the task's range %v", t.name, operator(t.b.cfg), kg, t.b.kgs)
	}
	if t.b.closed {
		return fmt.Errorf("state table %q of %s: the backend is closed", t.name, operator(t.b.cfg))
	}
	return nil
}

// valueKey builds the database key of a value table's key in b.key.
func (t *table) valueKey(kg int, key []byte) []byte {
	t.b.key = append(prefix(t.b.key[:0], kg, t.id), key...)
	return t.b.key
}

// mapPrefix builds the prefix of a map table key's entries in b.key.
func (t *table) mapPrefix(kg int, key []byte) []byte {
	k := prefix(t.b.key[:0], kg, t.id)
	k = binary.AppendUvarint(k, uint64(len(key)))
	t.b.key = append(k, key...)
	return t.b.key
}

// decodeValue splits a stored value into the write time and the caller's
// bytes.
func (t *table) decodeValue(v []byte) (int64, []byte, error) {
	if len(v) == 0 {
		return 0, nil, fmt.Errorf("%w: empty value in table %q", state.ErrCorrupt, t.name)
	}
	switch v[0] {
	case flagUntimed:
		return t.since, v[1:], nil
	case flagTimed:
		if len(v) < 9 {
			return 0, nil, fmt.Errorf("%w: short value in table %q", state.ErrCorrupt, t.name)
		}
		return int64(binary.LittleEndian.Uint64(v[1:])), v[9:], nil
	}
	return 0, nil, fmt.Errorf("%w: bad value flag %#x in table %q", state.ErrCorrupt, v[0], t.name)
}

func (t *table) expired(writeTime, now int64) bool { return t.ttl > 0 && writeTime+t.ttl <= now }

// encodeValue builds a stored value in b.val.
func (t *table) encodeValue(v []byte) []byte {
	if t.ttl > 0 {
		t.b.val = binary.LittleEndian.AppendUint64(append(t.b.val[:0], flagTimed), uint64(t.b.now()))
	} else {
		t.b.val = append(t.b.val[:0], flagUntimed)
	}
	t.b.val = append(t.b.val, v...)
	return t.b.val
}

// get reads the database key k; the value is copied into b.val.
func (t *table) get(k []byte) ([]byte, bool, error) {
	b := t.b
	v, closer, err := b.db.Get(k)
	b.lastKey = append(b.lastKey[:0], k...)
	b.lastValid = true
	if errors.Is(err, pebble.ErrNotFound) {
		b.lastExists = false
		return nil, false, nil
	}
	if err != nil {
		b.lastValid = false
		return nil, false, fmt.Errorf("state table %q of %s: %w", t.name, operator(b.cfg), err)
	}
	b.val = append(b.val[:0], v...)
	closer.Close()
	b.lastExists = true
	wt, val, err := t.decodeValue(b.val)
	if err != nil {
		return nil, false, err
	}
	if t.expired(wt, b.now()) {
		return nil, false, nil
	}
	return val[:len(val):len(val)], true, nil
}

// exists reports whether the database holds k (expired or not), reusing
// the last point read when it was of k.
func (t *table) exists(k []byte) (bool, error) {
	b := t.b
	if b.lastValid && bytes.Equal(b.lastKey, k) {
		return b.lastExists, nil
	}
	_, closer, err := b.db.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("state table %q of %s: %w", t.name, operator(b.cfg), err)
	}
	closer.Close()
	return true, nil
}

func (t *table) count(kg int, d int64) {
	t.b.counts[kg-t.b.kgs.Start] += d
	t.b.entries.Add(d)
}

// set writes k = v (v the caller's bytes) and counts a new entry.
func (t *table) set(kg int, k, v []byte) error {
	ex, err := t.exists(k)
	if err != nil {
		return err
	}
	t.b.lastValid = false
	if err := t.b.db.Set(k, t.encodeValue(v), pebble.NoSync); err != nil {
		return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
	}
	if !ex {
		t.count(kg, 1)
	}
	return t.afterWrite()
}

func (t *table) del(kg int, k []byte) error {
	ex, err := t.exists(k)
	if err != nil || !ex {
		return err
	}
	t.b.lastValid = false
	if err := t.b.db.Delete(k, pebble.NoSync); err != nil {
		return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
	}
	t.count(kg, -1)
	return t.afterWrite()
}

func (t *table) afterWrite() error {
	if t.ttl == 0 {
		return nil
	}
	t.writes++
	if t.writes%sweepEvery != 0 {
		return nil
	}
	return t.sweep(sweepEntries)
}

// sweep looks at the next n entries of the table (in key order, key group
// by key group) and deletes the expired ones.
func (t *table) sweep(n int) error {
	b := t.b
	now := b.now()
	batch := b.db.NewBatch()
	defer func() { batch.Close() }()
	// At most one pass over the key groups: the deletions are committed
	// at the end, and a second look at a key group would count them again.
	for groups := 0; n > 0 && groups < b.kgs.Len(); {
		kg := b.kgs.Start + t.sweepKG
		p := prefix(nil, kg, t.id)
		lower := p
		if t.sweepKey != nil {
			lower = t.sweepKey
		}
		it, err := b.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: succ(p)})
		if err != nil {
			return err
		}
		ok := it.First()
		for ; ok && n > 0; ok = it.Next() {
			n--
			wt, _, err := t.decodeValue(it.Value())
			if err != nil {
				it.Close()
				return err
			}
			if t.expired(wt, now) {
				if err := batch.Delete(it.Key(), nil); err != nil {
					it.Close()
					return err
				}
				t.count(kg, -1)
				b.expired.Add(1)
			}
		}
		if ok { // the budget ran out within the key group
			t.sweepKey = append(append(t.sweepKey[:0], it.Key()...), 0)
		} else {
			t.sweepKey = nil
			t.sweepKG = (t.sweepKG + 1) % b.kgs.Len()
			groups++
			n--
		}
		if err := it.Close(); err != nil {
			return err
		}
	}
	b.lastValid = false
	return batch.Commit(pebble.NoSync)
}

// scan calls fn with each live entry of the keys [lower, upper) (the
// database key and the caller's value) until fn returns false.
func (t *table) scan(lower, upper []byte, fn func(k, v []byte) bool) error {
	it, err := t.b.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return err
	}
	var now int64
	if t.ttl > 0 {
		now = t.b.now()
	}
	for ok := it.First(); ok; ok = it.Next() {
		wt, v, err := t.decodeValue(it.Value())
		if err != nil {
			it.Close()
			return err
		}
		if t.expired(wt, now) {
			continue
		}
		if !fn(it.Key(), v) {
			break
		}
	}
	return it.Close()
}

type valueTable struct{ t *table }

func (v valueTable) Get(kg int, key []byte) ([]byte, bool, error) {
	if err := v.t.slot(kg); err != nil {
		return nil, false, err
	}
	return v.t.get(v.t.valueKey(kg, key))
}

func (v valueTable) Put(kg int, key, value []byte) error {
	if err := v.t.slot(kg); err != nil {
		return err
	}
	return v.t.set(kg, v.t.valueKey(kg, key), value)
}

// Overwrite is Put of a key the table holds (state.Overwriter): it does
// not read the key first to count it.
func (v valueTable) Overwrite(kg int, key, value []byte) error {
	t := v.t
	if err := t.slot(kg); err != nil {
		return err
	}
	t.b.lastValid = false
	if err := t.b.db.Set(t.valueKey(kg, key), t.encodeValue(value), pebble.NoSync); err != nil {
		return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
	}
	return t.afterWrite()
}

func (v valueTable) Delete(kg int, key []byte) error {
	if err := v.t.slot(kg); err != nil {
		return err
	}
	return v.t.del(kg, v.t.valueKey(kg, key))
}

func (v valueTable) Range(kg int, fn func(key, value []byte) bool) error {
	if err := v.t.slot(kg); err != nil {
		return err
	}
	p := prefix(nil, kg, v.t.id)
	return v.t.scan(p, succ(p), func(k, val []byte) bool { return fn(k[len(p):], val) })
}

type mapTable struct{ t *table }

func (m mapTable) Get(kg int, key, sub []byte) ([]byte, bool, error) {
	if err := m.t.slot(kg); err != nil {
		return nil, false, err
	}
	return m.t.get(append(m.t.mapPrefix(kg, key), sub...))
}

func (m mapTable) Put(kg int, key, sub, value []byte) error {
	if err := m.t.slot(kg); err != nil {
		return err
	}
	return m.t.set(kg, append(m.t.mapPrefix(kg, key), sub...), value)
}

func (m mapTable) Delete(kg int, key, sub []byte) error {
	if err := m.t.slot(kg); err != nil {
		return err
	}
	return m.t.del(kg, append(m.t.mapPrefix(kg, key), sub...))
}

func (m mapTable) DeleteKey(kg int, key []byte) error {
	t := m.t
	if err := t.slot(kg); err != nil {
		return err
	}
	p := bytes.Clone(t.mapPrefix(kg, key))
	end := succ(p)
	it, err := t.b.db.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: end})
	if err != nil {
		return err
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if err := it.Close(); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	t.b.lastValid = false
	if err := t.b.db.DeleteRange(p, end, pebble.NoSync); err != nil {
		return fmt.Errorf("state table %q of %s: %w", t.name, operator(t.b.cfg), err)
	}
	t.count(kg, -int64(n))
	return t.afterWrite()
}

func (m mapTable) RangeKey(kg int, key []byte, fn func(sub, value []byte) bool) error {
	t := m.t
	if err := t.slot(kg); err != nil {
		return err
	}
	p := bytes.Clone(t.mapPrefix(kg, key))
	return t.scan(p, succ(p), func(k, v []byte) bool { return fn(k[len(p):], v) })
}

func (m mapTable) Keys(kg int, fn func(key []byte) bool) error {
	t := m.t
	if err := t.slot(kg); err != nil {
		return err
	}
	p := prefix(nil, kg, t.id)
	it, err := t.b.db.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: succ(p)})
	if err != nil {
		return err
	}
	var now int64
	if t.ttl > 0 {
		now = t.b.now()
	}
	for ok := it.First(); ok; {
		k := it.Key()
		n, m := binary.Uvarint(k[len(p):])
		if m <= 0 || len(k) < len(p)+m+int(n) {
			it.Close()
			return fmt.Errorf("%w: map table %q key %x", state.ErrCorrupt, t.name, k)
		}
		kp := k[:len(p)+m+int(n)]
		key := kp[len(p)+m:]
		live := true
		if t.ttl > 0 {
			// The key counts if one of its entries has not expired.
			live = false
			for ; ok && bytes.HasPrefix(it.Key(), kp); ok = it.Next() {
				wt, _, err := t.decodeValue(it.Value())
				if err != nil {
					it.Close()
					return err
				}
				if !t.expired(wt, now) {
					live = true
					break
				}
			}
		}
		if live && !fn(bytes.Clone(key)) {
			break
		}
		next := succ(kp)
		if next == nil {
			break
		}
		ok = it.SeekGE(next)
	}
	return it.Close()
}

// badValue and badMap are returned for a table that cannot be used (asked
// for with the wrong kind): every call fails.
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
	_ state.Backend    = (*Backend)(nil)
	_ state.ValueTable = valueTable{}
	_ state.Overwriter = valueTable{}
	_ state.MapTable   = mapTable{}
	_ state.ValueTable = badValue{}
	_ state.MapTable   = badMap{}
)
