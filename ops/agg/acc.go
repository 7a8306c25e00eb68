package agg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// acc is one call's accumulator while a key's rows are applied. Numbers
// are kept in the representation their type computes in: integers in i
// (wrapping at the argument's width, as Java's arithmetic does), FLOAT and
// DOUBLE in f, DECIMAL in d.
type acc struct {
	n   int64   // COUNT; the non-NULL values of SUM and AVG
	i   int64   // integer SUM and AVG
	f   float64 // FLOAT and DOUBLE SUM and AVG
	d   types.Decimal
	v   types.Value // MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG
	has bool        // v is set
}

// Accumulators are the accumulators of a key: one per call, and the number
// of rows the key holds (insertions minus retractions), which says when a
// key's group is empty.
type Accumulators struct {
	calls []Call
	rows  int64
	accs  []acc
	cmp   []func(a, b types.Value) int // of MIN and MAX calls
	// own makes the accumulators copy the strings and bytes they keep of
	// an input row: accumulators that outlive the call that applied the
	// row (the group aggregation's cache) must not alias the row's
	// memory, which its source may reuse.
	own bool
}

// NewAccumulators returns empty accumulators of calls.
func NewAccumulators(calls []Call) *Accumulators {
	a := &Accumulators{calls: calls, accs: make([]acc, len(calls)), cmp: make([]func(a, b types.Value) int, len(calls))}
	for k, c := range calls {
		if c.Func == Min || c.Func == Max || c.Func.KeepsRows() {
			a.cmp[k] = types.Comparator(c.ArgType)
		}
	}
	return a
}

// clone returns empty accumulators of the same calls that own what they
// keep (see own).
func (a *Accumulators) clone() *Accumulators {
	return &Accumulators{calls: a.calls, accs: make([]acc, len(a.calls)), cmp: a.cmp, own: true}
}

// Owned returns empty accumulators of the same calls that own what they
// keep: strings and bytes of the rows they apply are copied, so that they
// may outlive the rows (a window aggregation's buffer of combined rows).
func (a *Accumulators) Owned() *Accumulators { return a.clone() }

// keep returns v, of type t, as the accumulators keep it: a copy of a
// string or bytes when they own what they keep.
func (a *Accumulators) keep(v types.Value, t types.Type) types.Value {
	switch {
	case !a.own:
		return v
	case t.IsString():
		return types.Str(strings.Clone(v.Str()))
	case t.IsBinary():
		return types.BytesValue(bytes.Clone(v.Bytes()))
	case t.Kind == types.KindRow && !v.IsNull():
		// JSON_OBJECTAGG's ROW(key, value).
		f := make([]types.Value, len(v.List()))
		for i, x := range v.List() {
			f[i] = a.keep(x, t.Fields[i].Type)
		}
		return types.List(f)
	}
	return v
}

// Reset empties the accumulators.
func (a *Accumulators) Reset() {
	a.rows = 0
	clear(a.accs)
}

// Rows returns the number of rows the accumulators hold (insertions minus
// retractions).
func (a *Accumulators) Rows() int64 { return a.rows }

// accVersion is the first byte of an encoded accumulator record; a record
// of another version is refused rather than misread.
const accVersion = 1

// Append appends the accumulators' encoding to dst.
func (a *Accumulators) Append(dst []byte) []byte {
	dst = append(dst, accVersion)
	dst = binary.AppendVarint(dst, a.rows)
	for k := range a.accs {
		c, x := &a.calls[k], &a.accs[k]
		switch c.Func {
		case Count:
			dst = binary.AppendVarint(dst, x.n)
		case Sum, Avg:
			dst = binary.AppendVarint(dst, x.n)
			if x.n == 0 {
				continue
			}
			switch numKind(c.ArgType) {
			case numInt:
				dst = binary.AppendVarint(dst, x.i)
			case numFloat:
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(x.f))
			case numDecimal:
				dst = state.AppendValue(dst, types.DecimalValue(x.d), sumType(c))
			}
		default:
			if !x.has {
				dst = append(dst, 0)
				continue
			}
			dst = append(dst, 1)
			dst = state.AppendValue(dst, x.v, c.valueType())
		}
	}
	return dst
}

