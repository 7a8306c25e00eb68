package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/internal/javatime"
	"github.com/streamsql/streamsql/types"
)

// castEval converts the values of inner (of type from) to type to. With try,
// a failed conversion gives NULL instead of an error.
func (b *builder) castEval(inner evalFn, from, to types.Type, try bool) (evalFn, error) {
	conv, err := b.castFunc(from, to)
	if err != nil {
		return nil, err
	}
	if conv == nil {
		return inner, nil
	}
	return func(row []types.Value) (types.Value, error) {
		v, err := inner(row)
		if err != nil || v.IsNull() {
			return types.Value{}, err
		}
		out, err := conv(v)
		if err != nil && try {
			return types.Value{}, nil
		}
		return out, err
	}, nil
}

type convFn func(types.Value) (types.Value, error)

func castErr(v string, to types.Type) error {
	return fmt.Errorf("%w: cannot cast %q to %s", ErrCast, v, to.Nullable())
}

// castFunc returns the conversion of non-NULL values from one type to
// another, or nil when the representation does not change.
func (b *builder) castFunc(from, to types.Type) (convFn, error) {
	if from.Kind == types.KindNull {
		return nil, nil
	}
	if !castAllowed(from, to) {
		return nil, &CastError{From: from, To: to}
	}
	if from.Nullable().Equal(to.Nullable()) {
		return nil, nil
	}
	ff, ft := familyOf(from), familyOf(to)
	switch ft {
	case famString:
		return b.toStringConv(from, to), nil
	case famBool:
		switch ff {
		case famNumeric:
			f := floatConv(from)
			if from.Kind == types.KindDecimal {
				return func(v types.Value) (types.Value, error) { return types.Bool(v.Decimal().Sign() != 0), nil }, nil
			}
			return func(v types.Value) (types.Value, error) { return types.Bool(f(v) != 0), nil }, nil
		case famString:
			return func(v types.Value) (types.Value, error) {
				switch strings.ToLower(strings.TrimSpace(v.Str())) {
				case "true", "t", "yes", "y", "1":
					return types.Bool(true), nil
				case "false", "f", "no", "n", "0":
					return types.Bool(false), nil
				}
				return types.Value{}, castErr(v.Str(), to)
			}, nil
		}
	case famNumeric:
		return b.toNumericConv(from, to), nil
	case famBinary:
		n, fixed := to.Length, to.Kind == types.KindBinary
		return func(v types.Value) (types.Value, error) {
			s := v.Str() // strings and bytes share the representation
			if len(s) > n {
				s = s[:n]
			} else if fixed && len(s) < n {
				s += strings.Repeat("\x00", n-len(s))
			}
			return types.BytesValue([]byte(s)), nil
		}, nil
	case famDate:
		switch ff {
		case famString:
			return func(v types.Value) (types.Value, error) {
				d, ok := javatime.ParseDate(strings.TrimSpace(v.Str()), javatime.SQLDate)
				if !ok {
					return types.Value{}, castErr(v.Str(), to)
				}
				return types.DateValue(int32(d)), nil
			}, nil
		case famTimestamp:
			loc := b.locFor(from)
			return func(v types.Value) (types.Value, error) {
				// Flink divides with truncation, so times before 1970 land
				// on the next day (its behaviour, kept for fidelity).
				return types.DateValue(int32(javatime.LocalMillis(v.Timestamp(), loc) / javatime.MillisPerDay)), nil
			}, nil
		}
	case famTime:
		p := to.Precision
		switch ff {
		case famString:
			return func(v types.Value) (types.Value, error) {
				t, ok := javatime.ParseSQLTime(strings.TrimSpace(v.Str()))
				if !ok {
					return types.Value{}, castErr(v.Str(), to)
				}
				return types.TimeValue(javatime.TruncNanos(t, p)), nil
			}, nil
		case famTimestamp:
			loc := b.locFor(from)
			return func(v types.Value) (types.Value, error) {
				ts := v.Timestamp()
				ms := javatime.FloorMod(javatime.LocalMillis(ts, loc), javatime.MillisPerDay)
				return types.TimeValue(javatime.TruncNanos(ms*1e6+int64(ts.NanoOfMilli), p)), nil
			}, nil
		case famTime:
			return func(v types.Value) (types.Value, error) {
				return types.TimeValue(javatime.TruncNanos(v.Time(), p)), nil
			}, nil
		}
	case famTimestamp:
		p := to.Precision
		ltz := to.Kind == types.KindTimestampLTZ
		loc := b.loc
		switch ff {
		case famString:
			return func(v types.Value) (types.Value, error) {
				ts, ok := javatime.ParseSQLTimestamp(strings.TrimSpace(v.Str()))
				if !ok {
					return types.Value{}, castErr(v.Str(), to)
				}
				if ltz {
					ts = javatime.FromLocal(ts, loc)
				}
				return types.TimestampValue(ts.Truncate(p)), nil
			}, nil
		case famDate:
			return func(v types.Value) (types.Value, error) {
				ts := types.Timestamp{Millis: int64(v.Date()) * javatime.MillisPerDay}
				if ltz {
					ts = javatime.FromLocal(ts, loc)
				}
				return types.TimestampValue(ts), nil
			}, nil
		case famTimestamp:
			fromLTZ := from.Kind == types.KindTimestampLTZ
			return func(v types.Value) (types.Value, error) {
				ts := v.Timestamp()
				switch {
				case fromLTZ && !ltz:
					ts = javatime.ToLocal(ts, loc)
				case !fromLTZ && ltz:
					ts = javatime.FromLocal(ts, loc)
				}
				return types.TimestampValue(ts.Truncate(p)), nil
			}, nil
		}
	case famArray:
		ec, err := b.castFunc(*from.Elem, *to.Elem)
		if err != nil || ec == nil {
			return nil, err
		}
		return func(v types.Value) (types.Value, error) {
			in := v.List()
			out := make([]types.Value, len(in))
			for i, e := range in {
				if e.IsNull() {
					continue
				}
				c, err := ec(e)
				if err != nil {
					return types.Value{}, err
				}
				out[i] = c
			}
			return types.List(out), nil
		}, nil
	case famMap:
		kc, err := b.castFunc(*from.Elem, *to.Elem)
		if err != nil {
			return nil, err
		}
		vc, err := b.castFunc(*from.Value, *to.Value)
		if err != nil || (kc == nil && vc == nil) {
			return nil, err
		}
		return func(v types.Value) (types.Value, error) {
			in := v.Map()
			if in == nil {
				in = &types.MapData{}
			}
			out := &types.MapData{Keys: make([]types.Value, in.Len()), Values: make([]types.Value, in.Len())}
			for i := range in.Keys {
				k, err := castElem(kc, in.Keys[i])
				if err != nil {
					return types.Value{}, err
				}
				val, err := castElem(vc, in.Values[i])
				if err != nil {
					return types.Value{}, err
				}
				out.Keys[i], out.Values[i] = k, val
			}
			return types.MapValue(out), nil
		}, nil
	case famRow:
		convs := make([]convFn, len(to.Fields))
		changed := false
		for i := range to.Fields {
			c, err := b.castFunc(from.Fields[i].Type, to.Fields[i].Type)
			if err != nil {
				return nil, err
			}
			convs[i], changed = c, changed || c != nil
		}
		if !changed {
			return nil, nil
		}
		return func(v types.Value) (types.Value, error) {
			in := v.List()
			out := make([]types.Value, len(in))
			for i, f := range in {
				c, err := castElem(convs[i], f)
				if err != nil {
					return types.Value{}, err
				}
				out[i] = c
			}
			return types.List(out), nil
		}, nil
	}
	return nil, &CastError{From: from, To: to}
}

