package heap

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/statetest"
)

// listModel is a list table's expected content: key group, key → values.
type listModel map[int]map[string][][]byte

func (m listModel) clone() listModel {
	c := listModel{}
	for kg, keys := range m {
		c[kg] = map[string][][]byte{}
		for k, vs := range keys {
			c[kg][k] = slices.Clone(vs)
		}
	}
	return c
}

// checkList compares every key of m (and of the table) with the table's
// lists, in append order.
func checkList(t *testing.T, what string, l state.ListTable, kgs state.KeyGroupRange, m listModel) {
	t.Helper()
	for kg := kgs.Start; kg < kgs.End; kg++ {
		var keys []string
		if err := l.Keys(kg, func(key []byte) bool { keys = append(keys, string(key)); return true }); err != nil {
			t.Fatal(err)
		}
		var want []string
		for k, vs := range m[kg] {
			if len(vs) > 0 {
				want = append(want, k)
			}
		}
		slices.Sort(keys)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Fatalf("%s: key group %d: keys %d, want %d", what, kg, len(keys), len(want))
		}
		for _, k := range want {
			var got [][]byte
			if err := l.RangeList(kg, []byte(k), func(v []byte) bool { got = append(got, slices.Clone(v)); return true }); err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, m[kg][k], bytes.Equal) {
				t.Fatalf("%s: key group %d key %s: %d values, want %d (or another order)", what, kg, k, len(got), len(m[kg][k]))
			}
		}
	}
}

// TestListTable appends values (duplicates among them, some larger than a
// chunk) to keys of several key groups, drops some with DeleteIf and
// DeleteKey (so that groups compact), cuts a snapshot in the middle and
// writes on, and checks the lists against a model, live, after a restore
// of the cut into one backend and into two of half the key groups each.
func TestListTable(t *testing.T) {
	const kgs = 4
	b := openTest(t, state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: kgs}, MaxParallelism: kgs})
	l := b.List("rows")
	r := rand.New(rand.NewPCG(5, 6))
	m := listModel{}
	write := func(steps int) {
		t.Helper()
		for step := range steps {
			kg := r.IntN(kgs)
			k := fmt.Sprint("key-", r.IntN(300))
			if m[kg] == nil {
				m[kg] = map[string][][]byte{}
			}
			switch x := r.IntN(200); {
			case x == 0:
				if err := l.DeleteKey(kg, []byte(k)); err != nil {
					t.Fatal(err)
				}
				delete(m[kg], k)
			case x < 4:
				// Drop the values whose first byte is odd.
				drop := func(v []byte) bool { return len(v) > 0 && v[0]%2 == 1 }
				if err := l.DeleteIf(kg, []byte(k), drop); err != nil {
					t.Fatal(err)
				}
				m[kg][k] = slices.DeleteFunc(m[kg][k], drop)
			default:
				var v []byte
				if old := m[kg][k]; len(old) > 0 && r.IntN(4) == 0 {
					v = slices.Clone(old[r.IntN(len(old))]) // a duplicate
				} else {
					n := r.IntN(200)
					if r.IntN(500) == 0 {
						n = chunkSize + r.IntN(chunkSize)
					}
					v = bytes.Repeat([]byte{byte(step)}, n)
				}
				if err := l.Append(kg, []byte(k), v); err != nil {
					t.Fatal(err)
				}
				m[kg][k] = append(m[kg][k], v)
			}
		}
	}
	all := state.KeyGroupRange{Start: 0, End: kgs}
	write(30000)
	checkList(t, "live", l, all, m)
	if n := len(b.tables["rows"].lists[0].chunks); n < 4 {
		t.Fatalf("key group 0 has %d chunks, want several", n)
	}
	cut := m.clone()
	s, err := b.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	write(30000)
	files := statetest.NewMemFiles()
	h, err := s.Write(context.Background(), files, "chk-1/")
	s.Release()
	if err != nil {
		t.Fatal(err)
	}
	checkList(t, "live after the cut", l, all, m)
	if got, want := b.Stats().Entries, count(m); got != want {
		t.Errorf("Stats().Entries = %d, want %d", got, want)
	}
	for _, rg := range []state.KeyGroupRange{all, {Start: 0, End: 2}, {Start: 2, End: kgs}} {
		rb, err := Open(context.Background(), state.Config{KeyGroups: rg, MaxParallelism: kgs, Restore: []state.Handle{h}, Files: files})
		if err != nil {
			t.Fatal(err)
		}
		checkList(t, fmt.Sprint("restored ", rg), rb.List("rows"), rg, cut)
		// The restored lists take appends.
		if err := rb.List("rows").Append(rg.Start, []byte("key-1"), []byte("new")); err != nil {
			t.Fatal(err)
		}
		c := cut.clone()
		if c[rg.Start] == nil {
			c[rg.Start] = map[string][][]byte{}
		}
		c[rg.Start]["key-1"] = append(c[rg.Start]["key-1"], []byte("new"))
		checkList(t, fmt.Sprint("restored and appended ", rg), rb.List("rows"), rg, c)
		rb.Close()
	}
}

