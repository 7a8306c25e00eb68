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
// (shorter ones are rewritten where they were, behind a dead filler;
// longer ones take the dead bytes after them, or grow at the end of the
// arena; a third of the updates are of the key written last), with and
// without write times, while a TTL sweep walks the arena an entry a step,
// and checks every key's value and time, the arena walk (scan: live
// entries only, each once; every entry, dead ones too, ending at the
// arena's end and passing the sweep's position) and the dead byte count
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
			times := map[string]int64{}
			var key []byte
			for step := range 20000 {
				if key == nil || r.IntN(3) != 0 {
					key = []byte(fmt.Sprint("k", r.IntN(50)))
				}
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
					times[string(key)] = int64(step)
				}
				for k, want := range model {
					e, ok := m.get(maphash.String(seed, k), []byte(k))
					if !ok || !bytes.Equal(e.value, want) {
						t.Fatalf("step %d: key %s: %q, %v; want %q", step, k, e.value, ok, want)
					}
					if timed && e.time != times[k] {
						t.Fatalf("step %d: key %s: time %d, want %d", step, k, e.time, times[k])
					}
				}
				// The sweep's position is where an entry starts (or the
				// end); it moves on by one entry, as the TTL sweep does.
				sweepSeen := m.sweepPos >= len(m.arena)
				off := 0
				for off < len(m.arena) {
					sweepSeen = sweepSeen || off == m.sweepPos
					off = decode(m.arena, off, timed).end
				}
				if off != len(m.arena) || !sweepSeen {
					t.Fatalf("step %d: the entries end at %d, arena %d; sweep position %d on an entry: %v", step, off, len(m.arena), m.sweepPos, sweepSeen)
				}
				if m.sweepPos >= len(m.arena) {
					m.sweepPos = 0
				} else {
					m.sweepPos = decode(m.arena, m.sweepPos, timed).end
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

// TestHmapGrowsInPlace: a longer value of the arena's last entry is
// written where the entry was, as is one that fits in the dead bytes
// right after its entry; only one that fits in neither moves, leaving its
// old entry dead.
func TestHmapGrowsInPlace(t *testing.T) {
	seed := maphash.MakeSeed()
	m := newHmap(1, false)
	put := func(key string, n int) (off int) {
		t.Helper()
		h := maphash.String(seed, key)
		if _, err := m.put(h, []byte(key), bytes.Repeat([]byte{'v'}, n), 0); err != nil {
			t.Fatal(err)
		}
		pos, ok := m.find(h, []byte(key))
		if !ok || len(m.entryAt(pos).value) != n {
			t.Fatalf("%s: not found with %d bytes", key, n)
		}
		return int(uint32(m.slots[pos])) - 1
	}
	a := put("a", 100)
	b := put("b", 100)
	for _, n := range []int{200, 1000, 5000, 300} {
		if off := put("b", n); off != b || m.dead != 0 || len(m.arena) != b+entrySize([]byte("b"), make([]byte, n), false) {
			t.Fatalf("the last entry with %d bytes: at %d (was %d), %d dead bytes, arena %d", n, off, b, m.dead, len(m.arena))
		}
	}
	if off := put("a", 40); off != a || m.dead != 60 {
		t.Fatalf("a shorter value: at %d (was %d), %d dead bytes", off, a, m.dead)
	}
	if off := put("a", 90); off != a || m.dead != 10 {
		t.Fatalf("a longer value in the dead bytes after it: at %d (was %d), %d dead bytes", off, a, m.dead)
	}
	if off := put("a", 100); off != a || m.dead != 0 {
		t.Fatalf("a value taking all the dead bytes after it: at %d (was %d), %d dead bytes", off, a, m.dead)
	}
	if off := put("a", 101); off == a || m.dead != entrySize([]byte("a"), make([]byte, 100), false) {
		t.Fatalf("a value with no room where it is: at %d (was %d), %d dead bytes", off, a, m.dead)
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

// TestIndexGrowsByAQuarter: a map table's key index (newIndex) grows a
// large arena by at least a quarter, a value table's hmap by an eighth
// (and less than a quarter), so that the index's entries — a join's
// one-entry keys, whole rows — are copied about half as often as the
// index grows.
func TestIndexGrowsByAQuarter(t *testing.T) {
	seed := maphash.MakeSeed()
	for _, c := range []struct {
		m        *hmap
		min, max float64
	}{{newIndex(1), 1.25, 1.6}, {newHmap(1, false), 1.125, 1.25}} {
		val := bytes.Repeat([]byte{'v'}, 100)
		var growths int
		for i := range 20000 {
			key := []byte(fmt.Sprint("key-", i))
			before, was := len(c.m.arena), cap(c.m.arena)
			if _, err := c.m.put(maphash.Bytes(seed, key), key, val, 0); err != nil {
				t.Fatal(err)
			}
			if now := cap(c.m.arena); now != was && before >= 64<<10 {
				growths++
				if r := float64(now) / float64(before); r < c.min || r > c.max {
					t.Fatalf("quarter=%v: the arena grew from %d bytes to a capacity of %d (%.3f×); want %.3f× to %.3f×",
						c.m.quarter, before, now, r, c.min, c.max)
				}
			}
		}
		if growths == 0 {
			t.Fatalf("quarter=%v: the arena never grew past 64 KiB", c.m.quarter)
		}
	}
}
