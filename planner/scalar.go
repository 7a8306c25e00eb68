package planner

import (
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// This file plans scalar subqueries — (SELECT ...) used as a value in
// WHERE or in the SELECT list — as Flink decorrelates them: each is a LEFT
// JOIN of the query's FROM with a relation of at most one row per
// outer row, whose column is the subquery's value (NULL when it has no
// row).
//
//   - An uncorrelated subquery is that relation as it is when it is an
//     aggregation without GROUP BY (one row); otherwise its value is
//     SINGLE_VALUE of its rows, which fails the job at a second row, as
//     Flink's SingleValueAggFunction does. The join has no key: all rows
//     meet in one task.
//   - A correlated subquery, SELECT item FROM t WHERE c, whose conditions
//     relating it to the outer query are equalities inner = outer, is
//     grouped by the inner sides (item aggregated, or SINGLE_VALUE of a
//     plain item) and joined ON the outer sides. A COUNT item is 0, not
//     NULL, where no inner row matches.
//
// The subquery's value changes as its input does: the join retracts the
// rows it emitted with the old value and emits them with the new one.

// scalarName names the hidden column holding the value of scalar
// subquery i.
func scalarName(i int) string { return fmt.Sprintf("$scalar%d", i) }

// scalarSubqueries returns the scalar subqueries of e, outside nested
// queries, in source order.
func scalarSubqueries(e ddl.Expr, out []*ddl.ScalarSubquery) []*ddl.ScalarSubquery {
	ddl.Walk(e, func(x ddl.Expr) bool {
		if s, ok := x.(*ddl.ScalarSubquery); ok {
			out = append(out, s)
			return false
		}
		return true
	})
	return out
}

// aggregateScalarSubqueries reports whether q aggregates and has a scalar
// subquery in its SELECT list or HAVING, which is evaluated over the
// aggregation's rows (splitScalarAggregate); one in an aggregate call's
// argument is refused.
func (p *planner) aggregateScalarSubqueries(q *ddl.Select) (bool, error) {
	if !isAggregating(q) {
		return false, nil
	}
	found := false
	var err error
	check := func(e ddl.Expr) {
		ddl.Walk(e, func(x ddl.Expr) bool {
			switch x := x.(type) {
			case *ddl.ScalarSubquery:
				found = true
				return false
			case *ddl.Call:
				if _, isAgg := agg.Lookup(x.Name); (isAgg || isVariance(x)) && err == nil {
					for _, a := range append(slices.Clone(x.Args), x.Filter) {
						if subs := scalarSubqueries(a, nil); len(subs) > 0 {
							err = p.f.unsupported(subs[0].Pos, "a scalar subquery in the argument of an aggregate function")
						}
					}
					return false
				}
			}
			return true
		})
	}
	for _, it := range q.Items {
		check(it.Expr)
	}
	check(q.Having)
	return found && err == nil, err
}

// scalarJoins plans the scalar subqueries of q's WHERE and SELECT list
// over in (the FROM's relation, qualified by quals). It returns the
// relation with each subquery's value as a hidden column, q with WHERE's
// conjuncts that read a subquery taken out (they are the relation's
// filters now), and the rewrite that maps the SELECT list's subqueries to
// their columns (nil when it has none).
func (p *planner) scalarJoins(q *ddl.Select, in *relation, quals [][]string, depth int) (*relation, *ddl.Select, func(ddl.Expr) (expr.Expr, bool, error), error) {
	var inWhere, inItems []*ddl.ScalarSubquery
	var rest, withSub []ddl.Expr
	for _, c := range conjuncts(q.Where, nil) {
		if subs := scalarSubqueries(c, nil); len(subs) > 0 {
			inWhere = append(inWhere, subs...)
			withSub = append(withSub, c)
		} else {
			rest = append(rest, c)
		}
	}
	for _, it := range q.Items {
		inItems = scalarSubqueries(it.Expr, inItems)
	}
	if len(inWhere)+len(inItems) == 0 {
		return in, q, nil, nil
	}
	all := append(slices.Clone(inWhere), inItems...)
	switch {
	case in.window != nil:
		return nil, nil, nil, p.f.unsupported(all[0].Pos, "a scalar subquery in a query over a window table function")
	case len(inItems) > 0 && isAggregating(q):
		return nil, nil, nil, p.f.unsupported(inItems[0].Pos, "a scalar subquery in the SELECT list of a query with GROUP BY or aggregate functions (one in its WHERE is supported)")
	case len(inItems) > 0 && len(selectOvers(q)) > 0:
		return nil, nil, nil, p.f.unsupported(inItems[0].Pos, "a scalar subquery in the SELECT list of a query with OVER")
	}
	if in.colQuals == nil && len(quals) > 0 {
		r := *in
		r.colQuals = make([][][]string, len(in.names))
		for i := range r.colQuals {
			r.colQuals[i] = quals
		}
		in = &r
	}
	cols := map[*ddl.ScalarSubquery]int{}
	values := map[*ddl.ScalarSubquery]func(expr.Expr) (expr.Expr, error){}
	for i, sq := range all {
		var err error
		var value func(expr.Expr) (expr.Expr, error)
		if in, value, err = p.scalarJoin(in, sq, scalarName(i), depth); err != nil {
			return nil, nil, nil, err
		}
		cols[sq], values[sq] = len(in.names)-1, value
	}
	b := in.branches[0]
	rewrite := func(e ddl.Expr) (expr.Expr, bool, error) {
		sq, ok := e.(*ddl.ScalarSubquery)
		if !ok {
			return nil, false, nil
		}
		c, ok := cols[sq]
		if !ok {
			return nil, true, p.f.unsupported(sq.Pos, "a scalar subquery here (one in WHERE, HAVING or the SELECT list is supported)")
		}
		v, err := values[sq](b.cols[c])
		return v, true, err
	}
	// WHERE's conjuncts that read a subquery filter the joined rows.
	if len(withSub) > 0 {
		nb := *b
		nb.filters = slices.Clone(b.filters)
		l := &lowerer{f: p.f, sc: in.scope(b.cols, quals), rewrite: rewrite}
		for _, c := range withSub {
			e, err := l.lowerCondition(c)
			if err != nil {
				return nil, nil, nil, err
			}
			nb.filters = append(nb.filters, e)
		}
		r := *in
		r.branches = []*branch{&nb}
		in, b = &r, &nb
	}
	out := *q
	out.Where = andDDL(rest)
	if len(inItems) == 0 {
		rewrite = nil
	}
	return in, &out, rewrite, nil
}

// scalarJoin plans one scalar subquery sq as a LEFT JOIN of in with the
// relation of its value, named name: it returns in's columns followed by
// the value's (hidden), and the function giving the subquery's value
// from the column's expression.
func (p *planner) scalarJoin(in *relation, sq *ddl.ScalarSubquery, name string, depth int) (*relation, func(expr.Expr) (expr.Expr, error), error) {
	left := &joinInput{rel: in}
	nl := len(in.names)
	outer := &scope{}
	for i, n := range in.names {
		outer.cols = append(outer.cols, scopeCol{name: n, e: expr.Col(i, n, in.types[i]), quals: in.colQualsOf(i)})
	}
	sel, plain := sq.Query.(*ddl.Select)
	if plain && (len(sel.Items) != 1 || sel.Items[0].Star && len(sel.Items) > 1) {
		return nil, nil, p.f.errorAt(sq.Pos, ErrType, nil, fmt.Sprintf("a scalar subquery must return one column, not %d", len(sel.Items)))
	}
	plain = plain && sel.From != nil && sel.GroupBy == nil && sel.Having == nil && !sel.Distinct &&
		len(sel.Windows) == 0 && len(sel.Hints) == 0 && len(sel.Items) == 1 && !sel.Items[0].Star
	// The correlation: WHERE's conjuncts over the outer query's columns,
	// which must be equalities of an inner and an outer expression.
	var innerKeys []ddl.Expr
	var outerKeys []expr.Expr
	var innerWhere []ddl.Expr
	if plain {
		right, err := p.joinInputOf(sel.From, depth+1, nil, nil)
		if err != nil {
			return nil, nil, err
		}
		inner := &scope{outer: outer}
		for i, n := range right.rel.names {
			inner.cols = append(inner.cols, scopeCol{name: n, e: expr.Col(nl+i, n, right.rel.types[i]), quals: right.rel.colQualsOf(i)})
		}
		il := &lowerer{f: p.f, sc: inner}
		for _, c := range conjuncts(sel.Where, nil) {
			e, err := il.lowerCondition(c)
			if err != nil {
				return nil, nil, err
			}
			if lr, _ := refSides(e, nl); !lr {
				innerWhere = append(innerWhere, c)
				continue
			}
			ik, ok, err := p.correlation(il, c, nl)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				return nil, nil, p.f.unsupported(c.Position(), "a condition of a correlated scalar subquery other than inner = outer (an equality of an expression of the subquery's columns and one of the outer query's)")
			}
			innerKeys, outerKeys = append(innerKeys, ik[0].(ddl.Expr)), append(outerKeys, ik[1].(expr.Expr))
		}
	}
	// The relation of the value: its key columns (the inner sides of the
	// correlation), then the value.
	value := func(e expr.Expr) (expr.Expr, error) { return e, nil }
	var query ddl.Query
	switch {
	case len(innerKeys) > 0:
		item := sel.Items[0].Expr
		if isAggregating(sel) {
			count, err := p.correlatedItem(item)
			if err != nil {
				return nil, nil, err
			}
			if count {
				// COUNT of no rows is 0, where the join finds none.
				value = func(e expr.Expr) (expr.Expr, error) {
					return (&lowerer{f: p.f}).resolved(sq.Pos, expr.Fn("COALESCE", e, expr.Lit(types.BigInt().NotNullable(), types.Int64(0))))
				}
			}
		} else {
			item = singleValue(item)
		}
		g := &ddl.GroupBy{Pos: sq.Pos}
		var items []ddl.SelectItem
		for i, k := range innerKeys {
			g.Items = append(g.Items, ddl.GroupItem{Pos: k.Position(), Kind: ddl.GroupExpr, Expr: k})
			items = append(items, ddl.SelectItem{Pos: k.Position(), Expr: k, Alias: fmt.Sprintf("%s_k%d", name, i)})
		}
		items = append(items, ddl.SelectItem{Pos: item.Position(), Expr: item, Alias: name})
		query = &ddl.Select{Pos: sel.Pos, Items: items, From: sel.From, Where: andDDL(innerWhere), GroupBy: g}
	case plain && isAggregating(sel):
		query = sq.Query // one row
	case plain:
		s := *sel
		s.Items = []ddl.SelectItem{{Pos: sel.Items[0].Pos, Expr: singleValue(sel.Items[0].Expr), Alias: name}}
		query = &s
	default:
		// Any other query: SINGLE_VALUE of its one column.
		col := ddl.Ident{Pos: sq.Pos, Name: name + "_c"}
		query = &ddl.Select{Pos: sq.Pos,
			Items: []ddl.SelectItem{{Pos: sq.Pos, Expr: singleValue(&ddl.ColumnRef{Pos: sq.Pos, Parts: []string{col.Name}}), Alias: name}},
			From:  &ddl.Subquery{Pos: sq.Pos, Query: sq.Query, Alias: name + "_q", ColumnAliases: []ddl.Ident{col}}}
	}
	rel, err := p.resolveQuery(query, depth+1)
	if err != nil {
		return nil, nil, err
	}
	if len(rel.names) != len(innerKeys)+1 {
		return nil, nil, p.f.errorAt(sq.Pos, ErrType, nil, fmt.Sprintf("a scalar subquery must return one column, not %d", len(rel.names)-len(innerKeys)))
	}
	right := &joinInput{rel: rel}
	var conds []expr.Expr
	for i, o := range outerKeys {
		conds = append(conds, expr.Fn("=", o, expr.Col(nl+i, rel.names[i], rel.types[i])))
	}
	l := &lowerer{f: p.f}
	for i, c := range conds {
		if conds[i], err = l.resolved(sq.Pos, c); err != nil {
			return nil, nil, err
		}
	}
	j := &ddl.Join{Pos: sq.Pos, Kind: ddl.JoinLeft}
	jb := &joinBuilder{p: p, j: j, typ: join.Left, ins: [2]*joinInput{left, right}, nl: nl}
	if err := jb.classify(conds, false); err != nil {
		return nil, nil, err
	}
	joined, err := jb.build(nil)
	if err != nil {
		return nil, nil, err
	}
	// Keep in's columns and the value; the value is hidden from names
	// and stars.
	v := nl + len(innerKeys)
	out := &relation{names: append(slices.Clone(joined.names[:nl]), name), pos: append(slices.Clone(joined.pos[:nl]), sq.Pos),
		types: append(slices.Clone(joined.types[:nl]), joined.types[v])}
	out.colQuals = append(slices.Clone(joined.colQuals[:nl]), [][]string{hiddenQual})
	jbr := joined.branches[0]
	nb := &branch{src: jbr.src, filters: jbr.filters, unnest: jbr.unnest, cols: append(slices.Clone(jbr.cols[:nl]), jbr.cols[v])}
	out.branches = []*branch{nb}
	return out, value, nil
}

