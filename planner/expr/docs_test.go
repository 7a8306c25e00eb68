package expr

import (
	"os"
	"strings"
	"testing"
)

// TestFunctionsDocListsEveryBuiltin keeps docs/functions.md, the users'
// list of supported functions, in step with the function table: every
// builtin and alias must appear there in backquotes.
func TestFunctionsDocListsEveryBuiltin(t *testing.T) {
	raw, err := os.ReadFile("../../docs/functions.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	// The doc writes NEGATE as unary `-`.
	doc = strings.ReplaceAll(doc, "unary `-`", "`NEGATE`")
	listed := func(name string) bool {
		for _, end := range []string{"`", "(", " "} {
			if strings.Contains(doc, "`"+name+end) {
				return true
			}
		}
		return false
	}
	for _, f := range builtins {
		if f.name == JSONObjectAbsent || f.name == JSONArrayNull {
			continue // ON NULL clauses of JSON_OBJECT and JSON_ARRAY
		}
		if !listed(f.name) {
			t.Errorf("docs/functions.md does not list %s", f.name)
		}
	}
	for name := range aliases {
		if !listed(name) {
			t.Errorf("docs/functions.md does not list the alias %s", name)
		}
	}
}
