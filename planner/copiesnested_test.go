package planner_test

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner"
)

// TestBuildCopiesNestedOnlyScalars: a pipeline promises that its output
// refers to no nested value of its input (TransformCopiesNested, which
// lets a reader reuse the memory of its rows' ROW values) exactly when
// every column it outputs is a scalar; a ROW, ARRAY or MAP column, even
// one passed on from the source, keeps the promise off.
func TestBuildCopiesNestedOnlyScalars(t *testing.T) {
	reg := testRegistry()
	reg.MustRegisterConnector(factory.ConnectorFactory{Identifier: "embedded", NewSource: noSource, NewSink: noSink})
	p, err := planner.Compile(context.Background(), "job.sql", `
CREATE TABLE src (id INT, r ROW<a INT, b STRING>, xs ARRAY<INT>) WITH ('connector' = 'embedded');
CREATE TABLE flat (id INT, a INT, b STRING) WITH ('connector' = 'embedded');
CREATE TABLE nested (id INT, r ROW<a INT, b STRING>) WITH ('connector' = 'embedded');
CREATE TABLE arr (id INT, xs ARRAY<INT>) WITH ('connector' = 'embedded');
CREATE TABLE m (id INT, k MAP<STRING, INT>) WITH ('connector' = 'embedded');
INSERT INTO flat SELECT id, r.a, UPPER(r.b) FROM src WHERE CARDINALITY(xs) > 0;
INSERT INTO nested SELECT id, r FROM src;
INSERT INTO arr SELECT id, xs FROM src;
INSERT INTO m SELECT id, MAP[r.b, r.a] FROM src;
INSERT INTO flat SELECT id, r.a, r.b FROM src UNION ALL SELECT id, a, b FROM flat;`, planner.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	pipes, err := job.Build(context.Background(), p, printTo(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, false, false} {
		if pp := pipes[i]; !pp.TransformCopies || pp.TransformCopiesNested != want {
			t.Errorf("pipeline %s: TransformCopies %v, TransformCopiesNested %v, want true and %v", pp.Name, pp.TransformCopies, pp.TransformCopiesNested, want)
		}
	}
	union := pipes[4]
	for _, s := range union.Sources {
		if !s.TransformCopies || !s.TransformCopiesNested {
			t.Errorf("pipeline %s, source %s: TransformCopies %v, TransformCopiesNested %v, want both", union.Name, s.Name, s.TransformCopies, s.TransformCopiesNested)
		}
	}
}

// TestGraphCalcCopiesNestedOnlyScalars: in a stateful job's graph, the
// reader's Calc that follows a source — here on the edges out of a scan
// that several flows read (runtime.Edge.Transform) — makes the same promise
// as a pipeline's transform (CopiesNested, so that the reader before it
// reuses its rows' ROW values): exactly when every column it outputs is a
// scalar.
func TestGraphCalcCopiesNestedOnlyScalars(t *testing.T) {
	reg := testRegistry()
	reg.MustRegisterConnector(factory.ConnectorFactory{Identifier: "embedded", NewSource: noSource, NewSink: noSink})
	p, err := planner.Compile(context.Background(), "job.sql", `
CREATE TABLE src (id INT, r ROW<a INT, b STRING>) WITH ('connector' = 'embedded');
CREATE TABLE ids (id INT, id2 INT) WITH ('connector' = 'embedded');
CREATE TABLE pairs (id INT, r ROW<a INT, b STRING>, id2 INT) WITH ('connector' = 'embedded');
INSERT INTO ids SELECT s.id, u.id FROM src s JOIN src u ON s.id = u.r.a;
INSERT INTO pairs SELECT s.id, s.r, u.id FROM src s JOIN src u ON s.id = u.id;`, planner.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := job.RuntimeSpec(context.Background(), p, printTo(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	g := spec.Graph
	var got []int // CopiesNested as 0 and 1
	for _, e := range g.Edges {
		from, to := g.Vertices[e.From], g.Vertices[e.To]
		if from.Source == nil {
			continue
		}
		if e.Transform == nil {
			t.Errorf("%s → %s: no transform on an edge out of the shared scan", from.ID, to.ID)
			continue
		}
		if !e.Transform.Copies {
			t.Errorf("%s → %s: Copies is false", from.ID, to.ID)
		}
		n := 0
		if e.Transform.CopiesNested {
			n = 1
		}
		got = append(got, n)
	}
	// The first join's inputs are scalars (u.r.a is computed by the
	// Calc); the second's left input keeps r.
	slices.Sort(got)
	if want := []int{0, 1, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("CopiesNested of the Calcs after a source: %v, want %v", got, want)
	}
}
