package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// relation is a resolved query: named, typed output columns computed by
// one or more branches (UNION ALL gives several), each reading one source.
type relation struct {
	// window is set when the relation is read through a window table
	// function: its last three columns are then window_start, window_end
	// and window_time, which only a window aggregation computes.
	window *windowTVF
	names  []string
	// pos are the positions of the expressions that produce each column
	// (of the first branch), for errors about a column.
	pos      []ddl.Pos
	types    []types.Type
	branches []*branch
	// colQuals, when set, are each column's qualifiers (a join's columns
	// are qualified by the input they come from, join.go); otherwise the
	// qualifiers fromRelation returns qualify every column.
	colQuals [][][]string
	// ranked is set when the relation is a ranking SELECT not planned yet:
	// its rank column is a placeholder (rank.go).
	ranked *rankedSelect
}

// branch is one source with the filter and projection applied to its rows.
type branch struct {
	src *Source
	// filters are ANDed; each is over the source row.
	filters []expr.Expr
	cols    []expr.Expr
	// unnest expands each source row before filters and cols, which are
	// over the row it builds (Flow.Unnest).
	unnest []*Unnest
}

// maxUnionInputs bounds the sources of one query (each is a flow of its
// pipeline).
const maxUnionInputs = 1000

// resolveQuery resolves q; views are inlined with their own names.
func (p *planner) resolveQuery(q ddl.Query, depth int) (*relation, error) {
	if depth > 50 {
		return nil, p.f.errorAt(q.Position(), ErrUnknownName, nil, "views nest more than 50 levels deep (a view that refers to itself?)")
	}
	// Only the query the SELECT reading it resolves may stay ranked.
	allowRanked := p.allowRanked
	p.allowRanked = false
	switch q := q.(type) {
	case *ddl.Select:
		rel, err := p.resolveSelect(q, depth)
		if err == nil && rel.ranked != nil && !allowRanked {
			rel, err = p.settleRanked(rel)
		}
		return rel, err
	case *ddl.With:
		n := len(p.ctes)
		defer func() { p.ctes = p.ctes[:n] }()
		for _, c := range q.CTEs {
			p.ctes = append(p.ctes, cteScope{name: c.Name.Name, cte: c})
		}
		p.allowRanked = allowRanked
		return p.resolveQuery(q.Body, depth)
	case *ddl.SetOp:
		if err := p.f.queryNodeRefusal(q); err != nil {
			return nil, err
		}
		if q.Kind != ddl.Union && !q.All {
			return p.resolveIntersectExcept(q, depth)
		}
		if q.Kind != ddl.Union {
			return p.resolveSetOpAll(q, depth)
		}
		if q.Kind == ddl.Union && !q.All {
			all := *q
			all.All = true
			rel, err := p.resolveQuery(&all, depth)
			if err != nil {
				return nil, err
			}
			return p.distinctRelation(rel, q.Pos)
		}
		left, err := p.resolveQuery(q.Left, depth)
		if err != nil {
			return nil, err
		}
		right, err := p.resolveQuery(q.Right, depth)
		if err != nil {
			return nil, err
		}
		if len(left.names) != len(right.names) {
			return nil, p.f.errorAt(q.Pos, ErrType, nil, fmt.Sprintf("the inputs of UNION ALL have %d and %d columns; they must have the same number",
				len(left.names), len(right.names)))
		}
		out := &relation{names: left.names, pos: left.pos, types: make([]types.Type, len(left.types))}
		for i := range left.types {
			t, ok := commonType(left.types[i], right.types[i])
			if !ok {
				return nil, p.f.errorAt(q.Pos, ErrType, nil, fmt.Sprintf("column %d ('%s') of UNION ALL is %s on the left and %s on the right, which have no common type",
					i+1, left.names[i], left.types[i], right.types[i]))
			}
			out.types[i] = t
		}
		if n := len(left.branches) + len(right.branches); n > maxUnionInputs {
			// Views inlined into both sides of a UNION ALL double its
			// inputs at each level: a small file could ask for millions.
			return nil, p.f.errorAt(q.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
				"UNION ALL of more than %d inputs (counting those of the views it reads) is not supported", maxUnionInputs))
		}
		out.branches = append(slices.Clone(left.branches), right.branches...)
		return out, nil
	case *ddl.Values:
		return p.resolveValues(q)
	case *ddl.OrderBy:
		if err := p.f.queryNodeRefusal(q); err != nil {
			return nil, err
		}
		if q.Fetch == nil {
			return p.resolveTemporalSort(q, depth)
		}
		return p.resolveOrderLimit(q, depth)
	}
	return nil, p.f.queryNodeRefusal(q)
}

