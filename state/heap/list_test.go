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
