package planner

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/types"
)

// ORDER BY ... LIMIT n [OFFSET m] (or FETCH FIRST n ROWS ONLY) over a
// stream is Flink's SortLimit: a Top-N over the whole input, without
// PARTITION BY and without the rank in its output. It is planned as the
// Top-N it is (rank.go), from the query rewritten as
//
//	SELECT * FROM (SELECT ..., ROW_NUMBER() OVER (ORDER BY items) AS rn FROM ...) WHERE rn > m AND rn <= m + n
//
// minus the rank column. The ORDER BY items of a plain SELECT (no GROUP BY,
// aggregate, DISTINCT or OVER) may name its output columns' aliases, their
// positions (ORDER BY 2) or the columns of its FROM; over other queries
// (an aggregation, a set operation, VALUES) they name the query's output
// columns.

// rankColumn is the name of the rank column of the rewritten query: no
// SQL identifier of a job file can spell it.
const rankColumn = "\x00rn"

// resolveOrderLimit resolves q, ORDER BY with LIMIT or FETCH.
func (p *planner) resolveOrderLimit(q *ddl.OrderBy, depth int) (*relation, error) {
	n, err := p.rowCount(q.Fetch, q.FetchPos, "LIMIT")
	if err != nil {
		return nil, err
	}
	var off int64
	if q.Offset != nil {
		if off, err = p.rowCount(q.Offset, q.OffsetPos, "OFFSET"); err != nil {
			return nil, err
		}
	}
	if n == 0 {
		return nil, p.f.errorAt(q.FetchPos, ddl.ErrUnsupported, nil, "LIMIT 0 selects no row; it is not supported")
	}
	items := q.Items
	if len(items) == 0 {
		// LIMIT alone: the first n rows to arrive (Flink's Limit, a
		// Top-N in processing time).
		items = []ddl.OrderItem{{Pos: q.FetchPos, Expr: &ddl.Call{Pos: q.FetchPos, Name: "PROCTIME"}}}
	}
	rn := &ddl.Over{Pos: q.Pos, Call: &ddl.Call{Pos: q.Pos, Name: "ROW_NUMBER"}, Window: &ddl.WindowSpec{Pos: q.Pos}}
	rnItem := ddl.SelectItem{Pos: q.Pos, Expr: rn, Alias: rankColumn, AliasPos: q.Pos}
	if len(q.Items) == 0 {
		if p.limitOvers == nil {
			p.limitOvers = map[*ddl.Over]bool{}
		}
		p.limitOvers[rn] = true
	}
	var inner *ddl.Select
	if sel, ok := q.Query.(*ddl.Select); ok && !isAggregating(sel) && !sel.Distinct && len(selectOvers(sel)) == 0 {
		items, err := p.orderItems(items, sel.Items, true)
		if err != nil {
			return nil, err
		}
		rn.Window.OrderBy = items
		s := *sel
		s.Items = append(slices.Clone(sel.Items), rnItem)
		inner = &s
	} else {
		var outItems []ddl.SelectItem
		if sel, ok := leftmostSelect(q.Query); ok {
			outItems = sel.Items
		}
		items, err := p.orderItems(items, outItems, false)
		if err != nil {
			return nil, err
		}
		rn.Window.OrderBy = items
		inner = &ddl.Select{Pos: q.Pos, Items: []ddl.SelectItem{{Pos: q.Pos, Star: true}, rnItem},
			From: &ddl.Subquery{Pos: q.Pos, Query: q.Query, Alias: "\x00sorted"}}
	}
	rnRef := &ddl.ColumnRef{Pos: q.Pos, Parts: []string{rankColumn}}
	where := ddl.Expr(&ddl.Binary{Pos: q.FetchPos, Op: ddl.OpLe, Left: rnRef, Right: bigintLit(q.FetchPos, off+n)})
	if off > 0 {
		where = &ddl.Binary{Pos: q.FetchPos, Op: ddl.OpAnd,
			Left:  &ddl.Binary{Pos: q.OffsetPos, Op: ddl.OpGt, Left: rnRef, Right: bigintLit(q.OffsetPos, off)},
			Right: where}
	}
	outer := &ddl.Select{Pos: q.Pos, Items: []ddl.SelectItem{{Pos: q.Pos, Star: true}},
		From: &ddl.Subquery{Pos: q.Pos, Query: inner, Alias: "\x00ranked"}, Where: where}
	rel, err := p.resolveQuery(outer, depth)
	if err != nil {
		return nil, err
	}
	// The rank column is the last one: drop it.
	last := len(rel.names) - 1
	if last < 0 || rel.names[last] != rankColumn {
		return nil, p.f.errorAt(q.Pos, ErrType, nil, "internal error: ORDER BY ... LIMIT lost its rank column")
	}
	out := *rel
	out.names, out.pos, out.types = rel.names[:last], rel.pos[:last], rel.types[:last]
	if rel.colQuals != nil {
		out.colQuals = rel.colQuals[:last]
	}
	out.branches = nil
	for _, b := range rel.branches {
		nb := *b
		nb.cols = b.cols[:last]
		out.branches = append(out.branches, &nb)
	}
	return &out, nil
}