// commonType returns the type both a and b convert to implicitly: within a
// family the least restrictive one, as Calcite (and so Flink) chooses it —
// CHAR(14) and CHAR(16) give CHAR(16), never a type that truncates.
func commonType(a, b types.Type) (types.Type, bool) {
	nn := a.NotNull && b.NotNull
	var t types.Type
	switch {
	case a.Nullable().Equal(b.Nullable()):
		t = a
	case a.IsString() && b.IsString(), a.IsBinary() && b.IsBinary():
		t = a
		t.Length = max(a.Length, b.Length)
		if a.Kind != b.Kind { // CHAR and VARCHAR: VARCHAR; BINARY and VARBINARY: VARBINARY
			t.Kind = max(a.Kind, b.Kind)
		}
	case a.Kind == types.KindDecimal && b.Kind == types.KindDecimal:
		scale := max(a.Scale, b.Scale)
		t = types.DecimalType(min(types.MaxDecimalPrecision, max(a.Precision-a.Scale, b.Precision-b.Scale)+scale), scale)
	case a.Kind == b.Kind && (a.Kind == types.KindTime || a.IsTimestamp()):
		t = a
		t.Precision = max(a.Precision, b.Precision)
	case a.Kind == types.KindNull:
		t, nn = b, false
	case b.Kind == types.KindNull:
		t, nn = a, false
	case expr.ImplicitCastAllowed(a, b):
		t = b
	case expr.ImplicitCastAllowed(b, a):
		t = a
	default:
		return types.Type{}, false
	}
	t.NotNull = nn
	return t, true
}

func (p *planner) resolveValues(q *ddl.Values) (*relation, error) {
	l := &lowerer{f: p.f}
	rows := make([][]expr.Expr, len(q.Rows))
	var colTypes []types.Type
	var positions []ddl.Pos
	for i, r := range q.Rows {
		rows[i] = make([]expr.Expr, len(r))
		for j, e := range r {
			le, err := l.lower(e)
			if err != nil {
				return nil, err
			}
			rows[i][j] = le
			if i == 0 {
				colTypes = append(colTypes, le.Type())
				positions = append(positions, e.Position())
				continue
			}
			t, ok := commonType(colTypes[j], le.Type())
			if !ok {
				return nil, p.f.errorAt(e.Position(), ErrType, nil, fmt.Sprintf("VALUES column %d is %s in the first row and %s here, which have no common type",
					j+1, colTypes[j], le.Type()))
			}
			colTypes[j] = t
		}
	}
	for j, t := range colTypes {
		if t.Kind == types.KindNull {
			return nil, p.f.errorAt(q.Rows[0][j].Position(), ErrType, nil, fmt.Sprintf("VALUES column %d is NULL in every row; cast it to give it a type", j+1))
		}
	}
	src := &Source{Pos: q.Pos, Values: rows, RowTypes: colTypes}
	b := &branch{src: src}
	rel := &relation{types: colTypes, pos: positions, branches: []*branch{b}}
	for j, t := range colTypes {
		rel.names = append(rel.names, fmt.Sprintf("EXPR$%d", j))
		b.cols = append(b.cols, expr.Col(j, rel.names[j], t))
	}
	return rel, nil
}

