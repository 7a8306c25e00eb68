// Package statetest is a conformance suite for keyed-state backends: it
// checks that a state.Kind keeps the contract of package state, whatever
// it stores its state in. Both built-in backends (state/heap and state/lsm)
// run it, from an ordinary test:
//
//	func TestConformance(t *testing.T) {
//		statetest.Run(t, statetest.Harness{Kind: heap.Kind{}})
//	}
//
// # What is checked
//
//   - ValueTable: Get, Put (the table copies what it keeps), Delete and
//     Range against a model under thousands of random operations;
//   - MapTable: the same, with RangeKey in increasing byte order of the
//     sub-keys, Keys, DeleteKey, and stopping early;
//   - key groups outside the task's range and a table asked for with the
//     other kind are errors;
//   - snapshot isolation: a snapshot holds exactly the state at its cut,
//     whatever the task writes afterwards, also while the snapshot is
//     written on another goroutine (run the suite under -race), and with
//     several snapshots outstanding, released in any order;
//   - restore into a fresh backend at another parallelism (1 → 4 → 2, from
//     one or several handles): each task gets exactly the keys of its key
//     groups;
//   - a failed write of a snapshot leaves the backend usable;
//   - TTL: an entry is not returned once TTL passed since its last write
//     (Flink's table.exec.state.ttl), a write renews it, a restored
//     backend does not return entries expired at the snapshot (unless the
//     harness says snapshots may keep them, they stay out when the clock
//     goes back), and writes sweep expired entries away (Stats.Expired
//     counts them);
//   - Stats: entries (exact unless the harness says they are estimates),
//     bytes that grow with the state, and reads from another goroutine.
//
// MemFiles is the in-memory state.Files the suite writes snapshots to.
package statetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// Harness describes the backend under test.
type Harness struct {
	// Kind opens the backends.
	Kind state.Kind
	// ApproximateStats says that Stats.Entries is an estimate: the suite
	// then checks only that it grows with the state.
	ApproximateStats bool
	// Scale multiplies the number of random operations of the checks
	// (0: 1), for a backend whose operations are slow under -race.
	Scale float64
	// SnapshotsKeepExpired says that snapshots may hold expired entries
	// (the restored backend still never returns them): the suite then
	// does not check that they stay out when the clock goes back.
	SnapshotsKeepExpired bool
	// SweepWrites bounds the writes to other keys after which every
	// expired entry of a table must have been dropped, per expired entry
	// (0: 50).
	SweepWrites int
}

// Run runs every check as a subtest of t.
func Run(t *testing.T, h Harness) {
	for _, c := range Checks() {
		t.Run(c.Name, func(t *testing.T) { c.Run(t, h) })
	}
}

// Check is one check of the suite.
type Check struct {
	Name string
	Run  func(t *testing.T, h Harness)
}

// Checks returns the suite's checks.
func Checks() []Check {
	return []Check{
		{"ValueTable", checkValueTable},
		{"ValueTableRandom", checkValueTableRandom},
		{"MapTable", checkMapTable},
		{"MapTableRandom", checkMapTableRandom},
		{"Errors", checkErrors},
		{"SnapshotIsolation", checkSnapshotIsolation},
		{"SnapshotWhileWriting", checkSnapshotWhileWriting},
		{"OverlappingSnapshots", checkOverlappingSnapshots},
		{"Rescale", checkRescale},
		{"RestoreEmpty", checkRestoreEmpty},
		{"FailedWrite", checkFailedWrite},
		{"TTL", checkTTL},
		{"TTLSweep", checkTTLSweep},
		{"TTLRestore", checkTTLRestore},
		{"Stats", checkStats},
	}
}

// Clock is a settable clock for Config.Now.
type Clock struct{ ms atomic.Int64 }

// Now returns the clock's time in milliseconds.
func (c *Clock) Now() int64 { return c.ms.Load() }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// env is one check's world: a checkpoint storage and a clock.
type env struct {
	t     *testing.T
	h     Harness
	files *MemFiles
	clock *Clock
	maxP  int
	n     int
}

// scale returns n scaled by the harness's Scale.
func (e *env) scale(n int) int {
	if e.h.Scale <= 0 {
		return n
	}
	return max(int(float64(n)*e.h.Scale), 10)
}

func newEnv(t *testing.T, h Harness) *env {
	e := &env{t: t, h: h, files: NewMemFiles(), clock: &Clock{}, maxP: state.DefaultMaxParallelism}
	e.clock.ms.Store(1_700_000_000_000)
	return e
}

// open opens task's backend among parallelism tasks, restoring from
// handles (those that meet the task's key groups, as the runtime picks
// them).
func (e *env) open(task, parallelism int, handles ...state.Handle) state.Backend {
	e.t.Helper()
	kgs := state.RangeOf(task, parallelism, e.maxP)
	var restore []state.Handle
	for _, h := range handles {
		if h.KeyGroups.Intersect(kgs).Len() > 0 {
			restore = append(restore, h)
		}
	}
	b, err := e.openConfig(kgs, restore)
	if err != nil {
		e.t.Fatalf("Open %v: %v", kgs, err)
	}
	return b
}

func (e *env) openConfig(kgs state.KeyGroupRange, restore []state.Handle) (state.Backend, error) {
	e.n++
	b, err := e.h.Kind.Open(context.Background(), state.Config{
		Operator:       fmt.Sprintf("test operator %d", e.n),
		KeyGroups:      kgs,
		MaxParallelism: e.maxP,
		Restore:        restore,
		Files:          e.files,
		Dir:            e.t.TempDir(),
		Now:            e.clock.Now,
	})
	if err != nil {
		return nil, err
	}
	e.t.Cleanup(func() {
		if err := b.Close(); err != nil {
			e.t.Errorf("Close: %v", err)
		}
	})
	return b, nil
}

