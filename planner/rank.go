package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// This file plans the ranking pattern: a SELECT whose list holds
// ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) AS rn, read by a query
// that filters on rn (rn <= N, rn < N, rn = N, rn BETWEEN a AND b, in
// WHERE's conjuncts), as Flink's Top-N rule finds it:
//
//   - a Top-N (Rank), whose strategy (insert-only input, retracting input,
//     or upserts monotonic in the sort key) the changelog inference picks;
//   - a deduplication (Deduplicate): rn = 1 ordered by a time attribute
//     over an insert-only input;
//   - a window Top-N or window deduplication (WindowRank,
//     WindowDeduplicate): PARTITION BY window_start, window_end over a
//     window table function or a window aggregation.
//
// The ranking SELECT is resolved into a relation whose rank column is a
// placeholder (rankedSelect); the query that reads it turns it into the
// node (applyRank). A ranked relation read any other way is a ROW_NUMBER
// OVER aggregate (settleRanked). The row number is in the node's output
// only when the query reads it (pruneRanks), which makes a Top-N emit
// inserts and deletes rather than rank updates, as Flink's does.

// colRank is the placeholder of a ranked relation's rank column.
const colRank = -10

// rankedSelect is a ranking SELECT, resolved but not planned.
type rankedSelect struct {
	q     *ddl.Select
	depth int
	pos   ddl.Pos // of OVER
	fn    string  // ROW_NUMBER, RANK or DENSE_RANK
	// col is the relation's rank column.
	col int
	// partition and order are the PARTITION BY and ORDER BY expressions
	// over each branch's source row; orderBy the ORDER BY items.
	partition, order [][]expr.Expr
	partitionBy      []ddl.Expr
	orderBy          []ddl.OrderItem
	// window is the window table function the SELECT reads, and
	// windowTimes its time attribute in each branch.
	window      *windowTVF
	windowTimes []expr.Expr
	// firstRows is set for a LIMIT without ORDER BY (orderlimit.go).
	firstRows bool
}

// RankPlan configures a ranking node (Rank, Deduplicate, WindowRank,
// WindowDeduplicate): the spec of its kind's operator.
type RankPlan struct {
	// InputTypes are the node's input row types.
	InputTypes []types.Type
	// TopN, Dedup and Window configure the operator of the node's kind.
	// A Rank's TopN exists from the start; whether it is a Deduplicate
	// (Dedup) and its strategy are settled with the changelog.
	TopN   *rank.Spec
	Dedup  *rank.DedupSpec
	Window *rank.WindowSpec
	// dedupTime is the input column of the ORDER BY when it is a single
	// rowtime attribute (-1 for PROCTIME(), -2 when it is no time
	// attribute); dedupLast its direction (DESC keeps the last row).
	dedupTime int
	dedupLast bool
	// firstRows is set for a LIMIT without ORDER BY: the first rows to
	// arrive, ordered by PROCTIME().
	firstRows bool
	// names for EXPLAIN: the PARTITION BY and ORDER BY as written.
	partNames, orderNames []string
}

// rankingSelect reports whether every OVER of a SELECT list is a ranking
// function, used as a whole column.
func rankingSelect(q *ddl.Select, overs []*ddl.Over) bool {
	for _, o := range overs {
		if !rankingFuncs[o.Call.Name] {
			return false
		}
	}
	for _, it := range q.Items {
		if _, ok := it.Expr.(*ddl.Over); ok {
			return true
		}
	}
	return false
}

// planRanked resolves the ranking SELECT q over in: the rank column is a
// placeholder (the rewrite returned maps the OVER to it), and the
// returned rankedSelect holds what the query reading q needs to plan it.
func (p *planner) planRanked(q *ddl.Select, in *relation, quals [][]string, depth int, overs []*ddl.Over) (*rankedSelect, func(ddl.Expr) (expr.Expr, bool, error), error) {
	o := overs[0]
	for _, x := range overs[1:] {
		if ddl.FormatExpr(x) != ddl.FormatExpr(o) {
			return nil, nil, p.f.errorAt(x.Pos, ddl.ErrUnsupported, nil, "more than one ranking function in a SELECT list is not supported")
		}
	}
	if q.Distinct {
		return nil, nil, p.f.errorAt(q.DistinctPos, ddl.ErrUnsupported, nil, "SELECT DISTINCT with a ranking function is not supported")
	}
	if len(o.Call.Args) > 0 || o.Call.Star {
		return nil, nil, p.f.errorAt(o.Call.Pos, ErrType, nil, o.Call.Name+" takes no argument")
	}
	w, err := p.windowOf(q, o)
	if err != nil {
		return nil, nil, err
	}
	if len(w.orderBy) == 0 {
		return nil, nil, p.f.errorAt(o.Pos, ErrType, nil, o.Call.Name+" needs an ORDER BY in its window")
	}
	rs := &rankedSelect{q: q, depth: depth, pos: o.Pos, fn: o.Call.Name, partitionBy: w.partitionBy, orderBy: w.orderBy, window: in.window, firstRows: p.limitOvers[o]}
	for _, b := range in.branches {
		l := &lowerer{f: p.f, sc: in.scope(b.cols, quals)}
		var part, ord []expr.Expr
		for _, e := range w.partitionBy {
			x, err := l.lower(e)
			if err != nil {
				return nil, nil, err
			}
			part = append(part, x)
		}
		for _, it := range w.orderBy {
			x, err := l.lower(it.Expr)
			if err != nil {
				return nil, nil, err
			}
			ord = append(ord, x)
		}
		rs.partition, rs.order = append(rs.partition, part), append(rs.order, ord)
		if in.window != nil {
			rs.windowTimes = append(rs.windowTimes, b.cols[in.window.timeCol])
		}
	}
	placeholder := expr.Col(colRank, o.Call.Name, types.BigInt().NotNullable())
	rewrite := func(e ddl.Expr) (expr.Expr, bool, error) {
		x, ok := e.(*ddl.Over)
		if !ok {
			return nil, false, nil
		}
		for _, it := range q.Items {
			if it.Expr == e {
				return placeholder, true, nil
			}
		}
		return nil, true, p.f.errorAt(x.Pos, ddl.ErrUnsupported, nil, x.Call.Name+"() OVER (...) must be a column of its own in the SELECT list")
	}
	return rs, rewrite, nil
}

