package planner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// This file plans window aggregations: GROUP BY window_start, window_end
// over a window table function (TUMBLE, HOP, CUMULATE, SESSION) and the
// legacy group windows (GROUP BY TUMBLE(ts, INTERVAL ...) with
// TUMBLE_START and friends in the SELECT list).

// windowTVF is the window table function a relation is read through: its
// columns are the input's, then window_start, window_end and window_time,
// which only a window aggregation computes (in the relation's branches
// they are placeholders, column refs with negative indexes).
type windowTVF struct {
	pos  ddl.Pos
	spec window.Spec
	// timeCol is the input relation's column of the time attribute;
	// proc is set for processing time.
	timeCol int
	proc    bool
	// partitionBy are SESSION's PARTITION BY columns of the input.
	partitionBy []ddl.Expr
}

// The placeholders of the window columns in a windowed relation's branches.
const (
	colWindowStart = -1 - iota
	colWindowEnd
	colWindowTime
)

var windowColumns = []string{"window_start", "window_end", "window_time"}

// windowKinds maps window table function names to their kinds, and
// windowParams lists each one's parameters in positional order.
var (
	windowKinds  = map[string]window.Kind{"TUMBLE": window.Tumble, "HOP": window.Hop, "CUMULATE": window.Cumulate, "SESSION": window.Session}
	windowParams = map[window.Kind][]string{
		window.Tumble:   {"DATA", "TIMECOL", "SIZE", "OFFSET"},
		window.Hop:      {"DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"},
		window.Cumulate: {"DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"},
		window.Session:  {"DATA", "TIMECOL", "GAP"},
	}
)

