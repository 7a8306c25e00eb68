package heap

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/statetest"
	"github.com/streamsql/streamsql/types"
)

func liveHeap() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkBytesPerKey measures the live heap per key of a COUNT/SUM
// accumulator over a BIGINT key, 10^6 keys (target: at most 64 bytes).
func BenchmarkBytesPerKey(b *testing.B) {
	const n = 1_000_000
	for b.Loop() {
		before := liveHeap()
		be, err := Open(context.Background(), state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 128}, MaxParallelism: 128})
		if err != nil {
			b.Fatal(err)
		}
		fillAccumulators(b, be, n)
		used := liveHeap() - before
		b.ReportMetric(float64(used)/n, "heap-bytes/key")
		b.ReportMetric(float64(be.Stats().Bytes)/n, "stats-bytes/key")
		runtime.KeepAlive(be)
		be.Close()
	}
}

// BenchmarkAccumulate is the aggregation's access pattern: Get the
// accumulator, update it, Put it back, over 10^6 keys.
func BenchmarkAccumulate(b *testing.B) {
	const n = 1_000_000
	be := openTest(&testing.T{}, state.Config{})
	fillAccumulators(b, be, n)
	tab := be.Value("acc")
	keys := make([][]byte, 4096)
	kgs := make([]int, len(keys))
	for i := range keys {
		keys[i], kgs[i] = bigintKey(int64((i*2654435761)%n) * 7919)
	}
	acc := make([]types.Value, 0, 2)
	var val []byte
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	c0 := cpuTime()
	for b.Loop() {
		k, kg := keys[i%len(keys)], kgs[i%len(keys)]
		i++
		v, ok, err := tab.Get(kg, k)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		acc, _, err = state.ReadRow(v, accTypes, acc[:0])
		if err != nil {
			b.Fatal(err)
		}
		acc[0], acc[1] = types.Int64(acc[0].Int64()+1), types.Int64(acc[1].Int64()+5)
		val = state.AppendRow(val[:0], acc, accTypes)
		if err := tab.Put(kg, k, val); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkSnapshot measures the cut (in the task's goroutine) and the
// write of a snapshot of 10^6 accumulators.
func BenchmarkSnapshot(b *testing.B) {
	const n = 1_000_000
	be := openTest(&testing.T{}, state.Config{})
	fillAccumulators(b, be, n)
	files := statetest.NewMemFiles()
	var cut, write int64
	var size int64
	id := int64(0)
	for b.Loop() {
		id++
		t0 := nanotime()
		s, err := be.Snapshot(id)
		if err != nil {
			b.Fatal(err)
		}
		t1 := nanotime()
		h, err := s.Write(context.Background(), files, "chk/"+string(rune('a'+id%26))+string(rune('a'+id/26%26))+"/")
		if err != nil {
			b.Fatal(err)
		}
		t2 := nanotime()
		s.Release()
		files.Delete(h.Files[0].Name)
		cut += t1 - t0
		write += t2 - t1
		size = h.Files[0].Size
	}
	b.ReportMetric(float64(cut)/float64(b.N)/1e3, "cut-µs")
	b.ReportMetric(float64(write)/float64(b.N)/1e6, "write-ms")
	b.ReportMetric(float64(size)/n, "file-bytes/key")
	b.ReportMetric(float64(size)/(float64(write)/float64(b.N)/1e9)/(1<<20), "write-MiB/s")
}

// BenchmarkRestore measures a restore of 10^6 accumulators.
func BenchmarkRestore(b *testing.B) {
	const n = 1_000_000
	be := openTest(&testing.T{}, state.Config{})
	fillAccumulators(b, be, n)
	files := statetest.NewMemFiles()
	s, _ := be.Snapshot(1)
	h, err := s.Write(context.Background(), files, "chk/")
	if err != nil {
		b.Fatal(err)
	}
	s.Release()
	c0 := cpuTime()
	for b.Loop() {
		r, err := Open(context.Background(), state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 128}, MaxParallelism: 128, Restore: []state.Handle{h}, Files: files})
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkFirstWritesAfterCut measures the copy-on-write cost: the first
// write to each key group after a cut copies the group's table.
func BenchmarkFirstWritesAfterCut(b *testing.B) {
	const n = 1_000_000
	be := openTest(&testing.T{}, state.Config{})
	fillAccumulators(b, be, n)
	tab := be.Value("acc")
	val := state.AppendRow(nil, []types.Value{types.Int64(1), types.Int64(2)}, accTypes)
	id := int64(0)
	for b.Loop() {
		id++
		s, _ := be.Snapshot(id)
		for kg := range 128 { // one write per key group: every group is copied
			k := []byte{byte(kg), 0xee}
			if err := tab.Put(kg, k, val); err != nil {
				b.Fatal(err)
			}
		}
		s.Release()
	}
}

func nanotime() int64 { return time.Now().UnixNano() }

// cpuTime returns the process's user and system CPU time in nanoseconds:
// on a shared machine, CPU per operation says more than wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkListAppend appends Nexmark-bid-sized rows (~100 bytes of random
// letters) to 10,000 keys of 128 key groups, in memory, packed, or
// spilled from the first sealed chunk on: the cost per row of sealing.
func BenchmarkListAppend(b *testing.B) {
	for _, mode := range []string{"memory", "packed", "spilled"} {
		b.Run(mode, func(b *testing.B) {
			cfg := state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 128}, MaxParallelism: 128}
			switch mode {
			case "packed":
				cfg.CompressLists = true
			case "spilled":
				cfg.Dir, cfg.SpillThreshold = b.TempDir(), 1
			}
			be, err := Open(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer be.Close()
			l := be.List("bids")
			r := rand.New(rand.NewPCG(1, 2))
			rows := make([][]byte, 1024)
			for i := range rows {
				rows[i] = make([]byte, 100)
				for j := range rows[i] {
					rows[i][j] = byte('a' + r.IntN(26))
				}
			}
			keys := make([][]byte, 10000)
			for i := range keys {
				keys[i] = fmt.Appendf(nil, "auction-%d", i)
			}
			b.SetBytes(100)
			b.ResetTimer()
			for i := range b.N {
				k := i % len(keys)
				if err := l.Append(k%128, keys[k], rows[i%len(rows)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
