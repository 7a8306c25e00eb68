package expr

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/types"
)

var writeCases = flag.Bool("write-cases", false, "write testdata/flink/cases.json from goldenCases (used by tools/flink-functions-gen/generate.sh)")

const goldenZone = "Asia/Shanghai"

type casesFile struct {
	TimeZone string       `json:"timeZone"`
	Cases    []caseRecord `json:"cases"`
}

type caseRecord struct {
	ID       string         `json:"id"`
	TimeZone string         `json:"timeZone,omitempty"`
	Columns  []columnRecord `json:"columns"`
	Rows     [][]string     `json:"rows"`
	Expr     string         `json:"expr"`
}

type columnRecord struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type resultsFile struct {
	FlinkVersion string                  `json:"flinkVersion"`
	TimeZone     string                  `json:"timeZone"`
	Results      map[string]resultRecord `json:"results"`
}

type resultRecord struct {
	Type      string      `json:"type"`
	PlanError string      `json:"planError"`
	Rows      []rowRecord `json:"rows"`
}

type rowRecord struct {
	Value *string `json:"value"`
	Null  bool    `json:"null"`
	Error string  `json:"error"`
}

func (c gcase) columns() []Expr {
	refs := make([]Expr, len(c.cols))
	for i, cl := range c.cols {
		refs[i] = Col(i, cl.name, cl.typ)
	}
	return refs
}

func buildCasesFile() casesFile {
	f := casesFile{TimeZone: goldenZone}
	for _, c := range goldenCases() {
		r := caseRecord{ID: c.id, TimeZone: c.zone, Expr: c.expr(c.columns()).String()}
		for _, cl := range c.cols {
			r.Columns = append(r.Columns, columnRecord{Name: cl.name, Type: cl.typ.Nullable().String()})
		}
		for _, row := range c.rows {
			var lits []string
			for i, v := range row {
				t := c.cols[i].typ.Nullable()
				lits = append(lits, "CAST("+literalSQL(v, t)+" AS "+t.String()+")")
			}
			r.Rows = append(r.Rows, lits)
		}
		f.Cases = append(f.Cases, r)
	}
	return f
}

// TestFlinkGolden compares every golden case with what Flink computed for
// it (testdata/flink/results.json, produced by tools/flink-functions-gen):
// the result type, and each row's value, NULL or failure. A case Flink
// refused to plan must be refused by Resolve too.
func TestFlinkGolden(t *testing.T) {
	dir := filepath.Join("testdata", "flink")
	want := buildCasesFile()
	wantJSON, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if *writeCases {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cases.json"), append(wantJSON, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatalf("reading cases: %v (run tools/flink-functions-gen/generate.sh)", err)
	}
	if !bytes.Equal(bytes.TrimSpace(have), bytes.TrimSpace(wantJSON)) {
		t.Fatal("testdata/flink/cases.json is stale: the case list changed; run tools/flink-functions-gen/generate.sh")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatalf("reading results: %v (run tools/flink-functions-gen/generate.sh)", err)
	}
	var res resultsFile
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation(res.TimeZone)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Location: loc, Now: func() time.Time { return time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC) }}
	for _, c := range goldenCases() {
		c := c
		t.Run(c.id, func(t *testing.T) {
			r, ok := res.Results[c.id]
			if !ok {
				t.Fatalf("no Flink result for %s; run tools/flink-functions-gen/generate.sh", c.id)
			}
			o := opts
			if c.zone != "" {
				z, err := time.LoadLocation(c.zone)
				if err != nil {
					t.Fatal(err)
				}
				o.Location = z
			}
			checkGolden(t, c, r, o)
		})
	}
}

func checkGolden(t *testing.T, c gcase, r resultRecord, opts Options) {
	t.Helper()
	e := c.expr(c.columns())
	resolved, err := Resolve(e)
	if r.PlanError != "" {
		if err == nil {
			t.Errorf("%s: Flink rejects it (%s) but Resolve accepted it as %s", e, r.PlanError, resolved.Type())
		}
		return
	}
	if err != nil {
		if rejectedAtRuntime(r) {
			return // Flink validates it only when the job runs; both refuse it
		}
		t.Fatalf("%s: Flink accepts it (type %s) but Resolve failed: %v", e, r.Type, err)
	}
	if got := resolved.Type().String(); got != r.Type {
		t.Errorf("%s: type %s, Flink says %s", e, got, r.Type)
	}
	prog, err := Compile(CastTo(e, types.String()), opts)
	if err != nil {
		t.Fatalf("%s: compile: %v", e, err)
	}
	var diffs []string
	for i, row := range c.rows {
		want := r.Rows[i]
		v, err := prog.Eval(row)
		switch {
		case c.typeOnly:
			if err != nil || want.Error != "" {
				diffs = append(diffs, fmt.Sprintf("row %d: error %v, Flink: %s", i, err, showWant(want)))
			}
		case want.Error != "":
			if err == nil {
				diffs = append(diffs, fmt.Sprintf("row %d %s: got %s, Flink fails: %s", i, showRow(c, row), show(v), want.Error))
			}
		case err != nil:
			diffs = append(diffs, fmt.Sprintf("row %d %s: error %v, Flink gives %s", i, showRow(c, row), err, showWant(want)))
		case want.Null:
			if !v.IsNull() {
				diffs = append(diffs, fmt.Sprintf("row %d %s: got %s, Flink gives NULL", i, showRow(c, row), show(v)))
			}
		case v.IsNull() || v.Str() != *want.Value:
			diffs = append(diffs, fmt.Sprintf("row %d %s: got %s, Flink gives %q", i, showRow(c, row), show(v), *want.Value))
		}
	}
	if reason, known := knownDeviations[c.id]; known {
		// The deviation must still exist: once fixed, its entry goes.
		if len(diffs) == 0 {
			t.Errorf("known deviation %q no longer differs from Flink; remove it from knownDeviations", c.id)
		}
		t.Logf("known deviation (%s): %v", reason, diffs)
		return
	}
	for _, d := range diffs {
		t.Error(d)
	}
}

