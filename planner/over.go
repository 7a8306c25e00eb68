package planner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/over"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// This file plans OVER aggregates: agg(...) OVER (PARTITION BY ... ORDER
// BY time ROWS|RANGE BETWEEN ... PRECEDING AND CURRENT ROW) in a SELECT
// list, written inline or by name (OVER w, the WINDOW clause). An
// OverAggregate node reads the FROM relation (after WHERE) and appends
// each call's result to its rows; the SELECT list is computed over the
// node's output, each OVER expression being its result's column. Flink's
// rules hold: every OVER of a SELECT uses the same window, ordered by one
// time attribute ascending, and frames end at the current row. Ranking
// functions (ROW_NUMBER with a filter on it) are rank.go's.

// rankingFuncs are the ranking window functions.
var rankingFuncs = map[string]bool{"ROW_NUMBER": true, "RANK": true, "DENSE_RANK": true}

// overCalls returns the OVER expressions of e (an OVER's own arguments
// are not searched: OVER inside OVER is an error lowering reports).
func overCalls(e ddl.Expr, out []*ddl.Over) []*ddl.Over {
	ddl.Walk(e, func(n ddl.Expr) bool {
		if o, ok := n.(*ddl.Over); ok {
			out = append(out, o)
			return false
		}
		return true
	})
	return out
}

// selectOvers returns the OVER expressions of q's SELECT list.
func selectOvers(q *ddl.Select) []*ddl.Over {
	var out []*ddl.Over
	for _, it := range q.Items {
		if !it.Star {
			out = overCalls(it.Expr, out)
		}
	}
	return out
}

// overWindow is an OVER expression's window, names of the WINDOW clause
// resolved.
type overWindow struct {
	pos         ddl.Pos
	partitionBy []ddl.Expr
	orderBy     []ddl.OrderItem
	frame       *ddl.Frame
}

// windowOf resolves o's window in q: OVER name, and OVER (name ...) which
// adds to the named window.
func (p *planner) windowOf(q *ddl.Select, o *ddl.Over) (overWindow, error) {
	return p.resolveWindowSpec(q, o.Window, 0)
}

func (p *planner) resolveWindowSpec(q *ddl.Select, w *ddl.WindowSpec, depth int) (overWindow, error) {
	if w == nil {
		return overWindow{}, nil
	}
	out := overWindow{pos: w.Pos}
	if w.Ref != "" {
		var base *ddl.NamedWindow
		for _, nw := range q.Windows {
			if nw.Name.Name == w.Ref {
				base = nw
			}
		}
		if base == nil || depth > len(q.Windows) {
			return out, p.f.errorAt(w.RefPos, ErrUnknownName, nil, fmt.Sprintf("window '%s' is not defined in the query's WINDOW clause", w.Ref))
		}
		b, err := p.resolveWindowSpec(q, base.Spec, depth+1)
		if err != nil {
			return out, err
		}
		out = b
		out.pos = w.Pos
	}
	if len(w.PartitionBy) > 0 {
		if len(out.partitionBy) > 0 {
			return out, p.f.errorAt(w.Pos, ErrType, nil, fmt.Sprintf("window '%s' has a PARTITION BY already; a window built on it cannot have another", w.Ref))
		}
		out.partitionBy = w.PartitionBy
	}
	if len(w.OrderBy) > 0 {
		if len(out.orderBy) > 0 {
			return out, p.f.errorAt(w.Pos, ErrType, nil, fmt.Sprintf("window '%s' has an ORDER BY already; a window built on it cannot have another", w.Ref))
		}
		out.orderBy = w.OrderBy
	}
	if w.Frame != nil {
		out.frame = w.Frame
	}
	return out, nil
}

// key returns the window as text, to tell whether two OVERs use the same
// one.
func (w overWindow) key() string {
	var b strings.Builder
	for _, e := range w.partitionBy {
		b.WriteString(ddl.FormatExpr(e) + ",")
	}
	b.WriteString("|")
	for _, o := range w.orderBy {
		fmt.Fprintf(&b, "%s %v %v,", ddl.FormatExpr(o.Expr), o.Desc, o.Nulls)
	}
	b.WriteString("|")
	if f := w.frame; f != nil {
		fmt.Fprintf(&b, "%s %v %s %v %s", f.Unit, f.Start.Kind, formatOpt(f.Start.Offset), f.End.Kind, formatOpt(f.End.Offset))
	}
	return b.String()
}