// correlation returns the inner and outer sides of c when it is an
// equality of an expression of the subquery's columns (index nl on) and
// one of the outer query's: [ddl.Expr inner, expr.Expr outer].
func (p *planner) correlation(il *lowerer, c ddl.Expr, nl int) ([2]any, bool, error) {
	b, ok := c.(*ddl.Binary)
	if !ok || b.Op != ddl.OpEq {
		return [2]any{}, false, nil
	}
	x, err := il.lower(b.Left)
	if err != nil {
		return [2]any{}, false, err
	}
	y, err := il.lower(b.Right)
	if err != nil {
		return [2]any{}, false, err
	}
	xl, xr := refSides(x, nl)
	yl, yr := refSides(y, nl)
	switch {
	case xr && !xl && yl && !yr:
		return [2]any{b.Left, y}, true, nil
	case yr && !yl && xl && !xr:
		return [2]any{b.Right, x}, true, nil
	}
	return [2]any{}, false, nil
}

// correlatedItem checks the item of a correlated aggregating subquery:
// its value where no inner row matches is the join's NULL, which is
// right for an expression that is NULL when its aggregates are, except
// COUNT (0), which may be the whole item only. It reports whether the
// item is a COUNT.
func (p *planner) correlatedItem(item ddl.Expr) (count bool, err error) {
	if c, ok := item.(*ddl.Call); ok && c.Name == "COUNT" {
		return true, nil
	}
	ddl.Walk(item, func(x ddl.Expr) bool {
		if err != nil {
			return false
		}
		switch x := x.(type) {
		case *ddl.Call:
			if fn, ok := agg.Lookup(x.Name); ok && fn != agg.Count {
				return false // NULL over no rows
			}
			err = p.f.unsupported(x.Pos, "in a correlated scalar subquery, "+x.Name+" around or beside the aggregates (the item is an aggregate, COUNT, or arithmetic and CAST over aggregates and constants)")
		case *ddl.Binary:
			switch x.Op {
			case ddl.OpAdd, ddl.OpSub, ddl.OpMul, ddl.OpDiv, ddl.OpMod:
			default:
				err = p.f.unsupported(x.Pos, "in a correlated scalar subquery, the operator "+string(x.Op)+" over aggregates (the item is an aggregate, COUNT, or arithmetic and CAST over aggregates and constants)")
			}
		case *ddl.Unary:
			if x.Op == ddl.OpNot {
				err = p.f.unsupported(x.Pos, "in a correlated scalar subquery, NOT over aggregates")
			}
		case *ddl.Cast, *ddl.Literal:
		default:
			err = p.f.unsupported(x.Position(), "in a correlated scalar subquery, this expression over aggregates (the item is an aggregate, COUNT, or arithmetic and CAST over aggregates and constants)")
		}
		return err == nil
	})
	return false, err
}

// singleValue returns SINGLE_VALUE(e).
func singleValue(e ddl.Expr) ddl.Expr {
	return &ddl.Call{Pos: e.Position(), Name: "SINGLE_VALUE", Args: []ddl.Expr{e}}
}
