package expr

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/internal/javatime"
	"github.com/streamsql/streamsql/types"
)

// String renders the literal as Flink SQL that denotes the same value and
// type.
func (l *Literal) String() string { return literalSQL(l.Val, l.Typ) }

func literalSQL(v types.Value, t types.Type) string {
	if t.Kind == types.KindNull {
		return "NULL"
	}
	tn := t.Nullable().String()
	if v.IsNull() {
		return "CAST(NULL AS " + tn + ")"
	}
	switch t.Kind {
	case types.KindBoolean:
		if v.Bool() {
			return "TRUE"
		}
		return "FALSE"
	case types.KindInt:
		return strconv.FormatInt(v.Int64(), 10)
	case types.KindTinyInt, types.KindSmallInt, types.KindBigInt:
		return "CAST(" + strconv.FormatInt(v.Int64(), 10) + " AS " + tn + ")"
	case types.KindFloat, types.KindDouble:
		bits := 64
		if t.Kind == types.KindFloat {
			bits = 32
		}
		return "CAST('" + javafmt.Float(v.Float64(), bits) + "' AS " + tn + ")"
	case types.KindDecimal:
		d := v.Decimal()
		s := d.String()
		if d.Precision() > 18 {
			// Flink's parser refuses numeric literals this long.
			return "CAST('" + s + "' AS " + tn + ")"
		}
		if d.Sign() < 0 {
			s = "(" + s + ")"
		}
		return "CAST(" + s + " AS " + tn + ")"
	case types.KindChar, types.KindVarChar:
		q := "'" + strings.ReplaceAll(v.Str(), "'", "''") + "'"
		if t.Kind == types.KindVarChar {
			return "CAST(" + q + " AS " + tn + ")"
		}
		return q
	case types.KindBinary, types.KindVarBinary:
		return "CAST(X'" + hex.EncodeToString(v.Bytes()) + "' AS " + tn + ")"
	case types.KindDate:
		return "DATE '" + javatime.FormatDate(v.Date()) + "'"
	case types.KindTime:
		return "TIME '" + javatime.FormatTimeOfDay(v.Time(), t.Precision) + "'"
	case types.KindTimestamp:
		return "CAST(TIMESTAMP '" + javatime.FormatTimestamp(v.Timestamp(), 9) + "' AS " + tn + ")"
	case types.KindTimestampLTZ:
		return "CAST(TO_TIMESTAMP_LTZ(" + strconv.FormatInt(v.Timestamp().Millis, 10) + ", 3) AS " + tn + ")"
	case types.KindArray:
		parts := make([]string, len(v.List()))
		for i, e := range v.List() {
			parts[i] = literalSQL(e, *t.Elem)
		}
		return "ARRAY[" + strings.Join(parts, ", ") + "]"
	case types.KindMap:
		m := v.Map()
		parts := make([]string, 0, 2*m.Len())
		for i := range m.Keys {
			parts = append(parts, literalSQL(m.Keys[i], *t.Elem), literalSQL(m.Values[i], *t.Value))
		}
		return "MAP[" + strings.Join(parts, ", ") + "]"
	case types.KindRow:
		parts := make([]string, len(v.List()))
		for i, e := range v.List() {
			parts[i] = literalSQL(e, t.Fields[i].Type)
		}
		return "ROW(" + strings.Join(parts, ", ") + ")"
	}
	return "NULL"
}

// String renders the column as its back-quoted name, or $index without one.
func (c *ColumnRef) String() string {
	if c.Name == "" {
		return "$" + strconv.Itoa(c.Index)
	}
	return types.QuoteIdent(c.Name)
}

// String renders CAST(x AS t) or TRY_CAST(x AS t).
func (c *Cast) String() string {
	kw := "CAST("
	if c.Try {
		kw = "TRY_CAST("
	}
	return kw + c.Expr.String() + " AS " + c.Target.Nullable().String() + ")"
}

// String renders the CASE expression.
func (c *Case) String() string {
	var sb strings.Builder
	sb.WriteString("CASE")
	if c.Operand != nil {
		sb.WriteString(" " + c.Operand.String())
	}
	for _, w := range c.Whens {
		sb.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Result.String())
	}
	if c.Else != nil {
		sb.WriteString(" ELSE " + c.Else.String())
	}
	sb.WriteString(" END")
	return sb.String()
}

