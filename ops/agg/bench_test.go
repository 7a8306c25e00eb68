package agg_test

import (
	"strconv"
	"testing"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkGroupAggregate runs COUNT(*) and SUM(v) GROUP BY k (BIGINT keys)
// over batches of 512 rows; keys is the number of distinct keys.
func BenchmarkGroupAggregate(b *testing.B) {
	for _, keys := range []int{1_000, 100_000} {
		b.Run("keys="+strconv.Itoa(keys), func(b *testing.B) {
			spec := agg.Spec{Keys: []int{0}, KeyTypes: []types.Type{types.BigInt()},
				Calls: []agg.Call{
					{Func: agg.Count, Arg: -1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt().NotNullable()},
					{Func: agg.Sum, Arg: 1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt()},
				}}
			tk := streamtest.Open(b, agg.NewGroupAggregate(spec), streamtest.Options{})
			batch := make([]types.Row, 512)
			for i := range batch {
				batch[i] = types.Row{Fields: []types.Value{{}, types.Int64(int64(i))}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for i := 0; i < b.N; i += len(batch) {
				for j := range batch {
					batch[j].Fields[0] = types.Int64(int64((n * 7919) % keys))
					n++
				}
				tk.Process(batch...)
				tk.Take()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/row")
		})
	}
}
