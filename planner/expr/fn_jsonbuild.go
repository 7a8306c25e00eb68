package expr

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/types"
)

// JSON construction: JSON_OBJECT, JSON_ARRAY and JSON_STRING write values
// as Flink's JSON functions do (Jackson nodes, serialized compact):
// strings quoted and escaped, numbers and booleans as themselves, DECIMAL
// with its scale, DOUBLE and FLOAT as Java prints them, TIMESTAMP as ISO
// local date-time text (TIMESTAMP_LTZ in UTC with a "Z"), BINARY in base64,
// ARRAY as an array, ROW as an object of its field names, MAP of string
// keys as an object, NULL elements as null. An argument that is itself a
// JSON_OBJECT or JSON_ARRAY call is inserted as JSON rather than as a
// string. Other types (DATE, TIME, INTERVAL) are refused, as Flink refuses
// them when it generates the code.
//
// The ON NULL clause is part of the function's name here: JSON_OBJECT is
// NULL ON NULL (Flink's default for it), JSONObjectAbsent its ABSENT ON NULL
// form; JSON_ARRAY is ABSENT ON NULL (its default), JSONArrayNull the NULL
// ON NULL form.

// The names of the ON NULL forms that are not the default.
const (
	JSONObjectAbsent = "JSON_OBJECT ABSENT ON NULL"
	JSONArrayNull    = "JSON_ARRAY NULL ON NULL"
)

// jsonWritable reports whether Flink's JSON functions convert values of
// type t, returning the reason when they do not.
func jsonWritable(t types.Type) error {
	switch t.Kind {
	case types.KindBoolean, types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindFloat, types.KindDouble, types.KindDecimal, types.KindChar, types.KindVarChar,
		types.KindBinary, types.KindVarBinary, types.KindTimestamp, types.KindTimestampLTZ:
		return nil
	case types.KindArray:
		return jsonWritable(*t.Elem)
	case types.KindRow:
		for _, f := range t.Fields {
			if err := jsonWritable(f.Type); err != nil {
				return err
			}
		}
		return nil
	case types.KindMap:
		if !t.Elem.IsString() {
			return fmt.Errorf("type %s cannot be converted to JSON: the key type must be a character string", t.Nullable())
		}
		return jsonWritable(*t.Value)
	}
	return fmt.Errorf("type %s cannot be converted to JSON", t.Nullable())
}

func checkJSONObject(c *Call) (types.Type, error) {
	if len(c.Args)%2 != 0 {
		return types.Type{}, errArgs
	}
	for i := 0; i < len(c.Args); i += 2 {
		k := c.Args[i].Type()
		if !is(k, famString) {
			return types.Type{}, errArgs
		}
		if !isConstant(c.Args[i]) {
			return types.Type{}, &ArgumentError{Function: "JSON_OBJECT", Given: argTypes(c), Expected: "keys that are string literals"}
		}
		if err := jsonWritable(c.Args[i+1].Type()); err != nil {
			return types.Type{}, fmt.Errorf("%w: JSON_OBJECT: %w", ErrInvalidArgument, err)
		}
	}
	return types.String().NotNullable(), nil
}

func checkJSONArray(c *Call) (types.Type, error) {
	for _, a := range c.Args {
		if err := jsonWritable(a.Type()); err != nil {
			return types.Type{}, fmt.Errorf("%w: JSON_ARRAY: %w", ErrInvalidArgument, err)
		}
	}
	return types.String().NotNullable(), nil
}

func checkJSONString(c *Call) (types.Type, error) {
	if err := jsonWritable(c.Args[0].Type()); err != nil {
		return types.Type{}, fmt.Errorf("%w: JSON_STRING: %w", ErrInvalidArgument, err)
	}
	t := types.String()
	t.NotNull = c.Args[0].Type().NotNull
	return t, nil
}

// isJSONConstruction reports whether e's value is JSON text that a JSON
// construction function inserts as JSON: a JSON_OBJECT or JSON_ARRAY call.
func isJSONConstruction(e Expr) bool {
	c, ok := e.(*Call)
	if !ok {
		return false
	}
	switch c.Name {
	case "JSON_OBJECT", JSONObjectAbsent, "JSON_ARRAY", JSONArrayNull:
		return true
	}
	return false
}

