package ddl

import (
	"strings"

	"github.com/streamsql/streamsql/types"
)

// FormatExpr returns e as Flink SQL text, fully parenthesised so that the
// tree's shape is visible: "(`a` + 1)". Special call syntax is printed as
// written (CEIL(`ts` TO DAY), EXTRACT(DAY FROM `ts`), ARRAY[1, 2]), so the
// result parses back to the same tree. EXPLAIN output and tests use it.
func FormatExpr(e Expr) string {
	var b strings.Builder
	formatExpr(&b, e)
	return b.String()
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func formatExpr(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case nil:
		b.WriteString("<nil>")
	case *Literal:
		switch e.Kind {
		case StringLit:
			b.WriteString(quoteString(e.Text))
		case BinaryLit:
			b.WriteString("X'" + e.Text + "'")
		case DateLit:
			b.WriteString("DATE " + quoteString(e.Text))
		case TimeLit:
			b.WriteString("TIME " + quoteString(e.Text))
		case TimestampLit:
			b.WriteString("TIMESTAMP " + quoteString(e.Text))
		default:
			b.WriteString(e.Text)
		}
	case *IntervalLit:
		b.WriteString("INTERVAL ")
		switch {
		case e.Months < 0 || e.Millis < 0:
			b.WriteString("-")
		}
		b.WriteString(quoteString(strings.TrimPrefix(strings.TrimSpace(e.Text), "-")) + " " + qualifierText(e.From, e.To))
	case *ColumnRef:
		for i, p := range e.Parts {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(quoteIdentAlways(p))
		}
	case *Symbol:
		b.WriteString(e.Name)
	case *Call:
		formatCall(b, e)
	case *Binary:
		b.WriteByte('(')
		formatExpr(b, e.Left)
		b.WriteString(" " + string(e.Op) + " ")
		formatExpr(b, e.Right)
		b.WriteByte(')')
	case *Unary:
		b.WriteByte('(')
		b.WriteString(string(e.Op))
		if e.Op == OpNot {
			b.WriteByte(' ')
		}
		formatExpr(b, e.Expr)
		b.WriteByte(')')
	case *Cast:
		if e.Try {
			b.WriteString("TRY_")
		}
		b.WriteString("CAST(")
		formatExpr(b, e.Expr)
		b.WriteString(" AS " + e.Type.String() + ")")
	case *Case:
		b.WriteString("CASE")
		if e.Operand != nil {
			b.WriteByte(' ')
			formatExpr(b, e.Operand)
		}
		for _, w := range e.Whens {
			b.WriteString(" WHEN ")
			formatExpr(b, w.Cond)
			b.WriteString(" THEN ")
			formatExpr(b, w.Result)
		}
		if e.Else != nil {
			b.WriteString(" ELSE ")
			formatExpr(b, e.Else)
		}
		b.WriteString(" END")
	case *In:
		b.WriteByte('(')
		formatExpr(b, e.Expr)
		if e.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		for i, a := range e.List {
			if i > 0 {
				b.WriteString(", ")
			}
			formatExpr(b, a)
		}
		b.WriteString("))")
	case *Between:
		b.WriteByte('(')
		formatExpr(b, e.Expr)
		if e.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		if e.Symmetric {
			b.WriteString("SYMMETRIC ")
		}
		formatExpr(b, e.Low)
		b.WriteString(" AND ")
		formatExpr(b, e.High)
		b.WriteByte(')')
	case *Like:
		b.WriteByte('(')
		formatExpr(b, e.Expr)
		if e.Not {
			b.WriteString(" NOT")
		}
		if e.Similar {
			b.WriteString(" SIMILAR TO ")
		} else {
			b.WriteString(" LIKE ")
		}
		formatExpr(b, e.Pattern)
		if e.Escape != nil {
			b.WriteString(" ESCAPE ")
			formatExpr(b, e.Escape)
		}
		b.WriteByte(')')
	case *Is:
		b.WriteByte('(')
		formatExpr(b, e.Expr)
		b.WriteString(" IS ")
		if e.Not {
			b.WriteString("NOT ")
		}
		b.WriteString(e.What)
		b.WriteByte(')')
	case *Subscript:
		formatExpr(b, e.Expr)
		b.WriteByte('[')
		formatExpr(b, e.Index)
		b.WriteByte(']')
	case *Over:
		formatExpr(b, e.Call)
		b.WriteString(" OVER ")
		formatWindow(b, e.Window)
	case *ScalarSubquery:
		b.WriteByte('(')
		formatQuery(b, e.Query)
		b.WriteByte(')')
	case *Exists:
		b.WriteString("EXISTS (")
		formatQuery(b, e.Query)
		b.WriteByte(')')
	case *InQuery:
		b.WriteByte('(')
		formatExpr(b, e.Expr)
		if e.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		formatQuery(b, e.Query)
		b.WriteString("))")
	case *Quantified:
		b.WriteByte('(')
		formatExpr(b, e.Left)
		b.WriteString(" " + string(e.Op) + " " + e.Quantifier + " (")
		formatQuery(b, e.Query)
		b.WriteString("))")
	case *FieldAccess:
		if _, ok := e.Expr.(*Literal); ok {
			// 1.`f` would lex as the number "1." followed by `f`.
			b.WriteByte('(')
			formatExpr(b, e.Expr)
			b.WriteByte(')')
		} else {
			formatExpr(b, e.Expr)
		}
		b.WriteByte('.')
		b.WriteString(quoteIdentAlways(e.Field))
	default:
		b.WriteString("<unknown>")
	}
}