// windowRelation resolves FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), ...)).
func (p *planner) windowRelation(ref *ddl.TableFunc, depth int) (*relation, [][]string, error) {
	name := strings.ToUpper(ref.Name.String())
	kind, ok := windowKinds[name]
	if !ok || ref.Lateral {
		return nil, nil, p.f.errorAt(ref.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf("table function %s is not supported yet; the window table functions TUMBLE, HOP, CUMULATE and SESSION are", name))
	}
	params := windowParams[kind]
	args := map[string]ddl.FuncArg{}
	for i, a := range ref.Args {
		key := strings.ToUpper(a.Name.Name)
		if key == "" {
			if i >= len(params) {
				return nil, nil, p.f.errorAt(a.Pos, ErrType, nil, fmt.Sprintf("%s takes at most %d arguments: %s", name, len(params), strings.Join(params, ", ")))
			}
			key = params[i]
		}
		if _, dup := args[key]; dup || !containsString(params, key) {
			return nil, nil, p.f.errorAt(a.Pos, ErrType, nil, fmt.Sprintf("%s has no argument %s here; its arguments are %s", name, key, strings.Join(params, ", ")))
		}
		args[key] = a
	}
	for _, k := range params {
		if _, ok := args[k]; !ok && k != "OFFSET" {
			return nil, nil, p.f.errorAt(ref.Pos, ErrType, nil, fmt.Sprintf("%s needs its %s argument (arguments: %s)", name, k, strings.Join(params, ", ")))
		}
	}
	data := args["DATA"].Table
	if data == nil {
		return nil, nil, p.f.errorAt(args["DATA"].Pos, ErrType, nil, fmt.Sprintf("the first argument of %s is a table: TABLE name", name))
	}
	var in *relation
	var quals [][]string
	var err error
	if data.Query != nil {
		in, err = p.resolveQuery(data.Query, depth+1)
	} else {
		in, quals, err = p.fromRelation(&ddl.TableName{Pos: data.Pos, Name: data.Name}, depth)
	}
	if err != nil {
		return nil, nil, err
	}
	if in.window != nil {
		return nil, nil, p.f.errorAt(data.Pos, ddl.ErrUnsupported, nil, "a window table function over another one is not supported yet")
	}
	if ref.Alias != "" {
		quals = [][]string{{ref.Alias}}
	}
	desc := args["TIMECOL"].Descriptor
	if desc == nil || len(desc.Columns) != 1 {
		return nil, nil, p.f.errorAt(args["TIMECOL"].Pos, ErrType, nil, fmt.Sprintf("the time argument of %s is DESCRIPTOR(column), naming one time attribute", name))
	}
	for _, n := range in.names {
		if slices.Contains(windowColumns, n) {
			return nil, nil, p.f.errorAt(data.Pos, ErrDuplicateName, nil, fmt.Sprintf("the input of %s has a column named %s, which %s adds: rename it", name, n, name))
		}
	}
	w := &windowTVF{pos: ref.Pos, spec: window.Spec{Kind: kind, Time: -1}, timeCol: -1}
	for i, n := range in.names {
		if n == desc.Columns[0].Name {
			w.timeCol = i
		}
	}
	if w.timeCol < 0 {
		return nil, nil, p.f.errorAt(desc.Pos, ErrUnknownName, nil, fmt.Sprintf("column '%s' of DESCRIPTOR not found; available columns are %s%s",
			desc.Columns[0].Name, strings.Join(in.names, ", "), didYouMean(desc.Columns[0].Name, in.names)))
	}
	var cols []expr.Expr
	for _, b := range in.branches {
		cols = append(cols, b.cols[w.timeCol])
	}
	rowtime, proc := p.timeAttribute(in.branches, cols)
	if !rowtime && !proc {
		return nil, nil, p.f.errorAt(desc.Pos, ErrType, nil, fmt.Sprintf(
			"column '%s' is not a time attribute: %s windows over a rowtime attribute (the WATERMARK FOR column of a table) or a PROCTIME() column", desc.Columns[0].Name, name))
	}
	w.proc = proc
	w.spec.TimeType = in.types[w.timeCol].NotNullable()
	if proc {
		w.spec.TimeType = types.TimestampLTZ(3).NotNullable()
	}
	for _, k := range params[2:] {
		a, ok := args[k]
		if !ok {
			continue
		}
		d, err := p.windowInterval(a, name, k)
		if err != nil {
			return nil, nil, err
		}
		switch k {
		case "SIZE":
			w.spec.Size = d
		case "SLIDE", "STEP":
			w.spec.Slide = d
		case "GAP":
			w.spec.Gap = d
		case "OFFSET":
			w.spec.Offset = d
		}
	}
	if err := p.checkWindow(w, ref.Pos, name); err != nil {
		return nil, nil, err
	}
	w.partitionBy = data.PartitionBy
	if len(data.PartitionBy) > 0 && kind != window.Session {
		return nil, nil, p.f.errorAt(data.PartitionPos, ErrType, nil, fmt.Sprintf("PARTITION BY is for SESSION windows, not %s", name))
	}
	out := &relation{names: append(append([]string(nil), in.names...), windowColumns...),
		pos:   append(append([]ddl.Pos(nil), in.pos...), ref.Pos, ref.Pos, ref.Pos),
		types: append(append([]types.Type(nil), in.types...), windowTypes(w.spec.TimeType)...), window: w}
	for _, b := range in.branches {
		nb := &branch{src: b.src, filters: b.filters, unnest: b.unnest, cols: append([]expr.Expr(nil), b.cols...)}
		for k, n := range windowColumns {
			nb.cols = append(nb.cols, expr.Col(colWindowStart-k, n, out.types[len(in.names)+k]))
		}
		out.branches = append(out.branches, nb)
	}
	return out, quals, nil
}

// windowAggColumn reports which window column (0: window_start, 1:
// window_end, 2: window_time) of a window aggregation's, window join's or
// window table function's output column i of rel is, in every branch, and the window: Flink's
// window properties, which a renaming projection, a filter and a UNION ALL
// of the same window keep and any expression over the column loses.
func windowAggColumn(rel *relation, i int) (int, *window.Spec, bool) {
	var k int
	var spec *window.Spec
	for bi, b := range rel.branches {
		c, ok := b.cols[i].(*expr.ColumnRef)
		node := b.src.Node
		if !ok || node == nil {
			return 0, nil, false
		}
		var kb int
		var ws *window.Spec
		switch {
		case node.Kind == WindowAggregate || node.Kind == WindowTableFunction:
			kb, ws = c.Index-(len(node.Names)-3), node.Window
		case node.Kind == WindowJoin && node.windowCols != nil:
			kb, ws = node.windowCols[c.Index], node.windowSpec
		default:
			return 0, nil, false
		}
		if kb < 0 || bi > 0 && (kb != k || !sameWindow(spec, ws)) {
			return 0, nil, false
		}
		k, spec = kb, ws
	}
	return k, spec, spec != nil
}