// Read sets the accumulators from an encoding made by Append.
func (a *Accumulators) Read(src []byte) error {
	if len(src) == 0 || src[0] != accVersion {
		return errors.New("aggregate state: unknown accumulator encoding")
	}
	src = src[1:]
	var err error
	if a.rows, src, err = varint(src); err != nil {
		return err
	}
	for k := range a.accs {
		c, x := &a.calls[k], &a.accs[k]
		*x = acc{}
		switch c.Func {
		case Count:
			if x.n, src, err = varint(src); err != nil {
				return err
			}
		case Sum, Avg:
			if x.n, src, err = varint(src); err != nil {
				return err
			}
			if x.n == 0 {
				continue
			}
			switch numKind(c.ArgType) {
			case numInt:
				if x.i, src, err = varint(src); err != nil {
					return err
				}
			case numFloat:
				if len(src) < 8 {
					return errTruncated
				}
				x.f = math.Float64frombits(binary.LittleEndian.Uint64(src))
				src = src[8:]
			case numDecimal:
				var v types.Value
				if v, src, err = state.ReadValue(src, sumType(c)); err != nil {
					return err
				}
				x.d = v.Decimal()
			}
		default:
			if len(src) == 0 {
				return errTruncated
			}
			has := src[0] == 1
			src = src[1:]
			if !has {
				continue
			}
			if x.v, src, err = state.ReadValue(src, c.valueType()); err != nil {
				return err
			}
			x.has = true
		}
	}
	if len(src) != 0 {
		return errors.New("aggregate state: trailing bytes after the accumulators")
	}
	return nil
}

var errTruncated = errors.New("aggregate state: truncated accumulator")

func varint(src []byte) (int64, []byte, error) {
	v, n := binary.Varint(src)
	if n <= 0 {
		return 0, nil, errTruncated
	}
	return v, src[n:], nil
}

// valueType is the type of the value a MIN, MAX, FIRST_VALUE, LAST_VALUE
// or LISTAGG accumulator holds.
func (c *Call) valueType() types.Type {
	switch c.Func {
	case ListAgg:
		return types.String()
	case ArrayAgg, JSONArrayAgg, JSONObjectAgg, SingleValue:
		return types.Array(c.ArgType.Nullable())
	}
	return c.ArgType.Nullable()
}

// sumType is the type a DECIMAL SUM or AVG accumulates in: DECIMAL(38, s).
func sumType(c *Call) types.Type {
	return types.DecimalType(types.MaxDecimalPrecision, c.ArgType.Scale)
}

type numClass uint8

const (
	numInt numClass = iota
	numFloat
	numDecimal
)

func numKind(t types.Type) numClass {
	switch t.Kind {
	case types.KindFloat, types.KindDouble:
		return numFloat
	case types.KindDecimal:
		return numDecimal
	}
	return numInt
}

// wrap truncates an integer sum to the width of t, as Java's int, short and
// byte arithmetic does (Flink's SUM(INT) is an INT that overflows).
func wrap(i int64, t types.Type) int64 {
	switch t.Kind {
	case types.KindTinyInt:
		return int64(int8(i))
	case types.KindSmallInt:
		return int64(int16(i))
	case types.KindInt:
		return int64(int32(i))
	}
	return i
}