// rankedColumn returns the column of rel that holds its rank (-1: none).
func rankedColumn(rel *relation) int {
	if len(rel.branches) == 0 {
		return -1
	}
	return slices.IndexFunc(rel.branches[0].cols, func(e expr.Expr) bool {
		c, ok := e.(*expr.ColumnRef)
		return ok && c.Index == colRank
	})
}

// settleRanked plans a ranked relation that no query filters on its rank:
// its SELECT again, the ranking function as an OVER aggregate.
func (p *planner) settleRanked(rel *relation) (*relation, error) {
	rs := rel.ranked
	if rs == nil {
		return rel, nil
	}
	if p.overSelects == nil {
		p.overSelects = map[*ddl.Select]bool{}
	}
	p.overSelects[rs.q] = true
	hints := len(p.refHints)
	out, err := p.resolveSelect(rs.q, rs.depth)
	p.refHints = p.refHints[:hints]
	return out, err
}

// rankBound is a bound of the rank range from one predicate.
type rankBound struct {
	lower, upper     int64
	hasLower, hasUpp bool
}

// rankPredicate reads c, a conjunct of WHERE, as a bound of the rank
// column (Flink's RankUtil: rn op constant or constant op rn, op one of
// <, <=, =, >=, >, and BETWEEN, which Calcite splits in two). ok is false
// when c does not compare the rank column alone; valid is false when it
// does but not with a constant.
func (p *planner) rankPredicate(c ddl.Expr, isRank func(ddl.Expr) bool) (bounds []rankBound, ok, valid bool) {
	constant := func(e ddl.Expr) (int64, bool) {
		x, err := (&lowerer{f: p.f}).lower(e)
		if err != nil || !x.Type().IsInteger() {
			return 0, false
		}
		prog, err := expr.Compile(x, p.exprOptions())
		if err != nil {
			return 0, false
		}
		v, err := prog.Eval(nil)
		if err != nil || v.IsNull() {
			return 0, false
		}
		return v.Int64(), true
	}
	switch c := c.(type) {
	case *ddl.Between:
		if !isRank(c.Expr) || c.Not || c.Symmetric {
			return nil, false, false
		}
		lo, ok1 := constant(c.Low)
		hi, ok2 := constant(c.High)
		return []rankBound{{lower: lo, hasLower: true}, {upper: hi, hasUpp: true}}, true, ok1 && ok2
	case *ddl.Binary:
		op := c.Op
		left, right := c.Left, c.Right
		switch {
		case isRank(left) && !mentions(right, isRank):
		case isRank(right) && !mentions(left, isRank):
			left, right = right, left
			op = map[ddl.BinaryOp]ddl.BinaryOp{ddl.OpLt: ddl.OpGt, ddl.OpLe: ddl.OpGe, ddl.OpGt: ddl.OpLt, ddl.OpGe: ddl.OpLe, ddl.OpEq: ddl.OpEq}[op]
		default:
			return nil, false, false
		}
		v, isConst := constant(right)
		switch op {
		case ddl.OpLt:
			return []rankBound{{upper: v - 1, hasUpp: true}}, true, isConst
		case ddl.OpLe:
			return []rankBound{{upper: v, hasUpp: true}}, true, isConst
		case ddl.OpGt:
			return []rankBound{{lower: v + 1, hasLower: true}}, true, isConst
		case ddl.OpGe:
			return []rankBound{{lower: v, hasLower: true}}, true, isConst
		case ddl.OpEq:
			return []rankBound{{lower: v, upper: v, hasLower: true, hasUpp: true}}, true, isConst
		}
	}
	return nil, false, false
}

// mentions reports whether e holds an expression is reports.
func mentions(e ddl.Expr, is func(ddl.Expr) bool) bool {
	found := false
	ddl.Walk(e, func(n ddl.Expr) bool {
		if is(n) {
			found = true
		}
		return !found
	})
	return found
}