func buildJSONObject(absent bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		n := len(c.Args) / 2
		keys := make([]string, n)
		for i := range n {
			v, err := a[2*i](nil)
			if err != nil {
				return nil, err
			}
			if v.IsNull() {
				return nil, fmt.Errorf("%w: JSON_OBJECT: a key is NULL", ErrInvalidArgument)
			}
			keys[i] = v.Str()
		}
		// Flink writes an object's members in the order of their keys; a
		// key written twice keeps its last value. first[i] is the member
		// of argument pair i, members in key order.
		sorted := slices.Clone(keys)
		slices.SortFunc(sorted, compareUTF16)
		sorted = slices.Compact(sorted)
		first := make([]int, n)
		for i := range n {
			first[i], _ = slices.BinarySearchFunc(sorted, keys[i], compareUTF16)
		}
		keys = sorted
		n = len(sorted)
		raw := make([]bool, len(c.Args)/2)
		for i := range raw {
			raw[i] = isJSONConstruction(c.Args[2*i+1])
		}
		type member struct {
			v   types.Value
			arg int // the argument whose value v is; -1: none
		}
		pairs := len(c.Args) / 2
		return func(row []types.Value) (types.Value, error) {
			members := make([]member, n)
			for i := range members {
				members[i].arg = -1
			}
			for i := range pairs {
				v, err := a[2*i+1](row)
				if err != nil {
					return types.Value{}, err
				}
				if v.IsNull() && absent {
					continue
				}
				members[first[i]] = member{v: v, arg: i}
			}
			var sb strings.Builder
			sb.WriteByte('{')
			comma := false
			for i, m := range members {
				if m.arg < 0 {
					continue
				}
				if comma {
					sb.WriteByte(',')
				}
				comma = true
				javafmt.JSONString(&sb, keys[i])
				sb.WriteByte(':')
				if raw[m.arg] && !m.v.IsNull() {
					sb.WriteString(m.v.Str())
				} else {
					writeJSONValue(&sb, m.v, c.Args[2*m.arg+1].Type())
				}
			}
			sb.WriteByte('}')
			return types.Str(sb.String()), nil
		}, nil
	}
}

func buildJSONArray(keepNull bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		raw := make([]bool, len(c.Args))
		for i, e := range c.Args {
			raw[i] = isJSONConstruction(e)
		}
		return func(row []types.Value) (types.Value, error) {
			var sb strings.Builder
			sb.WriteByte('[')
			comma := false
			for i, f := range a {
				v, err := f(row)
				if err != nil {
					return types.Value{}, err
				}
				if v.IsNull() && !keepNull {
					continue
				}
				if comma {
					sb.WriteByte(',')
				}
				comma = true
				if raw[i] && !v.IsNull() {
					sb.WriteString(v.Str())
				} else {
					writeJSONValue(&sb, v, c.Args[i].Type())
				}
			}
			sb.WriteByte(']')
			return types.Str(sb.String()), nil
		}, nil
	}
}

func buildJSONString(b *builder, c *Call, a []evalFn) (evalFn, error) {
	t := c.Args[0].Type()
	raw := isJSONConstruction(c.Args[0])
	return strict1(a[0], func(v types.Value) (types.Value, error) {
		if raw {
			return v, nil
		}
		var sb strings.Builder
		writeJSONValue(&sb, v, t)
		return types.Str(sb.String()), nil
	}), nil
}

