package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/jobconfig"
)

// TestCommittedReferenceIsFresh fails when docs/configuration.md differs
// from what the declarations generate now (CI's "regenerate and git diff
// --exit-code" check, as a test).
func TestCommittedReferenceIsFresh(t *testing.T) {
	var buf bytes.Buffer
	if err := generate(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", filepath.FromSlash(Output))
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: generate it with `go run ./tools/gendocs` from the repository root", err)
	}
	if !bytes.Equal(committed, buf.Bytes()) {
		t.Fatalf("%s is stale: an option declaration changed. Regenerate it with `go run ./tools/gendocs` "+
			"from the repository root and commit the result", Output)
	}
}

// TestReferenceCoversDeclarations checks that the reference names every
// runtime setting, the built-in connectors and formats, and the options
// of one of them.
func TestReferenceCoversDeclarations(t *testing.T) {
	var buf bytes.Buffer
	if err := generate(&buf); err != nil {
		t.Fatal(err)
	}
	doc := buf.String()
	want := append(jobconfig.Keys(), "## Connector `kafka`", "## Connector `upsert-kafka`", "## Connector `datagen`",
		"## Format `json`", "`sink.delivery-guarantee`", "`properties.*`", "`pipeline.name`")
	for _, s := range want {
		if !strings.Contains(doc, s) {
			t.Errorf("the reference does not mention %q", s)
		}
	}
	if strings.Count(doc, "\n# ") != 0 {
		t.Errorf("the reference has more than one top-level heading")
	}
}

// TestReferenceDescribesSettings checks that each job setting has a row
// with its type, default, deprecated names and description, and that
// each ignored setting is listed with its reason.
func TestReferenceDescribesSettings(t *testing.T) {
	var buf bytes.Buffer
	if err := generate(&buf); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for line := range strings.SplitSeq(buf.String(), "\n") {
		if key, _, ok := strings.Cut(strings.TrimPrefix(line, "| `"), "`"); ok && strings.HasPrefix(line, "| `") {
			rows[key] = line
		}
	}
	for _, s := range append(jobconfig.Settings(), plannerSettings...) {
		row, ok := rows[s.Key]
		if !ok {
			t.Errorf("no row for %s", s.Key)
			continue
		}
		def := s.Default
		if def != jobconfig.NoDefault {
			def = "`" + def + "`"
		}
		want := []string{" | " + s.Type + " | " + def + " | ", cell(s.Description)}
		for _, d := range s.Deprecated {
			want = append(want, "`"+d+"`")
		}
		for _, v := range s.Values {
			want = append(want, "`"+v+"`")
		}
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("the row of %s lacks %q:\n%s", s.Key, w, row)
			}
		}
	}
	for _, s := range jobconfig.IgnoredSettings() {
		row, ok := rows[s.Key]
		if !ok || !strings.Contains(row, s.Reason) {
			t.Errorf("ignored setting %s: row %q lacks its reason", s.Key, row)
		}
		for _, d := range s.Deprecated {
			if !strings.Contains(row, "`"+d+"`") {
				t.Errorf("ignored setting %s: row lacks deprecated name %s", s.Key, d)
			}
		}
	}
}
