package ddl

import "strings"

// FormatQuery returns q as Flink SQL text that parses back to the same
// tree: expressions as FormatExpr prints them, names quoted where they
// must be, hints as /*+ ... */ comments, the operands of set operations
// and joins in parentheses where the tree needs them, and the short forms
// written out (ROWS n PRECEDING as ROWS BETWEEN n PRECEDING AND CURRENT
// ROW, UNION DISTINCT as UNION). EXPLAIN output and tests use it.
func FormatQuery(q Query) string {
	var b strings.Builder
	formatQuery(&b, q)
	return b.String()
}

func formatQuery(b *strings.Builder, q Query) {
	switch q := q.(type) {
	case nil:
		b.WriteString("<nil>")
	case *Select:
		formatSelect(b, q)
	case *Values:
		b.WriteString("VALUES ")
		for i, r := range q.Rows {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			formatArgs(b, r)
			b.WriteByte(')')
		}
	case *SetOp:
		formatOperand(b, q.Left)
		b.WriteString(" " + q.Kind.String())
		if q.All {
			b.WriteString(" ALL")
		}
		b.WriteByte(' ')
		formatOperand(b, q.Right)
	case *With:
		b.WriteString("WITH ")
		for i, c := range q.CTEs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quoteIdentIfNeeded(c.Name.Name))
			if c.Columns != nil {
				b.WriteString(" " + formatIdents(c.Columns))
			}
			b.WriteString(" AS (")
			formatQuery(b, c.Query)
			b.WriteByte(')')
		}
		b.WriteByte(' ')
		formatQuery(b, q.Body)
	case *OrderBy:
		switch q.Query.(type) {
		case *OrderBy, *With:
			b.WriteByte('(')
			formatQuery(b, q.Query)
			b.WriteByte(')')
		default:
			formatQuery(b, q.Query)
		}
		if q.Items != nil {
			b.WriteString(" ORDER BY ")
			formatOrderItems(b, q.Items)
		}
		if q.Limit && q.Fetch != nil {
			b.WriteString(" LIMIT ")
			formatExpr(b, q.Fetch)
		}
		if q.Offset != nil {
			b.WriteString(" OFFSET ")
			formatExpr(b, q.Offset)
			if !q.Limit {
				b.WriteString(" ROWS")
			}
		}
		if !q.Limit && q.Fetch != nil {
			b.WriteString(" FETCH NEXT ")
			formatExpr(b, q.Fetch)
			b.WriteString(" ROWS ONLY")
		}
	default:
		b.WriteString("<unknown query>")
	}
}

// formatOperand prints an operand of a set operation, in parentheses when
// it is not a single SELECT or VALUES.
func formatOperand(b *strings.Builder, q Query) {
	switch q.(type) {
	case *Select, *Values:
		formatQuery(b, q)
	default:
		b.WriteByte('(')
		formatQuery(b, q)
		b.WriteByte(')')
	}
}

func formatSelect(b *strings.Builder, q *Select) {
	b.WriteString("SELECT ")
	if q.Hints != nil {
		formatHints(b, q.Hints)
		b.WriteByte(' ')
	}
	if q.Distinct {
		b.WriteString("DISTINCT ")
	}
	for i, it := range q.Items {
		if i > 0 {
			b.WriteString(", ")
		}
		if it.Star {
			for _, p := range it.StarQualifier {
				b.WriteString(quoteIdentIfNeeded(p) + ".")
			}
			b.WriteByte('*')
			continue
		}
		formatExpr(b, it.Expr)
		if it.Alias != "" {
			b.WriteString(" AS " + quoteIdentIfNeeded(it.Alias))
		}
	}
	if q.From != nil {
		b.WriteString(" FROM ")
		formatTableRef(b, q.From)
	}
	if q.Where != nil {
		b.WriteString(" WHERE ")
		formatExpr(b, q.Where)
	}
	if q.GroupBy != nil {
		b.WriteString(" GROUP BY ")
		formatGroupItems(b, q.GroupBy.Items)
	}
	if q.Having != nil {
		b.WriteString(" HAVING ")
		formatExpr(b, q.Having)
	}
	for i, w := range q.Windows {
		if i == 0 {
			b.WriteString(" WINDOW ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdentIfNeeded(w.Name.Name) + " AS ")
		formatWindowParen(b, w.Spec)
	}
}

func formatGroupItems(b *strings.Builder, items []GroupItem) {
	for i, g := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		switch g.Kind {
		case GroupExpr:
			formatExpr(b, g.Expr)
		case GroupList:
			b.WriteByte('(')
			formatGroupItems(b, g.Items)
			b.WriteByte(')')
		default:
			b.WriteString(g.Kind.String())
			if g.Kind == GroupingSets {
				b.WriteByte(' ')
			}
			b.WriteByte('(')
			formatGroupItems(b, g.Items)
			b.WriteByte(')')
		}
	}
}

func formatOrderItems(b *strings.Builder, items []OrderItem) {
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		formatExpr(b, it.Expr)
		if it.Desc {
			b.WriteString(" DESC")
		}
		switch it.Nulls {
		case NullsFirst:
			b.WriteString(" NULLS FIRST")
		case NullsLast:
			b.WriteString(" NULLS LAST")
		}
	}
}

