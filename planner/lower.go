package planner

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// scopeCol is a column visible to an expression: its name, the qualifiers
// that may prefix it (table name parts or alias) and its value as an
// expression over the input row.
type scopeCol struct {
	name string
	e    expr.Expr
	// quals, when set, are the column's own qualifiers (a join's columns
	// are qualified by the input they come from), in place of the
	// scope's.
	quals [][]string
}

// scope is the set of columns an expression may reference.
type scope struct {
	cols []scopeCol
	// quals are the names that may qualify a column: the alias, or the
	// table's name, db.name and catalog.db.name.
	quals [][]string
	// outer, when set, is the scope of the query around a subquery (a
	// semi join's, join.go): a name the subquery's own columns do not have
	// is looked up there.
	outer *scope
}

func (s *scope) names() []string {
	out := make([]string, len(s.cols))
	for i, c := range s.cols {
		out[i] = c.name
	}
	return out
}

// qualifierNames describes the tables and aliases that qualify s's
// columns, for an error about an unknown one: "; the FROM here names s,
// src" or, when there is none (a subquery without AS), that the aliases
// inside a subquery are not visible outside it.
func (s *scope) qualifierNames() string {
	var names []string
	add := func(q []string) {
		if n := strings.Join(q, "."); len(q) == 1 && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, q := range s.quals {
		add(q)
	}
	for _, c := range s.cols {
		for _, q := range c.quals {
			add(q)
		}
	}
	if len(names) == 0 {
		return "; the FROM here names no table or alias (a subquery in FROM is named by AS name only: the aliases inside it are not visible outside it)"
	}
	return "; the FROM here names " + strings.Join(names, ", ")
}

func (s *scope) lookup(name string) (expr.Expr, bool) {
	for _, c := range s.cols {
		if c.name == name {
			return c.e, true
		}
	}
	return nil, false
}

func (s *scope) isQualifier(parts []string) bool {
	for _, q := range s.quals {
		if slices.Equal(q, parts) {
			return true
		}
	}
	for _, c := range s.cols {
		if c.qualifiedBy(parts) {
			return true
		}
	}
	return s.outer != nil && s.outer.isQualifier(parts)
}

// qualifiedBy reports whether qualifier parts names the column's own
// input (a join's column).
func (c *scopeCol) qualifiedBy(parts []string) bool {
	for _, q := range c.quals {
		if slices.Equal(q, parts) {
			return true
		}
	}
	return false
}

// find returns the column name qualified by qual (none: any); ambiguous
// is set when the columns of two inputs of a join have the name.
func (s *scope) find(qual []string, name string) (e expr.Expr, ok, ambiguous bool) {
	var found *scopeCol
	for i := range s.cols {
		c := &s.cols[i]
		if c.name != name || len(qual) == 0 && c.hidden() {
			continue
		}
		if len(qual) > 0 && !c.qualifiedBy(qual) && (c.quals != nil || !slices.ContainsFunc(s.quals, func(q []string) bool { return slices.Equal(q, qual) })) {
			continue
		}
		if found == nil {
			found = c
			continue
		}
		if len(qual) == 0 && c.quals != nil && !slices.EqualFunc(c.quals, found.quals, slices.Equal) {
			return nil, false, true
		}
	}
	if found == nil {
		if s.outer != nil {
			return s.outer.find(qual, name)
		}
		return nil, false, false
	}
	return found.e, true, false
}

// aggregates are Flink's aggregate functions: a call of one needs GROUP BY
// or OVER, which the planner does not support yet.
var aggregates = map[string]bool{
	"COUNT": true, "SUM": true, "AVG": true, "MIN": true, "MAX": true, "LISTAGG": true, "COLLECT": true,
	"FIRST_VALUE": true, "LAST_VALUE": true, "STDDEV_POP": true, "STDDEV_SAMP": true, "VAR_POP": true,
	"VAR_SAMP": true, "ARRAY_AGG": true, "JSON_ARRAYAGG": true, "JSON_OBJECTAGG": true, "SINGLE_VALUE": true,
	"ROW_NUMBER": true, "RANK": true, "DENSE_RANK": true,
}

// unsupportedFunctions are Flink functions the planner recognises but
// cannot run yet, with the reason.
var unsupportedFunctions = map[string]string{
	"CURRENT_WATERMARK":     "expressions do not read the watermark yet; a window aggregation drops late rows itself",
	"TUMBLE":                "outside GROUP BY: a group window belongs in the GROUP BY clause, and TUMBLE_START and the like in the SELECT list of that query",
	"HOP":                   "outside GROUP BY: a group window belongs in the GROUP BY clause, and TUMBLE_START and the like in the SELECT list of that query",
	"SESSION":               "outside GROUP BY: a group window belongs in the GROUP BY clause, and TUMBLE_START and the like in the SELECT list of that query",
	"CUMULATE":              "outside GROUP BY: a group window belongs in the GROUP BY clause, and TUMBLE_START and the like in the SELECT list of that query",
	"TUMBLE_START":          "outside GROUP BY: a group window belongs in the GROUP BY clause, and TUMBLE_START and the like in the SELECT list of that query",
	"TUMBLE_END":            "outside GROUP BY: a group window belongs in the GROUP BY clause, and TUMBLE_START and the like in the SELECT list of that query",
	"SOURCE_WATERMARK":      "no source emits watermarks of its own; write WATERMARK FOR ts AS ts - INTERVAL '5' SECOND",
	"CURRENT_ROW_TIMESTAMP": "not in the function library",
}

// extractShorthands are the functions that are EXTRACT of one unit.
var extractShorthands = map[string]expr.TimeUnit{
	"YEAR": expr.UnitYear, "QUARTER": expr.UnitQuarter, "MONTH": expr.UnitMonth, "WEEK": expr.UnitWeek,
	"DAYOFYEAR": expr.UnitDayOfYear, "DAYOFMONTH": expr.UnitDay, "DAYOFWEEK": expr.UnitDayOfWeek,
	"HOUR": expr.UnitHour, "MINUTE": expr.UnitMinute, "SECOND": expr.UnitSecond,
}

// lowerer turns ddl expressions into resolved planner/expr trees, with
// errors at the position of the offending node.
type lowerer struct {
	f  *file
	sc *scope
	// rewrite, when set, is asked first about every node: ok true means
	// its result (or error) stands for the node. An aggregating query's
	// SELECT list maps grouping expressions and aggregate calls to the
	// columns of the aggregation's output this way.
	rewrite func(e ddl.Expr) (r expr.Expr, ok bool, err error)
}

func (l *lowerer) fail(pos ddl.Pos, class error, cause error, format string, args ...any) error {
	return l.f.errorAt(pos, class, cause, fmt.Sprintf(format, args...))
}

// resolved resolves n (whose children are resolved) and reports a failure
// at pos.
func (l *lowerer) resolved(pos ddl.Pos, n expr.Expr) (expr.Expr, error) {
	r, err := expr.Resolve(n)
	if err != nil {
		class := ErrType
		var uf *expr.UnknownFunctionError
		if errors.As(err, &uf) {
			class = ErrUnknownName
		}
		return nil, l.f.errorAt(pos, class, err, err.Error())
	}
	return r, nil
}

// boolChain lowers a chain a OP b OP c ... (OP is AND or OR; the parser
// nests it to the left) as one n-ary call, in time linear in its length:
// generated filters can have thousands of terms, and resolving each binary
// node again over the terms before it cost their number squared. A term of
// the wrong type fails at the operator that joins it, with the terms up to
// it, as lowering node by node did.
func (l *lowerer) boolChain(n *ddl.Binary) (expr.Expr, error) {
	var joins []*ddl.Binary
	for e := ddl.Expr(n); ; {
		b, ok := e.(*ddl.Binary)
		if !ok || b.Op != n.Op {
			break
		}
		joins = append(joins, b)
		e = b.Left
	}
	slices.Reverse(joins) // the innermost, leftmost join first
	op := string(n.Op)
	first, err := l.lower(joins[0].Left)
	if err != nil {
		return nil, err
	}
	terms := []expr.Expr{first}
	// Each new term is checked against a stand-in for the terms before it
	// (they were checked already), then all are resolved once.
	var before expr.Expr = first
	for _, j := range joins {
		t, err := l.lower(j.Right)
		if err != nil {
			return nil, err
		}
		if _, err := expr.Resolve(expr.Fn(op, before, t)); err != nil {
			return l.resolved(j.Pos, expr.Fn(op, append(slices.Clone(terms), t)...))
		}
		terms = append(terms, t)
		before = expr.Lit(types.Boolean(), types.Bool(true))
	}
	return l.resolved(n.Pos, expr.Fn(op, terms...))
}

func (l *lowerer) lower(e ddl.Expr) (expr.Expr, error) {
	if l.rewrite != nil {
		if r, ok, err := l.rewrite(e); ok || err != nil {
			return r, err
		}
	}
	switch n := e.(type) {
	case *ddl.Literal:
		if n.Kind == ddl.NullLit {
			if n.Type.Kind == types.KindBoolean {
				return expr.Lit(types.Boolean(), types.Value{}), nil
			}
			return expr.NullLit(), nil
		}
		return expr.Lit(n.Type, n.Value), nil
	case *ddl.IntervalLit:
		if n.Type.Kind == types.KindIntervalYearMonth {
			return expr.Lit(n.Type, types.Int64(n.Months)), nil
		}
		return expr.Lit(n.Type, types.Int64(n.Millis)), nil
	case *ddl.ColumnRef:
		return l.column(n)
	case *ddl.Call:
		return l.call(n)
	case *ddl.Symbol:
		return nil, l.fail(n.Pos, ErrType, nil, "%s is not a value here", n.Name)
	case *ddl.Binary:
		if n.Op == ddl.OpAnd || n.Op == ddl.OpOr {
			return l.boolChain(n)
		}
		if e, ok, err := l.intervalArithmetic(n); ok {
			return e, err
		}
		a, err := l.lower(n.Left)
		if err != nil {
			return nil, err
		}
		b, err := l.lower(n.Right)
		if err != nil {
			return nil, err
		}
		return l.resolved(n.Pos, expr.Fn(string(n.Op), a, b))
	case *ddl.Unary:
		a, err := l.lower(n.Expr)
		if err != nil {
			return nil, err
		}
		switch n.Op {
		case ddl.OpPlus:
			return a, nil
		case ddl.OpNeg:
			return l.resolved(n.Pos, expr.Fn("NEGATE", a))
		}
		return l.resolved(n.Pos, expr.Fn("NOT", a))
	case *ddl.Cast:
		a, err := l.lower(n.Expr)
		if err != nil {
			return nil, err
		}
		return l.resolved(n.Pos, &expr.Cast{Expr: a, Target: n.Type, Try: n.Try})
	case *ddl.Case:
		c := &expr.Case{}
		var err error
		if n.Operand != nil {
			if c.Operand, err = l.lower(n.Operand); err != nil {
				return nil, err
			}
		}
		for _, w := range n.Whens {
			cond, err := l.lower(w.Cond)
			if err != nil {
				return nil, err
			}
			res, err := l.lower(w.Result)
			if err != nil {
				return nil, err
			}
			c.Whens = append(c.Whens, expr.When{Cond: cond, Result: res})
		}
		if n.Else != nil {
			if c.Else, err = l.lower(n.Else); err != nil {
				return nil, err
			}
		}
		return l.resolved(n.Pos, c)
	case *ddl.In:
		args, err := l.lowerAll(append([]ddl.Expr{n.Expr}, n.List...))
		if err != nil {
			return nil, err
		}
		name := "IN"
		if n.Not {
			name = "NOT IN"
		}
		return l.resolved(n.Pos, expr.Fn(name, args...))
	case *ddl.Between:
		args, err := l.lowerAll([]ddl.Expr{n.Expr, n.Low, n.High})
		if err != nil {
			return nil, err
		}
		name := "BETWEEN"
		if n.Symmetric {
			name = "BETWEEN SYMMETRIC"
		}
		if n.Not {
			name = "NOT " + name
		}
		return l.resolved(n.Pos, expr.Fn(name, args...))
	case *ddl.Like:
		list := []ddl.Expr{n.Expr, n.Pattern}
		if n.Escape != nil {
			list = append(list, n.Escape)
		}
		args, err := l.lowerAll(list)
		if err != nil {
			return nil, err
		}
		name := "LIKE"
		if n.Similar {
			name = "SIMILAR TO"
		}
		if n.Not {
			name = "NOT " + name
		}
		return l.resolved(n.Pos, expr.Fn(name, args...))
	case *ddl.Is:
		a, err := l.lower(n.Expr)
		if err != nil {
			return nil, err
		}
		what := n.What
		if what == "UNKNOWN" {
			what = "NULL"
		}
		name := "IS " + what
		if n.Not {
			name = "IS NOT " + what
		}
		return l.resolved(n.Pos, expr.Fn(name, a))
	case *ddl.Subscript:
		args, err := l.lowerAll([]ddl.Expr{n.Expr, n.Index})
		if err != nil {
			return nil, err
		}
		return l.resolved(n.Pos, expr.Fn("ITEM", args...))
	case *ddl.FieldAccess:
		a, err := l.lower(n.Expr)
		if err != nil {
			return nil, err
		}
		return l.field(n.Pos, a, []string{n.Field})
	case *ddl.Over:
		// The SELECT list's rewrite maps its OVER calls (over.go, rank.go).
		return nil, l.fail(n.Pos, ErrType, nil, "%s OVER (...) is allowed in the SELECT list of a query without GROUP BY only", n.Call.Name)
	case *ddl.Quantified:
		// WHERE's and the SELECT list's are joins (scalar.go, semi.go).
		return nil, l.f.unsupported(n.Pos, "a quantified comparison ("+string(n.Op)+" "+n.Quantifier+") other than in WHERE or the SELECT list of a SELECT")
	case *ddl.ScalarSubquery:
		// WHERE's and the SELECT list's are joins (scalar.go).
		return nil, l.f.unsupported(n.Pos, "a scalar subquery other than in WHERE, HAVING or the SELECT list of a SELECT")
	}
	if err := l.f.exprRefusal(e); err != nil {
		return nil, err
	}
	return nil, l.fail(e.Position(), ddl.ErrUnsupported, nil, "expression %s is not supported yet", ddl.FormatExpr(e))
}

// intervalArithmetic lowers t + INTERVAL ..., INTERVAL ... + t and
// t - INTERVAL ... to TIMESTAMPADD (expr.AddInterval): streamsql has no
// INTERVAL type of its own.
func (l *lowerer) intervalArithmetic(n *ddl.Binary) (expr.Expr, bool, error) {
	if n.Op != ddl.OpAdd && n.Op != ddl.OpSub {
		return nil, false, nil
	}
	other, iv := n.Left, n.Right
	if li, ok := n.Left.(*ddl.IntervalLit); ok && n.Op == ddl.OpAdd {
		other, iv = n.Right, li
	}
	lit, ok := iv.(*ddl.IntervalLit)
	if !ok {
		return nil, false, nil
	}
	t, err := l.lower(other)
	if err != nil {
		return nil, true, err
	}
	amount, unit := intervalAmount(lit)
	if n.Op == ddl.OpSub {
		amount = -amount
	}
	e, err := l.resolved(n.Pos, expr.AddInterval(t, amount, unit))
	return e, true, err
}

// intervalAmount expresses an interval literal in its largest exact unit.
func intervalAmount(lit *ddl.IntervalLit) (int64, expr.TimeUnit) {
	if lit.Type.Kind == types.KindIntervalYearMonth {
		if lit.Months%12 == 0 {
			return lit.Months / 12, expr.UnitYear
		}
		return lit.Months, expr.UnitMonth
	}
	for _, u := range []struct {
		ms   int64
		unit expr.TimeUnit
	}{{86_400_000, expr.UnitDay}, {3_600_000, expr.UnitHour}, {60_000, expr.UnitMinute}, {1000, expr.UnitSecond}} {
		if lit.Millis%u.ms == 0 {
			return lit.Millis / u.ms, u.unit
		}
	}
	return lit.Millis, expr.UnitMillisecond
}

func (l *lowerer) lowerAll(list []ddl.Expr) ([]expr.Expr, error) {
	out := make([]expr.Expr, len(list))
	for i, e := range list {
		var err error
		if out[i], err = l.lower(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (l *lowerer) column(n *ddl.ColumnRef) (expr.Expr, error) {
	if l.sc == nil {
		return nil, l.fail(n.Pos, ErrUnknownName, nil, "column '%s' cannot be used here: there is no FROM clause", strings.Join(n.Parts, "."))
	}
	// The longest qualifier that names the source, then the column.
	for q := len(n.Parts) - 1; q >= 0; q-- {
		if q > 0 && !l.sc.isQualifier(n.Parts[:q]) {
			continue
		}
		e, ok, ambiguous := l.sc.find(n.Parts[:q], n.Parts[q])
		if ambiguous {
			return nil, l.fail(n.Pos, ErrUnknownName, nil, "column '%s' is ambiguous: more than one input of the join has it; qualify it with a table name or alias", n.Parts[q])
		}
		if !ok {
			continue
		}
		return l.field(n.Pos, e, n.Parts[q+1:])
	}
	name := n.Parts[len(n.Parts)-1]
	if len(n.Parts) > 1 && !l.sc.isQualifier(n.Parts[:len(n.Parts)-1]) {
		if _, ok := l.sc.lookup(n.Parts[0]); !ok {
			return nil, l.fail(n.Pos, ErrUnknownName, nil, "unknown table or alias '%s' in '%s'%s", strings.Join(n.Parts[:len(n.Parts)-1], "."), strings.Join(n.Parts, "."),
				l.sc.qualifierNames())
		}
	}
	return nil, l.fail(n.Pos, ErrUnknownName, nil, "column '%s' not found; available columns are %s%s",
		name, strings.Join(l.sc.names(), ", "), didYouMean(name, l.sc.names()))
}

// field applies ROW field accesses r.a.b to e.
func (l *lowerer) field(pos ddl.Pos, e expr.Expr, names []string) (expr.Expr, error) {
	for _, name := range names {
		if e.Type().Kind != types.KindRow {
			return nil, l.fail(pos, ErrType, nil, "cannot access field '%s' of a value of type %s; only ROW values have fields", name, e.Type())
		}
		lit := expr.Lit(types.Char(utf8.RuneCountInString(name)).NotNullable(), types.Str(name))
		var err error
		if e, err = l.resolved(pos, expr.Fn("FIELD", e, lit)); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (l *lowerer) call(n *ddl.Call) (expr.Expr, error) {
	if err := l.f.callRefusal(n); err != nil {
		return nil, err
	}
	if aggregates[n.Name] {
		if _, ok := agg.Lookup(n.Name); ok {
			// The aggregating SELECT's rewrite maps its calls; one that
			// reaches here is somewhere aggregates are not evaluated.
			return nil, l.fail(n.Pos, ErrType, nil, "aggregate function %s is not allowed here; aggregate functions belong in the SELECT list or HAVING of a query", n.Name)
		}
		return nil, l.fail(n.Pos, ddl.ErrUnsupported, nil, "%s is not supported yet", n.Name)
	}
	if n.Star {
		return nil, l.fail(n.Pos, ddl.ErrUnsupported, nil, "%s(*) is not supported yet", n.Name)
	}
	if unsupportedFunctions[n.Name] != "" {
		return nil, l.fail(n.Pos, ddl.ErrUnsupported, nil, "%s is not supported yet (%s)", n.Name, unsupportedFunctions[n.Name])
	}
	if n.Name == "PROCTIME" && len(n.Args) == 0 {
		// A processing-time attribute read by a stateless query is the
		// current time, as Flink materializes it (TIMESTAMP_LTZ(3)).
		return l.resolved(n.Pos, expr.CastTo(expr.Fn("CURRENT_TIMESTAMP"), types.TimestampLTZ(3).NotNullable()))
	}
	args := n.Args
	unit := expr.UnitNone
	name := n.Name
	if u, ok := extractShorthands[name]; ok && len(args) == 1 {
		// HOUR(ts) is EXTRACT(HOUR FROM ts), as in Flink.
		lowered, err := l.lowerAll(args)
		if err != nil {
			return nil, err
		}
		return l.resolved(n.Pos, expr.FnUnit("EXTRACT", u, lowered...))
	}
	switch name {
	case "CEIL", "CEILING", "FLOOR":
		if len(args) == 2 {
			if s, ok := args[1].(*ddl.Symbol); ok {
				u, err := l.unit(s)
				if err != nil {
					return nil, err
				}
				unit, args = u, args[:1]
			}
		}
	case "EXTRACT", "TIMESTAMPADD", "TIMESTAMPDIFF":
		if len(args) > 0 {
			if s, ok := args[0].(*ddl.Symbol); ok {
				u, err := l.unit(s)
				if err != nil {
					return nil, err
				}
				unit, args = u, args[1:]
			}
		}
	case "TRIM":
		// ddl: TRIM(mode, chars, s); expr: TRIM/LTRIM/RTRIM(s, chars).
		if len(args) == 3 {
			if s, ok := args[0].(*ddl.Symbol); ok {
				switch s.Name {
				case "LEADING":
					name = "LTRIM"
				case "TRAILING":
					name = "RTRIM"
				}
				args = []ddl.Expr{args[2], args[1]}
			}
		}
	}
	lowered, err := l.lowerAll(args)
	if err != nil {
		return nil, err
	}
	if f := l.f.funcs[name]; f != nil {
		return l.resolved(n.Pos, expr.UserFn(f, lowered...))
	}
	switch {
	case name == "JSON_OBJECT" && n.OnNull == "ABSENT":
		name = expr.JSONObjectAbsent
	case name == "JSON_ARRAY" && n.OnNull == "NULL":
		name = expr.JSONArrayNull
	}
	c := expr.Fn(name, lowered...)
	c.Unit = unit
	if r := n.Returning; r.Kind != types.KindInvalid {
		switch {
		case name == "JSON_VALUE":
			c.Returning = r
		case r.Kind != types.KindVarChar && r.Kind != types.KindChar:
			// JSON_QUERY returns its JSON text; Flink 2.x also returns
			// an ARRAY<STRING> of the array's elements.
			return nil, l.fail(n.ReturningPos, ddl.ErrUnsupported, nil, "%s(... RETURNING %s) is not supported yet (RETURNING STRING, the default, is)", name, r.Nullable())
		}
	}
	return l.resolved(n.Pos, c)
}

func (l *lowerer) unit(s *ddl.Symbol) (expr.TimeUnit, error) {
	u, ok := expr.ParseTimeUnit(s.Name)
	if !ok {
		return 0, l.fail(s.Pos, ErrType, nil, "unknown time unit %s", s.Name)
	}
	return u, nil
}

// lowerCondition lowers a WHERE condition, which must be BOOLEAN.
func (l *lowerer) lowerCondition(e ddl.Expr) (expr.Expr, error) {
	c, err := l.lower(e)
	if err != nil {
		return nil, err
	}
	if k := c.Type().Kind; k != types.KindBoolean && k != types.KindNull {
		return nil, l.fail(e.Position(), ErrType, nil, "WHERE condition must be BOOLEAN, not %s", c.Type())
	}
	return c, nil
}
