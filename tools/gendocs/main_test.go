package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/runtime"
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
	want := append(runtime.Keys(), "## Connector `kafka`", "## Connector `upsert-kafka`", "## Connector `datagen`",
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
