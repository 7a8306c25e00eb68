package nexmark_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connector/connectortest"
	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

func keysOf(rows []types.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = connectortest.RowKey(r)
	}
	return out
}

// readN reads at least n rows from r.
func readN(t *testing.T, r connector.Reader, n int) []types.Row {
	t.Helper()
	var out []types.Row
	for len(out) < n {
		rows, err := r.Read(context.Background())
		if err != nil {
			t.Fatalf("after %d rows: %v", len(out), err)
		}
		out = append(out, rows...)
	}
	return out
}

// TestRestoreReplays checks that a reader opened from a snapshot, by
// another source, produces exactly the events the first reader produced
// after the snapshot.
func TestRestoreReplays(t *testing.T) {
	opts := map[string]string{"scan.parallelism": "2", "seed": "5"}
	src := createSource(t, opts, nexmark.Schema)
	all := []connector.SplitState{{ID: "nexmark-0-of-2"}, {ID: "nexmark-1-of-2"}}
	r, err := src.Open(context.Background(), connector.TaskInfo{}, all)
	if err != nil {
		t.Fatal(err)
	}
	readN(t, r, 3000)
	snap, err := r.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	after := keysOf(readN(t, r, 5000))

	// The restored source is told another base time: the checkpoint's
	// wins, so that the replay is exact.
	later := createSource(t, map[string]string{"scan.parallelism": "2", "seed": "5", "base-time": "0"}, nexmark.Schema)
	r2, err := later.Open(context.Background(), connector.TaskInfo{}, snap)
	if err != nil {
		t.Fatal(err)
	}
	again := keysOf(readN(t, r2, 5000))
	if !slices.Equal(after[:5000], again[:5000]) {
		t.Fatal("the restored reader produced other events than the original after the snapshot")
	}
}

// TestRestoreErrors checks that state of another shape or a split of
// another parallelism is refused with a clear error.
func TestRestoreErrors(t *testing.T) {
	src := createSource(t, map[string]string{"scan.parallelism": "2"}, nexmark.Schema)
	for _, st := range []connector.SplitState{
		{ID: "nexmark-0-of-3"},
		{ID: "nexmark-2-of-2"},
		{ID: "datagen-0-of-2"},
		{ID: "nexmark-0-of-2", State: []byte{1, 2, 3}},
	} {
		if _, err := src.Open(context.Background(), connector.TaskInfo{}, []connector.SplitState{st}); err == nil ||
			!strings.Contains(err.Error(), "nexmark") {
			t.Errorf("Open(%v) = %v, want an error naming the connector", st, err)
		}
	}
}

// TestDeterministic checks that the seed alone (with a fixed base time)
// fixes the events, and that another seed changes the random values but
// not the ids and times.
func TestDeterministic(t *testing.T) {
	opts := map[string]string{"events.num": "2000", "base-time": "2024-03-01 12:00:00"}
	a := readAll(t, createSource(t, opts, nexmark.Schema))
	b := readAll(t, createSource(t, opts, nexmark.Schema))
	if !slices.Equal(keysOf(a), keysOf(b)) {
		t.Fatal("two sources of the same options differ")
	}
	opts["seed"] = "1"
	c := readAll(t, createSource(t, opts, nexmark.Schema))
	if slices.Equal(keysOf(a), keysOf(c)) {
		t.Fatal("seed 1 gives the events of seed 0")
	}
	for i := range a {
		if a[i].Fields[0] != c[i].Fields[0] {
			t.Fatalf("event %d: the type depends on the seed", i)
		}
	}
	if got := a[0].Fields[2].List()[5].Timestamp().Time().Format("2006-01-02 15:04:05.000"); got != "2024-03-01 12:00:00.000" {
		t.Errorf("first dateTime %s, want the base time", got)
	}
}

// TestProportions checks the event mix: of every 50 consecutive event ids
// (the default proportions 1:3:46), 1 person, 3 auctions and 46 bids.
func TestProportions(t *testing.T) {
	rows := readAll(t, createSource(t, map[string]string{"events.num": "5000"}, nexmark.Schema))
	var n [3]int
	for _, r := range rows {
		n[r.Fields[0].Int64()]++
	}
	if n != [3]int{100, 300, 4600} {
		t.Errorf("persons, auctions, bids = %v, want [100 300 4600]", n)
	}
}

