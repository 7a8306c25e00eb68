package planner

import (
	"strings"

	"github.com/streamsql/streamsql/ddl"
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
// order, that the planner cannot run yet; nil when there is none.
func (f *file) refuseQuery(q ddl.Query) error {
	switch q := q.(type) {
	case *ddl.Select:
		return f.refuseSelect(q)
	case *ddl.SetOp:
		if err := f.refuseQuery(q.Left); err != nil {
			return err
		}
		if err := f.queryNodeRefusal(q); err != nil {
			return err
		}
		return f.refuseQuery(q.Right)
	case *ddl.Values:
		for _, r := range q.Rows {
			for _, e := range r {
				if err := f.refuseExpr(e); err != nil {
					return err
				}
			}
		}
		return nil
	case *ddl.OrderBy:
		// ORDER BY and LIMIT follow the query they sort.
		if err := f.refuseQuery(q.Query); err != nil {
			return err
		}
	}
	return f.queryNodeRefusal(q)
}

// queryNodeRefusal refuses the query forms other than SELECT, VALUES and
// UNION ALL, without looking into their operands.
func (f *file) queryNodeRefusal(q ddl.Query) error {
	switch q := q.(type) {
	case *ddl.Select, *ddl.Values:
		return nil
	case *ddl.SetOp:
		switch {
		case q.Kind == ddl.Union && q.All:
			return nil
		case q.Kind == ddl.Union:
			return f.unsupported(q.Pos, "UNION without ALL (it removes duplicates)")
		case q.All:
			return f.unsupported(q.Pos, q.Kind.String()+" ALL")
		}
		return f.unsupported(q.Pos, q.Kind.String())
	case *ddl.With:
		return f.unsupported(q.Pos, "WITH (common table expressions)")
	case *ddl.OrderBy:
		switch {
		case q.Items != nil:
			return f.unsupported(q.Pos, "ORDER BY")
		case q.Fetch != nil && q.Limit:
			return f.unsupported(q.FetchPos, "LIMIT")
		case q.Offset != nil:
			return f.unsupported(q.OffsetPos, "OFFSET")
		}
		return f.unsupported(q.FetchPos, "FETCH")
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
	if err := f.refuseExpr(q.Where); err != nil {
		return err
	}
	return f.selectTailRefusal(q)
}

// selectHeadRefusal refuses the clauses of q that come before its items:
// query hints and DISTINCT.
func (f *file) selectHeadRefusal(q *ddl.Select) error {
	if len(q.Hints) > 0 {
		h := q.Hints[0]
		return f.unsupported(h.Pos, "the query hint "+h.Name)
	}
	if q.Distinct {
		return f.unsupported(q.DistinctPos, "SELECT DISTINCT")
	}
	return nil
}

// selectTailRefusal refuses the clauses of q that come after WHERE.
func (f *file) selectTailRefusal(q *ddl.Select) error {
	switch {
	case q.GroupBy != nil:
		return f.unsupported(q.GroupBy.Pos, "GROUP BY")
	case q.Having != nil:
		return f.unsupported(q.HavingPos, "HAVING")
	case len(q.Windows) > 0:
		return f.unsupported(q.WindowPos, "WINDOW clauses")
	}
	return nil
}

// refuseTableRef returns the first refusal in a FROM tree, in source order.
func (f *file) refuseTableRef(r ddl.TableRef) error {
	switch r := r.(type) {
	case *ddl.Join:
		if err := f.refuseTableRef(r.Left); err != nil {
			return err
		}
		return f.tableRefRefusal(r)
	case *ddl.Subquery:
		if err := f.tableRefRefusal(r); err != nil {
			return err
		}
		return f.refuseQuery(r.Query)
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
		if r.Kind == ddl.JoinComma {
			return f.unsupported(r.Pos, "joins (a comma-separated FROM list)")
		}
		return f.unsupported(r.Pos, r.Kind.String())
	case *ddl.TableFunc:
		name := r.Name.String()
		switch {
		case r.Lateral:
			return f.unsupported(r.Pos, "LATERAL TABLE("+name+"(...))")
		case windowTVFs[strings.ToUpper(name)]:
			return f.unsupported(r.Pos, "the window table function "+name)
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
		return f.unsupported(t.SystemTimePos, "FOR SYSTEM_TIME AS OF (temporal and lookup joins)")
	}
	return nil
}

func (f *file) hintRefusal(h *ddl.Hint) error {
	return f.unsupported(h.Pos, "the "+h.Name+" hint")
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
			if err = f.refuseCall(x.Call); err == nil {
				err = f.exprRefusal(x)
			}
			return false
		case *ddl.ScalarSubquery, *ddl.Exists, *ddl.InQuery, *ddl.Quantified:
			if in, ok := x.(*ddl.InQuery); ok {
				if err = f.refuseExpr(in.Expr); err != nil {
					return false
				}
			}
			if q, ok := x.(*ddl.Quantified); ok {
				if err = f.refuseExpr(q.Left); err != nil {
					return false
				}
			}
			err = f.exprRefusal(x)
			return false
		}
		return true
	})
	return err
}

// refuseCall refuses c's aggregate clauses and what its arguments hold, in
// source order.
func (f *file) refuseCall(c *ddl.Call) error {
	if c.Distinct {
		return f.callRefusal(c)
	}
	for _, a := range c.Args {
		if err := f.refuseExpr(a); err != nil {
			return err
		}
	}
	return f.callRefusal(c)
}

// callRefusal refuses the aggregate clauses of c: DISTINCT arguments,
// WITHIN GROUP and FILTER.
func (f *file) callRefusal(c *ddl.Call) error {
	switch {
	case c.Distinct:
		return f.unsupported(c.DistinctPos, "DISTINCT in function arguments")
	case c.WithinGroup != nil:
		return f.unsupported(c.WithinGroupPos, "WITHIN GROUP")
	case c.Filter != nil:
		return f.unsupported(c.FilterPos, "aggregate FILTER clauses")
	}
	return nil
}

// exprRefusal refuses the expression nodes the planner cannot lower yet.
func (f *file) exprRefusal(e ddl.Expr) error {
	switch e := e.(type) {
	case *ddl.Over:
		return f.unsupported(e.Pos, "OVER windows")
	case *ddl.ScalarSubquery:
		return f.unsupported(e.Pos, "subqueries in expressions")
	case *ddl.Exists:
		return f.unsupported(e.Pos, "EXISTS subqueries")
	case *ddl.InQuery:
		return f.unsupported(e.Pos, "IN with a subquery")
	case *ddl.Quantified:
		return f.unsupported(e.Pos, "quantified comparisons ("+e.Quantifier+")")
	}
	return nil
}
