package ddl

import (
	"path/filepath"
	"testing"
)

// TestJobFiles parses the realistic job files in testdata/jobs, which
// combine the statement and expression forms the way users write them.
func TestJobFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/jobs/*.sql")
	if err != nil || len(files) < 4 {
		t.Fatalf("job files missing: %v", err)
	}
	counts := map[string]int{
		"datagen_to_print.sql": 6,
		"kafka_fanout.sql":     6,
		"filesystem_sink.sql":  9,
		"orders.sql":           4,
	}
	for _, f := range files {
		stmts, err := ParseFile(f, Config{Vars: map[string]string{"KAFKA_BOOTSTRAP": "b:9092"}})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if want := counts[filepath.Base(f)]; len(stmts) != want {
			t.Errorf("%s: %d statements, want %d", f, len(stmts), want)
		}
		for _, s := range stmts {
			_ = dump(s)
		}
	}
}
