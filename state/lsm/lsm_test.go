package lsm

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/statetest"
	"github.com/streamsql/streamsql/types"
)

func TestConformance(t *testing.T) {
	h := statetest.Harness{Kind: Kind{}, SweepWrites: 200, SnapshotsKeepExpired: true}
	if raceEnabled {
		h.Scale = 0.2
	}
	statetest.Run(t, h)
}

func TestRegistered(t *testing.T) {
	for _, name := range []string{"pebble", "rocksdb"} {
		k, ok := state.Lookup(name)
		if !ok || k.Name() != Name {
			t.Errorf("Lookup(%q) = %v, %v", name, k, ok)
		}
	}
}

func open(t testing.TB, files state.Files, memory int64, restore ...state.Handle) *Backend {
	t.Helper()
	b, err := Open(context.Background(), state.Config{
		Operator:       "test",
		KeyGroups:      state.KeyGroupRange{Start: 0, End: state.DefaultMaxParallelism},
		MaxParallelism: state.DefaultMaxParallelism,
		Restore:        restore,
		Files:          files,
		Dir:            t.TempDir(),
		MemoryLimit:    memory,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func bigintKey(i int64) ([]byte, int) {
	k := state.AppendKeyValue(nil, types.Int64(i), types.BigInt())
	return k, state.KeyGroupOf(k, state.DefaultMaxParallelism)
}

// noise is incompressible bytes for values.
var noise = func() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}()

// put writes keys [from, to) with values of n bytes that name them (then
// incompressible bytes).
func put(t testing.TB, b *Backend, from, to, n int) {
	t.Helper()
	tab := b.Value("v")
	val := make([]byte, n)
	for i := from; i < to; i++ {
		k, kg := bigintKey(int64(i))
		off := (i * 7919) % (len(noise) - n)
		copy(val, noise[off:off+n])
		copy(val, fmt.Sprintf("%08d", i))
		if err := tab.Put(kg, k, val); err != nil {
			t.Fatal(err)
		}
	}
}

// check reads keys [from, to) back.
func check(t *testing.T, b *Backend, from, to int) {
	t.Helper()
	tab := b.Value("v")
	for i := from; i < to; i++ {
		k, kg := bigintKey(int64(i))
		v, ok, err := tab.Get(kg, k)
		if err != nil || !ok || string(v[:8]) != fmt.Sprintf("%08d", i) {
			t.Fatalf("key %d: %q, %v, %v", i, v, ok, err)
		}
	}
	if st := b.Stats(); st.Entries != int64(to-from) {
		t.Fatalf("Stats.Entries = %d, want %d", st.Entries, to-from)
	}
}

func cut(t *testing.T, b *Backend, files state.Files, id int64) state.Handle {
	t.Helper()
	s, err := b.Snapshot(id)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	h, err := s.Write(context.Background(), files, fmt.Sprintf("chk-%d/", id))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestIncrementalCheckpoints checks that a checkpoint uploads only the SSTs
// no earlier one did, lists the shared ones under their first names, and
// restores from its own files alone (those of older checkpoints pruned).
func TestIncrementalCheckpoints(t *testing.T) {
	files := statetest.NewMemFiles()
	b := open(t, files, 4<<20) // 1 MiB memtables: many SSTs
	put(t, b, 0, 12_000, 500)
	// Settle the tree (as a large state's bottom levels are), so that what
	// checkpoint 1 holds is still there at checkpoint 2.
	if err := b.db.Compact(context.Background(), []byte{0}, []byte{0xff, 0xff}, false); err != nil {
		t.Fatal(err)
	}
	h1 := cut(t, b, files, 1)
	puts1 := files.Puts()
	put(t, b, 12_000, 12_200, 500)
	h2 := cut(t, b, files, 2)
	uploaded := files.Puts() - puts1
	shared := 0
	for _, f := range h2.Files {
		if strings.HasPrefix(f.Name, "chk-1/") {
			shared++
			if !strings.HasSuffix(f.Name, ".sst") {
				t.Errorf("checkpoint 2 shares %s, which is not an SST", f.Name)
			}
		}
	}
	if shared == 0 || uploaded+shared != len(h2.Files) {
		t.Fatalf("checkpoint 2 lists %d files, %d shared with checkpoint 1 and %d uploaded", len(h2.Files), shared, uploaded)
	}
	t.Logf("checkpoint 1: %d files; checkpoint 2: %d files, %d shared, %d uploaded", len(h1.Files), len(h2.Files), shared, uploaded)
	// Prune: only checkpoint 2 is retained.
	keep := map[string]bool{}
	for _, f := range h2.Files {
		keep[f.Name] = true
	}
	for _, n := range files.Names() {
		if !keep[n] {
			files.Delete(n)
		}
	}
	// The restored backend's next checkpoint shares the SSTs it restored
	// (unless compactions rewrote them: none here).
	r, err := openWith(context.Background(), state.Config{
		KeyGroups: state.KeyGroupRange{Start: 0, End: 128}, MaxParallelism: 128,
		Restore: []state.Handle{h2}, Files: files, Dir: t.TempDir(), MemoryLimit: 4 << 20,
	}, func(o *pebble.Options) { o.DisableAutomaticCompactions = true })
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	puts2 := files.Puts()
	h3 := cut(t, r, files, 3)
	reused := 0
	for _, f := range h3.Files {
		if keep[f.Name] && strings.HasSuffix(f.Name, ".sst") {
			reused++
		}
	}
	if reused != shared+1 || files.Puts()-puts2+reused != len(h3.Files) { // checkpoint 2's SSTs: those it shared and its own
		t.Fatalf("checkpoint 3 after the restore lists %d files, %d of checkpoint 2's SSTs, uploaded %d", len(h3.Files), reused, files.Puts()-puts2)
	}
	check(t, r, 0, 12_200)
	// A file missing fails the restore.
	files.Delete(h3.Files[0].Name)
	if _, err := Open(context.Background(), state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 128}, MaxParallelism: 128, Restore: []state.Handle{h3}, Files: files, Dir: t.TempDir()}); err == nil {
		t.Fatal("a restore with a file missing succeeded")
	}
}

// TestMemoryStaysFlat writes state to several times the memory budget
// (cache and memtables, from MemoryLimit) and checks that the process's
// resident memory does not grow with it.
func TestMemoryStaysFlat(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory grows the RSS with every allocation; scripts/test.sh runs this test without -race")
	}
	budget, value, warm, total := int64(16<<20), 2000, 20_000, 80_000 // 40 MB to warm up, then 160 MB: 10× the budget
	files := statetest.NewMemFiles()
	b := open(t, files, budget)
	put(t, b, 0, warm, value) // the cache and memtables fill
	runtime.GC()
	base := rss(t)
	step := (total - warm) / 6
	for from := warm; from < total; from += step {
		put(t, b, from, min(from+step, total), value)
		runtime.GC()
		t.Logf("%d keys: %.0f MiB on disk, RSS %.0f MiB", min(from+step, total), float64(b.Stats().Bytes)/(1<<20), float64(rss(t))/(1<<20))
	}
	grown := rss(t) - base
	disk := b.Stats().Bytes
	if disk < 6*budget {
		t.Fatalf("the state takes %d bytes on disk, less than 6× the budget: the test proves nothing", disk)
	}
	if grown > budget {
		t.Fatalf("RSS grew by %.0f MiB while the state grew to %.0f MiB on disk (budget %d MiB)", float64(grown)/(1<<20), float64(disk)/(1<<20), budget>>20)
	}
}

// rss returns the process's resident set size.
func rss(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