// Apply adds (retract false) or retracts (retract true) the input row's
// values to every call whose filter passes, except the distinct calls in
// skip (a DISTINCT call sees a value only the first time it is added and
// the last time it is retracted: the caller decides).
func (a *Accumulators) Apply(row []types.Value, retract bool, skip []bool) error {
	if retract {
		a.rows--
	} else {
		a.rows++
	}
	for k := range a.accs {
		c := &a.calls[k]
		if skip != nil && skip[k] {
			continue
		}
		if c.Filter >= 0 && !isTrue(row[c.Filter]) {
			continue
		}
		if err := a.applyCall(k, row, retract); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	return nil
}

// passes reports whether call k takes the row: its filter is TRUE (or it
// has none) and, but for COUNT(*), its argument is not NULL.
func (a *Accumulators) passes(k int, row []types.Value) bool {
	c := &a.calls[k]
	if c.Filter >= 0 && !isTrue(row[c.Filter]) {
		return false
	}
	return c.Arg < 0 || !row[c.Arg].IsNull()
}

func isTrue(v types.Value) bool { return !v.IsNull() && v.Bool() }

// applyCall applies one call. Retracting a MIN or MAX is done by the
// caller (it needs the call's value counts; see SetExtreme); here it is
// an error.
func (a *Accumulators) applyCall(k int, row []types.Value, retract bool) error {
	c, x := &a.calls[k], &a.accs[k]
	var v types.Value
	if c.Arg >= 0 {
		v = row[c.Arg]
		if v.IsNull() && c.Func != ArrayAgg && c.Func != JSONObjectAgg && c.Func != SingleValue {
			return nil
		}
	}
	switch c.Func {
	case Count:
		if retract {
			x.n--
		} else {
			x.n++
		}
	case Sum, Avg:
		sign := int64(1)
		if retract {
			sign = -1
		}
		x.n += sign
		switch numKind(c.ArgType) {
		case numInt:
			x.i = wrap(x.i+sign*v.Int64(), c.ArgType)
		case numFloat:
			x.f += float64(sign) * v.Float64()
		case numDecimal:
			if retract {
				x.d = x.d.Sub(v.Decimal())
			} else {
				x.d = x.d.Add(v.Decimal())
			}
		}
		if x.n == 0 {
			x.i, x.f, x.d = 0, 0, types.Decimal{}
		}
	case Min, Max:
		if retract {
			return errors.New("retraction of MIN or MAX without value counts")
		}
		if !x.has {
			x.v, x.has = a.keep(v, c.ArgType), true
		} else if r := a.cmp[k](v, x.v); (c.Func == Min && r < 0) || (c.Func == Max && r > 0) {
			x.v = a.keep(v, c.ArgType)
		}
	case FirstValue:
		if retract {
			return errors.New("FIRST_VALUE does not retract")
		}
		if !x.has {
			x.v, x.has = a.keep(v, c.ArgType), true
		}
	case LastValue:
		if retract {
			return errors.New("LAST_VALUE does not retract")
		}
		x.v, x.has = a.keep(v, c.ArgType), true
	case ListAgg:
		if retract {
			return errors.New("LISTAGG does not retract")
		}
		if !x.has {
			x.v, x.has = a.keep(v, types.String()), true
		} else {
			x.v = types.Str(x.v.Str() + c.Separator + v.Str())
		}
	case ArrayAgg, JSONArrayAgg, JSONObjectAgg, SingleValue:
		// A new list each time: results already emitted share the old.
		var l []types.Value
		if x.has {
			l = x.v.List()
		}
		if retract {
			i := slices.IndexFunc(l, func(e types.Value) bool { return equalValues(a.cmp[k], e, v) })
			if i < 0 {
				return nil // nothing to remove
			}
			if len(l) == 1 {
				x.v, x.has = types.Value{}, false
				return nil
			}
			nl := make([]types.Value, 0, len(l)-1)
			x.v = types.List(append(append(nl, l[:i]...), l[i+1:]...))
			return nil
		}
		nl := make([]types.Value, len(l)+1)
		copy(nl, l)
		nl[len(l)] = a.keep(v, c.ArgType)
		x.v, x.has = types.List(nl), true
	}
	return nil
}

// equalValues reports whether a and b are equal by cmp, NULL equal to NULL.
func equalValues(cmp func(a, b types.Value) int, a, b types.Value) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	return cmp(a, b) == 0
}

// SetExtreme sets the value of MIN or MAX call k (after a retraction: the
// new extreme from the call's value counts); has false: no value left.
func (a *Accumulators) SetExtreme(k int, v types.Value, has bool) {
	a.accs[k].v, a.accs[k].has = v, has
}

