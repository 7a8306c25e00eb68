package expr

// Deterministic reports whether every evaluation of e over the same row
// gives the same value: e calls no function marked non-deterministic (the
// clock's, UUID(), a Go function registered so) and nothing unresolved.
// The planner shares only deterministic computations between readers.
func Deterministic(e Expr) bool {
	switch n := e.(type) {
	case *Literal, *ColumnRef:
		return true
	case *Cast:
		return Deterministic(n.Expr)
	case *Case:
		if n.Operand != nil && !Deterministic(n.Operand) {
			return false
		}
		for _, w := range n.Whens {
			if !Deterministic(w.Cond) || !Deterministic(w.Result) {
				return false
			}
		}
		return n.Else == nil || Deterministic(n.Else)
	case *Call:
		if n.fn == nil || n.fn.nonDeterministic {
			return false
		}
		for _, a := range n.Args {
			if !Deterministic(a) {
				return false
			}
		}
		return true
	}
	return false
}
