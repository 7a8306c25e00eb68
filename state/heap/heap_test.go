package heap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/statetest"
	"github.com/streamsql/streamsql/types"
)

func TestConformance(t *testing.T) {
	statetest.Run(t, statetest.Harness{Kind: Kind{}})
}

func TestRegistered(t *testing.T) {
	for _, name := range []string{"heap", "hashmap"} {
		k, ok := state.Lookup(name)
		if !ok || k.Name() != Name {
			t.Errorf("Lookup(%q) = %v, %v", name, k, ok)
		}
	}
}

func openTest(t *testing.T, cfg state.Config) *Backend {
	t.Helper()
	if cfg.KeyGroups.Len() == 0 {
		cfg.KeyGroups = state.KeyGroupRange{Start: 0, End: state.DefaultMaxParallelism}
	}
	if cfg.MaxParallelism == 0 {
		cfg.MaxParallelism = state.DefaultMaxParallelism
	}
	b, err := Open(context.Background(), cfg)
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

func TestMemoryLimit(t *testing.T) {
	b := openTest(t, state.Config{Operator: "vertex 'GroupAggregate[3]' task 1", MemoryLimit: 1 << 20})
	tab := b.Value("acc")
	var err error
	for i := int64(0); err == nil && i < 1_000_000; i++ {
		k, kg := bigintKey(i)
		err = tab.Put(kg, k, []byte("0123456789"))
	}
	if !errors.Is(err, state.ErrMemoryLimit) {
		t.Fatalf("1e6 writes under a 1 MiB limit: %v, want ErrMemoryLimit", err)
	}
	for _, want := range []string{"vertex 'GroupAggregate[3]' task 1", "rocksdb", "raise"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	if st := b.Stats(); st.Bytes < 1<<20 || st.Bytes > 3<<20 {
		t.Errorf("Stats.Bytes = %d at the limit of 1 MiB", st.Bytes)
	}
}

// TestStatsBytesTracksMemory checks that Stats.Bytes is near the live heap
// the state takes, so that the memory limit means what it says.
func TestStatsBytesTracksMemory(t *testing.T) {
	before := liveHeap()
	b := openTest(t, state.Config{})
	fillAccumulators(t, b, 200_000)
	used := liveHeap() - before
	st := b.Stats()
	if ratio := float64(st.Bytes) / float64(used); ratio < 0.8 || ratio > 1.25 {
		t.Fatalf("Stats.Bytes = %d, live heap grew by %d (ratio %.2f)", st.Bytes, used, ratio)
	}
	if st.Entries != 200_000 {
		t.Fatalf("Stats.Entries = %d", st.Entries)
	}
}

// TestStatsBytesTracksChunks is TestStatsBytesTracksMemory for tables of
// many chunks: one key group's value table and map table's key index, with
// a few entries larger than a chunk.
func TestStatsBytesTracksChunks(t *testing.T) {
	before := liveHeap()
	b := openTest(t, state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 1}, MaxParallelism: 1})
	val := bytes.Repeat([]byte{'v'}, 3*chunkSize/2)
	for i := range 30000 {
		k := fmt.Appendf(nil, "key-%d", i)
		n := 200
		if i%1000 == 0 {
			n = len(val)
		}
		if err := b.Value("v").Put(0, k, val[:n]); err != nil {
			t.Fatal(err)
		}
		if err := b.Map("m").Put(0, k, []byte("s"), val[:n]); err != nil {
			t.Fatal(err)
		}
	}
	used := liveHeap() - before
	st := b.Stats()
	if ratio := float64(st.Bytes) / float64(used); ratio < 0.8 || ratio > 1.25 {
		t.Fatalf("Stats.Bytes = %d, live heap grew by %d (ratio %.2f)", st.Bytes, used, ratio)
	}
	if n := len(b.tables["v"].vals[0].chunks); n < 50 {
		t.Fatalf("the value table has %d chunks, want many", n)
	}
}

func TestRestoreRejectsDamage(t *testing.T) {
	files := statetest.NewMemFiles()
	b := openTest(t, state.Config{})
	fillAccumulators(t, b, 10_000)
	s, err := b.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Write(context.Background(), files, "chk-1/")
	s.Release()
	if err != nil {
		t.Fatal(err)
	}
	name := h.Files[0].Name
	good := files.Bytes(name)
	restore := func() error {
		_, err := Open(context.Background(), state.Config{
			KeyGroups: state.KeyGroupRange{Start: 0, End: 128}, MaxParallelism: 128,
			Restore: []state.Handle{h}, Files: files,
		})
		return err
	}
	if err := restore(); err != nil {
		t.Fatalf("restore of the intact file: %v", err)
	}
	for _, off := range []int{3, 12, len(good) / 3, len(good) / 2, len(good) - 3} {
		bad := append([]byte(nil), good...)
		bad[off] ^= 0x10
		files.Replace(name, bad)
		if err := restore(); err == nil {
			t.Errorf("a file with byte %d of %d damaged restored", off, len(good))
		}
	}
	for _, n := range []int{0, 20, len(good) / 2, len(good) - 1} {
		files.Replace(name, good[:n])
		if err := restore(); !errors.Is(err, state.ErrCorrupt) {
			t.Errorf("a file cut to %d of %d bytes: %v, want ErrCorrupt", n, len(good), err)
		}
	}
	files.Replace(name, good)
	_, err = Open(context.Background(), state.Config{
		KeyGroups: state.KeyGroupRange{Start: 0, End: 256}, MaxParallelism: 256,
		Restore: []state.Handle{h}, Files: files,
	})
	if err == nil || !strings.Contains(err.Error(), "max-parallelism") {
		t.Errorf("restore with 256 key groups of state written with 128: %v", err)
	}
}

