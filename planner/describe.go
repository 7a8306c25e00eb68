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
	names, colTypes, rows, err := p.describeRows(s.Pos, s.Name, id)
	if err != nil {
		p.addErr(err)
		return
	}
	p.printRows(s.Pos, "DESCRIBE "+id.Short(), names, colTypes, rows, nil, explain)
}

// describeRows returns DESCRIBE's columns and rows for the table or view
// id, named name at pos.
func (p *planner) describeRows(pos ddl.Pos, name ddl.ObjectName, id Identifier) (names []string, colTypes []types.Type, rows [][]expr.Expr, err error) {
	str := types.String().Nullable()
	names = []string{"name", "type", "null", "key", "extras", "watermark"}
	colTypes = []types.Type{types.String().NotNullable(), types.String().NotNullable(), types.Boolean().NotNullable(), str, str, str}
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
		rel, err := p.resolveQuery(&ddl.Select{Pos: pos, Items: []ddl.SelectItem{{Pos: pos, Star: true}}, From: &ddl.TableName{Pos: name.Pos, Name: name}}, 0)
		if err != nil {
			return nil, nil, nil, err
		}
		for i, n := range rel.names {
			rows = append(rows, []expr.Expr{text(n), text(rel.types[i].Nullable().String()), expr.Lit(colTypes[2], types.Bool(!rel.types[i].NotNull)), null, null, null})
		}
	} else {
		return nil, nil, nil, p.cat.unknown(p.f, name, id)
	}
	return names, colTypes, rows, nil
}

