package job_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/internal/testrig/flinkcases"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
)

// TestFlinkQueries runs each case of testdata/flink-queries (NAME.sql: the
// tables, then a query) through streamsql and compares its changelog with
// Flink's (NAME.flink, written by tools/flink-query-gen running Flink 2.2
// on the same file). Each value is compared as its CAST(... AS STRING), in
// both engines. A case whose first line says "order: any" (window
// aggregations, whose results of one watermark have no order) compares the
// rows sorted; one whose first line says "result: final" (joins, whose
// inputs arrive in an order neither engine fixes) compares the tables the
// changelogs leave (read as upserts on the first column when it also says
// "upsert key: first column"); the others compare the changelog row by
// row, in order.
// A case Flink refuses ("ERROR: message") must not compile, unless its
// first line says "beyond Flink": streamsql runs it, and the table its
// changelog leaves must be NAME.want's rows ("[...]" lines: Flink's
// batch-mode result, which the generator writes); or "fails when run":
// Flink's job failed, and streamsql's must fail too.
func TestFlinkQueries(t *testing.T) {
	dir, cases := flinkCaseFiles(t)
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".sql")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(c, ".sql") + ".flink")
			if err != nil {
				t.Fatalf("%v (run tools/flink-query-gen/generate.sh %s)", err, name)
			}
			text, err := flinkcases.Read(c)
			if err != nil {
				t.Fatal(err)
			}
			if msg, refused := strings.CutPrefix(string(want), "ERROR: "); refused && strings.Contains(firstLine(string(text)), "beyond Flink") {
				// Flink refuses the case and streamsql runs it: the table
				// its changelog leaves must be NAME.want's (the query's
				// batch result).
				wantRows, err := os.ReadFile(strings.TrimSuffix(c, ".sql") + ".want")
				if err != nil {
					t.Fatal(err)
				}
				got, err := final(runCase(t, name, text, dir, nil))
				if err != nil {
					t.Fatalf("streamsql's changelog: %v", err)
				}
				wl := lines(string(wantRows))
				slices.Sort(wl)
				if !slices.Equal(got, wl) {
					t.Errorf("the table streamsql's changelog leaves differs from the batch result\n--- streamsql\n%s\n--- want\n%s", strings.Join(got, "\n"), strings.Join(wl, "\n"))
				}
				return
			} else if refused && strings.Contains(firstLine(string(text)), "fails when run") {
				// Flink plans the case and its job fails: so must
				// streamsql's.
				if _, err := runCaseErr(t, name, text, dir, nil); err == nil {
					t.Fatalf("Flink's job fails (%s), streamsql's runs to its end", strings.TrimSpace(msg))
				} else {
					t.Logf("Flink: %s; streamsql: %v", strings.TrimSpace(msg), err)
				}
				return
			} else if refused {
				// Flink refuses the case: so must streamsql (the planner's
				// TestFlinkQueriesPlan checks where and how it says so).
				if _, err := job.Compile(context.Background(), name+".sql", text, job.Options{Vars: map[string]string{"DATA": dir}, Functions: caseFunctions}); err == nil {
					t.Fatalf("Flink refuses it (%s), streamsql compiles it", strings.TrimSpace(msg))
				}
				return
			}
			compare(t, text, runCase(t, name, text, dir, nil), lines(string(want)))
			if appendsRows(t, name, text, dir) {
				// A join keeps rows in list tables: with every full chunk
				// of them spilled to the task's working file (one key
				// group a task, so that the few rows of a case fill
				// chunks), the job must give Flink's result too.
				par := "1"
				if m := setParallelism.FindStringSubmatch(text); m != nil {
					par = m[1]
				}
				spill := map[string]string{"state.backend.hashmap.spill-threshold": "1b", "pipeline.max-parallelism": par}
				compare(t, text, runCase(t, name, text, dir, spill), lines(string(want)))
			}
			if reused(t, name, text, dir) {
				// The plan shares a scan or an operator
				// (table.optimizer.reuse-*): without sharing, the job must
				// give Flink's result too.
				off := map[string]string{planner.SettingReuseSubPlan: "false"}
				compare(t, text, runCase(t, name, text, dir, off), lines(string(want)))
			}
		})
	}
}

// setParallelism finds a case's SET 'parallelism.default'.
var setParallelism = regexp.MustCompile(`(?i)SET\s+'parallelism\.default'\s*=\s*'(\d+)'`)

