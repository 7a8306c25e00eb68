package expr

import "github.com/streamsql/streamsql/types"

// caseOnString recognizes a searched CASE whose every branch compares one
// and the same deterministic, non-constant string expression x with a
// string constant, as Nexmark q21's
//
//	CASE WHEN LOWER(channel) = 'apple' THEN '0' WHEN LOWER(channel) = 'google' THEN '1' ... ELSE ... END
//
// and returns x and the constants in branch order (nil when the CASE is
// not of that form). Branch by branch, such a CASE evaluates x once per
// branch until one holds; compileCaseOnString evaluates it once. That is
// the same result: x is deterministic (no function marked
// non-deterministic), so every evaluation gives the same value or the same
// error, and the first evaluation, the one that remains, is where the
// branch-by-branch form would fail. The comparison of two strings is
// buildComparison's: NULL when x is NULL (no branch holds), else equality
// of their bytes (types.Comparator of a string type); a constant must be
// a string that evaluates without error and is not NULL (a NULL one is a
// constant condition, which decideWhens handles).
func (b *builder) caseOnString(n *Case) (Expr, []string) {
	if len(n.Whens) < 2 {
		return nil, nil
	}
	var x Expr
	keys := make([]string, 0, len(n.Whens))
	for _, w := range n.Whens {
		c, ok := w.Cond.(*Call)
		if !ok || c.Name != "=" || c.fn == nil || len(c.Args) != 2 {
			return nil, nil
		}
		l, r := c.Args[0], c.Args[1]
		if ct, _ := commonType(l.Type(), r.Type()); !ct.IsString() || !l.Type().IsString() || !r.Type().IsString() {
			return nil, nil
		}
		if b.constant(l) {
			l, r = r, l
		}
		if b.constant(l) || !b.constant(r) {
			return nil, nil
		}
		if x == nil {
			if !deterministic(l) {
				return nil, nil
			}
			x = l
		} else if !sameExpr(x, l) {
			return nil, nil
		}
		fn, err := b.compile(r)
		if err != nil {
			return nil, nil
		}
		k, err := fn(nil)
		if err != nil || k.IsNull() {
			return nil, nil
		}
		keys = append(keys, k.Str())
	}
	return x, keys
}

// compileCaseOnString compiles a CASE that caseOnString recognized: x is
// evaluated once, and the first branch whose constant equals it gives the
// result.
func (b *builder) compileCaseOnString(n *Case, x Expr, keys []string) (evalFn, error) {
	xf, err := b.compile(x)
	if err != nil {
		return nil, err
	}
	results := make([]evalFn, len(n.Whens))
	for i, w := range n.Whens {
		if results[i], err = b.compile(w.Result); err != nil {
			return nil, err
		}
	}
	elseFn := func([]types.Value) (types.Value, error) { return types.Value{}, nil }
	if n.Else != nil {
		if elseFn, err = b.compile(n.Else); err != nil {
			return nil, err
		}
	}
	return func(row []types.Value) (types.Value, error) {
		v, err := xf(row)
		if err != nil {
			return types.Value{}, err
		}
		if !v.IsNull() {
			s := v.Str()
			for i, k := range keys {
				if s == k {
					return results[i](row)
				}
			}
		}
		return elseFn(row)
	}, nil
}

// deterministic reports whether e calls no function marked
// non-deterministic (nor one that is not resolved).
func deterministic(e Expr) bool {
	switch n := e.(type) {
	case *Literal, *ColumnRef:
		return true
	case *Cast:
		return deterministic(n.Expr)
	case *Case:
		if n.Operand != nil && !deterministic(n.Operand) {
			return false
		}
		for _, w := range n.Whens {
			if !deterministic(w.Cond) || !deterministic(w.Result) {
				return false
			}
		}
		return n.Else == nil || deterministic(n.Else)
	case *Call:
		if n.fn == nil || n.fn.nonDeterministic {
			return false
		}
		for _, a := range n.Args {
			if !deterministic(a) {
				return false
			}
		}
		return true
	}
	return false
}

// sameExpr reports whether a and b are the same expression: the same
// nodes with the same types, columns, functions and literals. It answers
// false for nodes it does not know.
func sameExpr(a, b Expr) bool {
	if a == b {
		return true
	}
	switch x := a.(type) {
	case *Literal:
		y, ok := b.(*Literal)
		return ok && x.Typ.Equal(y.Typ) && x.String() == y.String()
	case *ColumnRef:
		y, ok := b.(*ColumnRef)
		return ok && x.Index == y.Index && x.Typ.Equal(y.Typ)
	case *Cast:
		y, ok := b.(*Cast)
		return ok && x.Try == y.Try && x.Target.Equal(y.Target) && sameExpr(x.Expr, y.Expr)
	case *Call:
		y, ok := b.(*Call)
		// A Go function's calls each resolve to a definition of their
		// own (userDef): the function itself tells them apart.
		if !ok || x.Name != y.Name || (x.fn != y.fn && x.user == nil) || x.user != y.user || x.Unit != y.Unit ||
			!x.Returning.Equal(y.Returning) || !x.typ.Equal(y.typ) || len(x.Args) != len(y.Args) {
			return false
		}
		for i := range x.Args {
			if !sameExpr(x.Args[i], y.Args[i]) {
				return false
			}
		}
		return true
	case *Case:
		// (The Nexmark tables' dateTime: calls over it repeat.)
		y, ok := b.(*Case)
		if !ok || !x.typ.Equal(y.typ) || len(x.Whens) != len(y.Whens) ||
			(x.Operand == nil) != (y.Operand == nil) || (x.Else == nil) != (y.Else == nil) {
			return false
		}
		if x.Operand != nil && !sameExpr(x.Operand, y.Operand) {
			return false
		}
		for i, w := range x.Whens {
			if !sameExpr(w.Cond, y.Whens[i].Cond) || !sameExpr(w.Result, y.Whens[i].Result) {
				return false
			}
		}
		return x.Else == nil || sameExpr(x.Else, y.Else)
	}
	return false
}
