package planner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// chainJob is a job whose filter is a generated chain of n terms on one
// line, as tools that write SQL produce.
func chainJob(op string, n int) string {
	terms := make([]string, n)
	for i := range terms {
		terms[i] = fmt.Sprintf("id <> %d", i)
		if op == "OR" {
			terms[i] = fmt.Sprintf("id = %d", i)
		}
	}
	return "CREATE TABLE t (id BIGINT) WITH ('connector' = 'datagen');\n" +
		"CREATE TABLE s (id BIGINT) WITH ('connector' = 'blackhole');\n" +
		"INSERT INTO s SELECT id FROM t WHERE " + strings.Join(terms, " "+op+" ") + ";\n"
}

// TestLongFilterChains: filters of thousands of OR / AND terms plan (as
// one n-ary call; BenchmarkCompileLongOrChain shows the time is linear)
// and keep exactly the rows they should.
func TestLongFilterChains(t *testing.T) {
	for _, c := range []struct {
		op         string
		keep, drop int64
	}{{"OR", 4999, 5000}, {"AND", 5000, 4999}} {
		p := compile(t, chainJob(c.op, 5000))
		tf, err := p.Inserts[0].Flows[0].Transform(expr.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for id, want := range map[int64]int{c.keep: 1, c.drop: 0} {
			out, err := tf(types.Row{Fields: []types.Value{types.Int64(id)}}, nil)
			if err != nil || len(out) != want {
				t.Errorf("%s chain, id %d: %d rows (%v), want %d", c.op, id, len(out), err, want)
			}
		}
	}
}

func BenchmarkCompileLongOrChain(b *testing.B) {
	job := chainJob("OR", 16000)
	for range b.N {
		if _, err := planner.Compile(context.Background(), "job.sql", job, planner.Options{Registry: testRegistry()}); err != nil {
			b.Fatal(err)
		}
	}
}