// infix lists the operators printed between their operands. "!=" is not
// a Flink operator (Resolve refuses it, as Flink does) but prints as
// written.
var infix = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "=": true, "<>": true, "!=": true,
	"<": true, "<=": true, ">": true, ">=": true, "||": true, "AND": true, "OR": true,
}

// String renders the call in Flink SQL syntax.
func (c *Call) String() string {
	a := make([]string, len(c.Args))
	for i, x := range c.Args {
		a[i] = x.String()
	}
	switch {
	case infix[c.Name]:
		return "(" + strings.Join(a, " "+c.Name+" ") + ")"
	case c.Name == "%" || c.Name == "MOD":
		return "MOD(" + strings.Join(a, ", ") + ")"
	}
	switch c.Name {
	case "NEGATE":
		return "(- " + a[0] + ")"
	case "NOT":
		return "(NOT " + a[0] + ")"
	case "IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE",
		"IS JSON VALUE", "IS JSON SCALAR", "IS JSON ARRAY", "IS JSON OBJECT":
		return "(" + a[0] + " " + c.Name + ")"
	case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
		return "(" + a[0] + " " + c.Name + " " + a[1] + ")"
	case "BETWEEN", "NOT BETWEEN", "BETWEEN SYMMETRIC", "NOT BETWEEN SYMMETRIC":
		return "(" + a[0] + " " + c.Name + " " + a[1] + " AND " + a[2] + ")"
	case "IN", "NOT IN":
		return "(" + a[0] + " " + c.Name + " (" + strings.Join(a[1:], ", ") + "))"
	case "LIKE", "NOT LIKE", "SIMILAR TO", "NOT SIMILAR TO":
		s := "(" + a[0] + " " + c.Name + " " + a[1]
		if len(a) == 3 {
			s += " ESCAPE " + a[2]
		}
		return s + ")"
	case "ARRAY", "MAP":
		return c.Name + "[" + strings.Join(a, ", ") + "]"
	case "ITEM":
		return a[0] + "[" + a[1] + "]"
	case "FIELD":
		// r['name']: Flink reads r.name as a table-qualified column when
		// r is not qualified itself; the subscript form is unambiguous.
		return a[0] + "[" + a[1] + "]"
	case "TRIM", "LTRIM", "RTRIM":
		if len(a) == 2 {
			mode := map[string]string{"TRIM": "BOTH", "LTRIM": "LEADING", "RTRIM": "TRAILING"}[c.Name]
			return "TRIM(" + mode + " " + a[1] + " FROM " + a[0] + ")"
		}
	case "POSITION":
		return "POSITION(" + a[0] + " IN " + a[1] + ")"
	case "EXTRACT":
		return "EXTRACT(" + c.Unit.String() + " FROM " + a[0] + ")"
	case "CEIL", "FLOOR":
		if c.Unit != UnitNone {
			return c.Name + "(" + a[0] + " TO " + c.Unit.String() + ")"
		}
	case "TIMESTAMPADD", "TIMESTAMPDIFF":
		return c.Name + "(" + c.Unit.String() + ", " + strings.Join(a, ", ") + ")"
	case "CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "CURRENT_DATE":
		return c.Name
	case "JSON_OBJECT", JSONObjectAbsent:
		var kv []string
		for i := 0; i+1 < len(a); i += 2 {
			kv = append(kv, "KEY "+a[i]+" VALUE "+a[i+1])
		}
		onNull := " NULL ON NULL"
		if len(a) == 0 {
			onNull = ""
		} else if c.Name == JSONObjectAbsent {
			onNull = " ABSENT ON NULL"
		}
		return "JSON_OBJECT(" + strings.TrimSpace(strings.Join(kv, ", ")+onNull) + ")"
	case "JSON_ARRAY", JSONArrayNull:
		onNull := " ABSENT ON NULL"
		if len(a) == 0 {
			onNull = ""
		} else if c.Name == JSONArrayNull {
			onNull = " NULL ON NULL"
		}
		return "JSON_ARRAY(" + strings.TrimSpace(strings.Join(a, ", ")+onNull) + ")"
	case "JSON_VALUE":
		if c.Returning.Kind != types.KindInvalid {
			return "JSON_VALUE(" + strings.Join(a, ", ") + " RETURNING " + c.Returning.Nullable().String() + ")"
		}
	}
	return c.Name + "(" + strings.Join(a, ", ") + ")"
}