// writeJSONValue writes v, of type t, as JSON (see the comment at the top
// of this file). The checks (jsonWritable) let only convertible types here.
func writeJSONValue(sb *strings.Builder, v types.Value, t types.Type) {
	if v.IsNull() {
		sb.WriteString("null")
		return
	}
	switch t.Kind {
	case types.KindBoolean:
		sb.WriteString(strconv.FormatBool(v.Bool()))
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		sb.WriteString(strconv.FormatInt(v.Int64(), 10))
	case types.KindFloat:
		// Flink's node is BigDecimal.valueOf(value), a FLOAT widened to
		// DOUBLE first, which Jackson prints with BigDecimal.toString.
		sb.WriteString(javaBigDecimalOfDouble(float64(float32(v.Float64()))))
	case types.KindDouble:
		sb.WriteString(javaBigDecimalOfDouble(v.Float64()))
	case types.KindDecimal:
		sb.WriteString(v.Decimal().String())
	case types.KindChar, types.KindVarChar:
		javafmt.JSONString(sb, v.Str())
	case types.KindBinary, types.KindVarBinary:
		javafmt.JSONString(sb, base64.StdEncoding.EncodeToString(v.Bytes()))
	case types.KindTimestamp, types.KindTimestampLTZ:
		ts := v.Timestamp()
		tm := time.UnixMilli(ts.Millis).UTC().Add(time.Duration(ts.NanoOfMilli))
		s := tm.Format("2006-01-02T15:04:05")
		if ns := tm.Nanosecond(); ns != 0 {
			s += strings.TrimRight(fmt.Sprintf(".%09d", ns), "0")
		}
		if t.Kind == types.KindTimestampLTZ {
			s += "Z"
		}
		javafmt.JSONString(sb, s)
	case types.KindArray:
		sb.WriteByte('[')
		for i, e := range v.List() {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeJSONValue(sb, e, *t.Elem)
		}
		sb.WriteByte(']')
	case types.KindRow:
		l := v.List()
		order := make([]int, len(l))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return compareUTF16(t.Fields[a].Name, t.Fields[b].Name) })
		sb.WriteByte('{')
		for k, i := range order {
			if k > 0 {
				sb.WriteByte(',')
			}
			javafmt.JSONString(sb, t.Fields[i].Name)
			sb.WriteByte(':')
			writeJSONValue(sb, l[i], t.Fields[i].Type)
		}
		sb.WriteByte('}')
	case types.KindMap:
		m := v.Map()
		order := make([]int, len(m.Keys))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return compareUTF16(m.Keys[a].Str(), m.Keys[b].Str()) })
		sb.WriteByte('{')
		for k, i := range order {
			if k > 0 {
				sb.WriteByte(',')
			}
			javafmt.JSONString(sb, m.Keys[i].Str())
			sb.WriteByte(':')
			writeJSONValue(sb, m.Values[i], *t.Value)
		}
		sb.WriteByte('}')
	default:
		sb.WriteString("null")
	}
}

// compareUTF16 orders strings as Java's String.compareTo does: by UTF-16
// code units.
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// javaBigDecimalOfDouble returns Java's BigDecimal.valueOf(f).toString():
// the digits of Double.toString(f) as an unscaled value and scale, printed
// plain when the scale is not negative and the adjusted exponent is at
// least -6, else in scientific notation (1.0E+20).
func javaBigDecimalOfDouble(f float64) string {
	s := javafmt.Float(f, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	exp := 0
	if i := strings.IndexByte(s, 'E'); i >= 0 {
		exp, _ = strconv.Atoi(s[i+1:])
		s = s[:i]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	coeff := strings.TrimLeft(intPart+frac, "0")
	if coeff == "" {
		coeff = "0"
	}
	scale := len(frac) - exp
	adjusted := -scale + len(coeff) - 1
	var out string
	switch {
	case scale == 0:
		out = coeff
	case scale > 0 && adjusted >= -6:
		if len(coeff) > scale {
			out = coeff[:len(coeff)-scale] + "." + coeff[len(coeff)-scale:]
		} else {
			out = "0." + strings.Repeat("0", scale-len(coeff)) + coeff
		}
	default:
		out = coeff[:1]
		if len(coeff) > 1 {
			out += "." + coeff[1:]
		}
		out += "E"
		if adjusted > 0 {
			out += "+"
		}
		out += strconv.Itoa(adjusted)
	}
	if neg {
		out = "-" + out
	}
	return out
}

// checkIsJSON types x IS JSON [VALUE | SCALAR | ARRAY | OBJECT]: BOOLEAN,
// NOT NULL (a NULL string is not JSON).
func checkIsJSON(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famString) {
		return types.Type{}, errArgs
	}
	return types.Boolean().NotNullable(), nil
}

// buildIsJSON tests whether a string starts with a JSON value of the kind:
// 0 any, 's' a scalar, '[' an array, '{' an object.
func buildIsJSON(kind byte) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		return func(row []types.Value) (types.Value, error) {
			v, err := a[0](row)
			if err != nil || v.IsNull() {
				return types.Bool(false), err
			}
			// The first JSON value of the text decides; what follows it
			// is not read, as Jackson's readTree (Flink's) does not.
			var first json.RawMessage
			if json.NewDecoder(strings.NewReader(v.Str())).Decode(&first) != nil {
				return types.Bool(false), nil
			}
			s := first
			switch kind {
			case 's':
				return types.Bool(s[0] != '[' && s[0] != '{'), nil
			case '[', '{':
				return types.Bool(s[0] == kind), nil
			}
			return types.Bool(true), nil
		}, nil
	}
}

