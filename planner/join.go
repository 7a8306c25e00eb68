package planner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/internal/duration"
	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// This file plans joins: FROM a [INNER | LEFT | RIGHT | FULL] JOIN b ON
// ..., and comma joins whose conditions are in WHERE. A join is a node
// with two inputs, each a set of flows (one per branch of the input's
// relation) that compute the input's columns and, where an equi-join key
// is an expression or needs a cast, hidden key columns after them. The
// node's output row is the left input's row then the right input's; the
// join's relation reads it through a branch whose columns are those of
// both inputs, each qualified by the input it comes from.
//
// The ON condition (and, for inner joins, WHERE's conditions over the
// join's inputs) is split into conjuncts:
//
//   - left = right over one input each: an equi-join key (IS NOT DISTINCT
//     FROM: a key that matches NULL with NULL);
//   - over one input only: a filter of that input's flows, where that
//     keeps the join's meaning (any input of an inner join, the side an
//     outer join pads);
//   - equalities of both inputs' window_start and window_end (two window
//     table functions of the same window, or window aggregations): a
//     window join;
//   - bounds of one input's time attribute by the other's plus or minus
//     constant intervals, a lower and an upper one: an interval join;
//   - anything else: the residual condition, evaluated on each pair.
//
// What a regular join's output loses, as in Flink: its rows carry no time
// attribute (a rowtime column is a plain TIMESTAMP after it). An interval
// join keeps the left input's rowtime attribute, a window join the left
// input's window_time.

// JoinPlan configures a join node (Node.Join): the spec of its operator,
// one of Regular, Interval or Window by the node's kind.
type JoinPlan struct {
	Type     join.Type
	Regular  *join.Spec
	Interval *join.IntervalSpec
	Window   *join.WindowSpec
	Temporal *join.TemporalSpec
	Lookup   *LookupPlan
	// Condition is the residual condition over the node's two input rows
	// joined (the left input's columns, then the right's, window columns
	// of a window join side included); nil: none. The specs'
	// NewCondition evaluate it.
	Condition expr.Expr

	// keys describe the equi-join key for EXPLAIN ("l.id = r.id"), bounds
	// an interval join's time bounds.
	keys   []string
	bounds string
	// ttlHint[s] is set when side s's TTL comes from a STATE_TTL hint.
	ttlHint [2]bool
	// names and types describe the joined row (the left input's columns
	// then the right input's, padded ones nullable), which the condition
	// reads; the node's output is the joined row, or its left part for
	// SEMI and ANTI joins.
	names []string
	types []types.Type
	// leftWidth is the number of the left input's columns in the joined
	// row.
	leftWidth int
}

// side returns the operator's description of input s.
func (jp *JoinPlan) side(s int) *join.Side {
	switch {
	case jp.Regular != nil:
		return [2]*join.Side{&jp.Regular.Left, &jp.Regular.Right}[s]
	case jp.Interval != nil:
		return [2]*join.Side{&jp.Interval.Left, &jp.Interval.Right}[s]
	case jp.Temporal != nil:
		return [2]*join.Side{&jp.Temporal.Left, &jp.Temporal.Right}[s]
	case jp.Lookup != nil:
		return &jp.Lookup.sides[s]
	}
	return [2]*join.Side{&jp.Window.Left.Side, &jp.Window.Right.Side}[s]
}

func (jp *JoinPlan) keyTypes() []types.Type {
	switch {
	case jp.Regular != nil:
		return jp.Regular.KeyTypes
	case jp.Interval != nil:
		return jp.Interval.KeyTypes
	case jp.Temporal != nil:
		return jp.Temporal.KeyTypes
	case jp.Lookup != nil:
		return jp.Lookup.Spec.KeyTypes
	}
	return jp.Window.KeyTypes
}

func (jp *JoinPlan) inputKeys(in int) ([]int, []types.Type) {
	if in != 0 && in != 1 || jp.Lookup != nil {
		return nil, nil // a lookup join's rows stay in their task
	}
	keys := jp.side(in).Keys
	if len(keys) == 0 {
		return nil, nil
	}
	return keys, jp.keyTypes()
}

// assigns returns the window a window join assigns to the rows of input s
// (nil: none).
func (jp *JoinPlan) assigns(s int) *window.Spec {
	if jp.Window == nil {
		return nil
	}
	return [2]*window.Spec{jp.Window.Left.Assign, jp.Window.Right.Assign}[s]
}

// inputWidth returns the columns of the rows input s delivers (its
// flows' projections).
func (jp *JoinPlan) inputWidth(s int) int {
	n := len(jp.side(s).Types)
	if jp.assigns(s) != nil {
		n -= 3
	}
	return n
}

// offset returns the position of input s's first column in the node's
// output row.
func (jp *JoinPlan) offset(s int) int {
	if s == 0 {
		return 0
	}
	return len(jp.side(0).Types)
}

// joinTypeOf maps a join's keywords to its type.
func joinTypeOf(k ddl.JoinKind) join.Type {
	switch k {
	case ddl.JoinLeft:
		return join.Left
	case ddl.JoinRight:
		return join.Right
	case ddl.JoinFull:
		return join.Full
	}
	return join.Inner
}

// conjunct is one AND-ed term of a WHERE clause offered to the joins of
// its FROM: the lowest join whose inputs hold its columns takes it.
type conjunct struct {
	e    ddl.Expr
	used bool
}

// conjuncts splits e at its top-level ANDs.
func conjuncts(e ddl.Expr, out []ddl.Expr) []ddl.Expr {
	if b, ok := e.(*ddl.Binary); ok && b.Op == ddl.OpAnd {
		return conjuncts(b.Right, conjuncts(b.Left, out))
	}
	if e != nil {
		out = append(out, e)
	}
	return out
}

// andDDL joins conditions with AND again (nil for none).
func andDDL(list []ddl.Expr) ddl.Expr {
	var out ddl.Expr
	for _, e := range list {
		if out == nil {
			out = e
			continue
		}
		out = &ddl.Binary{Pos: e.Position(), Op: ddl.OpAnd, Left: out, Right: e}
	}
	return out
}

// fromJoin resolves q's FROM, a join, offering it WHERE's conjuncts: it
// returns the join's relation and q with the WHERE conjuncts no join took.
func (p *planner) fromJoin(q *ddl.Select, j *ddl.Join, depth int) (*relation, *ddl.Select, error) {
	hints, err := p.readQueryHints(q)
	if err != nil {
		return nil, nil, err
	}
	var where []*conjunct
	for _, c := range conjuncts(q.Where, nil) {
		where = append(where, &conjunct{e: c})
	}
	rel, err := p.joinRelation(j, depth, where, hints)
	if err != nil {
		return nil, nil, err
	}
	if hints != nil {
		for name, h := range hints.byName {
			if !h.used {
				return nil, nil, p.f.errorAt(h.pos, ErrType, nil, fmt.Sprintf(
					"the STATE_TTL hint's key '%s' names no input of a join of this query; it takes the names or aliases of a join's tables and views", name))
			}
		}
		for name, h := range hints.lookup {
			if !h.used {
				return nil, nil, p.f.errorAt(h.pos, ErrType, nil, fmt.Sprintf(
					"the LOOKUP hint's 'table' = '%s' names no lookup join of this query; it takes the name of the table a lookup join reads (FOR SYSTEM_TIME AS OF a processing-time attribute), or its alias when it has one, as in Flink", name))
			}
		}
	}
	var rest []ddl.Expr
	for _, c := range where {
		if !c.used {
			rest = append(rest, c.e)
		}
	}
	out := *q
	out.Where = andDDL(rest)
	return rel, &out, nil
}

// queryHints are the STATE_TTL and LOOKUP hints of a query, by input
// name.
type queryHints struct {
	byName map[string]*ttlHint
	lookup map[string]*lookupHint
}

type ttlHint struct {
	ttl  time.Duration
	pos  ddl.Pos
	used bool
}

// readQueryHints reads q's STATE_TTL and LOOKUP hints (nil when it has
// none).
func (p *planner) readQueryHints(q *ddl.Select) (*queryHints, error) {
	var out *queryHints
	for _, h := range q.Hints {
		if strings.EqualFold(h.Name, "LOOKUP") {
			lh, err := p.readLookupHint(h)
			if err != nil {
				return nil, err
			}
			if out == nil {
				out = &queryHints{byName: map[string]*ttlHint{}}
			}
			if out.lookup == nil {
				out.lookup = map[string]*lookupHint{}
			}
			out.lookup[lh.table] = lh
			continue
		}
		if !strings.EqualFold(h.Name, "STATE_TTL") {
			continue
		}
		if len(h.Options) == 0 {
			return nil, p.f.errorAt(h.Pos, ErrType, nil, "the STATE_TTL hint takes 'name' = 'duration' options, such as STATE_TTL('orders' = '1d')")
		}
		if out == nil {
			out = &queryHints{byName: map[string]*ttlHint{}}
		}
		for _, o := range h.Options {
			d, err := duration.Parse(o.Value)
			if err != nil || d < 0 {
				return nil, p.f.errorAt(o.ValuePos, ErrType, err, fmt.Sprintf("STATE_TTL('%s' = '%s'): not a duration such as '1d', '12 h' or '30 min'", o.Key, o.Value))
			}
			out.byName[o.Key] = &ttlHint{ttl: d, pos: o.KeyPos}
		}
	}
	return out, nil
}

