package ddl

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// failureSummary describes a Failure for comparison: kind, name, key,
// whether the statement was kept, and the error's line.
func failureSummary(f Failure) string {
	s := fmt.Sprintf("%d:%s", f.Err.Line, f.Kind)
	if len(f.Name.Parts) > 0 {
		s += " name=" + f.Name.String()
	}
	if f.KeyKnown {
		s += " key=" + f.Key
	}
	if f.Statement != nil {
		s += " kept"
	}
	return s
}

func TestParseAllFailures(t *testing.T) {
	cases := []struct {
		name, in string
		// stmts are the positions (line) of the statements that parsed.
		stmts []int
		fails []string
	}{
		{"create table after name", "CREATE TABLE t (id BIGINT,) WITH ('connector' = 'datagen');\nINSERT INTO t VALUES (1);",
			[]int{2}, []string{"1:CREATE TABLE name=t"}},
		{"create table qualified name", "CREATE TABLE db.t (id STRIN);",
			nil, []string{"1:CREATE TABLE name=db.t"}},
		{"create table before name", "CREATE TABLE (id BIGINT);\nSELECT 1;",
			[]int{2}, []string{"1:CREATE TABLE"}},
		{"create view", "SELECT 1;\nCREATE VIEW v AS SELECT FROM t;\nSELECT 2;",
			[]int{1, 3}, []string{"2:CREATE VIEW name=v"}},
		{"create catalog", "CREATE CATALOG c WITH ('type' = );",
			nil, []string{"1:CREATE"}},
		{"create or replace", "CREATE OR REPLACE TABLE t (id INT);",
			nil, []string{"1:CREATE TABLE name=t"}},
		{"misspelt create", "CRATE TABLE t (id INT);\nSELECT 1;",
			[]int{2}, []string{"1:unknown statement"}},
		{"unsupported statement", "CALL sys.compact();",
			nil, []string{"1:unknown statement"}},
		{"set value", "SET 'pipeline.name' = job;\nSET 'a' = 'b';",
			[]int{2}, []string{"1:SET key=pipeline.name"}},
		{"set flink 1.13 form", "SET execution.checkpointing.interval 10s;",
			nil, []string{"1:SET"}},
		{"set without key", "SET = 'x';",
			nil, []string{"1:SET"}},
		{"reset junk", "RESET 'a' 'b';",
			nil, []string{"1:RESET key=a"}},
		{"drop", "DROP TABLE t x;\nDROP VIEW;",
			nil, []string{"1:DROP name=t", "2:DROP"}},
		{"insert", "INSERT INTO t SELECT a FROM s WHERE;",
			nil, []string{"1:INSERT"}},
		{"statement set", "EXECUTE STATEMENT SET BEGIN\nINSERT INTO t SELECT 1;\nINSERT INTO u SELECT;\nEND;\nSELECT 3;",
			[]int{5}, []string{"3:STATEMENT SET"}},
		{"explain", "EXPLAIN SELECT FROM t;", nil, []string{"1:EXPLAIN"}},
		{"query", "SELECT a FROM t QUALIFY a > 1;", nil, []string{"1:query"}},
		{"missing semicolon only", "SET 'a' = 'b'\nCREATE TABLE t (id INT) WITH ();",
			[]int{1, 2}, []string{"1:SET key=a kept"}},
		{"missing semicolon after CREATE TABLE", "CREATE TABLE t (id INT) WITH ()\nINSERT INTO t SELECT 1;",
			[]int{1, 2}, []string{"1:CREATE TABLE name=t kept"}},
		{"CREATE TABLE without columns before a statement", "CREATE TABLE t\nINSERT INTO t SELECT 1;",
			nil, []string{"2:CREATE TABLE name=t"}},
		{"junk after statement", "SELECT a FROM t x y;\nSELECT 1;",
			[]int{2}, []string{"1:query"}},
		{"several in the middle", "SELECT 1;\nCREATE TABLE a (x INTT);\nSELECT 2;\nDROP TABLE;\nSELECT 3;",
			[]int{1, 3, 5}, []string{"2:CREATE TABLE name=a", "4:DROP"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ParseAll("test.sql", c.in, Config{})
			var lines []int
			for _, s := range r.Statements {
				lines = append(lines, s.Position().Line)
			}
			if fmt.Sprint(lines) != fmt.Sprint(c.stmts) {
				t.Errorf("statements at lines %v, want %v", lines, c.stmts)
			}
			var got []string
			for _, f := range r.Failures {
				got = append(got, failureSummary(f))
			}
			if strings.Join(got, "; ") != strings.Join(c.fails, "; ") {
				t.Errorf("failures %q, want %q", got, c.fails)
			}
			if r.Truncated {
				t.Error("Truncated is set")
			}
			// Parse reports the same errors and no statements.
			stmts, err := Parse("test.sql", c.in, Config{})
			if stmts != nil || err == nil || err.Error() != r.Err().Error() {
				t.Errorf("Parse gave %d statements and %v; ParseAll's error is %v", len(stmts), err, r.Err())
			}
		})
	}
}