// snapshot cuts and writes a snapshot, and releases it.
func (e *env) snapshot(b state.Backend) state.Handle {
	e.t.Helper()
	e.n++
	s, err := b.Snapshot(int64(e.n))
	if err != nil {
		e.t.Fatalf("Snapshot: %v", err)
	}
	defer s.Release()
	return e.write(s)
}

func (e *env) write(s state.Snapshot) state.Handle {
	e.t.Helper()
	e.n++
	h, err := s.Write(context.Background(), e.files, fmt.Sprintf("chk-%d/op/", e.n))
	if err != nil {
		e.t.Fatalf("Write: %v", err)
	}
	if h.Kind != e.h.Kind.Name() {
		e.t.Fatalf("handle of kind %q, want %q", h.Kind, e.h.Kind.Name())
	}
	return h
}

// key returns the i-th test key (a BIGINT key, as AppendKey encodes it)
// and its key group.
func (e *env) key(i int) ([]byte, int) {
	k := state.AppendKeyValue(nil, types.Int64(int64(i)), types.BigInt())
	return k, state.KeyGroupOf(k, e.maxP)
}

// values is a model of value tables: table → key → value.
type values map[string]map[string]string

// maps is a model of map tables: table → key → sub → value.
type maps map[string]map[string]map[string]string

func (m values) clone() values {
	out := values{}
	for t, kv := range m {
		out[t] = map[string]string{}
		for k, v := range kv {
			out[t][k] = v
		}
	}
	return out
}

func (m maps) clone() maps {
	out := maps{}
	for t, kv := range m {
		out[t] = map[string]map[string]string{}
		for k, sv := range kv {
			out[t][k] = map[string]string{}
			for s, v := range sv {
				out[t][k][s] = v
			}
		}
	}
	return out
}

// dumpValues reads a value table over the key groups kgs.
func dumpValues(t *testing.T, b state.Backend, name string, kgs state.KeyGroupRange, maxP int, opts ...state.TableOption) map[string]string {
	t.Helper()
	out := map[string]string{}
	tab := b.Value(name, opts...)
	for kg := kgs.Start; kg < kgs.End; kg++ {
		err := tab.Range(kg, func(k, v []byte) bool {
			if _, dup := out[string(k)]; dup {
				t.Errorf("table %s: Range returned key %x twice", name, k)
			}
			if got := state.KeyGroupOf(k, maxP); got != kg {
				t.Errorf("table %s: Range of key group %d returned key %x of key group %d", name, kg, k, got)
			}
			out[string(k)] = string(v)
			return true
		})
		if err != nil {
			t.Fatalf("Range: %v", err)
		}
	}
	return out
}

// dumpMaps reads a map table over the key groups kgs, checking the order
// of RangeKey.
func dumpMaps(t *testing.T, b state.Backend, name string, kgs state.KeyGroupRange, maxP int, opts ...state.TableOption) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	tab := b.Map(name, opts...)
	for kg := kgs.Start; kg < kgs.End; kg++ {
		var keys [][]byte
		err := tab.Keys(kg, func(k []byte) bool {
			keys = append(keys, bytes.Clone(k))
			return true
		})
		if err != nil {
			t.Fatalf("Keys: %v", err)
		}
		for _, k := range keys {
			if _, dup := out[string(k)]; dup {
				t.Errorf("table %s: Keys returned %x twice", name, k)
			}
			if got := state.KeyGroupOf(k, maxP); got != kg {
				t.Errorf("table %s: Keys of key group %d returned key %x of key group %d", name, kg, k, got)
			}
			sv := map[string]string{}
			var prev []byte
			err := tab.RangeKey(kg, k, func(s, v []byte) bool {
				if prev != nil && bytes.Compare(prev, s) >= 0 {
					t.Errorf("table %s key %x: RangeKey gave %x after %x", name, k, s, prev)
				}
				prev = bytes.Clone(s)
				sv[string(s)] = string(v)
				return true
			})
			if err != nil {
				t.Fatalf("RangeKey: %v", err)
			}
			if len(sv) == 0 {
				t.Errorf("table %s: Keys returned %x, which has no entries", name, k)
			}
			out[string(k)] = sv
		}
	}
	return out
}

// checkState compares a backend's tables over kgs with the models'
// entries of those key groups.
func (e *env) checkState(b state.Backend, kgs state.KeyGroupRange, vm values, mm maps, what string) {
	e.t.Helper()
	for name, kv := range vm {
		want := map[string]string{}
		for k, v := range kv {
			if kgs.Contains(state.KeyGroupOf([]byte(k), e.maxP)) {
				want[k] = v
			}
		}
		got := dumpValues(e.t, b, name, kgs, e.maxP)
		diffValues(e.t, what+": value table "+name, got, want)
		tab := b.Value(name)
		for k, v := range want {
			gv, ok, err := tab.Get(state.KeyGroupOf([]byte(k), e.maxP), []byte(k))
			if err != nil || !ok || string(gv) != v {
				e.t.Fatalf("%s: Get(%x) = %x, %v, %v; want %x", what, k, gv, ok, err, v)
			}
		}
	}
	for name, kv := range mm {
		want := map[string]map[string]string{}
		for k, sv := range kv {
			if kgs.Contains(state.KeyGroupOf([]byte(k), e.maxP)) && len(sv) > 0 {
				want[k] = sv
			}
		}
		got := dumpMaps(e.t, b, name, kgs, e.maxP)
		if len(got) != len(want) {
			e.t.Fatalf("%s: map table %s has %d keys, want %d", what, name, len(got), len(want))
		}
		for k, sv := range want {
			diffValues(e.t, fmt.Sprintf("%s: map table %s key %x", what, name, k), got[k], sv)
		}
	}
}