// joinInput is an input of a join being planned.
type joinInput struct {
	rel *relation
	// pushed are filters over the input's relation row (conditions on
	// this input alone); hidden are key expressions over it, delivered
	// as columns after the relation's.
	pushed, hidden []expr.Expr
	// names are the names a STATE_TTL hint may give the input (its table
	// name or alias; none for a join).
	names []string
	// assign is the window table function the input reads, whose windows
	// a window join assigns.
	assign *windowTVF
	// asOf is the FOR SYSTEM_TIME AS OF expression of a versioned table
	// read by a temporal join (the right input), at asOfPos.
	asOf    ddl.Expr
	asOfPos ddl.Pos
}

// joinInput resolves ref as an input of a join, offering it where's
// conjuncts when it is a join itself.
func (p *planner) joinInputOf(ref ddl.TableRef, depth int, where []*conjunct, hints *queryHints) (*joinInput, error) {
	if j, ok := ref.(*ddl.Join); ok {
		rel, err := p.joinRelation(j, depth, where, hints)
		if err != nil {
			return nil, err
		}
		return &joinInput{rel: rel}, nil
	}
	var asOf ddl.Expr
	var asOfPos ddl.Pos
	if t, ok := ref.(*ddl.TableName); ok && t.SystemTime != nil {
		// A versioned table of a temporal join: the table itself, as of
		// the left input's time (refuseJoinRight let it through).
		plain := *t
		asOf, asOfPos, plain.SystemTime = t.SystemTime, t.SystemTimePos, nil
		ref = &plain
	}
	rel, quals, err := p.fromRelation(ref, depth)
	if err != nil {
		return nil, err
	}
	in := &joinInput{rel: rel, asOf: asOf, asOfPos: asOfPos}
	for _, q := range quals {
		in.names = append(in.names, joinDots(q))
	}
	if len(quals) > 0 {
		r := *rel
		r.colQuals = make([][][]string, len(rel.names))
		for i := range r.colQuals {
			r.colQuals[i] = quals
		}
		in.rel = &r
	}
	return in, nil
}

// colQualsOf returns the qualifiers of column i (nil: the relation's).
func (rel *relation) colQualsOf(i int) [][]string {
	if rel.colQuals == nil {
		return nil
	}
	return rel.colQuals[i]
}

// scope returns the scope of rel's columns as cols computes them (a
// branch's), qualified by quals or each column's own qualifiers.
func (rel *relation) scope(cols []expr.Expr, quals [][]string) *scope {
	sc := &scope{quals: quals}
	for i, n := range rel.names {
		sc.cols = append(sc.cols, scopeCol{name: n, e: cols[i], quals: rel.colQualsOf(i)})
	}
	return sc
}

// joinRelation plans join j, taking from where (WHERE's conjuncts, for an
// inner join or a join below inner joins) those over its inputs.
func (p *planner) joinRelation(j *ddl.Join, depth int, where []*conjunct, hints *queryHints) (*relation, error) {
	typ := joinTypeOf(j.Kind)
	// WHERE's conditions may go down an inner join's inputs, and an outer
	// join's preserved input, not the input it pads.
	var lw, rw []*conjunct
	switch typ {
	case join.Inner:
		lw, rw = where, where
	case join.Left:
		lw = where
	case join.Right:
		rw = where
	}
	left, err := p.joinInputOf(j.Left, depth, lw, hints)
	if err != nil {
		return nil, err
	}
	right, err := p.joinInputOf(j.Right, depth, rw, hints)
	if err != nil {
		return nil, err
	}
	ins := [2]*joinInput{left, right}
	nl := len(left.rel.names)
	if left.asOf != nil {
		return nil, p.f.errorAt(left.asOfPos, ddl.ErrUnsupported, nil, "FOR SYSTEM_TIME AS OF on the left input of a join is not supported: the versioned table of a temporal join is its right input")
	}
	// The scope of both inputs' columns: the join's relation row, left
	// then right.
	sc := &scope{}
	for s, in := range ins {
		for i, n := range in.rel.names {
			sc.cols = append(sc.cols, scopeCol{name: n, e: expr.Col(s*nl+i, n, in.rel.types[i]), quals: in.rel.colQualsOf(i)})
		}
	}
	l := &lowerer{f: p.f, sc: sc}
	var conds, whereConds []expr.Expr
	if j.Kind == ddl.JoinCross && j.On != nil {
		return nil, p.f.errorAt(j.On.Position(), ErrType, nil, "CROSS JOIN takes no ON condition")
	}
	for _, c := range conjuncts(j.On, nil) {
		e, err := l.lowerCondition(c)
		if err != nil {
			return nil, err
		}
		conds = append(conds, e)
	}
	var using []ddl.Ident
	var usingL, usingR []int
	if len(j.Using) > 0 || j.Natural {
		if using, err = p.usingColumns(j, left.rel, right.rel); err != nil {
			return nil, err
		}
		var eqs []expr.Expr
		if eqs, usingL, usingR, err = p.usingConds(j, using, left.rel, right.rel); err != nil {
			return nil, err
		}
		conds = append(conds, eqs...)
	}
	for _, c := range where {
		if c.used {
			continue
		}
		e, err := l.lowerCondition(c.e)
		if err != nil {
			continue // not over this join's inputs: the query above reports it
		}
		lr, rr := refSides(e, nl)
		if typ == join.Inner && (lr || rr) || typ == join.Left && lr && !rr || typ == join.Right && rr && !lr {
			c.used = true
			whereConds = append(whereConds, e)
		}
	}
	jb := &joinBuilder{p: p, j: j, typ: typ, ins: ins, nl: nl, temporal: right.asOf != nil}
	if jb.temporal {
		if jb.asOf, err = l.lower(right.asOf); err != nil {
			return nil, err
		}
	}
	if err := jb.classify(conds, false); err != nil {
		return nil, err
	}
	if err := jb.classify(whereConds, true); err != nil {
		return nil, err
	}
	rel, err := jb.build(hints)
	if err != nil || len(using) == 0 {
		return rel, err
	}
	return p.usingRelation(rel, nl, using, usingL, usingR)
}

// refSides reports whether e refers to columns of the left input (below
// nl) and of the right one.
func refSides(e expr.Expr, nl int) (left, right bool) {
	walkCols(e, func(c *expr.ColumnRef) {
		if c.Index < nl {
			left = true
		} else {
			right = true
		}
	})
	return left, right
}

// walkCols calls fn with each column reference of e.
func walkCols(e expr.Expr, fn func(*expr.ColumnRef)) {
	switch n := e.(type) {
	case *expr.ColumnRef:
		fn(n)
	case *expr.Call:
		for _, a := range n.Args {
			walkCols(a, fn)
		}
	case *expr.Cast:
		walkCols(n.Expr, fn)
	case *expr.Case:
		if n.Operand != nil {
			walkCols(n.Operand, fn)
		}
		for _, w := range n.Whens {
			walkCols(w.Cond, fn)
			walkCols(w.Result, fn)
		}
		if n.Else != nil {
			walkCols(n.Else, fn)
		}
	}
}

// mapCols returns e with each column reference replaced by fn's result,
// resolved again (the replacements may have other types).
func mapCols(e expr.Expr, fn func(*expr.ColumnRef) expr.Expr) (expr.Expr, error) {
	var rebuild func(e expr.Expr) expr.Expr
	rebuild = func(e expr.Expr) expr.Expr {
		switch n := e.(type) {
		case *expr.ColumnRef:
			return fn(n)
		case *expr.Call:
			c := &expr.Call{Name: n.Name, Unit: n.Unit, Returning: n.Returning, Args: make([]expr.Expr, len(n.Args))}
			for i, a := range n.Args {
				c.Args[i] = rebuild(a)
			}
			return c
		case *expr.Cast:
			return &expr.Cast{Expr: rebuild(n.Expr), Target: n.Target, Try: n.Try}
		case *expr.Case:
			c := &expr.Case{Whens: make([]expr.When, len(n.Whens))}
			if n.Operand != nil {
				c.Operand = rebuild(n.Operand)
			}
			for i, w := range n.Whens {
				c.Whens[i] = expr.When{Cond: rebuild(w.Cond), Result: rebuild(w.Result)}
			}
			if n.Else != nil {
				c.Else = rebuild(n.Else)
			}
			return c
		}
		return e
	}
	return expr.Resolve(rebuild(e))
}

