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
	lines := fileLines(t, dir)
	want := []string{`{"id":10,"name":"z"}`, `{"id":2,"name":"B"}`, `{"id":3,"name":"C"}`}
	if !slices.Equal(lines, want) {
		t.Errorf("files hold %q, want %q", lines, want)
	}
}

// TestCreateTableAsColumnsRun runs CREATE TABLE ... AS with column lists:
// a new column is written as NULL before the query's, a query column takes
// the list's type, and a list of names orders the query's columns.
func TestCreateTableAsColumnsRun(t *testing.T) {
	dir1, dir2 := t.TempDir(), t.TempDir()
	j, err := job.Compile(context.Background(), "ctas_columns.sql", `
CREATE TABLE added (note STRING, id DOUBLE, twice AS id * 2) WITH ('connector' = 'filesystem', 'path' = '`+dir1+`', 'format' = 'json')
AS SELECT id, name FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, name);
CREATE TABLE reordered (name, id) WITH ('connector' = 'filesystem', 'path' = '`+dir2+`', 'format' = 'json')
AS SELECT id, name FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, name);`,
		job.Options{Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := fileLines(t, dir1), []string{`{"note":null,"id":1.0,"name":"a"}`, `{"note":null,"id":2.0,"name":"b"}`}; !slices.Equal(got, want) {
		t.Errorf("added: files hold %q, want %q", got, want)
	}
	if got, want := fileLines(t, dir2), []string{`{"name":"a","id":1}`, `{"name":"b","id":2}`}; !slices.Equal(got, want) {
		t.Errorf("reordered: files hold %q, want %q", got, want)
	}
}

// fileLines returns the lines of the files under dir (not the hidden
// ones), sorted.
func fileLines(t *testing.T, dir string) []string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
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
	return lines
}
