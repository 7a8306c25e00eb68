package planner_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/planner"
)

var update = flag.Bool("update", false, "rewrite the golden files")

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

// TestErrorGolden plans every job in testdata/errors, each of which must
// fail, and compares the error text with the .golden file beside it.
func TestErrorGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.sql")
	if len(files) == 0 {
		t.Fatal("no test files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := plan(t, f)
			if err == nil {
				t.Fatal("planning succeeded; want an error")
			}
			checkGolden(t, strings.TrimSuffix(f, ".sql")+".golden", err.Error()+"\n")
		})
	}
}

// TestCorpus plans the ddl corpus and the examples: each file either plans
// and explains, or fails with the errors recorded in its golden file
// (constructs not supported yet).
func TestCorpus(t *testing.T) {
	var files []string
	for _, g := range []string{"../ddl/testdata/flink-docs/*.sql", "../ddl/testdata/jobs/*.sql", "../examples/sql/*.sql"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no corpus files")
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
