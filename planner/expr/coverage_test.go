package expr

import (
	"testing"
)

// TestEveryFunctionHasGoldenCases checks that every function and operator
// of the registry appears in at least one golden case, so that each is
// compared with Flink.
func TestEveryFunctionHasGoldenCases(t *testing.T) {
	seen := map[string]bool{}
	var walk func(e Expr)
	walk = func(e Expr) {
		switch n := e.(type) {
		case *Call:
			seen[n.Name] = true
			for _, a := range n.Args {
				walk(a)
			}
		case *Cast:
			walk(n.Expr)
		case *Case:
			if n.Operand != nil {
				walk(n.Operand)
			}
			for _, w := range n.Whens {
				walk(w.Cond)
				walk(w.Result)
			}
			if n.Else != nil {
				walk(n.Else)
			}
		}
	}
	for _, c := range goldenCases() {
		walk(c.expr(c.columns()))
	}
	for _, name := range Functions() {
		if !seen[name] {
			t.Errorf("function %s has no golden case", name)
		}
	}
}