func formatOpt(e ddl.Expr) string {
	if e == nil {
		return ""
	}
	return ddl.FormatExpr(e)
}

// overFrame reads w's frame (the default with an ORDER BY is RANGE
// BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) as Flink takes it: it ends
// at the current row, a ROWS offset is a non-negative integer, a RANGE
// offset over a time attribute a day-time interval.
func (p *planner) overFrame(w overWindow) (over.Frame, error) {
	f := w.frame
	if f == nil {
		return over.Frame{Unbounded: true}, nil
	}
	out := over.Frame{Rows: f.Unit == ddl.FrameRows}
	if f.End.Kind != ddl.CurrentRow {
		if f.End.Kind == ddl.Following || f.End.Kind == ddl.UnboundedFollowing {
			return out, p.f.errorAt(f.End.Pos, ddl.ErrUnsupported, nil, "an OVER window frame that ends after the current row (FOLLOWING) is not supported (Flink: OVER RANGE FOLLOWING windows are not supported yet)")
		}
		return out, p.f.errorAt(f.End.Pos, ErrType, nil, "an OVER window frame must end at the CURRENT ROW")
	}
	switch f.Start.Kind {
	case ddl.UnboundedPreceding:
		out.Unbounded = true
	case ddl.CurrentRow:
		// ROWS/RANGE BETWEEN CURRENT ROW AND CURRENT ROW: a frame of no
		// preceding rows.
	case ddl.Preceding:
		if out.Rows {
			n, ok := intLiteral(f.Start.Offset)
			if !ok || n < 0 {
				return out, p.f.errorAt(f.Start.Pos, ErrType, nil, "the offset of ROWS ... PRECEDING must be a non-negative integer literal")
			}
			out.PrecedingRows = n
		} else {
			lit, ok := f.Start.Offset.(*ddl.IntervalLit)
			if !ok || lit.Type.Kind != types.KindIntervalDayTime || lit.Millis < 0 {
				return out, p.f.errorAt(f.Start.Pos, ErrType, nil, "the offset of RANGE ... PRECEDING over a time attribute must be a day-time interval literal such as INTERVAL '10' MINUTE")
			}
			out.PrecedingTime = time.Duration(lit.Millis) * time.Millisecond
		}
	default:
		return out, p.f.errorAt(f.Start.Pos, ddl.ErrUnsupported, nil, "an OVER window frame that starts after the current row is not supported (Flink: OVER RANGE FOLLOWING windows are not supported yet)")
	}
	return out, nil
}

// intLiteral returns the value of an exact numeric literal without a
// fraction.
func intLiteral(e ddl.Expr) (int64, bool) {
	lit, ok := e.(*ddl.Literal)
	if !ok || lit.Value.IsNull() || !lit.Type.IsInteger() {
		return 0, false
	}
	return lit.Value.Int64(), true
}

// overNames are the names of OVER results in a node's row (Flink's).
func overName(i int) string { return fmt.Sprintf("w0$o%d", i) }