// joinBuilder plans one join from its inputs and conditions.
type joinBuilder struct {
	p   *planner
	j   *ddl.Join
	typ join.Type
	ins [2]*joinInput
	nl  int

	// keys are the equi-join key's pairs: expressions over each input's
	// relation row; nullSafe marks IS NOT DISTINCT FROM.
	keys     [][2]expr.Expr
	nullSafe []bool
	// windows are the pairs of window_start and window_end equalities;
	// residual the other conditions over both inputs (over the join's
	// relation row).
	windows  [][2]expr.Expr
	residual []expr.Expr
	// temporal is set for a temporal join, asOf its FOR SYSTEM_TIME AS
	// OF expression over the join's relation row.
	temporal bool
	asOf     expr.Expr
}

// classify sorts the join's conditions (over its relation row) into keys,
// input filters and the residual condition. A condition of ON on one input
// filters that input when the join does not pad it (it decides matches,
// not which rows of the preserved input appear); one of WHERE filters it
// always (joinRelation takes only those that may).
func (jb *joinBuilder) classify(conds []expr.Expr, where bool) error {
	for _, e := range conds {
		lr, rr := refSides(e, jb.nl)
		switch {
		case lr && !rr && (where || jb.typ == join.Inner || jb.typ == join.Right):
			jb.ins[0].pushed = append(jb.ins[0].pushed, e)
			continue
		case rr && !lr && !jb.temporal && (where || jb.typ == join.Inner || jb.typ == join.Left || jb.typ.SemiOrAnti()):
			// (A condition on a versioned table's rows decides which
			// version matches; filtering its versions would make an older
			// one valid longer.)
			s, err := jb.shift(e)
			if err != nil {
				return err
			}
			jb.ins[1].pushed = append(jb.ins[1].pushed, s)
			continue
		case !lr && !rr:
			if lit, ok := e.(*expr.Literal); ok && !lit.Val.IsNull() && lit.Typ.Kind == types.KindBoolean && lit.Val.Bool() {
				continue // ON TRUE
			}
		}
		if c, ok := e.(*expr.Call); ok && len(c.Args) == 2 && (c.Name == "=" || c.Name == "IS NOT DISTINCT FROM") {
			a, b := c.Args[0], c.Args[1]
			al, ar := refSides(a, jb.nl)
			bl, br := refSides(b, jb.nl)
			if al && !ar && br && !bl || ar && !al && bl && !br {
				if ar {
					a, b = b, a
				}
				rb, err := jb.shift(b)
				if err != nil {
					return err
				}
				jb.keys = append(jb.keys, [2]expr.Expr{unwrapCast(a), unwrapCast(rb)})
				jb.nullSafe = append(jb.nullSafe, c.Name != "=")
				continue
			}
		}
		jb.residual = append(jb.residual, e)
	}
	return nil
}

// unwrapCast returns the operand of an implicit widening cast the
// resolver put on one side of an equality (the key gets the common type
// anyway).
func unwrapCast(e expr.Expr) expr.Expr {
	if c, ok := e.(*expr.Cast); ok && !c.Try {
		return c.Expr
	}
	return e
}

// shift maps an expression over the join's relation row that reads only
// the right input onto the right input's row.
func (jb *joinBuilder) shift(e expr.Expr) (expr.Expr, error) {
	return mapCols(e, func(c *expr.ColumnRef) expr.Expr {
		return expr.Col(c.Index-jb.nl, c.Name, c.Typ)
	})
}

// windowColumn reports which window column (0: window_start, 1:
// window_end, 2: window_time) column i of input in is, if it is one, and
// the window it belongs to: a window table function's column the join
// would compute, or a window aggregation's output column.
func (jb *joinBuilder) windowColumn(in, i int) (int, *window.Spec, bool) {
	rel := jb.ins[in].rel
	if rel.window != nil {
		n := len(rel.names) - 3
		if i >= n {
			spec := rel.window.spec
			if rel.window.proc {
				spec.Time = -1
			} else {
				spec.Time = rel.window.timeCol
			}
			return i - n, &spec, true
		}
		return 0, nil, false
	}
	return windowAggColumn(rel, i)
}

// sameWindow reports whether two windows are the same windows.
func sameWindow(a, b *window.Spec) bool {
	return a.Kind == b.Kind && a.Size == b.Size && a.Slide == b.Slide && a.Gap == b.Gap && a.Offset == b.Offset &&
		a.TimeType.Kind == b.TimeType.Kind && a.Time < 0 == (b.Time < 0)
}

// findWindowJoin moves the keys that equate both inputs' window_start and
// window_end into jb.windows, when there are such pairs of the same
// window; it returns the window.
func (jb *joinBuilder) findWindowJoin() (*window.Spec, error) {
	var found [2]bool
	var win *window.Spec
	var keep []int
	for k, pair := range jb.keys {
		lc, lok := pair[0].(*expr.ColumnRef)
		rc, rok := pair[1].(*expr.ColumnRef)
		if lok && rok && !jb.nullSafe[k] {
			lk, lw, l := jb.windowColumn(0, lc.Index)
			rk, rw, r := jb.windowColumn(1, rc.Index)
			if l && r && lk == rk && lk < 2 {
				if !sameWindow(lw, rw) {
					return nil, jb.p.f.errorAt(jb.j.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
						"a window join of two different windows (%s and %s) is not supported: a window join needs the same window on both inputs", describeWindow(*lw, lw.Time < 0), describeWindow(*rw, rw.Time < 0)))
				}
				found[lk], win = true, lw
				jb.windows = append(jb.windows, pair)
				continue
			}
		}
		keep = append(keep, k)
	}
	if !found[0] || !found[1] {
		jb.windows = nil
		return nil, nil
	}
	var keys [][2]expr.Expr
	var ns []bool
	for _, k := range keep {
		keys, ns = append(keys, jb.keys[k]), append(ns, jb.nullSafe[k])
	}
	jb.keys, jb.nullSafe = keys, ns
	return win, nil
}

// timeAttr reports whether column i of input in is a time attribute of
// every branch: rowtime or processing time.
func (jb *joinBuilder) timeAttr(in, i int) (rowtime, proc bool) {
	rel := jb.ins[in].rel
	if i >= len(rel.names) {
		return false, false
	}
	cols := make([]expr.Expr, len(rel.branches))
	for bi, b := range rel.branches {
		cols[bi] = b.cols[i]
	}
	return jb.p.timeAttribute(rel.branches, cols)
}

// timeOffset reads e as a column plus a constant day-time interval:
// col, TIMESTAMPADD(unit, n, col) nested.
func timeOffset(e expr.Expr) (*expr.ColumnRef, int64, bool) {
	switch n := e.(type) {
	case *expr.ColumnRef:
		return n, 0, true
	case *expr.Cast:
		if !n.Try && n.Target.IsTimestamp() && n.Expr.Type().IsTimestamp() {
			return timeOffset(n.Expr)
		}
	case *expr.Call:
		if n.Name != "TIMESTAMPADD" || len(n.Args) != 2 {
			return nil, 0, false
		}
		lit, ok := n.Args[0].(*expr.Literal)
		if !ok || lit.Val.IsNull() || !lit.Typ.IsInteger() {
			return nil, 0, false
		}
		ms := map[expr.TimeUnit]int64{expr.UnitWeek: 7 * 86_400_000, expr.UnitDay: 86_400_000, expr.UnitHour: 3_600_000,
			expr.UnitMinute: 60_000, expr.UnitSecond: 1000, expr.UnitMillisecond: 1}[n.Unit]
		if ms == 0 {
			return nil, 0, false
		}
		c, off, ok := timeOffset(n.Args[1])
		return c, off + lit.Val.Int64()*ms, ok
	}
	return nil, 0, false
}