// applyRank plans the ranked relation in as the query q reading it
// filters it: the rank predicates of q's WHERE make the range of a
// ranking node, whose relation it returns with q minus those predicates.
// Without rank predicates the relation is settled as an OVER aggregate.
func (p *planner) applyRank(q *ddl.Select, in *relation, quals [][]string) (*relation, *ddl.Select, error) {
	rs := in.ranked
	rc := rankedColumn(in)
	sc := in.scope(in.branches[0].cols, quals)
	isRank := func(e ddl.Expr) bool {
		c, ok := e.(*ddl.ColumnRef)
		if !ok {
			return false
		}
		x, err := (&lowerer{f: p.f, sc: sc}).lower(c)
		if err != nil {
			return false
		}
		cr, ok := x.(*expr.ColumnRef)
		return ok && cr.Index == colRank
	}
	var bounds []rankBound
	var rest []ddl.Expr
	valid := true
	for _, c := range conjuncts(q.Where, nil) {
		b, ok, v := p.rankPredicate(c, isRank)
		if !ok {
			rest = append(rest, c)
			continue
		}
		bounds = append(bounds, b...)
		valid = valid && v
	}
	// The range, as Flink's RankUtil.extractRankRange reads the bounds.
	var start, end int64
	found := rc >= 0 && valid
	switch {
	case !found || len(bounds) == 0:
		found = false
	case len(bounds) == 2 && bounds[0].hasLower && !bounds[0].hasUpp && bounds[1].hasUpp && !bounds[1].hasLower:
		start, end = bounds[0].lower, bounds[1].upper
	case len(bounds) == 2 && bounds[1].hasLower && !bounds[1].hasUpp && bounds[0].hasUpp && !bounds[0].hasLower:
		start, end = bounds[1].lower, bounds[0].upper
	case len(bounds) == 1 && bounds[0].hasLower && bounds[0].hasUpp:
		start, end = bounds[0].lower, bounds[0].upper
	case len(bounds) == 1 && bounds[0].hasUpp:
		start, end = 1, bounds[0].upper
	case len(bounds) == 1 && bounds[0].hasLower:
		return nil, nil, p.f.errorAt(q.Where.Position(), ddl.ErrUnsupported, nil, fmt.Sprintf(
			"a filter on %s with a lower bound only is not a Top-N; give it an upper bound (rn <= N), as Flink requires (Rank end is not specified)", rs.fn))
	default:
		found = false
	}
	if !found {
		rel, err := p.settleRanked(in)
		return rel, q, err
	}
	if start < 1 || end < start {
		return nil, nil, p.f.errorAt(q.Where.Position(), ErrType, nil, fmt.Sprintf("the filter on %s selects no row: ranks %d to %d", rs.fn, start, end))
	}
	nq := *q
	nq.Where = andDDL(rest)
	rel, err := p.rankNode(rs, in, rc, start, end)
	return rel, &nq, err
}

