package planner

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// This file plans GROUP BY, HAVING, aggregate calls and SELECT DISTINCT: a
// GroupAggregate node whose input flows compute the grouping key and the
// calls' arguments from the FROM relation, and a branch over the node's
// output that computes the SELECT list and HAVING from the keys and the
// calls' results.

// isAggregating reports whether q aggregates: it has GROUP BY, HAVING or
// an aggregate call outside OVER in its SELECT list.
func isAggregating(q *ddl.Select) bool {
	if q.GroupBy != nil || q.Having != nil {
		return true
	}
	for _, it := range q.Items {
		if len(aggregateCalls(it.Expr)) > 0 {
			return true
		}
	}
	return false
}

// aggregateCalls returns the aggregate calls in e, outside OVER windows
// (an OVER call aggregates a window of rows, not a group) and not inside
// another aggregate call (which is an error the planner reports).
func aggregateCalls(e ddl.Expr) []*ddl.Call {
	var out []*ddl.Call
	ddl.Walk(e, func(n ddl.Expr) bool {
		switch n := n.(type) {
		case *ddl.Over:
			return false
		case *ddl.Call:
			if _, ok := agg.Lookup(n.Name); ok || isVariance(n) {
				out = append(out, n)
				return false
			}
		}
		return true
	})
	return out
}

// aggCall is an aggregate call of a query, planned: the call and where
// its argument and filter columns are in the node's input row.
type aggCall struct {
	text string // the call as written, normalised: calls written alike are computed once
	call *ddl.Call
	spec agg.Call
}

// aggregateTTL returns the state TTL of q's aggregation: that of its
// STATE_TTL hint when the hint names the table or view q aggregates (by
// name or alias, as Flink's hint on a group aggregation does), else
// table.exec.state.ttl. Over a join the hint is the join's (join.go).
func (p *planner) aggregateTTL(q *ddl.Select, quals [][]string) (time.Duration, error) {
	if _, ok := q.From.(*ddl.Join); ok {
		return p.plan.StateTTL, nil
	}
	hints, err := p.readQueryHints(q)
	if err != nil || hints == nil {
		return p.plan.StateTTL, err
	}
	ttl := p.plan.StateTTL
	for _, name := range slices.Sorted(maps.Keys(hints.byName)) {
		h := hints.byName[name]
		named := false
		for _, q := range quals {
			named = named || joinDots(q) == name
		}
		if !named {
			return 0, p.f.errorAt(h.pos, ErrType, nil, fmt.Sprintf(
				"the STATE_TTL hint's key '%s' names no input of this aggregation; it takes the name or alias of the table or view the query aggregates", name))
		}
		ttl = h.ttl
	}
	return ttl, nil
}