// Extreme returns the value of MIN or MAX call k.
func (a *Accumulators) Extreme(k int) (types.Value, bool) { return a.accs[k].v, a.accs[k].has }

// Results appends every call's result to dst.
func (a *Accumulators) Results(dst []types.Value) ([]types.Value, error) {
	for k := range a.accs {
		v, err := a.result(k)
		if err != nil {
			return dst, err
		}
		dst = append(dst, v)
	}
	return dst, nil
}

func (a *Accumulators) result(k int) (types.Value, error) {
	c, x := &a.calls[k], &a.accs[k]
	switch c.Func {
	case Count:
		return types.Int64(x.n), nil
	case Sum:
		if x.n == 0 {
			return types.Value{}, nil
		}
		switch numKind(c.ArgType) {
		case numInt:
			return types.Int64(x.i), nil
		case numFloat:
			return floatOf(x.f, c.Result), nil
		}
		return decimalOf(x.d, c.Result)
	case Avg:
		if x.n == 0 {
			return types.Value{}, nil
		}
		switch numKind(c.ArgType) {
		case numInt:
			// Java's long division truncates towards zero, as Go's does.
			return types.Int64(wrap(x.i/x.n, c.Result)), nil
		case numFloat:
			return floatOf(x.f/float64(x.n), c.Result), nil
		}
		q, err := x.d.Quo(types.NewDecimal(x.n, 0), c.Result.Scale)
		if err != nil {
			return types.Value{}, err
		}
		return decimalOf(q, c.Result)
	case JSONArrayAgg:
		var l []types.Value
		if x.has {
			l = x.v.List()
		}
		return types.Str(jsonArray(l, c.ArgType)), nil
	case SingleValue:
		if !x.has {
			return types.Value{}, nil
		}
		l := x.v.List()
		if len(l) > 1 {
			return types.Value{}, errors.New("SINGLE_VALUE received more than one row (a scalar subquery returned more than one row)")
		}
		return l[0], nil
	case JSONObjectAgg:
		var l []types.Value
		if x.has {
			l = x.v.List()
		}
		s, err := jsonObject(l, c.ArgType.Fields[1].Type, c.Absent)
		if err != nil {
			return types.Value{}, err
		}
		return types.Str(s), nil
	}
	if !x.has {
		return types.Value{}, nil
	}
	return x.v, nil
}

// floatOf returns f as a value of t (a FLOAT holds a float32 exactly).
func floatOf(f float64, t types.Type) types.Value {
	if t.Kind == types.KindFloat {
		return types.Float64(float64(float32(f)))
	}
	return types.Float64(f)
}

// decimalOf returns d in t's precision and scale, or NULL when it does not
// fit (Flink's decimal overflow gives NULL).
func decimalOf(d types.Decimal, t types.Type) (types.Value, error) {
	r, err := d.Rescale(t.Precision, t.Scale)
	if err != nil {
		return types.Value{}, nil
	}
	return types.DecimalValue(r), nil
}

// Merge folds o's accumulators (of the same calls) into a's: a session
// window that a row joins to another. o's rows count as having arrived
// after a's (FIRST_VALUE keeps a's, LAST_VALUE takes o's).
func (a *Accumulators) Merge(o *Accumulators) error {
	a.rows += o.rows
	for k := range a.accs {
		c, x, y := &a.calls[k], &a.accs[k], &o.accs[k]
		switch c.Func {
		case Count:
			x.n += y.n
		case Sum, Avg:
			if y.n == 0 {
				continue
			}
			x.n += y.n
			switch numKind(c.ArgType) {
			case numInt:
				x.i = wrap(x.i+y.i, c.ArgType)
			case numFloat:
				x.f += y.f
			case numDecimal:
				x.d = x.d.Add(y.d)
			}
		case Min, Max:
			if !y.has {
				continue
			}
			if !x.has {
				x.v, x.has = y.v, true
			} else if r := a.cmp[k](y.v, x.v); (c.Func == Min && r < 0) || (c.Func == Max && r > 0) {
				x.v = y.v
			}
		case FirstValue:
			if !x.has {
				x.v, x.has = y.v, y.has
			}
		case LastValue:
			if y.has {
				x.v, x.has = y.v, true
			}
		case ListAgg:
			switch {
			case !y.has:
			case !x.has:
				x.v, x.has = y.v, true
			default:
				x.v = types.Str(x.v.Str() + c.Separator + y.v.Str())
			}
		case ArrayAgg, JSONArrayAgg, JSONObjectAgg, SingleValue:
			switch {
			case !y.has:
			case !x.has:
				x.v, x.has = y.v, true
			default:
				x.v = types.List(append(slices.Clone(x.v.List()), y.v.List()...))
			}
		}
	}
	return nil
}