func count(m listModel) int64 {
	var n int64
	for _, keys := range m {
		for _, vs := range keys {
			n += int64(len(vs))
		}
	}
	return n
}

// TestListTableRefusals: a list table takes no TTL, and a list table's
// name is not a value or map table's.
func TestListTableRefusals(t *testing.T) {
	b := openTest(t, state.Config{})
	if err := b.List("l", state.TTL(1)).Append(0, []byte("k"), nil); err == nil {
		t.Error("a list table with a TTL appended")
	}
	if err := b.List("l").Append(0, []byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := b.Map("l").Put(0, []byte("k"), []byte("s"), nil); err == nil {
		t.Error("a list table written as a map table")
	}
	if err := b.Value("l").Put(0, []byte("k"), nil); err == nil {
		t.Error("a list table written as a value table")
	}
}

// TestListTablePacked checks lists whose chunks are packed once full
// (pack.go): rows like Nexmark's (random letters of a small alphabet, so
// that chunks shrink), more sealed chunks in a key group than the cache
// keeps, DeleteIf, DeleteKey and compaction over packed chunks, a cut in
// the middle, and a restore. The lists must equal the model's, the table
// must have packed chunks and take less memory than its records.
func TestListTablePacked(t *testing.T) {
	const kgs = 2
	b := openTest(t, state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: kgs}, MaxParallelism: kgs, CompressLists: true})
	l := b.List("rows")
	r := rand.New(rand.NewPCG(7, 8))
	m := listModel{}
	row := func() []byte {
		v := make([]byte, 100+r.IntN(300))
		for i := range v {
			v[i] = byte('A' + r.IntN(58))
		}
		return v
	}
	write := func(steps int) {
		t.Helper()
		for range steps {
			kg := r.IntN(kgs)
			k := fmt.Sprint("key-", r.IntN(2000))
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
			case x < 10:
				// A probe of one key, reading back through its chunks.
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
	all := state.KeyGroupRange{Start: 0, End: kgs}
	write(50000)
	checkList(t, "live", l, all, m)
	cut := m.clone()
	s, err := b.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	// Sweep half the rows of every key (as a join's prune does): groups
	// compact, and their packed chunks are read and written again.
	for kg := range kgs {
		var keys []string
		if err := l.Keys(kg, func(key []byte) bool { keys = append(keys, string(key)); return true }); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			drop := func(v []byte) bool { return v[1]%2 == 0 }
			if err := l.DeleteIf(kg, []byte(k), drop); err != nil {
				t.Fatal(err)
			}
			m[kg][k] = slices.DeleteFunc(m[kg][k], drop)
		}
	}
	write(20000)
	files := statetest.NewMemFiles()
	h, err := s.Write(context.Background(), files, "chk-1/")
	s.Release()
	if err != nil {
		t.Fatal(err)
	}
	checkList(t, "live after the cut", l, all, m)
	packed, most, tails := 0, 0, 0
	for _, g := range b.tables["rows"].lists {
		n := 0
		for _, c := range g.chunks {
			if c.packed() {
				n++
			}
			if c.tail != nil {
				tails++
			}
		}
		packed += n
		most = max(most, n)
	}
	if tails == 0 {
		t.Errorf("no packed chunk has a tail (split)")
	}
	if most <= cacheSlots {
		t.Errorf("at most %d packed chunks in a key group, want more than the cache's %d", most, cacheSlots)
	}
	if packedBytes, rawBytes := packedSize(b.tables["rows"].lists); packedBytes > rawBytes*85/100 {
		t.Errorf("%d packed chunks take %d bytes for %d bytes of records: not packed", packed, packedBytes, rawBytes)
	}
	// Restored with packing on, and into a backend that packs nothing.
	for i, rg := range []state.KeyGroupRange{all, {Start: 1, End: 2}} {
		rb, err := Open(context.Background(), state.Config{KeyGroups: rg, MaxParallelism: kgs, Restore: []state.Handle{h}, Files: files, CompressLists: i == 0})
		if err != nil {
			t.Fatal(err)
		}
		checkList(t, fmt.Sprint("restored ", rg), rb.List("rows"), rg, cut)
		rb.Close()
	}
}