// buildJSONQuote quotes a string as Flink's JSON_QUOTE does: the quote,
// backslash and slash escaped, \b \f \n \r \t, every UTF-16 code unit
// above 127 as \uxxxx (lower-case hex), other control characters as is.
func buildJSONQuote(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict1(a[0], func(v types.Value) (types.Value, error) {
		const hex = "0123456789abcdef"
		var sb strings.Builder
		sb.WriteByte('"')
		for _, r := range v.Str() {
			switch r {
			case '"', '\\', '/':
				sb.WriteByte('\\')
				sb.WriteRune(r)
			case '\b':
				sb.WriteString(`\b`)
			case '\f':
				sb.WriteString(`\f`)
			case '\n':
				sb.WriteString(`\n`)
			case '\r':
				sb.WriteString(`\r`)
			case '\t':
				sb.WriteString(`\t`)
			default:
				if r <= 127 {
					sb.WriteRune(r)
					continue
				}
				for _, u := range utf16.Encode([]rune{r}) {
					sb.WriteString(`\u`)
					sb.WriteByte(hex[u>>12&15])
					sb.WriteByte(hex[u>>8&15])
					sb.WriteByte(hex[u>>4&15])
					sb.WriteByte(hex[u&15])
				}
			}
		}
		sb.WriteByte('"')
		return types.Str(sb.String()), nil
	}), nil
}

// buildJSONUnquote is Flink's JSON_UNQUOTE: a text that starts with a JSON
// string loses its first and last characters and has its escapes decoded;
// any other text (other JSON values included) is returned as it is.
// Positions count UTF-16 code units, as Java's do.
func buildJSONUnquote(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict1(a[0], func(v types.Value) (types.Value, error) {
		var first json.RawMessage
		if json.NewDecoder(strings.NewReader(v.Str())).Decode(&first) != nil || first[0] != '"' {
			return v, nil
		}
		in := utf16.Encode([]rune(v.Str()))
		out := make([]uint16, 0, len(in))
		for i := 1; i < len(in)-1; {
			if in[i] != '\\' {
				out = append(out, in[i])
				i++
				continue
			}
			i++
			ch := in[i]
			i++
			switch ch {
			case '"', '\\', '/':
				out = append(out, ch)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				if i+4 > len(in) {
					return types.Value{}, fmt.Errorf("%w: JSON_UNQUOTE: a \\u escape is cut short", ErrInvalidArgument)
				}
				n, err := strconv.ParseUint(string(utf16.Decode(in[i:i+4])), 16, 16)
				if err != nil {
					return types.Value{}, fmt.Errorf("%w: JSON_UNQUOTE: %w", ErrInvalidArgument, err)
				}
				out = append(out, uint16(n))
				i += 4
			default:
				return types.Value{}, fmt.Errorf("%w: JSON_UNQUOTE: illegal escape sequence \\%c", ErrInvalidArgument, rune(ch))
			}
		}
		return types.Str(string(utf16.Decode(out))), nil
	}), nil
}