// indexScope is a scope of in's columns whose expressions are their
// indexes in in: lowering a column name there says which column it is.
func indexScope(in *relation, quals [][]string) *scope {
	sc := &scope{quals: quals}
	for i, n := range in.names {
		sc.cols = append(sc.cols, scopeCol{name: n, e: expr.Col(i, n, in.types[i]), quals: in.colQualsOf(i)})
	}
	return sc
}

// describeAttached describes for EXPLAIN the window of a cascading window
// aggregation, as Flink does: "HOP(win_start=ws, win_end=we, size=10 s,
// slide=2 s, event time)".
func describeAttached(s window.Spec, start, end string) string {
	d := describeWindow(s, false)
	open := strings.IndexByte(d, '(')
	return d[:open+1] + "win_start=" + start + ", win_end=" + end + ", " + d[open+1:]
}

// attachedWindow finds, among the GROUP BY columns of an aggregation over
// relation in (not read through a window table function), the
// window_start and window_end of a window aggregation's output: such an
// aggregation is a window aggregation of the same windows (Flink's
// cascading window aggregation), when they are of event-time TUMBLE, HOP
// or CUMULATE windows (Flink plans a GROUP BY over processing-time
// windows' columns as a group aggregation, and over SESSION windows'
// otherwise). It returns the window and, for each of in's columns, which
// window column it is (-1: none).
func (p *planner) attachedWindow(in *relation, items []ddl.GroupItem, quals [][]string) (*window.Spec, []int) {
	if len(in.branches) == 0 {
		return nil, nil
	}
	l := &lowerer{f: p.f, sc: indexScope(in, quals)}
	var spec *window.Spec
	var has [3]bool
	cols := make([]int, len(in.names))
	for i := range cols {
		cols[i] = -1
	}
	for _, g := range items {
		c, ok := g.Expr.(*ddl.ColumnRef)
		if !ok || g.Kind != ddl.GroupExpr {
			continue
		}
		e, err := l.quietly(c)
		if err != nil {
			continue
		}
		cr, ok := e.(*expr.ColumnRef)
		if !ok {
			continue
		}
		k, ws, ok := windowAggColumn(in, cr.Index)
		if !ok || ws.Time < 0 || ws.Kind == window.Session || spec != nil && !sameWindow(spec, ws) {
			continue
		}
		spec, has[k], cols[cr.Index] = ws, true, k
	}
	if !has[0] || !has[1] {
		return nil, nil
	}
	return spec, cols
}

// windowTypes returns the types of window_start, window_end and
// window_time for a time attribute of type t: TIMESTAMP(3) NOT NULL, and
// window_time of t's kind.
func windowTypes(t types.Type) []types.Type {
	wt := t
	wt.Precision, wt.NotNull = 3, true
	return []types.Type{types.TimestampType(3).NotNullable(), types.TimestampType(3).NotNullable(), wt}
}

// timeAttribute reports whether cols (one per branch) are a rowtime
// attribute (each the rowtime column of its branch's table) or a
// processing-time attribute (PROCTIME()).
func (p *planner) timeAttribute(branches []*branch, cols []expr.Expr) (rowtime, proc bool) {
	rowtime, proc = true, true
	pt := proctimeExpr()
	for i, b := range branches {
		if b.src.rowtime == nil || !exprEqual(cols[i], b.src.rowtime) {
			rowtime = false
		}
		if !exprEqual(cols[i], pt) {
			proc = false
		}
	}
	return rowtime, proc
}

