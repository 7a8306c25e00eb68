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

// valueSubqueries returns the scalar subqueries and quantified
// comparisons (x > ALL (query)) of e, outside nested queries, in source
// order.
func valueSubqueries(e ddl.Expr, out []ddl.Expr) []ddl.Expr {
	ddl.Walk(e, func(x ddl.Expr) bool {
		switch x.(type) {
		case *ddl.ScalarSubquery, *ddl.Quantified:
			out = append(out, x)
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
	var inWhere, inItems []ddl.Expr
	var rest, withSub []ddl.Expr
	for _, c := range conjuncts(q.Where, nil) {
		if subs := valueSubqueries(c, nil); len(subs) > 0 {
			inWhere = append(inWhere, subs...)
			withSub = append(withSub, c)
		} else {
			rest = append(rest, c)
		}
	}
	for _, it := range q.Items {
		inItems = valueSubqueries(it.Expr, inItems)
	}
	if len(inWhere)+len(inItems) == 0 {
		return in, q, nil, nil
	}
	all := append(slices.Clone(inWhere), inItems...)
	switch {
	case in.window != nil:
		return nil, nil, nil, p.f.unsupported(all[0].Position(), "a scalar subquery in a query over a window table function")
	case len(inItems) > 0 && isAggregating(q):
		return nil, nil, nil, p.f.unsupported(inItems[0].Position(), "a scalar subquery in the SELECT list of a query with GROUP BY or aggregate functions (one in its WHERE is supported)")
	case len(inItems) > 0 && len(selectOvers(q)) > 0:
		return nil, nil, nil, p.f.unsupported(inItems[0].Position(), "a scalar subquery in the SELECT list of a query with OVER")
	}
	if in.colQuals == nil && len(quals) > 0 {
		r := *in
		r.colQuals = make([][][]string, len(in.names))
		for i := range r.colQuals {
			r.colQuals[i] = quals
		}
		in = &r
	}
	// Each subquery's value: from its hidden columns (and, for a
	// quantified comparison, its left operand, lowered by l).
	type valueOf func(l *lowerer, cols []expr.Expr) (expr.Expr, error)
	cols := map[ddl.Expr][2]int{} // the hidden columns [from, to)
	values := map[ddl.Expr]valueOf{}
	for i, sq := range all {
		from := len(in.names)
		var err error
		var value valueOf
		switch sq := sq.(type) {
		case *ddl.ScalarSubquery:
			var v func(expr.Expr) (expr.Expr, error)
			if in, v, err = p.scalarJoin(in, sq, scalarName(i), depth); err != nil {
				return nil, nil, nil, err
			}
			value = func(_ *lowerer, cols []expr.Expr) (expr.Expr, error) { return v(cols[0]) }
		case *ddl.Quantified:
			if in, value, err = p.quantifiedJoin(in, sq, scalarName(i), depth); err != nil {
				return nil, nil, nil, err
			}
		}
		cols[sq], values[sq] = [2]int{from, len(in.names)}, value
	}
	b := in.branches[0]
	var rewrite func(e ddl.Expr) (expr.Expr, bool, error)
	rewrite = func(e ddl.Expr) (expr.Expr, bool, error) {
		switch e.(type) {
		case *ddl.ScalarSubquery, *ddl.Quantified:
		default:
			return nil, false, nil
		}
		c, ok := cols[e]
		if !ok {
			return nil, true, p.f.unsupported(e.Position(), "a scalar subquery here (one in WHERE, HAVING or the SELECT list is supported)")
		}
		l := &lowerer{f: p.f, sc: in.scope(b.cols, quals), rewrite: rewrite}
		v, err := values[e](l, b.cols[c[0]:c[1]])
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
			in, out, ok, err := p.correlation(il, c, nl)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				return nil, nil, p.f.unsupported(c.Position(), "a condition of a correlated scalar subquery other than inner = outer (an equality of an expression of the subquery's columns and one of the outer query's)")
			}
			innerKeys, outerKeys = append(innerKeys, in), append(outerKeys, out)
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
	out, err := p.valueJoin(in, rel, outerKeys, join.Left, sq.Pos, []string{name})
	return out, value, err
}

// valueJoin joins in with rel (typ: LEFT or INNER) ON outerKeys equal to
// rel's first columns, one task when there is no key: it returns in's
// columns followed by rel's after its keys, hidden from names and stars
// and named names.
func (p *planner) valueJoin(in, rel *relation, outerKeys []expr.Expr, typ join.Type, pos ddl.Pos, names []string) (*relation, error) {
	nl := len(in.names)
	var conds []expr.Expr
	l := &lowerer{f: p.f}
	for i, o := range outerKeys {
		c, err := l.resolved(pos, expr.Fn("=", o, expr.Col(nl+i, rel.names[i], rel.types[i])))
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	j := &ddl.Join{Pos: pos, Kind: ddl.JoinLeft}
	if typ == join.Inner {
		j.Kind = ddl.JoinInner
	}
	jb := &joinBuilder{p: p, j: j, typ: typ, ins: [2]*joinInput{{rel: in}, {rel: rel}}, nl: nl}
	if err := jb.classify(conds, false); err != nil {
		return nil, err
	}
	joined, err := jb.build(nil)
	if err != nil {
		return nil, err
	}
	out := &relation{names: slices.Clone(joined.names[:nl]), pos: slices.Clone(joined.pos[:nl]),
		types: slices.Clone(joined.types[:nl]), colQuals: slices.Clone(joined.colQuals[:nl])}
	jbr := joined.branches[0]
	nb := &branch{src: jbr.src, filters: jbr.filters, unnest: jbr.unnest, cols: slices.Clone(jbr.cols[:nl])}
	for i, name := range names {
		v := nl + len(outerKeys) + i
		out.names, out.pos, out.types = append(out.names, name), append(out.pos, pos), append(out.types, joined.types[v])
		out.colQuals = append(out.colQuals, [][]string{hiddenQual})
		nb.cols = append(nb.cols, jbr.cols[v])
	}
	out.branches = []*branch{nb}
	return out, nil
}

// quantifiedJoin plans x op ANY|SOME|ALL (query), op one of < <= > >=, as
// Flink (Calcite's SubQueryRemoveRule) does: x op ALL (q) is NOT (x op'
// SOME (q)) with op' op's complement, and x op SOME (q) reads the one row
// of SELECT MAX(y) (MIN(y) for > and >=) AS m, COUNT(*) AS c, COUNT(y) AS
// d FROM q, joined without a key (an INNER join: in a stream the
// aggregation has no row while q is empty, so neither has the join, as in
// Flink), as
//
//	CASE WHEN c = 0 THEN FALSE WHEN (x op m) IS TRUE THEN TRUE
//	     WHEN c > d THEN NULL ELSE x op m END
//
// (= ANY and <> ALL in WHERE are IN and NOT IN, semi.go).
func (p *planner) quantifiedJoin(in *relation, q *ddl.Quantified, name string, depth int) (*relation, func(*lowerer, []expr.Expr) (expr.Expr, error), error) {
	op, all := q.Op, q.Quantifier == "ALL"
	complement := map[ddl.BinaryOp]ddl.BinaryOp{ddl.OpLt: ddl.OpGe, ddl.OpLe: ddl.OpGt, ddl.OpGt: ddl.OpLe, ddl.OpGe: ddl.OpLt}
	if _, ok := complement[op]; !ok {
		what := string(op) + " " + q.Quantifier
		if op == ddl.OpEq && !all || op == ddl.OpNe && all {
			what += " other than as an AND-ed condition of WHERE (a semi or anti join)"
		}
		return nil, nil, p.f.unsupported(q.Pos, what)
	}
	if all {
		op = complement[op]
	}
	extreme := "MAX"
	if op == ddl.OpGt || op == ddl.OpGe {
		extreme = "MIN"
	}
	col := &ddl.ColumnRef{Pos: q.Pos, Parts: []string{name + "_y"}}
	agg := &ddl.Select{Pos: q.Pos,
		Items: []ddl.SelectItem{
			{Pos: q.Pos, Expr: &ddl.Call{Pos: q.Pos, Name: extreme, Args: []ddl.Expr{col}}, Alias: name + "_m"},
			{Pos: q.Pos, Expr: &ddl.Call{Pos: q.Pos, Name: "COUNT", Star: true}, Alias: name + "_c"},
			{Pos: q.Pos, Expr: &ddl.Call{Pos: q.Pos, Name: "COUNT", Args: []ddl.Expr{col}}, Alias: name + "_d"},
		},
		From: &ddl.Subquery{Pos: q.Pos, Query: q.Query, Alias: name + "_q", ColumnAliases: []ddl.Ident{{Pos: q.Pos, Name: col.Parts[0]}}}}
	rel, err := p.resolveQuery(agg, depth+1)
	if err != nil {
		return nil, nil, err
	}
	out, err := p.valueJoin(in, rel, nil, join.Inner, q.Pos, []string{name + "_m", name + "_c", name + "_d"})
	if err != nil {
		return nil, nil, err
	}
	value := func(l *lowerer, cols []expr.Expr) (expr.Expr, error) {
		x, err := l.lower(q.Left)
		if err != nil {
			return nil, err
		}
		m, c, d := cols[0], cols[1], cols[2]
		zero := expr.Lit(types.BigInt().NotNullable(), types.Int64(0))
		cmp := expr.Fn(string(op), x, m)
		e := expr.Expr(&expr.Case{Whens: []expr.When{
			{Cond: expr.Fn("=", c, zero), Result: expr.Lit(types.Boolean(), types.Bool(false))},
			{Cond: expr.Fn("IS TRUE", cmp), Result: expr.Lit(types.Boolean(), types.Bool(true))},
			{Cond: expr.Fn(">", c, d), Result: expr.Lit(types.Boolean(), types.Value{})},
		}, Else: cmp})
		if all {
			e = expr.Fn("NOT", e)
		}
		return l.resolved(q.Pos, e)
	}
	return out, value, nil
}

// correlation returns the inner and outer sides of c when it is an
// equality of an expression of the subquery's columns (index nl on) and
// one of the outer query's; ok false when it is not.
func (p *planner) correlation(il *lowerer, c ddl.Expr, nl int) (inner ddl.Expr, outer expr.Expr, ok bool, err error) {
	b, isBin := c.(*ddl.Binary)
	if !isBin || b.Op != ddl.OpEq {
		return nil, nil, false, nil
	}
	x, err := il.lower(b.Left)
	if err != nil {
		return nil, nil, false, err
	}
	y, err := il.lower(b.Right)
	if err != nil {
		return nil, nil, false, err
	}
	xl, xr := refSides(x, nl)
	yl, yr := refSides(y, nl)
	switch {
	case xr && !xl && yl && !yr:
		return b.Left, y, true, nil
	case yr && !yl && xl && !xr:
		return b.Right, x, true, nil
	}
	return nil, nil, false, nil
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
