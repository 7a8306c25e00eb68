package ddl

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// QueryColumn is one output column of the query of CREATE TABLE ... AS
// query: its name (unique among the query's columns) and type.
type QueryColumn struct {
	Name string
	Type types.Type
}

// MergeAs returns the table that CREATE TABLE t ... AS query creates, given
// the query's columns, by Flink's rules for a column list beside AS
// (FLIP-463):
//
//   - Without a column list, the query's columns.
//   - With a list of names only (CREATE TABLE t (c, a, b) AS SELECT a, b, c),
//     the query's columns in the list's order; the list names each of them
//     once.
//   - With column definitions, first the defined columns that are not the
//     query's (physical, metadata or computed, in their order), then the
//     query's columns, each at the type the list gives it when the list
//     defines it too (the query's value is then converted as an INSERT
//     converts it).
//
// Its PRIMARY KEY columns must be columns of the query that are NOT NULL in
// it (they stay NOT NULL); its WATERMARK and PARTITIONED BY columns are
// checked against the result. A physical column that the query does not
// fill must be nullable: it is written as NULL. The result has no query;
// t's name, flags, options and comment. Errors are *Error values at their
// position in t's text. t is not modified.
func MergeAs(t *CreateTable, query []QueryColumn) (*CreateTable, error) {
	if t.AsQuery == nil {
		return nil, fmt.Errorf("ddl: MergeAs: table %s has no AS query", t.Name)
	}
	out := *t
	out.AsQuery, out.Columns = nil, nil
	fail := func(pos Pos, format string, args ...any) (*CreateTable, error) {
		return nil, t.errorAt(pos, fmt.Sprintf(format, args...))
	}
	fromQuery := make(map[string]types.Type, len(query))
	var names []string
	for _, q := range query {
		fromQuery[q.Name] = q.Type
		names = append(names, q.Name)
	}
	listed := func() string { return strings.Join(names, ", ") }
	switch {
	case len(t.Columns) > 0 && t.Columns[0].NameOnly:
		if len(t.Columns) != len(query) {
			return fail(t.Columns[0].Pos, "the column list of CREATE TABLE %s ... AS names %d column(s); the query has %d (%s): a list of names orders all of them",
				t.Name, len(t.Columns), len(query), listed())
		}
		for _, c := range t.Columns {
			typ, ok := fromQuery[c.Name]
			if !ok {
				return fail(c.Pos, "column '%s' is not a column of the query of CREATE TABLE %s ... AS (its columns: %s)", c.Name, t.Name, listed())
			}
			out.Columns = append(out.Columns, &Column{Pos: c.Pos, Name: c.Name, Kind: PhysicalColumn, Type: typ})
		}
	default:
		defined := map[string]*Column{}
		for _, c := range t.Columns {
			if _, ok := fromQuery[c.Name]; ok {
				if c.Kind != PhysicalColumn {
					return fail(c.Pos, "column '%s' of the query of CREATE TABLE %s ... AS cannot be redefined as a %s column; a column list may only change its type",
						c.Name, t.Name, c.Kind)
				}
				defined[c.Name] = c
				continue
			}
			if c.Kind == PhysicalColumn && c.Type.NotNull && !t.isKey(c.Name) {
				return fail(c.TypePos, "column '%s' is NOT NULL and not a column of the query of CREATE TABLE %s ... AS, which would write NULL into it",
					c.Name, t.Name)
			}
			cc := *c
			out.Columns = append(out.Columns, &cc)
		}
		for _, q := range query {
			col := &Column{Pos: t.AsPos, Name: q.Name, Kind: PhysicalColumn, Type: q.Type}
			if c := defined[q.Name]; c != nil {
				col.Pos, col.Type, col.TypePos, col.Comment = c.Pos, c.Type, c.TypePos, c.Comment
			}
			out.Columns = append(out.Columns, col)
		}
	}
	if pk := t.PrimaryKey; pk != nil {
		for _, id := range pk.Columns {
			typ, ok := fromQuery[id.Name]
			switch {
			case !ok && out.column(id.Name) != nil:
				return fail(id.Pos, "PRIMARY KEY column '%s' is not a column of the query of CREATE TABLE %s ... AS, which would write NULL into it", id.Name, t.Name)
			case ok && !typ.NotNull:
				return fail(id.Pos, "PRIMARY KEY column '%s' is nullable in the query of CREATE TABLE %s ... AS; a primary key takes NOT NULL columns (an expression such as COALESCE(%s, ...) is NOT NULL)",
					id.Name, t.Name, id.Name)
			}
		}
	}
	if err := out.checkColumnRefs(); err != nil {
		return nil, err
	}
	return &out, nil
}

// isKey reports whether the column name is one of t's PRIMARY KEY columns.
func (t *CreateTable) isKey(name string) bool {
	return t.PrimaryKey != nil && t.PrimaryKey.has(name)
}

// has reports whether name is one of k's columns.
func (k *PrimaryKey) has(name string) bool {
	for _, c := range k.Columns {
		if c.Name == name {
			return true
		}
	}
	return false
}

// column returns t's column of that name, or nil.
func (t *CreateTable) column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}
