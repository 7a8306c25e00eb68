package nexmark_test

import (
	"cmp"
	"path/filepath"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/types"
)

// TestQ6OverGenerator runs Nexmark q6 as corrected (ddl/testdata/
// nexmark-corrected/q6.sql: the public file is not valid SQL; its README
// says what changed) over the public generator table and views with
// 30,000 events, in one task and in three: a join of auctions and the bids within their lifetime, a
// Top-1 (each auction's winning bid, which updates as higher bids come),
// then AVG over the last 11 winning bids of each seller (ROWS BETWEEN 10
// PRECEDING AND CURRENT ROW, ordered by the bid's time) — an OVER
// aggregate over the Top-1's updates, which Flink cannot run. It applies
// the changelog to a table and checks it against the query computed in
// batch from the generator's events: each auction's highest bid within its
// lifetime (of equal prices the first), then per seller, ordered by the
// bid's time and, of equal times, by price (the OVER's tie rule: the
// columns of its input, seller, price, dateTime), the integer average of
// each winning price and the 10 before it.
func TestQ6OverGenerator(t *testing.T) {
	const events = 30000
	defs := generatorDefs(t)
	run := generate(t, events, 10000, "2024-02-29 23:59:59", "17")
	vars, hints, bids, auctions := run.vars, run.hints, run.bids, run.auctionsByID()
	oracle := func() [][]types.Value {
		// The winning bid of each auction (the Top-1 keeps the first of
		// equal prices).
		best := map[int64]nexmark.Bid{}
		for _, b := range bids {
			a, ok := auctions[b.Auction]
			if !ok || b.DateTime < a.DateTime || b.DateTime > a.Expires {
				continue
			}
			if p, ok := best[a.ID]; !ok || b.Price > p.Price {
				best[a.ID] = b
			}
		}
		bySeller := map[int64][]nexmark.Bid{}
		for id, b := range best {
			s := auctions[id].Seller
			bySeller[s] = append(bySeller[s], b)
		}
		var out [][]types.Value
		long := 0
		for s, bs := range bySeller {
			slices.SortFunc(bs, func(x, y nexmark.Bid) int {
				return cmp.Or(cmp.Compare(x.DateTime, y.DateTime), cmp.Compare(x.Price, y.Price))
			})
			if len(bs) > 11 {
				long++
			}
			for i := range bs {
				sum, n := int64(0), int64(0)
				for _, f := range bs[max(0, i-10) : i+1] {
					sum, n = sum+f.Price, n+1
				}
				out = append(out, []types.Value{types.Int64(s), types.Int64(sum / n)})
			}
		}
		if long == 0 {
			t.Fatal("no seller has more than 11 winning bids: the frame is never full")
		}
		t.Logf("%d sellers, %d with more than 11 winning bids, %d auctions with a winning bid", len(bySeller), long, len(best))
		return out
	}
	path := filepath.Join("..", "..", "ddl", "testdata", "nexmark-corrected", "q6.sql")
	// In one task, and in three (each seller's rows hashed to one of
	// them; a Top-1 update that changes the winning seller retracts in
	// one task and inserts in another).
	for _, par := range []string{"1", "3"} {
		t.Run("parallelism="+par, func(t *testing.T) {
			checkFileOracle(t, path, defs, vars, hints, map[string]string{"parallelism.default": par},
				[]types.Type{types.BigInt(), types.BigInt()}, oracle)
		})
	}
}
