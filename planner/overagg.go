package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/agg"
)

// OVER in a SELECT that also aggregates (GROUP BY or aggregate functions)
// is evaluated, as in Calcite, over the aggregation's rows: the planner
// splits the SELECT into the aggregation, whose items are the grouping
// keys and every aggregate call, and a SELECT over it that computes the
// original items, OVER windows included, from those columns:
//
//	SELECT k, SUM(v) AS total, ROW_NUMBER() OVER (ORDER BY SUM(v) DESC) AS rn FROM t GROUP BY k
//
// is planned as
//
//	SELECT k, a0 AS total, ROW_NUMBER() OVER (ORDER BY a0 DESC) AS rn
//	FROM (SELECT k, SUM(v) AS a0 FROM t GROUP BY k)
//
// so that a ranking function there is a Top-N (or window Top-N) of the
// aggregation, and an OVER aggregate an OVER of its changelog.

//
// A scalar subquery in the SELECT list or HAVING of an aggregating SELECT
// is split the same way (scalar.go), HAVING becoming the outer SELECT's
// WHERE when it holds one:
//
//	SELECT k, COUNT(*) * 100 / (SELECT COUNT(*) FROM t) AS pct FROM t GROUP BY k
//
// is planned as
//
//	SELECT k, a0 * 100 / (SELECT COUNT(*) FROM t) AS pct
//	FROM (SELECT k, COUNT(*) AS a0 FROM t GROUP BY k)

// splitOverAggregate returns q split so (nil and an error when q's form is
// not one it can split).
func (p *planner) splitOverAggregate(q *ddl.Select, overs []*ddl.Over) (*ddl.Select, error) {
	return p.splitAggregate(q, "an OVER window")
}

// splitScalarAggregate returns q, whose SELECT list or HAVING holds a
// scalar subquery, split so.
func (p *planner) splitScalarAggregate(q *ddl.Select) (*ddl.Select, error) {
	return p.splitAggregate(q, "a scalar subquery")
}

// splitAggregate splits q, an aggregating SELECT with what in its SELECT
// list (or HAVING), into the aggregation and a SELECT over it.
func (p *planner) splitAggregate(q *ddl.Select, what string) (*ddl.Select, error) {
	refuse := func(pos ddl.Pos, why string) error {
		return p.f.errorAt(pos, ddl.ErrUnsupported, nil, what+" in an aggregating SELECT with "+why+" is not supported yet; aggregate in a subquery")
	}
	var groups []ddl.Expr
	if q.GroupBy != nil {
		if hasGroupingSets(q.GroupBy.Items) {
			return nil, refuse(q.GroupBy.Pos, "grouping sets")
		}
		for _, g := range q.GroupBy.Items {
			if g.Kind == ddl.GroupList {
				for _, x := range g.Items {
					groups = append(groups, x.Expr)
				}
				continue
			}
			groups = append(groups, g.Expr)
		}
	}
	inner := *q
	inner.Items, inner.Distinct, inner.Windows = nil, false, nil
	s := &aggSplit{}
	names := map[string]bool{}
	for i, g := range groups {
		if c, ok := g.(*ddl.Call); ok && windowTVFs[strings.ToUpper(c.Name)] {
			return nil, refuse(c.Pos, "a group window ("+c.Name+" in GROUP BY)")
		}
		alias := fmt.Sprintf("\x00g%d", i)
		if c, ok := g.(*ddl.ColumnRef); ok && !names[c.Parts[len(c.Parts)-1]] {
			alias = c.Parts[len(c.Parts)-1]
		}
		names[alias] = true
		col := aggSplitCol{text: ddl.FormatExpr(g), alias: alias}
		if c, ok := g.(*ddl.ColumnRef); ok {
			col.name = c.Parts[len(c.Parts)-1]
		}
		s.groups = append(s.groups, col)
		inner.Items = append(inner.Items, ddl.SelectItem{Pos: g.Position(), Expr: g, Alias: alias, AliasPos: g.Position()})
	}
	outer := &ddl.Select{Pos: q.Pos, Distinct: q.Distinct, DistinctPos: q.DistinctPos,
		From: &ddl.Subquery{Pos: q.Pos, Query: &inner, Alias: "\x00grouped"}}
	for i, it := range q.Items {
		if it.Star {
			return nil, refuse(it.Pos, "* in its SELECT list")
		}
		e, err := s.subst(it.Expr, false)
		if err != nil {
			return nil, refuse(it.Expr.Position(), err.Error())
		}
		nit := it
		nit.Expr = e
		if _, ok := it.Expr.(*ddl.ColumnRef); !ok && it.Alias == "" {
			nit.Alias = itemName(it, i)
		}
		outer.Items = append(outer.Items, nit)
	}
	for _, w := range q.Windows {
		spec, err := s.window(w.Spec)
		if err != nil {
			return nil, refuse(w.Pos, err.Error())
		}
		nw := *w
		nw.Spec = spec
		outer.Windows = append(outer.Windows, &nw)
	}
	if len(scalarSubqueries(q.Having, nil)) > 0 {
		// HAVING reads a subquery: it filters the aggregation's rows.
		e, err := s.subst(q.Having, false)
		if err != nil {
			return nil, refuse(q.Having.Position(), err.Error())
		}
		outer.Where, inner.Having = e, nil
	}
	for _, a := range s.aggs {
		inner.Items = append(inner.Items, ddl.SelectItem{Pos: a.call.Pos, Expr: a.call, Alias: a.alias, AliasPos: a.call.Pos})
	}
	return outer, nil
}

