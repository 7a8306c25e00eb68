package ddl

import (
	"fmt"
	"strings"
)

// dump renders a statement as compact text that shows every field the
// parser fills in, so that table tests can state expectations in one line.
func dump(s Statement) string {
	var b strings.Builder
	dumpStmt(&b, s)
	return b.String()
}

func dumpOpts(opts []Option) string {
	var parts []string
	for _, o := range opts {
		parts = append(parts, quoteString(o.Key)+"="+quoteString(o.Value))
	}
	return strings.Join(parts, ",")
}

func dumpIdents(ids []Ident) string {
	var parts []string
	for _, id := range ids {
		parts = append(parts, id.Name)
	}
	return strings.Join(parts, ",")
}

func dumpStmt(b *strings.Builder, s Statement) {
	switch s := s.(type) {
	case *Set:
		if s.Key == "" {
			b.WriteString("SET")
			return
		}
		fmt.Fprintf(b, "SET %s=%s", quoteString(s.Key), quoteString(s.Value))
	case *Reset:
		b.WriteString("RESET")
		if s.Key != "" {
			b.WriteString(" " + quoteString(s.Key))
		}
	case *CreateTable:
		b.WriteString("CREATE ")
		if s.Temporary {
			b.WriteString("TEMPORARY ")
		}
		b.WriteString("TABLE ")
		if s.IfNotExists {
			b.WriteString("IF NOT EXISTS ")
		}
		b.WriteString(s.Name.String())
		b.WriteString(" (")
		for i, c := range s.Columns {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(c.Name)
			switch c.Kind {
			case ComputedColumn:
				b.WriteString(" AS " + FormatExpr(c.Expr))
			default:
				b.WriteString(" " + c.Type.String())
			}
			if c.Kind == MetadataColumn {
				b.WriteString(" METADATA")
				if c.MetadataKey != "" {
					b.WriteString(" FROM " + quoteString(c.MetadataKey))
				}
				if c.Virtual {
					b.WriteString(" VIRTUAL")
				}
			}
			if c.Comment != "" {
				b.WriteString(" COMMENT " + quoteString(c.Comment))
			}
		}
		b.WriteString(")")
		if s.Watermark != nil {
			fmt.Fprintf(b, " WATERMARK %s AS %s", s.Watermark.Column.Name, FormatExpr(s.Watermark.Expr))
		}
		if s.PrimaryKey != nil {
			b.WriteString(" PK")
			if s.PrimaryKey.Name != "" {
				b.WriteString(" " + s.PrimaryKey.Name)
			}
			b.WriteString("(" + dumpIdents(s.PrimaryKey.Columns) + ")")
		}
		if s.Comment != "" {
			b.WriteString(" COMMENT " + quoteString(s.Comment))
		}
		if len(s.PartitionKeys) > 0 {
			b.WriteString(" PARTITIONED(" + dumpIdents(s.PartitionKeys) + ")")
		}
		if s.Options != nil {
			b.WriteString(" WITH(" + dumpOpts(s.Options) + ")")
		}
		if s.Like != nil {
			b.WriteString(" LIKE " + s.Like.Source.String())
			if len(s.Like.Options) > 0 {
				var parts []string
				for _, o := range s.Like.Options {
					parts = append(parts, o.Strategy.String()+" "+o.Feature.String())
				}
				b.WriteString("(" + strings.Join(parts, ",") + ")")
			}
		}
	case *CreateView:
		b.WriteString("CREATE ")
		if s.Temporary {
			b.WriteString("TEMPORARY ")
		}
		b.WriteString("VIEW ")
		if s.IfNotExists {
			b.WriteString("IF NOT EXISTS ")
		}
		b.WriteString(s.Name.String())
		if s.Columns != nil {
			b.WriteString("(" + dumpIdents(s.Columns) + ")")
		}
		if s.Comment != "" {
			b.WriteString(" COMMENT " + quoteString(s.Comment))
		}
		b.WriteString(" AS ")
		dumpQuery(b, s.Query)
	case *Drop:
		b.WriteString("DROP ")
		if s.Temporary {
			b.WriteString("TEMPORARY ")
		}
		b.WriteString(s.Kind.String() + " ")
		if s.IfExists {
			b.WriteString("IF EXISTS ")
		}
		b.WriteString(s.Name.String())
	case *Insert:
		b.WriteString("INSERT INTO " + s.Target.String())
		if s.Hints != nil {
			b.WriteString(" OPTIONS(" + dumpOpts(s.Hints) + ")")
		}
		if s.Columns != nil {
			b.WriteString(" (" + dumpIdents(s.Columns) + ")")
		}
		b.WriteString(" ")
		dumpQuery(b, s.Query)
	case *StatementSet:
		b.WriteString("SET{")
		for i, in := range s.Inserts {
			if i > 0 {
				b.WriteString("; ")
			}
			dumpStmt(b, in)
		}
		b.WriteString("}")
	case *Explain:
		b.WriteString("EXPLAIN ")
		if len(s.Details) > 0 {
			b.WriteString(strings.Join(s.Details, ",") + " ")
		}
		dumpStmt(b, s.Statement)
	case *QueryStatement:
		dumpQuery(b, s.Query)
	default:
		fmt.Fprintf(b, "<%T>", s)
	}
}

func dumpQuery(b *strings.Builder, q Query) {
	switch q := q.(type) {
	case *Select:
		b.WriteString("SELECT ")
		for i, it := range q.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			if it.Star {
				for _, p := range it.StarQualifier {
					b.WriteString(p + ".")
				}
				b.WriteString("*")
				continue
			}
			b.WriteString(FormatExpr(it.Expr))
			if it.Alias != "" {
				b.WriteString(" AS " + it.Alias)
			}
		}
		switch f := q.From.(type) {
		case *TableName:
			b.WriteString(" FROM " + f.Name.String())
			if f.Hints != nil {
				b.WriteString(" OPTIONS(" + dumpOpts(f.Hints) + ")")
			}
			if f.Alias != "" {
				b.WriteString(" " + f.Alias)
			}
			if f.ColumnAliases != nil {
				b.WriteString("(" + dumpIdents(f.ColumnAliases) + ")")
			}
		case *Subquery:
			b.WriteString(" FROM (")
			dumpQuery(b, f.Query)
			b.WriteString(")")
			if f.Alias != "" {
				b.WriteString(" " + f.Alias)
			}
			if f.ColumnAliases != nil {
				b.WriteString("(" + dumpIdents(f.ColumnAliases) + ")")
			}
		}
		if q.Where != nil {
			b.WriteString(" WHERE " + FormatExpr(q.Where))
		}
	case *Union:
		b.WriteString("(")
		dumpQuery(b, q.Left)
		b.WriteString(" UNION ALL ")
		dumpQuery(b, q.Right)
		b.WriteString(")")
	case *Values:
		b.WriteString("VALUES ")
		for i, r := range q.Rows {
			if i > 0 {
				b.WriteString(", ")
			}
			var parts []string
			for _, e := range r {
				parts = append(parts, FormatExpr(e))
			}
			b.WriteString("(" + strings.Join(parts, ", ") + ")")
		}
	default:
		fmt.Fprintf(b, "<%T>", q)
	}
}