func diffValues(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	n := 0
	for k, v := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: key %x missing (want %x)", what, k, v)
			n++
		} else if g != v {
			t.Errorf("%s: key %x = %x, want %x", what, k, g, v)
			n++
		}
		if n > 5 {
			t.FailNow()
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected key %x = %x", what, k, g)
			n++
		}
		if n > 5 {
			t.FailNow()
		}
	}
	if n > 0 {
		t.FailNow()
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func randValue(r *rand.Rand) []byte {
	v := make([]byte, r.IntN(24))
	for i := range v {
		v[i] = byte(r.Uint32())
	}
	return v
}

// writer applies random operations to a backend and to models.
type writer struct {
	e    *env
	b    state.Backend
	r    *rand.Rand
	vm   values
	mm   maps
	keys int // keys are drawn from [0, keys)
}

func newWriter(e *env, b state.Backend, seed uint64, keys int) *writer {
	return &writer{e: e, b: b, r: rand.New(rand.NewPCG(seed, 7)), vm: values{"v": {}}, mm: maps{"m": {}}, keys: keys}
}

// step applies one random operation.
func (w *writer) step() {
	t := w.e.t
	k, kg := w.e.key(w.r.IntN(w.keys))
	switch op := w.r.IntN(20); {
	case op < 8:
		v := randValue(w.r)
		must(t, w.b.Value("v").Put(kg, k, v))
		w.vm["v"][string(k)] = string(v)
	case op < 10:
		must(t, w.b.Value("v").Delete(kg, k))
		delete(w.vm["v"], string(k))
	case op < 16:
		sub := []byte{byte(w.r.IntN(8)), byte(w.r.IntN(256))}
		v := randValue(w.r)
		if w.mm["m"][string(k)] == nil {
			w.mm["m"][string(k)] = map[string]string{}
		}
		if ins, ok := w.b.Map("m").(state.MapInserter); ok && op%2 == 0 {
			held, inserted, err := ins.Insert(kg, k, sub, v)
			must(t, err)
			old, had := w.mm["m"][string(k)][string(sub)]
			if inserted == had || (had && string(held) != old) {
				t.Fatalf("Insert = %q, %v; the table held %q (%v)", held, inserted, old, had)
			}
			if had {
				break
			}
		} else {
			must(t, w.b.Map("m").Put(kg, k, sub, v))
		}
		w.mm["m"][string(k)][string(sub)] = string(v)
	case op < 19:
		sv := w.mm["m"][string(k)]
		sub := []byte{byte(w.r.IntN(8)), byte(w.r.IntN(256))}
		for s := range sv { // delete an existing one mostly
			if w.r.IntN(2) == 0 {
				sub = []byte(s)
				break
			}
		}
		must(t, w.b.Map("m").Delete(kg, k, sub))
		delete(sv, string(sub))
		if len(sv) == 0 {
			delete(w.mm["m"], string(k))
		}
	default:
		must(t, w.b.Map("m").DeleteKey(kg, k))
		delete(w.mm["m"], string(k))
	}
}

var all = func(maxP int) state.KeyGroupRange { return state.KeyGroupRange{Start: 0, End: maxP} }

func checkValueTable(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	tab := b.Value("t")
	k, kg := e.key(1)
	if _, ok, err := tab.Get(kg, k); ok || err != nil {
		t.Fatalf("Get of a missing key: %v, %v", ok, err)
	}
	v := []byte("value")
	must(t, tab.Put(kg, k, v))
	v[0] = 'X' // the table keeps its own copy
	k[len(k)-1]++
	k, _ = e.key(1)
	got, ok, err := tab.Get(kg, k)
	if err != nil || !ok || string(got) != "value" {
		t.Fatalf("Get = %q, %v, %v; want value", got, ok, err)
	}
	for _, nv := range []string{"VALUE", "longer value", "", "v"} { // same length, longer, empty, shorter
		must(t, tab.Put(kg, k, []byte(nv)))
		if got, ok, err := tab.Get(kg, k); err != nil || !ok || string(got) != nv {
			t.Fatalf("after Put(%q): Get = %q, %v, %v", nv, got, ok, err)
		}
	}
	if o, ok := tab.(state.Overwriter); ok {
		n := b.Stats().Entries
		must(t, o.Overwrite(kg, k, []byte("overwritten")))
		if got, ok, err := tab.Get(kg, k); err != nil || !ok || string(got) != "overwritten" {
			t.Fatalf("after Overwrite: Get = %q, %v, %v", got, ok, err)
		}
		if m := b.Stats().Entries; m != n {
			t.Fatalf("Overwrite of a held key changed the entries from %d to %d", n, m)
		}
	}
	// An empty key is a key.
	must(t, tab.Put(kg, nil, []byte("empty key")))
	if got, ok, _ := tab.Get(kg, []byte{}); !ok || string(got) != "empty key" {
		t.Fatalf("Get of the empty key = %q, %v", got, ok)
	}
	must(t, tab.Delete(kg, k))
	must(t, tab.Delete(kg, k)) // deleting a missing key succeeds
	if _, ok, _ := tab.Get(kg, k); ok {
		t.Fatal("Get after Delete found the key")
	}
	// The same name is the same table; another name another table.
	if _, ok, _ := b.Value("t").Get(kg, nil); !ok {
		t.Fatal("Value(t) again does not see the entry")
	}
	if _, ok, _ := b.Value("u").Get(kg, nil); ok {
		t.Fatal("table u sees table t's entry")
	}
	// Range stops when fn returns false.
	for i := range 100 {
		k, kg := e.key(i)
		must(t, tab.Put(kg, k, []byte{byte(i)}))
	}
	for kg := range e.maxP {
		calls := 0
		must(t, tab.Range(kg, func(k, v []byte) bool { calls++; return false }))
		if calls > 1 {
			t.Fatalf("Range went on after fn returned false (%d calls)", calls)
		}
	}
}

func checkValueTableRandom(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	w := newWriter(e, b, 1, 3000)
	for i := range e.scale(30000) {
		w.step()
		if i%e.scale(10000) == e.scale(10000)-1 {
			e.checkState(b, all(e.maxP), values{"v": w.vm["v"]}, nil, fmt.Sprintf("after %d operations", i+1))
		}
	}
}

func checkMapTable(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	tab := b.Map("m")
	k, kg := e.key(5)
	if _, ok, err := tab.Get(kg, k, []byte("a")); ok || err != nil {
		t.Fatalf("Get of a missing entry: %v, %v", ok, err)
	}
	// Sub-keys in value order: the key encoding of BIGINTs, put in a
	// shuffled order.
	nums := []int64{-1 << 40, -300, -1, 0, 1, 2, 255, 256, 70000, 1 << 50}
	subs := make([][]byte, len(nums))
	for i, n := range nums {
		subs[i] = state.AppendKeyValue(nil, types.Int64(n), types.BigInt())
	}
	for _, i := range rand.New(rand.NewPCG(1, 1)).Perm(len(subs)) {
		must(t, tab.Put(kg, k, subs[i], []byte(fmt.Sprint(nums[i]))))
	}
	var got []string
	must(t, tab.RangeKey(kg, k, func(s, v []byte) bool {
		got = append(got, string(v))
		return true
	}))
	want := make([]string, len(nums))
	for i, n := range nums {
		want[i] = fmt.Sprint(n)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("RangeKey gave %v, want %v", got, want)
	}
	calls := 0
	must(t, tab.RangeKey(kg, k, func(s, v []byte) bool { calls++; return calls < 3 }))
	if calls != 3 {
		t.Fatalf("RangeKey made %d calls, fn stopped it at 3", calls)
	}
	// Overwrite, delete, delete a missing one.
	must(t, tab.Put(kg, k, subs[0], []byte("new and longer")))
	if v, ok, _ := tab.Get(kg, k, subs[0]); !ok || string(v) != "new and longer" {
		t.Fatalf("Get after overwrite = %q, %v", v, ok)
	}
	must(t, tab.Delete(kg, k, subs[1]))
	must(t, tab.Delete(kg, k, subs[1]))
	must(t, tab.Delete(kg, k, []byte("missing")))
	if _, ok, _ := tab.Get(kg, k, subs[1]); ok {
		t.Fatal("Get after Delete found the entry")
	}
	// Insert adds an entry the table does not hold, and returns the one
	// it holds.
	if ins, ok := tab.(state.MapInserter); ok {
		n := b.Stats().Entries
		held, inserted, err := ins.Insert(kg, k, subs[0], []byte("not written"))
		if err != nil || inserted || string(held) != "new and longer" {
			t.Fatalf("Insert of a held entry = %q, %v, %v", held, inserted, err)
		}
		if _, inserted, err := ins.Insert(kg, k, []byte("inserted"), []byte("i")); err != nil || !inserted {
			t.Fatalf("Insert of a new entry = %v, %v", inserted, err)
		}
		if v, ok, _ := tab.Get(kg, k, subs[0]); !ok || string(v) != "new and longer" {
			t.Fatalf("Get after Insert of a held entry = %q, %v", v, ok)
		}
		if v, ok, _ := tab.Get(kg, k, []byte("inserted")); !ok || string(v) != "i" {
			t.Fatalf("Get after Insert = %q, %v", v, ok)
		}
		if m := b.Stats().Entries; m != n+1 {
			t.Fatalf("two Inserts, one new, changed the entries from %d to %d", n, m)
		}
		must(t, tab.Delete(kg, k, []byte("inserted")))
	}
	// A key with one entry, then two, then one again (a backend may keep
	// a key's one entry apart from the maps of larger keys).
	k1, kg1 := e.key(7)
	must(t, tab.Put(kg1, k1, []byte("m"), []byte("one")))
	must(t, tab.Put(kg1, k1, []byte("m"), []byte("one, longer")))
	if ins, ok := tab.(state.MapInserter); ok {
		if held, inserted, err := ins.Insert(kg1, k1, []byte("m"), []byte("x")); err != nil || inserted || string(held) != "one, longer" {
			t.Fatalf("Insert of a one-entry key's entry = %q, %v, %v", held, inserted, err)
		}
		if _, inserted, err := ins.Insert(kg1, k1, []byte("z"), []byte("two")); err != nil || !inserted {
			t.Fatalf("Insert of a second entry = %v, %v", inserted, err)
		}
	} else {
		must(t, tab.Put(kg1, k1, []byte("z"), []byte("two")))
	}
	must(t, tab.Put(kg1, k1, []byte("a"), []byte("three")))
	rangeOf := func() string {
		var b strings.Builder
		must(t, tab.RangeKey(kg1, k1, func(s, v []byte) bool {
			fmt.Fprintf(&b, "%s=%s;", s, v)
			return true
		}))
		return b.String()
	}
	if got := rangeOf(); got != "a=three;m=one, longer;z=two;" {
		t.Fatalf("RangeKey of a key grown from one entry = %q", got)
	}
	must(t, tab.Delete(kg1, k1, []byte("a")))
	must(t, tab.Delete(kg1, k1, []byte("m")))
	if got := rangeOf(); got != "z=two;" {
		t.Fatalf("RangeKey after two Deletes = %q", got)
	}
	must(t, tab.Delete(kg1, k1, []byte("z")))
	k3, kg3 := e.key(8)
	must(t, tab.Put(kg3, k3, []byte("only"), []byte("v")))
	must(t, tab.Delete(kg3, k3, []byte("other")))
	if v, ok, _ := tab.Get(kg3, k3, []byte("only")); !ok || string(v) != "v" {
		t.Fatalf("a one-entry key after Delete of another sub: Get = %q, %v", v, ok)
	}
	if _, ok, _ := tab.Get(kg3, k3, []byte("other")); ok {
		t.Fatal("Get of another sub of a one-entry key found it")
	}
	must(t, tab.DeleteKey(kg3, k3))
	for _, k := range [][]byte{k1, k3} {
		must(t, tab.Keys(kg1, func(key []byte) bool {
			if bytes.Equal(key, k) {
				t.Fatalf("Keys lists key %q whose entries were all deleted", k)
			}
			return true
		}))
		must(t, tab.Keys(kg3, func(key []byte) bool {
			if bytes.Equal(key, k) {
				t.Fatalf("Keys lists key %q whose entries were all deleted", k)
			}
			return true
		}))
	}
	// Keys lists keys with entries; a key whose last entry goes is gone.
	k2, kg2 := e.key(6)
	must(t, tab.Put(kg2, k2, []byte("s"), []byte("v")))
	must(t, tab.Delete(kg2, k2, []byte("s")))
	found := false
	must(t, tab.Keys(kg2, func(k []byte) bool {
		if bytes.Equal(k, k2) {
			found = true
		}
		return true
	}))
	if found {
		t.Fatal("Keys lists a key whose entries were all deleted")
	}
	must(t, tab.DeleteKey(kg, k))
	must(t, tab.DeleteKey(kg, k))
	if _, ok, _ := tab.Get(kg, k, subs[2]); ok {
		t.Fatal("Get after DeleteKey found an entry")
	}
	must(t, tab.RangeKey(kg, k, func(s, v []byte) bool {
		t.Fatal("RangeKey after DeleteKey found an entry")
		return false
	}))
	// Tables of both kinds with distinct names do not meet.
	must(t, b.Value("v").Put(kg, k, []byte("x")))
	if _, ok, _ := tab.Get(kg, k, nil); ok {
		t.Fatal("a map table sees a value table's entry")
	}
}

func checkMapTableRandom(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	w := newWriter(e, b, 2, 500)
	for i := range e.scale(30000) {
		w.step()
		if i%e.scale(10000) == e.scale(10000)-1 {
			e.checkState(b, all(e.maxP), w.vm, w.mm, fmt.Sprintf("after %d operations", i+1))
		}
	}
}

func checkErrors(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(1, 4) // key groups [32, 64)
	k := []byte("k")
	for _, kg := range []int{0, 31, 64, 127} {
		if err := b.Value("v").Put(kg, k, k); err == nil {
			t.Errorf("Put into key group %d outside [32, 64) succeeded", kg)
		}
		if _, _, err := b.Value("v").Get(kg, k); err == nil {
			t.Errorf("Get from key group %d outside [32, 64) succeeded", kg)
		}
		if err := b.Map("m").Put(kg, k, k, k); err == nil {
			t.Errorf("map Put into key group %d outside [32, 64) succeeded", kg)
		}
	}
	must(t, b.Value("v").Put(40, k, k))
	must(t, b.Map("m").Put(40, k, k, k))
	if err := b.Map("v").Put(40, k, k, k); err == nil {
		t.Error("a value table used as a map table accepted a Put")
	}
	if _, _, err := b.Value("m").Get(40, k); err == nil {
		t.Error("a map table used as a value table accepted a Get")
	}
	// A handle of another backend is refused.
	if _, err := e.openConfig(state.RangeOf(0, 1, e.maxP), []state.Handle{{Kind: "no-such-backend", KeyGroups: all(e.maxP)}}); err == nil {
		t.Error("Open restored a handle of another backend")
	}
}

// fill writes n keys into value table "v" and map table "m" (3 entries a
// key) and returns the models.
func fill(e *env, b state.Backend, n int) (values, maps) {
	vm, mm := values{"v": {}}, maps{"m": {}}
	for i := range n {
		k, kg := e.key(i)
		v := fmt.Sprintf("value %d", i)
		must(e.t, b.Value("v").Put(kg, k, []byte(v)))
		vm["v"][string(k)] = v
		mm["m"][string(k)] = map[string]string{}
		for j := range 3 {
			s := fmt.Sprintf("sub %d", j)
			must(e.t, b.Map("m").Put(kg, k, []byte(s), []byte(v)))
			mm["m"][string(k)][s] = v
		}
	}
	return vm, mm
}

func checkSnapshotIsolation(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	vm, mm := fill(e, b, e.scale(2000))
	s, err := b.Snapshot(1)
	must(t, err)
	// After the cut: overwrite every key (in place and not), delete a
	// third, add new keys, change map entries and delete map keys.
	w := newWriter(e, b, 3, 3000)
	w.vm, w.mm = vm.clone(), mm.clone()
	for range e.scale(20000) {
		w.step()
	}
	h1 := e.write(s)
	s.Release()
	e.checkState(b, all(e.maxP), w.vm, w.mm, "the live backend")
	r := e.open(0, 1, h1)
	e.checkState(r, all(e.maxP), vm, mm, "restored from the snapshot")
}

// checkSnapshotWhileWriting is R1's test: the task writes heavily after
// the cut while the snapshot is written on another goroutine; the file
// holds exactly the cut.
func checkSnapshotWhileWriting(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	w := newWriter(e, b, 4, 4000)
	for range e.scale(20000) {
		w.step()
	}
	for round := range 4 {
		cutV, cutM := w.vm.clone(), w.mm.clone()
		s, err := b.Snapshot(int64(10 + round))
		must(t, err)
		var handle state.Handle
		var werr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			handle, werr = s.Write(context.Background(), e.files, fmt.Sprintf("chk-%d/", round))
		}()
		// Write until the snapshot is written, and a while longer.
		writes := 0
		for written := false; !written || writes < e.scale(5000); writes++ {
			w.step()
			if !written {
				select {
				case <-done:
					written = true
				default:
				}
			}
		}
		<-done
		must(t, werr)
		if round%2 == 0 {
			s.Release()
		} // else: never released; later snapshots must still be right
		r := e.open(0, 1, handle)
		e.checkState(r, all(e.maxP), cutV, cutM, fmt.Sprintf("round %d: restored snapshot", round))
	}
	e.checkState(b, all(e.maxP), w.vm, w.mm, "the live backend")
}