// intervalBounds looks in the residual conditions for bounds of the left
// input's time attribute by the right's: a lower and an upper one make an
// interval join. It returns the bounds of l.t - r.t, the time columns and
// whether they are processing-time attributes; the bound conditions leave
// the residual.
func (jb *joinBuilder) intervalBounds() (lower, upper int64, lt, rt int, proc, ok bool) {
	lt, rt = -1, -1
	var hasLower, hasUpper bool
	var rest []expr.Expr
	for _, e := range jb.residual {
		var cmps [][3]any // op, a, b
		if c, isCall := e.(*expr.Call); isCall {
			switch {
			case c.Name == "BETWEEN" && len(c.Args) == 3:
				cmps = [][3]any{{">=", c.Args[0], c.Args[1]}, {"<=", c.Args[0], c.Args[2]}}
			case len(c.Args) == 2 && (c.Name == ">=" || c.Name == ">" || c.Name == "<=" || c.Name == "<"):
				cmps = [][3]any{{c.Name, c.Args[0], c.Args[1]}}
			}
		}
		took := len(cmps) > 0
		for _, cmp := range cmps {
			op := cmp[0].(string)
			a, aoff, aok := timeOffset(cmp[1].(expr.Expr))
			b, boff, bok := timeOffset(cmp[2].(expr.Expr))
			if !aok || !bok {
				took = false
				break
			}
			// a + aoff op b + boff, with a and b of different inputs.
			if a.Index >= jb.nl && b.Index < jb.nl {
				a, b, aoff, boff = b, a, boff, aoff
				op = map[string]string{">=": "<=", ">": "<", "<=": ">=", "<": ">"}[op]
			}
			if a.Index >= jb.nl || b.Index < jb.nl {
				took = false
				break
			}
			ar, ap := jb.timeAttr(0, a.Index)
			br, bp := jb.timeAttr(1, b.Index-jb.nl)
			if !(ar && br || ap && bp) || lt >= 0 && (lt != a.Index || rt != b.Index-jb.nl) {
				took = false
				break
			}
			lt, rt, proc = a.Index, b.Index-jb.nl, ap && bp
			// l.t - r.t op boff - aoff
			d := boff - aoff
			switch op {
			case ">=":
				lower, hasLower = maxIf(hasLower, lower, d), true
			case ">":
				lower, hasLower = maxIf(hasLower, lower, d+1), true
			case "<=":
				upper, hasUpper = minIf(hasUpper, upper, d), true
			case "<":
				upper, hasUpper = minIf(hasUpper, upper, d-1), true
			}
		}
		if !took {
			rest = append(rest, e)
		}
	}
	if !hasLower || !hasUpper {
		return 0, 0, -1, -1, false, false
	}
	jb.residual = rest
	return lower, upper, lt, rt, proc, true
}

// pruneBound looks for what bounds an INNER join's left rows when its
// right input is a window aggregation (Nexmark q7): a conjunct of the
// residual condition that bounds a right window column from above by a
// left timestamp column plus a constant (l.t >= r.window_end - 10 s). A
// window aggregation emits a window's rows only once its watermark
// reaches the window's end − 1 ms and drops late rows, so once the join's
// watermark is W no right row still to come has a window_end at or below
// W + 1 ms; a left row whose window_end bound t + bound is at or below W
// matches none of them. It returns the left column and bound (window_end
// <= t + bound, in milliseconds). Only with every right row from such a
// window (over event time, a TIMESTAMP rowtime: window_end is in the
// watermark's milliseconds) and no idle timeout (an idle channel leaves
// the task's watermark to the others, and a window task that resumes may
// fire windows below it).
func (jb *joinBuilder) pruneBound() (lt int, bound int64, ok bool) {
	if jb.typ != join.Inner || jb.p.plan.IdleTimeout != 0 {
		return 0, 0, false
	}
	rel := jb.ins[1].rel
	if rel.window != nil || len(rel.branches) == 0 {
		return 0, 0, false
	}
	for _, b := range rel.branches {
		n := b.src.Node
		if n == nil || n.Kind != WindowAggregate || n.Window == nil || n.Window.Time < 0 || n.Window.Attached ||
			n.Window.Kind == window.Session || n.Window.TimeType.Kind != types.KindTimestamp {
			return 0, 0, false
		}
	}
	for _, e := range jb.residual {
		c, isCall := e.(*expr.Call)
		if !isCall {
			continue
		}
		var cmps [][3]expr.Expr // a op b as (op marker, a, b): a >= b or a > b
		switch {
		case c.Name == "BETWEEN" && len(c.Args) == 3:
			cmps = [][3]expr.Expr{{nil, c.Args[0], c.Args[1]}, {nil, c.Args[2], c.Args[0]}}
		case len(c.Args) == 2 && (c.Name == ">=" || c.Name == ">"):
			cmps = [][3]expr.Expr{{c, c.Args[0], c.Args[1]}}
		case len(c.Args) == 2 && (c.Name == "<=" || c.Name == "<"):
			cmps = [][3]expr.Expr{{c, c.Args[1], c.Args[0]}}
		}
		for _, cmp := range cmps {
			// cmp[1] >= cmp[2] (strictly, for > and <).
			strict := cmp[0] != nil && (c.Name == ">" || c.Name == "<")
			a, aoff, aok := timeOffset(cmp[1])
			b, boff, bok := timeOffset(cmp[2])
			if !aok || !bok || a.Index >= jb.nl || b.Index < jb.nl ||
				a.Typ.Kind != types.KindTimestamp || b.Typ.Kind != types.KindTimestamp ||
				cmp[1].Type().Kind != types.KindTimestamp || cmp[2].Type().Kind != types.KindTimestamp {
				continue
			}
			k, ws, isWin := windowAggColumn(rel, b.Index-jb.nl)
			if !isWin {
				continue
			}
			// l.t + aoff >= w + boff: w <= l.t + aoff - boff.
			d := aoff - boff
			if strict {
				d--
			}
			switch k {
			case 0: // window_start: window_end <= window_start + Size
				d += ws.Size.Milliseconds()
			case 2: // window_time = window_end - 1 ms
				d++
			}
			if !ok || d < bound {
				lt, bound, ok = a.Index, d, true
			}
		}
	}
	return lt, bound, ok
}

func maxIf(has bool, cur, d int64) int64 {
	if has {
		return max(cur, d)
	}
	return d
}

func minIf(has bool, cur, d int64) int64 {
	if has {
		return min(cur, d)
	}
	return d
}

