package heap

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHmapRewritesInPlace updates keys with values of random lengths
// (shorter ones are rewritten where they were, behind a dead filler),
// with and without write times, and checks every key's value, the arena
// walk (scan: live entries only, each once) and the dead byte count
// against a model after each step.
func TestHmapRewritesInPlace(t *testing.T) {
	// Values of up to 300 bytes, and of up to 1,500 (a table of large
	// entries compacts at a sixteenth dead: makeRoom).
	for _, c := range []struct {
		timed  bool
		maxLen int
	}{{false, 300}, {true, 300}, {false, 1500}} {
		timed := c.timed
		t.Run(fmt.Sprintf("timed=%v/max=%d", timed, c.maxLen), func(t *testing.T) {
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
					val := bytes.Repeat([]byte{byte(step)}, r.IntN(c.maxLen))
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

// TestSortByOffset: the compaction's radix sort orders entries by offset
// as a comparison sort does, for short and long inputs and arenas whose
// offsets take one to three digits.
func TestSortByOffset(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 63, 64, 1000, 20000} {
		for _, arena := range []int{1 << 10, 1 << 20, 1<<32 - 2} {
			xs := make([]uint64, n)
			for i := range xs {
				// Distinct offsets, as entries have.
				xs[i] = uint64(r.IntN(arena))<<32 | uint64(i)
			}
			want := slices.Clone(xs)
			slices.Sort(want)
			if got := sortByOffset(xs, arena); !slices.Equal(got, want) {
				t.Fatalf("n %d, arena %d: not sorted by offset", n, arena)
			}
		}
	}
}
