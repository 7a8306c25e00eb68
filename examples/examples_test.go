// Package examples_test checks the job files under examples/sql: every
// file plans and its EXPLAIN matches the golden beside it (no broker
// needed), and, against a real broker, every file runs in a bounded
// variant and its output equals the expected rows kept beside it
// (run_test.go).
package examples_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/job"
)

var update = flag.Bool("update", false, "rewrite the .explain goldens")

// exampleFiles returns the job files under sql/.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("sql", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no job files under examples/sql (err %v)", err)
	}
	return files
}

// TestExplain plans every example with a placeholder broker address and
// compares its EXPLAIN with sql/<name>.explain (go test ./examples -update
// rewrites them).
func TestExplain(t *testing.T) {
	for _, file := range exampleFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".sql")
		t.Run(name, func(t *testing.T) {
			j, err := job.CompileFile(context.Background(), file, job.Options{
				Vars: map[string]string{"KAFKA_BOOTSTRAP": "127.0.0.1:9092"},
			})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := j.Explain(&buf); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("sql", name+".explain")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./examples -run TestExplain -update writes it)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("EXPLAIN of %s differs from %s (review, then go test ./examples -run TestExplain -update):\n%s", file, golden, got)
			}
		})
	}
}
