package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/ops/timesort"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// ORDER BY without LIMIT over a stream is Flink's TemporalSort: its first
// item must be a time attribute, ascending (a rowtime or PROCTIME()
// column), the others may be any columns; the rows go out in that order
// as time passes them (ops/timesort). As in Flink (Calcite drops the sort
// of a subquery without LIMIT), only the query of a statement is sorted:
// in a subquery, a view or a CTE the ORDER BY is dropped.
//
// The query is planned as
//
//	SELECT items..., order1 AS $sort0, order2 AS $sort1 ... FROM ...
//
// (items inlined as orderlimit.go does; over a query that is not a plain
// SELECT, SELECT *, order... FROM (query)), sorted by the $sort columns,
// which the relation over the sort leaves out.

// sortColumn names the hidden input column of the sort's ORDER BY item i.
func sortColumn(i int) string { return fmt.Sprintf("$sort%d", i) }

// resolveTemporalSort resolves q, ORDER BY without LIMIT or OFFSET.
func (p *planner) resolveTemporalSort(q *ddl.OrderBy, depth int) (*relation, error) {
	if depth > 0 {
		return p.resolveQuery(q.Query, depth) // dropped, as in Flink
	}
	var inner *ddl.Select
	if sel, ok := q.Query.(*ddl.Select); ok && !isAggregating(sel) && !sel.Distinct && len(selectOvers(sel)) == 0 {
		items, err := p.orderItems(q.Items, sel.Items, true)
		if err != nil {
			return nil, err
		}
		s := *sel
		s.Items = slices.Clone(sel.Items)
		for i, it := range items {
			s.Items = append(s.Items, ddl.SelectItem{Pos: it.Pos, Expr: it.Expr, Alias: sortColumn(i), AliasPos: it.Pos})
		}
		inner = &s
	} else {
		var outItems []ddl.SelectItem
		if sel, ok := leftmostSelect(q.Query); ok {
			outItems = sel.Items
		}
		items, err := p.orderItems(q.Items, outItems, false)
		if err != nil {
			return nil, err
		}
		inner = &ddl.Select{Pos: q.Pos, Items: []ddl.SelectItem{{Pos: q.Pos, Star: true}},
			From: &ddl.Subquery{Pos: q.Pos, Query: q.Query, Alias: "\x00sorted"}}
		for i, it := range items {
			inner.Items = append(inner.Items, ddl.SelectItem{Pos: it.Pos, Expr: it.Expr, Alias: sortColumn(i), AliasPos: it.Pos})
		}
	}
	rel, err := p.resolveQuery(inner, depth)
	if err != nil {
		return nil, err
	}
	n := len(rel.names) - len(q.Items)
	first := q.Items[0]
	var times []expr.Expr
	for _, b := range rel.branches {
		times = append(times, b.cols[n])
	}
	rowtime, proc := p.timeAttribute(rel.branches, times)
	if !rowtime && !proc || first.Desc {
		return nil, p.f.errorAt(first.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
			"ORDER BY %s without LIMIT over a stream is not supported: it must be ordered by a time attribute first, ascending (a rowtime or PROCTIME() column), as in Flink (Sort on a non-time-attribute field is not supported); ORDER BY ... LIMIT n is a Top-N",
			ddl.FormatExpr(first.Expr)+map[bool]string{true: " DESC", false: ""}[first.Desc]))
	}
	node := &Node{Kind: TemporalSort, Pos: q.Pos, Names: slices.Clone(rel.names), Types: slices.Clone(rel.types)}
	if proc {
		// The operator reads its clock: the column carries a NULL, not a
		// PROCTIME() evaluated for every row.
		node.Types[n] = node.Types[n].Nullable()
	}
	spec := &timesort.Spec{Types: slices.Clone(node.Types), Time: -1}
	if rowtime {
		spec.Time = n
	}
	var order []string
	for i, it := range q.Items {
		order = append(order, ddl.FormatExpr(it.Expr)+map[bool]string{true: " DESC", false: " ASC"}[it.Desc])
		if i == 0 {
			continue
		}
		k := rank.SortKey{Col: n + i, Desc: it.Desc, NullsLast: it.Desc}
		switch it.Nulls {
		case ddl.NullsFirst:
			k.NullsLast = false
		case ddl.NullsLast:
			k.NullsLast = true
		}
		spec.Order = append(spec.Order, k)
	}
	for _, b := range rel.branches {
		fl := &Flow{Source: b.src, Unnest: b.unnest, Names: node.Names, Filter: and(b.filters)}
		for i, e := range b.cols {
			if proc && i == n {
				fl.Projection = append(fl.Projection, expr.Lit(node.Types[n], types.Value{}))
				continue
			}
			if e, err = p.assignTo(e, rel.types[i], rel.pos[i]); err != nil {
				return nil, err
			}
			fl.Projection = append(fl.Projection, e)
		}
		if rowtime {
			if src := b.src; src.Table != nil {
				src.Watermark = src.watermark
			}
		}
		if err := p.checkCompiles(fl, nil, q.Pos); err != nil {
			return nil, err
		}
		fl.ReadFields, fl.ReadRows = readFields(fl)
		node.Inputs = append(node.Inputs, fl)
	}
	node.Sort = spec
	node.Describe = fmt.Sprintf("TemporalSort(orderBy=[%s])", strings.Join(order, ", "))

	// The relation over the sort: the query's columns, the time attribute
	// kept.
	src := &Source{Pos: q.Pos, Node: node, RowTypes: node.Types}
	if rowtime {
		src.rowtime = expr.Col(n, node.Names[n], node.Types[n])
	}
	out := &relation{names: rel.names[:n], pos: rel.pos[:n], types: rel.types[:n]}
	if rel.colQuals != nil {
		out.colQuals = rel.colQuals[:n]
	}
	b := &branch{src: src}
	for i := range n {
		b.cols = append(b.cols, expr.Col(i, node.Names[i], node.Types[i]))
	}
	out.branches = []*branch{b}
	return out, nil
}
