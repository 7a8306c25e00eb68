package planner

import (
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/agg"
)

// The planner owns every refusal: ddl parses all of Flink's streaming query
// forms, and this file lists those the planner cannot run yet, each refused
// with ddl.ErrUnsupported at the position of the construct and a message
// naming it. refuseQuery walks a whole query in source order before it is
// resolved, so that the first construct the user wrote is the one
// reported; the per-node checks are also called where the resolver meets
// each node, so that a query that reaches the resolver another way is
// refused as well. Supporting a construct means deleting its refusal here.

// unsupported returns the "<what> is not supported yet" error at pos.
func (f *file) unsupported(pos ddl.Pos, what string) error {
	return f.errorAt(pos, ddl.ErrUnsupported, nil, what+" is not supported yet")
}

// refuseQuery returns the refusal of the first construct in q, in source
// order, that the planner cannot run yet; nil when there is none. The walk
// visits every part of the query whether or not a refusal stands in front
// of it, so that deleting a refusal leaves the parts behind it checked.
func (f *file) refuseQuery(q ddl.Query) error {
	switch q := q.(type) {
	case *ddl.Select:
		return f.refuseSelect(q)
	case *ddl.SetOp:
		return first(
			func() error { return f.refuseQuery(q.Left) },
			func() error { return f.queryNodeRefusal(q) },
			func() error { return f.refuseQuery(q.Right) })
	case *ddl.Values:
		for _, r := range q.Rows {
			if err := f.refuseExprs(r); err != nil {
				return err
			}
		}
		return nil
	case *ddl.With:
		if err := f.queryNodeRefusal(q); err != nil {
			return err
		}
		for _, c := range q.CTEs {
			if err := f.refuseQuery(c.Query); err != nil {
				return err
			}
		}
		return f.refuseQuery(q.Body)
	case *ddl.OrderBy:
		// ORDER BY and LIMIT follow the query they sort.
		return first(
			func() error { return f.refuseQuery(q.Query) },
			func() error { return f.queryNodeRefusal(q) },
			func() error { return f.refuseOrder(q.Items) },
			func() error { return f.refuseExpr(q.Fetch) },
			func() error { return f.refuseExpr(q.Offset) })
	}
	return f.queryNodeRefusal(q)
}