// resolveAggregate plans q, an aggregating SELECT over in.
func (p *planner) resolveAggregate(q *ddl.Select, in *relation, quals [][]string) (*relation, error) {
	if q.Where != nil {
		if calls := aggregateCalls(q.Where); len(calls) > 0 {
			return nil, p.f.errorAt(calls[0].Pos, ErrType, nil, fmt.Sprintf("aggregate function %s is not allowed in WHERE; use HAVING", calls[0].Name))
		}
	}
	// The window: of the window table function the query reads, or a
	// legacy group window in GROUP BY. Its columns are not grouping keys.
	win := in.window
	var winTimes []expr.Expr // the time attribute of each branch
	if win != nil {
		for _, b := range in.branches {
			winTimes = append(winTimes, b.cols[win.timeCol])
		}
	}
	legacy := false
	var groupExprs []ddl.Expr
	// sets are the grouping sets of GROUPING SETS, ROLLUP and CUBE, each
	// the indexes of groupExprs it groups by; nil for a plain GROUP BY.
	var sets [][]int
	hasWindowCol := [3]bool{}
	// attached is the window of a window aggregation's output grouped by
	// its window_start and window_end (a cascading window aggregation);
	// attachedCols says which of in's columns are its window columns, and
	// attachedEnd is the window_end column.
	var attached *window.Spec
	var attachedCols []int
	attachedEnd := -1
	idx := &lowerer{f: p.f, sc: indexScope(in, quals)}
	if q.GroupBy != nil && hasGroupingSets(q.GroupBy.Items) {
		groupExprs, sets = groupingSets(q.GroupBy.Items)
		var items []ddl.GroupItem
		for _, g := range groupExprs {
			items = append(items, ddl.GroupItem{Kind: ddl.GroupExpr, Expr: g})
		}
		var err error
		if win != nil {
			if win.spec.Kind == window.Session {
				return nil, p.f.errorAt(q.GroupBy.Pos, ddl.ErrUnsupported, nil, "grouping sets over a SESSION window table function are not supported yet")
			}
			// The window table function's window columns are placeholders
			// (negative columns).
			first := &lowerer{f: p.f, sc: branchScope(in, in.branches[0], quals)}
			var found bool
			groupExprs, sets, found, err = p.windowGroupingSets(groupExprs, sets, func(c *ddl.ColumnRef) int {
				if e, err := first.quietly(c); err == nil {
					if cr, ok := e.(*expr.ColumnRef); ok && cr.Index < 0 && colWindowStart-cr.Index < 2 {
						return colWindowStart - cr.Index
					}
				}
				return -1
			})
			if err != nil {
				return nil, err
			}
			hasWindowCol[0], hasWindowCol[1] = found, found
		} else if ws, cols := p.attachedWindow(in, items, quals); ws != nil {
			if !readsWindowTableFunction(in) {
				// Flink: "GROUPING SETS are currently not supported" for a
				// window aggregation over a window aggregation's output.
				return nil, p.f.errorAt(q.GroupBy.Pos, ddl.ErrUnsupported, nil, "grouping sets over the window_start and window_end of a window aggregation are not supported (Flink does not support them either)")
			}
			// Rows of a window table function read as a table (a WHERE
			// between it and the aggregation): a window aggregation of
			// their windows, per grouping set.
			var found bool
			groupExprs, sets, found, err = p.windowGroupingSets(groupExprs, sets, func(c *ddl.ColumnRef) int {
				if e, err := idx.quietly(c); err == nil {
					if cr, ok := e.(*expr.ColumnRef); ok && cols[cr.Index] >= 0 && cols[cr.Index] < 2 {
						if cols[cr.Index] == 1 {
							attachedEnd = cr.Index
						}
						return cols[cr.Index]
					}
				}
				return -1
			})
			if err != nil {
				return nil, err
			}
			if found {
				attached, attachedCols = ws, cols
			}
		}
		for _, g := range groupExprs {
			if calls := aggregateCalls(g); len(calls) > 0 {
				return nil, p.f.errorAt(calls[0].Pos, ErrType, nil, fmt.Sprintf("aggregate function %s is not allowed in GROUP BY", calls[0].Name))
			}
		}
	} else if q.GroupBy != nil {
		first := &lowerer{f: p.f, sc: branchScope(in, in.branches[0], quals)}
		// GROUP BY (a, b), c groups by a, b and c.
		var items []ddl.GroupItem
		for _, g := range q.GroupBy.Items {
			if g.Kind == ddl.GroupList {
				items = append(items, g.Items...)
				continue
			}
			items = append(items, g)
		}
		if win == nil {
			attached, attachedCols = p.attachedWindow(in, items, quals)
		}
		for _, g := range items {
			if calls := aggregateCalls(g.Expr); len(calls) > 0 {
				return nil, p.f.errorAt(calls[0].Pos, ErrType, nil, fmt.Sprintf("aggregate function %s is not allowed in GROUP BY", calls[0].Name))
			}
			if attached != nil {
				if c, ok := g.Expr.(*ddl.ColumnRef); ok {
					if e, err := idx.quietly(c); err == nil {
						if cr, ok := e.(*expr.ColumnRef); ok && attachedCols[cr.Index] >= 0 {
							if attachedCols[cr.Index] == 1 {
								attachedEnd = cr.Index
							}
							continue
						}
					}
				}
			} else if win == nil {
				lw, times, err := p.legacyWindow(g.Expr, in, quals)
				if err != nil {
					return nil, err
				}
				if lw != nil {
					win, winTimes, legacy = lw, times, true
					continue
				}
			} else if !legacy {
				if c, ok := g.Expr.(*ddl.ColumnRef); ok {
					if e, err := first.quietly(c); err == nil {
						if cr, ok := e.(*expr.ColumnRef); ok && cr.Index < 0 {
							hasWindowCol[colWindowStart-cr.Index] = true
							continue
						}
					}
				}
			}
			groupExprs = append(groupExprs, g.Expr)
		}
	}
	if win != nil && !legacy && (!hasWindowCol[0] || !hasWindowCol[1]) {
		if win.spec.Kind == window.Session {
			return nil, p.f.errorAt(q.Pos, ddl.ErrUnsupported, nil,
				"an aggregation over a SESSION window table function must GROUP BY window_start and window_end (a window aggregation); other aggregations of its rows are not supported yet")
		}
		// Not a window aggregation: an aggregation of the rows the
		// window table function gives, read as a table (as Flink plans
		// it).
		rows, err := p.windowTableFunction(in)
		if err != nil {
			return nil, err
		}
		return p.resolveAggregate(q, rows, quals)
	}
	// The calls of the SELECT list and HAVING, each computed once.
	var calls []*aggCall
	// reduced are the variance calls' expressions over SUM and COUNT
	// calls (variance.go).
	reduced := map[*ddl.Call]ddl.Expr{}
	var addCalls func(e ddl.Expr) error
	addCalls = func(e ddl.Expr) error {
		for _, c := range aggregateCalls(e) {
			for _, a := range c.Args {
				if inner := aggregateCalls(a); len(inner) > 0 {
					return p.f.errorAt(inner[0].Pos, ErrType, nil, fmt.Sprintf("aggregate function %s cannot be nested in aggregate function %s", inner[0].Name, c.Name))
				}
			}
			if isVariance(c) {
				if len(c.WithinGroup) > 0 {
					return p.f.unsupported(c.WithinGroupPos, "WITHIN GROUP")
				}
				var at types.Type
				if !c.Star && len(c.Args) == 1 {
					a, err := (&lowerer{f: p.f, sc: branchScope(in, in.branches[0], quals)}).lower(c.Args[0])
					if err != nil {
						return err
					}
					at = a.Type()
				}
				r, err := reduceVariance(c, at, q.GroupBy != nil && len(q.GroupBy.Items) > 0)
				if err != nil {
					return p.f.errorAt(c.Pos, ErrType, err, err.Error())
				}
				reduced[c] = r
				if err := addCalls(r); err != nil {
					return err
				}
				continue
			}
			text := ddl.FormatExpr(c)
			if !slices.ContainsFunc(calls, func(a *aggCall) bool { return a.text == text }) {
				calls = append(calls, &aggCall{text: text, call: c})
			}
		}
		return nil
	}
	for _, it := range q.Items {
		if it.Star {
			return nil, p.f.errorAt(it.Pos, ErrType, nil, "SELECT * cannot be used with GROUP BY or aggregate functions; name the grouped columns")
		}
		if err := addCalls(it.Expr); err != nil {
			return nil, err
		}
	}
	if q.Having != nil {
		if err := addCalls(q.Having); err != nil {
			return nil, err
		}
	}

	node := &Node{Kind: GroupAggregate, Pos: q.Pos}
	if q.GroupBy != nil {
		node.Pos = q.GroupBy.Pos
	}
	if win != nil || attached != nil {
		node.Kind = WindowAggregate
	}
	nk := len(groupExprs)
	var keys0 []expr.Expr // the grouping expressions over the first branch's input
	for bi, b := range in.branches {
		l := &lowerer{f: p.f, sc: branchScope(in, b, quals)}
		fl := &Flow{Source: b.src, Unnest: b.unnest}
		filters := slices.Clone(b.filters)
		if q.Where != nil {
			c, err := l.lowerCondition(q.Where)
			if err != nil {
				return nil, err
			}
			filters = append(filters, c)
		}
		fl.Filter = and(filters)
		for gi, g := range groupExprs {
			e, err := l.lower(g)
			if err != nil {
				return nil, err
			}
			if bi == 0 {
				keys0 = append(keys0, e)
				t := e.Type()
				if sets != nil && !inEverySet(sets, gi) {
					t = t.Nullable() // NULL in the sets that do not group by it
				}
				if nullableInLaterBranch(p, in, quals, g) {
					t = t.Nullable() // NOT NULL in the first input of a UNION ALL only
				}
				node.Names = append(node.Names, groupName(g, gi))
				node.Types = append(node.Types, t)
			}
			if e, err = p.assignTo(e, node.Types[gi], g.Position()); err != nil {
				return nil, err
			}
			fl.Projection = append(fl.Projection, e)
			fl.Names = append(fl.Names, node.Names[gi])
		}
		if sets != nil {
			// $e numbers the grouping set, so that a set's NULL and a
			// grouped NULL stay apart.
			if bi == 0 {
				node.Names = append(node.Names, "$e")
				node.Types = append(node.Types, types.BigInt().NotNullable())
			}
			fl.Projection = append(fl.Projection, expr.Lit(types.BigInt().NotNullable(), types.Int64(0)))
			fl.Names = append(fl.Names, "$e")
		}
		// Each distinct argument and filter (by its text, the same in
		// every branch) is one column of the node's input.
		cols := map[string]int{}
		column := func(key string, e expr.Expr) int {
			if i, ok := cols[key]; ok {
				return i
			}
			cols[key] = len(fl.Projection)
			fl.Projection = append(fl.Projection, e)
			fl.Names = append(fl.Names, fmt.Sprintf("$arg%d", len(fl.Names)))
			return cols[key]
		}
		for ci, c := range calls {
			spec, arg, filter, err := p.planCall(l, c.call, nk > 0)
			if err != nil {
				return nil, err
			}
			if bi == 0 && arg != nil && spec.ArgType.NotNull && nullableInLaterBranch(p, in, quals, c.call.Args[0]) {
				// The argument is NOT NULL in the first input of a UNION
				// ALL only: the aggregate takes every input's type.
				spec.ArgType = spec.ArgType.Nullable()
				if spec.Result, err = agg.ResultType(spec.Func, spec.ArgType, nk > 0); err != nil {
					return nil, p.f.errorAt(c.call.Pos, ErrType, err, err.Error())
				}
			}
			if bi > 0 && arg != nil {
				if arg, err = p.assignTo(arg, calls[ci].spec.ArgType, c.call.Pos); err != nil {
					return nil, err
				}
			}
			if arg != nil {
				spec.Arg = column(argText(c.call), arg)
			}
			if filter != nil {
				spec.Filter = column("FILTER "+ddl.FormatExpr(c.call.Filter), filter)
			}
			if bi == 0 {
				c.spec = spec
			}
		}
		if win != nil && !win.proc {
			win.spec.Time = len(fl.Projection)
			fl.Projection = append(fl.Projection, winTimes[bi])
			fl.Names = append(fl.Names, "$rowtime")
			if src := b.src; src.Table != nil {
				src.Watermark = src.watermark
			}
		}
		if attached != nil {
			if bi == 0 {
				ws := *attached
				ws.Time, ws.Attached = len(fl.Projection), true
				attached = &ws
			}
			fl.Projection = append(fl.Projection, b.cols[attachedEnd])
			fl.Names = append(fl.Names, "$window_end")
		}
		if sets != nil {
			fl.Projection, fl.Expand = expandSets(fl.Projection, sets, len(groupExprs))
		}
		if err := p.checkCompiles(fl, nil, q.Pos); err != nil {
			return nil, err
		}
		fl.ReadFields, fl.ReadRows = readFields(fl)
		node.Inputs = append(node.Inputs, fl)
	}
	if sets != nil {
		nk++ // $e
	}
	ttl, err := p.aggregateTTL(q, quals)
	if err != nil {
		return nil, err
	}
	spec := &agg.Spec{TTL: ttl, MiniBatch: p.plan.MiniBatch}
	for gi := range nk {
		spec.Keys = append(spec.Keys, gi)
		spec.KeyTypes = append(spec.KeyTypes, node.Types[gi])
	}
	for _, c := range calls {
		spec.Calls = append(spec.Calls, c.spec)
		node.Names = append(node.Names, fmt.Sprintf("EXPR$%d", len(node.Names)))
		node.Types = append(node.Types, c.spec.Result)
	}
	var callNames []string
	for _, c := range calls {
		callNames = append(callNames, c.text)
	}
	node.Keys = spec.Keys
	if attached != nil {
		ws := *attached
		ws.Keys, ws.KeyTypes, ws.Calls = spec.Keys, spec.KeyTypes, spec.Calls
		node.Window = &ws
		node.Names = append(node.Names, windowColumns...)
		node.Types = append(node.Types, windowTypes(ws.TimeType)...)
		var startName string
		for i, k := range attachedCols {
			if k == 0 && startName == "" {
				startName = in.names[i]
			}
		}
		node.Describe = fmt.Sprintf("WindowAggregate(%s, %s, %s)", describeAttached(ws, startName, in.names[attachedEnd]), describeCalls(node.Names[:nk], spec.Calls, callNames), "emit when the window ends")
	} else if win == nil {
		node.Agg = spec
		node.Describe = "GroupAggregate(" + describeCalls(node.Names[:nk], spec.Calls, callNames) + ")"
	} else {
		ws := win.spec
		ws.Keys, ws.KeyTypes, ws.Calls = spec.Keys, spec.KeyTypes, spec.Calls
		if loc, err := p.plan.ExprOptions(); err == nil && loc.Location != nil {
			ws.Location = loc.Location
		}
		node.Window = &ws
		node.Names = append(node.Names, windowColumns...)
		node.Types = append(node.Types, windowTypes(ws.TimeType)...)
		node.Describe = fmt.Sprintf("WindowAggregate(%s, %s, %s)", describeWindow(ws, win.proc), describeCalls(node.Names[:nk], spec.Calls, callNames), "emit when the window ends")
	}
	ncalls := len(calls)

	// The output: the SELECT list and HAVING over the node's row, where a
	// grouping expression is its key column and a call its result.
	src := &Source{Pos: q.Pos, Node: node, RowTypes: node.Types}
	if win != nil && !win.proc || attached != nil {
		// window_time is a rowtime attribute of the output: a window
		// aggregation over it cascades.
		src.rowtime = expr.Col(nk+ncalls+2, "window_time", node.Types[nk+ncalls+2])
	}
	out := &relation{}
	nb := &branch{src: src}
	first := &lowerer{f: p.f, sc: branchScope(in, in.branches[0], quals)}
	l := &lowerer{f: p.f, sc: &scope{quals: quals}}
	windowCol := func(k int) expr.Expr {
		i := nk + ncalls + k
		return expr.Col(i, node.Names[i], node.Types[i])
	}
	l.rewrite = func(e ddl.Expr) (expr.Expr, bool, error) {
		if c, ok := e.(*ddl.Call); ok {
			if r, ok := reduced[c]; ok {
				x, err := l.lower(r)
				return x, true, err
			}
			if _, isAgg := agg.Lookup(c.Name); isAgg {
				text := ddl.FormatExpr(c)
				i := slices.IndexFunc(calls, func(a *aggCall) bool { return a.text == text })
				return expr.Col(nk+i, node.Names[nk+i], node.Types[nk+i]), true, nil
			}
			if c.Name == "GROUPING" || c.Name == "GROUPING_ID" {
				return p.grouping(c, first, keys0, sets, nk)
			}
			if legacy {
				k, err := legacyWindowColumn(c, win.spec.Kind)
				if err != nil {
					return nil, true, p.f.errorAt(c.Pos, ErrType, err, err.Error())
				}
				if k >= 0 {
					return windowCol(k), true, nil
				}
			}
		}
		if c, ok := e.(*ddl.ColumnRef); ok && win != nil && !legacy {
			if in0, err := first.quietly(c); err == nil {
				if cr, ok := in0.(*expr.ColumnRef); ok && cr.Index < 0 {
					return windowCol(colWindowStart - cr.Index), true, nil
				}
			}
		}
		if c, ok := e.(*ddl.ColumnRef); ok && attached != nil {
			if e, err := idx.quietly(c); err == nil {
				if cr, ok := e.(*expr.ColumnRef); ok && attachedCols[cr.Index] >= 0 {
					return windowCol(attachedCols[cr.Index]), true, nil
				}
			}
		}
		switch e.(type) {
		case *ddl.Literal, *ddl.IntervalLit, *ddl.Symbol:
			return nil, false, nil
		}
		if len(keys0) > 0 {
			if in0, err := first.quietly(e); err == nil {
				for gi, k := range keys0 {
					if exprEqual(in0, k) {
						return expr.Col(gi, node.Names[gi], node.Types[gi]), true, nil
					}
				}
			}
		}
		if c, ok := e.(*ddl.ColumnRef); ok {
			if _, err := first.quietly(c); err != nil {
				return nil, true, err
			}
			return nil, true, p.f.errorAt(c.Pos, ErrType, nil, fmt.Sprintf(
				"column '%s' is neither in GROUP BY nor inside an aggregate function", strings.Join(c.Parts, ".")))
		}
		return nil, false, nil
	}
	for _, it := range q.Items {
		e, err := l.lower(it.Expr)
		if err != nil {
			return nil, err
		}
		nb.cols = append(nb.cols, e)
		out.names = append(out.names, itemName(it, len(out.names)))
		out.pos = append(out.pos, it.Expr.Position())
		out.types = append(out.types, e.Type())
	}
	if q.Having != nil {
		c, err := l.lower(q.Having)
		if err != nil {
			return nil, err
		}
		if k := c.Type().Kind; k != types.KindBoolean && k != types.KindNull {
			return nil, p.f.errorAt(q.Having.Position(), ErrType, nil, fmt.Sprintf("HAVING condition must be BOOLEAN, not %s", c.Type()))
		}
		nb.filters = append(nb.filters, c)
	}
	out.branches = []*branch{nb}
	return out, nil
}

