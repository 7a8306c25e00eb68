package ddl

import (
	"fmt"
	"slices"
)

// AlterTableDef returns the definition of table t after ALTER TABLE a (any
// kind but RENAME TO, whose new name the caller's catalog checks), by
// Flink's rules: SET adds or replaces options and RESET removes them; ADD
// puts new columns last, FIRST or AFTER a column, and a PRIMARY KEY or
// WATERMARK the table has none of; MODIFY replaces existing ones (a column
// stays where it was unless moved); DROP removes columns no computed
// column, WATERMARK or PRIMARY KEY reads, the PRIMARY KEY (its columns stay
// NOT NULL) or the WATERMARK; RENAME renames a column no expression reads.
// PRIMARY KEY, PARTITIONED BY and WATERMARK columns are checked against
// the result, and key columns become NOT NULL. Errors are *Error values at
// their position in a's text. Neither t nor a is modified.
func AlterTableDef(t *CreateTable, a *AlterTable) (*CreateTable, error) {
	out := *t
	out.Columns = make([]*Column, len(t.Columns))
	for i, c := range t.Columns {
		cc := *c
		out.Columns[i] = &cc
	}
	out.Options = slices.Clone(t.Options)
	out.PartitionKeys = slices.Clone(t.PartitionKeys)
	if t.PrimaryKey != nil {
		pk := *t.PrimaryKey
		pk.Columns = slices.Clone(pk.Columns)
		out.PrimaryKey = &pk
	}
	fail := func(pos Pos, format string, args ...any) (*CreateTable, error) {
		return nil, a.errorAt(pos, fmt.Sprintf(format, args...))
	}
	index := func(name string) int {
		return slices.IndexFunc(out.Columns, func(c *Column) bool { return c.Name == name })
	}
	switch a.Kind {
	case AlterSet:
		for _, o := range a.Options {
			if i := slices.IndexFunc(out.Options, func(x Option) bool { return x.Key == o.Key }); i >= 0 {
				out.Options[i] = o
			} else {
				out.Options = append(out.Options, o)
			}
		}
	case AlterReset:
		for _, k := range a.Reset {
			out.Options = slices.DeleteFunc(out.Options, func(x Option) bool { return x.Key == k.Name })
		}
	case AlterAdd, AlterModify:
		add := a.Kind == AlterAdd
		for i, c := range a.Columns {
			at := index(c.Name)
			switch {
			case add && at >= 0:
				return fail(c.Pos, "column '%s' is already a column of %s; ALTER TABLE ... MODIFY changes it", c.Name, t.Name)
			case !add && at < 0:
				return fail(c.Pos, "column '%s' is not a column of %s%s; ALTER TABLE ... ADD adds it", c.Name, t.Name, didYouMean(c.Name, out.Columns))
			}
			cc := *c
			pos := a.Positions[i]
			if !add && !pos.First && pos.After.Name == "" {
				out.Columns[at] = &cc
				continue
			}
			if !add {
				out.Columns = slices.Delete(out.Columns, at, at+1)
			}
			to := len(out.Columns)
			switch {
			case pos.First:
				to = 0
			case pos.After.Name != "":
				k := index(pos.After.Name)
				if k < 0 || pos.After.Name == c.Name {
					return fail(pos.After.Pos, "AFTER '%s': not another column of %s%s", pos.After.Name, t.Name, didYouMean(pos.After.Name, out.Columns))
				}
				to = k + 1
			}
			out.Columns = slices.Insert(out.Columns, to, &cc)
		}
		if pk := a.PrimaryKey; pk != nil {
			switch {
			case add && out.PrimaryKey != nil:
				return fail(pk.Pos, "%s already has a PRIMARY KEY; ALTER TABLE ... MODIFY replaces it", t.Name)
			case !add && out.PrimaryKey == nil:
				return fail(pk.Pos, "%s has no PRIMARY KEY to modify; ALTER TABLE ... ADD adds one", t.Name)
			}
			k := *pk
			out.PrimaryKey = &k
		}
		if w := a.Watermark; w != nil {
			switch {
			case add && out.Watermark != nil:
				return fail(w.Pos, "%s already has a WATERMARK; ALTER TABLE ... MODIFY replaces it", t.Name)
			case !add && out.Watermark == nil:
				return fail(w.Pos, "%s has no WATERMARK to modify; ALTER TABLE ... ADD adds one", t.Name)
			}
			out.Watermark = w
		}
	case AlterDrop:
		switch {
		case a.DropPrimaryKey:
			if out.PrimaryKey == nil {
				return fail(a.Pos, "%s has no PRIMARY KEY to drop", t.Name)
			}
			out.PrimaryKey = nil // its columns stay NOT NULL, as in Flink
		case a.DropWatermark:
			if out.Watermark == nil {
				return fail(a.Pos, "%s has no WATERMARK to drop", t.Name)
			}
			out.Watermark = nil
		}
		for _, d := range a.Drop {
			at := index(d.Name)
			if at < 0 {
				return fail(d.Pos, "column '%s' is not a column of %s%s", d.Name, t.Name, didYouMean(d.Name, out.Columns))
			}
			out.Columns = slices.Delete(out.Columns, at, at+1)
		}
		for _, d := range a.Drop {
			if user := out.reader(d.Name); user != "" {
				return fail(d.Pos, "column '%s' of %s cannot be dropped: %s reads it", d.Name, t.Name, user)
			}
		}
	case AlterRenameColumn:
		at := index(a.Column.Name)
		switch {
		case at < 0:
			return fail(a.Column.Pos, "column '%s' is not a column of %s%s", a.Column.Name, t.Name, didYouMean(a.Column.Name, out.Columns))
		case index(a.NewColumn.Name) >= 0:
			return fail(a.NewColumn.Pos, "column '%s' is already a column of %s", a.NewColumn.Name, t.Name)
		}
		if user := out.exprReader(a.Column.Name); user != "" {
			return fail(a.Column.Pos, "column '%s' of %s cannot be renamed: %s reads it", a.Column.Name, t.Name, user)
		}
		old, name := a.Column.Name, a.NewColumn.Name
		out.Columns[at].Name = name
		if out.PrimaryKey != nil {
			for i, k := range out.PrimaryKey.Columns {
				if k.Name == old {
					out.PrimaryKey.Columns[i].Name = name
				}
			}
		}
		for i, k := range out.PartitionKeys {
			if k.Name == old {
				out.PartitionKeys[i].Name = name
			}
		}
		if out.Watermark != nil && out.Watermark.Column.Name == old {
			w := *out.Watermark
			w.Column.Name = name
			out.Watermark = &w
		}
	default:
		return nil, fmt.Errorf("ddl: AlterTableDef: ALTER TABLE %s: kind %d is not a change of its definition", t.Name, a.Kind)
	}
	if err := out.checkColumnRefs(); err != nil {
		return nil, a.errorAt(a.Pos, err.Message)
	}
	return &out, nil
}