// fromRelation resolves a FROM source into a relation and the qualifiers
// its columns may be referenced with.
func (p *planner) fromRelation(ref ddl.TableRef, depth int) (*relation, [][]string, error) {
	switch ref := ref.(type) {
	case *ddl.Unnest:
		// FROM UNNEST(ARRAY[...]) AS t (x): the elements of an array that
		// reads no table, UNNEST over one row of no columns.
		rel, err := p.unnestRelation(&ddl.Join{Pos: ref.Pos, Kind: ddl.JoinCross, Right: ref}, depth)
		return rel, nil, err
	case *ddl.Subquery:
		if err := p.f.tableRefRefusal(ref); err != nil {
			return nil, nil, err
		}
		if tf := windowTVFPassThrough(ref); tf != nil {
			// (SELECT * FROM TABLE(TUMBLE(...))) AS l, as Flink's window
			// join and window Top-N pages write their inputs: the window
			// table function itself, under the subquery's name.
			return p.fromRelation(tf, depth)
		}
		rel, err := p.resolveQuery(ref.Query, depth+1)
		if err != nil {
			return nil, nil, err
		}
		rel, err = p.renameColumns(rel, ref.ColumnAliases, ref.Pos)
		if err != nil {
			return nil, nil, err
		}
		var quals [][]string
		if ref.Alias != "" {
			quals = [][]string{{ref.Alias}}
		}
		return rel, quals, nil
	case *ddl.TableName:
		if err := p.f.tableNameRefusal(ref); err != nil {
			return nil, nil, err
		}
		if len(ref.Hints) > 0 {
			p.refHints = append(p.refHints, ref.Hints)
		}
		id, err := p.cat.ident(ref.Name)
		if err != nil {
			return nil, nil, p.f.errorAt(ref.Name.Pos, ErrUnknownName, nil, err.Error())
		}
		quals := qualifiers(id)
		if ref.Alias != "" {
			quals = [][]string{{ref.Alias}}
		}
		var rel *relation
		if c, scope, ok := p.cte(ref.Name); ok {
			if len(ref.Hints) > 0 {
				return nil, nil, p.f.errorAt(ref.Hints[0].KeyPos, ErrInvalidTable, nil, fmt.Sprintf("'%s' is a common table expression; OPTIONS hints apply to tables only", c.Name.Name))
			}
			// A CTE sees the CTEs written before it, not those of the
			// place that reads it.
			outer := p.ctes
			p.ctes = scope
			rel, err = p.resolveQuery(c.Query, depth+1)
			p.ctes = outer
			if err != nil {
				return nil, nil, err
			}
			if rel, err = p.renameColumns(rel, c.Columns, c.Pos); err != nil {
				return nil, nil, err
			}
			if ref.Alias == "" {
				quals = [][]string{{c.Name.Name}}
			}
		} else if v, ok := p.cat.View(id); ok {
			if len(ref.Hints) > 0 {
				return nil, nil, p.f.errorAt(ref.Hints[0].KeyPos, ErrInvalidTable, nil, fmt.Sprintf("'%s' is a view; OPTIONS hints apply to tables only", id.Short()))
			}
			// The view's names are those of the database it was
			// created in.
			outer := p.cat.current
			p.cat.current = v.Scope
			rel, err = p.resolveQuery(v.Def.Query, depth+1)
			p.cat.current = outer
			if err != nil {
				return nil, nil, err
			}
			if rel, err = p.renameColumns(rel, v.Def.Columns, v.Def.Pos); err != nil {
				return nil, nil, err
			}
		} else if t, ok := p.cat.Table(id); ok {
			rel, err = p.tableRelation(t, ref)
			if err != nil {
				return nil, nil, err
			}
		} else {
			return nil, nil, p.cat.unknown(p.f, ref.Name, id)
		}
		rel, err = p.renameColumns(rel, ref.ColumnAliases, ref.Pos)
		return rel, quals, err
	}
	if tf, ok := ref.(*ddl.TableFunc); ok && p.f.tableRefRefusal(tf) == nil {
		return p.windowRelation(tf, depth)
	}
	if j, ok := ref.(*ddl.Join); ok && p.f.tableRefRefusal(j) == nil {
		rel, err := p.joinRelation(j, depth, nil, nil)
		return rel, nil, err
	}
	return nil, nil, p.f.tableRefRefusal(ref)
}