// argText is the text that names the argument column of aggregate call
// c: its argument as written (JSON_OBJECTAGG's key and value, whose ROW it
// is).
func argText(c *ddl.Call) string {
	if c.Name != "JSON_OBJECTAGG" || len(c.Args) != 2 {
		return ddl.FormatExpr(c.Args[0])
	}
	parts := make([]string, len(c.Args))
	for i, a := range c.Args {
		parts[i] = ddl.FormatExpr(a)
	}
	return "ROW(" + strings.Join(parts, ", ") + ")"
}

// planCall plans aggregate call c over the input scope of l: its spec
// (without the columns of its argument and filter, which the caller
// places) and the expressions of its argument (nil for COUNT(*)) and
// filter (nil without FILTER).
func (p *planner) planCall(l *lowerer, c *ddl.Call, grouped bool) (spec agg.Call, arg, filter expr.Expr, err error) {
	fn, _ := agg.Lookup(c.Name)
	spec = agg.Call{Func: fn, Arg: -1, Filter: -1, Distinct: c.Distinct}
	if len(c.WithinGroup) > 0 {
		return spec, nil, nil, p.f.unsupported(c.WithinGroupPos, "WITHIN GROUP")
	}
	if fn.KeepsRows() && c.Distinct {
		return spec, nil, nil, p.f.unsupported(c.DistinctPos, c.Name+"(DISTINCT ...)")
	}
	switch {
	case fn == agg.JSONObjectAgg:
		// KEY k VALUE v: the argument is ROW(k, v).
		if len(c.Args) != 2 {
			return spec, nil, nil, p.f.errorAt(c.Pos, ErrType, nil, "JSON_OBJECTAGG takes one KEY k VALUE v (or k : v)")
		}
		k, err := l.lower(c.Args[0])
		if err != nil {
			return spec, nil, nil, err
		}
		if !k.Type().IsString() {
			return spec, nil, nil, p.f.errorAt(c.Args[0].Position(), ErrType, nil, fmt.Sprintf("the key of JSON_OBJECTAGG must be a string, not %s", k.Type()))
		}
		v, err := l.lower(c.Args[1])
		if err != nil {
			return spec, nil, nil, err
		}
		if arg, err = l.resolved(c.Pos, expr.Fn("ROW", k, v)); err != nil {
			return spec, nil, nil, err
		}
		spec.ArgType, spec.Absent = arg.Type(), c.OnNull == "ABSENT"
	case c.Star:
		if fn != agg.Count {
			return spec, nil, nil, p.f.errorAt(c.Pos, ErrType, nil, fmt.Sprintf("%s(*) is not a function; only COUNT takes *", c.Name))
		}
		spec.ArgType = types.BigInt()
	case fn == agg.ListAgg && (len(c.Args) == 1 || len(c.Args) == 2):
		spec.Separator = ","
		if len(c.Args) == 2 {
			lit, ok := c.Args[1].(*ddl.Literal)
			if !ok || !lit.Type.IsString() {
				return spec, nil, nil, p.f.errorAt(c.Args[1].Position(), ErrType, nil, "LISTAGG's separator must be a string literal")
			}
			spec.Separator = lit.Value.Str()
		}
		fallthrough
	case len(c.Args) == 1:
		if arg, err = l.lower(c.Args[0]); err != nil {
			return spec, nil, nil, err
		}
		spec.ArgType = arg.Type()
		if spec.ArgType.Kind == types.KindNull {
			return spec, nil, nil, p.f.errorAt(c.Args[0].Position(), ErrType, nil, fmt.Sprintf("the argument of %s is NULL; cast it to give it a type", c.Name))
		}
	default:
		return spec, nil, nil, p.f.errorAt(c.Pos, ErrType, nil, fmt.Sprintf("%s takes one argument, not %d", c.Name, len(c.Args)))
	}
	if c.Filter != nil {
		if filter, err = l.lower(c.Filter); err != nil {
			return spec, nil, nil, err
		}
		if k := filter.Type().Kind; k != types.KindBoolean && k != types.KindNull {
			return spec, nil, nil, p.f.errorAt(c.Filter.Position(), ErrType, nil, fmt.Sprintf("FILTER condition must be BOOLEAN, not %s", filter.Type()))
		}
	}
	if spec.Result, err = agg.ResultType(fn, spec.ArgType, grouped); err != nil {
		return spec, nil, nil, p.f.errorAt(c.Pos, ErrType, err, err.Error())
	}
	return spec, arg, filter, nil
}

