package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// describe plans DESCRIBE name: a printed query of one row per column of
// the table or view, with Flink's DESCRIBE columns — name, type (a
// rowtime column's marked *ROWTIME*, a PROCTIME() column's *PROCTIME*),
// null (whether it is nullable), key (PRI(cols) on primary key columns),
// extras (AS expr of a computed column, METADATA ... of a metadata
// column) and watermark (the WATERMARK's expression on its column), then
// comment when a column has one. Expressions are written as streamsql
// formats them (Flink writes fewer parentheses inside a nested one). A
// column that CREATE TABLE ... AS took from a time attribute of its query
// is not marked *ROWTIME* unless the table's WATERMARK is on it (Flink's
// DESCRIBE marks it: the type it keeps is the query's time attribute).
func (p *planner) describe(s *ddl.Describe, explain bool) {
	id, err := p.cat.ident(s.Name)
	if err != nil {
		p.addErr(p.f.errorAt(s.Name.Pos, ErrUnknownName, nil, err.Error()))
		return
	}
	str := types.String().Nullable()
	names := []string{"name", "type", "null", "key", "extras", "watermark"}
	colTypes := []types.Type{types.String().NotNullable(), types.String().NotNullable(), types.Boolean().NotNullable(), str, str, str}
	var rows [][]expr.Expr
	text := func(s string) expr.Expr { return expr.Lit(types.String().NotNullable(), types.Str(s)) }
	null := expr.Lit(str, types.Value{})
	if t, ok := p.cat.Table(id); ok {
		def := t.Def
		var key string
		var keyCols []string
		if def.PrimaryKey != nil {
			for _, c := range def.PrimaryKey.Columns {
				keyCols = append(keyCols, c.Name)
			}
			key = "PRI(" + strings.Join(keyCols, ", ") + ")"
		}
		comments := false
		for _, c := range def.Columns {
			comments = comments || c.Comment != ""
		}
		if comments {
			names, colTypes = append(names, "comment"), append(colTypes, str)
		}
		for i, c := range def.Columns {
			typ := t.Schema.Columns[i].Type
			typText := typ.Nullable().String()
			row := []expr.Expr{text(c.Name), nil, expr.Lit(colTypes[2], types.Bool(!typ.NotNull)), null, null, null}
			switch {
			case def.Watermark != nil && def.Watermark.Column.Name == c.Name:
				typText += " *ROWTIME*"
				row[5] = text(unparen(ddl.FormatExpr(def.Watermark.Expr)))
			case c.Kind == ddl.ComputedColumn && isProctime(c.Expr):
				typText += " *PROCTIME*"
			}
			row[1] = text(typText)
			if slices.Contains(keyCols, c.Name) {
				row[3] = text(key)
			}
			switch c.Kind {
			case ddl.ComputedColumn:
				row[4] = text("AS " + unparen(ddl.FormatExpr(c.Expr)))
			case ddl.MetadataColumn:
				m := "METADATA"
				if c.MetadataKey != "" {
					m += fmt.Sprintf(" FROM '%s'", c.MetadataKey)
				}
				if c.Virtual {
					m += " VIRTUAL"
				}
				row[4] = text(m)
			}
			if comments {
				if c.Comment != "" {
					row = append(row, text(c.Comment))
				} else {
					row = append(row, null)
				}
			}
			rows = append(rows, row)
		}
	} else if _, ok := p.cat.View(id); ok {
		rel, err := p.resolveQuery(&ddl.Select{Pos: s.Pos, Items: []ddl.SelectItem{{Pos: s.Pos, Star: true}}, From: &ddl.TableName{Pos: s.Name.Pos, Name: s.Name}}, 0)
		if err != nil {
			p.addErr(err)
			return
		}
		for i, n := range rel.names {
			rows = append(rows, []expr.Expr{text(n), text(rel.types[i].Nullable().String()), expr.Lit(colTypes[2], types.Bool(!rel.types[i].NotNull)), null, null, null})
		}
	} else {
		p.addErr(p.cat.unknown(p.f, s.Name, id))
		return
	}
	sink := &Sink{Pos: s.Pos, Print: true, Changelog: factory.AllKinds, DeliveryGuarantee: string(factory.AtLeastOnce)}
	fl := &Flow{Source: &Source{Pos: s.Pos, Values: rows, RowTypes: colTypes}, Names: names}
	for i, n := range names {
		sink.Fields = append(sink.Fields, types.Field{Name: n, Type: colTypes[i]})
		fl.Projection = append(fl.Projection, expr.Col(i, n, colTypes[i]))
	}
	ins := &Insert{Pos: s.Pos, Statement: "DESCRIBE " + id.Short() + " (printed)", Sink: sink, Explain: explain}
	fl.ReadFields, fl.ReadRows = readFields(fl)
	if err := p.sinkChangelog(ins, fl, nil); err != nil {
		p.addErr(err)
		return
	}
	ins.Flows = append(ins.Flows, fl)
	p.plan.Inserts = append(p.plan.Inserts, ins)
}

// isProctime reports whether e is PROCTIME().
func isProctime(e ddl.Expr) bool {
	c, ok := e.(*ddl.Call)
	return ok && c.Name == "PROCTIME" && len(c.Args) == 0
}

// unparen takes away the parentheses around all of s ("(a + b)" gives
// "a + b"; "(a) + (b)" stays).
func unparen(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	for i := 0; i < len(s)-1; i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 {
			return s // the first '(' closes before the end
		}
	}
	return s[1 : len(s)-1]
}