// rankNode builds the ranking node of ranks start..end of rs over in
// (whose rank column is rc) and returns the relation over its output.
func (p *planner) rankNode(rs *rankedSelect, in *relation, rc int, start, end int64) (*relation, error) {
	// A window Top-N partitions by window_start and window_end.
	win, winAgg, err := p.rankWindow(rs, in)
	if err != nil {
		return nil, err
	}
	if rs.fn != "ROW_NUMBER" {
		if win != nil || winAgg != nil {
			return nil, p.f.errorAt(rs.pos, ddl.ErrUnsupported, nil, rs.fn+"() in a window Top-N is not supported (Flink: only ROW_NUMBER() is supported on Window TopN)")
		}
		return nil, p.f.errorAt(rs.pos, ddl.ErrUnsupported, nil, rs.fn+"() over a stream is not supported (Flink: "+rs.fn+"() on streaming table is not supported currently); use ROW_NUMBER()")
	}
	if rs.window != nil && win == nil {
		return nil, p.f.errorAt(rs.pos, ddl.ErrUnsupported, nil,
			"a Top-N over a window table function must PARTITION BY window_start, window_end (a window Top-N)")
	}
	kind := Rank
	if win != nil || winAgg != nil {
		kind = WindowRank
	}
	node := &Node{Kind: kind, Pos: rs.pos}
	rp := &RankPlan{dedupTime: -2, firstRows: rs.firstRows}
	node.Rank = rp
	// The node's input columns: in's (but the rank, and a window TVF's
	// window columns, which a window Top-N over it computes), then the
	// PARTITION BY and ORDER BY expressions that are not among them, then
	// a TVF's time attribute.
	b0 := in.branches[0]
	var cols []int // in's columns in the node's input
	colOf := map[int]int{}
	for i, e := range b0.cols {
		if i == rc {
			continue
		}
		if c, ok := e.(*expr.ColumnRef); ok && c.Index < 0 {
			continue // a window column
		}
		colOf[i] = len(cols)
		cols = append(cols, i)
		node.Names = append(node.Names, in.names[i])
		rp.InputTypes = append(rp.InputTypes, in.types[i])
	}
	// extra[j] is an expression index: partition (j < np) or order.
	np := len(rs.partitionBy)
	var extra []int
	column := func(j int) (int, bool) {
		var e expr.Expr
		if j < np {
			e = rs.partition[0][j]
		} else {
			e = rs.order[0][j-np]
		}
		if c, ok := e.(*expr.ColumnRef); ok && c.Index < 0 {
			return 0, false // a window column of a TVF
		}
		for _, i := range cols {
			if exprEqual(b0.cols[i], e) {
				return colOf[i], true
			}
		}
		for k, x := range extra {
			var xe expr.Expr
			if x < np {
				xe = rs.partition[0][x]
			} else {
				xe = rs.order[0][x-np]
			}
			if exprEqual(xe, e) {
				return len(cols) + k, true
			}
		}
		extra = append(extra, j)
		node.Names = append(node.Names, fmt.Sprintf("$f%d", len(node.Names)))
		rp.InputTypes = append(rp.InputTypes, e.Type())
		return len(cols) + len(extra) - 1, true
	}
	var partition []int
	for j := range rs.partitionBy {
		if c, ok := column(j); ok {
			partition = append(partition, c)
		}
	}
	var order []rank.SortKey
	for j, it := range rs.orderBy {
		c, ok := column(np + j)
		if !ok {
			return nil, p.f.errorAt(it.Pos, ddl.ErrUnsupported, nil, "ordering a Top-N by a window column is not supported")
		}
		k := rank.SortKey{Col: c, Desc: it.Desc, NullsLast: it.Desc}
		switch it.Nulls {
		case ddl.NullsFirst:
			k.NullsLast = false
		case ddl.NullsLast:
			k.NullsLast = true
		}
		order = append(order, k)
		rp.orderNames = append(rp.orderNames, ddl.FormatExpr(it.Expr)+map[bool]string{true: " DESC", false: " ASC"}[it.Desc])
	}
	for _, e := range rs.partitionBy {
		rp.partNames = append(rp.partNames, ddl.FormatExpr(e))
	}
	timeCol := -1
	if win != nil {
		timeCol = len(rp.InputTypes)
		node.Names = append(node.Names, "$rowtime")
		rp.InputTypes = append(rp.InputTypes, rs.windowTimes[0].Type())
	}
	ninput := len(rp.InputTypes)
	// Is the ORDER BY a single time attribute (a deduplication)?
	if len(order) == 1 {
		var times []expr.Expr
		for bi := range in.branches {
			times = append(times, rs.order[bi][0])
		}
		if rowtime, proc := p.timeAttribute(in.branches, times); rowtime {
			rp.dedupTime = order[0].Col
		} else if proc {
			rp.dedupTime = -1
		}
		rp.dedupLast = order[0].Desc
	}
	// The input flows.
	for bi, b := range in.branches {
		fl := &Flow{Source: b.src, Unnest: b.unnest, Filter: and(b.filters), Names: node.Names[:ninput:ninput]}
		for _, i := range cols {
			e, err := p.assignTo(b.cols[i], in.types[i], in.pos[i])
			if err != nil {
				return nil, err
			}
			fl.Projection = append(fl.Projection, e)
		}
		for k, j := range extra {
			var e expr.Expr
			if j < np {
				e = rs.partition[bi][j]
			} else {
				e = rs.order[bi][j-np]
			}
			e, err := p.assignTo(e, rp.InputTypes[len(cols)+k], rs.pos)
			if err != nil {
				return nil, err
			}
			fl.Projection = append(fl.Projection, e)
		}
		if win != nil {
			fl.Projection = append(fl.Projection, rs.windowTimes[bi])
		}
		// Event time is read by window Top-Ns and by a deduplication that
		// keeps the first row (it waits for the watermark); one that keeps
		// the last row emits at once, as Flink's does.
		if (rp.dedupTime >= 0 && !rp.dedupLast && start == 1 && end == 1 || win != nil) && b.src.Table != nil && !win.procOrNil() {
			b.src.Watermark = b.src.watermark
		}
		if err := p.checkCompiles(fl, nil, rs.pos); err != nil {
			return nil, err
		}
		fl.ReadFields, fl.ReadRows = readFields(fl)
		node.Inputs = append(node.Inputs, fl)
	}
	node.Names = node.Names[:ninput:ninput]
	node.Types = slices.Clone(rp.InputTypes)
	node.Keys = partition
	spec := rank.Spec{Types: rp.InputTypes, Partition: partition, Order: order, Start: start, End: end, OutputRank: true, TTL: p.plan.StateTTL}
	// The output: the input's columns, a window TVF's window columns, the
	// row number.
	winCols := -1
	if win != nil {
		ws := win.spec
		ws.Time = timeCol
		if loc, err := p.plan.ExprOptions(); err == nil && loc.Location != nil {
			ws.Location = loc.Location
		}
		winCols = len(node.Types)
		node.Names = append(node.Names, windowColumns...)
		node.Types = append(node.Types, windowTypes(ws.TimeType)...)
		rp.Window = &rank.WindowSpec{Spec: spec, Assign: &ws}
	} else if winAgg != nil {
		rp.Window = &rank.WindowSpec{Spec: spec, WindowEnd: colOf[winAgg.end]}
		if loc, err := p.plan.ExprOptions(); err == nil {
			rp.Window.Location = loc.Location
		}
		if winAgg.node.Window.TimeType.Kind != types.KindTimestampLTZ {
			rp.Window.Location = nil
		}
	} else {
		rp.TopN = &spec
	}
	if w := rp.Window; w != nil && rp.dedupTime >= 0 && start == 1 && end == 1 {
		// A window deduplication: the first or last row by event time.
		node.Kind = WindowDeduplicate
		w.Dedup, w.KeepLast, w.DedupTime = true, rp.dedupLast, rp.dedupTime
	}
	rnCol := len(node.Types)
	node.Names = append(node.Names, in.names[rc])
	node.Types = append(node.Types, types.BigInt().NotNullable())
	node.Describe = describeRank(node)

	src := &Source{Pos: rs.pos, Node: node, RowTypes: node.Types}
	out := &relation{names: in.names, pos: in.pos, types: slices.Clone(in.types), colQuals: in.colQuals}
	nb := &branch{src: src}
	for i, e := range b0.cols {
		switch c, _ := e.(*expr.ColumnRef); {
		case i == rc:
			nb.cols = append(nb.cols, expr.Col(rnCol, node.Names[rnCol], node.Types[rnCol]))
		case c != nil && c.Index < 0 && c.Index != colRank:
			k := colWindowStart - c.Index
			nb.cols = append(nb.cols, expr.Col(winCols+k, node.Names[winCols+k], node.Types[winCols+k]))
		default:
			j := colOf[i]
			nb.cols = append(nb.cols, expr.Col(j, node.Names[j], node.Types[j]))
			if rt := b0.src.rowtime; rt != nil && exprEqual(e, rt) {
				src.rowtime = nb.cols[len(nb.cols)-1]
			}
		}
		out.types[i] = nb.cols[len(nb.cols)-1].Type()
	}
	if win != nil && !win.proc {
		// window_time is the output's rowtime attribute.
		src.rowtime = expr.Col(winCols+2, "window_time", node.Types[winCols+2])
	}
	out.branches = []*branch{nb}
	return out, nil
}

