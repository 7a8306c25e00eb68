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

// BenchmarkGroupAggregateQ17 runs Nexmark q17's aggregate: GROUP BY
// auction (BIGINT) and day (STRING) of COUNT(*), three COUNT(*) FILTERs,
// MIN, MAX, AVG and SUM of the price, with UPDATE_BEFORE (as a sink that
// shows them asks), over rows shaped as the flow in front of it makes them
// (auction, day, the three filter flags, price), in batches of 512. One op
// is one row. keys=10000 cycles through 10,000 keys (every row misses the
// operator's cache of recent keys); keys=nexmark picks the auction as the
// Nexmark generator does (half the bids for the hot auction, the others
// for one of the last 100 auctions, 3 new auctions per 46 bids). The
// mini-batch variants fold each batch (Spec.MiniBatch, as the public
// suite's table.exec.mini-batch settings ask).
func BenchmarkGroupAggregateQ17(b *testing.B) {
	big := types.BigInt()
	count := func(filter int) agg.Call {
		return agg.Call{Func: agg.Count, Arg: -1, Filter: filter, ArgType: big, Result: big.NotNullable()}
	}
	price := func(f agg.Func) agg.Call { return agg.Call{Func: f, Arg: 5, Filter: -1, ArgType: big, Result: big} }
	spec := agg.Spec{Keys: []int{0, 1}, KeyTypes: []types.Type{big, types.String()}, UpdateBefore: true,
		Calls: []agg.Call{count(-1), count(2), count(3), count(4), price(agg.Min), price(agg.Max), price(agg.Avg), price(agg.Sum)}}
	for _, run := range []struct {
		keys      string
		miniBatch int
	}{{"10000", 0}, {"nexmark", 0}, {"10000", 50_000}, {"nexmark", 50_000}} {
		keys, spec := run.keys, spec
		spec.MiniBatch = run.miniBatch
		name := "keys=" + keys
		if run.miniBatch > 0 {
			name += "/mini-batch"
		}
		b.Run(name, func(b *testing.B) {
			tk := streamtest.Open(b, agg.NewGroupAggregate(spec), streamtest.Options{})
			days := []types.Value{types.Str("2024-01-01"), types.Str("2024-01-02")}
			batch := make([]types.Row, 512)
			for i := range batch {
				batch[i] = types.Row{Fields: make([]types.Value, 6)}
			}
			rnd := uint64(88172645463325252)
			next := func(n uint64) int64 { // xorshift64: [0, n)
				rnd ^= rnd << 13
				rnd ^= rnd >> 7
				rnd ^= rnd << 17
				return int64(rnd % n)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0, cpuOK := processCPUNanos()
			n := 0
			for i := 0; i < b.N; i += len(batch) {
				for j := range batch {
					p := int64((n * 7919) % 2_000_000)
					f := batch[j].Fields
					auction, day := int64((n*31)%5_000), days[n%2]
					if keys == "nexmark" {
						last := int64(n) * 3 / 46
						if next(2) > 0 {
							auction = last / 100 * 100
						} else {
							lo := max(last-100, 0)
							auction = lo + next(uint64(last-lo+1+10))
						}
						day = days[0]
					}
					f[0], f[1] = types.Int64(auction), day
					f[2], f[3], f[4] = types.Bool(p < 10_000), types.Bool(p >= 10_000 && p < 1_000_000), types.Bool(p >= 1_000_000)
					f[5] = types.Int64(p)
					n++
				}
				tk.Process(batch...)
				tk.Take()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/row")
			if cpu1, ok := processCPUNanos(); ok && cpuOK {
				// The process's CPU time (the collector's too): the machine's
				// cores are shared, and wall time includes waiting for them.
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/row")
			}
		})
	}
}

// BenchmarkGroupAggregateQ16 runs Nexmark q16's aggregate: GROUP BY
// channel and day of COUNT(*), three COUNT(*) FILTERs, and COUNT(DISTINCT)
// of bidder and of auction, each unfiltered and under the three filters,
// folded in mini-batches of 512 rows as the public suite's settings ask,
// over rows shaped as the flow in front of it makes them (channel, day, the
// three filter flags, bidder, auction). Half the bids go to four hot
// channels and the others to one of 10,000; bidders are drawn among the
// last 1,000 persons and auctions among the last 100 auctions of a stream
// with one person and three auctions per 46 bids, as the generator does.
// One op is one row.
func BenchmarkGroupAggregateQ16(b *testing.B) {
	big := types.BigInt()
	count := func(arg, filter int, distinct bool) agg.Call {
		return agg.Call{Func: agg.Count, Arg: arg, Filter: filter, Distinct: distinct, ArgType: big, Result: big.NotNullable()}
	}
	calls := []agg.Call{count(-1, -1, false), count(-1, 2, false), count(-1, 3, false), count(-1, 4, false)}
	for _, arg := range []int{5, 6} {
		calls = append(calls, count(arg, -1, true), count(arg, 2, true), count(arg, 3, true), count(arg, 4, true))
	}
	spec := agg.Spec{Keys: []int{0, 1}, KeyTypes: []types.Type{types.String(), types.String()}, Calls: calls, MiniBatch: 512}
	tk := streamtest.Open(b, agg.NewGroupAggregate(spec), streamtest.Options{})
	channels := make([]types.Value, 10_004)
	for i := range channels {
		channels[i] = types.Str("channel-" + strconv.Itoa(i))
	}
	for i, c := range []string{"Google", "Facebook", "Baidu", "Apple"} {
		channels[i] = types.Str(c)
	}
	day := types.Str("2024-01-01")
	batch := make([]types.Row, 512)
	for i := range batch {
		batch[i] = types.Row{Fields: make([]types.Value, 7)}
	}
	rnd := uint64(88172645463325252)
	next := func(n uint64) int64 { // xorshift64: [0, n)
		rnd ^= rnd << 13
		rnd ^= rnd >> 7
		rnd ^= rnd << 17
		return int64(rnd % n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, cpuOK := processCPUNanos()
	n := 0
	for i := 0; i < b.N; i += len(batch) {
		for j := range batch {
			f := batch[j].Fields
			c := 4 + next(10_000)
			if next(2) == 0 {
				c = next(4)
			}
			p := next(2_000_000)
			persons, auctions := int64(n)/46, int64(n)*3/46
			f[0], f[1] = channels[c], day
			f[2], f[3], f[4] = types.Bool(p < 10_000), types.Bool(p >= 10_000 && p < 1_000_000), types.Bool(p >= 1_000_000)
			f[5] = types.Int64(max(persons-next(1_000), 0))
			f[6] = types.Int64(max(auctions-next(100), 0))
			n++
		}
		tk.Process(batch...)
		tk.Take()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/row")
	if cpu1, ok := processCPUNanos(); ok && cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/row")
	}
}