// build makes the join's node and the relation that reads it.
func (jb *joinBuilder) build(hints *queryHints) (*relation, error) {
	p := jb.p
	win, err := jb.findWindowJoin()
	if err != nil {
		return nil, err
	}
	kind := Join
	var lower, upper int64
	var lt, rt int
	var proc bool
	var tlt, trt int
	switch {
	case jb.temporal && jb.procAsOf():
		return jb.buildLookup(hints)
	case jb.temporal:
		kind = TemporalJoin
		var err error
		if tlt, trt, err = jb.temporalTimes(); err != nil {
			return nil, err
		}
	case win != nil:
		kind = WindowJoin
		if win.Time < 0 {
			return nil, p.f.errorAt(jb.j.Pos, ddl.ErrUnsupported, nil, "a window join over processing time is not supported (Flink supports event-time window joins only)")
		}
		if win.Kind == window.Session {
			return nil, p.f.errorAt(jb.j.Pos, ddl.ErrUnsupported, nil, "a window join of SESSION windows is not supported yet")
		}
	case jb.typ.SemiOrAnti():
		// (A semi or anti join bounded in time is a regular one here.)
	default:
		var ok bool
		if lower, upper, lt, rt, proc, ok = jb.intervalBounds(); ok {
			kind = IntervalJoin
			if lower > upper {
				return nil, p.f.errorAt(jb.j.Pos, ErrType, nil, fmt.Sprintf(
					"the time bounds of the join leave no pair: l.t - r.t must be at least %s and at most %s", formatDuration(time.Duration(lower)*time.Millisecond), formatDuration(time.Duration(upper)*time.Millisecond)))
			}
		}
	}
	for _, in := range jb.ins {
		if in.rel.window != nil {
			if kind != WindowJoin {
				return nil, p.f.errorAt(in.rel.window.pos, ddl.ErrUnsupported, nil,
					"joining a window table function other than by a window join (ON both inputs' window_start and window_end being equal, of the same window) is not supported yet")
			}
			in.assign = in.rel.window
		}
	}
	// The key: each pair cast to a common type; a key that is not a
	// column of its input of that type is a hidden column.
	var keyTypes []types.Type
	var keyCols [2][]int
	for k, pair := range jb.keys {
		t, ok := commonType(pair[0].Type(), pair[1].Type())
		if !ok {
			return nil, p.f.errorAt(jb.j.Pos, ErrType, nil, fmt.Sprintf("the join key %s = %s compares %s with %s, which have no common type",
				pair[0], pair[1], pair[0].Type(), pair[1].Type()))
		}
		t = t.Nullable()
		keyTypes = append(keyTypes, t)
		for s, e := range pair {
			in := jb.ins[s]
			if c, isCol := e.(*expr.ColumnRef); isCol && c.Typ.Nullable().Equal(t) && (in.assign == nil || c.Index < len(in.rel.names)-3) {
				keyCols[s] = append(keyCols[s], c.Index)
				continue
			}
			ce, err := expr.AssignTo(e, t)
			if err != nil {
				if ce, err = expr.Resolve(expr.CastTo(e, t)); err != nil {
					return nil, p.f.errorAt(jb.j.Pos, ErrType, err, fmt.Sprintf("the join key %s cannot be compared as %s: %v", e, t, err))
				}
			}
			keyCols[s] = append(keyCols[s], jb.width(s)+len(in.hidden))
			in.hidden = append(in.hidden, ce)
		}
		jb.keys[k] = pair
	}
	// The inputs' flows.
	node := &Node{Kind: kind, Pos: jb.j.Pos}
	var widths [2]int
	for s := range jb.ins {
		w, err := jb.flows(node, s)
		if err != nil {
			return nil, err
		}
		widths[s] = w
	}
	jp := &JoinPlan{Type: jb.typ}
	var sides [2]join.Side
	for s, in := range jb.ins {
		sd := join.Side{Keys: keyCols[s], TTL: p.plan.StateTTL}
		fl := node.Inputs[slices.IndexFunc(node.Inputs, func(f *Flow) bool { return f.Input == s })]
		for _, e := range fl.Projection {
			sd.Types = append(sd.Types, e.Type())
		}
		if in.assign != nil {
			sd.Types = append(sd.Types, in.rel.types[len(in.rel.names)-3:]...)
		}
		if hints != nil {
			for _, n := range in.names {
				if h := hints.byName[n]; h != nil {
					sd.TTL, h.used, jp.ttlHint[s] = h.ttl, true, true
				}
			}
		}
		sides[s] = sd
	}
	// The joined row: the left input's columns then the right input's.
	for s := range jb.ins {
		fl := node.Inputs[slices.IndexFunc(node.Inputs, func(f *Flow) bool { return f.Input == s })]
		names := slices.Clone(fl.Names)
		if jb.ins[s].assign != nil {
			names = append(names, windowColumns...)
		}
		padded := s == 0 && jb.typ.RightOuter() || s == 1 && jb.typ.LeftOuter()
		for i, t := range sides[s].Types {
			if padded {
				t = t.Nullable()
			}
			jp.names = append(jp.names, uniqueName(jp.names, names[i]))
			jp.types = append(jp.types, t)
		}
	}
	jp.leftWidth = len(sides[0].Types)
	node.Names, node.Types = jp.output()
	nodeCol := func(relCol int) int {
		s, i := 0, relCol
		if relCol >= jb.nl {
			s, i = 1, relCol-jb.nl
		}
		off := 0
		if s == 1 {
			off = len(sides[0].Types)
		}
		if in := jb.ins[s]; in.assign != nil && i >= len(in.rel.names)-3 {
			// A window column the join appends after the input's row.
			return off + len(sides[s].Types) - 3 + (i - (len(in.rel.names) - 3))
		}
		return off + i
	}
	if len(jb.residual) > 0 {
		var sideTypes []types.Type
		for s := range sides {
			sideTypes = append(sideTypes, sides[s].Types...)
		}
		cond, err := mapCols(and(jb.residual), func(c *expr.ColumnRef) expr.Expr {
			i := nodeCol(c.Index)
			return expr.Col(i, jp.names[i], sideTypes[i])
		})
		if err != nil {
			return nil, p.f.errorAt(jb.j.Pos, ErrType, err, err.Error())
		}
		jp.Condition = cond
	}
	for k, pair := range jb.keys {
		jp.keys = append(jp.keys, fmt.Sprintf("%s %s %s", jb.describe(pair[0], 0), map[bool]string{false: "=", true: "IS NOT DISTINCT FROM"}[jb.nullSafe[k]], jb.describe(pair[1], 1)))
	}
	var ns []bool
	if slices.Contains(jb.nullSafe, true) {
		ns = jb.nullSafe
	}
	switch kind {
	case Join:
		jp.Regular = &join.Spec{Type: jb.typ, Left: sides[0], Right: sides[1], KeyTypes: keyTypes, NullSafe: ns}
		if lt, bound, ok := jb.pruneBound(); ok && sides[0].TTL == 0 {
			jp.Regular.Prune = &join.Prune{Time: lt, Bound: time.Duration(bound) * time.Millisecond}
		}
	case IntervalJoin:
		sides[0].TTL, sides[1].TTL = 0, 0
		jp.Interval = &join.IntervalSpec{Type: jb.typ, Left: sides[0], Right: sides[1], KeyTypes: keyTypes, NullSafe: ns,
			LeftTime: lt, RightTime: rt, Lower: time.Duration(lower) * time.Millisecond, Upper: time.Duration(upper) * time.Millisecond, ProcTime: proc}
		if proc {
			jp.Interval.LeftTime, jp.Interval.RightTime = -1, -1
		}
		r := jb.describe(jb.relCol(1, rt), 1)
		jp.bounds = fmt.Sprintf("%s BETWEEN %s AND %s", jb.describe(jb.relCol(0, lt), 0), plusMillis(r, lower), plusMillis(r, upper))
		if proc {
			jp.bounds += " (processing time)"
		}
	case TemporalJoin:
		jp.Temporal = &join.TemporalSpec{Type: jb.typ, Left: sides[0], Right: sides[1], KeyTypes: keyTypes, NullSafe: ns, LeftTime: tlt, RightTime: trt}
		jp.bounds = fmt.Sprintf("FOR SYSTEM_TIME AS OF %s", jb.describe(jb.relCol(0, tlt), 0))
	case WindowJoin:
		sides[0].TTL, sides[1].TTL = 0, 0
		ws := &join.WindowSpec{Type: jb.typ, KeyTypes: keyTypes, NullSafe: ns}
		for s, in := range jb.ins {
			wsd := join.WindowSide{Side: sides[s], WindowEnd: -1}
			if in.assign != nil {
				a := in.assign.spec
				a.Time = in.assign.timeCol
				wsd.Assign = &a
			} else {
				for _, pair := range jb.windows {
					c := pair[s].(*expr.ColumnRef)
					if k, _, _ := jb.windowColumn(s, c.Index); k == 1 {
						wsd.WindowEnd = c.Index
					}
				}
			}
			if s == 0 {
				ws.Left = wsd
			} else {
				ws.Right = wsd
			}
		}
		if win.TimeType.Kind == types.KindTimestampLTZ {
			if loc, err := p.plan.ExprOptions(); err == nil && loc.Location != nil {
				ws.Location = loc.Location
				for _, a := range []*window.Spec{ws.Left.Assign, ws.Right.Assign} {
					if a != nil {
						a.Location = loc.Location
					}
				}
			}
		}
		jp.Window = ws
		jp.bounds = describeWindow(*win, false)
	}
	if err := jp.compile(jb.p.exprOptions()); err != nil {
		return nil, p.f.errorAt(jb.j.Pos, ErrType, err, err.Error())
	}
	node.Join = jp
	node.Describe = describeJoin(node)

	// The relation over the node's output: both inputs' columns (the
	// left one's of SEMI and ANTI joins).
	out := &relation{}
	src := &Source{Pos: jb.j.Pos, Node: node, RowTypes: node.Types}
	b := &branch{src: src}
	for s, in := range jb.ins {
		if s == 1 && jb.typ.SemiOrAnti() {
			break
		}
		padded := s == 0 && jb.typ.RightOuter() || s == 1 && jb.typ.LeftOuter()
		for i, n := range in.rel.names {
			t := in.rel.types[i]
			if padded {
				t = t.Nullable()
			}
			out.names = append(out.names, n)
			out.types = append(out.types, t)
			out.pos = append(out.pos, in.rel.pos[i])
			out.colQuals = append(out.colQuals, in.rel.colQualsOf(i))
			nc := nodeCol(s*jb.nl + i)
			b.cols = append(b.cols, expr.Col(nc, node.Names[nc], node.Types[nc]))
			if kind == WindowJoin && !padded {
				if k, _, ok := jb.windowColumn(s, i); ok {
					if node.windowCols == nil {
						node.windowCols = slices.Repeat([]int{-1}, len(node.Names))
						ws := *win
						node.windowSpec = &ws
					}
					node.windowCols[nc] = k
				}
			}
		}
	}
	// Time attributes: an interval join keeps the left input's rowtime, a
	// window join its window_time; a regular join none.
	switch {
	case kind == IntervalJoin && !proc:
		src.rowtime = b.cols[lt]
	case kind == TemporalJoin:
		src.rowtime = b.cols[tlt]
	case kind == WindowJoin && jb.ins[0].assign != nil && !jb.typ.RightOuter():
		src.rowtime = b.cols[jb.nl-1]
	}
	out.branches = []*branch{b}
	return out, nil
}

// width returns the columns input s's flows deliver before hidden ones
// (a window join input that assigns windows has no window columns).
func (jb *joinBuilder) width(s int) int {
	in := jb.ins[s]
	n := len(in.rel.names)
	if in.rel.window != nil {
		n -= 3
	}
	return n
}