// groupName is the name of grouping expression g: the column it names, or
// $f<i>.
func groupName(g ddl.Expr, i int) string {
	if c, ok := g.(*ddl.ColumnRef); ok {
		return c.Parts[len(c.Parts)-1]
	}
	return fmt.Sprintf("$f%d", i)
}

// branchScope is the scope of in's columns as branch b computes them, each
// of in's (common) type, so that every branch of a UNION ALL feeds an
// operator rows of one layout.
func branchScope(in *relation, b *branch, quals [][]string) *scope {
	sc := &scope{quals: quals}
	for i, n := range in.names {
		e := b.cols[i]
		if !e.Type().Equal(in.types[i]) {
			if c, err := expr.AssignTo(e, in.types[i]); err == nil {
				e = c
			}
		}
		sc.cols = append(sc.cols, scopeCol{name: n, e: e, quals: in.colQualsOf(i)})
	}
	return sc
}

// assignTo converts e to t for an operator's input (a UNION ALL branch
// whose column is narrower than another's).
func (p *planner) assignTo(e expr.Expr, t types.Type, pos ddl.Pos) (expr.Expr, error) {
	if e.Type().Equal(t) {
		return e, nil
	}
	c, err := expr.AssignTo(e, t)
	if err != nil {
		return nil, p.f.errorAt(pos, ErrType, err, err.Error())
	}
	return c, nil
}