// aggSplit maps the grouping keys and aggregate calls of an aggregating
// SELECT to the columns of its aggregation.
type aggSplit struct {
	groups []aggSplitCol
	aggs   []aggSplitCol
}

type aggSplitCol struct {
	text  string // the expression as written, normalised
	alias string
	call  *ddl.Call
	// name is a grouping key's column name when it is a column.
	name string
}

// ref returns the column named alias at pos.
func ref(pos ddl.Pos, alias string) *ddl.ColumnRef {
	return &ddl.ColumnRef{Pos: pos, Parts: []string{alias}}
}

// subst returns e over the aggregation's columns: its aggregate calls and
// grouping keys replaced by their columns. inOver is set inside the
// call of an OVER, whose own function is no aggregation's.
func (s *aggSplit) subst(e ddl.Expr, inOver bool) (ddl.Expr, error) {
	if e == nil {
		return nil, nil
	}
	text := ddl.FormatExpr(e)
	for _, g := range s.groups {
		if g.text == text {
			return ref(e.Position(), g.alias), nil
		}
	}
	switch x := e.(type) {
	case *ddl.ColumnRef:
		// A qualified name of a grouping key: GROUP BY k, SELECT t.k.
		name := x.Parts[len(x.Parts)-1]
		for _, g := range s.groups {
			if g.name == name {
				return ref(x.Pos, g.alias), nil
			}
		}
		return x, nil
	case *ddl.Call:
		if _, ok := agg.Lookup(x.Name); (ok || isVariance(x)) && !inOver {
			for _, a := range s.aggs {
				if a.text == text {
					return ref(x.Pos, a.alias), nil
				}
			}
			a := aggSplitCol{text: text, alias: fmt.Sprintf("\x00a%d", len(s.aggs)), call: x}
			s.aggs = append(s.aggs, a)
			return ref(x.Pos, a.alias), nil
		}
		if x.Filter != nil || len(x.WithinGroup) > 0 {
			return nil, fmt.Errorf("%s with FILTER or WITHIN GROUP", x.Name)
		}
		c := *x
		c.Args = make([]ddl.Expr, len(x.Args))
		for i, a := range x.Args {
			var err error
			if c.Args[i], err = s.subst(a, false); err != nil {
				return nil, err
			}
		}
		return &c, nil
	case *ddl.Over:
		call, err := s.subst(x.Call, true)
		if err != nil {
			return nil, err
		}
		w, err := s.window(x.Window)
		if err != nil {
			return nil, err
		}
		return &ddl.Over{Pos: x.Pos, Call: call.(*ddl.Call), Window: w}, nil
	case *ddl.Binary:
		l, err := s.subst(x.Left, false)
		if err != nil {
			return nil, err
		}
		r, err := s.subst(x.Right, false)
		if err != nil {
			return nil, err
		}
		return &ddl.Binary{Pos: x.Pos, Op: x.Op, Left: l, Right: r}, nil
	case *ddl.Unary:
		in, err := s.subst(x.Expr, false)
		if err != nil {
			return nil, err
		}
		return &ddl.Unary{Pos: x.Pos, Op: x.Op, Expr: in}, nil
	case *ddl.Cast:
		in, err := s.subst(x.Expr, false)
		if err != nil {
			return nil, err
		}
		c := *x
		c.Expr = in
		return &c, nil
	case *ddl.Case:
		c := *x
		var err error
		if c.Operand, err = s.subst(x.Operand, false); err != nil {
			return nil, err
		}
		c.Whens = slices.Clone(x.Whens)
		for i, w := range x.Whens {
			if c.Whens[i].Cond, err = s.subst(w.Cond, false); err != nil {
				return nil, err
			}
			if c.Whens[i].Result, err = s.subst(w.Result, false); err != nil {
				return nil, err
			}
		}
		if c.Else, err = s.subst(x.Else, false); err != nil {
			return nil, err
		}
		return &c, nil
	case *ddl.Is:
		in, err := s.subst(x.Expr, false)
		if err != nil {
			return nil, err
		}
		c := *x
		c.Expr = in
		return &c, nil
	case *ddl.Literal, *ddl.IntervalLit:
		return e, nil
	}
	plain := true
	ddl.Walk(e, func(n ddl.Expr) bool {
		switch n.(type) {
		case *ddl.ColumnRef, *ddl.Call, *ddl.Over:
			plain = false
		}
		return plain
	})
	if plain {
		return e, nil
	}
	return nil, fmt.Errorf("IN, BETWEEN, LIKE, subqueries or subscripts over columns")
}

// window returns w over the aggregation's columns.
func (s *aggSplit) window(w *ddl.WindowSpec) (*ddl.WindowSpec, error) {
	if w == nil {
		return nil, nil
	}
	out := *w
	out.PartitionBy = make([]ddl.Expr, len(w.PartitionBy))
	for i, e := range w.PartitionBy {
		var err error
		if out.PartitionBy[i], err = s.subst(e, false); err != nil {
			return nil, err
		}
	}
	out.OrderBy = slices.Clone(w.OrderBy)
	for i, it := range w.OrderBy {
		var err error
		if out.OrderBy[i].Expr, err = s.subst(it.Expr, false); err != nil {
			return nil, err
		}
	}
	return &out, nil
}
