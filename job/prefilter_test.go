package job_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
)

// TestSharedScanPrefilter runs two INSERTs of a statement set that read
// one table (a shared scan) with filters that keep rows of type 0 and of
// type 1 (as Nexmark's person and auction views over its events): the
// scan's rows that neither keeps go no further than the source's task
// (its rows out are the kept ones), and each sink gets exactly its rows.
func TestSharedScanPrefilter(t *testing.T) {
	in, out, out2 := t.TempDir(), t.TempDir(), t.TempDir()
	var b strings.Builder
	var want, want2 []string
	kept := 0
	for i := range 500 {
		fmt.Fprintf(&b, "{\"t\":%d,\"v\":%d}\n", i%5, i)
		switch i % 5 {
		case 0:
			want = append(want, fmt.Sprintf(`{"v":%d}`, i))
			kept++
		case 1:
			want2 = append(want2, fmt.Sprintf(`{"v":%d}`, -i))
			kept++
		}
	}
	if err := os.WriteFile(filepath.Join(in, "events.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `CREATE TABLE src (t INT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '` + in + `', 'format' = 'json');
CREATE TABLE snk (v BIGINT) WITH ('connector' = 'filesystem', 'path' = '` + out + `', 'format' = 'json');
CREATE TABLE snk2 (v BIGINT) WITH ('connector' = 'filesystem', 'path' = '` + out2 + `', 'format' = 'json');
`
	j, err := job.Compile(context.Background(), "prefilter.sql", src+`EXECUTE STATEMENT SET BEGIN
INSERT INTO snk SELECT v FROM src WHERE t = 0;
INSERT INTO snk2 SELECT -v FROM src WHERE t = 1;
END;`,
		job.Options{Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for k, o := range []string{out, out2} {
		w := [][]string{want, want2}[k]
		slices.Sort(w)
		if got := fileLines(t, o); !slices.Equal(got, w) {
			t.Fatalf("sink %d holds %d rows, want %d", k+1, len(got), len(w))
		}
	}
	// Each reader's Calc gets the rows some reader keeps, not every row.
	calcs := 0
	for _, ts := range j.Status().Tasks {
		if ts.Kind == runtime.OperatorTask && strings.HasSuffix(ts.Name, "/calc-1") {
			calcs++
			if ts.RecordsIn != int64(kept) {
				t.Errorf("%s got %d rows, want the %d a reader keeps", ts.Name, ts.RecordsIn, kept)
			}
		}
	}
	if calcs != 2 {
		t.Errorf("%d readers' Calc tasks, want 2", calcs)
	}

	// A row a reader's filter fails on fails the job with that filter's
	// error, as without the prefilter.
	j, err = job.Compile(context.Background(), "prefilter_error.sql", src+`EXECUTE STATEMENT SET BEGIN
INSERT INTO snk SELECT v FROM src WHERE t = 0;
INSERT INTO snk2 SELECT -v FROM src WHERE 10 / (v - 7) > 0;
END;`,
		job.Options{Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	err = j.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("a failing filter: %v, want the branch's error", err)
	}
}
