package heap

import (
	"context"
	"errors"
	"strings"
	"testing"

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
