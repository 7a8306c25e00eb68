package planner

import (
	"slices"
	"strings"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// This file computes which fields of a source row a flow reads, so that
// the source's format decodes only those (projection pushdown, Flink's
// SupportsProjectionPushDown with a ProjectableDecodingFormat).

// readFields returns, for each field of fl's source row, whether fl reads
// it: the columns its filter and projection refer to (computed columns
// are inlined there, so their columns count), and the source's mustRead
// (watermark and primary key). It returns nil when every field is read
// or the source is VALUES. rows narrows the ROW columns the flow reads
// only through paths such as bid.price (factory.Context.ReadRows): nil
// when every read column is read whole.
func readFields(fl *Flow) (read []bool, rows []*factory.RowRead) {
	s := fl.Source
	if s.Table == nil {
		return nil, nil
	}
	t := newReadTree(s.RowTypes)
	for _, e := range s.mustRead {
		t.mark(e)
	}
	t.markFlow(fl)
	return t.flags()
}

// markFlow marks what fl's filter, unnests, projection and expansion read.
func (t *readTree) markFlow(fl *Flow) {
	t.mark(fl.Filter)
	for _, u := range fl.Unnest {
		t.mark(u.Array)
		t.mark(u.Cond)
	}
	for _, e := range fl.Projection {
		t.mark(e)
	}
	for _, p := range fl.Expand {
		for _, e := range p {
			t.mark(e)
		}
	}
}

// markRefs sets read[i] for every column i that e refers to (whole: a
// path into a ROW column marks the column).
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

// readTree is what a flow reads of a source row: per field, nil (not
// read), whole, or, for a ROW read only through paths into it, the same
// per field of the ROW.
type readTree struct {
	types  []types.Type
	fields []*readNode
}

type readNode struct {
	whole bool
	sub   *readTree // for a ROW read in part
}

func newReadTree(ts []types.Type) *readTree {
	return &readTree{types: ts, fields: make([]*readNode, len(ts))}
}

// mark records what e reads.
func (t *readTree) mark(e expr.Expr) {
	switch n := e.(type) {
	case nil, *expr.Literal:
	case *expr.ColumnRef:
		t.markPath(n.Index, nil)
	case *expr.Call:
		if root, path, ok := fieldPath(n); ok {
			t.markPath(root, path)
			return
		}
		for _, a := range n.Args {
			t.mark(a)
		}
	case *expr.Cast:
		t.mark(n.Expr)
	case *expr.Case:
		t.mark(n.Operand)
		for _, w := range n.Whens {
			t.mark(w.Cond)
			t.mark(w.Result)
		}
		t.mark(n.Else)
	default:
		// An expression node this walk does not know: read every field
		// rather than miss one.
		for i := range t.fields {
			t.fields[i] = &readNode{whole: true}
		}
	}
}

// markPath records that field i is read at path (field indexes into
// nested ROWs; empty: the whole field).
func (t *readTree) markPath(i int, path []int) {
	if i < 0 || i >= len(t.fields) {
		return
	}
	n := t.fields[i]
	if n == nil {
		n = &readNode{}
		t.fields[i] = n
	}
	if n.whole {
		return
	}
	if len(path) == 0 || t.types[i].Kind != types.KindRow {
		n.whole, n.sub = true, nil
		return
	}
	if n.sub == nil {
		ft := make([]types.Type, len(t.types[i].Fields))
		for j, f := range t.types[i].Fields {
			ft[j] = f.Type
		}
		n.sub = newReadTree(ft)
	}
	n.sub.markPath(path[0], path[1:])
}

// fieldPath reports whether c is a chain of ROW field accesses (r.name,
// r[i] with a literal i) over a column, and returns the column and the
// field indexes from it outwards.
func fieldPath(c *expr.Call) (root int, path []int, ok bool) {
	var rev []int
	var e expr.Expr = c
	for {
		call, isCall := e.(*expr.Call)
		if !isCall {
			break
		}
		if len(call.Args) != 2 || call.Args[0].Type().Kind != types.KindRow {
			return 0, nil, false
		}
		idx, ok := rowFieldIndex(call)
		if !ok {
			return 0, nil, false
		}
		rev = append(rev, idx)
		e = call.Args[0]
	}
	col, isCol := e.(*expr.ColumnRef)
	if !isCol {
		return 0, nil, false
	}
	slices.Reverse(rev)
	return col.Index, rev, true
}

// rowFieldIndex returns the index of the field that c, FIELD(r, 'name')
// or ITEM(r, i) over a ROW r, reads.
func rowFieldIndex(c *expr.Call) (int, bool) {
	fields := c.Args[0].Type().Fields
	lit, ok := c.Args[1].(*expr.Literal)
	if !ok || lit.Val.IsNull() {
		return 0, false
	}
	switch {
	case c.Name == "FIELD" && lit.Typ.IsString():
		for i, f := range fields {
			if f.Name == lit.Val.Str() {
				return i, true
			}
		}
	case c.Name == "ITEM" && lit.Typ.IsInteger():
		if n := lit.Val.Int64(); n >= 1 && n <= int64(len(fields)) {
			return int(n - 1), true
		}
	}
	return 0, false
}

// flags returns the read flags and the narrowed ROW columns of t (see
// readFields).
func (t *readTree) flags() ([]bool, []*factory.RowRead) {
	read := make([]bool, len(t.fields))
	var rows []*factory.RowRead
	for i, n := range t.fields {
		if n == nil {
			continue
		}
		read[i] = true
		if n.sub != nil {
			if rows == nil {
				rows = make([]*factory.RowRead, len(t.fields))
			}
			rows[i] = n.sub.rowRead()
		}
	}
	if !slices.Contains(read, false) {
		read = nil
	}
	return read, rows
}

func (t *readTree) rowRead() *factory.RowRead {
	r := &factory.RowRead{Fields: make([]bool, len(t.fields))}
	for i, n := range t.fields {
		if n == nil {
			continue
		}
		r.Fields[i] = true
		if n.sub != nil {
			if r.Rows == nil {
				r.Rows = make([]*factory.RowRead, len(t.fields))
			}
			r.Rows[i] = n.sub.rowRead()
		}
	}
	return r
}

// mustReadFields returns the expressions over the source row of t whose
// fields every reader of t reads whatever its query uses, as Flink keeps
// them: the WATERMARK expression (Flink computes it for every row, so a
// bad value there fails the record) and the PRIMARY KEY columns (a
// changelog source's rows are identified by them). sc is t's source
// scope.
func (p *planner) mustReadFields(t *Table, sc *scope) []expr.Expr {
	var out []expr.Expr
	if wm := t.Def.Watermark; wm != nil {
		if e, err := (&lowerer{f: p.f, sc: sc}).lower(wm.Expr); err == nil {
			out = append(out, e)
		}
	}
	if t.Def.PrimaryKey != nil {
		for _, k := range t.Def.PrimaryKey.Columns {
			if e, ok := sc.lookup(k.Name); ok {
				out = append(out, e)
			}
		}
	}
	return out
}

// projectedNames returns the names of the source row fields read marks,
// and the paths into ROW columns that rows narrows, for EXPLAIN.
func (s *Source) projectedNames(read []bool, rows []*factory.RowRead) string {
	var names []string
	for i, c := range s.Schema.Columns {
		if read != nil && (i >= len(read) || !read[i]) {
			continue
		}
		if i < len(rows) && rows[i] != nil && i < len(s.RowTypes) {
			names = append(names, rows[i].Paths(c.Name, s.RowTypes[i])...)
		} else {
			names = append(names, c.Name)
		}
	}
	return "[" + strings.Join(names, ", ") + "]"
}
