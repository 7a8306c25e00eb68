package planner

import (
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/planner/expr"
)

// This file computes which fields of a source row a flow reads, so that
// the source's format decodes only those (projection pushdown, Flink's
// SupportsProjectionPushDown with a ProjectableDecodingFormat).

// readFields returns, for each field of fl's source row, whether fl reads
// it: the columns its filter and projection refer to (computed columns
// are inlined there, so their columns count), and the source's mustRead
// (watermark and primary key). It returns nil when every field is read
// or the source is VALUES.
func readFields(fl *Flow) []bool {
	s := fl.Source
	if s.Table == nil {
		return nil
	}
	read := make([]bool, len(s.RowTypes))
	for _, i := range s.mustRead {
		read[i] = true
	}
	markRefs(fl.Filter, read)
	for _, e := range fl.Projection {
		markRefs(e, read)
	}
	for _, p := range fl.Expand {
		for _, e := range p {
			markRefs(e, read)
		}
	}
	if !slices.Contains(read, false) {
		return nil
	}
	return read
}

// markRefs sets read[i] for every column i that e refers to.
func markRefs(e expr.Expr, read []bool) {
	switch n := e.(type) {
	case nil:
	case *expr.ColumnRef:
		if n.Index >= 0 && n.Index < len(read) {
			read[n.Index] = true
		}
	case *expr.Call:
		for _, a := range n.Args {
			markRefs(a, read)
		}
	case *expr.Cast:
		markRefs(n.Expr, read)
	case *expr.Case:
		markRefs(n.Operand, read)
		for _, w := range n.Whens {
			markRefs(w.Cond, read)
			markRefs(w.Result, read)
		}
		markRefs(n.Else, read)
	case *expr.Literal:
	default:
		// An expression node this walk does not know: read every field
		// rather than miss one.
		for i := range read {
			read[i] = true
		}
	}
}

// mustReadFields returns the source row positions of t that every reader
// of t reads whatever its query uses, as Flink keeps them: the columns of
// the WATERMARK expression (Flink computes it for every row, so a bad
// value there fails the record) and of the PRIMARY KEY (a changelog
// source's rows are identified by it). sc is t's source scope.
func (p *planner) mustReadFields(t *Table, sc *scope) []int {
	var read []bool
	n := 0
	for _, c := range t.Def.Columns {
		if c.Kind != ddl.ComputedColumn {
			n++
		}
	}
	read = make([]bool, n)
	if wm := t.Def.Watermark; wm != nil {
		if e, err := (&lowerer{f: p.f, sc: sc}).lower(wm.Expr); err == nil {
			markRefs(e, read)
		}
	}
	if t.Def.PrimaryKey != nil {
		for _, k := range t.Def.PrimaryKey.Columns {
			if e, ok := sc.lookup(k.Name); ok {
				markRefs(e, read)
			}
		}
	}
	var out []int
	for i, r := range read {
		if r {
			out = append(out, i)
		}
	}
	return out
}

// projectedNames returns the names of the source row fields read marks,
// for EXPLAIN.
func (s *Source) projectedNames(read []bool) string {
	var names []string
	for i, c := range s.Schema.Columns {
		if i < len(read) && read[i] {
			names = append(names, c.Name)
		}
	}
	return "[" + strings.Join(names, ", ") + "]"
}
