package job

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/runtime"
)

// TestPlacedRowsGoForward: the rows of a regular join whose left rows are
// never padded go forward, not hashed, to an operator hashed on the
// join's left key columns at the same parallelism (Nexmark q9's Top-1 per
// auction after its join on the auction's id), and are hashed otherwise.
func TestPlacedRowsGoForward(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, insert string
		forward      bool
	}{
		{"top-1 by the left key", `INSERT INTO out2 SELECT k, v FROM (SELECT a.k, b.v,
  ROW_NUMBER() OVER (PARTITION BY a.k ORDER BY b.v DESC) AS rn FROM a, b WHERE a.k = b.k) WHERE rn <= 1`, true},
		{"group by the left key", "INSERT INTO out2 SELECT a.k, COUNT(*) FROM a LEFT JOIN b ON a.k = b.k GROUP BY a.k", true},
		{"semi join, group by its key", "INSERT INTO out2 SELECT k, COUNT(*) FROM a WHERE k IN (SELECT k FROM b) GROUP BY k", true},
		{"right join", "INSERT INTO out2 SELECT a.k, COUNT(*) FROM a RIGHT JOIN b ON a.k = b.k GROUP BY a.k", false},
		{"group by the right key", "INSERT INTO out2 SELECT b.k, COUNT(*) FROM a JOIN b ON a.k = b.k GROUP BY b.k", false},
		{"group by more", "INSERT INTO out2 SELECT a.k, COUNT(*) FROM a JOIN b ON a.k = b.k GROUP BY a.k, b.v", false},
		{"computed key", "INSERT INTO out2 SELECT a.k + 1, COUNT(*) FROM a JOIN b ON a.k = b.k GROUP BY a.k + 1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := `SET 'parallelism.default' = '2';
CREATE TABLE a (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE b (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out2 (k BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
` + c.insert + ";\n"
			plan, err := planner.Compile(ctx, "t.sql", text, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, g, err := build(ctx, plan, BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// The edge into a stateful operator from the join, or from a
			// Calc right after the join.
			into := map[int]int{}
			for _, e := range g.Edges {
				into[e.To] = e.From
			}
			found := false
			for _, e := range g.Edges {
				from, to := g.Vertices[e.From], g.Vertices[e.To]
				if to.Operator == nil || !to.Operator.Stateful || strings.Contains(to.ID, "/join-") {
					continue
				}
				if from.Name == "Calc" {
					from = g.Vertices[into[e.From]]
				}
				if !strings.Contains(from.ID, "/join-") {
					continue
				}
				found = true
				if from.Parallelism != 2 || to.Parallelism != 2 {
					t.Fatalf("%s (%d tasks) -> %s (%d tasks): want 2 each", from.ID, from.Parallelism, to.ID, to.Parallelism)
				}
				if got := e.Exchange.Kind == runtime.Forward; got != c.forward {
					t.Errorf("%s -> %s: %s exchange, want forward %v", from.ID, to.ID, e.Exchange.Kind, c.forward)
				}
			}
			if !found {
				t.Fatal("no edge from the join into a stateful operator")
			}
		})
	}
}
