package job_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/job"
)

// TestCreateTableAsRuns: a CREATE TABLE ... AS query job writes the
// query's rows, with the query's column names, into the table it creates
// (a filesystem table of json files), and a second CTAS into it with IF
// NOT EXISTS adds its rows.
func TestCreateTableAsRuns(t *testing.T) {
	dir := t.TempDir()
	j, err := job.Compile(context.Background(), "ctas.sql", `
CREATE TABLE copy1 WITH ('connector' = 'filesystem', 'path' = '`+dir+`', 'format' = 'json')
AS SELECT id, UPPER(name) AS name FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c')) AS v(id, name) WHERE id > 1;
CREATE TABLE IF NOT EXISTS copy1 WITH ('connector' = 'blackhole') AS SELECT 10, 'z';`, job.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var lines []string
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		data, err := os.ReadFile(path)
		for l := range strings.Lines(string(data)) {
			lines = append(lines, strings.TrimSpace(l))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	want := []string{`{"id":10,"name":"z"}`, `{"id":2,"name":"B"}`, `{"id":3,"name":"C"}`}
	if !slices.Equal(lines, want) {
		t.Errorf("files hold %q, want %q", lines, want)
	}
}