func (p *planner) tableRelation(t *Table, ref *ddl.TableName) (*relation, error) {
	sc, rowTypes, err := p.sourceScope(t)
	if err != nil {
		return nil, err
	}
	src, err := p.newSource(t, ref, rowTypes)
	if err != nil {
		return nil, err
	}
	src.mustRead = p.mustReadFields(t, sc)
	if wm := t.Def.Watermark; wm != nil {
		rt, ok := sc.lookup(wm.Column.Name)
		we, err := (&lowerer{f: p.f, sc: sc}).lower(wm.Expr)
		if ok && err == nil {
			src.rowtime, src.watermark = rt, we
		}
	}
	if pk := t.Def.PrimaryKey; pk != nil {
		for _, k := range pk.Columns {
			if e, ok := sc.lookup(k.Name); ok {
				if c, ok := e.(*expr.ColumnRef); ok {
					src.primaryKey = append(src.primaryKey, c.Index)
				}
			}
		}
		if len(src.primaryKey) != len(pk.Columns) {
			src.primaryKey = nil // a computed key column: the source delivers no such key
		}
	}
	b := &branch{src: src}
	rel := &relation{branches: []*branch{b}}
	for _, c := range sc.cols {
		rel.names = append(rel.names, c.name)
		rel.pos = append(rel.pos, ref.Pos)
		rel.types = append(rel.types, c.e.Type())
		b.cols = append(b.cols, c.e)
	}
	return rel, nil
}

func (p *planner) renameColumns(rel *relation, names []ddl.Ident, pos ddl.Pos) (*relation, error) {
	if len(names) == 0 {
		return rel, nil
	}
	if len(names) != len(rel.names) {
		return nil, p.f.errorAt(pos, ErrType, nil, fmt.Sprintf("%d column names given for a query with %d columns", len(names), len(rel.names)))
	}
	out := *rel
	out.names = make([]string, len(names))
	for i, n := range names {
		out.names[i] = n.Name
	}
	return &out, nil
}

