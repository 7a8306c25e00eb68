package factory

import (
	"slices"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// RowRead says which fields of a ROW value a job reads when it reads only
// some of them (nested projection pushdown, as Flink's
// SupportsProjectionPushDown with nested projection): the planner computes
// it from the paths such as bid.price that the query uses, and a format
// decodes the others of the ROW as NULL without converting them.
//
// Fields[i] is for field i of the ROW type. Rows, when not nil, narrows
// read fields that are ROWs themselves: Rows[i], when not nil, says which
// fields of field i are read; nil means all of them. A nil *RowRead means
// every field of the ROW.
type RowRead struct {
	Fields []bool
	Rows   []*RowRead
}

// Reads reports whether field i is read (true for a nil r).
func (r *RowRead) Reads(i int) bool {
	return r == nil || i >= len(r.Fields) || r.Fields[i]
}

// Row returns what is read of field i, a ROW: nil when all of it (or r
// is nil).
func (r *RowRead) Row(i int) *RowRead {
	if r == nil || i >= len(r.Rows) {
		return nil
	}
	return r.Rows[i]
}

// Fits reports whether r describes a ROW of type t: one flag per field,
// and each narrowed field a ROW that its RowRead fits. A format ignores a
// RowRead that does not fit (it decodes the whole value).
func (r *RowRead) Fits(t types.Type) bool {
	if r == nil {
		return true
	}
	if t.Kind != types.KindRow || len(r.Fields) != len(t.Fields) || (r.Rows != nil && len(r.Rows) != len(t.Fields)) {
		return false
	}
	for i, s := range r.Rows {
		if s != nil && !s.Fits(t.Fields[i].Type) {
			return false
		}
	}
	return true
}

// RowsFit reports whether rows (Context.ReadRows or
// FormatContext.ReadRows) describe the ROW fields of fields: nil, or one
// entry per field, each nil or fitting its field's type.
func RowsFit(rows []*RowRead, fields []types.Field) bool {
	if rows == nil {
		return true
	}
	if len(rows) != len(fields) {
		return false
	}
	for i, r := range rows {
		if !r.Fits(fields[i].Type) {
			return false
		}
	}
	return true
}

// Paths returns the dotted paths of what r reads of a ROW of type t whose
// path is prefix, for EXPLAIN: "prefix" when all of it, else the paths of
// its read fields (nested ones narrowed in turn).
func (r *RowRead) Paths(prefix string, t types.Type) []string {
	if r == nil || !r.Fits(t) {
		return []string{prefix}
	}
	var out []string
	for i, f := range t.Fields {
		if r.Reads(i) {
			out = append(out, r.Row(i).Paths(prefix+"."+f.Name, f.Type)...)
		}
	}
	return out
}

// Equal reports whether r and o say the same.
func (r *RowRead) Equal(o *RowRead) bool {
	if r == nil || o == nil {
		return r == o
	}
	if !slices.Equal(r.Fields, o.Fields) {
		return false
	}
	for i := range max(len(r.Rows), len(o.Rows)) {
		if !r.Row(i).Equal(o.Row(i)) {
			return false
		}
	}
	return true
}

// String renders r as the flags of its fields, a narrowed field followed
// by its own in brackets: "[1 0 1[0 1]]"; "all" for nil.
func (r *RowRead) String() string {
	if r == nil {
		return "all"
	}
	var b strings.Builder
	r.write(&b)
	return b.String()
}

func (r *RowRead) write(b *strings.Builder) {
	b.WriteByte('[')
	for i, f := range r.Fields {
		if i > 0 {
			b.WriteByte(' ')
		}
		if f {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
		if s := r.Row(i); s != nil {
			s.write(b)
		}
	}
	b.WriteByte(']')
}