// accTypes are a COUNT and a SUM accumulator.
var accTypes = []types.Type{types.BigInt().NotNullable(), types.BigInt()}

// fillAccumulators writes n COUNT/SUM accumulators over BIGINT keys, as a
// GROUP BY k with COUNT(*), SUM(v) keeps them.
func fillAccumulators(tb testing.TB, b *Backend, n int) {
	tab := b.Value("acc")
	acc := make([]types.Value, 2)
	var val []byte
	for i := range n {
		k, kg := bigintKey(int64(i) * 7919)
		acc[0], acc[1] = types.Int64(int64(i%50+1)), types.Int64(int64(i)*13)
		val = state.AppendRow(val[:0], acc, accTypes)
		if err := tab.Put(kg, k, val); err != nil {
			tb.Fatal(err)
		}
	}
}

// chunkedTable is one table of TestSnapshotOfChunkedTables.
type chunkedTable struct {
	put func(b *Backend, k, v []byte) error
	del func(b *Backend, k []byte) error
	get func(b *Backend, k []byte) ([]byte, bool, error)
}

// TestSnapshotOfChunkedTables: tables of one key group that take many
// chunks, some entries larger than a chunk, in a value table with and
// without a TTL and a map table's key index: a snapshot cut before more
// writes restores what was there at the cut, and the live tables hold
// what was written after it.
func TestSnapshotOfChunkedTables(t *testing.T) {
	b := openTest(t, state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 1}, MaxParallelism: 1})
	value := func(name string, opts ...state.TableOption) chunkedTable {
		return chunkedTable{
			func(b *Backend, k, v []byte) error { return b.Value(name, opts...).Put(0, k, v) },
			func(b *Backend, k []byte) error { return b.Value(name, opts...).Delete(0, k) },
			func(b *Backend, k []byte) ([]byte, bool, error) { return b.Value(name, opts...).Get(0, k) },
		}
	}
	tabs := []chunkedTable{value("v"), value("t", state.TTL(time.Hour)), {
		func(b *Backend, k, v []byte) error { return b.Map("m").Put(0, k, []byte("s"), v) },
		func(b *Backend, k []byte) error { return b.Map("m").Delete(0, k, []byte("s")) },
		func(b *Backend, k []byte) ([]byte, bool, error) { return b.Map("m").Get(0, k, []byte("s")) },
	}}
	r := rand.New(rand.NewPCG(3, 4))
	models := make([]map[string][]byte, len(tabs))
	for i := range models {
		models[i] = map[string][]byte{}
	}
	write := func(steps int) {
		t.Helper()
		for step := range steps {
			i := r.IntN(len(tabs))
			k := []byte(fmt.Sprint("key-", r.IntN(2000)))
			if r.IntN(8) == 0 {
				if err := tabs[i].del(b, k); err != nil {
					t.Fatal(err)
				}
				delete(models[i], string(k))
				continue
			}
			n := r.IntN(400)
			if r.IntN(60) == 0 {
				n = chunkSize + r.IntN(chunkSize)
			}
			v := bytes.Repeat([]byte{byte(step)}, n)
			if err := tabs[i].put(b, k, v); err != nil {
				t.Fatal(err)
			}
			models[i][string(k)] = v
		}
	}
	check := func(what string, b *Backend, models []map[string][]byte) {
		t.Helper()
		for i, m := range models {
			for k := range 2000 {
				key := fmt.Sprint("key-", k)
				got, ok, err := tabs[i].get(b, []byte(key))
				if want, in := m[key]; err != nil || ok != in || !bytes.Equal(got, want) {
					t.Fatalf("%s: table %d key %s: %d bytes, %v, %v; want %d, %v", what, i, key, len(got), ok, err, len(want), in)
				}
			}
		}
	}
	write(20000)
	if n := len(b.tables["v"].vals[0].chunks); n < 10 {
		t.Fatalf("the value table has %d chunks, want many", n)
	}
	cut := make([]map[string][]byte, len(models))
	for i, m := range models {
		cut[i] = maps.Clone(m)
	}
	s, err := b.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	write(20000)
	files := statetest.NewMemFiles()
	h, err := s.Write(context.Background(), files, "chk-1/")
	s.Release()
	if err != nil {
		t.Fatal(err)
	}
	check("live", b, models)
	r2, err := Open(context.Background(), state.Config{
		KeyGroups: state.KeyGroupRange{Start: 0, End: 1}, MaxParallelism: 1,
		Restore: []state.Handle{h}, Files: files,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	check("restored", r2, cut)
}
