package heap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/statetest"
)

// spilledChunks returns the number of spilled chunks of table name.
func spilledChunks(b *Backend, name string) int {
	n := 0
	for _, g := range b.tables[name].lists {
		if g == nil {
			continue
		}
		for _, c := range g.chunks {
			if c.at != 0 {
				n++
			}
		}
	}
	return n
}

// TestListTableSpill runs random appends, probes, DeleteIf and DeleteKey
// over many keys of several key groups with spilling forced (a threshold
// of one byte), against a model; cuts a snapshot, then sweeps every key
// (groups compact, freeing the slots of their spilled chunks while the
// cut may still read them) and writes on (sealing chunks into slots);
// writes the snapshot after, and restores it into a spilling and a
// non-spilling backend. The file is removed on Close.
func TestListTableSpill(t *testing.T) {
	const kgs = 3
	all := state.KeyGroupRange{Start: 0, End: kgs}
	dir := t.TempDir()
	b := openTest(t, state.Config{KeyGroups: all, MaxParallelism: kgs, Dir: dir, SpillThreshold: 1})
	l := b.List("rows")
	r := rand.New(rand.NewPCG(11, 12))
	m := listModel{}
	row := func() []byte {
		v := make([]byte, 50+r.IntN(300))
		for i := range v {
			v[i] = byte('A' + r.IntN(58))
		}
		return v
	}
	write := func(steps int) {
		t.Helper()
		for range steps {
			kg := r.IntN(kgs)
			k := fmt.Sprint("key-", r.IntN(3000))
			if m[kg] == nil {
				m[kg] = map[string][][]byte{}
			}
			switch x := r.IntN(1000); {
			case x == 0:
				if err := l.DeleteKey(kg, []byte(k)); err != nil {
					t.Fatal(err)
				}
				delete(m[kg], k)
			case x < 6:
				drop := func(v []byte) bool { return v[0]%2 == 1 }
				if err := l.DeleteIf(kg, []byte(k), drop); err != nil {
					t.Fatal(err)
				}
				m[kg][k] = slices.DeleteFunc(m[kg][k], drop)
			case x < 12:
				var got [][]byte
				if err := l.RangeList(kg, []byte(k), func(v []byte) bool { got = append(got, slices.Clone(v)); return true }); err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(got, m[kg][k], bytes.Equal) {
					t.Fatalf("key group %d key %s: %d values, want %d (or others)", kg, k, len(got), len(m[kg][k]))
				}
			default:
				v := row()
				if err := l.Append(kg, []byte(k), v); err != nil {
					t.Fatal(err)
				}
				m[kg][k] = append(m[kg][k], v)
			}
		}
	}
	write(120000)
	if n := spilledChunks(b, "rows"); n < 2*cacheSlots {
		t.Fatalf("%d chunks spilled, want more than %d", n, 2*cacheSlots)
	}
	checkList(t, "live", l, all, m)
	cut := m.clone()
	s, err := b.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	sweep := func(bit int) {
		for kg := range kgs {
			var keys []string
			if err := l.Keys(kg, func(key []byte) bool { keys = append(keys, string(key)); return true }); err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				drop := func(v []byte) bool { return v[bit]%2 == 0 }
				if err := l.DeleteIf(kg, []byte(k), drop); err != nil {
					t.Fatal(err)
				}
				m[kg][k] = slices.DeleteFunc(m[kg][k], drop)
			}
		}
	}
	// The snapshot is written on another goroutine while the task
	// sweeps and appends, as the runtime's state writer does.
	files := statetest.NewMemFiles()
	var h state.Handle
	var werr error
	written := make(chan struct{})
	go func() {
		defer close(written)
		h, werr = s.Write(context.Background(), files, "chk-1/")
	}()
	sweep(1)
	if b.sp.freed < 50 {
		t.Fatalf("%d slots freed by the compactions, want many", b.sp.freed)
	}
	write(30000)
	checkList(t, "live after the cut", l, all, m)
	<-written
	s.Release()
	if werr != nil {
		t.Fatal(werr)
	}
	// With the snapshot released, freed slots are written again.
	end := b.sp.end
	sweep(2)
	write(30000)
	checkList(t, "live after the release", l, all, m)
	if b.sp.end > end+4*chunkSize*kgs {
		t.Errorf("the spill file grew from %d to %d bytes after the release: freed slots not reused", end, b.sp.end)
	}
	for _, spill := range []bool{true, false} {
		cfg := state.Config{KeyGroups: all, MaxParallelism: kgs, Restore: []state.Handle{h}, Files: files}
		if spill {
			cfg.Dir, cfg.SpillThreshold = t.TempDir(), 1
		}
		rb, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkList(t, fmt.Sprint("restored, spilling ", spill), rb.List("rows"), all, cut)
		if n := spilledChunks(rb, "rows"); (n > 0) != spill {
			t.Errorf("restored, spilling %v: %d chunks spilled", spill, n)
		}
		if err := rb.Close(); err != nil {
			t.Fatal(err)
		}
	}
	name := b.sp.f.Name()
	// The file was unlinked when it was created: a killed process
	// leaves nothing on disk, yet the spilled chunks read back (above).
	if _, err := os.Stat(name); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spill file is on disk while the backend is open: %v", err)
	}
	checkList(t, "with the file unlinked", l, all, m)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spill file is left after Close: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left in the backend's folder after Close", len(ents))
	}
}