func checkOverlappingSnapshots(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	w := newWriter(e, b, 5, 2000)
	type cut struct {
		s  state.Snapshot
		vm values
		mm maps
	}
	var cuts []cut
	for i := range 4 {
		for range e.scale(5000) {
			w.step()
		}
		s, err := b.Snapshot(int64(i + 1))
		must(t, err)
		cuts = append(cuts, cut{s, w.vm.clone(), w.mm.clone()})
	}
	for range e.scale(5000) {
		w.step()
	}
	// Write and release out of order, writing between.
	for _, i := range []int{2, 0, 3, 1} {
		c := cuts[i]
		h := e.write(c.s)
		c.s.Release()
		for range e.scale(2000) {
			w.step()
		}
		r := e.open(0, 1, h)
		e.checkState(r, all(e.maxP), c.vm, c.mm, fmt.Sprintf("snapshot %d", i+1))
	}
	e.checkState(b, all(e.maxP), w.vm, w.mm, "the live backend")
}

func checkRescale(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	vm, mm := fill(e, b, 3000)
	h1 := e.snapshot(b)
	// 1 → 4: each task restores from the one handle and keeps its groups.
	var h4 []state.Handle
	for task := range 4 {
		r := e.open(task, 4, h1)
		kgs := state.RangeOf(task, 4, e.maxP)
		fv, fm := filterValues(vm, kgs, e.maxP), filterMaps(mm, kgs, e.maxP)
		e.checkState(r, kgs, fv, fm, fmt.Sprintf("task %d of 4", task))
		if want := int64(len(fv["v"]) + 3*len(fm["m"])); !h.ApproximateStats && r.Stats().Entries != want {
			t.Fatalf("task %d of 4 holds %d entries, want %d: it restored key groups it does not own", task, r.Stats().Entries, want)
		}
		// Change the task's own keys a little before the next snapshot.
		for i := task; i < 3000; i += 50 {
			k, kg := e.key(i)
			if !kgs.Contains(kg) {
				continue
			}
			v := fmt.Sprintf("task %d's value %d", task, i)
			must(t, r.Value("v").Put(kg, k, []byte(v)))
			vm["v"][string(k)] = v
			must(t, r.Map("m").DeleteKey(kg, k))
			delete(mm["m"], string(k))
		}
		hd := e.snapshot(r)
		if hd.KeyGroups != kgs {
			t.Fatalf("task %d's handle covers %v, want %v", task, hd.KeyGroups, kgs)
		}
		h4 = append(h4, hd)
	}
	// 4 → 2: each task restores from the two handles that meet its groups.
	for task := range 2 {
		r := e.open(task, 2, h4...)
		kgs := state.RangeOf(task, 2, e.maxP)
		e.checkState(r, kgs, filterValues(vm, kgs, e.maxP), filterMaps(mm, kgs, e.maxP), fmt.Sprintf("task %d of 2", task))
	}
	// 4 → 3: ranges that cut the old ones.
	for task := range 3 {
		r := e.open(task, 3, h4...)
		kgs := state.RangeOf(task, 3, e.maxP)
		e.checkState(r, kgs, filterValues(vm, kgs, e.maxP), filterMaps(mm, kgs, e.maxP), fmt.Sprintf("task %d of 3", task))
	}
}