// relCol returns column i of input s as a column of the join's relation
// row, for descriptions.
func (jb *joinBuilder) relCol(s, i int) expr.Expr {
	rel := jb.ins[s].rel
	return expr.Col(i, rel.names[i], rel.types[i])
}

// describe renders an expression over input s's relation row, its
// columns qualified by the input's name.
func (jb *joinBuilder) describe(e expr.Expr, s int) string {
	in := jb.ins[s]
	q := ""
	if len(in.names) > 0 {
		q = in.names[0] + "."
	}
	if c, ok := e.(*expr.ColumnRef); ok {
		return q + c.Name
	}
	return e.String()
}

// flows adds input s's flows (one per branch of its relation) to node and
// returns their width before hidden columns.
func (jb *joinBuilder) flows(node *Node, s int) (int, error) {
	p := jb.p
	in := jb.ins[s]
	w := jb.width(s)
	for _, b := range in.rel.branches {
		bs := branchScope(in.rel, b, nil)
		cols := make([]expr.Expr, len(bs.cols))
		for i, c := range bs.cols {
			cols[i] = c.e
		}
		onBranch := func(e expr.Expr) (expr.Expr, error) {
			var win *expr.ColumnRef
			out, err := mapCols(e, func(c *expr.ColumnRef) expr.Expr {
				if wc, ok := cols[c.Index].(*expr.ColumnRef); ok && wc.Index < 0 {
					win = wc
				}
				return cols[c.Index]
			})
			if win != nil {
				return nil, p.f.errorAt(jb.j.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
					"a join key or a condition on one input over %s of a window table function is not supported yet; only window_start and window_end equalities of both inputs are", win.Name))
			}
			return out, err
		}
		fl := &Flow{Source: b.src, Unnest: b.unnest, Input: s}
		filters := slices.Clone(b.filters)
		for _, f := range in.pushed {
			e, err := onBranch(f)
			if err != nil {
				return 0, p.f.errorAt(jb.j.Pos, ErrType, err, err.Error())
			}
			filters = append(filters, e)
		}
		fl.Filter = and(filters)
		for i := range w {
			fl.Projection = append(fl.Projection, cols[i])
			fl.Names = append(fl.Names, in.rel.names[i])
		}
		for h, e := range in.hidden {
			be, err := onBranch(e)
			if err != nil {
				return 0, p.f.errorAt(jb.j.Pos, ErrType, err, err.Error())
			}
			fl.Projection = append(fl.Projection, be)
			fl.Names = append(fl.Names, fmt.Sprintf("$key%d", h))
		}
		if in.assign != nil || node.Kind != Join && node.Kind != LookupJoin {
			// Event time: the tables read give watermarks.
			if src := b.src; src.Table != nil && src.watermark != nil {
				src.Watermark = src.watermark
			}
		}
		if err := p.checkCompiles(fl, nil, jb.j.Pos); err != nil {
			return 0, err
		}
		fl.ReadFields, fl.ReadRows = readFields(fl)
		node.Inputs = append(node.Inputs, fl)
	}
	return w, nil
}

// compile compiles the residual condition into the spec's NewCondition.
func (jp *JoinPlan) compile(opts expr.Options) error {
	if jp.Lookup != nil {
		jp.Lookup.Spec.Keys = jp.Lookup.sides[0].Keys
	}
	if jp.Condition == nil {
		return nil
	}
	f, err := expr.CompileFilter(jp.Condition, opts)
	if err != nil {
		return fmt.Errorf("the join condition %s: %w", jp.Condition, err)
	}
	nc := func() join.Condition { return f.Keep }
	switch {
	case jp.Regular != nil:
		jp.Regular.NewCondition = nc
		read := make([]bool, len(jp.Regular.Left.Types)+len(jp.Regular.Right.Types))
		markRefs(jp.Condition, read)
		jp.Regular.ConditionColumns = []int{}
		for c, ok := range read {
			if ok {
				jp.Regular.ConditionColumns = append(jp.Regular.ConditionColumns, c)
			}
		}
	case jp.Interval != nil:
		jp.Interval.NewCondition = nc
	case jp.Window != nil:
		jp.Window.NewCondition = nc
	case jp.Temporal != nil:
		jp.Temporal.NewCondition = nc
	case jp.Lookup != nil:
		jp.Lookup.Spec.NewCondition = func() func(row []types.Value) (bool, error) { return f.Keep }
	}
	return nil
}

// plusMillis renders col plus ms milliseconds: "s.ts - 4 h".
func plusMillis(col string, ms int64) string {
	switch {
	case ms < 0:
		return col + " - " + formatDuration(time.Duration(-ms)*time.Millisecond)
	case ms > 0:
		return col + " + " + formatDuration(time.Duration(ms)*time.Millisecond)
	}
	return col
}

// describeJoin is a join node's EXPLAIN line: "Join(type=LeftOuterJoin,
// keys=[o.id = c.id], condition=..., left=NoUniqueKey, right=...)".
func describeJoin(n *Node) string {
	jp := n.Join
	parts := []string{"type=" + jp.Type.String()}
	if len(jp.keys) > 0 {
		parts = append(parts, "keys=["+strings.Join(jp.keys, ", ")+"]")
	} else {
		parts = append(parts, "keys=[] (every row in one task)")
	}
	switch {
	case jp.Interval != nil:
		parts = append(parts, "bounds="+jp.bounds)
	case jp.Window != nil:
		parts = append(parts, "window="+jp.bounds)
	case jp.Temporal != nil:
		parts = append(parts, jp.bounds)
	}
	if jp.Condition != nil {
		parts = append(parts, "condition="+jp.Condition.String())
	}
	return fmt.Sprintf("%s(%s)", n.Kind, strings.Join(parts, ", "))
}

// joinChangelog infers what join node n emits from what its inputs carry
// (their flows' changelogs, inferred already), as Flink's
// FlinkChangelogModeInferenceProgram does:
//
//   - an inner regular join forwards its inputs' row kinds (an inner join
//     of insert-only inputs is insert-only), UPDATE_BEFORE included: it
//     asks its inputs for them;
//   - an outer join pads rows and takes the padding back: inserts and
//     deletes, and the retractions the padded input sends keep their kind
//     (UPDATE_BEFORE);
//   - SEMI and ANTI joins behave as inner and outer ones;
//   - interval and window joins take insert-only inputs and are
//     insert-only.
func (p *planner) joinChangelog(n *Node) (Changelog, error) {
	var kinds [2]RowKinds
	var uks [2][]int // each input's upsert key, when its one flow has one
	var flows [2]int
	for _, fl := range n.Inputs {
		kinds[fl.Input] |= fl.Changelog.Kinds
		flows[fl.Input]++
		if !fl.Changelog.Kinds.InsertOnly() {
			uks[fl.Input] = fl.Changelog.UpsertKey
		}
	}
	if n.Kind == TemporalJoin || n.Kind == LookupJoin {
		// Each left row comes out once (a lookup join's: once per
		// looked-up row), with its kind.
		out := kinds[0]
		if out.Has(KindsUpdateAfter) {
			out |= KindsUpdateBefore
		}
		if out.InsertOnly() {
			return Changelog{Kinds: KindsInsert}, nil
		}
		var uk []int
		if flows[0] == 1 {
			uk = uks[0]
		}
		return Changelog{Kinds: out, UpsertKey: uk}, nil
	}
	if n.Kind != Join {
		for s, k := range kinds {
			if !k.InsertOnly() {
				return Changelog{}, p.f.errorAt(n.Pos, ErrInvalidTable, nil, fmt.Sprintf(
					"%s doesn't support consuming update and delete changes, which its %s input produces (%s); an interval or window join takes insert-only inputs: use a regular join",
					n.Kind, [2]string{"left", "right"}[s], k))
			}
		}
		return Changelog{Kinds: KindsInsert}, nil
	}
	// The inputs send UPDATE_BEFORE with their updates (the join asks
	// them to).
	for s := range kinds {
		if kinds[s].Has(KindsUpdateAfter) {
			kinds[s] |= KindsUpdateBefore
		}
	}
	jp := n.Join
	for s := range 2 {
		if flows[s] != 1 {
			uks[s] = nil // the inputs of a UNION ALL may hold the same key
		}
		// A side with a unique key keeps a row per key value; an
		// insert-only one without appends its rows.
		jp.side(s).UniqueKey = uks[s]
		jp.side(s).InsertOnly = kinds[s].InsertOnly()
	}
	t := jp.Type
	var out RowKinds
	switch {
	case t == join.Inner:
		out = kinds[0] | kinds[1]
	case t.SemiOrAnti():
		// The left rows, with their kinds; a right row's arrival or
		// retraction emits or retracts them (+I, -D).
		out = kinds[0] | KindsInsert
		if t == join.Anti || !kinds[1].InsertOnly() {
			out |= KindsDelete
		}
		if out.InsertOnly() {
			return Changelog{Kinds: KindsInsert}, nil
		}
		return Changelog{Kinds: out, UpsertKey: uks[0]}, nil
	case t == join.Full:
		out = KindsInsert | KindsDelete
	default:
		// The padded input's retractions keep their kind.
		out = KindsInsert | KindsDelete
		inner := kinds[1]
		if t == join.Right {
			inner = kinds[0]
		}
		out |= inner & KindsUpdateBefore
	}
	if out.InsertOnly() {
		return Changelog{Kinds: KindsInsert}, nil
	}
	return Changelog{Kinds: out, UpsertKey: joinUpsertKey(jp, uks)}, nil
}

