package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// This file plans UNNEST: FROM t CROSS JOIN UNNEST(t.arr) AS u (x), its
// comma form FROM t, UNNEST(t.arr), and [LEFT] JOIN UNNEST(...) ON cond.
// Flink plans it as a Correlate with its internal UNNEST_ROWS table
// function; it is stateless, so here it is a step of the flow (Flow.Unnest)
// that turns each source row into one row per element before the flow's
// filter and projection, each with the source row's kind.

// Unnest is one UNNEST of a flow.
type Unnest struct {
	// Array is UNNEST's argument over the row the flow has built so far:
	// the source row, then the columns of the Unnests before this one.
	Array expr.Expr
	// Width is the width of that row: this Unnest's columns start there.
	Width int
	// Types are the columns it appends: the element (an ARRAY's or a
	// MULTISET's), the fields of a ROW element, or a MAP's key and value;
	// then the ordinality (INT) when Ordinality is set.
	Types      []types.Type
	Ordinality bool
	// Left is set for LEFT JOIN UNNEST(...) ON ...: a row none of whose
	// elements passes Cond (an empty or NULL array included) comes out
	// once, with NULL for the appended columns.
	Left bool
	// Cond is the join's ON condition over the row with this Unnest's
	// columns (nil: TRUE): an element it does not keep gives no row.
	Cond expr.Expr
	// Replicate, when set, makes this step no UNNEST but the row
	// replication of INTERSECT ALL and EXCEPT ALL (setop.go): Array is
	// then an integer count, the row comes out that many times (never
	// when NULL or not positive), and Types is empty.
	Replicate bool
}

// elemCols is how many columns an element appends (the ordinality aside).
func (u *Unnest) elemCols() int {
	if u.Ordinality {
		return len(u.Types) - 1
	}
	return len(u.Types)
}

// String describes u for EXPLAIN.
func (u *Unnest) String() string {
	if u.Replicate {
		return fmt.Sprintf("REPLICATE ROWS(%s): the row that many times, of the input row's kind", u.Array)
	}
	var b strings.Builder
	if u.Left {
		b.WriteString("LEFT JOIN ")
	}
	fmt.Fprintf(&b, "UNNEST(%s)", u.Array)
	if u.Ordinality {
		b.WriteString(" WITH ORDINALITY")
	}
	if len(u.Types) == 1 {
		fmt.Fprintf(&b, " into column %d", u.Width)
	} else {
		fmt.Fprintf(&b, " into columns %d..%d", u.Width, u.Width+len(u.Types)-1)
	}
	if u.Cond != nil {
		fmt.Fprintf(&b, " ON %s", u.Cond)
	}
	b.WriteString(": one row per element")
	if u.Cond != nil {
		b.WriteString(" it keeps")
	}
	if u.Left {
		b.WriteString(" (one of NULLs when none)")
	}
	b.WriteString(", of the input row's kind")
	return b.String()
}

// unnestColumnTypes returns the columns UNNEST of a value of type t
// appends, without the ordinality; ok is false when t is no collection.
func unnestColumnTypes(t types.Type) (cols []types.Type, names []string, ok bool) {
	switch t.Kind {
	case types.KindArray, types.KindMultiset:
		e := *t.Elem
		if e.Kind == types.KindRow {
			for _, f := range e.Fields {
				cols = append(cols, f.Type.Nullable())
				names = append(names, f.Name)
			}
			return cols, names, true
		}
		return []types.Type{e.Nullable()}, []string{"EXPR$0"}, true
	case types.KindMap:
		return []types.Type{t.Elem.Nullable(), t.Value.Nullable()}, []string{"KEY", "VALUE"}, true
	}
	return nil, nil, false
}

// unnestJoin returns j's UNNEST when j is FROM x CROSS JOIN UNNEST(...),
// its comma form, or [INNER | LEFT] JOIN UNNEST(...) ON cond (left is set
// for LEFT); other join kinds are refused by unnestRelation.
func unnestJoin(j *ddl.Join) (u *ddl.Unnest, left bool, ok bool) {
	u, ok = j.Right.(*ddl.Unnest)
	if !ok {
		return nil, false, false
	}
	return u, j.Kind == ddl.JoinLeft, true
}

// isTrue reports whether e is the literal TRUE.
func isTrue(e ddl.Expr) bool {
	l, ok := e.(*ddl.Literal)
	return ok && l.Kind == ddl.BoolLit && l.Value.Bool()
}

