package over_test

import (
	"strconv"
	"syscall"
	"testing"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/over"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkUpdatingOver runs an OVER over an updating input the way
// Nexmark q6 feeds it — AVG(price) OVER (PARTITION BY seller ORDER BY t
// ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) over (seller, price, t), heap
// state — at a steady size of rows per partition: each input row is half
// of an update pair that takes back one of a partition's newest rows and
// puts a higher price at the partition's newest time (a Top-1's better
// bid). 100 partitions; per-row figures.
func BenchmarkUpdatingOver(b *testing.B) {
	bigint := types.BigInt()
	ts := []types.Type{bigint, bigint, bigint}
	res, err := agg.ResultType(agg.Avg, bigint, true)
	if err != nil {
		b.Fatal(err)
	}
	calls := []agg.Call{{Func: agg.Avg, Arg: 1, Filter: -1, ArgType: bigint, Result: res.Nullable()}}
	const parts = 100
	for _, size := range []int{100, 1000} {
		b.Run("rows="+strconv.Itoa(size), func(b *testing.B) {
			spec := over.Spec{Types: ts, Partition: []int{0}, Time: -1, Updating: true, Order: 2, UpdateBefore: true,
				Frame: over.Frame{Rows: true, PrecedingRows: 10}, Calls: calls}
			tk := streamtest.Open(b, over.New(spec), streamtest.Options{})
			// Each partition's newest row, which the next update replaces.
			last := make([][3]int64, parts)
			now := int64(0)
			for i := range size * parts {
				p := int64(i % parts)
				now++
				last[p] = [3]int64{p, now % 997, now}
				tk.Process(types.Row{Kind: types.Insert, Fields: []types.Value{types.Int64(p), types.Int64(now % 997), types.Int64(now)}})
				tk.Take()
			}
			batch := make([]types.Row, 0, 512)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i += 2 {
				p := int64(i/2) % parts
				old := last[p]
				now++
				nw := [3]int64{p, old[1] + 1, now}
				batch = append(batch,
					types.Row{Kind: types.UpdateBefore, Fields: []types.Value{types.Int64(old[0]), types.Int64(old[1]), types.Int64(old[2])}},
					types.Row{Kind: types.UpdateAfter, Fields: []types.Value{types.Int64(nw[0]), types.Int64(nw[1]), types.Int64(nw[2])}})
				last[p] = nw
				if len(batch) == cap(batch) || i+2 >= b.N {
					tk.Process(batch...)
					tk.Take()
					batch = batch[:0]
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/row")
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/row")
		})
	}
}

// cpuTime returns the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