// first returns the first error of the checks, run in order.
func first(checks ...func() error) error {
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// queryNodeRefusal refuses the query forms other than SELECT, VALUES and
// UNION ALL, without looking into their operands.
func (f *file) queryNodeRefusal(q ddl.Query) error {
	switch q := q.(type) {
	case *ddl.Select, *ddl.Values:
		return nil
	case *ddl.SetOp:
		switch {
		case q.Kind == ddl.Union:
			return nil // UNION ALL, and UNION as UNION ALL then DISTINCT
		case !q.All:
			return nil // a semi or anti join, then DISTINCT (setop.go)
		default:
			return nil // counts per row, then the rows replicated (setop.go)
		}
	case *ddl.With:
		return nil // the CTEs are resolved where they are read (query.go)
	case *ddl.OrderBy:
		// ORDER BY with LIMIT or FETCH is a Top-N (orderlimit.go), without
		// it a temporal sort (timesort.go).
		switch {
		case q.Items != nil && q.Fetch == nil && q.Offset == nil:
		case q.Fetch == nil:
			return f.unsupported(q.OffsetPos, "OFFSET without LIMIT")
		}
		return nil
	}
	return f.unsupported(q.Position(), "this query form")
}

func (f *file) refuseSelect(q *ddl.Select) error {
	if err := f.selectHeadRefusal(q); err != nil {
		return err
	}
	for _, it := range q.Items {
		if err := f.refuseExpr(it.Expr); err != nil {
			return err
		}
	}
	if q.From != nil {
		if err := f.refuseTableRef(q.From); err != nil {
			return err
		}
	}
	if err := f.refuseWhere(q.Where); err != nil {
		return err
	}
	if q.GroupBy != nil {
		if err := f.groupByRefusal(q.GroupBy); err != nil {
			return err
		}
		if err := f.refuseGroupItems(q.GroupBy.Items); err != nil {
			return err
		}
	}
	if q.Having != nil {
		if err := f.havingRefusal(q); err != nil {
			return err
		}
		if err := f.refuseExpr(q.Having); err != nil {
			return err
		}
	}
	if len(q.Windows) > 0 {
		if err := f.windowClauseRefusal(q); err != nil {
			return err
		}
		for _, w := range q.Windows {
			if err := f.refuseWindow(w.Spec); err != nil {
				return err
			}
		}
	}
	return nil
}

// selectHeadRefusal refuses the clauses of q that come before its items:
// query hints other than STATE_TTL on a join (join.go) or a group
// aggregation (aggregate.go), and LOOKUP on a join (lookuphint.go).
func (f *file) selectHeadRefusal(q *ddl.Select) error {
	for _, h := range q.Hints {
		if strings.EqualFold(h.Name, "STATE_TTL") {
			if _, ok := q.From.(*ddl.Join); ok || isAggregating(q) {
				continue
			}
			return f.unsupported(h.Pos, "the query hint STATE_TTL on a query without a join or an aggregation")
		}
		if isBatchJoinHint(h.Name) {
			continue // checked and ignored (joinhints.go)
		}
		if strings.EqualFold(h.Name, "LOOKUP") {
			if _, ok := q.From.(*ddl.Join); ok {
				continue // checked against the query's lookup joins (join.go)
			}
			return f.unsupported(h.Pos, "the query hint LOOKUP on a query without a join")
		}
		return f.unsupported(h.Pos, "the query hint "+h.Name)
	}
	return nil
}

// selectTailRefusal refuses the clauses of q that come after WHERE.
func (f *file) selectTailRefusal(q *ddl.Select) error {
	if q.GroupBy != nil {
		if err := f.groupByRefusal(q.GroupBy); err != nil {
			return err
		}
	}
	if q.Having != nil {
		if err := f.havingRefusal(q); err != nil {
			return err
		}
	}
	if len(q.Windows) > 0 {
		return f.windowClauseRefusal(q)
	}
	return nil
}

// groupByRefusal refuses nothing: GROUP BY, with GROUPING SETS, ROLLUP
// and CUBE, is planned (aggregate.go).
func (f *file) groupByRefusal(*ddl.GroupBy) error { return nil }

// havingRefusal refuses nothing: HAVING is planned (aggregate.go).
func (f *file) havingRefusal(*ddl.Select) error { return nil }

// windowClauseRefusal refuses nothing: the WINDOW clause names OVER
// windows (over.go).
func (f *file) windowClauseRefusal(*ddl.Select) error { return nil }

func (f *file) refuseGroupItems(items []ddl.GroupItem) error {
	for _, g := range items {
		if err := f.refuseExpr(g.Expr); err != nil {
			return err
		}
		if err := f.refuseGroupItems(g.Items); err != nil {
			return err
		}
	}
	return nil
}

// refuseTableRef returns the first refusal in a FROM tree, in source order.
func (f *file) refuseTableRef(r ddl.TableRef) error {
	switch r := r.(type) {
	case *ddl.TableName:
		return first(
			func() error { return f.tableRefRefusal(r) },
			func() error { return f.refuseExpr(r.SystemTime) })
	case *ddl.Join:
		return first(
			func() error { return f.refuseTableRef(r.Left) },
			func() error { return f.tableRefRefusal(r) },
			func() error { return f.refuseJoinRight(r) },
			func() error { return f.refuseExpr(r.On) })
	case *ddl.Subquery:
		return first(
			func() error { return f.tableRefRefusal(r) },
			func() error { return f.refuseQuery(r.Query) })
	case *ddl.TableFunc:
		if err := f.tableRefRefusal(r); err != nil {
			return err
		}
		for _, a := range r.Args {
			if t := a.Table; t != nil {
				if t.Query != nil {
					if err := f.refuseQuery(t.Query); err != nil {
						return err
					}
				}
				if err := f.refuseExprs(t.PartitionBy); err != nil {
					return err
				}
				if err := f.refuseOrder(t.OrderBy); err != nil {
					return err
				}
			}
			if err := f.refuseExpr(a.Expr); err != nil {
				return err
			}
		}
		return nil
	case *ddl.Unnest:
		// Planned alone (FROM UNNEST(...)) and after a table (unnest.go).
		return f.refuseExprs(r.Exprs)
	}
	return f.tableRefRefusal(r)
}

// tableRefRefusal refuses the FROM forms the planner cannot read yet, not
// looking into subqueries and join inputs.
func (f *file) tableRefRefusal(r ddl.TableRef) error {
	switch r := r.(type) {
	case *ddl.TableName:
		return f.tableNameRefusal(r)
	case *ddl.Subquery:
		if r.Lateral {
			return f.unsupported(r.Pos, "LATERAL (subquery)")
		}
		return nil
	case *ddl.Join:
		return nil // planned (join.go; USING and NATURAL: using.go)
	case *ddl.TableFunc:
		name := r.Name.String()
		switch {
		case r.Lateral:
			return f.unsupported(r.Pos, "LATERAL TABLE("+name+"(...))")
		case windowTVFs[strings.ToUpper(name)]:
			return nil // a window aggregation reads it (window.go)
		}
		return f.unsupported(r.Pos, "the table function "+name)
	case *ddl.Unnest:
		return f.unsupported(r.Pos, "UNNEST")
	}
	return f.unsupported(r.Position(), "this FROM source")
}

// windowTVFs are Flink's window table functions.
var windowTVFs = map[string]bool{"TUMBLE": true, "HOP": true, "CUMULATE": true, "SESSION": true}

// tableNameRefusal refuses what may follow a table's name: table hints
// other than OPTIONS, and FOR SYSTEM_TIME AS OF.
func (f *file) tableNameRefusal(t *ddl.TableName) error {
	if len(t.OtherHints) > 0 {
		return f.hintRefusal(t.OtherHints[0])
	}
	if t.SystemTime != nil {
		return f.unsupported(t.SystemTimePos, "FOR SYSTEM_TIME AS OF outside the right input of an INNER or LEFT JOIN (a temporal join)")
	}
	return nil
}

func (f *file) hintRefusal(h *ddl.Hint) error {
	return f.unsupported(h.Pos, "the "+h.Name+" hint")
}

func (f *file) refuseExprs(list []ddl.Expr) error {
	for _, e := range list {
		if err := f.refuseExpr(e); err != nil {
			return err
		}
	}
	return nil
}

func (f *file) refuseOrder(items []ddl.OrderItem) error {
	for _, it := range items {
		if err := f.refuseExpr(it.Expr); err != nil {
			return err
		}
	}
	return nil
}

func (f *file) refuseWindow(w *ddl.WindowSpec) error {
	if w == nil {
		return nil
	}
	if err := f.refuseExprs(w.PartitionBy); err != nil {
		return err
	}
	if err := f.refuseOrder(w.OrderBy); err != nil {
		return err
	}
	if fr := w.Frame; fr != nil {
		return first(
			func() error { return f.refuseExpr(fr.Start.Offset) },
			func() error { return f.refuseExpr(fr.End.Offset) })
	}
	return nil
}

// refuseExpr returns the first refusal in e, in source order: aggregate
// clauses (DISTINCT, WITHIN GROUP, FILTER), OVER and subqueries. Which
// functions exist is the function library's business, when the
// expression is lowered.
func (f *file) refuseExpr(e ddl.Expr) error {
	var err error
	ddl.Walk(e, func(x ddl.Expr) bool {
		if err != nil {
			return false
		}
		switch x := x.(type) {
		case *ddl.Call:
			err = f.refuseCall(x)
			return false
		case *ddl.Over:
			err = first(
				func() error { return f.refuseCall(x.Call) },
				func() error { return f.exprRefusal(x) },
				func() error { return f.refuseWindow(x.Window) })
			return false
		case *ddl.ScalarSubquery:
			err = first(
				func() error { return f.exprRefusal(x) },
				func() error { return f.refuseQuery(x.Query) })
			return false
		case *ddl.Exists:
			err = first(
				func() error { return f.exprRefusal(x) },
				func() error { return f.refuseQuery(x.Query) })
			return false
		case *ddl.InQuery:
			err = first(
				func() error { return f.refuseExpr(x.Expr) },
				func() error { return f.exprRefusal(x) },
				func() error { return f.refuseQuery(x.Query) })
			return false
		case *ddl.Quantified:
			err = first(
				func() error { return f.refuseExpr(x.Left) },
				func() error { return f.exprRefusal(x) },
				func() error { return f.refuseQuery(x.Query) })
			return false
		}
		return true
	})
	return err
}

// refuseCall refuses c's aggregate clauses and what its arguments hold, in
// source order.
func (f *file) refuseCall(c *ddl.Call) error {
	if err := f.distinctArgRefusal(c); err != nil {
		return err
	}
	if err := f.refuseExprs(c.Args); err != nil {
		return err
	}
	if c.WithinGroup != nil {
		if err := f.withinGroupRefusal(c); err != nil {
			return err
		}
		if err := f.refuseOrder(c.WithinGroup); err != nil {
			return err
		}
	}
	if c.Filter != nil {
		if err := f.filterRefusal(c); err != nil {
			return err
		}
		return f.refuseExpr(c.Filter)
	}
	return nil
}

// callRefusal refuses the aggregate clauses of c: WITHIN GROUP, and
// DISTINCT arguments and FILTER on a function that does not aggregate.
func (f *file) callRefusal(c *ddl.Call) error {
	return first(
		func() error { return f.distinctArgRefusal(c) },
		func() error { return f.withinGroupRefusal(c) },
		func() error { return f.filterRefusal(c) })
}

// distinctArgRefusal refuses DISTINCT in the arguments of a function
// that does not aggregate; an aggregate's is planned (aggregate.go).
func (f *file) distinctArgRefusal(c *ddl.Call) error {
	if _, isAgg := agg.Lookup(c.Name); c.Distinct && !isAgg && !isVariance(c) {
		return f.errorAt(c.DistinctPos, ErrType, nil, "DISTINCT applies to the arguments of aggregate functions; "+c.Name+" is not one")
	}
	return nil
}

func (f *file) withinGroupRefusal(c *ddl.Call) error {
	if c.WithinGroup != nil {
		return f.unsupported(c.WithinGroupPos, "WITHIN GROUP")
	}
	return nil
}

// filterRefusal refuses FILTER on a function that does not aggregate; an
// aggregate's is planned (aggregate.go).
func (f *file) filterRefusal(c *ddl.Call) error {
	if _, isAgg := agg.Lookup(c.Name); c.Filter != nil && !isAgg && !isVariance(c) {
		return f.errorAt(c.FilterPos, ErrType, nil, "FILTER applies to aggregate functions; "+c.Name+" is not one")
	}
	return nil
}

// exprRefusal refuses the expression nodes the planner cannot lower yet.
func (f *file) exprRefusal(e ddl.Expr) error {
	switch e := e.(type) {
	case *ddl.Exists:
		return f.unsupported(e.Pos, "EXISTS other than as an AND-ed condition of WHERE (a semi join)")
	case *ddl.InQuery:
		return f.unsupported(e.Pos, "IN with a subquery other than as an AND-ed condition of WHERE (a semi join)")
	}
	return nil
}