// procOrNil reports whether w is a processing-time window (false for
// nil).
func (w *windowTVF) procOrNil() bool { return w != nil && w.proc }

// windowAggInput is a window aggregation whose output a window Top-N
// reads: its node and the ranked relation's window_end column.
type windowAggInput struct {
	node *Node
	end  int
}

// rankWindow reports whether rs partitions by window_start and
// window_end: of the window TVF it reads (win), or of the window
// aggregation whose output it reads (winAgg).
func (p *planner) rankWindow(rs *rankedSelect, in *relation) (*windowTVF, *windowAggInput, error) {
	var hasStart, hasEnd bool
	if rs.window != nil {
		for _, e := range rs.partition[0] {
			if c, ok := e.(*expr.ColumnRef); ok {
				hasStart = hasStart || c.Index == colWindowStart
				hasEnd = hasEnd || c.Index == colWindowEnd
			}
		}
		if hasStart && hasEnd {
			if rs.window.spec.Kind == window.Session {
				return nil, nil, p.f.errorAt(rs.pos, ddl.ErrUnsupported, nil, "a window Top-N over SESSION windows is not supported")
			}
			if rs.window.proc {
				return nil, nil, p.f.errorAt(rs.pos, ddl.ErrUnsupported, nil, "a window Top-N over processing-time windows is not supported yet")
			}
			return rs.window, nil, nil
		}
		return nil, nil, nil
	}
	b0 := in.branches[0]
	n := b0.src.Node
	if n == nil || n.Kind != WindowAggregate && (n.Kind != WindowTableFunction || n.Window.Time < 0) || len(in.branches) != 1 {
		return nil, nil, nil
	}
	nw := len(n.Types)
	endCol := -1
	for _, e := range rs.partition[0] {
		if c, ok := e.(*expr.ColumnRef); ok {
			hasStart = hasStart || c.Index == nw-3
			hasEnd = hasEnd || c.Index == nw-2
		}
	}
	if !hasStart || !hasEnd {
		return nil, nil, nil
	}
	for i, e := range b0.cols {
		if c, ok := e.(*expr.ColumnRef); ok && c.Index == nw-2 {
			endCol = i
		}
	}
	if endCol < 0 {
		return nil, nil, p.f.errorAt(rs.pos, ddl.ErrUnsupported, nil, "a window Top-N must select window_end")
	}
	return nil, &windowAggInput{node: n, end: endCol}, nil
}

