package planner

import (
	"fmt"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/types"
)

// This file plans STDDEV_POP, STDDEV_SAMP, VAR_POP and VAR_SAMP as Flink
// does: Calcite's AggregateReduceFunctionsRule rewrites each into SUM and
// COUNT calls (which retract) and an expression over their results, so
// the results, their types and their rounding are Flink's.

// varianceFuncs are the aggregate functions reduced to SUM and COUNT:
// whether each is a square root, and whether it divides by n (not n-1).
var varianceFuncs = map[string]struct{ sqrt, pop bool }{
	"STDDEV_POP":  {true, true},
	"STDDEV_SAMP": {true, false},
	"VAR_POP":     {false, true},
	"VAR_SAMP":    {false, false},
}

// isVariance reports whether c is one of varianceFuncs.
func isVariance(c *ddl.Call) bool {
	_, ok := varianceFuncs[c.Name]
	return ok
}

// reduceVariance returns the expression over SUM and COUNT calls that
// variance call c stands for, its argument being of type arg; grouped
// tells whether the query has grouping keys. With x the argument (cast to
// the result type, AVG's) and n = COUNT(x):
//
//	VAR_POP(x)  = (SUM(x * x) - SUM(x) * SUM(x) / n) / n
//	VAR_SAMP(x) = (SUM(x * x) - SUM(x) * SUM(x) / n) / CASE WHEN n = 1 THEN NULL ELSE n - 1 END
//	STDDEV_x(x) = POWER(VAR_x(x), 0.5)
//
// each cast to the result type; DISTINCT and FILTER go to every call.
func reduceVariance(c *ddl.Call, arg types.Type, grouped bool) (ddl.Expr, error) {
	f := varianceFuncs[c.Name]
	if c.Star || len(c.Args) != 1 {
		return nil, fmt.Errorf("%s takes one argument", c.Name)
	}
	if !arg.IsNumeric() {
		return nil, fmt.Errorf("%s does not take an argument of type %s; it needs a numeric one", c.Name, arg)
	}
	rt, err := agg.ResultType(agg.Avg, arg, grouped)
	if err != nil {
		return nil, err
	}
	rt = rt.Nullable()
	x := "(" + ddl.FormatExpr(c.Args[0]) + ")"
	xt := x
	if arg.Kind == types.KindDecimal {
		xt = fmt.Sprintf("CAST(%s AS %s)", x, rt)
	}
	mods := ""
	if c.Filter != nil {
		mods = " FILTER (WHERE " + ddl.FormatExpr(c.Filter) + ")"
	}
	call := func(name, a string) string {
		d := ""
		if c.Distinct {
			d = "DISTINCT "
		}
		return fmt.Sprintf("%s(%s%s)%s", name, d, a, mods)
	}
	sum := call("SUM", xt)
	if arg.Kind == types.KindDecimal {
		sum = fmt.Sprintf("CAST(%s AS %s)", sum, rt)
	}
	n := call("COUNT", x)
	diff := fmt.Sprintf("(%s - (%s * %s) / %s)", call("SUM", xt+" * "+xt), sum, sum, n)
	denom := n
	if !f.pop {
		denom = fmt.Sprintf("CASE WHEN %s = 1 THEN NULL ELSE %s - 1 END", n, n)
	}
	e := fmt.Sprintf("%s / %s", diff, denom)
	if f.sqrt {
		e = fmt.Sprintf("POWER(%s, 0.5)", e)
	}
	text := fmt.Sprintf("CAST(%s AS %s)", e, rt)
	r, err := ddl.ParseExpr("", text)
	if err != nil {
		return nil, fmt.Errorf("reducing %s: %w", c.Name, err)
	}
	setPos(r, c.Pos)
	return r, nil
}

// setPos places every node of e at pos (the call e stands for), so that
// errors about it point there.
func setPos(e ddl.Expr, pos ddl.Pos) {
	ddl.Walk(e, func(n ddl.Expr) bool {
		switch n := n.(type) {
		case *ddl.Call:
			n.Pos = pos
		case *ddl.Binary:
			n.Pos = pos
		case *ddl.Cast:
			n.Pos, n.TypePos = pos, pos
		case *ddl.Case:
			n.Pos = pos
		case *ddl.Literal:
			n.Pos = pos
		case *ddl.ColumnRef:
			n.Pos = pos
		}
		return true
	})
}
