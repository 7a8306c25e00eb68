package nexmark_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// queriesDir holds the public Nexmark query files, copied unchanged with
// their origin and licence (see its README.txt).
const queriesDir = "../../ddl/testdata/nexmark"

// capture is a sink registered as 'blackhole', the sink of every query
// file, that keeps the rows written to it.
type capture struct {
	mu   sync.Mutex
	rows []types.Row
}

func (c *capture) Open(context.Context, connector.TaskInfo) (connector.Writer, error) { return c, nil }
func (c *capture) Write(_ context.Context, rows []types.Row) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range rows {
		c.rows = append(c.rows, r.Clone())
	}
	return nil
}
func (c *capture) PreCommit(context.Context, int64) ([]connector.Committable, error) { return nil, nil }
func (c *capture) Close() error                                                      { return nil }

// registryWith returns the built-in connectors and formats, with sink as
// 'blackhole' (taking UPDATE_BEFORE rows).
func registryWith(t *testing.T, sink *capture) *factory.Registry {
	reg := factory.NewRegistry()
	for _, id := range factory.Default.Connectors() {
		if id == "blackhole" {
			continue
		}
		f, _ := factory.Default.Connector(id)
		reg.MustRegisterConnector(*f)
	}
	for _, id := range factory.Default.Formats() {
		f, _ := factory.Default.Format(id)
		reg.MustRegisterFormat(*f)
	}
	bh, _ := factory.Default.Connector("blackhole")
	own := *bh
	own.NewSink = func(factory.Context) (connector.Sink, error) { return sink, nil }
	// The tests apply the changelog as retractions (each -U takes back a
	// row the table holds), so they ask for UPDATE_BEFORE, as print does;
	// Flink's blackhole, and so streamsql's, does not.
	own.SinkChangelog = factory.AllKinds
	reg.MustRegisterConnector(own)
	return reg
}

// TestQueriesOverGenerator runs the public query files q0, q1, q2, q21,
// q22 and q14 (with its function in Go), unchanged, over the public generator table (ddl_gen.sql) and
// views (ddl_views.sql), also unchanged, with 20,000 events, and checks
// every row each query writes against what the query means, computed
// from the generator's events directly.
func TestQueriesOverGenerator(t *testing.T) {
	const events = 20000
	defs := ""
	for _, f := range []string{"ddl_gen.sql", "ddl_views.sql"} {
		b, err := os.ReadFile(filepath.Join(queriesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		defs += string(b) + ";\n"
	}
	// The generator table gets a fixed base time and seed through a hint,
	// so that the expected rows can be computed; the file stays unchanged.
	run := generate(t, events, 10000, "2024-02-29 23:59:59", "11")
	vars, hints, bids := run.vars, run.hints, run.bids
	channelID := regexp.MustCompile(`(&|^)channel_id=([^&]*)`)
	i64, str := types.Int64, types.Str
	ts := func(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }
	splitIndex := func(s string, i int) types.Value {
		if parts := strings.Split(s, "/"); i < len(parts) {
			return str(parts[i])
		}
		return types.Value{}
	}
	bigint, varchar := types.BigInt(), types.String()
	for _, q := range []struct {
		name  string
		types []types.Type
		// expect returns the row the query writes for a bid, if any.
		expect func(b nexmark.Bid) ([]types.Value, bool)
	}{
		{"q0", []types.Type{bigint, bigint, bigint, types.TimestampType(3), varchar}, func(b nexmark.Bid) ([]types.Value, bool) {
			return []types.Value{i64(b.Auction), i64(b.Bidder), i64(b.Price), ts(b.DateTime), str(b.Extra)}, true
		}},
		{"q1", []types.Type{bigint, bigint, types.DecimalType(23, 3), types.TimestampType(3), varchar}, func(b nexmark.Bid) ([]types.Value, bool) {
			// 0.908 * price, exactly, with three decimals.
			return []types.Value{i64(b.Auction), i64(b.Bidder), types.DecimalValue(types.NewDecimal(b.Price*908, 3)), ts(b.DateTime), str(b.Extra)}, true
		}},
		{"q2", []types.Type{bigint, bigint}, func(b nexmark.Bid) ([]types.Value, bool) {
			return []types.Value{i64(b.Auction), i64(b.Price)}, b.Auction%123 == 0
		}},
		{"q21", []types.Type{bigint, bigint, bigint, varchar, varchar}, func(b nexmark.Bid) ([]types.Value, bool) {
			id := map[string]string{"apple": "0", "google": "1", "facebook": "2", "baidu": "3"}[strings.ToLower(b.Channel)]
			if id == "" {
				mm := channelID.FindStringSubmatch(b.URL)
				if mm == nil {
					return nil, false
				}
				id = mm[2]
			}
			return []types.Value{i64(b.Auction), i64(b.Bidder), i64(b.Price), str(b.Channel), str(id)}, true
		}},
		{"q22", []types.Type{bigint, bigint, bigint, varchar, varchar, varchar, varchar}, func(b nexmark.Bid) ([]types.Value, bool) {
			return []types.Value{i64(b.Auction), i64(b.Bidder), i64(b.Price), str(b.Channel),
				splitIndex(b.URL, 3), splitIndex(b.URL, 4), splitIndex(b.URL, 5)}, true
		}},
		// q14's count_char is the Go function nexmark.CountChar, which its
		// CREATE FUNCTION binds to by the Java class it names.
		{"q14", []types.Type{bigint, bigint, types.DecimalType(23, 3), varchar, types.TimestampType(3), varchar, bigint}, func(b nexmark.Bid) ([]types.Value, bool) {
			price := b.Price * 908 // 0.908 * price, in thousandths
			if price <= 1_000_000_000 || price >= 50_000_000_000 {
				return nil, false
			}
			kind := "otherTime"
			switch h := time.UnixMilli(b.DateTime).UTC().Hour(); {
			case h >= 8 && h <= 18:
				kind = "dayTime"
			case h <= 6 || h >= 20:
				kind = "nightTime"
			}
			return []types.Value{i64(b.Auction), i64(b.Bidder), types.DecimalValue(types.NewDecimal(price, 3)), str(kind),
				ts(b.DateTime), str(b.Extra), i64(int64(strings.Count(b.Extra, "c")))}, true
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
				Registry: registryWith(t, sink), Vars: vars, Hints: hints, Logger: slog.New(slog.DiscardHandler),
				Functions: []*expr.Function{nexmark.CountChar}})
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Run(ctx); err != nil {
				t.Fatal(err)
			}
			var want, got []string
			for _, b := range bids {
				if fs, ok := q.expect(b); ok {
					want = append(want, javafmt.FormatRow(types.Row{Fields: fs}, q.types))
				}
			}
			for _, r := range sink.rows {
				got = append(got, javafmt.FormatRow(r, q.types))
			}
			if len(want) == 0 || len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			slices.Sort(got)
			slices.Sort(want)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("row %s, want %s", got[i], want[i])
				}
			}
		})
	}
}