// describeRank returns a ranking node's EXPLAIN line, as Flink names it.
func describeRank(n *Node) string {
	rp := n.Rank
	var spec *rank.Spec
	switch {
	case rp.Dedup != nil:
		return fmt.Sprintf("Deduplicate(%s, key=[%s])", rp.Dedup.Describe(), strings.Join(rp.partNames, ", "))
	case rp.Window != nil && rp.Window.Dedup:
		keep := "FirstRow"
		if rp.Window.KeepLast {
			keep = "LastRow"
		}
		return fmt.Sprintf("WindowDeduplicate(keep=[%s], partitionBy=[%s], order=[ROWTIME])", keep, strings.Join(rp.partNames, ", "))
	case rp.Window != nil:
		spec = &rp.Window.Spec
	default:
		spec = rp.TopN
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s(", n.Kind)
	if n.Kind == Rank {
		fmt.Fprintf(&b, "strategy=[%sStrategy], function=[%s], ", spec.Strategy, spec.Function())
	}
	fmt.Fprintf(&b, "rankType=[ROW_NUMBER], rankRange=[rankStart=%d, rankEnd=%d], partitionBy=[%s], orderBy=[%s]",
		spec.Start, spec.End, strings.Join(rp.partNames, ", "), strings.Join(rp.orderNames, ", "))
	if !spec.OutputRank {
		b.WriteString(", rank number not output")
	}
	b.WriteString(")")
	return b.String()
}

// rankChangelog settles a Rank's operator and strategy from what its
// input carries (in), as Flink's changelog inference does, and returns
// what it emits.
func (p *planner) rankChangelog(n *Node, in RowKinds) (Changelog, error) {
	rp := n.Rank
	if n.Kind == WindowRank || n.Kind == WindowDeduplicate {
		if !in.InsertOnly() {
			return Changelog{}, p.f.errorAt(n.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
				"a window Top-N over an input with updates or deletes (%s) is not supported; it takes insert-only input", in))
		}
		return Changelog{Kinds: KindsInsert}, nil
	}
	spec := rp.TopN
	nin := len(rp.InputTypes)
	partKey := slices.Clone(spec.Partition)
	switch {
	case in.InsertOnly() && rp.dedupTime >= -1 && spec.Start == 1 && spec.End == 1:
		// rn = 1 by a time attribute over inserts: a deduplication.
		n.Kind = Deduplicate
		rp.Dedup = &rank.DedupSpec{Types: spec.Types, Partition: spec.Partition, Time: rp.dedupTime, KeepLast: rp.dedupLast,
			OutputRank: spec.OutputRank, TTL: spec.TTL}
		n.Describe = describeRank(n)
		if !rp.dedupLast {
			return Changelog{Kinds: KindsInsert}, nil
		}
		return Changelog{Kinds: KindsInsert | KindsUpdateAfter, UpsertKey: partKey}, nil
	case in.InsertOnly():
		spec.Strategy = rank.AppendOnly
		spec.FirstN = rp.dedupTime == -1 && !rp.dedupLast
	case rp.firstRows:
		// Flink keeps the first rows of an updating input by the order
		// they came in, which a retraction cannot find again by
		// PROCTIME().
		return Changelog{}, p.f.errorAt(n.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
			"LIMIT without ORDER BY over an input with updates or deletes (%s) is not supported yet; ORDER BY the columns that decide which rows to keep", in))
	default:
		spec.Strategy = rank.Retract
		if rk := p.updatableKey(n); rk != nil {
			spec.Strategy, spec.RowKey = rank.Updatable, rk
		}
	}
	n.Describe = describeRank(n)
	if spec.FirstN {
		return Changelog{Kinds: KindsInsert}, nil
	}
	// What Flink's function for the strategy emits: an insert-only input
	// ranked without the row number moves rows in and out of the top
	// (inserts and deletes); with it, or a Top-1, ranks change (updates).
	c := Changelog{Kinds: KindsInsert | KindsUpdateAfter | KindsDelete}
	switch {
	case spec.Strategy == rank.AppendOnly && spec.Top1():
		c.Kinds = KindsInsert | KindsUpdateAfter
	case spec.Strategy == rank.AppendOnly && spec.Start == 1 && !spec.OutputRank:
		c.Kinds = KindsInsert | KindsDelete
	case spec.Strategy == rank.AppendOnly:
		c.Kinds = KindsInsert | KindsUpdateAfter
	}
	switch {
	case spec.OutputRank:
		c.UpsertKey = append(partKey, nin)
	case spec.Top1():
		c.UpsertKey = partKey
	}
	return c, nil
}

// updatableKey returns the unique key Flink's UpdateFastStrategy would
// use for a Top-N over an updating input (nil: the input retracts): the
// input's upsert key, which holds the PARTITION BY columns, and an ORDER
// BY monotonic in the direction it sorts (a COUNT or MAX of an
// aggregation over inserts, DESC; a MIN, ASC; a grouping key), with no
// filter between the aggregation and the Top-N (Flink's FLINK-9528 rule).
func (p *planner) updatableKey(n *Node) []int {
	if len(n.Inputs) != 1 {
		return nil
	}
	fl := n.Inputs[0]
	src := fl.Source.Node
	if fl.Filter != nil || src == nil || src.Kind != GroupAggregate || src.Agg.Retracting || fl.Changelog.UpsertKey == nil {
		return nil
	}
	uk := fl.Changelog.UpsertKey
	spec := n.Rank.TopN
	for _, c := range spec.Partition {
		if !slices.Contains(uk, c) {
			return nil
		}
	}
	nk := len(src.Agg.Keys)
	for _, k := range spec.Order {
		e := fl.Projection[k.Col]
		if c, ok := e.(*expr.Cast); ok && !c.Try {
			e = c.Expr
		}
		c, ok := e.(*expr.ColumnRef)
		if !ok {
			return nil
		}
		if c.Index < nk {
			continue // a grouping key: constant under the upsert key
		}
		call := src.Agg.Calls[c.Index-nk]
		switch {
		case (call.Func == agg.Count || call.Func == agg.Max) && k.Desc:
		case call.Func == agg.Min && !k.Desc:
		default:
			return nil
		}
	}
	return slices.Clone(uk)
}

