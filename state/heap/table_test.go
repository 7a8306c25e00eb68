package heap

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// TestHmapRewritesInPlace updates keys with values of random lengths
// (shorter ones are rewritten where they were, behind a dead filler),
// with and without write times, and checks every key's value, the arena
// walk (scan: live entries only, each once) and the dead byte count
// against a model after each step.
func TestHmapRewritesInPlace(t *testing.T) {
	for _, timed := range []bool{false, true} {
		t.Run(fmt.Sprint("timed=", timed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 8))
			seed := maphash.MakeSeed()
			m := newHmap(1, timed)
			model := map[string][]byte{}
			for step := range 20000 {
				key := []byte(fmt.Sprint("k", r.IntN(50)))
				h := maphash.Bytes(seed, key)
				if r.IntN(10) == 0 {
					m.delete(h, key)
					delete(model, string(key))
				} else {
					// Lengths around the 1- and 2-byte varint boundary.
					val := bytes.Repeat([]byte{byte(step)}, r.IntN(300))
					if _, err := m.put(h, key, val, int64(step)); err != nil {
						t.Fatal(err)
					}
					model[string(key)] = val
				}
				for k, want := range model {
					e, ok := m.get(maphash.String(seed, k), []byte(k))
					if !ok || !bytes.Equal(e.value, want) {
						t.Fatalf("step %d: key %s: %q, %v; want %q", step, k, e.value, ok, want)
					}
				}
				seen := 0
				m.scan(func(e entry) bool {
					seen++
					if want, ok := model[string(e.key)]; !ok || !bytes.Equal(e.value, want) {
						t.Fatalf("step %d: scan: entry %q = %q not in the model", step, e.key, e.value)
					}
					return true
				})
				if seen != len(model) || m.n != len(model) {
					t.Fatalf("step %d: scan saw %d entries, n %d, model %d", step, seen, m.n, len(model))
				}
				var liveBytes int
				for pos, s := range m.slots {
					if s != 0 {
						e := m.entryAt(pos)
						liveBytes += e.end - (int(uint32(s)) - 1)
					}
				}
				if liveBytes+m.dead != len(m.arena) {
					t.Fatalf("step %d: %d live + %d dead bytes, arena %d", step, liveBytes, m.dead, len(m.arena))
				}
			}
		})
	}
}

// TestSubmapIndex puts, updates (values of random lengths: in place,
// moved, compacted) and deletes sub-keys of one sorted map that grows past
// idxMin and shrinks below idxMin/2 again, with clones between steps (a
// snapshot's copy), and checks after each step every sub-key's lookup, a
// few absent ones, the sorted order of offs and that the hash index holds
// exactly the live entries when there is one.
func TestSubmapIndex(t *testing.T) {
	for _, timed := range []bool{false, true} {
		t.Run(fmt.Sprint("timed=", timed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			s := &submap{epoch: 1, timed: timed, indexed: true}
			model := map[string][]byte{}
			indexed, dropped := false, false
			for step := range 12000 {
				// Grow to ~300 sub-keys, shrink to a few, grow again.
				shrink := step%6000 >= 3000
				sub := []byte(fmt.Sprint("s", r.IntN(300)))
				if shrink && r.IntN(10) == 0 {
					sub = []byte(fmt.Sprint("s", r.IntN(20)))
				}
				switch {
				case shrink && r.IntN(10) > 0 || !shrink && r.IntN(8) == 0:
					if i, ok := s.find(sub); ok {
						s.deleteAt(i)
					}
					delete(model, string(sub))
				default:
					val := bytes.Repeat([]byte{byte(step)}, r.IntN(4)*r.IntN(60))
					if _, err := s.put(sub, val, int64(step)); err != nil {
						t.Fatal(err)
					}
					model[string(sub)] = val
				}
				if step%500 == 0 {
					s = s.clone(uint64(step))
				}
				dropped = dropped || indexed && s.idx == nil
				indexed = indexed || s.idx != nil
				for k, want := range model {
					e, ok := s.lookup([]byte(k))
					if !ok || !bytes.Equal(e.value, want) || string(e.key) != k {
						t.Fatalf("step %d: sub-key %s: %q, %v; want %q", step, k, e.value, ok, want)
					}
				}
				for range 5 {
					k := fmt.Sprint("s", 300+r.IntN(50))
					if _, ok := s.lookup([]byte(k)); ok {
						t.Fatalf("step %d: absent sub-key %s found", step, k)
					}
				}
				if len(s.offs) != len(model) {
					t.Fatalf("step %d: %d entries, model %d", step, len(s.offs), len(model))
				}
				for i := 1; i < len(s.offs); i++ {
					if bytes.Compare(s.entry(i-1).key, s.entry(i).key) >= 0 {
						t.Fatalf("step %d: offs not sorted at %d", step, i)
					}
				}
				if s.idx != nil {
					live := 0
					for pos, v := range s.idx.slots {
						if v == 0 {
							continue
						}
						live++
						e := decode(s.arena, int(uint32(v))-1, timed)
						if !e.live || uint32(v>>32) != subHash(e.key) {
							t.Fatalf("step %d: index slot %d: a dead entry or a wrong hash", step, pos)
						}
					}
					if live != len(model) {
						t.Fatalf("step %d: the index holds %d entries, the map %d", step, live, len(model))
					}
				}
			}
			if !indexed || !dropped {
				t.Fatalf("the map never had an index (%v) or never dropped it (%v)", indexed, dropped)
			}
		})
	}
}
