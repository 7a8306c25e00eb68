package nexmark_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/types"
)

// TestJoinQueriesOverGenerator runs the public query files that join, q3,
// q4, q20 and q23, unchanged over the generator table and views (as
// TestQueriesOverGenerator does, with 100,000 events), and checks what each leaves in its sink
// (the changelog applied: q4's aggregations over a join update their
// rows) against the batch join computed from the generator's events.
func TestJoinQueriesOverGenerator(t *testing.T) {
	// The first bids of bidders that are persons come after about 20,000
	// events (the generator's persons are the newest), so q23 needs more.
	const events = 100000
	defs := ""
	for _, f := range []string{"ddl_gen.sql", "ddl_views.sql"} {
		b, err := os.ReadFile(filepath.Join(queriesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		defs += string(b) + ";\n"
	}
	run := generate(t, events, 10000, "2024-02-29 23:59:59", "11")
	vars, hints, persons, auctions, bids := run.vars, run.hints, run.persons, run.auctions, run.bids
	i64, str := types.Int64, types.Str
	ts := func(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }
	bigint, varchar, ts3 := types.BigInt(), types.String(), types.TimestampType(3)
	personByID := map[int64]nexmark.Person{}
	for _, p := range persons {
		personByID[p.ID] = p
	}
	for _, q := range []struct {
		name  string
		types []types.Type
		want  func() [][]types.Value
	}{
		{"q3", []types.Type{varchar, varchar, varchar, bigint}, func() (out [][]types.Value) {
			for _, a := range auctions {
				p, ok := personByID[a.Seller]
				if ok && a.Category == 10 && (p.State == "OR" || p.State == "ID" || p.State == "CA") {
					out = append(out, []types.Value{str(p.Name), str(p.City), str(p.State), i64(a.ID)})
				}
			}
			return out
		}},
		{"q4", []types.Type{bigint, bigint}, func() (out [][]types.Value) {
			// MAX(price) per auction of its bids within its lifetime, then
			// AVG per category (integer division, as Flink's over BIGINT).
			type key struct{ id, category int64 }
			maxOf := map[key]int64{}
			byID := map[int64]nexmark.Auction{}
			for _, a := range auctions {
				byID[a.ID] = a
			}
			for _, b := range bids {
				a, ok := byID[b.Auction]
				if !ok || b.DateTime < a.DateTime || b.DateTime > a.Expires {
					continue
				}
				k := key{a.ID, a.Category}
				if old, ok := maxOf[k]; !ok || b.Price > old {
					maxOf[k] = b.Price
				}
			}
			sum, n := map[int64]int64{}, map[int64]int64{}
			for k, v := range maxOf {
				sum[k.category] += v
				n[k.category]++
			}
			for c := range sum {
				out = append(out, []types.Value{i64(c), i64(sum[c] / n[c])})
			}
			return out
		}},
		{"q20", []types.Type{bigint, bigint, bigint, varchar, varchar, ts3, varchar, varchar, varchar, bigint, bigint, ts3, ts3, bigint, bigint, varchar},
			func() (out [][]types.Value) {
				byID := map[int64]nexmark.Auction{}
				for _, a := range auctions {
					byID[a.ID] = a
				}
				for _, b := range bids {
					a, ok := byID[b.Auction]
					if !ok || a.Category != 10 {
						continue
					}
					out = append(out, []types.Value{i64(b.Auction), i64(b.Bidder), i64(b.Price), str(b.Channel), str(b.URL), ts(b.DateTime), str(b.Extra),
						str(a.ItemName), str(a.Description), i64(a.InitialBid), i64(a.Reserve), ts(a.DateTime), ts(a.Expires), i64(a.Seller), i64(a.Category), str(a.Extra)})
				}
				return out
			}},
		{"q23", []types.Type{bigint, bigint, varchar, varchar, varchar, bigint, varchar, varchar, varchar, varchar, varchar, varchar,
			varchar, varchar, bigint, bigint, ts3, ts3, bigint, bigint, varchar},
			func() (out [][]types.Value) {
				bySeller := map[int64][]nexmark.Auction{}
				for _, a := range auctions {
					bySeller[a.Seller] = append(bySeller[a.Seller], a)
				}
				for _, b := range bids {
					p, ok := personByID[b.Bidder]
					if !ok {
						continue
					}
					for _, a := range bySeller[b.Bidder] {
						out = append(out, []types.Value{i64(b.Bidder), i64(b.Price), str(b.Channel), str(b.URL), str(b.Extra),
							i64(p.ID), str(p.Name), str(p.EmailAddress), str(p.CreditCard), str(p.City), str(p.State), str(p.Extra),
							str(a.ItemName), str(a.Description), i64(a.InitialBid), i64(a.Reserve), ts(a.DateTime), ts(a.Expires),
							i64(a.Seller), i64(a.Category), str(a.Extra)})
					}
				}
				return out
			}},
	} {
		t.Run(q.name, func(t *testing.T) {
			query, err := os.ReadFile(filepath.Join(queriesDir, q.name+".sql"))
			if err != nil {
				t.Fatal(err)
			}
			sink := &capture{}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			j, err := job.Compile(ctx, q.name+".sql", defs+string(query), job.Options{
				Registry: registryWith(t, sink), Vars: vars, Hints: hints, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Run(ctx); err != nil {
				t.Fatal(err)
			}
			// The table the changelog leaves: a retraction takes back a
			// row it holds.
			held := map[string]int{}
			for _, r := range sink.rows {
				s := javafmt.FormatRow(types.Row{Fields: r.Fields}, q.types)
				switch r.Kind {
				case types.Insert, types.UpdateAfter:
					held[s]++
				default:
					if held[s] == 0 {
						t.Fatalf("%s %s retracts a row the sink does not hold", r.Kind, s)
					}
					held[s]--
				}
			}
			var got, want []string
			for s, n := range held {
				for range n {
					got = append(got, s)
				}
			}
			for _, fs := range q.want() {
				want = append(want, javafmt.FormatRow(types.Row{Fields: fs}, q.types))
			}
			if len(want) == 0 {
				t.Fatal("the batch join is empty: the test checks nothing")
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%d rows, want %d; first difference: %s", len(got), len(want), firstDiff(got, want))
			}
			t.Logf("%d rows", len(got))
		})
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return "got " + got[i] + ", want " + want[i]
		}
	}
	if len(got) > len(want) {
		return "extra " + got[len(want)]
	}
	if len(want) > len(got) {
		return "missing " + want[len(got)]
	}
	return "none"
}