// rankNeedsUpdateBefore tells a ranking node that its consumer needs
// UPDATE_BEFORE rows, and reports whether its own input must carry them
// (a Top-N that retracts).
func rankNeedsUpdateBefore(n *Node, need bool) bool {
	rp := n.Rank
	switch {
	case rp.Dedup != nil:
		rp.Dedup.UpdateBefore = rp.Dedup.UpdateBefore || need
		if rp.Dedup.UpdateBefore && n.Changelog.Kinds.Has(KindsUpdateAfter) {
			n.Changelog.Kinds |= KindsUpdateBefore
		}
	case rp.TopN != nil:
		rp.TopN.UpdateBefore = rp.TopN.UpdateBefore || need
		if rp.TopN.UpdateBefore && n.Changelog.Kinds.Has(KindsUpdateAfter) {
			n.Changelog.Kinds |= KindsUpdateBefore
		}
		return rp.TopN.Strategy == rank.Retract
	}
	return false
}

// pruneRanks drops, below fl, what the ranking and OVER nodes' consumers
// do not read, before the changelog is inferred: the row number of a
// Top-N (Flink's Top-N without the rank number, which inserts and deletes
// rather than updating ranks), and input columns (pruneNodeColumns).
func pruneRanks(fl *Flow) error {
	n := fl.Source.Node
	if n == nil {
		return nil
	}
	if n.Changelog.Kinds == 0 && (n.Rank != nil || n.Over != nil) {
		if n.Rank != nil {
			dropRankColumn(fl, n)
		}
		if err := pruneNodeColumns(fl, n); err != nil {
			return err
		}
	}
	for _, in := range n.Inputs {
		if err := pruneRanks(in); err != nil {
			return err
		}
	}
	return nil
}

// dropRankColumn drops the row number, n's last column, when fl does not
// read it.
func dropRankColumn(fl *Flow, n *Node) {
	if len(fl.Unnest) > 0 {
		return // its row's columns after n's are UNNEST's, at fixed places
	}
	rn := len(n.Types) - 1
	used := false
	for _, e := range consumerExprs(fl) {
		walkCols(e, func(c *expr.ColumnRef) { used = used || c.Index == rn })
	}
	rp := n.Rank
	switch {
	case used:
		return
	case rp.TopN != nil && rp.TopN.OutputRank:
		rp.TopN.OutputRank = false
	case rp.Window != nil && rp.Window.OutputRank:
		rp.Window.OutputRank = false
	default:
		return
	}
	n.Names, n.Types = n.Names[:rn:rn], n.Types[:rn:rn]
	fl.Source.RowTypes = n.Types
	n.Describe = describeRank(n)
}

// rankState describes a ranking or OVER node's state for EXPLAIN ("" for
// other nodes).
func (pl *Plan) rankState(n *Node, backend string) string {
	ttl := "kept for ever (table.exec.state.ttl is 0)"
	if pl.StateTTL > 0 {
		ttl = fmt.Sprintf("ttl %s (table.exec.state.ttl)", formatDuration(pl.StateTTL))
	}
	switch n.Kind {
	case Rank:
		s := n.Rank.TopN
		switch {
		case s.FirstN:
			return fmt.Sprintf("%s, a row count per partition, %s", backend, ttl)
		case s.Strategy == rank.Retract:
			return fmt.Sprintf("%s, every row of each partition (the input retracts), %s: it grows with the input", backend, ttl)
		}
		return fmt.Sprintf("%s, the top %d rows of each partition (and rows tied with the last), %s", backend, s.End, ttl)
	case Deduplicate:
		return fmt.Sprintf("%s, a row per partition, %s", backend, ttl)
	case WindowRank, WindowDeduplicate:
		return fmt.Sprintf("%s, the top rows of each partition per window until the window fires", backend)
	case OverAggregate:
		s := n.Over
		switch {
		case s.Updating:
			return fmt.Sprintf("%s, every row of the input's current table, by partition and order (the input updates), %s: it grows with the input's table", backend, ttl)
		case s.Time >= 0 && s.Frame.Unbounded:
			return fmt.Sprintf("%s, the accumulators of each partition (%s) and its rows until the watermark passes them", backend, ttl)
		case s.Frame.Unbounded:
			return fmt.Sprintf("%s, the accumulators of each partition, %s", backend, ttl)
		}
		return fmt.Sprintf("%s, the accumulators and the rows of each partition's frame, %s", backend, ttl)
	case TemporalSort:
		return fmt.Sprintf("%s, the rows until time passes them (the watermark, or the clock for PROCTIME()); late rows are dropped", backend)
	}
	return ""
}