// proctimeExpr is what PROCTIME() lowers to (see lowerer.call).
func proctimeExpr() expr.Expr {
	e, err := expr.Resolve(expr.CastTo(expr.Fn("CURRENT_TIMESTAMP"), types.TimestampLTZ(3).NotNullable()))
	if err != nil {
		panic(err) // resolving a constant call cannot fail
	}
	return e
}

// windowInterval reads a window argument: a positive day-time interval
// literal.
func (p *planner) windowInterval(a ddl.FuncArg, fn, param string) (time.Duration, error) {
	lit, ok := a.Expr.(*ddl.IntervalLit)
	if !ok || lit.Type.Kind != types.KindIntervalDayTime {
		return 0, p.f.errorAt(a.Pos, ErrType, nil, fmt.Sprintf("the %s of %s must be a day-time interval literal such as INTERVAL '10' SECOND", param, fn))
	}
	if lit.Millis <= 0 && param != "OFFSET" {
		return 0, p.f.errorAt(a.Pos, ErrType, nil, fmt.Sprintf("the %s of %s must be positive", param, fn))
	}
	return time.Duration(lit.Millis) * time.Millisecond, nil
}

// checkWindow checks the sizes of a window as Flink does.
func (p *planner) checkWindow(w *windowTVF, pos ddl.Pos, name string) error {
	s := w.spec
	switch s.Kind {
	case window.Hop, window.Cumulate:
		what := "slide"
		if s.Kind == window.Cumulate {
			what = "step"
		}
		if s.Size%s.Slide != 0 {
			return p.f.errorAt(pos, ErrType, nil, fmt.Sprintf("the size of a %s window (%s) must be a whole multiple of its %s (%s)",
				name, formatDuration(s.Size), what, formatDuration(s.Slide)))
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// legacyWindows maps the legacy group window functions (in GROUP BY) to
// their kinds, and legacyWindowParams their interval parameters in order.
var (
	legacyWindows      = map[string]window.Kind{"TUMBLE": window.Tumble, "HOP": window.Hop, "SESSION": window.Session}
	legacyWindowParams = map[window.Kind][]string{window.Tumble: {"SIZE", "OFFSET"}, window.Hop: {"SLIDE", "SIZE", "OFFSET"}, window.Session: {"GAP"}}
)

// legacyWindow reads GROUP BY item g when it is a legacy group window
// (TUMBLE(ts, INTERVAL '1' HOUR), HOP(ts, slide, size), SESSION(ts, gap))
// over in: the window, with the time attribute's column expression of each
// branch in times.
func (p *planner) legacyWindow(g ddl.Expr, in *relation, quals [][]string) (*windowTVF, []expr.Expr, error) {
	c, ok := g.(*ddl.Call)
	if !ok {
		return nil, nil, nil
	}
	kind, ok := legacyWindows[c.Name]
	if !ok {
		return nil, nil, nil
	}
	params := legacyWindowParams[kind]
	if len(c.Args) < len(params) || len(c.Args) > len(params)+1 {
		return nil, nil, p.f.errorAt(c.Pos, ErrType, nil, fmt.Sprintf("group window %s takes a time attribute and %s", c.Name, strings.Join(params, ", ")))
	}
	w := &windowTVF{pos: c.Pos, spec: window.Spec{Kind: kind, Time: -1}, timeCol: -1}
	var times []expr.Expr
	for _, b := range in.branches {
		e, err := (&lowerer{f: p.f, sc: branchScope(in, b, quals)}).lower(c.Args[0])
		if err != nil {
			return nil, nil, err
		}
		times = append(times, e)
	}
	rowtime, proc := p.timeAttribute(in.branches, times)
	if !rowtime && !proc {
		return nil, nil, p.f.errorAt(c.Args[0].Position(), ErrType, nil, fmt.Sprintf(
			"the first argument of group window %s is not a time attribute: use a rowtime attribute (the WATERMARK FOR column of a table) or a PROCTIME() column", c.Name))
	}
	w.proc = proc
	w.spec.TimeType = times[0].Type().NotNullable()
	if proc {
		w.spec.TimeType = types.TimestampLTZ(3).NotNullable()
	}
	for i, k := range params {
		if i+1 >= len(c.Args) {
			break
		}
		d, err := p.windowInterval(ddl.FuncArg{Pos: c.Args[i+1].Position(), Expr: c.Args[i+1]}, c.Name, k)
		if err != nil {
			return nil, nil, err
		}
		switch k {
		case "SIZE":
			w.spec.Size = d
		case "SLIDE":
			w.spec.Slide = d
		case "GAP":
			w.spec.Gap = d
		case "OFFSET":
			w.spec.Offset = d
		}
	}
	if err := p.checkWindow(w, c.Pos, c.Name); err != nil {
		return nil, nil, err
	}
	return w, times, nil
}

// legacyWindowColumn maps a legacy group window's auxiliary function
// (TUMBLE_START, HOP_END, SESSION_ROWTIME, ...) to the window column it
// reads: 0 window_start, 1 window_end, 2 window_time; -1 when c is none.
func legacyWindowColumn(c *ddl.Call, kind window.Kind) (int, error) {
	prefix, suffix, ok := strings.Cut(c.Name, "_")
	k, known := legacyWindows[prefix]
	if !ok || !known {
		return -1, nil
	}
	col := map[string]int{"START": 0, "END": 1, "ROWTIME": 2, "PROCTIME": 2}[suffix]
	if _, aux := map[string]bool{"START": true, "END": true, "ROWTIME": true, "PROCTIME": true}[suffix]; !aux {
		return -1, nil
	}
	if k != kind {
		return -1, fmt.Errorf("%s does not belong to the query's group window (%s)", c.Name, kind)
	}
	return col, nil
}

// windowTableFunction plans a window table function read as a table (not
// by a window aggregation, join or ranking): a WindowTableFunction node
// over in's input columns, whose output is those columns and the window's
// window_start, window_end and window_time, one row per window of each
// input row. The rows carry their windows on: a GROUP BY window_start,
// window_end over them is a window aggregation of those windows (Flink
// plans a Calc between a window table function and its aggregation so),
// and window_time is a rowtime attribute of event-time windows.
func (p *planner) windowTableFunction(in *relation) (*relation, error) {
	w := in.window
	if w.spec.Kind == window.Session {
		return nil, p.f.errorAt(w.pos, ddl.ErrUnsupported, nil,
			"reading a SESSION window table function other than by a window aggregation (GROUP BY window_start, window_end) is not supported yet")
	}
	ninput := len(in.names) - 3
	node := &Node{Kind: WindowTableFunction, Pos: w.pos, Names: slices.Clone(in.names), Types: slices.Clone(in.types)}
	spec := w.spec
	spec.Time = w.timeCol
	if w.proc {
		spec.Time = -1
	}
	if loc, err := p.plan.ExprOptions(); err == nil && loc.Location != nil {
		spec.Location = loc.Location
	}
	for _, b := range in.branches {
		fl := &Flow{Source: b.src, Unnest: b.unnest, Filter: and(b.filters), Names: in.names[:ninput]}
		fl.Projection = append(fl.Projection, b.cols[:ninput]...)
		if !w.proc && b.src.Table != nil {
			b.src.Watermark = b.src.watermark
		}
		if err := p.checkCompiles(fl, nil, w.pos); err != nil {
			return nil, err
		}
		fl.ReadFields, fl.ReadRows = readFields(fl)
		node.Inputs = append(node.Inputs, fl)
	}
	node.Window = &spec
	node.Describe = "WindowTableFunction(" + describeWindow(spec, w.proc) + ")"
	src := &Source{Pos: w.pos, Node: node, RowTypes: node.Types}
	if !w.proc {
		src.rowtime = expr.Col(ninput+2, "window_time", node.Types[ninput+2])
	}
	nb := &branch{src: src}
	for i, n := range in.names {
		nb.cols = append(nb.cols, expr.Col(i, n, in.types[i]))
	}
	return &relation{names: in.names, pos: in.pos, types: in.types, branches: []*branch{nb}, colQuals: in.colQuals}, nil
}
