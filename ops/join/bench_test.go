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

// BenchmarkJoinConditionWide runs a Nexmark-q9-shaped inner join: an
// auction (10 columns) per key, then bids (5 columns) that each find it,
// with the condition bid.dateTime BETWEEN auction.dateTime AND
// auction.expires; "all" hands the condition every column of each pair,
// "read" the three it reads (Spec.ConditionColumns).
func BenchmarkJoinConditionWide(b *testing.B) {
	auctionTs := []types.Type{bigint, str, str, bigint, bigint, bigint, bigint, bigint, bigint, str}
	bidTs := []types.Type{bigint, bigint, bigint, bigint, str}
	for _, read := range []bool{false, true} {
		name := "all"
		if read {
			name = "read"
		}
		b.Run(name, func(b *testing.B) {
			spec := join.Spec{Type: join.Inner, KeyTypes: []types.Type{bigint},
				Left:  join.Side{Types: auctionTs, Keys: []int{0}, InsertOnly: true},
				Right: join.Side{Types: bidTs, Keys: []int{0}, InsertOnly: true},
				NewCondition: func() join.Condition {
					return func(row []types.Value) (bool, error) {
						t := row[10+3].Int64()
						return t >= row[5].Int64() && t <= row[6].Int64(), nil
					}
				}}
			if read {
				spec.ConditionColumns = []int{5, 6, 13}
			}
			tk := streamtest.Open(b, join.New(spec), streamtest.Options{})
			const auctions = 100
			for a := range auctions {
				tk.ProcessInput(0, types.Row{Fields: []types.Value{types.Int64(int64(a)), types.Str("item"), types.Str("a description of the item"),
					types.Int64(100), types.Int64(200), types.Int64(0), types.Int64(1 << 40), types.Int64(7), types.Int64(10), types.Str("extra extra extra")}})
			}
			tk.Take()
			batch := make([]types.Row, 512)
			for i := range batch {
				batch[i] = types.Row{Fields: []types.Value{{}, types.Int64(3), types.Int64(int64(i)), types.Int64(int64(i)), types.Str("bid extra")}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for i := 0; i < b.N; i += len(batch) {
				for j := range batch {
					batch[j].Fields[0] = types.Int64(int64((n * 7919) % auctions))
					n++
				}
				tk.ProcessInput(1, batch...)
				tk.Take()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/row")
		})
	}
}
