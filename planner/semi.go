package planner

import (
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/planner/expr"
)

// This file plans the subqueries of WHERE that are semi and anti joins, as
// Flink decorrelates them: a conjunct of WHERE that is
//
//	x IN (SELECT y FROM t WHERE c)      a SEMI join ON x = y AND c
//	EXISTS (SELECT ... FROM t WHERE c)  a SEMI join ON c
//	NOT EXISTS (...)                    an ANTI join ON c
//	x NOT IN (SELECT y FROM t WHERE c)  an ANTI join ON (x = y OR x IS NULL
//	                                    OR y IS NULL) AND c: a NULL on
//	                                    either side makes NOT IN unknown
//	x = ANY|SOME (...), x <> ALL (...)  as x IN (...), x NOT IN (...)
//
// where c may refer to the columns of the query around the subquery (a
// correlated subquery). The subquery's FROM is the join's right input and
// c its condition; a subquery with GROUP BY, DISTINCT, set operations or
// other clauses is the right input as a whole, and may not be correlated.
// Subqueries elsewhere (in the SELECT list, under OR or NOT of other
// conditions, in HAVING) are refused.

// subqueryConjunct is a conjunct of WHERE that is a semi or anti join.
type subqueryConjunct struct {
	pos   ddl.Pos
	anti  bool
	in    ddl.Expr // x of x [NOT] IN; nil for [NOT] EXISTS
	query ddl.Query
}

// asSubqueryConjunct reports whether e is [NOT] EXISTS (query) or
// x [NOT] IN (query).
func asSubqueryConjunct(e ddl.Expr) (subqueryConjunct, bool) {
	switch n := e.(type) {
	case *ddl.Exists:
		return subqueryConjunct{pos: n.Pos, query: n.Query}, true
	case *ddl.InQuery:
		return subqueryConjunct{pos: n.Pos, anti: n.Not, in: n.Expr, query: n.Query}, true
	case *ddl.Unary:
		if x, ok := n.Expr.(*ddl.Exists); ok && n.Op == ddl.OpNot {
			return subqueryConjunct{pos: n.Pos, anti: true, query: x.Query}, true
		}
	case *ddl.Quantified:
		// x = ANY|SOME (query) is x IN (query), x <> ALL (query) x NOT IN
		// (query), as Calcite rewrites them.
		switch {
		case n.Op == ddl.OpEq && n.Quantifier != "ALL":
			return subqueryConjunct{pos: n.Pos, in: n.Left, query: n.Query}, true
		case n.Op == ddl.OpNe && n.Quantifier == "ALL":
			return subqueryConjunct{pos: n.Pos, anti: true, in: n.Left, query: n.Query}, true
		}
	}
	return subqueryConjunct{}, false
}

// refuseWhere returns the first refusal in a WHERE clause, in source
// order: its conjuncts that are semi or anti joins are planned, so only
// their operands are checked.
func (f *file) refuseWhere(e ddl.Expr) error {
	for _, c := range conjuncts(e, nil) {
		sq, ok := asSubqueryConjunct(c)
		if !ok {
			if err := f.refuseExpr(c); err != nil {
				return err
			}
			continue
		}
		if err := f.refuseExpr(sq.in); err != nil {
			return err
		}
		if err := f.refuseQuery(sq.query); err != nil {
			return err
		}
	}
	return nil
}

// semiJoins plans the conjuncts of q's WHERE that are semi or anti joins
// over in (the FROM's relation, qualified by quals): it returns the
// relation of the joins and q with the rest of WHERE.
func (p *planner) semiJoins(q *ddl.Select, in *relation, quals [][]string, depth int) (*relation, *ddl.Select, error) {
	var rest []ddl.Expr
	var subs []subqueryConjunct
	for _, c := range conjuncts(q.Where, nil) {
		if sq, ok := asSubqueryConjunct(c); ok {
			subs = append(subs, sq)
		} else {
			rest = append(rest, c)
		}
	}
	found := len(subs) > 0
	if found {
		var err error
		if in, rest, err = p.filterFirst(in, quals, rest); err != nil {
			return nil, nil, err
		}
	}
	for _, sq := range subs {
		var err error
		if in, err = p.semiJoin(in, quals, sq, depth); err != nil {
			return nil, nil, err
		}
	}
	if !found {
		return in, q, nil
	}
	out := *q
	out.Where = andDDL(rest)
	return in, &out, nil
}

