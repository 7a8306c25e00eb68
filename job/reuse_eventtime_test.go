package job_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/job"
)

// TestStatementSetSharesEventTimeScan: in a statement set, an INSERT
// without event time (a filter) shares the scan of a table with WATERMARK
// FOR that an event-time INSERT (a window aggregation) reads: the plan
// reads the table once, and each sink gets its rows — the stateless one
// every kept row once, though its rows now travel with watermarks.
func TestStatementSetSharesEventTimeScan(t *testing.T) {
	in, counts, copied := t.TempDir(), t.TempDir(), t.TempDir()
	var data strings.Builder
	for i, ts := range []string{"10:00:01", "10:00:04", "10:00:12", "10:00:15", "10:00:19", "10:00:23"} {
		data.WriteString(`{"k":"k` + string(rune('a'+i)) + `","v":` + string(rune('0'+i)) + `,"ts":"2024-03-01 ` + ts + `"}` + "\n")
	}
	if err := os.WriteFile(filepath.Join(in, "events.json"), []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	text := `
CREATE TABLE src (k STRING, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '` + in + `', 'format' = 'json');
CREATE TABLE counts (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'filesystem', 'path' = '` + counts + `', 'format' = 'json');
CREATE TABLE copied (k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '` + copied + `', 'format' = 'json');
EXECUTE STATEMENT SET BEGIN
INSERT INTO counts SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
INSERT INTO copied SELECT k, v FROM src WHERE v >= 2;
END;`
	opts := job.Options{Logger: quiet, Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}}
	j, err := job.Compile(context.Background(), "shared_eventtime.sql", text, opts)
	if err != nil {
		t.Fatal(err)
	}
	var plan bytes.Buffer
	if err := j.Explain(&plan); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(plan.String(), "Source: src\n"); n != 1 || !strings.Contains(plan.String(), "Source: src: reused") {
		t.Errorf("the plan reads src %d times or shares nothing:\n%s", n, plan.String())
	}
	if err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := fileLines(t, counts), []string{`{"ws":"2024-03-01 10:00:00","n":2}`, `{"ws":"2024-03-01 10:00:10","n":3}`, `{"ws":"2024-03-01 10:00:20","n":1}`}; !slices.Equal(got, want) {
		t.Errorf("counts: %q, want %q", got, want)
	}
	if got, want := fileLines(t, copied), []string{`{"k":"kc","v":2}`, `{"k":"kd","v":3}`, `{"k":"ke","v":4}`, `{"k":"kf","v":5}`}; !slices.Equal(got, want) {
		t.Errorf("copied: %q, want %q", got, want)
	}
}
