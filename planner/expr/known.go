package expr

import "github.com/streamsql/streamsql/types"

// KnownColumns returns the input columns whose value is the same in every
// row cond keeps: those a top-level conjunct of cond compares for equality
// with a non-NULL literal (`event_type = 2`, `2 = event_type`), for
// integer columns and integer literals only (their equality is exact, so
// the literal may stand for the column). Nil when there are none.
//
// It is what Calcite's ReduceExpressionsRule does with the predicates a
// Filter pulls up into the Project above it: a projection compiled under
// the filter (CompileProjectionUnder) reads such a column as a constant, so
// that, say, Nexmark's `CASE WHEN event_type = 0 THEN ... WHEN event_type
// = 1 THEN ... ELSE bid.dateTime END` under the bid view's `event_type = 2`
// is folded to `bid.dateTime` when it is compiled.
func KnownColumns(cond Expr) map[int]types.Value {
	var known map[int]types.Value
	var walk func(e Expr)
	walk = func(e Expr) {
		c, ok := e.(*Call)
		if !ok {
			return
		}
		switch {
		case c.Name == "AND":
			for _, a := range c.Args {
				walk(a)
			}
		case c.Name == "=" && len(c.Args) == 2:
			col, okc := c.Args[0].(*ColumnRef)
			lit, okl := c.Args[1].(*Literal)
			if !okc || !okl {
				col, okc = c.Args[1].(*ColumnRef)
				lit, okl = c.Args[0].(*Literal)
			}
			if !okc || !okl || lit.Val.IsNull() || !isIntegerKind(col.Typ.Kind) || !isIntegerKind(lit.Typ.Kind) {
				return
			}
			if _, seen := known[col.Index]; seen {
				// col = 1 AND col = 2 keeps no row: either will do.
				return
			}
			if known == nil {
				known = map[int]types.Value{}
			}
			known[col.Index] = types.Int64(lit.Val.Int64())
		}
	}
	if cond != nil {
		walk(cond)
	}
	return known
}

func isIntegerKind(k types.Kind) bool {
	switch k {
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return true
	}
	return false
}
