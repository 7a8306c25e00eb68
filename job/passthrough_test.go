package job

import (
	"context"
	"testing"

	"github.com/streamsql/streamsql/planner"
)

// TestPassThroughFlow: the flow after a stateful operator gets no Calc
// when it would pass the operator's rows on unchanged (Nexmark q17's
// projection after its aggregate), and keeps it when it computes, filters,
// reorders or drops a column.
func TestPassThroughFlow(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, insert string
		calcs        int // the flow in front of the aggregate has one
	}{
		{"pass-through", "INSERT INTO out2 SELECT k, COUNT(*) FROM gen GROUP BY k", 1},
		{"computed", "INSERT INTO out2 SELECT k, COUNT(*) + 1 FROM gen GROUP BY k", 2},
		{"filtered", "INSERT INTO out2 SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM gen GROUP BY k) WHERE n > 1", 2},
		{"reordered", "INSERT INTO out2 SELECT n, k FROM (SELECT k, COUNT(*) AS n FROM gen GROUP BY k)", 2},
		{"dropped", "INSERT INTO out1 SELECT k FROM (SELECT k, COUNT(*) AS n FROM gen GROUP BY k)", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := `CREATE TABLE gen (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out1 (k BIGINT) WITH ('connector' = 'blackhole');
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
			calcs := 0
			for _, v := range g.Vertices {
				if v.Name == "Calc" {
					calcs++
				}
			}
			if calcs != c.calcs {
				var ids []string
				for _, v := range g.Vertices {
					ids = append(ids, v.ID)
				}
				t.Errorf("%d Calc vertices, want %d: %q", calcs, c.calcs, ids)
			}
		})
	}
}