// printRows plans a printed query (as a bare SELECT's) of constant rows
// over columns names of colTypes, keeping those filter (over the rows; nil:
// all) keeps; what names the statement.
func (p *planner) printRows(pos ddl.Pos, what string, names []string, colTypes []types.Type, rows [][]expr.Expr, filter expr.Expr, explain bool) {
	ins := printed(pos, what, names, colTypes, explain)
	fl := &Flow{Source: &Source{Pos: pos, Values: rows, RowTypes: colTypes}, Names: names, Filter: filter}
	for i, n := range names {
		fl.Projection = append(fl.Projection, expr.Col(i, n, colTypes[i]))
	}
	if p.addPrintedFlow(ins, fl, nil, pos) {
		p.plan.Inserts = append(p.plan.Inserts, ins)
	}
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

// show plans a SHOW statement: a printed query of the names it lists,
// sorted as Flink sorts them, or DESCRIBE's rows for SHOW COLUMNS, kept by
// its LIKE pattern (SQL LIKE; ILIKE ignores case).
func (p *planner) show(s *ddl.Show, explain bool) {
	name := types.String().NotNullable()
	var list []string
	var column string
	what := "SHOW"
	switch s.What {
	case ddl.ShowTables, ddl.ShowViews:
		scope := p.cat.current
		switch len(s.From.Parts) {
		case 0:
		case 1, 2:
			scope = p.cat.scopeOf(s.From)
		default:
			p.addErr(p.f.errorAt(s.From.Pos, ErrUnknownName, nil, fmt.Sprintf("SHOW TABLES FROM takes [catalog.]database, not '%s'", s.From)))
			return
		}
		if err := p.cat.checkDatabase(p.f, s.From.Pos, Identifier{Catalog: scope.Catalog, Database: scope.Database}); err != nil {
			p.addErr(err)
			return
		}
		column, what = "table name", "SHOW TABLES"
		if s.What == ddl.ShowViews {
			column, what = "view name", "SHOW VIEWS"
		} else {
			for id := range p.cat.tables {
				if id.Catalog == scope.Catalog && id.Database == scope.Database {
					list = append(list, id.Name)
				}
			}
		}
		for id := range p.cat.views {
			if id.Catalog == scope.Catalog && id.Database == scope.Database {
				list = append(list, id.Name)
			}
		}
	case ddl.ShowDatabases:
		catalog := p.cat.current.Catalog
		if n := len(s.From.Parts); n > 1 {
			p.addErr(p.f.errorAt(s.From.Pos, ErrUnknownName, nil, fmt.Sprintf("SHOW DATABASES FROM takes a catalog name, not '%s'", s.From)))
			return
		} else if n == 1 {
			catalog = s.From.Parts[0].Name
		}
		ci := p.cat.catalogs[catalog]
		if ci == nil {
			p.addErr(p.cat.unknownCatalog(p.f, s.From.Pos, catalog))
			return
		}
		column, what = "database name", "SHOW DATABASES"
		for db := range ci.databases {
			list = append(list, db)
		}
	case ddl.ShowCatalogs:
		column, what = "catalog name", "SHOW CATALOGS"
		for c := range p.cat.catalogs {
			list = append(list, c)
		}
	case ddl.ShowCurrentCatalog:
		column, what = "current catalog name", "SHOW CURRENT CATALOG"
		list = []string{p.cat.current.Catalog}
	case ddl.ShowCurrentDatabase:
		column, what = "current database name", "SHOW CURRENT DATABASE"
		list = []string{p.cat.current.Database}
	case ddl.ShowCreateTable:
		p.showCreateTable(s, explain)
		return
	case ddl.ShowModules:
		column, what = "module name", "SHOW MODULES"
		list = []string{coreModule}
	case ddl.ShowFullModules:
		used := types.Boolean().NotNullable()
		rows := [][]expr.Expr{{expr.Lit(name, types.Str(coreModule)), expr.Lit(used, types.Bool(true))}}
		p.printRows(s.Pos, "SHOW FULL MODULES", []string{"module name", "used"}, []types.Type{name, used}, rows, nil, explain)
		return
	case ddl.ShowUserFunctions:
		column, what = "function name", "SHOW USER FUNCTIONS"
		for n := range p.f.funcs {
			list = append(list, strings.ToLower(n))
		}
	case ddl.ShowColumns:
		id, err := p.cat.ident(s.From)
		if err != nil {
			p.addErr(p.f.errorAt(s.From.Pos, ErrUnknownName, nil, err.Error()))
			return
		}
		names, colTypes, rows, err := p.describeRows(s.Pos, s.From, id)
		if err != nil {
			p.addErr(err)
			return
		}
		filter, err := p.showFilter(s, expr.Col(0, names[0], colTypes[0]))
		if err != nil {
			p.addErr(err)
			return
		}
		p.printRows(s.Pos, "SHOW COLUMNS FROM "+id.Short(), names, colTypes, rows, filter, explain)
		return
	}
	slices.Sort(list)
	var rows [][]expr.Expr
	for _, n := range list {
		rows = append(rows, []expr.Expr{expr.Lit(name, types.Str(n))})
	}
	filter, err := p.showFilter(s, expr.Col(0, column, name))
	if err != nil {
		p.addErr(err)
		return
	}
	p.printRows(s.Pos, what, []string{column}, []types.Type{name}, rows, filter, explain)
}

// showFilter returns the condition of s's LIKE pattern over the name col;
// nil without one.
func (p *planner) showFilter(s *ddl.Show, col expr.Expr) (expr.Expr, error) {
	if s.LikePos == (ddl.Pos{}) {
		return nil, nil
	}
	pattern := s.Like
	if s.ILike {
		col, pattern = expr.Fn("LOWER", col), strings.ToLower(pattern)
	}
	fn := "LIKE"
	if s.NotLike {
		fn = "NOT LIKE"
	}
	e, err := expr.Resolve(expr.Fn(fn, col, expr.Lit(types.String().NotNullable(), types.Str(pattern))))
	if err != nil {
		return nil, p.f.errorAt(s.LikePos, ErrType, err, fmt.Sprintf("the LIKE pattern '%s': %v", s.Like, err))
	}
	return e, nil
}

// showCreateTable plans SHOW CREATE TABLE name: one printed row, the
// table's CREATE TABLE statement as Flink writes it (qualified name, every
// identifier quoted, types in their full form — VARCHAR(2147483647) for
// STRING —, the primary key named PK_<columns> unless named, options sorted
// by key) with the values of secret options masked, which Flink prints.
func (p *planner) showCreateTable(s *ddl.Show, explain bool) {
	id, err := p.cat.ident(s.From)
	if err != nil {
		p.addErr(p.f.errorAt(s.From.Pos, ErrUnknownName, nil, err.Error()))
		return
	}
	t, ok := p.cat.Table(id)
	if !ok {
		if _, isView := p.cat.View(id); isView {
			p.addErr(p.f.unsupported(s.Pos, "SHOW CREATE of a view"))
			return
		}
		p.addErr(p.cat.unknown(p.f, s.From, id))
		return
	}
	def := t.Def
	q := types.QuoteIdent
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s.%s.%s (\n", q(id.Catalog), q(id.Database), q(id.Name))
	var lines []string
	comment := func(c string) string {
		if c == "" {
			return ""
		}
		return " COMMENT '" + strings.ReplaceAll(c, "'", "''") + "'"
	}
	for _, c := range def.Columns {
		switch c.Kind {
		case ddl.ComputedColumn:
			lines = append(lines, fmt.Sprintf("  %s AS %s%s", q(c.Name), unparen(ddl.FormatExpr(c.Expr)), comment(c.Comment)))
		case ddl.MetadataColumn:
			m := " METADATA"
			if c.MetadataKey != "" {
				m += " FROM '" + strings.ReplaceAll(c.MetadataKey, "'", "''") + "'"
			}
			if c.Virtual {
				m += " VIRTUAL"
			}
			lines = append(lines, fmt.Sprintf("  %s %s%s%s", q(c.Name), flinkType(c.Type), m, comment(c.Comment)))
		default:
			lines = append(lines, fmt.Sprintf("  %s %s%s", q(c.Name), flinkType(c.Type), comment(c.Comment)))
		}
	}
	if w := def.Watermark; w != nil {
		lines = append(lines, fmt.Sprintf("  WATERMARK FOR %s AS %s", q(w.Column.Name), unparen(ddl.FormatExpr(w.Expr))))
	}
	if pk := def.PrimaryKey; pk != nil {
		var cols, quoted []string
		for _, c := range pk.Columns {
			cols, quoted = append(cols, c.Name), append(quoted, q(c.Name))
		}
		name := pk.Name
		if name == "" {
			name = "PK_" + strings.Join(cols, "_")
		}
		lines = append(lines, fmt.Sprintf("  CONSTRAINT %s PRIMARY KEY (%s) NOT ENFORCED", q(name), strings.Join(quoted, ", ")))
	}
	b.WriteString(strings.Join(lines, ",\n"))
	b.WriteString("\n)\n")
	if def.Comment != "" {
		fmt.Fprintf(&b, "COMMENT '%s'\n", strings.ReplaceAll(def.Comment, "'", "''"))
	}
	if len(def.PartitionKeys) > 0 {
		var keys []string
		for _, k := range def.PartitionKeys {
			keys = append(keys, q(k.Name))
		}
		fmt.Fprintf(&b, "PARTITIONED BY (%s)\n", strings.Join(keys, ", "))
	}
	opts := map[string]string{}
	for _, o := range def.Options {
		opts[o.Key] = o.Value
	}
	b.WriteString("WITH (\n")
	var kv []string
	for _, o := range factory.MaskedOptions(opts, p.reg) {
		kv = append(kv, fmt.Sprintf("  '%s' = '%s'", strings.ReplaceAll(o.Key, "'", "''"), strings.ReplaceAll(o.Value, "'", "''")))
	}
	b.WriteString(strings.Join(kv, ",\n"))
	b.WriteString("\n)\n")
	str := types.String().NotNullable()
	p.printRows(s.Pos, "SHOW CREATE TABLE "+id.Short(), []string{"result"}, []types.Type{str},
		[][]expr.Expr{{expr.Lit(str, types.Str(b.String()))}}, nil, explain)
}

// flinkType writes t as Flink's LogicalType.asSerializableString does:
// STRING as VARCHAR(2147483647), BYTES as VARBINARY(2147483647),
// TIMESTAMP_LTZ(p) as TIMESTAMP(p) WITH LOCAL TIME ZONE, ROW fields quoted,
// NOT NULL after each type that is.
func flinkType(t types.Type) string {
	var s string
	switch t.Kind {
	case types.KindVarChar:
		s = fmt.Sprintf("VARCHAR(%d)", t.Length)
	case types.KindVarBinary:
		s = fmt.Sprintf("VARBINARY(%d)", t.Length)
	case types.KindTime:
		s = fmt.Sprintf("TIME(%d)", t.Precision)
	case types.KindTimestampLTZ:
		s = fmt.Sprintf("TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	case types.KindArray, types.KindMultiset:
		s = fmt.Sprintf("%s<%s>", t.Kind, flinkType(*t.Elem))
	case types.KindMap:
		s = fmt.Sprintf("MAP<%s, %s>", flinkType(*t.Elem), flinkType(*t.Value))
	case types.KindRow:
		var fs []string
		for _, f := range t.Fields {
			fs = append(fs, types.QuoteIdent(f.Name)+" "+flinkType(f.Type))
		}
		s = "ROW<" + strings.Join(fs, ", ") + ">"
	default:
		s = t.Nullable().String()
	}
	if t.NotNull {
		s += " NOT NULL"
	}
	return s
}