// planOver plans the OVER aggregates of q (no GROUP BY) over in: it
// returns the relation of the OverAggregate node's output (in's columns,
// then hidden ones), q without its WHERE (the node's input applies it),
// and the rewrite that maps each OVER expression of the SELECT list to its
// result column.
func (p *planner) planOver(q *ddl.Select, in *relation, quals [][]string, overs []*ddl.Over) (*relation, *ddl.Select, func(ddl.Expr) (expr.Expr, bool, error), error) {
	if in.window != nil {
		return nil, nil, nil, p.f.errorAt(overs[0].Pos, ddl.ErrUnsupported, nil,
			"an OVER aggregate over a window table function is not supported yet; aggregate the windows with GROUP BY window_start, window_end")
	}
	// One window for every call (Flink's rule).
	var w overWindow
	var wkey string
	for i, o := range overs {
		ow, err := p.windowOf(q, o)
		if err != nil {
			return nil, nil, nil, err
		}
		if rankingFuncs[o.Call.Name] {
			if o.Call.Name != "ROW_NUMBER" {
				return nil, nil, nil, p.f.errorAt(o.Call.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
					"%s() as an OVER aggregate is not supported (Flink 2.2 supports it only in a Top-N: a filter on it in the query that reads it)", o.Call.Name))
			}
			// ROW_NUMBER counts rows one by one, whatever the frame.
			ow.frame = &ddl.Frame{Unit: ddl.FrameRows, Start: ddl.FrameBound{Kind: ddl.UnboundedPreceding}, End: ddl.FrameBound{Kind: ddl.CurrentRow}}
		}
		if i == 0 {
			w, wkey = ow, ow.key()
			continue
		}
		if ow.key() != wkey {
			return nil, nil, nil, p.f.errorAt(o.Pos, ddl.ErrUnsupported, nil,
				"every OVER aggregate of a SELECT must use the same window (the same PARTITION BY, ORDER BY and frame), as in Flink; compute the others in another query")
		}
	}
	pos := overs[0].Pos
	if len(w.orderBy) != 1 {
		return nil, nil, nil, p.f.errorAt(pos, ddl.ErrUnsupported, nil,
			"an OVER window must be ordered by one time attribute (ORDER BY a rowtime or PROCTIME() column), as in Flink")
	}
	ob := w.orderBy[0]
	if ob.Desc {
		return nil, nil, nil, p.f.errorAt(ob.Pos, ddl.ErrUnsupported, nil, "an OVER window can only be ordered ascending (Flink: The window can only be ordered in ASCENDING mode)")
	}
	frame, err := p.overFrame(w)
	if err != nil {
		return nil, nil, nil, err
	}
	// The time attribute, in every branch.
	var times []expr.Expr
	for _, b := range in.branches {
		e, err := (&lowerer{f: p.f, sc: in.scope(b.cols, quals)}).lower(ob.Expr)
		if err != nil {
			return nil, nil, nil, err
		}
		times = append(times, e)
	}
	rowtime, proc := p.timeAttribute(in.branches, times)
	// Not a time attribute: Flink refuses it (over insert-only input, the
	// only input its OVER takes). streamsql runs it over an updating input
	// (ordering by the column's value, see ops/over); whether the input
	// updates is known once the changelog is inferred, which returns the
	// refusal for an insert-only one.
	var notTime error
	if !rowtime && !proc {
		if frame.Unbounded {
			notTime = p.f.errorAt(ob.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
				"an OVER window ordered by %s, which is not a time attribute, is not supported yet; order it by a rowtime attribute (the WATERMARK FOR column of a table) or a PROCTIME() column",
				ddl.FormatExpr(ob.Expr)))
		} else {
			notTime = p.f.errorAt(ob.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
				"a bounded OVER window ordered by %s, which is not a time attribute, is not supported, as in Flink (Non-time attribute sort is not supported for bounded OVER window); order it by a rowtime attribute (the WATERMARK FOR column of a table) or a PROCTIME() column",
				ddl.FormatExpr(ob.Expr)))
		}
	}

	node := &Node{Kind: OverAggregate, Pos: pos, Names: slices.Clone(in.names), Types: slices.Clone(in.types)}
	// The node's input columns: in's, then the time (over event time), the
	// partition expressions and the calls' arguments and filters that are
	// not among them. Each is planned over markers of in's columns, to
	// tell a column from an expression.
	markers := make([]expr.Expr, len(in.names))
	for i := range markers {
		markers[i] = expr.Col(i, in.names[i], in.types[i])
	}
	mark := &lowerer{f: p.f, sc: in.scope(markers, quals)}
	extra := map[string]int{}
	var extraExprs []ddl.Expr
	column := func(e ddl.Expr) (int, error) {
		m, err := mark.lower(e)
		if err != nil {
			return 0, err
		}
		if c, ok := m.(*expr.ColumnRef); ok && c.Index >= 0 {
			return c.Index, nil
		}
		key := ddl.FormatExpr(e)
		if i, ok := extra[key]; ok {
			return i, nil
		}
		extra[key] = len(node.Types)
		extraExprs = append(extraExprs, e)
		node.Names = append(node.Names, fmt.Sprintf("$f%d", len(node.Names)))
		node.Types = append(node.Types, m.Type())
		return extra[key], nil
	}
	spec := &over.Spec{Time: -1, Order: -1, Frame: frame, TTL: p.plan.StateTTL}
	switch {
	case rowtime:
		if spec.Time, err = column(ob.Expr); err != nil {
			return nil, nil, nil, err
		}
	case notTime != nil:
		if spec.Order, err = column(ob.Expr); err != nil {
			return nil, nil, nil, err
		}
	}
	var partNames []string
	for _, e := range w.partitionBy {
		i, err := column(e)
		if err != nil {
			return nil, nil, nil, err
		}
		spec.Partition = append(spec.Partition, i)
		partNames = append(partNames, ddl.FormatExpr(e))
	}
	// The calls, each computed once: their arguments and filters are
	// columns too.
	type overCall struct {
		text string
		spec agg.Call
	}
	var calls []overCall
	callIndex := map[string]int{}
	l0 := &lowerer{f: p.f, sc: in.scope(markers, quals)}
	for _, o := range overs {
		text := ddl.FormatExpr(o.Call)
		if _, ok := callIndex[text]; ok {
			continue
		}
		var c agg.Call
		switch {
		case o.Call.Name == "ROW_NUMBER":
			if len(o.Call.Args) > 0 || o.Call.Star {
				return nil, nil, nil, p.f.errorAt(o.Call.Pos, ErrType, nil, "ROW_NUMBER takes no argument")
			}
			c = agg.Call{Func: agg.Count, Arg: -1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt().NotNullable()}
		default:
			fn, ok := agg.Lookup(o.Call.Name)
			if !ok {
				return nil, nil, nil, p.f.errorAt(o.Call.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
					"%s is not an aggregate function streamsql computes OVER a window; COUNT, SUM, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG and ROW_NUMBER are", o.Call.Name))
			}
			if fn.KeepsRows() {
				return nil, nil, nil, p.f.errorAt(o.Call.Pos, ddl.ErrUnsupported, nil, o.Call.Name+" OVER a window is not supported yet")
			}
			if !frame.Unbounded && (fn == agg.FirstValue || fn == agg.LastValue || fn == agg.ListAgg) {
				return nil, nil, nil, p.f.errorAt(o.Call.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
					"%s over a bounded OVER frame is not supported yet; it is over UNBOUNDED PRECEDING", o.Call.Name))
			}
			spec, arg, filter, err := p.planCall(l0, o.Call, true)
			if err != nil {
				return nil, nil, nil, err
			}
			if arg != nil {
				if spec.Arg, err = column(o.Call.Args[0]); err != nil {
					return nil, nil, nil, err
				}
			}
			if filter != nil {
				if spec.Filter, err = column(o.Call.Filter); err != nil {
					return nil, nil, nil, err
				}
			}
			c = spec
		}
		callIndex[text] = len(calls)
		calls = append(calls, overCall{text: text, spec: c})
	}
	ninput := len(node.Types)
	for _, c := range calls {
		spec.Calls = append(spec.Calls, c.spec)
	}
	// The input flows: each branch's columns, then the extra expressions,
	// WHERE applied before the window.
	for _, b := range in.branches {
		l := &lowerer{f: p.f, sc: in.scope(b.cols, quals)}
		fl := &Flow{Source: b.src, Unnest: b.unnest, Names: node.Names[:ninput:ninput]}
		filters := slices.Clone(b.filters)
		if q.Where != nil {
			c, err := l.lowerCondition(q.Where)
			if err != nil {
				return nil, nil, nil, err
			}
			filters = append(filters, c)
		}
		fl.Filter = and(filters)
		for i, e := range b.cols {
			if e, err = p.assignTo(e, in.types[i], in.pos[i]); err != nil {
				return nil, nil, nil, err
			}
			fl.Projection = append(fl.Projection, e)
		}
		for i, x := range extraExprs {
			e, err := l.lower(x)
			if err != nil {
				return nil, nil, nil, err
			}
			if e, err = p.assignTo(e, node.Types[len(in.names)+i], x.Position()); err != nil {
				return nil, nil, nil, err
			}
			fl.Projection = append(fl.Projection, e)
		}
		if rowtime {
			if src := b.src; src.Table != nil {
				src.Watermark = src.watermark
			}
		}
		if err := p.checkCompiles(fl, nil, q.Pos); err != nil {
			return nil, nil, nil, err
		}
		fl.ReadFields, fl.ReadRows = readFields(fl)
		node.Inputs = append(node.Inputs, fl)
	}
	spec.Types = slices.Clone(node.Types)
	for i, c := range calls {
		node.Names = append(node.Names, overName(i))
		node.Types = append(node.Types, c.spec.Result)
	}
	node.Over, node.Keys = spec, spec.Partition
	var callNames []string
	for _, c := range calls {
		callNames = append(callNames, c.text)
	}
	order := "PROCTIME"
	switch {
	case rowtime:
		order = "ROWTIME " + node.Names[spec.Time]
	case notTime != nil:
		order = ddl.FormatExpr(ob.Expr)
	}
	node.overPlan = &overPlan{notTime: notTime, proc: proc, order: ddl.FormatExpr(ob.Expr), orderPos: ob.Pos,
		partNames: partNames, callNames: callNames}
	node.Describe = fmt.Sprintf("OverAggregate(partitionBy=[%s], orderBy=[%s ASC], window=[%s], select=[%s])",
		strings.Join(partNames, ", "), order, frame, strings.Join(callNames, ", "))

	// The relation over the node's output: in's columns (hidden ones
	// after them), the time attribute kept.
	src := &Source{Pos: pos, Node: node, RowTypes: node.Types}
	if rowtime {
		src.rowtime = expr.Col(spec.Time, node.Names[spec.Time], node.Types[spec.Time])
	}
	out := &relation{names: in.names, pos: in.pos, types: in.types, colQuals: in.colQuals}
	nb := &branch{src: src}
	for i := range in.names {
		nb.cols = append(nb.cols, expr.Col(i, node.Names[i], node.Types[i]))
	}
	out.branches = []*branch{nb}
	rewrite := func(e ddl.Expr) (expr.Expr, bool, error) {
		o, ok := e.(*ddl.Over)
		if !ok {
			return nil, false, nil
		}
		i, ok := callIndex[ddl.FormatExpr(o.Call)]
		if !ok {
			return nil, true, p.f.errorAt(o.Pos, ErrType, nil, "an OVER aggregate cannot be used here")
		}
		ci := ninput + i
		return expr.Col(ci, node.Names[ci], node.Types[ci]), true, nil
	}
	nq := *q
	nq.Where = nil
	return out, &nq, rewrite, nil
}