// quietly lowers e in l's scope without its rewrite hook.
func (l *lowerer) quietly(e ddl.Expr) (expr.Expr, error) {
	plain := *l
	plain.rewrite = nil
	return plain.lower(e)
}

// exprEqual reports whether a and b are the same expression over the same
// row.
func exprEqual(a, b expr.Expr) bool {
	switch x := a.(type) {
	case *expr.ColumnRef:
		y, ok := b.(*expr.ColumnRef)
		return ok && x.Index == y.Index && x.Typ.Equal(y.Typ)
	case *expr.Literal:
		y, ok := b.(*expr.Literal)
		return ok && x.Typ.Equal(y.Typ) && types.NullsFirst(x.Val, y.Val, types.Comparator(x.Typ)) == 0
	case *expr.Call:
		y, ok := b.(*expr.Call)
		if !ok || x.Name != y.Name || x.Unit != y.Unit || len(x.Args) != len(y.Args) || !x.Type().Equal(y.Type()) {
			return false
		}
		for i := range x.Args {
			if !exprEqual(x.Args[i], y.Args[i]) {
				return false
			}
		}
		return true
	case *expr.Cast:
		y, ok := b.(*expr.Cast)
		return ok && x.Try == y.Try && x.Target.Equal(y.Target) && exprEqual(x.Expr, y.Expr)
	case *expr.Case:
		y, ok := b.(*expr.Case)
		if !ok || len(x.Whens) != len(y.Whens) || (x.Operand == nil) != (y.Operand == nil) || (x.Else == nil) != (y.Else == nil) {
			return false
		}
		if x.Operand != nil && !exprEqual(x.Operand, y.Operand) || x.Else != nil && !exprEqual(x.Else, y.Else) {
			return false
		}
		for i := range x.Whens {
			if !exprEqual(x.Whens[i].Cond, y.Whens[i].Cond) || !exprEqual(x.Whens[i].Result, y.Whens[i].Result) {
				return false
			}
		}
		return true
	}
	return false
}