func TestParseAllTruncated(t *testing.T) {
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "CREATE TABLE t%d (id INTT);\n", i)
	}
	b.WriteString("SELECT 1;\n")
	r := ParseAll("test.sql", b.String(), Config{})
	if len(r.Failures) != maxErrors || !r.Truncated || len(r.Statements) != 0 {
		t.Fatalf("%d failures, %d statements, truncated %v; want %d, 0, true", len(r.Failures), len(r.Statements), r.Truncated, maxErrors)
	}
	if got := r.Failures[maxErrors-1].Name.String(); got != "t9" {
		t.Errorf("last failure names %s, want t9", got)
	}
	var l ErrorList
	if !errors.As(r.Err(), &l) || len(l) != maxErrors {
		t.Errorf("Err() = %v, want an ErrorList of %d", r.Err(), maxErrors)
	}

	// Exactly ten failures at the end of the file: nothing was left unread.
	r = ParseAll("test.sql", strings.Repeat("SELECT FROM;\n", maxErrors), Config{})
	if len(r.Failures) != maxErrors || r.Truncated {
		t.Errorf("%d failures, truncated %v; want %d, false", len(r.Failures), r.Truncated, maxErrors)
	}
}

func TestParseAllUndefinedVariable(t *testing.T) {
	cases := []struct {
		name, in string
		stmts    []int
		fails    []string // "line:col kind"
	}{
		{"statement that parses", "SELECT 1;\nSELECT ${NOPE};\nSELECT 3;",
			[]int{1, 3}, []string{"2:8 query"}},
		{"one error per statement, several statements", "SET 'a' = '${A}';\nSELECT ${B}, ${C};\nSELECT 3;",
			[]int{3}, []string{"1:12 SET key=a", "2:8 query"}},
		{"syntax error before the reference", "SELECT FROM ${A};\nSELECT 2;",
			[]int{2}, []string{"1:8 query"}},
		{"reference before the syntax error", "SELECT ${A} FROM;",
			nil, []string{"1:8 query"}},
		{"reference at the end of a statement", "SELECT 1 ${A};\nSELECT 2;",
			[]int{2}, []string{"1:10 query"}},
		{"name from a variable", "CREATE TABLE ${T} (id INT);",
			nil, []string{"1:14 CREATE TABLE"}},
		{"name ending in a variable", "CREATE TABLE t_${T} (id INT);\nCREATE TABLE ${T}_u (id INT);",
			nil, []string{"1:16 CREATE TABLE", "2:14 CREATE TABLE"}},
		{"key from a variable", "SET '${K}' = 'v';\nSET 'k' = '${V}';",
			nil, []string{"1:6 SET", "2:12 SET key=k"}},
		{"variable after the name", "CREATE TABLE t (id ${TYPE});\nDROP TABLE d ${X};",
			nil, []string{"1:20 CREATE TABLE name=t", "2:14 DROP name=d"}},
		{"reference after the last statement", "SELECT 1;\n${A}",
			[]int{1}, []string{"2:1 unknown statement"}},
		{"missing semicolon and a reference", "SELECT 1 ${A}\nSELECT 2;",
			[]int{2}, []string{"1:10 query"}},
		{"empty value breaks the statement", "SELECT ${A}\nSELECT 2;",
			nil, []string{"1:8 query"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ParseAll("test.sql", c.in, Config{})
			var lines []int
			for _, s := range r.Statements {
				lines = append(lines, s.Position().Line)
			}
			if fmt.Sprint(lines) != fmt.Sprint(c.stmts) {
				t.Errorf("statements at lines %v, want %v", lines, c.stmts)
			}
			var got []string
			for _, f := range r.Failures {
				g := fmt.Sprintf("%d:%d %s", f.Err.Line, f.Err.Column, f.Kind)
				if len(f.Name.Parts) > 0 {
					g += " name=" + f.Name.String()
				}
				if f.KeyKnown {
					g += " key=" + f.Key
				}
				got = append(got, g)
			}
			if strings.Join(got, "; ") != strings.Join(c.fails, "; ") {
				t.Errorf("failures %q, want %q:\n%v", got, c.fails, r.Err())
			}
			if r.Truncated {
				t.Error("Truncated is set")
			}
		})
	}
	// Which error a statement gets: the reference, or the syntax error
	// before it.
	r := ParseAll("test.sql", "SELECT ${A} FROM;\nSELECT FROM ${A};", Config{})
	if len(r.Failures) != 2 || !errors.Is(r.Failures[0].Err, ErrUndefinedVariable) || !errors.Is(r.Failures[1].Err, ErrSyntax) {
		t.Errorf("got %v", r.Err())
	}

	// A malformed reference stops parsing.
	r = ParseAll("test.sql", "SELECT 1;\nSELECT ${1x};", Config{})
	if len(r.Failures) != 1 || !r.Truncated || len(r.Statements) != 0 || !errors.Is(r.Err(), ErrSyntax) {
		t.Errorf("malformed reference: %d failures, %d statements, truncated %v: %v", len(r.Failures), len(r.Statements), r.Truncated, r.Err())
	}
}

func TestStatementKindString(t *testing.T) {
	for k, want := range map[StatementKind]string{KindCreateTable: "CREATE TABLE", KindQuery: "query", KindUnknown: "unknown statement", StatementKind(200): "unknown statement"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", k, got, want)
		}
	}
}