// joinUpsertKey returns the upsert key of a join's output (positions in
// its row), from its inputs' (uks; nil: none), or nil when it has none:
//
//   - an input whose join key holds its unique key matches at most one
//     row of it per row of the other input, so the other input's unique
//     key identifies the output rows of an inner join, and of an outer
//     join that pads it only when the other input is the preserved one;
//   - otherwise an inner join's rows are identified by both unique keys.
func joinUpsertKey(jp *JoinPlan, uks [2][]int) []int {
	covers := func(s int) bool {
		if uks[s] == nil {
			return false
		}
		keys := jp.side(s).Keys
		for _, k := range uks[s] {
			if !slices.Contains(keys, k) {
				return false
			}
		}
		return true
	}
	at := func(s int) []int {
		out := make([]int, len(uks[s]))
		for i, k := range uks[s] {
			out[i] = jp.offset(s) + k
		}
		return out
	}
	switch jp.Type {
	case join.Inner:
		switch {
		case covers(1) && uks[0] != nil:
			return at(0)
		case covers(0) && uks[1] != nil:
			return at(1)
		case uks[0] != nil && uks[1] != nil:
			return append(at(0), at(1)...)
		}
	case join.Left:
		if covers(1) && uks[0] != nil {
			return at(0)
		}
	case join.Right:
		if covers(0) && uks[1] != nil {
			return at(1)
		}
	}
	return nil
}

// explainJoin writes a join node after its inputs: each input's flows,
// how its rows reach the join's tasks, what the join emits and what state
// it keeps.
func (pl *Plan) explainJoin(b *strings.Builder, n *Node) {
	if n.Join.Lookup != nil {
		for _, in := range n.Inputs {
			pl.explainFlow(b, in, in.Names)
		}
		pl.joinBody(b, n)
		return
	}
	for s := range 2 {
		fmt.Fprintf(b, "  -- the %s input of the %s at line %d:\n", [2]string{"left", "right"}[s], n.Kind, n.Pos.Line)
		for _, in := range n.Inputs {
			if in.Input == s {
				pl.explainFlow(b, in, in.Names)
			}
		}
	}
	pl.joinBody(b, n)
}

// joinBody writes what explainJoin says of join n itself, after its
// inputs.
func (pl *Plan) joinBody(b *strings.Builder, n *Node) {
	jp := n.Join
	if jp.Lookup != nil {
		fmt.Fprintf(b, "  %s (line %d)\n", n, n.Pos.Line)
		if n.ID != "" {
			fmt.Fprintf(b, "    id: %s\n", n.ID)
		}
		pl.explainLookup(b, n)
		return
	}
	fmt.Fprintf(b, "  %s (line %d)\n", n, n.Pos.Line)
	if n.ID != "" {
		fmt.Fprintf(b, "    id: %s\n", n.ID)
	}
	for s := range 2 {
		side := [2]string{"left", "right"}[s]
		keys, _ := n.InputKeys(s)
		if len(keys) == 0 {
			fmt.Fprintf(b, "    %s input: all rows to one task (no equi-join key)\n", side)
			continue
		}
		var names []string
		for _, in := range n.Inputs {
			if in.Input == s {
				for _, k := range keys {
					names = append(names, in.Names[k])
				}
				break
			}
		}
		fmt.Fprintf(b, "    %s input: hashed by [%s] over %d task(s)\n", side, strings.Join(names, ", "), pl.DefaultParallelism)
	}
	fmt.Fprintf(b, "    changelog: %s\n", n.Changelog)
	backend := pl.Settings["state.backend.type"]
	if backend == "" {
		backend = "hashmap"
	}
	switch {
	case jp.Interval != nil:
		fmt.Fprintf(b, "    state: %s, each input's rows until the watermark passes their time plus the bound\n", backend)
	case jp.Window != nil:
		fmt.Fprintf(b, "    state: %s, each window's rows until the watermark passes its end\n", backend)
	case jp.Temporal != nil:
		ttl := ""
		if d := jp.Temporal.Left.TTL; d > 0 {
			ttl = fmt.Sprintf(", ttl %s", formatDuration(d))
		}
		fmt.Fprintf(b, "    state: %s, the left input's rows until the watermark reaches their time, and the versioned table's versions from the one valid at the watermark on, about one per key%s\n", backend, ttl)
	default:
		for s := range 2 {
			sd := jp.side(s)
			what := "a count per distinct row"
			counts := (s == 0 && (jp.Type.LeftOuter() || jp.Type.SemiOrAnti())) || (s == 1 && jp.Type.RightOuter())
			switch {
			case len(sd.UniqueKey) > 0:
				what = "a row per unique key"
			case sd.InsertOnly && sd.TTL == 0 && !counts:
				what = "rows appended, insert-only input"
			}
			if sd.TTL > 0 {
				from := "table.exec.state.ttl"
				if jp.ttlHint[s] {
					from = "STATE_TTL hint"
				}
				fmt.Fprintf(b, "    state: %s, %s input's rows by key (%s), ttl %s (%s)\n", backend, [2]string{"left", "right"}[s], what, formatDuration(sd.TTL), from)
				continue
			}
			if pr := jp.Regular.Prune; pr != nil && s == 0 {
				fmt.Fprintf(b, "    state: %s, left input's rows by key (%s), kept until the watermark passes %s: the right input is a window aggregation, whose rows come only once the watermark passes their window_end (beyond Flink, which keeps them for ever: the same rows, less state)\n",
					backend, what, plusMillis(jp.names[pr.Time], pr.Bound.Milliseconds()))
				continue
			}
			fmt.Fprintf(b, "    state: %s, %s input's rows by key (%s), kept for ever (table.exec.state.ttl is 0): it grows with the input\n", backend, [2]string{"left", "right"}[s], what)
		}
	}
}

// pruneJoins drops, from the join nodes below fl (the flow into a sink),
// the input columns that neither the join nor what reads its output use:
// a join keeps its inputs' rows in its state, so it should keep only what
// is needed of them (Flink pushes projections below joins the same way).
// A parent is pruned before its inputs, whose consumers it changes.
func pruneJoins(fl *Flow, opts expr.Options) error {
	n := fl.Source.Node
	if n == nil {
		return nil
	}
	if n.Join != nil {
		if err := pruneJoin(n, fl, opts); err != nil {
			return err
		}
	}
	for _, in := range n.Inputs {
		if err := pruneJoins(in, opts); err != nil {
			return err
		}
	}
	return nil
}

