package join_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkRegularJoin runs an inner join of (k BIGINT, v STRING) rows on
// k, batches of 512 rows alternating between the inputs; keys is the
// number of distinct keys, so each row finds about rows/keys matches of
// the other input once the state fills. It reports the cost per input row
// and the state's bytes per kept row.
func BenchmarkRegularJoin(b *testing.B) {
	for _, keys := range []int{100_000, 1_000_000} {
		b.Run("keys="+strconv.Itoa(keys), func(b *testing.B) {
			tk := streamtest.Open(b, join.New(kv(join.Inner)), streamtest.Options{})
			batch := make([]types.Row, 512)
			for i := range batch {
				batch[i] = types.Row{Fields: []types.Value{{}, types.Str("value-" + strconv.Itoa(i%97))}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for i := 0; i < b.N; i += len(batch) {
				for j := range batch {
					batch[j].Fields[0] = types.Int64(int64((n * 7919) % keys))
					n++
				}
				tk.ProcessInput((i/len(batch))%2, batch...)
				tk.Take()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/row")
			b.ReportMetric(float64(tk.State().Stats().Bytes)/float64(max(n, 1)), "state-B/row")
		})
	}
}

// BenchmarkIntervalJoin runs an inner interval join (l.t BETWEEN r.t - 1 s
// AND r.t + 1 s) on 10,000 keys, rows in time order 1 ms apart, the
// watermark following them: the state stays about 2 s of rows.
func BenchmarkIntervalJoin(b *testing.B) {
	tk := streamtest.Open(b, join.NewInterval(kt(join.Inner, -time.Second, time.Second)), streamtest.Options{})
	batch := make([]types.Row, 512)
	for i := range batch {
		batch[i] = types.Row{Fields: []types.Value{{}, {}}}
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := int64(0)
	for i := 0; i < b.N; i += len(batch) {
		for j := range batch {
			batch[j].Fields[0] = types.Int64((n * 7919) % 10_000)
			batch[j].Fields[1] = at(n)
			n++
		}
		tk.ProcessInput((i/len(batch))%2, batch...)
		tk.Watermark(n - 100)
		tk.Take()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/row")
}
