// Package examples_test checks the job files under examples/sql: every
// file plans and explains (no broker needed), and every file runs in a
// bounded variant whose output equals the expected rows kept beside it
// (run_test.go; the Kafka ones against the real broker).
package examples_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/streamsql/streamsql/connectors/all" // every connector and format the job files name
	"github.com/streamsql/streamsql/job"
)

var update = flag.Bool("update", false, "rewrite the .expected files from this run (review them before committing)")

// exampleFiles returns the job files under sql/.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("sql", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no job files under examples/sql (err %v)", err)
	}
	return files
}

// expectedWarnings are the EXPLAIN warnings the examples show on purpose.
var expectedWarnings = map[string][]string{
	// Flink 1.13's option name, kept to show that old job files work.
	"exactly_once": {"option 'sink.semantic' is deprecated"},
	// The point of the example.
	"isolation_levels": {"reads topic 'isolation-events' with isolation level read_uncommitted"},
	// Shows that a Flink job file's ADD JAR does not stop it.
	"page_views_uv": {"ADD JAR '/opt/flink/lib/flink-sql-connector-kafka.jar' is ignored"},
}

// expectedKinds are the kinds of expectedWarnings, in the same order.
var expectedKinds = map[string][]job.WarningKind{
	"exactly_once":     {job.WarnDeprecatedOption},
	"isolation_levels": {job.WarnUncommittedRead},
	"page_views_uv":    {job.WarnIgnoredJar},
}

// TestExplain plans every example through the embedding API with a
// placeholder broker address (nothing connects) and checks its EXPLAIN:
// the job's name, every pipeline, and exactly the warnings the example
// means to show. The exact EXPLAIN text of each is a golden of the
// planner's tests (planner/testdata/corpus/sql_<name>.golden).
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
			text := buf.String()
			if !strings.HasPrefix(text, "Job: "+name+"\n") {
				t.Errorf("EXPLAIN does not start with the job's name %q:\n%s", name, text)
			}
			for _, p := range j.Pipelines() {
				if p != "print" && !strings.HasPrefix(p, "print-") && !strings.Contains(text, "INSERT INTO "+p) {
					t.Errorf("EXPLAIN does not show pipeline %s:\n%s", p, text)
				}
			}
			want := expectedWarnings[name]
			got := j.Warnings()
			if len(got) != len(want) {
				t.Fatalf("warnings %q, want %d matching %q", got, len(want), want)
			}
			for i, w := range got {
				if !strings.Contains(w.Message, want[i]) || !strings.Contains(text, w.Message) {
					t.Errorf("warning %q: want one containing %q, shown by EXPLAIN", w.Message, want[i])
				}
				if k := expectedKinds[name][i]; w.Kind != k {
					t.Errorf("warning %q: kind %q, want %q", w.Message, w.Kind, k)
				}
			}
		})
	}
}

// TestSampleInputsAreShown: every sample input file under examples/data
// (NAME/TOPIC.jsonl, one record per line) is named by an example's comment
// with the command that loads it ('streamsql topic load' or 'run
// --embedded-kafka --load'), so a reader of the example knows how to give
// its topic the input its .expected file comes from.
func TestSampleInputsAreShown(t *testing.T) {
	samples, err := filepath.Glob(filepath.Join("data", "*", "*.jsonl"))
	if err != nil || len(samples) < 6 {
		t.Fatalf("sample inputs under examples/data: %v (err %v), want at least 6", samples, err)
	}
	var comments strings.Builder
	for _, f := range exampleFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		comments.Write(b)
	}
	text := comments.String()
	for _, s := range samples {
		path := "examples/" + filepath.ToSlash(s)
		if !strings.Contains(text, path) || !strings.Contains(text, "--load "+strings.TrimSuffix(filepath.Base(s), ".jsonl")+"=") {
			t.Errorf("no example names %s and how to --load it", path)
		}
	}
}