// pruneJoin prunes join node n, whose output consumer reads.
func pruneJoin(n *Node, consumer *Flow, opts expr.Options) error {
	if len(consumer.Unnest) > 0 {
		return nil // its row's columns after n's are UNNEST's, at fixed places
	}
	jp := n.Join
	offs := [2]int{jp.offset(0), jp.offset(1)}
	used := make([]bool, len(jp.types))
	markRefs(consumer.Filter, used)
	for _, e := range consumer.Projection {
		markRefs(e, used)
	}
	markRefs(jp.Condition, used)
	for s := range 2 {
		off, sd := offs[s], jp.side(s)
		for _, k := range sd.Keys {
			used[off+k] = true
		}
		if jp.Regular != nil && jp.Regular.Prune != nil && s == 0 {
			used[off+jp.Regular.Prune.Time] = true
		}
		switch {
		case jp.Interval != nil && !jp.Interval.ProcTime:
			used[off+[2]int{jp.Interval.LeftTime, jp.Interval.RightTime}[s]] = true
		case jp.Temporal != nil:
			used[off+[2]int{jp.Temporal.LeftTime, jp.Temporal.RightTime}[s]] = true
		case jp.Lookup != nil && s == 1:
			for k := range sd.Types {
				used[off+k] = true // the lookup returns the table's rows whole
			}
		case jp.Window != nil:
			ws := [2]*join.WindowSide{&jp.Window.Left, &jp.Window.Right}[s]
			if ws.Assign != nil {
				used[off+ws.Assign.Time] = true
				for k := range 3 {
					used[off+len(sd.Types)-3+k] = true // the join appends them
				}
			} else {
				used[off+ws.WindowEnd] = true
			}
		}
	}
	if !slices.Contains(used, false) {
		return nil
	}
	newIdx := make([]int, len(used))
	var names []string
	var typs []types.Type
	for i, u := range used {
		newIdx[i] = -1
		if u {
			newIdx[i] = len(names)
			names, typs = append(names, jp.names[i]), append(typs, jp.types[i])
		}
	}
	for s := range 2 {
		off, sd := offs[s], jp.side(s)
		width := jp.inputWidth(s)
		// The side's own positions: old → new.
		pos := make([]int, len(sd.Types))
		next := 0
		var st []types.Type
		for i := range sd.Types {
			pos[i] = -1
			if used[off+i] {
				pos[i] = next
				next++
				st = append(st, sd.Types[i])
			}
		}
		for _, fl := range n.Inputs {
			if fl.Input != s {
				continue
			}
			var proj []expr.Expr
			var pn []string
			for i := range width {
				if pos[i] >= 0 {
					proj = append(proj, fl.Projection[i])
					pn = append(pn, fl.Names[i])
				}
			}
			fl.Projection, fl.Names = proj, pn
			if fl.Source.Table != nil {
				fl.ReadFields, fl.ReadRows = readFields(fl)
			}
		}
		remap := func(cols []int) []int {
			out := make([]int, len(cols))
			for i, c := range cols {
				out[i] = pos[c]
			}
			return out
		}
		sd.Types, sd.Keys = st, remap(sd.Keys)
		if sd.UniqueKey != nil {
			sd.UniqueKey = remap(sd.UniqueKey)
		}
		if jp.Regular != nil && jp.Regular.Prune != nil && s == 0 {
			jp.Regular.Prune.Time = pos[jp.Regular.Prune.Time]
		}
		switch {
		case jp.Interval != nil && !jp.Interval.ProcTime:
			if s == 0 {
				jp.Interval.LeftTime = pos[jp.Interval.LeftTime]
			} else {
				jp.Interval.RightTime = pos[jp.Interval.RightTime]
			}
		case jp.Temporal != nil:
			if s == 0 {
				jp.Temporal.LeftTime = pos[jp.Temporal.LeftTime]
			} else {
				jp.Temporal.RightTime = pos[jp.Temporal.RightTime]
			}
		case jp.Window != nil:
			ws := [2]*join.WindowSide{&jp.Window.Left, &jp.Window.Right}[s]
			if ws.Assign != nil {
				ws.Assign.Time = pos[ws.Assign.Time]
			} else {
				ws.WindowEnd = pos[ws.WindowEnd]
			}
		}
	}
	remapExpr := func(e expr.Expr) (expr.Expr, error) {
		if e == nil {
			return nil, nil
		}
		return mapCols(e, func(c *expr.ColumnRef) expr.Expr {
			i := newIdx[c.Index]
			return expr.Col(i, c.Name, c.Typ)
		})
	}
	var err error
	if jp.Condition, err = remapExpr(jp.Condition); err != nil {
		return err
	}
	if consumer.Filter, err = remapExpr(consumer.Filter); err != nil {
		return err
	}
	for i, e := range consumer.Projection {
		if consumer.Projection[i], err = remapExpr(e); err != nil {
			return err
		}
	}
	src := consumer.Source
	if c, ok := src.rowtime.(*expr.ColumnRef); ok {
		src.rowtime = nil
		if i := newIdx[c.Index]; i >= 0 {
			src.rowtime = expr.Col(i, c.Name, c.Typ)
		}
	}
	jp.names, jp.types, jp.leftWidth = names, typs, len(jp.side(0).Types)
	n.Names, n.Types = jp.output()
	src.RowTypes = n.Types
	return jp.compile(opts)
}

// exprOptions returns the plan's evaluation options; an invalid
// table.local-time-zone is reported with the settings, and compiles as
// UTC meanwhile.
func (p *planner) exprOptions() expr.Options {
	opts, err := p.plan.ExprOptions()
	if err != nil {
		return expr.Options{}
	}
	return opts
}

// uniqueName returns name, or name with the first of 0, 1, ... that makes
// it unique among names, as Flink names a join's columns (id, id0).
func uniqueName(names []string, name string) string {
	if !slices.Contains(names, name) {
		return name
	}
	for i := 0; ; i++ {
		if n := fmt.Sprintf("%s%d", name, i); !slices.Contains(names, n) {
			return n
		}
	}
}

// refuseJoinRight refuses what j's right input holds, letting through the
// FOR SYSTEM_TIME AS OF of a versioned table that an inner or LEFT join
// reads (a temporal join).
func (f *file) refuseJoinRight(j *ddl.Join) error {
	if u, ok := j.Right.(*ddl.Unnest); ok {
		return f.refuseExprs(u.Exprs) // planned by unnestRelation (unnest.go)
	}
	t, ok := j.Right.(*ddl.TableName)
	if !ok || t.SystemTime == nil || j.Kind != ddl.JoinInner && j.Kind != ddl.JoinLeft && j.Kind != ddl.JoinComma {
		return f.refuseTableRef(j.Right)
	}
	if len(t.OtherHints) > 0 {
		return f.hintRefusal(t.OtherHints[0])
	}
	return f.refuseExpr(t.SystemTime)
}

// temporalTimes checks a temporal join: FOR SYSTEM_TIME AS OF the left
// input's rowtime attribute, of a versioned table (a table with a PRIMARY
// KEY and a rowtime attribute) whose key the equi-join key holds. It
// returns the time columns of both inputs.
func (jb *joinBuilder) temporalTimes() (lt, rt int, err error) {
	p, right := jb.p, jb.ins[1]
	pos := right.asOfPos
	c, ok := jb.asOf.(*expr.ColumnRef)
	if ok && c.Index < jb.nl {
		if rowtime, proc := jb.timeAttr(0, c.Index); proc {
			return 0, 0, p.f.errorAt(pos, ddl.ErrUnsupported, nil, "FOR SYSTEM_TIME AS OF a processing-time attribute (a lookup join) is not supported yet")
		} else if !rowtime {
			ok = false
		}
	}
	if !ok || c.Index >= jb.nl {
		return 0, 0, p.f.errorAt(pos, ErrType, nil, fmt.Sprintf(
			"FOR SYSTEM_TIME AS OF takes a time attribute of the join's left input (the WATERMARK FOR column of its table), not %s", jb.asOf))
	}
	if jb.typ != join.Inner && jb.typ != join.Left {
		return 0, 0, p.f.errorAt(jb.j.Pos, ddl.ErrUnsupported, nil, "a temporal join is INNER or LEFT; "+jb.typ.String()+" is not supported")
	}
	rel := right.rel
	var src *Source
	if len(rel.branches) == 1 {
		src = rel.branches[0].src
	}
	name := "the right input"
	if len(right.names) > 0 {
		name = "'" + right.names[0] + "'"
	}
	if src == nil || src.Table == nil || len(src.primaryKey) == 0 || src.rowtime == nil {
		return 0, 0, p.f.errorAt(pos, ErrType, nil, fmt.Sprintf(
			"an event-time temporal join needs a versioned table: %s must be a table with a PRIMARY KEY and a WATERMARK (Flink: Temporal Table Join requires primary key and row time attribute in versioned table)", name))
	}
	b := rel.branches[0]
	rt = -1
	var pk []int // relation columns of the primary key
	for i, e := range b.cols {
		if exprEqual(e, src.rowtime) {
			rt = i
		}
		if cr, ok := e.(*expr.ColumnRef); ok && slices.Contains(src.primaryKey, cr.Index) {
			pk = append(pk, i)
		}
	}
	if rt < 0 || len(pk) != len(src.primaryKey) {
		return 0, 0, p.f.errorAt(pos, ErrType, nil, fmt.Sprintf("the versioned table %s must expose its rowtime attribute and PRIMARY KEY columns", name))
	}
	for _, k := range pk {
		found := false
		for _, pair := range jb.keys {
			if cr, ok := pair[1].(*expr.ColumnRef); ok && cr.Index == k {
				found = true
			}
		}
		if !found {
			return 0, 0, p.f.errorAt(jb.j.Pos, ErrType, nil, fmt.Sprintf(
				"a temporal join's ON must equate each PRIMARY KEY column of the versioned table %s with the left input; '%s' is not (Flink: Temporal Table Join requires primary key in versioned table)", name, rel.names[k]))
		}
	}
	return c.Index, rt, nil
}

// output returns the names and types of the join node's output: the
// joined row, or its left part for SEMI and ANTI joins.
func (jp *JoinPlan) output() ([]string, []types.Type) {
	if jp.Type.SemiOrAnti() {
		n := jp.leftWidth
		return jp.names[:n:n], jp.types[:n:n]
	}
	return jp.names, jp.types
}
