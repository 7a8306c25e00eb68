package nexmark_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/types"
)

// TestRankingQueriesOverGenerator runs the public query files that rank —
// q9 (each auction's winning bid: a join, then a Top-1), q18 (each bidder's
// last bid on each auction: a deduplication) and q19 (each auction's ten
// highest bids: a Top-N with the row number) — unchanged, over the public
// generator table and views with 20,000 events, applies each query's
// changelog (the updates and deletes a Top-N emits) to a table, and checks
// the table against what the query means, computed from the generator's
// events directly: a batch oracle.
func TestRankingQueriesOverGenerator(t *testing.T) {
	const events = 20000
	defs := generatorDefs(t)
	run := generate(t, events, 10000, "2024-02-29 23:59:59", "11")
	vars, hints, bids, auctions := run.vars, run.hints, run.bids, run.auctionsByID()
	i64, str := types.Int64, types.Str
	ts := func(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }
	bigint, varchar, ts3 := types.BigInt(), types.String(), types.TimestampType(3)
	bidRow := func(b nexmark.Bid) []types.Value {
		return []types.Value{i64(b.Auction), i64(b.Bidder), i64(b.Price), str(b.Channel), str(b.URL), ts(b.DateTime), str(b.Extra)}
	}
	bidTypes := []types.Type{bigint, bigint, bigint, varchar, varchar, ts3, varchar}
	for _, q := range []struct {
		name  string
		types []types.Type
		// oracle returns the rows the query's result holds at the end.
		oracle func() [][]types.Value
	}{
		{"q18", bidTypes, func() [][]types.Value {
			// The last bid (by time; of equal times, the later) of each
			// bidder on each auction.
			type key struct{ bidder, auction int64 }
			last := map[key]nexmark.Bid{}
			for _, b := range bids {
				k := key{b.Bidder, b.Auction}
				if p, ok := last[k]; !ok || b.DateTime >= p.DateTime {
					last[k] = b
				}
			}
			var out [][]types.Value
			for _, b := range last {
				out = append(out, bidRow(b))
			}
			return out
		}},
		{"q19", append(slices.Clone(bidTypes), bigint), func() [][]types.Value {
			// The ten highest bids of each auction, ranked, ties in arrival
			// order.
			by := map[int64][]nexmark.Bid{}
			for _, b := range bids {
				by[b.Auction] = append(by[b.Auction], b)
			}
			var out [][]types.Value
			for _, bs := range by {
				slices.SortStableFunc(bs, func(a, b nexmark.Bid) int { return cmp.Compare(b.Price, a.Price) })
				for i, b := range bs[:min(10, len(bs))] {
					out = append(out, append(bidRow(b), i64(int64(i+1))))
				}
			}
			return out
		}},
		{"q9", []types.Type{bigint, varchar, varchar, bigint, bigint, ts3, ts3, bigint, bigint, varchar,
			bigint, bigint, bigint, ts3, varchar}, func() [][]types.Value {
			// Each auction with its winning bid among the bids within its
			// lifetime: the highest, of equal prices the earliest.
			best := map[int64]nexmark.Bid{}
			for _, b := range bids {
				a, ok := auctions[b.Auction]
				if !ok || b.DateTime < a.DateTime || b.DateTime > a.Expires {
					continue
				}
				if p, ok := best[a.ID]; !ok || b.Price > p.Price || b.Price == p.Price && b.DateTime < p.DateTime {
					best[a.ID] = b
				}
			}
			var out [][]types.Value
			for id, b := range best {
				a := auctions[id]
				out = append(out, []types.Value{i64(a.ID), str(a.ItemName), str(a.Description), i64(a.InitialBid), i64(a.Reserve),
					ts(a.DateTime), ts(a.Expires), i64(a.Seller), i64(a.Category), str(a.Extra),
					i64(b.Auction), i64(b.Bidder), i64(b.Price), ts(b.DateTime), str(b.Extra)})
			}
			return out
		}},
	} {
		t.Run(q.name, func(t *testing.T) {
			checkQueryOracle(t, q.name, defs, vars, hints, q.types, q.oracle)
		})
	}
}