// overPlan is what the changelog inference needs of an OVER node: over an
// updating input the OVER is ordered by its ORDER BY column's value
// (ops/over's Updating), which an insert-only input refuses as Flink does.
type overPlan struct {
	// notTime is the refusal of an ORDER BY that is not a time attribute
	// over an insert-only input; nil for a time attribute.
	notTime error
	// proc: ordered by PROCTIME().
	proc bool
	// order is the ORDER BY as written, orderPos its position;
	// partNames and callNames the PARTITION BY and calls, for EXPLAIN.
	order                string
	orderPos             ddl.Pos
	partNames, callNames []string
}

// overChangelog infers the changelog of OVER node n over an input that
// carries in: insert-only as Flink's over an insert-only input, the OVER
// of the input's current table, updated as it changes, over an updating
// one (which Flink refuses: FLINK-19059).
func (p *planner) overChangelog(n *Node, in RowKinds) (Changelog, error) {
	op, s := n.overPlan, n.Over
	if in.InsertOnly() {
		if op != nil && op.notTime != nil {
			return Changelog{}, op.notTime
		}
		return Changelog{Kinds: KindsInsert}, nil
	}
	switch {
	case op == nil || op.proc:
		return Changelog{}, p.f.errorAt(n.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
			"an OVER aggregate ordered by processing time over an input with updates or deletes (%s) is not supported: a retraction could not find the row it takes back (Flink: OverAggregate doesn't support consuming update changes); order it by a column of the input", in))
	case !s.Frame.Rows && !s.Frame.Unbounded:
		return Changelog{}, p.f.errorAt(n.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
			"an OVER aggregate with a bounded RANGE frame over an input with updates or deletes (%s) is not supported yet; use a ROWS frame or RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", in))
	}
	for _, c := range s.Calls {
		if c.Distinct {
			return Changelog{}, p.f.errorAt(n.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
				"an OVER aggregate with DISTINCT over an input with updates or deletes (%s) is not supported yet", in))
		}
	}
	if s.Time >= 0 {
		// A rowtime attribute that survived an updating operator: its
		// value orders the rows; no row waits for the watermark.
		s.Order, s.Time = s.Time, -1
	}
	s.Updating = true
	n.Describe = fmt.Sprintf("OverAggregate(partitionBy=[%s], orderBy=[%s ASC, then every column], window=[%s], select=[%s], input=updating: the OVER of its current table, rows whose frame changed are updated)",
		strings.Join(op.partNames, ", "), op.order, s.Frame, strings.Join(op.callNames, ", "))
	// UPDATE_BEFORE rows only when a consumer asks for them
	// (requireUpdateBefore).
	return Changelog{Kinds: KindsInsert | KindsUpdateAfter | KindsDelete}, nil
}