// TestQ10OverGenerator runs the public q10 file unchanged (every bid into
// a filesystem table partitioned by day and minute, committed by partition
// time with a delay of a minute) over the generator, with NEXMARK_DIR a
// temporary directory. Its 20,000 events span midnight, so the bids fall
// into two partitions of two days; each bid must be in the partition of
// its time exactly once, and, the input being bounded, each partition
// must have its success file (the end of event time is past every
// partition's time plus the delay).
func TestQ10OverGenerator(t *testing.T) {
	const events = 20000
	defs := ""
	for _, f := range []string{"ddl_gen.sql", "ddl_views.sql"} {
		b, err := os.ReadFile(filepath.Join(queriesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		defs += string(b) + ";\n"
	}
	query, err := os.ReadFile(filepath.Join(queriesDir, "q10.sql"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := generate(t, events, 10000, "2024-02-29 23:59:59", "11")
	vars, hints := run.vars, run.hints
	vars["NEXMARK_DIR"], vars["SUBMIT_TIME"] = dir, "1"
	// want: "auction,bidder,price" of each bid, by its partition's path.
	want := map[string][]string{}
	for _, b := range run.bids {
		at := time.UnixMilli(b.DateTime).UTC()
		p := "dt=" + at.Format("2006-01-02") + "/hm=" + strings.ReplaceAll(at.Format("15:04"), ":", "%3A")
		want[p] = append(want[p], fmt.Sprintf("%d,%d,%d", b.Auction, b.Bidder, b.Price))
	}
	if len(want) != 2 {
		t.Fatalf("the bids fall into %d partitions, want the 2 around midnight", len(want))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := job.Compile(ctx, "q10.sql", defs+string(query), job.Options{
		Vars: vars, Hints: hints, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "data", "output", "1", "bid")
	got := map[string][]string{}
	success := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		p, name := filepath.ToSlash(filepath.Dir(rel)), filepath.Base(rel)
		switch {
		case name == "_SUCCESS":
			success[p] = true
		case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"):
			// In-progress files and the committer's state: not output.
		default:
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			recs, err := csv.NewReader(f).ReadAll()
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			for _, r := range recs {
				if len(r) != 5 {
					return fmt.Errorf("%s: record %q has %d fields, want 5 (the partition columns are in the path)", rel, r, len(r))
				}
				got[p] = append(got[p], strings.Join(r[:3], ","))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		g := got[p]
		slices.Sort(g)
		slices.Sort(w)
		if !slices.Equal(g, w) {
			t.Errorf("partition %s: %d bids, want %d (or different ones)", p, len(g), len(w))
		}
		if !success[p] {
			t.Errorf("partition %s has no success file at the end of the input", p)
		}
	}
	for p := range got {
		if want[p] == nil {
			t.Errorf("unexpected partition %s", p)
		}
	}
}