func (p *planner) resolveSelect(q *ddl.Select, depth int) (*relation, error) {
	if err := p.f.selectHeadRefusal(q); err != nil {
		return nil, err
	}
	if err := p.f.selectTailRefusal(q); err != nil {
		return nil, err
	}
	if overs := selectOvers(q); len(overs) > 0 && isAggregating(q) {
		// OVER over the aggregation's rows (overagg.go).
		split, err := p.splitOverAggregate(q, overs)
		if err != nil {
			return nil, err
		}
		return p.resolveSelect(split, depth)
	}
	if found, err := p.aggregateScalarSubqueries(q); err != nil {
		return nil, err
	} else if found {
		// A scalar subquery over the aggregation's rows (overagg.go).
		split, err := p.splitScalarAggregate(q)
		if err != nil {
			return nil, err
		}
		return p.resolveSelect(split, depth)
	}
	if err := p.batchJoinHints(q); err != nil {
		return nil, err
	}
	var in *relation
	var quals [][]string
	if j, ok := q.From.(*ddl.Join); ok && isUnnestJoin(j) {
		var err error
		if in, err = p.unnestRelation(j, depth); err != nil {
			return nil, err
		}
	} else if j, ok := q.From.(*ddl.Join); ok {
		// WHERE's conditions on a join's inputs become its keys and the
		// inputs' filters (join.go); q is the query with what remains.
		var err error
		if in, q, err = p.fromJoin(q, j, depth); err != nil {
			return nil, err
		}
	} else if q.From != nil {
		var err error
		switch q.From.(type) {
		case *ddl.Subquery, *ddl.TableName:
			// A ranking subquery, CTE or view stays ranked: this SELECT's
			// WHERE may filter on the rank (rank.go).
			p.allowRanked = true
		}
		in, quals, err = p.fromRelation(q.From, depth)
		p.allowRanked = false
		if err != nil {
			return nil, err
		}
		if in.ranked != nil {
			if in, q, err = p.applyRank(q, in, quals); err != nil {
				return nil, err
			}
		}
	} else {
		// SELECT without FROM: one row of constants.
		in = &relation{branches: []*branch{{src: &Source{Pos: q.Pos, Values: [][]expr.Expr{{}}}}}}
	}
	if q.Where != nil {
		// WHERE's [NOT] IN and [NOT] EXISTS subqueries are semi and anti
		// joins of the FROM (semi.go).
		var err error
		if in, q, err = p.semiJoins(q, in, quals, depth); err != nil {
			return nil, err
		}
	}
	// Scalar subqueries of WHERE and the SELECT list are LEFT JOINs
	// (scalar.go).
	in, q, scalarRewrite, err := p.scalarJoins(q, in, quals, depth)
	if err != nil {
		return nil, err
	}
	overs := selectOvers(q)
	if isAggregating(q) {
		if len(overs) > 0 {
			return nil, p.f.errorAt(overs[0].Pos, ddl.ErrUnsupported, nil, "OVER windows in a query with GROUP BY or aggregate functions are not supported yet; aggregate in a subquery")
		}
		out, err := p.resolveAggregate(q, in, quals)
		if err == nil && q.Distinct {
			out, err = p.distinctRelation(out, q.DistinctPos)
		}
		return out, err
	}
	// OVER in the SELECT list: a ranking function planned by the query
	// that reads this one (rank.go), or OVER aggregates (over.go).
	var rewrite func(ddl.Expr) (expr.Expr, bool, error)
	var ranked *rankedSelect
	if len(overs) > 0 {
		var err error
		if rankingSelect(q, overs) && !p.overSelects[q] {
			ranked, rewrite, err = p.planRanked(q, in, quals, depth, overs)
		} else {
			in, q, rewrite, err = p.planOver(q, in, quals, overs)
		}
		if err != nil {
			return nil, err
		}
	}
	if scalarRewrite != nil {
		rewrite = scalarRewrite // (no OVER beside it: scalarJoins)
	}
	if in.window != nil && ranked == nil {
		// Read as a table: a WindowTableFunction node computes the
		// window columns (window.go).
		var err error
		if in, err = p.windowTableFunction(in); err != nil {
			return nil, err
		}
	}
	out := &relation{}
	for bi, b := range in.branches {
		var sc *scope
		if q.From != nil {
			sc = in.scope(b.cols, quals)
		}
		l := &lowerer{f: p.f, sc: sc, rewrite: rewrite}
		nb := &branch{src: b.src, filters: slices.Clone(b.filters), unnest: b.unnest}
		if q.Where != nil {
			c, err := l.lowerCondition(q.Where)
			if err != nil {
				return nil, err
			}
			nb.filters = append(nb.filters, c)
		}
		var names []string
		var positions []ddl.Pos
		for _, it := range q.Items {
			if it.Star {
				if sc == nil {
					return nil, p.f.errorAt(it.Pos, ErrUnknownName, nil, "SELECT * needs a FROM clause")
				}
				if len(it.StarQualifier) > 0 && !sc.isQualifier(it.StarQualifier) {
					return nil, p.f.errorAt(it.Pos, ErrUnknownName, nil, fmt.Sprintf("unknown table or alias '%s' in '%s.*'",
						joinDots(it.StarQualifier), joinDots(it.StarQualifier)))
				}
				for _, c := range sc.cols {
					if len(it.StarQualifier) > 0 && c.quals != nil && !c.qualifiedBy(it.StarQualifier) {
						continue // another input of the join
					}
					if len(it.StarQualifier) == 0 && c.hidden() {
						continue // a USING join's input column (using.go)
					}
					names = append(names, c.name)
					positions = append(positions, it.Pos)
					nb.cols = append(nb.cols, c.e)
				}
				continue
			}
			e, err := l.lower(it.Expr)
			if err != nil {
				return nil, err
			}
			nb.cols = append(nb.cols, e)
			names = append(names, itemName(it, len(names)))
			positions = append(positions, it.Expr.Position())
		}
		if bi == 0 {
			out.names, out.pos = names, positions
			for _, c := range nb.cols {
				out.types = append(out.types, c.Type())
			}
		} else {
			for i, c := range nb.cols {
				t, ok := commonType(out.types[i], c.Type())
				if !ok {
					return nil, p.f.errorAt(q.Pos, ErrType, nil, fmt.Sprintf("column '%s' is %s in one input of UNION ALL and %s in another, which have no common type",
						out.names[i], out.types[i], c.Type()))
				}
				out.types[i] = t
			}
		}
		out.branches = append(out.branches, nb)
	}
	if dup := duplicate(out.names); dup != "" && depth > 0 {
		return nil, p.f.errorAt(q.Pos, ErrDuplicateName, nil, fmt.Sprintf("column '%s' appears twice in the query's result; give one an alias", dup))
	}
	if ranked != nil {
		out.ranked = ranked
		if ranked.col = rankedColumn(out); ranked.col < 0 {
			// The rank is not selected: nothing can filter on it.
			return p.settleRanked(out)
		}
	}
	if q.Distinct {
		return p.distinctRelation(out, q.DistinctPos)
	}
	return out, nil
}

