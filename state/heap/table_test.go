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
// longer ones take the dead bytes after them, or grow at the end of their
// chunk; a third of the updates are of the key written last), with and
// without write times, in tables of one chunk and of many, some with
// entries larger than a chunk, while a TTL sweep walks the entries one a
// step, and checks every key's value and time, the walk of the chunks
// (scan: live entries only, each once; every entry, dead ones too, ending
// at its chunk's end and passing the sweep's position), the dead byte
// count and the byte counts against a model after each step.
func TestHmapRewritesInPlace(t *testing.T) {
	// Values of up to 300 bytes, and of up to 1,500 (a table of large
	// entries compacts at a sixteenth dead: makeRoom); 2,000 keys take
	// many chunks; every eighth value of the last case is larger than a
	// chunk.
	for _, c := range []struct {
		timed             bool
		maxLen, keys      int
		steps, checkEvery int
		large             bool
	}{
		{false, 300, 50, 20000, 1, false}, {true, 300, 50, 20000, 1, false}, {false, 1500, 50, 20000, 1, false},
		{false, 300, 2000, 40000, 50, false}, {true, 600, 2000, 40000, 50, false},
		{false, 300, 100, 3000, 1, true}, {true, 2000, 300, 6000, 10, true},
	} {
		timed := c.timed
		t.Run(fmt.Sprintf("timed=%v/max=%d/keys=%d/large=%v", timed, c.maxLen, c.keys, c.large), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 8))
			seed := maphash.MakeSeed()
			m := newHmap(1, timed)
			model := map[string][]byte{}
			times := map[string]int64{}
			var key []byte
			chunks := map[int]bool{}
			for step := range c.steps {
				if key == nil || r.IntN(3) != 0 {
					key = []byte(fmt.Sprint("k", r.IntN(c.keys)))
				}
				h := maphash.Bytes(seed, key)
				if r.IntN(10) == 0 {
					m.delete(h, key)
					delete(model, string(key))
				} else {
					// Lengths around the 1- and 2-byte varint boundary.
					n := r.IntN(c.maxLen)
					if c.large && r.IntN(8) == 0 {
						n = chunkSize - 100 + r.IntN(3000)
					}
					val := bytes.Repeat([]byte{byte(step)}, n)
					if _, err := m.put(h, key, val, int64(step)); err != nil {
						t.Fatal(err)
					}
					model[string(key)] = val
					times[string(key)] = int64(step)
				}
				if len(m.chunks) > 1 {
					chunks[len(m.chunks)] = true
				}
				check := func(k string, want []byte) {
					e, ok := m.get(maphash.String(seed, k), []byte(k))
					if !ok || !bytes.Equal(e.value, want) {
						t.Fatalf("step %d: key %s: %d bytes, %v; want %d", step, k, len(e.value), ok, len(want))
					}
					if timed && e.time != times[k] {
						t.Fatalf("step %d: key %s: time %d, want %d", step, k, e.time, times[k])
					}
				}
				if want, ok := model[string(key)]; ok {
					check(string(key), want)
				} else if _, ok := m.get(h, key); ok {
					t.Fatalf("step %d: deleted key %s found", step, key)
				}
				// The sweep's position is where an entry starts (or its
				// chunk's end, or past the last chunk); it moves on by one
				// entry, as the TTL sweep does.
				if step%c.checkEvery != 0 && step%7 != 0 {
					m.sweepNext()
					continue
				}
				sweepSeen := m.sweepC >= len(m.chunks)
				used, room := 0, 0
				for ci, ch := range m.chunks {
					off := 0
					for off < len(ch) {
						sweepSeen = sweepSeen || (ci == m.sweepC && off == m.sweepPos)
						off = decode(ch, off, timed).end
					}
					sweepSeen = sweepSeen || (ci == m.sweepC && off == m.sweepPos)
					if off != len(ch) {
						t.Fatalf("step %d: chunk %d: the entries end at %d, chunk %d", step, ci, off, len(ch))
					}
					if large(ch) && 2*len(ch) <= cap(ch) {
						t.Fatalf("step %d: large chunk %d holds %d of its %d bytes", step, ci, len(ch), cap(ch))
					}
					used += len(ch)
					room += cap(ch)
				}
				if !sweepSeen {
					t.Fatalf("step %d: sweep position %d:%d not on an entry", step, m.sweepC, m.sweepPos)
				}
				m.sweepNext()
				if used != m.used || room != m.room {
					t.Fatalf("step %d: chunks hold %d bytes in %d, counted %d in %d", step, used, room, m.used, m.room)
				}
				if step%c.checkEvery != 0 {
					continue
				}
				for k, want := range model {
					check(k, want)
				}
				seen := 0
				m.scan(func(e entry) bool {
					seen++
					if want, ok := model[string(e.key)]; !ok || !bytes.Equal(e.value, want) {
						t.Fatalf("step %d: scan: entry %q (%d bytes) not in the model", step, e.key, len(e.value))
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
						liveBytes += e.end - (int(uint32(s))-1)&chunkMask
					}
				}
				if liveBytes+m.dead != m.used {
					t.Fatalf("step %d: %d live + %d dead bytes, entries %d", step, liveBytes, m.dead, m.used)
				}
			}
			if c.keys >= 100 && len(chunks) < 2 {
				t.Fatalf("the table never had more than one chunk: %v", chunks)
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
		if off := put("b", n); off != b || m.dead != 0 || m.used != b+entrySize([]byte("b"), make([]byte, n), false) {
			t.Fatalf("the last entry with %d bytes: at %d (was %d), %d dead bytes, entries %d", n, off, b, m.dead, m.used)
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

// TestHmapGrowsInChunks: a table that grows past a chunk adds chunks of
// chunkSize bytes and never moves an entry written in one (the first
// chunk grows by copying while it is the only one, up to chunkSize); its
// capacity stays within a chunk plus an entry per chunk of its entries'
// bytes; a table of a few entries stays small.
func TestHmapGrowsInChunks(t *testing.T) {
	seed := maphash.MakeSeed()
	m := newHmap(1, false)
	val := bytes.Repeat([]byte{'v'}, 100)
	first := map[int]*byte{} // each full chunk's first byte
	for i := range 20000 {
		key := []byte(fmt.Sprint("key-", i))
		if _, err := m.put(maphash.Bytes(seed, key), key, val, 0); err != nil {
			t.Fatal(err)
		}
		if i == 10 && m.room > 4096 {
			t.Fatalf("11 entries of %d bytes: %d bytes of chunks", entrySize(key, val, false), m.room)
		}
		for c, ch := range m.chunks {
			if len(m.chunks) > 1 && cap(ch) != chunkSize {
				t.Fatalf("%d entries: chunk %d of %d has %d bytes, want %d", i+1, c, len(m.chunks), cap(ch), chunkSize)
			}
			if cap(ch) == chunkSize && len(ch) > 0 {
				if p, ok := first[c]; !ok {
					first[c] = &ch[0]
				} else if p != &ch[0] {
					t.Fatalf("%d entries: chunk %d moved", i+1, c)
				}
			}
		}
		if slack := m.room - m.used; slack > chunkSize+len(m.chunks)*entrySize(key, val, false) {
			t.Fatalf("%d entries: %d bytes of entries in %d chunks of %d bytes", i+1, m.used, len(m.chunks), m.room)
		}
	}
	if len(m.chunks) < 20 || m.dead != 0 {
		t.Fatalf("%d chunks, %d dead bytes: want 20 or more, none dead", len(m.chunks), m.dead)
	}
}
