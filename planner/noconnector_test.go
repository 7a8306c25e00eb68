package planner_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoConnectorKnowledge keeps connector knowledge behind the factories:
// no string literal of the planner's or the CLI's code (tests aside) is a
// registered connector's identifier or one of its option keys. What the
// planner needs to know about a connector, the connector declares
// (factory.ConnectorFactory, factory.TableInfo).
func TestNoConnectorKnowledge(t *testing.T) {
	reg := testRegistry()
	known := map[string]string{}
	for _, id := range reg.Connectors() {
		known[id] = "connector " + id
		f, _ := reg.Connector(id)
		for _, o := range f.Options {
			known[o.Key()] = "option of connector " + id
		}
	}
	// Words that are also names: the pipeline of a bare query is named
	// "print" (the printing sink, which package job supplies), and
	// messages say whether an unknown name is a "format" or a "connector";
	// the CLI masks values of keys containing "password" (jdbc's option
	// of that name is one of many such keys); `streamsql nexmark load`
	// has a --topic flag, as Kafka tools do.
	allowed := map[string]bool{"print": true, "format": true, "connector": true, "password": true, "topic": true}
	var files []string
	for _, g := range []string{"*.go", "../cmd/streamsql/*.go"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		checked++
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || allowed[s] {
				return true
			}
			if what, ok := known[s]; ok {
				t.Errorf("%s: literal %q is the %s: declare what the planner needs in the connector's factory", fset.Position(lit.Pos()), s, what)
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("only %d files checked", checked)
	}
}