// TestProjection checks that a table of some of the columns, in another
// order, and a job that reads only bids get the same bids; unread event
// rows are NULL.
func TestProjection(t *testing.T) {
	full := readAll(t, createSource(t, map[string]string{"events.num": "3000", "base-time": "5"}, nexmark.Schema))
	schema := []types.Field{nexmark.Schema[3], nexmark.Schema[0], nexmark.Schema[1]}
	tbl := factory.Table{Name: "cat.db.bids", Options: map[string]string{"connector": "nexmark", "events.num": "3000", "base-time": "5"}}
	for _, f := range schema {
		tbl.Schema.Columns = append(tbl.Schema.Columns, factory.Column{Name: f.Name, Type: f.Type})
	}
	v, err := factory.Default.Validate(tbl)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := factory.Default.Connector("nexmark")
	src, err := f.NewSource(factory.Context{Table: tbl.Name, Schema: tbl.Schema, Options: v.Config, ReadFields: []bool{true, true, false}})
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, src)
	if len(got) != len(full) {
		t.Fatalf("%d rows, want %d", len(got), len(full))
	}
	for i := range got {
		if connectortest.RowKey(types.Row{Fields: got[i].Fields[:2]}) != connectortest.RowKey(types.Row{Fields: []types.Value{full[i].Fields[3], full[i].Fields[0]}}) {
			t.Fatalf("row %d: bid or event_type differs from the full table's", i)
		}
		if !got[i].Fields[2].IsNull() {
			t.Fatalf("row %d: the unread person column is set", i)
		}
	}
}

// TestNestedProjection checks that a job reading person.dateTime,
// auction.dateTime and some bid fields (factory.Context.ReadRows, as
// q0 reads the ddl_gen.sql table) gets those values as the full table has
// them, with the unread nested fields NULL and NULL rows where the event
// is of another type.
func TestNestedProjection(t *testing.T) {
	opts := map[string]string{"events.num": "3000", "base-time": "5"}
	full := readAll(t, createSource(t, opts, nexmark.Schema))
	tbl := factory.Table{Name: "nx", Options: map[string]string{"connector": "nexmark", "events.num": "3000", "base-time": "5"}}
	for _, f := range nexmark.Schema {
		tbl.Schema.Columns = append(tbl.Schema.Columns, factory.Column{Name: f.Name, Type: f.Type})
	}
	v, err := factory.Default.Validate(tbl)
	if err != nil {
		t.Fatal(err)
	}
	rows := []*factory.RowRead{nil,
		{Fields: []bool{false, false, false, false, false, false, true, false}},
		{Fields: []bool{false, true, false, false, false, true, false, false, false, false}},
		{Fields: []bool{true, true, true, false, false, true, true}}}
	f, _ := factory.Default.Connector("nexmark")
	src, err := f.NewSource(factory.Context{Table: tbl.Name, Schema: tbl.Schema, Options: v.Config, ReadRows: rows})
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, src)
	if len(got) != len(full) {
		t.Fatalf("%d rows, want %d", len(got), len(full))
	}
	for i := range got {
		for c := range nexmark.Schema {
			g, w := got[i].Fields[c], full[i].Fields[c]
			if c == 0 || w.IsNull() {
				if connectortest.RowKey(types.Row{Fields: []types.Value{g}}) != connectortest.RowKey(types.Row{Fields: []types.Value{w}}) {
					t.Fatalf("row %d column %d: %v, want %v", i, c, g, w)
				}
				continue
			}
			gl, wl := g.List(), w.List()
			for j := range wl {
				want := wl[j]
				if !rows[c].Reads(j) {
					want = types.Value{}
				}
				if connectortest.RowKey(types.Row{Fields: []types.Value{gl[j]}}) != connectortest.RowKey(types.Row{Fields: []types.Value{want}}) {
					t.Fatalf("row %d %s.%s: %v, want %v", i, nexmark.Schema[c].Name, nexmark.Schema[c].Type.Fields[j].Name, gl[j], want)
				}
			}
		}
	}
}