// castElem converts one element of a collection: NULL stays NULL and a nil
// conversion keeps the value.
func castElem(c convFn, v types.Value) (types.Value, error) {
	if c == nil || v.IsNull() {
		return v, nil
	}
	return c(v)
}

func (b *builder) locFor(t types.Type) *time.Location {
	if t.Kind == types.KindTimestampLTZ {
		return b.loc
	}
	return time.UTC
}

func (b *builder) toNumericConv(from, to types.Type) convFn {
	ff := familyOf(from)
	switch {
	case ff == famBool:
		if to.Kind == types.KindDecimal {
			return func(v types.Value) (types.Value, error) {
				return types.DecimalValue(mustRescale(types.NewDecimal(v.Int64(), 0), to)), nil
			}
		}
		if to.Kind == types.KindFloat || to.Kind == types.KindDouble {
			return func(v types.Value) (types.Value, error) { return types.Float64(float64(v.Int64())), nil }
		}
		return func(v types.Value) (types.Value, error) { return types.Int64(v.Int64()), nil }
	case ff == famString:
		return stringToNumeric(to)
	}
	// numeric -> numeric
	switch {
	case to.IsInteger():
		wrap := intWrapper(to.Kind)
		switch {
		case from.IsInteger():
			if numericRank(from.Kind) <= numericRank(to.Kind) {
				return nil
			}
			return func(v types.Value) (types.Value, error) { return types.Int64(wrap(v.Int64())), nil }
		case from.Kind == types.KindDecimal:
			return func(v types.Value) (types.Value, error) {
				return types.Int64(wrap(decimalToInt64(v.Decimal()))), nil
			}
		default:
			return func(v types.Value) (types.Value, error) { return types.Int64(floatToInt(v.Float64(), to.Kind)), nil }
		}
	case to.Kind == types.KindFloat:
		f := floatConv(from)
		return func(v types.Value) (types.Value, error) { return types.Float64(float64(float32(f(v)))), nil }
	case to.Kind == types.KindDouble:
		if from.Kind == types.KindFloat {
			return nil
		}
		f := floatConv(from)
		return func(v types.Value) (types.Value, error) { return types.Float64(f(v)), nil }
	case to.Kind == types.KindDecimal:
		p, s := to.Precision, to.Scale
		switch {
		case from.IsInteger():
			return func(v types.Value) (types.Value, error) {
				return decimalResult(types.NewDecimal(v.Int64(), 0), p, s), nil
			}
		case from.Kind == types.KindDecimal:
			if from.Scale == s && from.Precision <= p {
				return nil // every value already fits
			}
			return func(v types.Value) (types.Value, error) { return decimalResult(v.Decimal(), p, s), nil }
		default:
			return func(v types.Value) (types.Value, error) {
				f := v.Float64()
				if math.IsNaN(f) || math.IsInf(f, 0) {
					return types.Value{}, nil
				}
				// The exact binary value, rounded half-up: CAST(2.675e0 AS
				// DECIMAL(10, 2)) is 2.67 in Flink.
				return decimalResult(decimalFromRat(new(big.Rat).SetFloat64(f), s), p, s), nil
			}
		}
	}
	return nil
}