// formatWindow prints the window of OVER: a name, or a specification in
// parentheses.
func formatWindow(b *strings.Builder, w *WindowSpec) {
	if w == nil {
		b.WriteString("<nil>")
		return
	}
	if w.Ref != "" && w.PartitionBy == nil && w.OrderBy == nil && w.Frame == nil {
		b.WriteString(quoteIdentIfNeeded(w.Ref))
		return
	}
	formatWindowParen(b, w)
}

func formatWindowParen(b *strings.Builder, w *WindowSpec) {
	b.WriteByte('(')
	sep := ""
	if w.Ref != "" {
		b.WriteString(quoteIdentIfNeeded(w.Ref))
		sep = " "
	}
	if w.PartitionBy != nil {
		b.WriteString(sep + "PARTITION BY ")
		formatArgs(b, w.PartitionBy)
		sep = " "
	}
	if w.OrderBy != nil {
		b.WriteString(sep + "ORDER BY ")
		formatOrderItems(b, w.OrderBy)
		sep = " "
	}
	if f := w.Frame; f != nil {
		b.WriteString(sep + f.Unit.String() + " BETWEEN ")
		formatBound(b, f.Start)
		b.WriteString(" AND ")
		formatBound(b, f.End)
	}
	b.WriteByte(')')
}

func formatBound(b *strings.Builder, fb FrameBound) {
	switch fb.Kind {
	case Preceding, Following:
		formatExpr(b, fb.Offset)
		if fb.Kind == Preceding {
			b.WriteString(" PRECEDING")
		} else {
			b.WriteString(" FOLLOWING")
		}
	default:
		b.WriteString(fb.Kind.String())
	}
}

// formatHints prints a hint comment.
func formatHints(b *strings.Builder, hints []*Hint) {
	b.WriteString("/*+ ")
	for i, h := range hints {
		if i > 0 {
			b.WriteString(", ")
		}
		formatHint(b, h)
	}
	b.WriteString(" */")
}

func formatHint(b *strings.Builder, h *Hint) {
	if plainUpper(h.Name) {
		b.WriteString(h.Name)
	} else {
		b.WriteString(quoteIdentAlways(h.Name))
	}
	switch {
	case h.Options != nil:
		b.WriteByte('(')
		formatHintOptions(b, h.Options)
		b.WriteByte(')')
	case h.List != nil:
		b.WriteByte('(')
		for i, v := range h.List {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quoteString(v.Name))
		}
		b.WriteByte(')')
	}
}

// plainUpper reports whether s is an upper-case identifier that needs no
// quotes.
func plainUpper(s string) bool {
	return s != "" && strings.ToUpper(s) == s && quoteIdentIfNeeded(s) == s
}

func formatHintOptions(b *strings.Builder, opts []Option) {
	for i, o := range opts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteString(o.Key) + " = " + quoteString(o.Value))
	}
}

// formatTableHints prints the hint comment of a table: its OPTIONS
// entries and its other hints.
func formatTableHints(b *strings.Builder, opts []Option, others []*Hint) {
	if opts == nil && others == nil {
		return
	}
	b.WriteString(" /*+ ")
	if opts != nil {
		b.WriteString("OPTIONS(")
		formatHintOptions(b, opts)
		b.WriteByte(')')
	}
	for i, h := range others {
		if i > 0 || opts != nil {
			b.WriteString(", ")
		}
		formatHint(b, h)
	}
	b.WriteString(" */")
}

