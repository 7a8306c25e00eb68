package lsm

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/statetest"
	"github.com/streamsql/streamsql/types"
)

// cpuTime returns the process's user and system CPU time in nanoseconds:
// on a shared machine, CPU per operation says more than wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// accTypes are a COUNT and a SUM accumulator.
var accTypes = []types.Type{types.BigInt().NotNullable(), types.BigInt()}

// fillAccumulators writes n COUNT/SUM accumulators over BIGINT keys, as a
// GROUP BY k with COUNT(*), SUM(v) keeps them (the heap backend's
// benchmarks write the same).
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

// BenchmarkAccumulate is the aggregation's access pattern: Get the
// accumulator, update it, Put it back, over 10^6 keys.
func BenchmarkAccumulate(b *testing.B) {
	const n = 1_000_000
	be := open(b, statetest.NewMemFiles(), 0)
	fillAccumulators(b, be, n)
	tab := be.Value("acc")
	acc := make([]types.Value, 0, 2)
	var val []byte
	b.ReportAllocs()
	c0 := cpuTime()
	i := 0
	for b.Loop() {
		k, kg := bigintKey(int64((i*2654435761)%n) * 7919)
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

// BenchmarkSnapshot measures, for 10^6 accumulators, the cut in the task's
// goroutine, a full write (the first checkpoint) and an incremental one
// after 1% of the keys changed, and the state's bytes per key on disk.
func BenchmarkSnapshot(b *testing.B) {
	const n = 1_000_000
	be := open(b, statetest.NewMemFiles(), 0)
	fillAccumulators(b, be, n)
	if err := be.db.Compact(context.Background(), []byte{0}, []byte{0xff, 0xff}, false); err != nil {
		b.Fatal(err)
	}
	var cut, full, incr time.Duration
	var fullSize, incrSize int64
	id := int64(0)
	for b.Loop() {
		files := statetest.NewMemFiles()
		be.upMu.Lock()
		be.uploaded = map[string]state.FileRef{} // every round starts with a full checkpoint
		be.upMu.Unlock()
		for round := range 2 {
			if round == 1 {
				for i := 0; i < n; i += 100 {
					k, kg := bigintKey(int64(i) * 7919)
					if err := be.Value("acc").Put(kg, k, []byte{0, 2, 4}); err != nil {
						b.Fatal(err)
					}
				}
			}
			id++
			t0 := time.Now()
			s, err := be.Snapshot(id)
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			before := files.Size()
			if _, err := s.Write(context.Background(), files, fmt.Sprintf("chk-%d/", id)); err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			s.Release()
			cut += t1.Sub(t0)
			if round == 0 {
				full += t2.Sub(t1)
				fullSize = files.Size() - before
			} else {
				incr += t2.Sub(t1)
				incrSize = files.Size() - before
			}
		}
	}
	rounds := float64(b.N)
	b.ReportMetric(float64(cut.Microseconds())/rounds/2, "cut-µs")
	b.ReportMetric(float64(full.Milliseconds())/rounds, "full-write-ms")
	b.ReportMetric(float64(incr.Milliseconds())/rounds, "incr-write-ms")
	b.ReportMetric(float64(fullSize)/n, "full-bytes/key")
	b.ReportMetric(float64(incrSize)/n, "incr-bytes/key")
	b.ReportMetric(float64(be.Stats().Bytes)/n, "disk-bytes/key")
}