// pruneNodeColumns drops the input columns of a ranking or OVER node n
// that neither its operator nor consumer (the flow reading n's output)
// reads, so that its state keeps only what is used (Flink prunes them
// before the node the same way). Indexes of n's spec and the consumer's
// expressions are remapped.
func pruneNodeColumns(consumer *Flow, n *Node) error {
	if len(consumer.Unnest) > 0 {
		return nil // its row's columns after n's are UNNEST's, at fixed places
	}
	var nin int
	var mark []bool
	used := func(cols ...int) {
		for _, c := range cols {
			if c >= 0 && c < nin {
				mark[c] = true
			}
		}
	}
	rp, ov := n.Rank, n.Over
	var rs *rank.Spec
	switch {
	case rp != nil && rp.TopN != nil:
		rs = rp.TopN
	case rp != nil && rp.Window != nil:
		rs = &rp.Window.Spec
	case ov != nil:
	default:
		return nil
	}
	if rp != nil {
		nin = len(rp.InputTypes)
	} else {
		nin = len(ov.Types)
	}
	mark = make([]bool, nin)
	exprs := consumerExprs(consumer)
	for _, e := range exprs {
		walkCols(e, func(c *expr.ColumnRef) { used(c.Index) })
	}
	if rs != nil {
		used(rs.Partition...)
		for _, k := range rs.Order {
			used(k.Col)
		}
		used(rp.dedupTime)
		if w := rp.Window; w != nil {
			if w.Assign != nil {
				used(w.Assign.Time)
			} else {
				used(w.WindowEnd)
			}
			if w.Dedup {
				used(w.DedupTime)
			}
		}
	} else {
		used(ov.Partition...)
		used(ov.Time, ov.Order)
		for _, c := range ov.Calls {
			used(c.Arg, c.Filter)
		}
	}
	newIdx := make([]int, nin)
	kept := 0
	for i, u := range mark {
		newIdx[i] = -1
		if u {
			newIdx[i] = kept
			kept++
		}
	}
	if kept == nin {
		return nil
	}
	remap := func(c int) int {
		if c < 0 {
			return c
		}
		return newIdx[c]
	}
	remapAll := func(cols []int) []int {
		out := make([]int, len(cols))
		for i, c := range cols {
			out[i] = remap(c)
		}
		return out
	}
	// The node's input flows and row.
	var names []string
	var ts []types.Type
	for i := range nin {
		if mark[i] {
			names = append(names, n.Names[i])
			ts = append(ts, n.Types[i])
		}
	}
	for _, fl := range n.Inputs {
		var proj []expr.Expr
		for i, e := range fl.Projection {
			if i < nin && mark[i] {
				proj = append(proj, e)
			}
		}
		fl.Projection, fl.Names = proj, names
		if fl.ReadFields != nil {
			fl.ReadFields, fl.ReadRows = readFields(fl)
		}
	}
	n.Names = append(slices.Clone(names), n.Names[nin:]...)
	n.Types = append(slices.Clone(ts), n.Types[nin:]...)
	n.Keys = remapAll(n.Keys)
	if rs != nil {
		rp.InputTypes = ts
		rs.Types = ts
		rs.Partition = remapAll(rs.Partition)
		for i := range rs.Order {
			rs.Order[i].Col = remap(rs.Order[i].Col)
		}
		rp.dedupTime = remap(rp.dedupTime)
		if w := rp.Window; w != nil {
			if w.Assign != nil {
				w.Assign.Time = remap(w.Assign.Time)
			} else {
				w.WindowEnd = remap(w.WindowEnd)
			}
			w.DedupTime = remap(w.DedupTime)
		}
	} else {
		ov.Types = ts
		ov.Partition = remapAll(ov.Partition)
		ov.Time = remap(ov.Time)
		ov.Order = remap(ov.Order)
		for i := range ov.Calls {
			ov.Calls[i].Arg = remap(ov.Calls[i].Arg)
			ov.Calls[i].Filter = remap(ov.Calls[i].Filter)
		}
	}
	// The consumer reads the new layout.
	shift := nin - kept
	fn := func(c *expr.ColumnRef) expr.Expr {
		i := c.Index
		if i < nin {
			i = newIdx[i]
		} else {
			i -= shift
		}
		return expr.Col(i, n.Names[i], n.Types[i])
	}
	var err error
	if consumer.Filter != nil {
		if consumer.Filter, err = mapCols(consumer.Filter, fn); err != nil {
			return err
		}
	}
	for i, e := range consumer.Projection {
		if consumer.Projection[i], err = mapCols(e, fn); err != nil {
			return err
		}
	}
	for _, x := range consumer.Expand {
		for i, e := range x {
			if x[i], err = mapCols(e, fn); err != nil {
				return err
			}
		}
	}
	src := consumer.Source
	src.RowTypes = n.Types
	if src.rowtime != nil {
		keep := true
		walkCols(src.rowtime, func(c *expr.ColumnRef) { keep = keep && (c.Index >= nin || mark[c.Index]) })
		if !keep {
			src.rowtime = nil // no reader of the time attribute is left
		} else if src.rowtime, err = mapCols(src.rowtime, fn); err != nil {
			return err
		}
	}
	n.Describe = describeNode(n)
	return nil
}

// consumerExprs returns the expressions of fl: its filter, projection and
// grouping-set projections.
func consumerExprs(fl *Flow) []expr.Expr {
	var out []expr.Expr
	if fl.Filter != nil {
		out = append(out, fl.Filter)
	}
	out = append(out, fl.Projection...)
	for _, x := range fl.Expand {
		out = append(out, x...)
	}
	return out
}

// describeNode redoes a ranking or OVER node's EXPLAIN line.
func describeNode(n *Node) string {
	if n.Rank != nil {
		return describeRank(n)
	}
	return n.Describe
}
