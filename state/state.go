// Package state defines keyed state: what a stateful operator (a GROUP BY
// aggregation, a window, a join) keeps between rows, how it is partitioned
// into key groups so that it can move between tasks when the parallelism
// changes, and how the runtime snapshots it at checkpoints and restores it.
//
// The types to learn first: [Backend] (a task's keyed state for one
// operator: named tables), [ValueTable] and [MapTable] (encoded bytes, never
// decoded rows), [Snapshot] and [Handle] (a checkpoint's cut of a backend
// and what the checkpoint stores of it), and [Kind] (a backend
// implementation, registered by name: state/heap in memory, state/lsm on
// disk).
//
// # Key groups
//
// A key (the encoded grouping columns of a row) hashes into one of
// MaxParallelism key groups ([KeyGroupOf]); the number is fixed for a job
// and stored in its checkpoints, as Flink's max parallelism is. Key group kg
// belongs to task [TaskOf](kg, parallelism, maxParallelism), and task i owns
// the contiguous range [RangeOf](i, ...). The exchange in front of a keyed
// operator routes each row to the task that owns its key's group; state is
// stored and snapshotted per key group, so that a restore with another
// parallelism gives each task the groups it now owns.
//
// # Snapshots
//
// At a checkpoint's aligned barrier the runtime calls [Backend.Snapshot] in
// the task's goroutine: it cuts a consistent view cheaply (a copy-on-write
// freeze of the in-memory tables, a checkpoint of the on-disk database) and
// returns at once, and the task goes on processing rows, which do not
// change the cut. [Snapshot.Write] then writes the cut's files on another
// goroutine, durably, and returns the [Handle] the checkpoint stores; the
// task acknowledges the checkpoint only after that. A restore always opens a
// fresh backend from handles ([Config.Restore]), never a live one.
package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"
)

// DefaultMaxParallelism is the number of key groups of a job that does not
// set pipeline.max-parallelism (Flink's default for small parallelisms).
const DefaultMaxParallelism = 128

// MaxMaxParallelism bounds pipeline.max-parallelism (Flink's bound).
const MaxMaxParallelism = 1 << 15

// KeyGroupRange is the key groups [Start, End).
type KeyGroupRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Contains reports whether kg is in r.
func (r KeyGroupRange) Contains(kg int) bool { return kg >= r.Start && kg < r.End }

// Len returns the number of key groups in r.
func (r KeyGroupRange) Len() int { return max(r.End-r.Start, 0) }

// Intersect returns the key groups in both r and o (empty when none).
func (r KeyGroupRange) Intersect(o KeyGroupRange) KeyGroupRange {
	s, e := max(r.Start, o.Start), min(r.End, o.End)
	if e < s {
		e = s
	}
	return KeyGroupRange{s, e}
}

// String returns "[start, end)".
func (r KeyGroupRange) String() string { return fmt.Sprintf("[%d, %d)", r.Start, r.End) }

// KeyGroupOf returns the key group of key, an encoded key (see AppendKey),
// among maxParallelism groups. The hash is fixed: it never changes between
// versions, since checkpoints store state by key group.
func KeyGroupOf(key []byte, maxParallelism int) int {
	return KeyGroupOfHash(Hash(key), maxParallelism)
}

// KeyGroupOfHash returns the key group of a key whose Hash is h: what
// KeyGroupOf returns, for an operator that keeps the hash for more.
func KeyGroupOfHash(h uint64, maxParallelism int) int {
	return int(h % uint64(maxParallelism))
}

