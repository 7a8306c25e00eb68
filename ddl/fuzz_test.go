package ddl

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/streamsql/streamsql/types"
)

// FuzzParse checks that no input makes Parse, ParseAll or ParseExpr panic
// or loop, that ParseAll reports the errors Parse does, that every error
// is an *Error whose position lies inside the input, and that a parsed
// expression printed with FormatExpr, or query printed with FormatQuery,
// parses back to the same tree. The seed corpus in testdata/fuzz/FuzzParse
// holds the documentation examples, the error cases, the query forms of
// TestQueryForms, the Nexmark queries and hand-written edge cases. Run it
// with
//
//	go test -run=^$ -fuzz=FuzzParse -fuzztime=2m -parallel=1 ./ddl
func FuzzParse(f *testing.F) {
	f.Add("SET 'a' = 'b'; INSERT INTO t SELECT CAST(a AS INT), m['k'] FROM s /*+ OPTIONS('x'='y') */ WHERE a IS NOT DISTINCT FROM b")
	f.Add("CREATE TABLE t (n STRING, a DOUBLE, c AS a * 2, WATERMARK FOR ts AS ts, PRIMARY KEY (k) NOT ENFORCED) WITH ('x' = 'y') AS SELECT k, a, ts FROM s; CREATE TABLE u (a, k) AS SELECT k, a FROM s")
	f.Add("CREATE TABLE t (a INT, b STRING, c AS a + 1) WITH ('x' = 'y'); ALTER TABLE t ADD (d INT FIRST, e INT AFTER a, WATERMARK FOR ts AS ts); ALTER TABLE IF EXISTS t MODIFY b INT; ALTER TABLE t DROP (a, b); ALTER TABLE t RENAME a TO z; ALTER TABLE t SET ('k' = 'v'); ALTER TABLE t RESET ('k'); ALTER TABLE t RENAME TO u; ALTER VIEW v RENAME TO w; ALTER VIEW v AS SELECT 1")
	f.Add("DESCRIBE t; DESC EXTENDED c.d.t; SHOW TABLES IN d NOT LIKE 'a%'; SHOW DATABASES FROM c ILIKE 'x'; SHOW CURRENT CATALOG; SHOW COLUMNS FROM t LIKE '%'")
	f.Fuzz(func(t *testing.T, src string) {
		if e, err := ParseExpr("fuzz.sql", src); err == nil {
			checkRoundTrip(t, e)
		}
		cfg := Config{Vars: map[string]string{"V": "x'y", "EMPTY": ""}}
		stmts, err := Parse("fuzz.sql", src, cfg)
		checkParseAll(t, src, cfg, err)
		if err != nil {
			var errs ErrorList
			if !errors.As(err, &errs) {
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("error is %T, not *Error: %v", err, err)
				}
				errs = ErrorList{pe}
			}
			if len(errs) == 0 || len(errs) > maxErrors || stmts != nil {
				t.Fatalf("%d errors and %d statements", len(errs), len(stmts))
			}
			for _, pe := range errs {
				if pe.Line < 1 || pe.Column < 1 || pe.Offset < 0 || pe.Offset > len(src) {
					t.Fatalf("error position %d:%d (offset %d) outside input of %d bytes: %v", pe.Line, pe.Column, pe.Offset, len(src), err)
				}
				if pe.Err == nil || pe.Message == "" {
					t.Fatalf("error without class or message: %#v", pe)
				}
				if utf8.ValidString(src) && !utf8.ValidString(pe.Error()) {
					t.Fatalf("error text is not valid UTF-8: %q", pe.Error())
				}
			}
			return
		}
		// MergeLike on any parsed pair of tables must not panic either.
		var tables []*CreateTable
		for _, s := range stmts {
			if ct, ok := s.(*CreateTable); ok {
				tables = append(tables, ct)
			}
		}
		if len(tables) >= 2 && tables[len(tables)-1].Like != nil {
			if merged, err := MergeLike(tables[len(tables)-1], tables[0]); err == nil {
				_ = dump(merged)
			}
		}
		// AlterTableDef of the first table by any parsed ALTER TABLE must
		// not panic.
		for _, s := range stmts {
			if a, ok := s.(*AlterTable); ok && len(tables) > 0 && a.Kind != AlterRename {
				if altered, err := AlterTableDef(tables[0], a); err == nil {
					_ = dump(altered)
				}
			}
		}
		// MergeAs on any parsed CREATE TABLE ... AS must not panic.
		query := []QueryColumn{{Name: "a", Type: types.Int()}, {Name: "k", Type: types.String().NotNullable()}, {Name: "ts", Type: types.TimestampType(3)}}
		for _, ct := range tables {
			if ct.AsQuery != nil {
				if merged, err := MergeAs(ct, query); err == nil {
					_ = dump(merged)
				}
			}
		}
		for _, s := range stmts {
			p := s.Position()
			if p.Line < 1 || p.Offset > len(src) {
				t.Fatalf("statement %T at %v outside input", s, p)
			}
			_ = dump(s) // walks every node; must not panic
			if q := statementQuery(s); q != nil && !strings.Contains(FormatQuery(q), "${") {
				checkQueryRoundTrip(t, q)
			}
		}
	})
}

// statementQuery returns the query of an INSERT, CREATE VIEW or bare
// query; nil for other statements.
func statementQuery(s Statement) Query {
	switch s := s.(type) {
	case *Insert:
		return s.Query
	case *CreateView:
		return s.Query
	case *QueryStatement:
		return s.Query
	}
	return nil
}

// checkParseAll checks ParseAll against Parse's error perr: the same
// errors, at most ten failures in source order, and statements (kept
// around the failures) that lie inside the input and can be walked.
func checkParseAll(t *testing.T, src string, cfg Config, perr error) {
	t.Helper()
	r := ParseAll("fuzz.sql", src, cfg)
	err := r.Err()
	if (err == nil) != (perr == nil) || err != nil && err.Error() != perr.Error() {
		t.Fatalf("ParseAll's error %v differs from Parse's %v", err, perr)
	}
	if len(r.Failures) > maxErrors || r.Truncated && len(r.Failures) == 0 {
		t.Fatalf("%d failures, truncated %v", len(r.Failures), r.Truncated)
	}
	last := -1
	for _, f := range r.Failures {
		if f.Err == nil || f.Err.Offset < last {
			t.Fatalf("failures out of order or without error: %+v", r.Failures)
		}
		last = f.Err.Offset
	}
	for _, s := range r.Statements {
		if p := s.Position(); p.Line < 1 || p.Offset > len(src) {
			t.Fatalf("statement %T at %v outside input", s, p)
		}
		_ = dump(s)
	}
}