// reader names what of t reads column name (a computed column, the
// WATERMARK, the PRIMARY KEY, PARTITIONED BY), or "".
func (t *CreateTable) reader(name string) string {
	if user := t.exprReader(name); user != "" {
		return user
	}
	if t.Watermark != nil && t.Watermark.Column.Name == name {
		return "the WATERMARK"
	}
	if t.PrimaryKey != nil && t.PrimaryKey.has(name) {
		return "the PRIMARY KEY"
	}
	if slices.ContainsFunc(t.PartitionKeys, func(k Ident) bool { return k.Name == name }) {
		return "PARTITIONED BY"
	}
	return ""
}

// exprReader names the computed column or WATERMARK whose expression reads
// column name, or "".
func (t *CreateTable) exprReader(name string) string {
	reads := func(e Expr) bool {
		found := false
		Walk(e, func(x Expr) bool {
			if r, ok := x.(*ColumnRef); ok && len(r.Parts) > 0 && r.Parts[0] == name {
				found = true
			}
			return !found
		})
		return found
	}
	for _, c := range t.Columns {
		if c.Kind == ComputedColumn && reads(c.Expr) {
			return "computed column '" + c.Name + "'"
		}
	}
	if t.Watermark != nil && reads(t.Watermark.Expr) {
		return "the WATERMARK's expression"
	}
	return ""
}

// errorAt returns an *Error at pos in a's source text.
func (a *AlterTable) errorAt(pos Pos, msg string) *Error {
	if a.src == nil {
		return &Error{Line: pos.Line, Column: pos.Column, Offset: pos.Offset, Message: msg, Err: ErrSyntax}
	}
	return a.src.errorAt(pos, ErrSyntax, msg)
}