func duplicate(names []string) string {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return n
		}
		seen[n] = true
	}
	return ""
}

func joinDots(parts []string) string {
	s := ""
	for i, p := range parts {
		if i > 0 {
			s += "."
		}
		s += p
	}
	return s
}

// itemName is the name of a SELECT item: its alias, the column it names,
// or Flink's EXPR$n.
func itemName(it ddl.SelectItem, i int) string {
	if it.Alias != "" {
		return it.Alias
	}
	if c, ok := it.Expr.(*ddl.ColumnRef); ok {
		return c.Parts[len(c.Parts)-1]
	}
	return fmt.Sprintf("EXPR$%d", i)
}

// cteScope is a common table expression in scope.
type cteScope struct {
	name string
	cte  *ddl.CTE
}

// cte returns the common table expression that name (a single-part name)
// refers to, innermost first, and the scope it was defined in (the CTEs
// before it).
func (p *planner) cte(name ddl.ObjectName) (*ddl.CTE, []cteScope, bool) {
	if len(name.Parts) != 1 {
		return nil, nil, false
	}
	for i := len(p.ctes) - 1; i >= 0; i-- {
		if p.ctes[i].name == name.Parts[0].Name {
			return p.ctes[i].cte, p.ctes[:i:i], true
		}
	}
	return nil, nil, false
}

// windowTVFPassThrough returns the window table function a subquery
// passes through unchanged, SELECT * FROM TABLE(TUMBLE(...)) with nothing
// else, renamed to the subquery's alias and column aliases; nil for any
// other subquery. Reading it is reading the function, so the relation
// keeps its window columns for a window join, Top-N or aggregation.
func windowTVFPassThrough(sq *ddl.Subquery) *ddl.TableFunc {
	sel, ok := sq.Query.(*ddl.Select)
	if !ok || sq.Lateral || len(sel.Hints) > 0 || sel.Distinct || sel.Where != nil || sel.GroupBy != nil ||
		sel.Having != nil || len(sel.Windows) > 0 || len(sel.Items) != 1 || !sel.Items[0].Star ||
		len(sel.Items[0].StarQualifier) > 0 {
		return nil
	}
	tf, ok := sel.From.(*ddl.TableFunc)
	if !ok || tf.Lateral || !windowTVFs[strings.ToUpper(tf.Name.String())] {
		return nil
	}
	if len(tf.ColumnAliases) > 0 && len(sq.ColumnAliases) > 0 {
		return nil
	}
	out := *tf
	out.Alias = sq.Alias
	if len(sq.ColumnAliases) > 0 {
		out.ColumnAliases = sq.ColumnAliases
	}
	return &out
}
