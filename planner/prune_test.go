package planner_test

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner"
)

// TestBuildPassesReadFields: Build creates each flow's source with the
// fields that flow reads (factory.Context.ReadFields), one set per
// source: a table read by two INSERTs and twice in a UNION ALL gets each
// reader's own set, and a SELECT * gets nil (every field).
func TestBuildPassesReadFields(t *testing.T) {
	reg := testRegistry()
	var got [][]bool
	f, _ := reg.Connector("datagen")
	spy := *f
	spy.Identifier = "spy"
	spy.NewSource = func(ctx factory.Context) (connector.Source, error) {
		got = append(got, slices.Clone(ctx.ReadFields))
		return f.NewSource(ctx)
	}
	reg.MustRegisterConnector(spy)
	p, err := planner.Compile(context.Background(), "job.sql", `
CREATE TABLE s (a BIGINT, b STRING, c INT, d AS c + 1) WITH ('connector' = 'spy', 'number-of-rows' = '1');
SELECT a FROM s WHERE b IS NOT NULL;
SELECT * FROM s;
SELECT d FROM s UNION ALL SELECT CAST(b AS INT) FROM s;`, planner.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Build(context.Background(), p, printTo(io.Discard)); err != nil {
		t.Fatal(err)
	}
	want := [][]bool{{true, true, false}, nil, {false, false, true}, {false, true, false}}
	if len(got) != len(want) {
		t.Fatalf("%d sources created, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("source %d: ReadFields %v, want %v", i, got[i], want[i])
		}
	}
}

// TestBuildPassesReadRows: a flow that reads a ROW column only through
// paths into it (r.x, r.z.p, r[2]) passes which of its fields it reads
// (factory.Context.ReadRows), nested ROWs narrowed in turn; a column also
// used whole, a path read as a whole ROW (r.z), or a column read only
// through the watermark's paths is narrowed accordingly.
func TestBuildPassesReadRows(t *testing.T) {
	reg := testRegistry()
	var got [][]*factory.RowRead
	f, _ := reg.Connector("datagen")
	spy := *f
	spy.Identifier = "spy"
	spy.NewSource = func(ctx factory.Context) (connector.Source, error) {
		got = append(got, slices.Clone(ctx.ReadRows))
		return f.NewSource(ctx)
	}
	reg.MustRegisterConnector(spy)
	p, err := planner.Compile(context.Background(), "job.sql", `
CREATE TABLE s (a BIGINT, r ROW<x INT, y STRING, z ROW<p INT, q TIMESTAMP(3)>>, w ROW<t TIMESTAMP(3), u INT>,
  WATERMARK FOR wt AS wt - INTERVAL '1' SECOND, wt AS w.t) WITH ('connector' = 'spy', 'number-of-rows' = '1');
SELECT r.x, r.z.p FROM s WHERE a > 0;
SELECT r.x, r FROM s;
SELECT r[2], r.z FROM s;
SELECT a FROM s;`, planner.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Build(context.Background(), p, printTo(io.Discard)); err != nil {
		t.Fatal(err)
	}
	wt := &factory.RowRead{Fields: []bool{true, false}}
	want := [][]*factory.RowRead{
		{nil, {Fields: []bool{true, false, true}, Rows: []*factory.RowRead{nil, nil, {Fields: []bool{true, false}}}}, wt},
		{nil, nil, wt},
		{nil, {Fields: []bool{false, true, true}}, wt},
		{nil, nil, wt},
	}
	if len(got) != len(want) {
		t.Fatalf("%d sources created, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if !slices.EqualFunc(got[i], want[i], (*factory.RowRead).Equal) {
			t.Errorf("source %d: ReadRows %v, want %v", i, got[i], want[i])
		}
	}
}
