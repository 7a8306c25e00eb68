package rank_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/heap"
	"github.com/streamsql/streamsql/state/lsm"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkTopN runs a Top-N — ROW_NUMBER() OVER (PARTITION BY k ORDER BY
// v DESC) <= n over (k BIGINT, v BIGINT, payload STRING) inserts, heap
// state — over batches of 512 rows with random values, with the row number
// in the output (updates) and without (inserts and deletes); keys is the
// number of partitions.
func BenchmarkTopN(b *testing.B) {
	ts := []types.Type{types.BigInt(), types.BigInt(), types.String()}
	for _, c := range []struct {
		keys, n    int
		outputRank bool
	}{{1_000, 3, true}, {1_000, 3, false}, {100_000, 3, true}, {1_000, 100, true}} {
		b.Run("keys="+strconv.Itoa(c.keys)+"/n="+strconv.Itoa(c.n)+"/rank="+strconv.FormatBool(c.outputRank), func(b *testing.B) {
			spec := rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{{Col: 1, Desc: true, NullsLast: true}},
				Start: 1, End: int64(c.n), OutputRank: c.outputRank, UpdateBefore: true}
			tk := streamtest.Open(b, rank.NewTopN(spec), streamtest.Options{})
			rnd := rand.New(rand.NewPCG(1, 2))
			batch := make([]types.Row, 512)
			for i := range batch {
				batch[i] = types.Row{Fields: []types.Value{{}, {}, types.Str("payload-" + strconv.Itoa(i))}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i += len(batch) {
				for j := range batch {
					batch[j].Fields[0] = types.Int64(rnd.Int64N(int64(c.keys)))
					batch[j].Fields[1] = types.Int64(rnd.Int64N(1 << 30))
				}
				tk.Process(batch...)
				tk.Take()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/row")
			// CPU time, which a shared machine's load does not inflate as
			// it does the wall clock.
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

// BenchmarkNexmarkBids runs Nexmark's bid-shaped rows (auction, bidder,
// price, channel, url, dateTime, extra: about 150 encoded bytes) through
// q19's Top-N (the 10 highest prices per auction, with the row number,
// no UPDATE_BEFORE: a blackhole sink's) and q18's deduplication (the last
// row per bidder and auction by time), heap state: bids go to the 20
// newest auctions, about 15 per auction, prices at random, as the
// generator's do; q19 also on the disk backend. It reports CPU time per
// row.
func BenchmarkNexmarkBids(b *testing.B) {
	ts := []types.Type{types.BigInt(), types.BigInt(), types.BigInt(), types.String(), types.String(), types.TimestampType(3), types.String()}
	urls := make([]string, 64)
	for i := range urls {
		urls[i] = "https://www.nexmark.com/" + strings.Repeat("abcdefgh"[i%8:i%8+1], 20+i%7) + "/item.htm?query=1&channel_id=" + strconv.Itoa(i*7919)
	}
	for _, c := range []struct {
		q    string
		kind state.Kind
	}{{"q19", heap.Kind{}}, {"q18", heap.Kind{}}, {"q19-rocksdb", lsm.Kind{}}} {
		q := strings.TrimSuffix(c.q, "-rocksdb")
		b.Run(c.q, func(b *testing.B) {
			var f stream.Factory
			if q == "q19" {
				f = rank.NewTopN(rank.Spec{Types: ts, Partition: []int{0}, Order: []rank.SortKey{{Col: 2, Desc: true, NullsLast: true}},
					Start: 1, End: 10, OutputRank: true})
			} else {
				f = rank.NewDeduplicate(rank.DedupSpec{Types: ts, Partition: []int{1, 0}, Time: 5, KeepLast: true})
			}
			tk := streamtest.Open(b, f, streamtest.Options{Backend: c.kind})
			rnd := rand.New(rand.NewPCG(1, 2))
			rows := make([]types.Row, b.N)
			for n := range rows {
				auction := max(int64(n/15)-rnd.Int64N(20), 0)
				rows[n] = types.Row{Fields: []types.Value{types.Int64(1000 + auction), types.Int64(1000 + rnd.Int64N(int64(n/50+10))),
					types.Int64(rnd.Int64N(10_000_000)), types.Str("channel-" + strconv.Itoa(rnd.IntN(10_000))),
					types.Str(urls[rnd.IntN(len(urls))]), types.TimestampValue(types.Timestamp{Millis: int64(n)}),
					types.Str(strings.Repeat("x", rnd.IntN(40)))}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i += 512 {
				tk.Process(rows[i:min(i+512, b.N)]...)
				tk.Take()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/row")
		})
	}
}