func filterValues(m values, kgs state.KeyGroupRange, maxP int) values {
	out := values{}
	for t, kv := range m {
		out[t] = map[string]string{}
		for k, v := range kv {
			if kgs.Contains(state.KeyGroupOf([]byte(k), maxP)) {
				out[t][k] = v
			}
		}
	}
	return out
}

func filterMaps(m maps, kgs state.KeyGroupRange, maxP int) maps {
	out := maps{}
	for t, kv := range m {
		out[t] = map[string]map[string]string{}
		for k, v := range kv {
			if kgs.Contains(state.KeyGroupOf([]byte(k), maxP)) {
				out[t][k] = v
			}
		}
	}
	return out
}

func checkRestoreEmpty(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	h0 := e.snapshot(b)
	r := e.open(0, 1, h0)
	e.checkState(r, all(e.maxP), values{"v": {}}, maps{"m": {}}, "restored empty state")
	// Tables whose entries were all deleted.
	k, kg := e.key(1)
	must(t, b.Value("v").Put(kg, k, k))
	must(t, b.Value("v").Delete(kg, k))
	must(t, b.Map("m").Put(kg, k, k, k))
	must(t, b.Map("m").DeleteKey(kg, k))
	r = e.open(0, 1, e.snapshot(b))
	e.checkState(r, all(e.maxP), values{"v": {}}, maps{"m": {}}, "restored emptied tables")
}