// TestSchemaErrors checks that columns the connector does not produce are
// refused, naming the table, the column and the connector's columns.
func TestSchemaErrors(t *testing.T) {
	for name, cols := range map[string][]factory.Column{
		"unknown":      {{Name: "event_type", Type: types.Int()}, {Name: "bids", Type: nexmark.Schema[3].Type}},
		"type":         {{Name: "event_type", Type: types.BigInt()}},
		"nested name":  {{Name: "bid", Type: types.RowType(types.Field{Name: "auctionId", Type: types.BigInt()})}},
		"nested types": {{Name: "person", Type: types.RowType(append(slices.Clone(nexmark.Schema[1].Type.Fields[:6]), types.Field{Name: "dateTime", Type: types.TimestampType(0)}, nexmark.Schema[1].Type.Fields[7])...)}},
	} {
		tbl := factory.Table{Name: "cat.db.nx", Schema: factory.Schema{Columns: cols}, Options: map[string]string{"connector": "nexmark"}}
		_, _, err := factory.Default.CreateSource(context.Background(), tbl)
		if !errors.Is(err, nexmark.ErrSchema) || !strings.Contains(err.Error(), "cat.db.nx") || !strings.Contains(err.Error(), "`event_type` INT") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// VARCHAR of any length and a finer TIMESTAMP are accepted.
	person := slices.Clone(nexmark.Schema[1].Type.Fields)
	person[1].Type = types.VarChar(10)
	person[6].Type = types.TimestampType(6)
	tbl := factory.Table{Name: "t", Schema: factory.Schema{Columns: []factory.Column{{Name: "person", Type: types.RowType(person...)}}},
		Options: map[string]string{"connector": "nexmark"}}
	if _, _, err := factory.Default.CreateSource(context.Background(), tbl); err != nil {
		t.Error(err)
	}
}

// TestOptionErrors checks that bad option values are reported naming the
// option, before anything runs.
func TestOptionErrors(t *testing.T) {
	for opt, want := range map[string]string{
		"first-event.rate=0":        "first-event.rate",
		"bid.hot-ratio.auctions=0":  "bid.hot-ratio.auctions",
		"person.avg-size=3gb":       "person.avg-size",
		"events.num=-1":             "events.num",
		"base-time=yesterday":       "base-time",
		"rate.shape=triangle":       "rate.shape",
		"scan.parallelism=0":        "scan.parallelism",
		"bid.proportion=-1":         "proportions",
		"out-of-order.group-size=0": "out-of-order",
		"events.nums=5":             "events.num",
	} {
		k, v, _ := strings.Cut(opt, "=")
		_, err := nexmark.ConfigFromOptions(map[string]string{k: v})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %s", opt, err, want)
		}
	}
	cfg, err := nexmark.ConfigFromOptions(map[string]string{"person.avg-size": "1kb", "rate.shape": "sine", "base-time": "1000"})
	if err != nil || cfg.AvgPersonByteSize != 1024 || cfg.RateShape != "SINE" || cfg.BaseTime != 1000 {
		t.Errorf("ConfigFromOptions = %+v, %v", cfg, err)
	}
}

// TestBounded checks which configurations end, and that keep-alive's
// reader waits, once exhausted, until its context is done.
func TestBounded(t *testing.T) {
	for opts, want := range map[string]bool{
		"":                              false,
		"events.num=10":                 true,
		"stop-at=10":                    true,
		"events.num=10,keep-alive=true": false,
	} {
		m := map[string]string{}
		for _, kv := range strings.Split(opts, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m[k] = v
			}
		}
		if got := createSource(t, m, nexmark.Schema).Bounded(); got != want {
			t.Errorf("%q: Bounded() = %v, want %v", opts, got, want)
		}
	}
	src := createSource(t, map[string]string{"events.num": "10", "keep-alive": "true"}, nexmark.Schema)
	r, err := src.Open(context.Background(), connector.TaskInfo{}, []connector.SplitState{{ID: "nexmark-0-of-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if rows := readN(t, r, 10); len(rows) != 10 {
		t.Fatalf("%d rows", len(rows))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("exhausted keep-alive Read = %v, want context.Canceled", err)
	}
	src = createSource(t, map[string]string{"events.num": "10"}, nexmark.Schema)
	r, _ = src.Open(context.Background(), connector.TaskInfo{}, []connector.SplitState{{ID: "nexmark-0-of-1"}})
	readN(t, r, 10)
	if _, err := r.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("exhausted Read = %v, want io.EOF", err)
	}
}