// appendsRows reports whether the case's plan keeps a join's rows in
// list tables (EXPLAIN says "rows appended").
func appendsRows(t *testing.T, name, text, dir string) bool {
	t.Helper()
	j, err := job.Compile(context.Background(), name+".sql", text, job.Options{Vars: map[string]string{"DATA": dir}, Functions: caseFunctions})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	var b strings.Builder
	if err := j.Explain(&b); err != nil {
		t.Fatal(err)
	}
	return strings.Contains(b.String(), "rows appended")
}

// reused reports whether the case's plan shares a scan or an operator
// between readers (EXPLAIN says "reused").
func reused(t *testing.T, name, text, dir string) bool {
	t.Helper()
	j, err := job.Compile(context.Background(), name+".sql", text, job.Options{Vars: map[string]string{"DATA": dir}, Functions: caseFunctions})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	var b strings.Builder
	if err := j.Explain(&b); err != nil {
		t.Fatal(err)
	}
	return strings.Contains(b.String(), ": reused, the ")
}

// compare compares streamsql's changelog got with Flink's, wantLines, as
// the case's first line says (see TestFlinkQueries).
func compare(t *testing.T, text string, got, wantLines []string) {
	t.Helper()
	var err error
	switch head := firstLine(text); {
	case strings.Contains(head, "result: final") && strings.Contains(head, "upsert key: first column"):
		// As "result: final", but Flink prints the changelog as
		// upserts on the first column (a +U replaces the key's row
		// without a -U): both are read so, and streamsql's must also
		// be a consistent retract changelog of the same table.
		retracted, err := final(got)
		if err != nil {
			t.Fatalf("streamsql's changelog: %v", err)
		}
		if got, err = finalByFirstColumn(got); err != nil {
			t.Fatalf("streamsql's changelog read as upserts: %v", err)
		}
		if !slices.Equal(got, retracted) {
			t.Fatalf("streamsql's changelog leaves another table read as upserts than as retractions")
		}
		if wantLines, err = finalByFirstColumn(wantLines); err != nil {
			t.Fatalf("Flink's changelog: %v", err)
		}
	case strings.Contains(head, "result: final"):
		// The inputs of a join reach it in an order neither engine
		// fixes: the changelogs differ on the way, the tables they
		// leave must not.
		if got, err = final(got); err != nil {
			t.Fatalf("streamsql's changelog: %v", err)
		}
		if wantLines, err = final(wantLines); err != nil {
			t.Fatalf("Flink's changelog: %v", err)
		}
	case strings.Contains(head, "order: any"):
		slices.Sort(got)
		slices.Sort(wantLines)
	}
	if !slices.Equal(got, wantLines) {
		t.Errorf("streamsql's changelog differs from Flink's\n--- streamsql\n%s\n--- Flink\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
}

// caseFunctions are the Go functions the cases may call: Nexmark q14's
// count_char, which Flink's side runs as the public suite's Java class.
var caseFunctions = []*expr.Function{nexmark.CountChar}

// runCase runs the case's query with every column cast to STRING, as the
// generator does, and returns its printed rows.
func runCase(t *testing.T, name, text, dir string, set map[string]string) []string {
	t.Helper()
	got, err := runCaseErr(t, name, text, dir, set)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return got
}

// runCaseErr is runCase returning the run's error.
func runCaseErr(t *testing.T, name, text, dir string, set map[string]string) ([]string, error) {
	t.Helper()
	stmts := statements(text)
	query := strings.TrimSpace(stmts[len(stmts)-1])
	// The query's column names come from planning it once.
	probe, err := job.Compile(context.Background(), name+".sql", text, job.Options{Vars: map[string]string{"DATA": dir}, Functions: caseFunctions})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	ps := probe.Describe()
	cols := ps[len(ps)-1].Columns
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("CAST(`" + strings.ReplaceAll(c.Name, "`", "``") + "` AS STRING)")
	}
	b.WriteString(" FROM (" + query + ")")
	wrapped := strings.Join(stmts[:len(stmts)-1], ";") + ";\n" + b.String() + ";"
	if unwrapped(query) {
		// No query to wrap (DESCRIBE, SHOW), or one whose sort a subquery
		// would drop: the generator prints their rows as they are.
		wrapped = text
	}
	settings := map[string]string{"table.local-time-zone": "UTC", "execution.checkpointing.dir": t.TempDir()}
	maps.Copy(settings, set)
	var out bytes.Buffer
	j, err := job.Compile(context.Background(), name+".sql", wrapped, job.Options{Vars: map[string]string{"DATA": dir}, Functions: caseFunctions, Output: &out,
		Logger: slog.New(slog.DiscardHandler),
		Set:    settings})
	if err != nil {
		t.Fatalf("plan the cast query: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := j.Run(ctx); err != nil {
		return nil, err
	}
	return lines(out.String()), nil
}

// statements cuts a case into its statements at every ';' (the cases hold
// none elsewhere), without the empty ones at the end.
func statements(text string) []string {
	stmts := strings.Split(strings.TrimSpace(text), ";")
	for len(stmts) > 0 && strings.TrimSpace(stmts[len(stmts)-1]) == "" {
		stmts = stmts[:len(stmts)-1]
	}
	return stmts
}

// lastStatement returns a case's last statement, its query.
func lastStatement(text string) string {
	stmts := statements(text)
	if len(stmts) == 0 {
		return ""
	}
	return strings.TrimSpace(stmts[len(stmts)-1])
}

// describe matches a DESCRIBE or SHOW statement.
var describe = regexp.MustCompile(`(?is)^(DESCRIBE|DESC|SHOW)\s`)

// orderBy matches a query's ORDER BY, limit the clauses that make one a
// Top-N, and queryStart the start of a query.
var (
	orderBy    = regexp.MustCompile(`(?is)\bORDER\s+BY\b`)
	limit      = regexp.MustCompile(`(?is)\b(LIMIT|FETCH|OFFSET)\b`)
	queryStart = regexp.MustCompile(`(?is)^(SELECT|WITH)\b`)
)

// unwrapped reports whether a case's query runs as it is, not wrapped in
// a SELECT of its columns cast to strings (tools/flink-query-gen does the
// same): DESCRIBE and SHOW, and a query whose last clause is ORDER BY
// without LIMIT (a temporal sort, which Flink drops in a subquery).
func unwrapped(q string) bool {
	if describe.MatchString(q) {
		return true
	}
	locs := orderBy.FindAllStringIndex(q, -1)
	if len(locs) == 0 || !queryStart.MatchString(q) {
		return false
	}
	tail := q[locs[len(locs)-1][1]:]
	return !strings.ContainsAny(tail, "()") && !limit.MatchString(tail)
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// final applies a changelog ("+I[...]" lines) to an empty table and
// returns the table's rows, sorted: +I and +U add a row, -U and -D take
// one away; taking away a row the table does not hold is an error.
func final(changelog []string) ([]string, error) {
	held := map[string]int{}
	for _, l := range changelog {
		if len(l) < 3 {
			return nil, fmt.Errorf("not a changelog row: %q", l)
		}
		row := l[2:]
		switch l[:2] {
		case "+I", "+U":
			held[row]++
		case "-U", "-D":
			if held[row] == 0 {
				return nil, fmt.Errorf("%s of a row the table does not hold", l)
			}
			held[row]--
		default:
			return nil, fmt.Errorf("not a changelog row: %q", l)
		}
	}
	var out []string
	for row, n := range held {
		for range n {
			out = append(out, row)
		}
	}
	slices.Sort(out)
	return out, nil
}

// finalByFirstColumn applies a changelog to an empty table keyed by its
// rows' first column and returns the table's rows, sorted: +I adds the row
// of a key the table does not hold, +U sets the key's row (replacing the
// one held, if any), -U and -D take away the key's row, which must be the
// one held.
func finalByFirstColumn(changelog []string) ([]string, error) {
	held := map[string]string{}
	for _, l := range changelog {
		if len(l) < 4 || l[2] != '[' {
			return nil, fmt.Errorf("not a changelog row: %q", l)
		}
		row := l[2:]
		key, _, _ := strings.Cut(row[1:], ", ")
		switch l[:2] {
		case "+I":
			if old, ok := held[key]; ok {
				return nil, fmt.Errorf("%s while the table holds %s for its key", l, old)
			}
			held[key] = row
		case "+U":
			held[key] = row
		case "-U", "-D":
			if held[key] != row {
				return nil, fmt.Errorf("%s of a row the table does not hold (it holds %q for the key)", l, held[key])
			}
			delete(held, key)
		default:
			return nil, fmt.Errorf("not a changelog row: %q", l)
		}
	}
	out := make([]string, 0, len(held))
	for _, row := range held {
		out = append(out, row)
	}
	slices.Sort(out)
	return out, nil
}

// TestMiniBatchFoldsTheChangelog: the mini-batch case of Nexmark q17 (the
// suite's table.exec.mini-batch settings) runs as a job whose GROUP BY
// folds each key's rows per input batch: its changelog is shorter than the
// same query's without the settings (TestFlinkQueries compares both
// cases' final tables with Flink's), and leaves the same table.
func TestMiniBatchFoldsTheChangelog(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "flink-queries"))
	if err != nil {
		t.Fatal(err)
	}
	var changes [2]int
	var tables [2][]string
	for i, name := range []string{"nexmark_q17", "nexmark_q17_minibatch"} {
		text, err := flinkcases.Read(filepath.Join(dir, name+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		got := runCase(t, name, text, dir, nil)
		changes[i] = len(got)
		if tables[i], err = final(got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if changes[1] >= changes[0]/2 {
		t.Errorf("with mini-batch %d changes, without %d: want fewer than half", changes[1], changes[0])
	}
	if !slices.Equal(tables[0], tables[1]) {
		t.Errorf("the final tables differ with and without mini-batch")
	}
	t.Logf("changes: %d without mini-batch, %d with", changes[0], changes[1])
}

// TestFlinkQueriesParallel runs each case that Flink runs at parallelism
// 3 (sources that can split, operators and the query's sink): the table
// its changelog leaves must be the one Flink's leaves. The rows of one
// key are changed in one task, in order, so the table does not depend on
// how the tasks' outputs interleave.
func TestFlinkQueriesParallel(t *testing.T) {
	dir, cases := flinkCaseFiles(t)
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".sql")
		want, err := os.ReadFile(strings.TrimSuffix(c, ".sql") + ".flink")
		if err != nil || strings.HasPrefix(string(want), "ERROR: ") {
			continue // TestFlinkQueries checks the refusals
		}
		text, err := flinkcases.Read(c)
		if err != nil {
			t.Fatal(err)
		}
		if describe.MatchString(lastStatement(text)) {
			continue // DESCRIBE and SHOW print the catalog: no tasks to spread
		}
		t.Run(name, func(t *testing.T) {
			got := runCase(t, name, text, dir, map[string]string{"parallelism.default": "3"})
			wantLines := lines(string(want))
			if strings.Contains(firstLine(text), "upsert key: first column") {
				if got, err = finalByFirstColumn(got); err != nil {
					t.Fatalf("streamsql's changelog read as upserts: %v", err)
				}
				wantLines, err = finalByFirstColumn(wantLines)
			} else {
				if got, err = final(got); err != nil {
					t.Fatalf("streamsql's changelog: %v", err)
				}
				wantLines, err = final(wantLines)
			}
			if err != nil {
				t.Fatalf("Flink's changelog: %v", err)
			}
			if !slices.Equal(got, wantLines) {
				t.Errorf("at parallelism 3 the table streamsql's changelog leaves differs from Flink's\n--- streamsql\n%s\n--- Flink\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
			}
		})
	}
}

// flinkCaseFiles returns the folder of the Flink-compared cases and their
// NAME.sql files.
func flinkCaseFiles(t *testing.T) (dir string, cases []string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "flink-queries"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err = filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil || len(cases) < 10 {
		t.Fatalf("cases: %v, %v", cases, err)
	}
	return dir, cases
}

// TestFlinkQueriesOneProc runs the Top-N and deduplication cases with
// GOMAXPROCS 1, where an edge from one task into one task fuses whatever
// its exchange (the runtime's attempt.oneToOne): the keyed operators run
// in their source's task, and a window Top-N's must still get the rows a
// window emits at a watermark (over its channel, not fused), against
// Flink's output.
func TestFlinkQueriesOneProc(t *testing.T) {
	prev := goruntime.GOMAXPROCS(1)
	defer goruntime.GOMAXPROCS(prev)
	dir, cases := flinkCaseFiles(t)
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".sql")
		if !strings.HasPrefix(name, "rank_") && !strings.HasPrefix(name, "dedup_") && name != "nexmark_q18" && name != "nexmark_q19" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(c, ".sql") + ".flink")
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(string(want), "ERROR: ") {
				return // TestFlinkQueries checks the cases Flink refuses
			}
			text, err := flinkcases.Read(c)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, text, runCase(t, name, text, dir, nil), lines(string(want)))
		})
	}
}