// decimalFromRat rounds r half-up to scale digits.
func decimalFromRat(r *big.Rat, scale int) types.Decimal {
	num := new(big.Int).Mul(r.Num(), bigPow10(scale+1))
	q := num.Quo(num, r.Denom()) // truncated, one extra digit
	return roundHalfUp(types.NewDecimalBig(q, scale+1), scale)
}

func mustRescale(d types.Decimal, t types.Type) types.Decimal {
	r, err := d.Rescale(t.Precision, t.Scale)
	if err != nil {
		return d
	}
	return r
}

// decimalToInt64 truncates toward zero, wrapping like BigDecimal.longValue.
func decimalToInt64(d types.Decimal) int64 {
	if u, ok := d.UnscaledInt64(); ok && d.Scale() >= 0 && d.Scale() < len(pow10) {
		return u / pow10[d.Scale()]
	}
	if d.Scale() >= 0 {
		u := d.Unscaled()
		u.Quo(u, bigPow10(d.Scale()))
		return u.Int64()
	}
	u := d.Unscaled()
	return u.Mul(u, bigPow10(-d.Scale())).Int64()
}

// floatToInt converts like Java's (long)/(int) casts: truncation toward
// zero, saturation at the range of long or int, NaN to 0; TINYINT and
// SMALLINT then wrap from int.
func floatToInt(f float64, k types.Kind) int64 {
	if math.IsNaN(f) {
		return 0
	}
	f = math.Trunc(f)
	if k == types.KindBigInt {
		if f > -9.2e18 && f < 9.2e18 {
			return int64(f)
		}
		if math.IsInf(f, 0) {
			if f > 0 {
				return math.MaxInt64
			}
			return math.MinInt64
		}
		// Out of range: the low 64 bits of the exact integer, as Flink's
		// conversion through BigDecimal.longValue gives.
		bi, _ := new(big.Float).SetFloat64(f).Int(nil)
		return int64(bi.Uint64() & math.MaxUint64)
	}
	var i int32
	switch {
	case f >= math.MaxInt32:
		i = math.MaxInt32
	case f <= math.MinInt32:
		i = math.MinInt32
	default:
		i = int32(f)
	}
	return intWrapper(k)(int64(i))
}

