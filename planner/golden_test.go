package planner_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// expectPlannerUnsupported marks a documentation example that parses but
// that the planner must refuse (see ddl/testdata/flink-docs/README.txt).
var expectPlannerUnsupported = regexp.MustCompile(`(?m)^-- expect-planner-unsupported: (.*)$`)

// checkPlannerRefusal checks that err holds a planner refusal (a
// *planner.Error wrapping ddl.ErrUnsupported, not a parse error) whose
// message contains what.
func checkPlannerRefusal(t *testing.T, name string, err error, what string) {
	t.Helper()
	for _, e := range planner.Errors(err) {
		var pe *planner.Error
		if errors.As(e, &pe) && errors.Is(e, ddl.ErrUnsupported) && strings.Contains(pe.Message, what) && strings.Contains(pe.Message, "not supported yet") {
			return
		}
	}
	t.Errorf("%s: want the planner to refuse it with a not-supported error naming %q, got %v", name, what, err)
}

// plan plans a job file with the test registry and returns the EXPLAIN
// text, or the error text.
func plan(t *testing.T, path string) (string, error) {
	t.Helper()
	p, err := planner.CompileFile(context.Background(), path, planner.Options{
		Registry: testRegistry(),
		Vars:     map[string]string{"KAFKA_BOOTSTRAP": "127.0.0.1:9092", "OUT_DIR": "/tmp/out", "IN_DIR": "/tmp/in"},
	})
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", golden, got, want)
	}
}

// TestExplainGolden plans every job in testdata/explain and compares its
// EXPLAIN output with the .golden file beside it.
func TestExplainGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/explain/*.sql")
	if len(files) == 0 {
		t.Fatal("no test files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, err := plan(t, f)
			if err != nil {
				t.Fatalf("planning failed:\n%v", err)
			}
			checkGolden(t, strings.TrimSuffix(f, ".sql")+".golden", out)
		})
	}
}

// noDefaultFolder marks an error test file planned where no default
// checkpoint folder is known (no XDG_STATE_HOME, no home directory).
const noDefaultFolder = "-- (planned without a default checkpoint folder)"

// TestErrorGolden plans every job in testdata/errors, each of which must
// fail, and compares the error text with the .golden file beside it.
func TestErrorGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.sql")
	if len(files) == 0 {
		t.Fatal("no test files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if src, err := os.ReadFile(f); err == nil && strings.Contains(string(src), noDefaultFolder) {
				t.Setenv("XDG_STATE_HOME", "")
				t.Setenv("HOME", "")
			}
			_, err := plan(t, f)
			if err == nil {
				t.Fatal("planning succeeded; want an error")
			}
			checkGolden(t, strings.TrimSuffix(f, ".sql")+".golden", err.Error()+"\n")
		})
	}
}

// TestCorpus plans the job files of the ddl corpus and the examples: each
// either plans and explains, or fails with the errors recorded in its
// golden file (constructs not supported yet, and the mistakes the files
// contain on purpose).
func TestCorpus(t *testing.T) {
	var files []string
	for _, g := range []string{"../ddl/testdata/jobs/*.sql", "../examples/sql/*.sql"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("corpus missing: %d files", len(files))
	}
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f)) + "_" + strings.TrimSuffix(filepath.Base(f), ".sql")
		t.Run(name, func(t *testing.T) {
			out, err := plan(t, f)
			if err != nil {
				out = "ERRORS\n" + err.Error() + "\n"
			}
			checkGolden(t, filepath.Join("testdata", "corpus", name+".golden"), out)
		})
	}
}

// TestFlinkDocsCorpus plans the examples from Flink's documentation
// (ddl/testdata/flink-docs, examples separated by "-- ====" lines). An
// example with only DDL extends the catalog of the examples after it in
// the same file (documentation pages define a table once and use it
// later); one with an INSERT or query is planned and explained. Results,
// including the precise "not supported yet" errors, are in golden files.
func TestFlinkDocsCorpus(t *testing.T) {
	files, _ := filepath.Glob("../ddl/testdata/flink-docs/*.sql")
	if len(files) < 8 {
		t.Fatalf("corpus missing: %d files", len(files))
	}
	ctx := context.Background()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sql")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			// The documentation assumes a table named source_table.
			cat := planner.NewCatalog()
			if err := cat.RegisterTable("source_table", factory.Schema{Columns: []factory.Column{
				{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}, {Name: "age", Type: types.Int()},
			}}, map[string]string{"connector": "datagen"}); err != nil {
				t.Fatal(err)
			}
			for i, ex := range strings.Split(string(src), "\n-- ====") {
				exName := fmt.Sprintf("%s#%d", name, i)
				// A table defined again replaces the earlier example's.
				if stmts, err := ddl.Parse(exName, ex, ddl.Config{}); err == nil {
					for _, s := range stmts {
						switch s := s.(type) {
						case *ddl.CreateTable:
							cat.Drop(s.Name.String())
						case *ddl.CreateView:
							cat.Drop(s.Name.String())
						}
					}
				}
				opts := planner.Options{Registry: testRegistry(), Catalog: cat}
				fmt.Fprintf(&out, "==== example %d\n", i)
				p, err := planner.Compile(ctx, exName, ex, opts)
				if m := expectPlannerUnsupported.FindStringSubmatch(ex); m != nil {
					checkPlannerRefusal(t, exName, err, m[1])
				}
				switch {
				case errors.Is(err, planner.ErrNoJob):
					c, err := planner.LoadCatalog(ctx, exName, ex, opts)
					if err != nil {
						fmt.Fprintf(&out, "ERRORS\n%v\n", err)
						continue
					}
					cat = c
					fmt.Fprintf(&out, "(definitions only; catalog: %s)\n", strings.Join(cat.Names(), ", "))
				case err != nil:
					fmt.Fprintf(&out, "ERRORS\n%v\n", err)
				default:
					cat = p.Catalog
					out.WriteString(p.String())
				}
			}
			checkGolden(t, filepath.Join("testdata", "corpus", "flink-docs_"+name+".golden"), out.String())
		})
	}
}