// filterFirst applies the conditions of WHERE other than subqueries (rest)
// to in's branches, before the semi and anti joins read it: they are the
// same rows either way, and the join keeps fewer. A window table
// function's relation keeps them (its window columns exist after the
// window is computed only).
func (p *planner) filterFirst(in *relation, quals [][]string, rest []ddl.Expr) (*relation, []ddl.Expr, error) {
	if in.window != nil || len(rest) == 0 {
		return in, rest, nil
	}
	out := *in
	out.branches = make([]*branch, len(in.branches))
	for i, b := range in.branches {
		l := &lowerer{f: p.f, sc: in.scope(b.cols, quals)}
		nb := *b
		nb.filters = slices.Clone(b.filters)
		for _, c := range rest {
			e, err := l.lowerCondition(c)
			if err != nil {
				return nil, nil, err
			}
			nb.filters = append(nb.filters, e)
		}
		out.branches[i] = &nb
	}
	return &out, nil, nil
}

// semiJoin plans one semi or anti join of in with the subquery of sq.
func (p *planner) semiJoin(in *relation, quals [][]string, sq subqueryConjunct, depth int) (*relation, error) {
	left := &joinInput{rel: in}
	for _, q := range quals {
		left.names = append(left.names, joinDots(q))
	}
	if in.colQuals == nil && len(quals) > 0 {
		r := *in
		r.colQuals = make([][][]string, len(in.names))
		for i := range r.colQuals {
			r.colQuals[i] = quals
		}
		left.rel = &r
	}
	// The subquery: a plain SELECT ... FROM ... WHERE is the join's right
	// input (its FROM) and condition (its WHERE); any other query is the
	// right input as a whole.
	var right *joinInput
	var conds []ddl.Expr
	var item ddl.Expr
	sel, plain := sq.query.(*ddl.Select)
	if plain && sel.From != nil && sel.GroupBy == nil && sel.Having == nil && !sel.Distinct && len(sel.Windows) == 0 && len(sel.Hints) == 0 && !isAggregating(sel) {
		var err error
		if right, err = p.joinInputOf(sel.From, depth+1, nil, nil); err != nil {
			return nil, err
		}
		conds = conjuncts(sel.Where, nil)
		if sq.in != nil {
			if len(sel.Items) != 1 || sel.Items[0].Star {
				return nil, p.f.errorAt(sq.pos, ErrType, nil, "the subquery of IN must return one column")
			}
			item = sel.Items[0].Expr
		}
	} else {
		rel, err := p.resolveQuery(sq.query, depth+1)
		if err != nil {
			return nil, err
		}
		right = &joinInput{rel: rel}
		if sq.in != nil {
			if len(rel.names) != 1 {
				return nil, p.f.errorAt(sq.pos, ErrType, nil, fmt.Sprintf("the subquery of IN must return one column, not %d", len(rel.names)))
			}
			item = &ddl.ColumnRef{Pos: sq.pos, Parts: []string{rel.names[0]}}
		}
	}
	nl := len(left.rel.names)
	// The subquery's expressions see its own columns first, then the
	// outer query's; x of x IN sees the outer query's only.
	outer := &scope{}
	for i, n := range left.rel.names {
		outer.cols = append(outer.cols, scopeCol{name: n, e: expr.Col(i, n, left.rel.types[i]), quals: left.rel.colQualsOf(i)})
	}
	inner := &scope{outer: outer}
	for i, n := range right.rel.names {
		inner.cols = append(inner.cols, scopeCol{name: n, e: expr.Col(nl+i, n, right.rel.types[i]), quals: right.rel.colQualsOf(i)})
	}
	var lowered []expr.Expr
	il := &lowerer{f: p.f, sc: inner}
	for _, c := range conds {
		e, err := il.lowerCondition(c)
		if err != nil {
			return nil, err
		}
		lowered = append(lowered, e)
	}
	typ := join.Semi
	if sq.anti {
		typ = join.Anti
	}
	if sq.in != nil {
		x, err := (&lowerer{f: p.f, sc: outer}).lower(sq.in)
		if err != nil {
			return nil, err
		}
		y, err := il.lower(item)
		if err != nil {
			return nil, err
		}
		eq, err := il.resolved(sq.pos, expr.Fn("=", x, y))
		if err != nil {
			return nil, err
		}
		if sq.anti && (!x.Type().NotNull || !y.Type().NotNull) {
			// NOT IN is unknown, so false, when either side is NULL.
			cond, err := il.resolved(sq.pos, expr.Fn("OR", eq, expr.Fn("IS NULL", x), expr.Fn("IS NULL", y)))
			if err != nil {
				return nil, err
			}
			eq = cond
		}
		lowered = append(lowered, eq)
	}
	j := &ddl.Join{Pos: sq.pos, Kind: ddl.JoinInner}
	jb := &joinBuilder{p: p, j: j, typ: typ, ins: [2]*joinInput{left, right}, nl: nl}
	if err := jb.classify(lowered, false); err != nil {
		return nil, err
	}
	rel, err := jb.build(nil)
	if err != nil {
		return nil, err
	}
	return rel, nil
}
