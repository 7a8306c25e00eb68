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
		b.WriteString(s.Replace.String() + " ")
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
		if s.AsQuery != nil {
			b.WriteString(" AS " + FormatQuery(s.AsQuery))
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
	case *CreateFunction:
		b.WriteString("CREATE ")
		if s.Temporary {
			b.WriteString("TEMPORARY ")
		}
		if s.System {
			b.WriteString("SYSTEM ")
		}
		b.WriteString("FUNCTION ")
		if s.IfNotExists {
			b.WriteString("IF NOT EXISTS ")
		}
		b.WriteString(s.Name.String() + " AS " + quoteString(s.Class))
		if s.Language != "" {
			b.WriteString(" LANGUAGE " + s.Language)
		}
		for i, j := range s.Jars {
			if i == 0 {
				b.WriteString(" USING")
			} else {
				b.WriteByte(',')
			}
			b.WriteString(" JAR " + quoteString(j))
		}
	case *CreateCatalog:
		b.WriteString("CREATE CATALOG ")
		if s.IfNotExists {
			b.WriteString("IF NOT EXISTS ")
		}
		b.WriteString(s.Name.Name)
		if s.Comment != "" {
			b.WriteString(" COMMENT " + quoteString(s.Comment))
		}
		b.WriteString(" WITH(" + dumpOpts(s.Options) + ")")
	case *CreateDatabase:
		b.WriteString("CREATE DATABASE ")
		if s.IfNotExists {
			b.WriteString("IF NOT EXISTS ")
		}
		b.WriteString(s.Name.String())
		if s.Comment != "" {
			b.WriteString(" COMMENT " + quoteString(s.Comment))
		}
		if s.Options != nil {
			b.WriteString(" WITH(" + dumpOpts(s.Options) + ")")
		}
	case *Jar:
		if s.Remove {
			b.WriteString("REMOVE JAR " + quoteString(s.Path))
		} else {
			b.WriteString("ADD JAR " + quoteString(s.Path))
		}
	case *Use:
		b.WriteString("USE ")
		if s.Catalog {
			b.WriteString("CATALOG ")
		}
		b.WriteString(s.Name.String())
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
		if s.Cascade {
			b.WriteString(" CASCADE")
		}
	case *Insert:
		b.WriteString("INSERT INTO " + s.Target.String())
		formatTableHints(b, s.Hints, s.OtherHints)
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

func dumpQuery(b *strings.Builder, q Query) { b.WriteString(FormatQuery(q)) }