// unnestRelation plans FROM x <join> UNNEST(...): the relation of x's
// columns and then UNNEST's, each branch of x's expanding its rows.
func (p *planner) unnestRelation(j *ddl.Join, depth int) (*relation, error) {
	u, left, _ := unnestJoin(j)
	switch j.Kind {
	case ddl.JoinCross, ddl.JoinComma:
		if j.On != nil {
			return nil, p.f.errorAt(j.On.Position(), ErrType, nil, "CROSS JOIN takes no ON condition")
		}
	case ddl.JoinInner, ddl.JoinLeft:
		if j.On == nil {
			return nil, p.f.errorAt(j.Pos, ErrType, nil, "a JOIN with UNNEST needs an ON condition (ON TRUE for every element)")
		}
	default:
		return nil, p.f.errorAt(j.Pos, ddl.ErrUnsupported, nil, "UNNEST is supported after CROSS JOIN, a comma, JOIN ... ON or LEFT JOIN ... ON (as in Flink), not as the right side of a RIGHT or FULL join")
	}
	if len(j.Using) > 0 || j.Natural {
		return nil, p.f.errorAt(j.Pos, ddl.ErrUnsupported, nil, "a join with UNNEST takes ON or no condition; USING and NATURAL have no columns of UNNEST to name")
	}
	if len(u.Exprs) != 1 {
		return nil, p.f.errorAt(u.Pos, ddl.ErrUnsupported, nil, "UNNEST of more than one array is not supported (Flink 2.2 fails on it); write one UNNEST per array")
	}
	var in *relation
	var quals [][]string
	var err error
	if lj, ok := j.Left.(*ddl.Join); ok {
		if _, _, ok := unnestJoin(lj); ok {
			in, err = p.unnestRelation(lj, depth)
		} else {
			in, quals, err = p.fromRelation(j.Left, depth)
		}
	} else if _, ok := j.Left.(*ddl.Unnest); ok {
		return nil, p.f.errorAt(j.Left.Position(), ddl.ErrUnsupported, nil, "UNNEST must follow the table whose arrays it reads (FROM t CROSS JOIN UNNEST(t.arr))")
	} else if j.Left == nil {
		// FROM UNNEST(...) alone (fromRelation): one row of no columns.
		in = &relation{branches: []*branch{{src: &Source{Pos: u.Pos, Values: [][]expr.Expr{{}}}}}}
	} else {
		in, quals, err = p.fromRelation(j.Left, depth)
	}
	if err != nil {
		return nil, err
	}
	if in.ranked != nil {
		if in, err = p.settleRanked(in); err != nil {
			return nil, err
		}
	}
	if in.window != nil {
		return nil, p.f.errorAt(in.window.pos, ddl.ErrUnsupported, nil,
			"reading a window table function other than by a window aggregation (GROUP BY window_start, window_end) is not supported yet")
	}
	n := len(in.names)
	out := &relation{names: slices.Clone(in.names), pos: slices.Clone(in.pos), types: slices.Clone(in.types), colQuals: make([][][]string, n)}
	for i := range n {
		if q := in.colQualsOf(i); q != nil {
			out.colQuals[i] = q
		} else {
			out.colQuals[i] = quals
		}
	}
	var cols []types.Type
	var uquals [][]string
	if u.Alias != "" {
		uquals = [][]string{{u.Alias}}
	}
	for bi, b := range in.branches {
		sc := in.scope(b.cols, quals)
		arr, err := (&lowerer{f: p.f, sc: sc}).lower(u.Exprs[0])
		if err != nil {
			return nil, err
		}
		ct, names, ok := unnestColumnTypes(arr.Type())
		if !ok {
			return nil, p.f.errorAt(u.Exprs[0].Position(), ErrType, nil, fmt.Sprintf("UNNEST takes an ARRAY, MAP or MULTISET, not %s", arr.Type()))
		}
		if u.WithOrdinality {
			if t := arr.Type(); t.Kind != types.KindMap && t.Elem.Kind == types.KindRow {
				return nil, p.f.errorAt(u.Pos, ddl.ErrUnsupported, nil, "UNNEST ... WITH ORDINALITY of a collection of ROWs is not supported (Flink 2.2 fails on it); unnest without ORDINALITY")
			}
			ct = append(ct, types.Int().NotNullable())
			names = append(names, "ORDINALITY")
		}
		if bi == 0 {
			cols = ct
			if len(u.ColumnAliases) > 0 {
				if len(u.ColumnAliases) != len(ct) {
					return nil, p.f.errorAt(u.Pos, ErrType, nil, fmt.Sprintf("%d column names given for UNNEST, which gives %d column(s) here", len(u.ColumnAliases), len(ct)))
				}
				for i, a := range u.ColumnAliases {
					names[i] = a.Name
				}
			}
			for i, t := range ct {
				out.names = append(out.names, names[i])
				out.pos = append(out.pos, u.Pos)
				out.types = append(out.types, t)
				out.colQuals = append(out.colQuals, uquals)
			}
		} else if !slices.EqualFunc(cols, ct, types.Type.Equal) {
			return nil, p.f.errorAt(u.Exprs[0].Position(), ErrType, nil, "UNNEST's argument has different types in the inputs of a UNION ALL")
		}
		width := len(b.src.RowTypes)
		for _, s := range b.unnest {
			width += len(s.Types)
		}
		st := &Unnest{Array: arr, Width: width, Types: ct, Ordinality: u.WithOrdinality, Left: left}
		nb := &branch{src: b.src, filters: b.filters, cols: slices.Clone(b.cols), unnest: append(slices.Clone(b.unnest), st)}
		for i, t := range ct {
			nb.cols = append(nb.cols, expr.Col(width+i, out.names[n+i], t))
		}
		if j.On != nil && !isTrue(j.On) {
			l := &lowerer{f: p.f, sc: out.scope(nb.cols, nil)}
			c, err := l.lower(j.On)
			if err != nil {
				return nil, err
			}
			if k := c.Type().Kind; k != types.KindBoolean && k != types.KindNull {
				return nil, p.f.errorAt(j.On.Position(), ErrType, nil, fmt.Sprintf("the ON condition must be BOOLEAN, not %s", c.Type()))
			}
			if st.Cond, err = l.lowerCondition(j.On); err != nil {
				return nil, err
			}
		}
		out.branches = append(out.branches, nb)
	}
	return out, nil
}