// distinctRelation plans SELECT DISTINCT over rel: a GroupAggregate keyed
// by every column, without calls.
func (p *planner) distinctRelation(rel *relation, pos ddl.Pos) (*relation, error) {
	node := &Node{Kind: GroupAggregate, Pos: pos, Names: slices.Clone(rel.names), Types: slices.Clone(rel.types)}
	spec := &agg.Spec{TTL: p.plan.StateTTL, MiniBatch: p.plan.MiniBatch}
	for i, t := range rel.types {
		spec.Keys = append(spec.Keys, i)
		spec.KeyTypes = append(spec.KeyTypes, t)
	}
	for _, b := range rel.branches {
		fl := &Flow{Source: b.src, Unnest: b.unnest, Filter: and(b.filters), Names: rel.names}
		for i, c := range b.cols {
			e, err := p.assignTo(c, rel.types[i], pos)
			if err != nil {
				return nil, err
			}
			fl.Projection = append(fl.Projection, e)
		}
		fl.ReadFields, fl.ReadRows = readFields(fl)
		node.Inputs = append(node.Inputs, fl)
	}
	node.Agg, node.Keys = spec, spec.Keys
	node.Describe = "GroupAggregate(" + describeCalls(rel.names, nil, nil) + ") (distinct rows)"
	src := &Source{Pos: pos, Node: node, RowTypes: node.Types}
	nb := &branch{src: src}
	for i, n := range rel.names {
		nb.cols = append(nb.cols, expr.Col(i, n, rel.types[i]))
	}
	return &relation{names: rel.names, pos: rel.pos, types: rel.types, branches: []*branch{nb}}, nil
}