// Hash is the stable 64-bit hash of an encoded key behind KeyGroupOf
// (FNV-1a, then a murmur3 finalizer to spread the low bits).
func Hash(key []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range key {
		h ^= uint64(b)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// TaskOf returns the task that owns key group kg (Flink's
// computeOperatorIndexForKeyGroup).
func TaskOf(kg, parallelism, maxParallelism int) int {
	return kg * parallelism / maxParallelism
}

// RangeOf returns the key groups task owns among parallelism tasks (Flink's
// computeKeyGroupRangeForOperatorIndex): every kg with TaskOf(kg) == task.
func RangeOf(task, parallelism, maxParallelism int) KeyGroupRange {
	start := (task*maxParallelism + parallelism - 1) / parallelism
	end := ((task+1)*maxParallelism - 1) / parallelism
	return KeyGroupRange{Start: start, End: end + 1}
}

// ErrMemoryLimit is wrapped by errors of a backend whose state passed its
// memory limit (Config.MemoryLimit): the job fails naming the operator
// rather than taking the machine down.
var ErrMemoryLimit = errors.New("state memory limit exceeded")

// Backend is one task's keyed state for one operator: named tables of
// encoded keys and values, partitioned by key group. Its methods are called
// from the task's goroutine only, except that a Snapshot it returned is
// written from another.
type Backend interface {
	// Value returns the value table called name, created empty when the
	// restored state had none.
	Value(name string, opts ...TableOption) ValueTable
	// Map returns the map table called name (a map per key), created
	// empty when the restored state had none.
	Map(name string, opts ...TableOption) MapTable
	// Snapshot cuts a consistent view of every table for checkpoint id. It
	// returns quickly; later mutations do not change the cut.
	Snapshot(id int64) (Snapshot, error)
	// Stats returns the state's size, for metrics and the status page. It
	// is safe to call from any goroutine.
	Stats() Stats
	// Close releases the backend (files of an on-disk one).
	Close() error
}

// Stats describes a backend's state.
type Stats struct {
	// Bytes is the approximate memory (heap) or disk (lsm) the state
	// takes; Entries the number of live entries over all tables.
	Bytes, Entries int64
	// Expired counts entries dropped by their table's TTL since the
	// backend opened.
	Expired int64
}

// TableOption configures a table.
type TableOption func(*TableConfig)

// TableConfig is a table's configuration (see TableOption).
type TableConfig struct {
	// TTL, when positive, expires an entry that was not written for TTL
	// (Flink's table.exec.state.ttl: the time counts from the last write,
	// expired entries are never returned, and they are dropped
	// eventually).
	TTL time.Duration
}

// TTL sets a table's time to live (table.exec.state.ttl, or a STATE_TTL
// hint). 0 keeps entries until they are deleted.
func TTL(d time.Duration) TableOption { return func(c *TableConfig) { c.TTL = d } }

// ValueTable maps a key to a value within each key group. Keys and values
// are bytes the caller encoded (package state's codec: AppendKey,
// AppendValue); the table copies what it keeps.
type ValueTable interface {
	// Get returns key's value; ok is false when there is none. The value
	// is valid until the next call on the table.
	Get(kg int, key []byte) (value []byte, ok bool, err error)
	// Put sets key's value.
	Put(kg int, key, value []byte) error
	// Delete removes key; deleting a missing key succeeds.
	Delete(kg int, key []byte) error
	// Range calls fn with each entry of key group kg (in no particular
	// order) until fn returns false. The slices are valid during the call
	// only. fn must not modify the table.
	Range(kg int, fn func(key, value []byte) bool) error
}

// Overwriter is implemented by a ValueTable that sets the value of a key it
// holds more cheaply than Put does (the on-disk backend reads a key before
// a Put to count its entries). Overwrite(kg, key, value) is Put for a key
// the caller knows the table holds: it read or wrote the key and has not
// deleted it since, and the table has no TTL. On any other key the table's
// entry count goes wrong. An operator probes for it once, when it opens
// the table.
type Overwriter interface {
	Overwrite(kg int, key, value []byte) error
}

// Recoder is implemented by a ValueTable that keeps its values in memory
// and lets the operator keep them there in a form of its own (a smaller
// one: rows whose repeated strings refer to a StringDict of the operator),
// while its snapshots hold the values in the form an operator writes
// without it, so that a checkpoint is the same with or without the
// operator's form and restores into either. An operator probes for it
// once, when it opens the table, before any other call on it.
type Recoder interface {
	// Recode makes c the table's codec: the values the table holds (those
	// of a restored checkpoint) are converted by c.Internal, and those it
	// writes into snapshots from then on by the function c.Cut returned
	// at the snapshot. The values the operator writes after the call must
	// be in its own form.
	Recode(c ValueCodec) error
}

// ValueCodec converts a Recoder table's values between the form the
// operator keeps in memory and the one its snapshots hold.
type ValueCodec interface {
	// Internal appends the operator's form of value, a value of a
	// snapshot, to dst.
	Internal(dst, value []byte) ([]byte, error)
	// Cut is called in the task's goroutine when the backend cuts a
	// snapshot. The function it returns appends the snapshot's form of a
	// value the table held at the cut to dst; it runs on the goroutine
	// that writes the snapshot while the task goes on, so it must not
	// read what the operator changes after the cut.
	Cut() func(dst, value []byte) ([]byte, error)
}

// MapInserter is implemented by a MapTable that adds an entry in one
// lookup. Insert(kg, key, sub, value) is Put when the table holds no
// entry (key, sub) (or only an expired one); otherwise it writes nothing
// and returns the entry's value, valid until the next call on the table,
// with inserted false. A regular join's side that keeps a count per
// distinct row adds each row so, where Get then Put looks it up twice
// (the heap backend: a hash, an index probe and a binary search of the
// key's sorted map each). An operator probes for it once, when it opens
// the table.
type MapInserter interface {
	Insert(kg int, key, sub, value []byte) (held []byte, inserted bool, err error)
}

// MapTable maps a key to a map of sub-keys to values within each key group
// (Flink's MapState): the distinct values of a COUNT(DISTINCT), the windows
// of a key, the rows of one side of a join.
type MapTable interface {
	// Get returns the value of (key, sub); ok is false when there is none.
	// The value is valid until the next call on the table.
	Get(kg int, key, sub []byte) (value []byte, ok bool, err error)
	// Put sets the value of (key, sub).
	Put(kg int, key, sub, value []byte) error
	// Delete removes (key, sub); deleting a missing one succeeds.
	Delete(kg int, key, sub []byte) error
	// DeleteKey removes every entry of key.
	DeleteKey(kg int, key []byte) error
	// RangeKey calls fn with each (sub, value) of key, in increasing
	// byte order of sub, until fn returns false. The slices are valid
	// during the call only. fn must not modify the table.
	RangeKey(kg int, key []byte, fn func(sub, value []byte) bool) error
	// Keys calls fn with each key of key group kg that has entries (in no
	// particular order) until fn returns false. fn must not modify the
	// table.
	Keys(kg int, fn func(key []byte) bool) error
}

// ListTable keeps, per key within each key group, a list of values in the
// order they were appended; a value appended twice is held twice. It is for
// rows that are only ever added (a regular join's side whose input is
// insert-only and has no unique key): adding is an append, with no search
// and no count per distinct value. A list table has no TTL.
type ListTable interface {
	// Append adds value to key's list.
	Append(kg int, key, value []byte) error
	// RangeList calls fn with each value of key's list until fn returns
	// false (the heap backend: in the order they were appended; others may
	// give another order). The slice is valid during the call only. fn
	// must not modify the table.
	RangeList(kg int, key []byte, fn func(value []byte) bool) error
	// DeleteIf removes the values of key's list for which drop returns
	// true. drop must not modify the table, and must answer alike for
	// equal values (a backend may ask once for all the copies of one).
	DeleteIf(kg int, key []byte, drop func(value []byte) bool) error
	// DeleteKey removes key's list.
	DeleteKey(kg int, key []byte) error
	// Keys calls fn with each key of key group kg that has values (in no
	// particular order) until fn returns false. fn must not modify the
	// table.
	Keys(kg int, fn func(key []byte) bool) error
}

// Lister is implemented by a Backend that has list tables. List returns
// the list table called name, created empty when the restored state had
// none. An operator probes for it once, when it opens.
type Lister interface {
	List(name string, opts ...TableOption) ListTable
}

// Snapshot is a backend's cut at one checkpoint.
type Snapshot interface {
	// Write writes the cut's files through files under names that start
	// with prefix (unique to the checkpoint, vertex and task: the runtime
	// makes it so), durably, and returns the handle the checkpoint stores.
	// It runs on another goroutine than the task's.
	Write(ctx context.Context, files Files, prefix string) (Handle, error)
	// Release frees what the cut holds (a frozen copy, a local database
	// checkpoint) once Write returned or was abandoned.
	Release()
}

// Handle is what a checkpoint stores of one task's state of one operator:
// enough for a backend of the same kind to restore it, with any
// parallelism.
type Handle struct {
	// Kind is the backend's name (Kind.Name).
	Kind string `json:"kind"`
	// KeyGroups are the key groups the state covers.
	KeyGroups KeyGroupRange `json:"key_groups"`
	// Files lists every file the state needs, also those written by
	// earlier checkpoints and shared with them (an incremental checkpoint
	// of the on-disk backend): a file is deleted only when no retained
	// checkpoint's handle lists it.
	Files []FileRef `json:"files,omitempty"`
	// Meta is the backend's own description of the state (which file
	// holds what); small.
	Meta json.RawMessage `json:"meta,omitempty"`
}

// FileRef names a file in the checkpoint storage.
type FileRef struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// Files is the checkpoint storage's interface for state files: named,
// immutable, write-once files under the job's checkpoint location (a local
// folder or an object store). runtime/checkpoint's storages implement it.
type Files interface {
	// PutFile writes the file name (a slash-separated relative path, unique:
	// never written twice) with r's content; when it returns nil the file is
	// durable.
	PutFile(ctx context.Context, name string, r io.Reader) (size int64, err error)
	// OpenFile opens a file written by PutFile.
	OpenFile(ctx context.Context, name string) (io.ReadCloser, error)
}

// Config is what a Kind needs to open a task's backend.
type Config struct {
	// Operator names the operator's vertex and task, for errors ("vertex
	// 'GroupAggregate[3]' task 1").
	Operator string
	// KeyGroups is the range the task owns; MaxParallelism the job's
	// number of key groups.
	KeyGroups      KeyGroupRange
	MaxParallelism int
	// Restore are the handles of the restored checkpoint whose key groups
	// meet KeyGroups (several when the parallelism changed); empty for a
	// fresh start. Entries of other key groups in them are skipped.
	Restore []Handle
	// Files reads the restored handles' files.
	Files Files
	// Dir is a local folder the backend may use for working files (the
	// on-disk backend's database); it is empty, and deleted after Close.
	Dir string
	// MemoryLimit, when positive, bounds the memory an in-memory backend's
	// state may take: a write past it fails with ErrMemoryLimit.
	MemoryLimit int64
	// Incremental asks a backend that can to write incremental snapshots
	// (state.backend.incremental): a snapshot's handle then lists files
	// of earlier snapshots it shares instead of writing them again. A
	// backend that cannot ignores it.
	Incremental bool
	// CompressLists asks an in-memory backend that can to keep the full
	// chunks of its list tables compressed (state.backend.hashmap.compress-join-rows):
	// less memory for more CPU. A backend that cannot ignores it.
	CompressLists bool
	// SpillThreshold, when positive, asks an in-memory backend that can
	// to write the full chunks of its list tables to a working file in
	// Dir once its state takes more than this many bytes of memory
	// (state.backend.hashmap.spill-threshold), and to read them back from
	// it when they are probed or snapshotted: the memory count (Stats,
	// MemoryLimit) is then of what is in memory. Checkpoints are the same
	// either way. A backend that cannot, or has no Dir, ignores it.
	SpillThreshold int64
	// Now returns the time in milliseconds since the epoch, for TTL; nil:
	// the wall clock.
	Now func() int64
}

// Kind is a backend implementation (state.backend.type).
type Kind interface {
	// Name is the value of state.backend.type that selects it.
	Name() string
	// Open opens a task's backend.
	Open(ctx context.Context, cfg Config) (Backend, error)
}

var (
	kindsMu sync.RWMutex
	kinds   = map[string]Kind{}
	aliases = map[string]string{}
)

// Register makes k available under its name and the given aliases (such as
// Flink's names for the backend: "hashmap", "rocksdb"). It panics when a
// name is empty or taken, as database/sql's Register does.
func Register(k Kind, alias ...string) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	for _, n := range append([]string{k.Name()}, alias...) {
		if n == "" {
			panic("state: Register with an empty name")
		}
		if _, dup := aliases[n]; dup {
			panic("state: Register called twice for " + n)
		}
		aliases[n] = k.Name()
	}
	kinds[k.Name()] = k
}

// Lookup returns the backend registered under name (or one of its aliases).
func Lookup(name string) (Kind, bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	k, ok := kinds[aliases[name]]
	return k, ok
}

// Names returns the registered names and aliases, sorted.
func Names() []string {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	out := make([]string, 0, len(aliases))
	for n := range aliases {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
