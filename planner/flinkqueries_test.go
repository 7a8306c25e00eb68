package planner_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/internal/testrig/flinkcases"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
)

// TestFlinkQueriesPlan plans every case of job/testdata/flink-queries (the
// queries whose changelogs tools/flink-query-gen computes with Flink
// itself). A case Flink runs must plan; a case Flink refuses (its .flink
// file is "ERROR: message") must be refused too, with a planner error
// (not a parse error) that points at a line and column of the case.
// Flink's message and streamsql's error text of each refused case are in
// testdata/flink-refused.golden, so that a change of either shows. A case
// whose first line says "beyond Flink" is one streamsql runs although
// Flink refuses it.
func TestFlinkQueriesPlan(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "job", "testdata", "flink-queries"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil || len(cases) < 10 {
		t.Fatalf("cases: %v, %v", cases, err)
	}
	var refused strings.Builder
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".sql")
		flink, err := os.ReadFile(strings.TrimSuffix(c, ".sql") + ".flink")
		if err != nil {
			t.Fatalf("%v (run tools/flink-query-gen/generate.sh %s)", err, name)
		}
		text, err := flinkcases.Read(c)
		if err != nil {
			t.Fatal(err)
		}
		_, err = planner.Compile(context.Background(), name+".sql", text, planner.Options{
			Registry: testRegistry(), Vars: map[string]string{"DATA": dir},
			// Nexmark q14's count_char, a Java class on Flink's side.
			Functions: []*expr.Function{nexmark.CountChar}})
		flinkErr, refusedByFlink := strings.CutPrefix(strings.TrimSpace(string(flink)), "ERROR: ")
		if !refusedByFlink {
			if err != nil {
				t.Errorf("%s: Flink runs it, streamsql refuses it: %v", name, err)
			}
			continue
		}
		var pe *planner.Error
		switch {
		case err == nil && strings.Contains(strings.SplitN(string(text), "\n", 2)[0], "beyond Flink"):
			// streamsql runs what Flink refuses (job's TestFlinkQueries
			// checks its result).
			fmt.Fprintf(&refused, "==== %s\nFlink: %s\nstreamsql: runs it (beyond Flink)\n", name, flinkErr)
			continue
		case err == nil && strings.Contains(strings.SplitN(string(text), "\n", 2)[0], "fails when run"):
			// Flink plans it and its job fails; job's TestFlinkQueries
			// checks that streamsql's fails too.
			fmt.Fprintf(&refused, "==== %s\nFlink: %s (when run)\nstreamsql: plans it; its job fails when run\n", name, flinkErr)
			continue
		case err == nil:
			t.Errorf("%s: Flink refuses it (%s), streamsql plans it", name, flinkErr)
			continue
		case !errors.As(err, &pe) || pe.Pos.Line == 0 || pe.Pos.Column == 0:
			t.Errorf("%s: want a planner error at a line and column, got %v", name, err)
		case errors.Is(err, ddl.ErrSyntax):
			t.Errorf("%s: refused as a syntax error: %v", name, err)
		}
		fmt.Fprintf(&refused, "==== %s\nFlink: %s\nstreamsql: %v\n", name, flinkErr, err)
	}
	checkGolden(t, filepath.Join("testdata", "flink-refused.golden"), refused.String())
}