// describeWindow describes a window for EXPLAIN: "TUMBLE(size=10 s, time=rowtime)".
func describeWindow(s window.Spec, proc bool) string {
	var parts []string
	switch s.Kind {
	case window.Tumble:
		parts = append(parts, "size="+formatDuration(s.Size))
	case window.Hop:
		parts = append(parts, "size="+formatDuration(s.Size), "slide="+formatDuration(s.Slide))
	case window.Cumulate:
		parts = append(parts, "max size="+formatDuration(s.Size), "step="+formatDuration(s.Slide))
	case window.Session:
		parts = append(parts, "gap="+formatDuration(s.Gap))
	}
	if s.Offset != 0 {
		parts = append(parts, "offset="+formatDuration(s.Offset))
	}
	if proc {
		parts = append(parts, "processing time")
	} else {
		parts = append(parts, "event time")
	}
	return fmt.Sprintf("%s(%s)", s.Kind, strings.Join(parts, ", "))
}

// windowGroupingSets takes the window_start and window_end of a window
// out of the grouping expressions and sets of a GROUP BY with GROUPING
// SETS, ROLLUP or CUBE (GROUP BY window_start, window_end, GROUPING SETS
// (...): a window aggregation per set, as Flink's). windowCol says which
// window column a column reference is (0: window_start, 1: window_end;
// -1: none). A window column in some sets only is an error; without both,
// found is false and the expressions and sets are returned as they are.
func (p *planner) windowGroupingSets(exprs []ddl.Expr, sets [][]int, windowCol func(*ddl.ColumnRef) int) (_ []ddl.Expr, _ [][]int, found bool, _ error) {
	var has [2]bool
	keep := make([]int, len(exprs)) // new index of each expression; -1: a window column
	var kept []ddl.Expr
	for gi, g := range exprs {
		keep[gi] = len(kept)
		if c, ok := g.(*ddl.ColumnRef); ok {
			if k := windowCol(c); k >= 0 {
				if !inEverySet(sets, gi) {
					return nil, nil, false, p.f.errorAt(g.Position(), ddl.ErrUnsupported, nil,
						fmt.Sprintf("%s of a window table function in some grouping sets only is not supported; group by window_start and window_end outside GROUPING SETS", ddl.FormatExpr(c)))
				}
				has[k], keep[gi] = true, -1
				continue
			}
		}
		kept = append(kept, g)
	}
	if !has[0] || !has[1] {
		return exprs, sets, false, nil
	}
	out := make([][]int, len(sets))
	for si, set := range sets {
		out[si] = []int{}
		for _, gi := range set {
			if keep[gi] >= 0 {
				out[si] = append(out[si], keep[gi])
			}
		}
	}
	return kept, out, true, nil
}

// readsWindowTableFunction reports whether every branch of in reads a
// window table function read as a table (a WindowTableFunction node).
func readsWindowTableFunction(in *relation) bool {
	for _, b := range in.branches {
		if b.src.Node == nil || b.src.Node.Kind != WindowTableFunction {
			return false
		}
	}
	return len(in.branches) > 0
}

// hasGroupingSets reports whether GROUP BY items hold GROUPING SETS,
// ROLLUP or CUBE.
func hasGroupingSets(items []ddl.GroupItem) bool {
	for _, g := range items {
		switch g.Kind {
		case ddl.GroupingSets, ddl.Rollup, ddl.Cube:
			return true
		}
	}
	return false
}