func formatIdents(ids []Ident) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = quoteIdentIfNeeded(id.Name)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func formatAlias(b *strings.Builder, alias string, cols []Ident) {
	if alias == "" {
		return
	}
	b.WriteString(" AS " + quoteIdentIfNeeded(alias))
	if cols != nil {
		b.WriteString(" " + formatIdents(cols))
	}
}

func formatTableRef(b *strings.Builder, r TableRef) {
	switch r := r.(type) {
	case nil:
		b.WriteString("<nil>")
	case *TableName:
		b.WriteString(r.Name.String())
		formatTableHints(b, r.Hints, r.OtherHints)
		if r.SystemTime != nil {
			b.WriteString(" FOR SYSTEM_TIME AS OF ")
			formatExpr(b, r.SystemTime)
		}
		formatAlias(b, r.Alias, r.ColumnAliases)
	case *Subquery:
		if r.Lateral {
			b.WriteString("LATERAL ")
		}
		b.WriteByte('(')
		formatQuery(b, r.Query)
		b.WriteByte(')')
		formatAlias(b, r.Alias, r.ColumnAliases)
	case *Join:
		formatTableRef(b, r.Left)
		if r.Kind == JoinComma {
			b.WriteString(", ")
		} else if r.Natural {
			b.WriteString(" NATURAL " + r.Kind.String() + " ")
		} else {
			b.WriteString(" " + r.Kind.String() + " ")
		}
		if _, ok := r.Right.(*Join); ok {
			b.WriteByte('(')
			formatTableRef(b, r.Right)
			b.WriteByte(')')
		} else {
			formatTableRef(b, r.Right)
		}
		if r.On != nil {
			b.WriteString(" ON ")
			formatExpr(b, r.On)
		}
		if r.Using != nil {
			b.WriteString(" USING " + formatIdents(r.Using))
		}
	case *TableFunc:
		if r.Lateral {
			b.WriteString("LATERAL ")
		}
		b.WriteString("TABLE(" + formatFunctionName(r.Name) + "(")
		for i, a := range r.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			formatFuncArg(b, a)
		}
		b.WriteString("))")
		formatAlias(b, r.Alias, r.ColumnAliases)
	case *Unnest:
		b.WriteString("UNNEST(")
		formatArgs(b, r.Exprs)
		b.WriteByte(')')
		if r.WithOrdinality {
			b.WriteString(" WITH ORDINALITY")
		}
		formatAlias(b, r.Alias, r.ColumnAliases)
	default:
		b.WriteString("<unknown table>")
	}
}

func formatFuncArg(b *strings.Builder, a FuncArg) {
	if a.Name.Name != "" {
		b.WriteString(quoteIdentIfNeeded(a.Name.Name) + " => ")
	}
	switch {
	case a.Table != nil:
		t := a.Table
		if t.Query != nil {
			b.WriteByte('(')
			formatQuery(b, t.Query)
			b.WriteByte(')')
		} else {
			b.WriteString("TABLE " + t.Name.String())
		}
		if t.PartitionBy != nil {
			b.WriteString(" PARTITION BY (")
			formatArgs(b, t.PartitionBy)
			b.WriteByte(')')
		}
		if t.OrderBy != nil {
			b.WriteString(" ORDER BY (")
			formatOrderItems(b, t.OrderBy)
			b.WriteByte(')')
		}
	case a.Descriptor != nil:
		b.WriteString("DESCRIPTOR" + formatIdents(a.Descriptor.Columns))
	default:
		if _, ok := a.Expr.(*ScalarSubquery); ok {
			// (SELECT ...) alone would be a table argument.
			b.WriteByte('(')
			formatExpr(b, a.Expr)
			b.WriteByte(')')
			return
		}
		formatExpr(b, a.Expr)
	}
}

// formatFunctionName prints a table function's name so that it parses
// back the same: upper-case parts bare, others quoted (the parser
// upper-cases unquoted parts).
func formatFunctionName(n ObjectName) string {
	parts := make([]string, len(n.Parts))
	for i, p := range n.Parts {
		if plainUpper(p.Name) {
			parts[i] = p.Name
		} else {
			parts[i] = quoteIdentAlways(p.Name)
		}
	}
	return strings.Join(parts, ".")
}