// jsonObject writes the members l, ROW(key, value) values whose values
// are of type t, as a JSON object as Flink's JSON_OBJECTAGG does: compact,
// the keys in order, a NULL value as null or left out (absent). A NULL
// key, or a key two members have, is an error, as in Flink.
func jsonObject(l []types.Value, t types.Type, absent bool) (string, error) {
	members := make([][]types.Value, 0, len(l))
	for _, m := range l {
		f := m.List()
		if f[0].IsNull() {
			return "", errors.New("JSON_OBJECTAGG: a key is NULL; keys must not be NULL")
		}
		if absent && f[1].IsNull() {
			continue
		}
		members = append(members, f)
	}
	slices.SortStableFunc(members, func(a, b []types.Value) int { return compareUTF16(a[0].Str(), b[0].Str()) })
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			if m[0].Str() == members[i-1][0].Str() {
				return "", fmt.Errorf("JSON_OBJECTAGG: key '%s' is already present; duplicate keys are not allowed (as in Flink)", m[0].Str())
			}
			b.WriteByte(',')
		}
		javafmt.JSONString(&b, m[0].Str())
		b.WriteByte(':')
		jsonValue(&b, m[1], t)
	}
	b.WriteByte('}')
	return b.String(), nil
}

// compareUTF16 compares a and b as Java's String.compareTo does: by
// UTF-16 code units (which differs from Go's byte order only between
// characters above U+FFFF and those from U+E000 to U+FFFF).
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// jsonArray writes l, of values of type t (strings, integers or BOOLEAN),
// as a JSON array as Flink's JSON_ARRAYAGG does: compact, strings escaped
// as Jackson escapes them.
func jsonArray(l []types.Value, t types.Type) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		jsonValue(&b, v, t)
	}
	b.WriteByte(']')
	return b.String()
}

// jsonValue writes v, of type t (a string, an integer or BOOLEAN), as a
// JSON value.
func jsonValue(b *strings.Builder, v types.Value, t types.Type) {
	switch {
	case v.IsNull():
		b.WriteString("null")
	case t.IsString():
		javafmt.JSONString(b, v.Str())
	case t.Kind == types.KindBoolean:
		b.WriteString(strconv.FormatBool(v.Bool()))
	default:
		b.WriteString(strconv.FormatInt(v.Int64(), 10))
	}
}

// ResetCall empties call k's accumulator alone.
func (a *Accumulators) ResetCall(k int) { a.accs[k] = acc{} }

// AddValue adds v to call k's accumulator alone, as a row whose argument
// is v and whose filter passes would; Rows does not change. It computes a
// DISTINCT call's accumulator again from its set of values (a window
// aggregation's merged sessions).
func (a *Accumulators) AddValue(k int, v types.Value) error {
	c := &a.calls[k]
	if c.Arg < 0 {
		return fmt.Errorf("%s: AddValue of a call without argument", c)
	}
	row := make([]types.Value, c.Arg+1)
	row[c.Arg] = v
	if err := a.applyCall(k, row, false); err != nil {
		return fmt.Errorf("%s: %w", c, err)
	}
	return nil
}