// groupingSets expands GROUP BY items into the distinct grouping
// expressions (in the order written) and the grouping sets, each the
// indexes of the expressions it groups by, in Calcite's order: the items
// of GROUP BY combine as a cross product, GROUPING SETS lists its items'
// sets, ROLLUP(a, b) is (a, b), (a), () and CUBE(a, b) is (a, b), (a),
// (b), ().
func groupingSets(items []ddl.GroupItem) ([]ddl.Expr, [][]int) {
	var exprs []ddl.Expr
	var texts []string
	index := func(e ddl.Expr) int {
		t := ddl.FormatExpr(e)
		if i := slices.Index(texts, t); i >= 0 {
			return i
		}
		texts, exprs = append(texts, t), append(exprs, e)
		return len(exprs) - 1
	}
	var expand func(g ddl.GroupItem) [][]int
	union := func(a, b []int) []int {
		out := slices.Clone(a)
		for _, x := range b {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
		return out
	}
	// element is a ROLLUP or CUBE element: an expression or a list.
	element := func(g ddl.GroupItem) []int {
		if g.Kind == ddl.GroupExpr {
			return []int{index(g.Expr)}
		}
		var out []int
		for _, x := range g.Items {
			out = union(out, element0(x, index))
		}
		return out
	}
	expand = func(g ddl.GroupItem) [][]int {
		switch g.Kind {
		case ddl.GroupExpr, ddl.GroupList:
			return [][]int{element(g)}
		case ddl.GroupingSets:
			var out [][]int
			for _, x := range g.Items {
				out = append(out, expand(x)...)
			}
			return out
		case ddl.Rollup:
			var out [][]int
			for n := len(g.Items); n >= 0; n-- {
				var set []int
				for _, x := range g.Items[:n] {
					set = union(set, element(x))
				}
				out = append(out, set)
			}
			return out
		case ddl.Cube:
			n := len(g.Items)
			var out [][]int
			for mask := (1 << n) - 1; mask >= 0; mask-- {
				var set []int
				for i := range n {
					if mask&(1<<(n-1-i)) != 0 {
						set = union(set, element(g.Items[i]))
					}
				}
				out = append(out, set)
			}
			return out
		}
		return nil
	}
	sets := [][]int{{}}
	for _, g := range items {
		var next [][]int
		for _, a := range sets {
			for _, b := range expand(g) {
				next = append(next, union(a, b))
			}
		}
		sets = next
	}
	return exprs, sets
}

func element0(g ddl.GroupItem, index func(ddl.Expr) int) []int {
	if g.Kind == ddl.GroupExpr {
		return []int{index(g.Expr)}
	}
	var out []int
	for _, x := range g.Items {
		out = append(out, element0(x, index)...)
	}
	return out
}

// inEverySet reports whether grouping expression i is in every set.
func inEverySet(sets [][]int, i int) bool {
	for _, s := range sets {
		if !slices.Contains(s, i) {
			return false
		}
	}
	return true
}

// expandSets turns the projection of a node input (nk grouping
// expressions, then $e, then the calls' columns) into one projection per
// grouping set: the expressions a set does not group by are NULL, and $e
// is the set's number.
func expandSets(proj []expr.Expr, sets [][]int, nk int) ([]expr.Expr, [][]expr.Expr) {
	var out [][]expr.Expr
	for si, set := range sets {
		p := slices.Clone(proj)
		for i := range nk {
			if !slices.Contains(set, i) {
				p[i] = expr.Lit(proj[i].Type().Nullable(), types.Value{})
			}
		}
		p[nk] = expr.Lit(types.BigInt().NotNullable(), types.Int64(int64(si)))
		out = append(out, p)
	}
	return out[0], out[1:]
}

// grouping lowers GROUPING(e, ...) (or GROUPING_ID): for the grouping set
// of the row, a bit per argument, the first the highest, set when the set
// does not group by the argument. first lowers over the input, keys0 are
// the grouping expressions over it, and column nk-1 of the node's output
// is $e.
func (p *planner) grouping(c *ddl.Call, first *lowerer, keys0 []expr.Expr, sets [][]int, nk int) (expr.Expr, bool, error) {
	if len(c.Args) == 0 {
		return nil, true, p.f.errorAt(c.Pos, ErrType, nil, c.Name+" takes the grouping expressions it tells about")
	}
	var args []int
	for _, a := range c.Args {
		e, err := first.quietly(a)
		if err != nil {
			return nil, true, err
		}
		i := slices.IndexFunc(keys0, func(k expr.Expr) bool { return exprEqual(k, e) })
		if i < 0 {
			return nil, true, p.f.errorAt(a.Position(), ErrType, nil, "the arguments of "+c.Name+" must be GROUP BY expressions")
		}
		args = append(args, i)
	}
	value := func(set []int) int64 {
		var v int64
		for _, a := range args {
			v <<= 1
			if !slices.Contains(set, a) {
				v |= 1
			}
		}
		return v
	}
	if sets == nil {
		return expr.Lit(types.BigInt().NotNullable(), types.Int64(0)), true, nil
	}
	e := &expr.Case{Operand: expr.Col(nk-1, "$e", types.BigInt().NotNullable())}
	for si, set := range sets {
		e.Whens = append(e.Whens, expr.When{Cond: expr.Lit(types.BigInt().NotNullable(), types.Int64(int64(si))),
			Result: expr.Lit(types.BigInt().NotNullable(), types.Int64(value(set)))})
	}
	r, err := expr.Resolve(e)
	if err != nil {
		return nil, true, p.f.errorAt(c.Pos, ErrType, err, err.Error())
	}
	return r, true, nil
}

// nullableInLaterBranch reports whether e, lowered over the input of a
// UNION ALL branch after the first, is nullable there: the operator's
// input then is, though the first branch's may be NOT NULL (each branch's
// columns take the union's type, but a NOT NULL column stays NOT NULL
// where the union's is nullable).
func nullableInLaterBranch(p *planner, in *relation, quals [][]string, e ddl.Expr) bool {
	for _, b := range in.branches[min(1, len(in.branches)):] {
		l := &lowerer{f: p.f, sc: branchScope(in, b, quals)}
		if x, err := l.quietly(e); err == nil && !x.Type().NotNull {
			return true
		}
	}
	return false
}