func stringToNumeric(to types.Type) convFn {
	switch {
	case to.IsInteger():
		bits := map[types.Kind]int{types.KindTinyInt: 8, types.KindSmallInt: 16, types.KindInt: 32, types.KindBigInt: 64}[to.Kind]
		return func(v types.Value) (types.Value, error) {
			i, ok := parseFlinkInt(strings.TrimSpace(v.Str()), bits)
			if !ok {
				return types.Value{}, castErr(v.Str(), to)
			}
			return types.Int64(i), nil
		}
	case to.Kind == types.KindFloat || to.Kind == types.KindDouble:
		bits := 64
		if to.Kind == types.KindFloat {
			bits = 32
		}
		return func(v types.Value) (types.Value, error) {
			f, err := parseJavaDouble(strings.TrimSpace(v.Str()), bits)
			if err != nil {
				return types.Value{}, castErr(v.Str(), to)
			}
			if f == 0 {
				f = 0 // Flink's parse gives +0.0 for "-0.0"
			}
			return types.Float64(f), nil
		}
	default:
		p, s := to.Precision, to.Scale
		return func(v types.Value) (types.Value, error) {
			d, err := types.ParseDecimal(strings.TrimSpace(v.Str()))
			if err != nil {
				// Flink's cast gives zero for text that is not a number.
				return types.DecimalValue(types.NewDecimal(0, s)), nil
			}
			r, err := d.Rescale(p, s)
			if err != nil {
				return types.Value{}, fmt.Errorf("%w: %q overflows %s", ErrCast, v.Str(), to.Nullable())
			}
			return types.DecimalValue(r), nil
		}
	}
}

// parseFlinkInt parses an integer as Flink's string-to-integer cast: an
// optional sign, digits, and optionally a '.' followed by digits that are
// dropped (CAST('1.5' AS INT) is 1); anything else, or a value out of range
// for the bit size, fails.
func parseFlinkInt(s string, bits int) (int64, bool) {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		for _, r := range s[i+1:] {
			if r < '0' || r > '9' {
				return 0, false
			}
		}
		s = s[:i]
		if s == "" || s == "-" || s == "+" {
			s += "0"
		}
	}
	if strings.HasPrefix(s, "+") {
		s = s[1:]
		if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
			return 0, false
		}
	}
	i, err := strconv.ParseInt(s, 10, bits)
	return i, err == nil
}

// parseJavaDouble parses like Java's Double.parseDouble for the forms SQL
// users write: decimal and scientific numbers, NaN and Infinity.
func parseJavaDouble(s string, bits int) (float64, error) {
	switch strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-") {
	case "NaN", "Infinity":
	case "":
		return 0, strconv.ErrSyntax
	default:
		for _, r := range s {
			if !strings.ContainsRune("0123456789.eE+-", r) {
				return 0, strconv.ErrSyntax
			}
		}
	}
	return strconv.ParseFloat(s, bits)
}

