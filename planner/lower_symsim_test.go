package planner_test

import (
	"strconv"
	"testing"

	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// TestSimilarToAndBetweenSymmetric plans [NOT] SIMILAR TO (with and without
// ESCAPE) and [NOT] BETWEEN SYMMETRIC in a WHERE clause and a SELECT list
// and runs rows through the flow: the predicates reach planner/expr's
// implementations instead of being refused.
func TestSimilarToAndBetweenSymmetric(t *testing.T) {
	p := compile(t, `CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT, sim BOOLEAN, esc BOOLEAN, nb BOOLEAN) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT id, name SIMILAR TO 'a(b|c)+', name NOT SIMILAR TO 'a!%' ESCAPE '!', id NOT BETWEEN SYMMETRIC 3 AND 1
FROM src WHERE id BETWEEN SYMMETRIC 10 AND 1;`)
	tf, err := p.Inserts[0].Flows[0].Transform(expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []types.Row
	for _, r := range [][]types.Value{
		{types.Int64(2), types.Str("abcb")},
		{types.Int64(5), types.Str("a%")},
		{types.Int64(11), types.Str("abc")}, // filtered out: not between 1 and 10
		{types.Int64(0), types.Str("abc")},  // filtered out
		{types.Int64(7), {}},
	} {
		if out, err = tf(types.Row{Fields: r}, out); err != nil {
			t.Fatal(err)
		}
	}
	show := func(v types.Value) string {
		if v.IsNull() {
			return "NULL"
		}
		if v.Bool() {
			return "T"
		}
		return "F"
	}
	want := []string{"2 T T F", "5 F F T", "7 NULL NULL T"}
	if len(out) != len(want) {
		t.Fatalf("got %d rows, want %d: %v", len(out), len(want), out)
	}
	for i, r := range out {
		got := strconv.FormatInt(r.Fields[0].Int64(), 10) + " " + show(r.Fields[1]) + " " + show(r.Fields[2]) + " " + show(r.Fields[3])
		if got != want[i] {
			t.Errorf("row %d: got %q, want %q", i, got, want[i])
		}
	}
}