// TestListTableSpillSmall: a table under the threshold never touches the
// disk.
func TestListTableSpillSmall(t *testing.T) {
	dir := t.TempDir()
	b := openTest(t, state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 1}, MaxParallelism: 1, Dir: dir, SpillThreshold: 64 << 20})
	l := b.List("rows")
	v := bytes.Repeat([]byte("abcdefgh"), 40)
	for i := range 5000 {
		if err := l.Append(0, fmt.Appendf(nil, "k%d", i%7), v); err != nil {
			t.Fatal(err)
		}
	}
	if n := spilledChunks(b, "rows"); n != 0 || b.sp.f != nil {
		t.Fatalf("%d chunks spilled under the threshold", n)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("%d files in the backend's folder under the threshold", len(ents))
	}
}

// TestListTableSpillErrors: a spill file that fails (closed under the
// table) fails the table's reads of spilled chunks, its appends that seal
// a chunk and a snapshot's write, with errors naming the operator; no
// read gives made-up rows.
func TestListTableSpillErrors(t *testing.T) {
	b := openTest(t, state.Config{Operator: "vertex 'Join[3]' task 0", KeyGroups: state.KeyGroupRange{Start: 0, End: 1},
		MaxParallelism: 1, Dir: t.TempDir(), SpillThreshold: 1})
	l := b.List("rows")
	v := bytes.Repeat([]byte("abcdefgh"), 40)
	for i := range 2000 {
		if err := l.Append(0, fmt.Appendf(nil, "k%d", i%3), v); err != nil {
			t.Fatal(err)
		}
	}
	if spilledChunks(b, "rows") < 3 {
		t.Fatal("too few chunks spilled")
	}
	s, err := b.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	b.sp.f.Close() // the test's hook: reads and writes of the file fail
	named := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error from a closed spill file", what)
		}
		if !errors.Is(err, os.ErrClosed) || !bytes.Contains([]byte(err.Error()), []byte("Join[3]")) {
			t.Fatalf("%s: error %v, want os.ErrClosed naming the operator", what, err)
		}
	}
	rows := 0
	err = l.RangeList(0, []byte("k1"), func([]byte) bool { rows++; return true })
	named("RangeList", err)
	if rows != 0 {
		t.Errorf("RangeList gave %d rows before its error", rows)
	}
	var aerr error
	for i := 0; i < 2000 && aerr == nil; i++ {
		aerr = l.Append(0, []byte("k1"), v)
	}
	named("Append", aerr)
	_, err = s.Write(context.Background(), statetest.NewMemFiles(), "chk-1/")
	if err == nil || !errors.Is(err, os.ErrClosed) {
		t.Fatalf("snapshot write: error %v, want os.ErrClosed", err)
	}
	named("DeleteIf", l.DeleteIf(0, []byte("k2"), func([]byte) bool { return false }))
}