func checkFailedWrite(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	vm, mm := fill(e, b, 500)
	s, err := b.Snapshot(1)
	must(t, err)
	broken := errors.New("storage is down")
	e.files.FailPut = func(string) error { return broken }
	if _, err := s.Write(context.Background(), e.files, "chk-1/"); !errors.Is(err, broken) {
		t.Fatalf("Write to a failing storage returned %v, want it to wrap %v", err, broken)
	}
	s.Release()
	e.files.FailPut = nil
	// A cancelled write fails too.
	s, err = b.Snapshot(2)
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Write(ctx, e.files, "chk-2/"); err == nil {
		t.Fatal("Write with a cancelled context succeeded")
	}
	s.Release()
	w := newWriter(e, b, 6, 800)
	w.vm, w.mm = vm, mm
	for range e.scale(3000) {
		w.step()
	}
	r := e.open(0, 1, e.snapshot(b))
	e.checkState(r, all(e.maxP), w.vm, w.mm, "restored after failed writes")
}

func checkTTL(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	ttl := state.TTL(10 * time.Second)
	vt, mt := b.Value("v", ttl), b.Map("m", ttl)
	k1, kg1 := e.key(1)
	k2, kg2 := e.key(2)
	must(t, vt.Put(kg1, k1, []byte("one")))
	must(t, mt.Put(kg1, k1, []byte("a"), []byte("one")))
	e.clock.Advance(5 * time.Second)
	must(t, vt.Put(kg2, k2, []byte("two")))
	must(t, mt.Put(kg1, k1, []byte("b"), []byte("two")))
	e.clock.Advance(5*time.Second - time.Millisecond) // k1 written 9.999s ago
	if _, ok, _ := vt.Get(kg1, k1); !ok {
		t.Fatal("an entry expired before its TTL")
	}
	e.clock.Advance(time.Millisecond) // exactly 10s: expired (Flink: expired when last write + TTL <= now)
	if v, ok, _ := vt.Get(kg1, k1); ok {
		t.Fatalf("Get returned an expired entry %q", v)
	}
	if _, ok, _ := mt.Get(kg1, k1, []byte("a")); ok {
		t.Fatal("map Get returned an expired entry")
	}
	if _, ok, _ := mt.Get(kg1, k1, []byte("b")); !ok {
		t.Fatal("a map entry written 5s ago expired")
	}
	got := dumpValues(t, b, "v", all(e.maxP), e.maxP, ttl)
	if len(got) != 1 || got[string(k2)] != "two" {
		t.Fatalf("Range returned %q, want only key 2", got)
	}
	gm := dumpMaps(t, b, "m", all(e.maxP), e.maxP, ttl)
	if len(gm[string(k1)]) != 1 || gm[string(k1)]["b"] != "two" {
		t.Fatalf("RangeKey returned %q, want only sub b", gm)
	}
	// Insert takes an expired entry for a missing one.
	if ins, ok := mt.(state.MapInserter); ok {
		if held, inserted, err := ins.Insert(kg1, k1, []byte("a"), []byte("one again")); err != nil || !inserted {
			t.Fatalf("Insert over an expired entry = %q, %v, %v", held, inserted, err)
		}
		if v, ok, _ := mt.Get(kg1, k1, []byte("a")); !ok || string(v) != "one again" {
			t.Fatalf("Get after Insert over an expired entry = %q, %v", v, ok)
		}
		must(t, mt.Delete(kg1, k1, []byte("a")))
	}
	// A key with one entry expires alike, and Insert writes over it.
	k3, kg3 := e.key(3)
	must(t, mt.Put(kg3, k3, []byte("s"), []byte("three")))
	e.clock.Advance(10 * time.Second)
	if _, ok, _ := mt.Get(kg3, k3, []byte("s")); ok {
		t.Fatal("map Get returned the expired entry of a one-entry key")
	}
	if ins, ok := mt.(state.MapInserter); ok {
		if held, inserted, err := ins.Insert(kg3, k3, []byte("s"), []byte("again")); err != nil || !inserted {
			t.Fatalf("Insert over the expired entry of a one-entry key = %q, %v, %v", held, inserted, err)
		}
		if held, inserted, err := ins.Insert(kg3, k3, []byte("s"), []byte("not written")); err != nil || inserted || string(held) != "again" {
			t.Fatalf("Insert of a one-entry key's live entry = %q, %v, %v", held, inserted, err)
		}
	}
	must(t, mt.DeleteKey(kg3, k3))
	e.clock.Advance(-10 * time.Second)
	// A write renews an entry; an expired one can be written again.
	must(t, vt.Put(kg1, k1, []byte("one again")))
	e.clock.Advance(6 * time.Second) // k2 written 11s ago, k1 6s ago
	if _, ok, _ := vt.Get(kg2, k2); ok {
		t.Fatal("key 2 did not expire")
	}
	if v, ok, _ := vt.Get(kg1, k1); !ok || string(v) != "one again" {
		t.Fatalf("key 1 written again: Get = %q, %v", v, ok)
	}
	// Sub b (written 11s ago) expired: the key has no live entries.
	gm = dumpMaps(t, b, "m", all(e.maxP), e.maxP, ttl)
	if len(gm) != 0 {
		t.Fatalf("map table holds %q, all expired", gm)
	}
	// A restored backend does not return expired entries; a snapshot
	// leaves them out (when the backend filters them at the snapshot),
	// so they stay out even when the clock goes back.
	r := e.open(0, 1, e.snapshot(b))
	if !h.SnapshotsKeepExpired {
		e.clock.Advance(-6 * time.Second)
	}
	got = dumpValues(t, r, "v", all(e.maxP), e.maxP, ttl)
	if len(got) != 1 || got[string(k1)] != "one again" {
		t.Fatalf("restored %q, want only key 1", got)
	}
	if gm = dumpMaps(t, r, "m", all(e.maxP), e.maxP, ttl); len(gm) != 0 {
		t.Fatalf("restored map table holds %q, all expired at the snapshot", gm)
	}
	// A table without TTL keeps entries.
	plain := b.Value("plain")
	must(t, plain.Put(kg1, k1, []byte("kept")))
	e.clock.Advance(1000 * time.Hour)
	if _, ok, _ := plain.Get(kg1, k1); !ok {
		t.Fatal("an entry of a table without TTL expired")
	}
}