// rejectedAtRuntime reports a case Flink planned but refused, for every row,
// with a ValidationException, CodeGenException or a TableException about
// a type (JSON_OBJECT of an untyped NULL) when the job started.
func rejectedAtRuntime(r resultRecord) bool {
	for _, row := range r.Rows {
		if !strings.HasPrefix(row.Error, "ValidationException") && !strings.HasPrefix(row.Error, "CodeGenException") &&
			!strings.HasPrefix(row.Error, "TableException: Type is not supported") {
			return false
		}
	}
	return len(r.Rows) > 0
}

func show(v types.Value) string {
	if v.IsNull() {
		return "NULL"
	}
	b, _ := json.Marshal(v.Str())
	return string(b)
}

func showWant(w rowRecord) string {
	if w.Null {
		return "NULL"
	}
	if w.Value != nil {
		b, _ := json.Marshal(*w.Value)
		return string(b)
	}
	return "error " + w.Error
}

func showRow(c gcase, row []types.Value) string {
	s := "("
	for i, v := range row {
		if i > 0 {
			s += ", "
		}
		s += literalSQL(v, c.cols[i].typ)
	}
	return s + ")"
}

// knownDeviations lists golden cases where streamsql knowingly differs
// from Flink, with the reason. They are still evaluated, and the test fails
// if one stops differing (so that the list stays true).
var knownDeviations = map[string]string{
	"jsonb/JSON_QUOTE":                  "Flink 2.2.1 writes a character outside the BMP as \\u1f600\\ude00 (its code point, then the low surrogate), which is not JSON; streamsql writes the surrogate pair \\ud83d\\ude00",
	"more/late/regex-lookahead":         "Go's RE2 has no look-around; the pattern is invalid there, which gives NULL",
	"more/symsim/dev/possessive":        "SIMILAR TO passes * + ? to the regex engine; Java's possessive a*+ has no RE2 equivalent, so the pattern is an error",
	"more/symsim/dev/intersection":      "SIMILAR TO [a-z&&b] is a class intersection in Java; RE2 reads the & as literals",
	"more/symsim/dev/repeat-1001":       "RE2 refuses repetition counts above 1000 (a{1,1001}); Java accepts them",
	"more/symsim/dev/lookahead":         "SIMILAR TO passes (?=...) to the regex engine; RE2 has no look-around, so the pattern is an error",
	"more/symsim/dev/inline-dotall":     "a (?s) flag written in a SIMILAR TO pattern makes Java's '.' and _ match line terminators; streamsql's _ never does",
	"fn3/TAN":                           "Go's math.Tan and Java's Math.tan differ in the last digit for some arguments (1 ulp)",
	"fn3/COT":                           "COT is 1/TAN; Go's math.Tan and Java's Math.tan differ in the last digit (1 ulp)",
	"fn3/ACOS":                          "Go's math.Acos and Java's (fdlibm) acos differ in the last digit for some arguments (1 ulp)",
	"fn3/ATAN":                          "Go's math.Atan and Java's Math.atan differ in the last digit for some arguments (1 ulp)",
	"fn3/COSH":                          "Go's math.Cosh and Java's Math.cosh differ in the last digit for some arguments (1 ulp)",
	"fn3/MAP_FROM_ARRAYS/dup":           "Flink 2.2.1 keeps both entries of a repeated key ({a=1, a=2}), a MAP no other Flink function builds; streamsql keeps the last, as MAP[...] and STR_TO_MAP do",
	"fn2/TO_DATE/format":                "Flink 2.2.1 gives a far-future date (5471-09-27) for text that does not match the pattern; streamsql gives NULL, as TO_DATE without a pattern and TO_TIMESTAMP do",
	"more/ctor/row/distinct-null-field": "Flink 1.20 says ROW(NULL, 'a') IS DISTINCT FROM ROW(1, 'a') is FALSE; streamsql compares the fields NULL-safely (TRUE)",
}