// TestListTableSpillRestoreCycles stands in for a job killed and restored
// again and again with spilling on: each cycle writes (appends, sweeps
// that compact), cuts a snapshot while its chunks are spilled, writes
// on (rows the "crash" loses), writes the snapshot, and restores it into
// a fresh spilling backend, whose lists must be the cut's; the killed
// backend is dropped without Close, as a SIGKILL leaves it.
func TestListTableSpillRestoreCycles(t *testing.T) {
	const kgs = 2
	all := state.KeyGroupRange{Start: 0, End: kgs}
	r := rand.New(rand.NewPCG(21, 22))
	open := func(restore []state.Handle, files state.Files) *Backend {
		t.Helper()
		b, err := Open(context.Background(), state.Config{KeyGroups: all, MaxParallelism: kgs, Dir: t.TempDir(),
			SpillThreshold: 1, Restore: restore, Files: files})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := open(nil, nil)
	m := listModel{}
	write := func(steps int) {
		t.Helper()
		l := b.List("rows")
		for range steps {
			kg := r.IntN(kgs)
			k := fmt.Sprint("key-", r.IntN(500))
			if m[kg] == nil {
				m[kg] = map[string][][]byte{}
			}
			if r.IntN(200) == 0 {
				drop := func(v []byte) bool { return v[0]%3 == 0 }
				if err := l.DeleteIf(kg, []byte(k), drop); err != nil {
					t.Fatal(err)
				}
				m[kg][k] = slices.DeleteFunc(m[kg][k], drop)
				continue
			}
			v := make([]byte, 80+r.IntN(120))
			for i := range v {
				v[i] = byte('a' + r.IntN(26))
			}
			if err := l.Append(kg, []byte(k), v); err != nil {
				t.Fatal(err)
			}
			m[kg][k] = append(m[kg][k], v)
		}
	}
	files := statetest.NewMemFiles()
	for cycle := range 4 {
		write(15000)
		if spilledChunks(b, "rows") == 0 {
			t.Fatalf("cycle %d: nothing spilled", cycle)
		}
		cut := m.clone()
		s, err := b.Snapshot(int64(cycle + 1))
		if err != nil {
			t.Fatal(err)
		}
		write(5000) // lost with the crash
		h, err := s.Write(context.Background(), files, fmt.Sprintf("chk-%d/", cycle+1))
		s.Release()
		if err != nil {
			t.Fatal(err)
		}
		b = open([]state.Handle{h}, files) // the killed backend is left as it is
		m = cut
		checkList(t, fmt.Sprint("restored, cycle ", cycle), b.List("rows"), all, m)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestListTableSpillBacksOff: a table whose reads keep reading spilled
// chunks back (probes of keys spread over more chunks than the cache
// keeps) keeps the chunks it seals meanwhile in memory, and spills again
// once its reads stop missing.
func TestListTableSpillBacksOff(t *testing.T) {
	b := openTest(t, state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 1}, MaxParallelism: 1, Dir: t.TempDir(), SpillThreshold: 1})
	l := b.List("rows")
	r := rand.New(rand.NewPCG(31, 32))
	m := listModel{0: {}}
	appendRow := func(k string) {
		v := make([]byte, 200)
		for i := range v {
			v[i] = byte('A' + r.IntN(58))
		}
		if err := l.Append(0, []byte(k), v); err != nil {
			t.Fatal(err)
		}
		m[0][k] = append(m[0][k], v)
	}
	g := func() *lgroup { return b.tables["rows"].lists[0] }
	spilledSince := func(from int) (spilled, sealed int) {
		cs := g().chunks
		for _, c := range cs[from : len(cs)-1] {
			sealed++
			if c.at != 0 {
				spilled++
			}
		}
		return spilled, sealed
	}
	for i := range 45000 {
		appendRow(fmt.Sprint("key-", i%100))
	}
	if p, s := spilledSince(0); p != s || s <= 2*cacheSlots {
		t.Fatalf("%d of %d sealed chunks spilled before any read, want all of more than %d", p, s, 2*cacheSlots)
	}
	from := len(g().chunks) - 1
	for i := range 5000 {
		appendRow(fmt.Sprint("key-", i%100))
		if i%100 == 0 {
			if err := l.RangeList(0, []byte(fmt.Sprint("key-", r.IntN(100))), func([]byte) bool { return true }); err != nil {
				t.Fatal(err)
			}
		}
	}
	if p, s := spilledSince(from); s < 10 || p > s/4 {
		t.Errorf("%d of %d chunks sealed while probes missed the cache spilled, want few", p, s)
	}
	from = len(g().chunks) - 1
	for i := range 5000 {
		appendRow(fmt.Sprint("key-", i%100))
	}
	if p, s := spilledSince(from); p < s-1 {
		t.Errorf("%d of %d chunks sealed after the probes spilled, want all but one", p, s)
	}
	checkList(t, "live", l, state.KeyGroupRange{Start: 0, End: 1}, m)
}
