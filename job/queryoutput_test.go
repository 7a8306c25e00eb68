package job_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/job"
)

// TestSelectsShareOutput runs several bare SELECTs, each over many rows,
// into one Options.Output that is not safe for concurrent use (a
// bytes.Buffer): under the race detector it fails if two SELECTs' sinks
// write at once, and every line must come out whole.
func TestSelectsShareOutput(t *testing.T) {
	var sql strings.Builder
	const selects, rows = 4, 500
	for s := range selects {
		fmt.Fprintf(&sql, "SELECT %d AS s, n FROM (VALUES ", s)
		for i := range rows {
			if i > 0 {
				sql.WriteString(", ")
			}
			fmt.Fprintf(&sql, "(%d)", i)
		}
		sql.WriteString(") AS t (n);\n")
	}
	var out bytes.Buffer
	j, err := job.Compile(context.Background(), "selects.sql", sql.String(), job.Options{Output: &out, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		seen[line] = true
	}
	for s := range selects {
		for i := range rows {
			// Several SELECTs label their rows with the query's number.
			if want := fmt.Sprintf("%d> +I[%d, %d]", s+1, s, i); !seen[want] {
				t.Fatalf("line %q missing from the output (%d lines)", want, len(seen))
			}
		}
	}
	if len(seen) != selects*rows {
		t.Fatalf("%d distinct lines, want %d", len(seen), selects*rows)
	}
}