func checkTTLSweep(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	ttl := state.TTL(time.Minute)
	vt, mt := b.Value("v", ttl), b.Map("m", ttl)
	one := b.Map("one", ttl) // keys with one entry each
	const n = 2000
	for i := range n {
		k, kg := e.key(i)
		must(t, vt.Put(kg, k, []byte("old")))
		must(t, mt.Put(kg, k, []byte{1}, []byte("old")))
		must(t, mt.Put(kg, k, []byte{2}, []byte("old")))
		must(t, one.Put(kg, k, []byte{1}, []byte("old")))
	}
	before := b.Stats()
	e.clock.Advance(2 * time.Minute)
	// Writes to other keys sweep the expired ones away.
	per := h.SweepWrites
	if per == 0 {
		per = 50
	}
	for i := range n * per {
		k, kg := e.key(n + i%100)
		must(t, vt.Put(kg, k, []byte("new")))
		must(t, mt.Put(kg, k, []byte{1}, []byte("new")))
		must(t, one.Put(kg, k, []byte{1}, []byte("new")))
		if i%1000 == 0 && b.Stats().Expired >= 4*n {
			break
		}
	}
	st := b.Stats()
	if st.Expired < 4*n {
		t.Fatalf("after %d writes per expired entry, Stats.Expired = %d, want %d", per, st.Expired, 4*n)
	}
	if !h.ApproximateStats && st.Entries != 100+100+100 {
		t.Fatalf("Stats.Entries = %d, want 300 (the entries written after the TTL)", st.Entries)
	}
	if !h.ApproximateStats && st.Entries >= before.Entries {
		t.Fatalf("Stats.Entries went from %d to %d", before.Entries, st.Entries)
	}
}