func (b *builder) toStringConv(from, to types.Type) convFn {
	format := b.formatter(from)
	n := to.Length
	pad := to.Kind == types.KindChar
	if format == nil && !pad && n == types.MaxLength {
		return nil
	}
	return func(v types.Value) (types.Value, error) {
		s := v.Str()
		if format != nil {
			s = format(v)
		}
		return types.Str(fitLength(s, n, pad)), nil
	}
}

// fitLength truncates s to n characters, and pads it with spaces to n for
// CHAR(n), as Flink's casts to CHAR and VARCHAR do.
func fitLength(s string, n int, pad bool) string {
	if n >= types.MaxLength {
		return s
	}
	c := utf8.RuneCountInString(s)
	if c > n {
		i := 0
		for k := 0; k < n; k++ {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
		return s[:i]
	}
	if pad && c < n {
		return s + strings.Repeat(" ", n-c)
	}
	return s
}

// formatter returns how CAST(x AS STRING) prints values of type t, or nil
// for strings (no change).
func (b *builder) formatter(t types.Type) func(types.Value) string {
	switch familyOf(t) {
	case famString:
		return nil
	case famBinary:
		return func(v types.Value) string { return v.Str() }
	}
	return func(v types.Value) string { return formatValue(v, t, b.loc) }
}

// formatValue prints v of type t as Flink's CAST(... AS STRING) does.
func formatValue(v types.Value, t types.Type, loc *time.Location) string {
	if v.IsNull() {
		return "NULL"
	}
	switch t.Kind {
	case types.KindBoolean:
		if v.Bool() {
			return "TRUE"
		}
		return "FALSE"
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return strconv.FormatInt(v.Int64(), 10)
	case types.KindFloat:
		return javafmt.Float(v.Float64(), 32)
	case types.KindDouble:
		return javafmt.Float(v.Float64(), 64)
	case types.KindDecimal:
		return v.Decimal().String()
	case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary:
		return v.Str()
	case types.KindDate:
		return javatime.FormatDate(v.Date())
	case types.KindTime:
		return javatime.FormatTimeOfDay(v.Time(), t.Precision)
	case types.KindTimestamp:
		return javatime.FormatTimestamp(v.Timestamp(), t.Precision)
	case types.KindTimestampLTZ:
		return javatime.FormatTimestamp(javatime.ToLocal(v.Timestamp(), loc), t.Precision)
	case types.KindMultiset:
		// Held as a map of each element to its count; Flink prints it as
		// one too ({x=2, y=1}).
		var sb strings.Builder
		sb.WriteByte('{')
		if m := v.Map(); m != nil {
			for i := range m.Keys {
				if i > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(formatValue(m.Keys[i], *t.Elem, loc))
				sb.WriteByte('=')
				sb.WriteString(strconv.FormatInt(m.Values[i].Int64(), 10))
			}
		}
		sb.WriteByte('}')
		return sb.String()
	case types.KindArray:
		var sb strings.Builder
		sb.WriteByte('[')
		for i, e := range v.List() {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(formatValue(e, *t.Elem, loc))
		}
		sb.WriteByte(']')
		return sb.String()
	case types.KindMap:
		var sb strings.Builder
		sb.WriteByte('{')
		m := v.Map()
		if m == nil {
			m = &types.MapData{}
		}
		for i := range m.Keys {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(formatValue(m.Keys[i], *t.Elem, loc))
			sb.WriteByte('=')
			sb.WriteString(formatValue(m.Values[i], *t.Value, loc))
		}
		sb.WriteByte('}')
		return sb.String()
	case types.KindRow:
		var sb strings.Builder
		sb.WriteByte('(')
		for i, e := range v.List() {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(formatValue(e, t.Fields[i].Type, loc))
		}
		sb.WriteByte(')')
		return sb.String()
	}
	return ""
}