func quoteIdentAlways(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func formatArgs(b *strings.Builder, args []Expr) {
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		formatExpr(b, a)
	}
}

func symbolAt(args []Expr, i int) (*Symbol, bool) {
	if i >= len(args) {
		return nil, false
	}
	s, ok := args[i].(*Symbol)
	return s, ok
}

// formatCall prints a call, using the special syntax it was parsed from,
// with its WITHIN GROUP and FILTER clauses.
func formatCall(b *strings.Builder, e *Call) {
	if strings.HasPrefix(e.Name, "IS JSON ") && len(e.Args) == 1 {
		b.WriteByte('(')
		formatExpr(b, e.Args[0])
		b.WriteString(" " + e.Name + ")")
		return
	}
	formatCallBase(b, e)
	if e.WithinGroup != nil {
		b.WriteString(" WITHIN GROUP (ORDER BY ")
		formatOrderItems(b, e.WithinGroup)
		b.WriteByte(')')
	}
	if e.Filter != nil {
		b.WriteString(" FILTER (WHERE ")
		formatExpr(b, e.Filter)
		b.WriteByte(')')
	}
}

func formatCallBase(b *strings.Builder, e *Call) {
	b.WriteString(e.Name)
	if e.NoParens {
		return
	}
	args := e.Args
	switch e.Name {
	case "ARRAY", "MAP":
		b.WriteByte('[')
		formatArgs(b, args)
		b.WriteByte(']')
		return
	case "EXTRACT":
		if u, ok := symbolAt(args, 0); ok && len(args) == 2 {
			b.WriteString("(" + u.Name + " FROM ")
			formatExpr(b, args[1])
			b.WriteByte(')')
			return
		}
	case "CEIL", "FLOOR":
		if u, ok := symbolAt(args, 1); ok && len(args) == 2 {
			b.WriteByte('(')
			formatExpr(b, args[0])
			b.WriteString(" TO " + u.Name + ")")
			return
		}
	case "TRIM":
		if m, ok := symbolAt(args, 0); ok && len(args) == 3 {
			b.WriteString("(" + m.Name + " ")
			formatExpr(b, args[1])
			b.WriteString(" FROM ")
			formatExpr(b, args[2])
			b.WriteByte(')')
			return
		}
	case "POSITION":
		if len(args) == 2 || len(args) == 3 {
			b.WriteByte('(')
			formatExpr(b, args[0])
			b.WriteString(" IN ")
			formatExpr(b, args[1])
			if len(args) == 3 {
				b.WriteString(" FROM ")
				formatExpr(b, args[2])
			}
			b.WriteByte(')')
			return
		}
	case "JSON_OBJECT", "JSON_OBJECTAGG":
		b.WriteByte('(')
		for i := 0; i+1 < len(args); i += 2 {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("KEY ")
			formatExpr(b, args[i])
			b.WriteString(" VALUE ")
			formatExpr(b, args[i+1])
		}
		formatOnNull(b, e, len(args) > 0)
		b.WriteByte(')')
		return
	case "JSON_ARRAY", "JSON_ARRAYAGG":
		b.WriteByte('(')
		formatArgs(b, args)
		formatOnNull(b, e, len(args) > 0)
		b.WriteByte(')')
		return
	case "OVERLAY":
		if len(args) == 3 || len(args) == 4 {
			b.WriteByte('(')
			formatExpr(b, args[0])
			b.WriteString(" PLACING ")
			formatExpr(b, args[1])
			b.WriteString(" FROM ")
			formatExpr(b, args[2])
			if len(args) == 4 {
				b.WriteString(" FOR ")
				formatExpr(b, args[3])
			}
			b.WriteByte(')')
			return
		}
	}
	b.WriteByte('(')
	if e.Star {
		b.WriteByte('*')
	}
	if e.Distinct {
		b.WriteString("DISTINCT ")
	}
	formatArgs(b, args)
	if e.Returning.Kind != types.KindInvalid {
		b.WriteString(" RETURNING " + e.Returning.String())
	}
	b.WriteByte(')')
}

// formatOnNull writes the ON NULL clause of a JSON construction call, after
// its arguments (space when there are some).
func formatOnNull(b *strings.Builder, e *Call, space bool) {
	if e.OnNull == "" {
		return
	}
	if space {
		b.WriteByte(' ')
	}
	b.WriteString(e.OnNull + " ON NULL")
}