func checkTTLRestore(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	vm, mm := fill(e, b, 300)
	// State written without TTL, restored into tables with a TTL: the
	// entries count as written when the operator opened the tables with
	// their TTL (in its Open, right after the restore).
	hd := e.snapshot(b)
	ttl := state.TTL(time.Minute)
	r := e.open(0, 1, hd)
	r.Value("v", ttl)
	r.Map("m", ttl)
	e.clock.Advance(59 * time.Second)
	got := dumpValues(t, r, "v", all(e.maxP), e.maxP, ttl)
	diffValues(t, "TTL turned on", got, vm["v"])
	gm := dumpMaps(t, r, "m", all(e.maxP), e.maxP, ttl)
	if len(gm) != len(mm["m"]) {
		t.Fatalf("TTL turned on: %d map keys, want %d", len(gm), len(mm["m"]))
	}
	e.clock.Advance(time.Second)
	if got := dumpValues(t, r, "v", all(e.maxP), e.maxP, ttl); len(got) != 0 {
		t.Fatalf("%d entries outlived the TTL counted from the restore", len(got))
	}
	// State with TTL restored into tables without: nothing expires.
	b2 := e.open(0, 1)
	for i := range 10 {
		k, kg := e.key(i)
		must(t, b2.Value("v", ttl).Put(kg, k, []byte("x")))
	}
	r2 := e.open(0, 1, e.snapshot(b2))
	e.clock.Advance(time.Hour)
	if got := dumpValues(t, r2, "v", all(e.maxP), e.maxP); len(got) != 10 {
		t.Fatalf("TTL turned off: %d entries, want 10", len(got))
	}
}

func checkStats(t *testing.T, h Harness) {
	e := newEnv(t, h)
	b := e.open(0, 1)
	if st := b.Stats(); st.Entries != 0 {
		t.Fatalf("an empty backend has %d entries", st.Entries)
	}
	// Read Stats from another goroutine while the task writes.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				if st := b.Stats(); st.Entries < 0 || st.Bytes < 0 {
					t.Errorf("Stats = %+v", st)
					return
				}
			}
		}
	}()
	vm, mm := fill(e, b, 5000)
	close(stop)
	wg.Wait()
	st := b.Stats()
	want := int64(len(vm["v"]) + 3*len(mm["m"]))
	if h.ApproximateStats {
		if st.Entries <= 0 {
			t.Fatalf("Stats.Entries = %d after %d writes", st.Entries, want)
		}
	} else if st.Entries != want {
		t.Fatalf("Stats.Entries = %d, want %d", st.Entries, want)
	}
	if st.Bytes <= 0 {
		t.Fatalf("Stats.Bytes = %d after %d entries", st.Bytes, want)
	}
	for i := range 2500 {
		k, kg := e.key(i)
		must(t, b.Value("v").Delete(kg, k))
		must(t, b.Map("m").DeleteKey(kg, k))
	}
	if st2 := b.Stats(); !h.ApproximateStats && st2.Entries != want/2 {
		t.Fatalf("after deleting half: Stats.Entries = %d, want %d", st2.Entries, want/2)
	}
}
