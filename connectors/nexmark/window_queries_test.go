package nexmark_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/types"
)

// generatorDefs returns the public suite's ddl_gen.sql and ddl_views.sql.
func generatorDefs(t *testing.T) string {
	t.Helper()
	defs := ""
	for _, f := range []string{"ddl_gen.sql", "ddl_views.sql"} {
		b, err := os.ReadFile(filepath.Join(queriesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		defs += string(b) + ";\n"
	}
	return defs
}

// checkQueryOracle runs the public query file name over defs, applies its
// changelog to a table (each retraction must take back a row the table
// holds) and compares the table with the rows oracle says the query's
// result holds at the end (rows of types, compared as Flink prints them).
func checkQueryOracle(t *testing.T, name, defs string, vars map[string]string, hints map[string]map[string]string,
	ts []types.Type, oracle func() [][]types.Value) {
	t.Helper()
	checkFileOracle(t, filepath.Join(queriesDir, name+".sql"), defs, vars, hints, nil, ts, oracle)
}

// checkFileOracle is checkQueryOracle of the query file at path, with the
// job settings set.
func checkFileOracle(t *testing.T, path, defs string, vars map[string]string, hints map[string]map[string]string,
	set map[string]string, ts []types.Type, oracle func() [][]types.Value) {
	t.Helper()
	name := strings.TrimSuffix(filepath.Base(path), ".sql")
	query, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sink := &capture{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := job.Compile(ctx, name+".sql", defs+string(query), job.Options{
		Registry: registryWith(t, sink), Vars: vars, Hints: hints, Set: set, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	table := map[string]int{}
	for _, r := range sink.rows {
		s := javafmt.FormatRow(types.Row{Fields: r.Fields}, ts)
		switch r.Kind {
		case types.Insert, types.UpdateAfter:
			table[s]++
		default:
			if table[s] == 0 {
				t.Fatalf("%s %s retracts a row the changelog does not hold", r.Kind, s)
			}
			table[s]--
		}
	}
	var got, want []string
	for s, n := range table {
		for range n {
			got = append(got, s)
		}
	}
	for _, fs := range oracle() {
		want = append(want, javafmt.FormatRow(types.Row{Fields: fs}, ts))
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("%d rows from %d changes, want %d rows\n got %.2000v\nwant %.2000v", len(got), len(sink.rows), len(want), got, want)
	}
	t.Logf("%d rows from %d changes", len(got), len(sink.rows))
}

// TestWindowJoinQueriesOverGenerator runs the public query files that join
// windows — q5 (the hottest auctions of each sliding window: two HOP
// window aggregations joined by window), q7 (the highest bids of each
// tumbling window: bids joined with a window aggregation's maximum by
// price and a time range) and q8 (new persons who opened an auction in
// the same tumbling window: a join of two window aggregations) —
// unchanged over the generator table and views with 20,000 events at 500
// events per second of event time (40 s: several windows), applies each
// changelog to a table and checks it against the query's meaning
// computed from the generator's events: a batch oracle.
func TestWindowJoinQueriesOverGenerator(t *testing.T) {
	const events, rate = 20000, 500
	defs := generatorDefs(t)
	run := generate(t, events, rate, "2024-02-29 23:59:51", "13")
	vars, hints, persons, auctions, bids := run.vars, run.hints, run.persons, run.auctions, run.bids
	i64, str := types.Int64, types.Str
	ts := func(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }
	bigint, varchar, ts3 := types.BigInt(), types.String(), types.TimestampType(3)
	// tumble returns the start of the 10-second window of a time (windows
	// start at multiples of their size from the epoch, as Flink's).
	tumble := func(ms int64) int64 { return ms - ms%10_000 }
	for _, q := range []struct {
		name   string
		types  []types.Type
		oracle func() [][]types.Value
	}{
		{"q5", []types.Type{bigint, bigint}, func() (out [][]types.Value) {
			// Per HOP window (10 s, sliding by 2 s) the auctions with the
			// most bids, each with its count.
			type key struct{ start, auction int64 }
			counts := map[key]int64{}
			for _, b := range bids {
				last := b.DateTime - b.DateTime%2_000
				for start := last; start > b.DateTime-10_000; start -= 2_000 {
					counts[key{start, b.Auction}]++
				}
			}
			most := map[int64]int64{}
			for k, n := range counts {
				most[k.start] = max(most[k.start], n)
			}
			for k, n := range counts {
				if n >= most[k.start] {
					out = append(out, []types.Value{i64(k.auction), i64(n)})
				}
			}
			return out
		}},
		{"q7", []types.Type{bigint, bigint, bigint, ts3, varchar}, func() (out [][]types.Value) {
			// Per tumbling window, its highest price; each bid of that
			// price at most 10 s before the window's end, up to the end
			// (the bounds included).
			most := map[int64]int64{}
			for _, b := range bids {
				w := tumble(b.DateTime)
				if p, ok := most[w]; !ok || b.Price > p {
					most[w] = b.Price
				}
			}
			for w, price := range most {
				end := w + 10_000
				for _, b := range bids {
					if b.Price == price && b.DateTime >= end-10_000 && b.DateTime <= end {
						// The file selects the price into the sink's bidder
						// column and the bidder into its price column.
						out = append(out, []types.Value{i64(b.Auction), i64(b.Price), i64(b.Bidder), ts(b.DateTime), str(b.Extra)})
					}
				}
			}
			return out
		}},
		{"q8", []types.Type{bigint, varchar, ts3}, func() (out [][]types.Value) {
			// Persons (by id and name) who were created in a tumbling
			// window in which they opened an auction, with the window's
			// start.
			type key struct{ id, start int64 }
			sold := map[key]bool{}
			for _, a := range auctions {
				sold[key{a.Seller, tumble(a.DateTime)}] = true
			}
			type pkey struct {
				id    int64
				name  string
				start int64
			}
			seen := map[pkey]bool{}
			for _, p := range persons {
				k := pkey{p.ID, p.Name, tumble(p.DateTime)}
				if sold[key{p.ID, k.start}] && !seen[k] {
					seen[k] = true
					out = append(out, []types.Value{i64(p.ID), str(p.Name), ts(k.start)})
				}
			}
			return out
		}},
	} {
		t.Run(q.name, func(t *testing.T) {
			checkQueryOracle(t, q.name, defs, vars, hints, q.types, q.oracle)
		})
	}
}