// compiledUnnest is an Unnest compiled.
type compiledUnnest struct {
	*Unnest
	array *expr.Program
	cond  *expr.Filter
}

// unnestRows appends to out, for the flow's source row in, the rows its
// Unnests build from it (each through emit, the flow's filter and
// projection); fields, when not nil, are the first output row's.
func (ft *CompiledFlow) unnestRows(in types.Row, out []types.Row, fields []types.Value) (_ []types.Row, used bool, err error) {
	row := make([]types.Value, ft.width)
	copy(row, in.Fields)
	var emitted bool
	out, emitted, err = ft.unnestStage(0, row, in.Kind, out, fields)
	return out, emitted && fields != nil, err
}

// unnestStage expands row by Unnest k and those after it.
func (ft *CompiledFlow) unnestStage(k int, row []types.Value, kind types.RowKind, out []types.Row, fields []types.Value) (_ []types.Row, used bool, err error) {
	if k == len(ft.unnest) {
		return ft.emit(kind, row, out, fields)
	}
	u := ft.unnest[k]
	v, err := u.array.Eval(row)
	if err != nil {
		return out, false, err
	}
	cols := row[u.Width : u.Width+len(u.Types)]
	nelem := u.elemCols()
	n, pos := 0, 0
	next := func() error {
		pos++
		if u.Ordinality {
			cols[nelem] = types.Int64(int64(pos))
		}
		if u.cond != nil {
			keep, err := u.cond.Keep(row)
			if err != nil || !keep {
				return err
			}
		}
		n++
		var e bool
		out, e, err = ft.unnestStage(k+1, row, kind, out, fields)
		if e && fields != nil {
			used, fields = true, nil
		}
		return err
	}
	if u.Replicate {
		if !v.IsNull() {
			for range v.Int64() {
				if err := next(); err != nil {
					return out, used, err
				}
			}
		}
		return out, used, nil
	}
	if !v.IsNull() {
		switch t := u.Array.Type(); t.Kind {
		case types.KindArray:
			row := t.Elem.Kind == types.KindRow
			for _, e := range v.List() {
				if row && e.IsNull() {
					continue // Flink's UNNEST skips a NULL ROW element
				}
				setElem(cols[:nelem], e, row)
				if err := next(); err != nil {
					return out, used, err
				}
			}
		case types.KindMultiset:
			row := t.Elem.Kind == types.KindRow
			m := v.Map()
			for i, e := range m.Keys {
				if row && e.IsNull() {
					continue
				}
				for range m.Values[i].Int64() {
					setElem(cols[:nelem], e, row)
					if err := next(); err != nil {
						return out, used, err
					}
				}
			}
		case types.KindMap:
			m := v.Map()
			for i, key := range m.Keys {
				cols[0], cols[1] = key, m.Values[i]
				if err := next(); err != nil {
					return out, used, err
				}
			}
		}
	}
	if n == 0 && u.Left {
		clear(cols)
		out, used, err = ft.unnestStage(k+1, row, kind, out, fields)
	}
	return out, used, err
}

// setElem sets cols to element e: its fields when row is set (e is not
// NULL then), else e itself.
func setElem(cols []types.Value, e types.Value, row bool) {
	if !row {
		cols[0] = e
		return
	}
	copy(cols, e.List())
}

// isUnnestJoin reports whether j is planned by unnestRelation.
func isUnnestJoin(j *ddl.Join) bool {
	_, _, ok := unnestJoin(j)
	return ok
}
