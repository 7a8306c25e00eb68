package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/planner/expr"
)

// JOIN ... USING (c, ...) and NATURAL JOIN, as Calcite (Flink's SQL
// front end) reads them: each common column c joins the inputs on
// left.c = right.c; the join's result lists the common columns first, once
// each, as COALESCE(left.c, right.c) (which, for every join type, is the
// value the matched row holds: the left one for INNER and LEFT joins, the
// right one for RIGHT joins, either for FULL joins), then the left input's
// other columns, then the right input's. An unqualified c is that common
// column; a qualified one (l.c, r.c) still reads that input's own column,
// which SELECT * does not list again.

// hiddenQual marks, among a column's qualifiers, the input columns of
// a USING or NATURAL join that only a qualified name reads: SELECT * and an
// unqualified name see the common column in their place. No SQL name can
// spell it.
var hiddenQual = []string{"\x00using"}

// isHiddenQual reports whether q is hiddenQual.
func isHiddenQual(q []string) bool { return slices.Equal(q, hiddenQual) }

// hidden reports whether the column is an input column of a USING join
// that only a qualified name reads.
func (c *scopeCol) hidden() bool { return slices.ContainsFunc(c.quals, isHiddenQual) }

// visibleColumn returns the index of the column named name that an
// unqualified name reads in rel, -1 when there is none, and ambiguous
// when two inputs of a join below have it.
func (rel *relation) visibleColumn(name string) (i int, ambiguous bool) {
	i = -1
	for k, n := range rel.names {
		if n != name || slices.ContainsFunc(rel.colQualsOf(k), isHiddenQual) {
			continue
		}
		if i >= 0 {
			return i, true
		}
		i = k
	}
	return i, false
}

// usingColumns returns the common columns of join j over inputs of the
// given relations: its USING list or, for NATURAL, the names both inputs'
// visible columns have, in the left input's order.
func (p *planner) usingColumns(j *ddl.Join, left, right *relation) ([]ddl.Ident, error) {
	if !j.Natural {
		for i, a := range j.Using {
			for _, b := range j.Using[:i] {
				if a.Name == b.Name {
					return nil, p.f.errorAt(a.Pos, ErrDuplicateName, nil, fmt.Sprintf("column '%s' appears twice in the USING list", a.Name))
				}
			}
		}
		return j.Using, nil
	}
	var out []ddl.Ident
	for i, n := range left.names {
		if slices.ContainsFunc(left.colQualsOf(i), isHiddenQual) || slices.ContainsFunc(out, func(id ddl.Ident) bool { return id.Name == n }) {
			continue
		}
		if k, _ := right.visibleColumn(n); k >= 0 {
			out = append(out, ddl.Ident{Name: n, Pos: j.Pos})
		}
	}
	return out, nil
}

// usingConds returns the equalities of USING join j's common columns, over
// the join's relation row (the left input's nl columns, then the right
// input's), and each common column's index in either input.
func (p *planner) usingConds(j *ddl.Join, cols []ddl.Ident, left, right *relation) (conds []expr.Expr, li, ri []int, err error) {
	nl := len(left.names)
	for _, c := range cols {
		var at [2]int
		for s, in := range []*relation{left, right} {
			k, ambiguous := in.visibleColumn(c.Name)
			side := [2]string{"left", "right"}[s]
			switch {
			case ambiguous:
				return nil, nil, nil, p.f.errorAt(c.Pos, ErrUnknownName, nil, fmt.Sprintf("column '%s' of the USING list is ambiguous: the %s input of the join has two", c.Name, side))
			case k < 0:
				return nil, nil, nil, p.f.errorAt(c.Pos, ErrUnknownName, nil, fmt.Sprintf("column '%s' of the USING list is not a column of the %s input of the join (it has %s)", c.Name, side, describeNames(in)))
			}
			at[s] = k
		}
		eq, err := expr.Resolve(expr.Fn("=", expr.Col(at[0], c.Name, left.types[at[0]]), expr.Col(nl+at[1], c.Name, right.types[at[1]])))
		if err != nil {
			return nil, nil, nil, p.f.errorAt(c.Pos, ErrType, err, fmt.Sprintf("column '%s' of the USING list is %s in the left input and %s in the right one, which cannot be compared",
				c.Name, left.types[at[0]], right.types[at[1]]))
		}
		conds = append(conds, eq)
		li, ri = append(li, at[0]), append(ri, at[1])
	}
	return conds, li, ri, nil
}

// describeNames lists rel's visible column names for an error.
func describeNames(rel *relation) string {
	var names []string
	for i, n := range rel.names {
		if !slices.ContainsFunc(rel.colQualsOf(i), isHiddenQual) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "no columns"
	}
	return strings.Join(names, ", ")
}

// usingRelation returns the relation of a USING join over the join's
// relation rel (the left input's nl columns, then the right input's): the
// common columns (left input's li, right input's ri) first, then the other
// columns of the left and right inputs, then the common columns' own, which
// only a qualified name reads.
func (p *planner) usingRelation(rel *relation, nl int, cols []ddl.Ident, li, ri []int) (*relation, error) {
	common := map[int]bool{}
	for k := range li {
		common[li[k]] = true
		common[nl+ri[k]] = true
	}
	var order []int // rel's columns after the common ones
	for i := range rel.names {
		if !common[i] {
			order = append(order, i)
		}
	}
	for k := range li {
		order = append(order, li[k], nl+ri[k])
	}
	out := *rel
	out.names, out.pos, out.types, out.colQuals = nil, nil, nil, nil
	out.branches = nil
	for _, c := range cols {
		out.names = append(out.names, c.Name)
		out.pos = append(out.pos, c.Pos)
		out.colQuals = append(out.colQuals, [][]string{}) // no qualifier reads it
	}
	for _, i := range order {
		out.names = append(out.names, rel.names[i])
		out.pos = append(out.pos, rel.pos[i])
		q := slices.Clone(rel.colQualsOf(i))
		if common[i] {
			q = append(q, hiddenQual)
		}
		out.colQuals = append(out.colQuals, q)
	}
	for bi, b := range rel.branches {
		nb := *b
		nb.cols = nil
		for k := range cols {
			c, err := expr.Resolve(expr.Fn("COALESCE", b.cols[li[k]], b.cols[nl+ri[k]]))
			if err != nil {
				return nil, p.f.errorAt(cols[k].Pos, ErrType, err, fmt.Sprintf("column '%s' of the USING list: %v", cols[k].Name, err))
			}
			nb.cols = append(nb.cols, c)
		}
		for _, i := range order {
			nb.cols = append(nb.cols, b.cols[i])
		}
		if bi == 0 {
			for k := range cols {
				out.types = append(out.types, nb.cols[k].Type())
			}
			for _, i := range order {
				out.types = append(out.types, rel.types[i])
			}
		}
		out.branches = append(out.branches, &nb)
	}
	return &out, nil
}