// packedSize returns the bytes of the packed chunks of gs and of their
// records.
func packedSize(gs []*lgroup) (packed, raw int) {
	for _, g := range gs {
		for _, c := range g.chunks {
			if c.packed() {
				packed += len(c.b) + len(c.tail)
				raw += c.raw
			}
		}
	}
	return packed, raw
}

// TestListTablePackingBacksOff: a table whose reads keep unpacking
// chunks (probes of keys spread over more chunks than the cache keeps)
// leaves the chunks it seals meanwhile as they are, and packs again once
// its reads stop missing.
func TestListTablePackingBacksOff(t *testing.T) {
	b := openTest(t, state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 1}, MaxParallelism: 1, CompressLists: true})
	l := b.List("rows")
	r := rand.New(rand.NewPCG(9, 10))
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
	packedSince := func(from int) (packed, sealed int) {
		cs := g().chunks
		for _, c := range cs[from : len(cs)-1] {
			sealed++
			if c.packed() {
				packed++
			}
		}
		return packed, sealed
	}
	// Every key's rows spread over all the chunks.
	for i := range 45000 {
		appendRow(fmt.Sprint("key-", i%100))
	}
	if p, s := packedSince(0); p != s || s <= 2*cacheSlots {
		t.Fatalf("%d of %d sealed chunks packed before any read, want all of more than %d", p, s, 2*cacheSlots)
	}
	// A probe of a key reads all the chunks.
	from := len(g().chunks) - 1
	for i := range 5000 {
		appendRow(fmt.Sprint("key-", i%100))
		if i%100 == 0 {
			if err := l.RangeList(0, []byte(fmt.Sprint("key-", r.IntN(100))), func([]byte) bool { return true }); err != nil {
				t.Fatal(err)
			}
		}
	}
	if p, s := packedSince(from); s < 10 || p > s/4 {
		t.Errorf("%d of %d chunks sealed while probes missed the cache packed, want few", p, s)
	}
	from = len(g().chunks) - 1
	for i := range 5000 {
		appendRow(fmt.Sprint("key-", i%100))
	}
	if p, s := packedSince(from); p < s-1 {
		t.Errorf("%d of %d chunks sealed after the probes packed, want all but one", p, s)
	}
	checkList(t, "live", l, state.KeyGroupRange{Start: 0, End: 1}, m)
}

// TestListTableUnpackedByDefault checks that a list table packs no chunk
// unless state.Config.CompressLists asks for it.
func TestListTableUnpackedByDefault(t *testing.T) {
	b := openTest(t, state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 1}, MaxParallelism: 1})
	l := b.List("rows")
	v := bytes.Repeat([]byte("abcdefgh"), 40)
	for i := range 2000 {
		if err := l.Append(0, fmt.Appendf(nil, "k%d", i%7), v); err != nil {
			t.Fatal(err)
		}
	}
	sealed := 0
	for _, g := range b.tables["rows"].lists {
		if g == nil {
			continue
		}
		for _, c := range g.chunks {
			sealed++
			if c.packed() {
				t.Fatalf("a chunk is packed without CompressLists")
			}
		}
	}
	if sealed < 3 {
		t.Fatalf("%d chunks, want several", sealed)
	}
}