// rowCount reads the constant row count of LIMIT, FETCH or OFFSET.
func (p *planner) rowCount(e ddl.Expr, pos ddl.Pos, what string) (int64, error) {
	l, ok := e.(*ddl.Literal)
	if !ok || l.Kind != ddl.IntLit || l.Value.Int64() < 0 {
		return 0, p.f.errorAt(e.Position(), ErrType, nil, fmt.Sprintf("%s takes a constant number of rows (an integer literal, 0 or more)", what))
	}
	return l.Value.Int64(), nil
}

// bigintLit returns the BIGINT literal v at pos.
func bigintLit(pos ddl.Pos, v int64) *ddl.Literal {
	return &ddl.Literal{Pos: pos, Kind: ddl.IntLit, Type: types.BigInt().NotNullable(), Value: types.Int64(v), Text: strconv.FormatInt(v, 10)}
}

// leftmostSelect returns the SELECT whose column names a query's result
// has (the left input of a set operation's).
func leftmostSelect(q ddl.Query) (*ddl.Select, bool) {
	for {
		switch x := q.(type) {
		case *ddl.Select:
			return x, true
		case *ddl.SetOp:
			q = x.Left
		case *ddl.With:
			q = x.Body
		default:
			return nil, false
		}
	}
}

// orderItems returns ORDER BY items as the rank's window orders by:
// positions (ORDER BY 2) become the expression of that SELECT item (inline)
// or its column name; when inline, a name that is the alias of a SELECT
// item becomes that item's expression (Calcite reads an ORDER BY name as
// the output column's alias first).
func (p *planner) orderItems(items []ddl.OrderItem, sel []ddl.SelectItem, inline bool) ([]ddl.OrderItem, error) {
	out := make([]ddl.OrderItem, len(items))
	for i, it := range items {
		out[i] = it
		switch x := it.Expr.(type) {
		case *ddl.Literal:
			if x.Kind != ddl.IntLit {
				return nil, p.f.errorAt(x.Pos, ErrType, nil, "ORDER BY a constant orders nothing; name a column or give its position (ORDER BY 2)")
			}
			k := x.Value.Int64()
			if sel == nil || k < 1 || k > int64(len(sel)) || sel[k-1].Star {
				return nil, p.f.errorAt(x.Pos, ErrType, nil, fmt.Sprintf("ORDER BY %d: the position of a column of the SELECT list (not of a * there) is 1 to %d", k, len(sel)))
			}
			s := sel[k-1]
			switch {
			case inline:
				out[i].Expr = s.Expr
			default:
				// The name the column has in the query's result: its
				// alias, its column's name or EXPR$<i> (itemName).
				out[i].Expr = &ddl.ColumnRef{Pos: x.Pos, Parts: []string{itemName(s, int(k-1))}}
			}
		case *ddl.ColumnRef:
			if !inline || len(x.Parts) != 1 {
				continue
			}
			for _, s := range sel {
				if s.Alias == x.Parts[0] {
					out[i].Expr = s.Expr
					break
				}
			}
		}
	}
	return out, nil
}
