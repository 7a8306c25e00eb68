// Package formattest generates random rows of every logical type and
// compares values, for the formats' round-trip property tests.
package formattest

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/streamsql/streamsql/types"
)

// Limits say what a format can represent exactly, so that generated values
// stay within it.
type Limits struct {
	// TimeWholeSeconds restricts TIME values to whole seconds (Flink's
	// json and csv write TIME as HH:mm:ss).
	TimeWholeSeconds bool
	// NoNaN avoids NaN and infinities.
	NoNaN bool
	// NoEmptyString avoids "" (csv reads an empty field as NULL when the
	// null literal is empty).
	NoEmptyString bool
}

// ScalarTypes returns one type of every scalar kind, with a few
// precisions.
func ScalarTypes() []types.Type {
	return []types.Type{
		types.Boolean(), types.TinyInt(), types.SmallInt(), types.Int(), types.BigInt(),
		types.Float(), types.Double(), types.DecimalType(10, 2), types.DecimalType(38, 10),
		types.DecimalType(5, 0), types.DecimalType(18, 18), types.Char(3), types.VarChar(20), types.String(),
		types.Binary(4), types.VarBinary(10), types.Bytes(), types.Date(), types.Time(0), types.Time(3),
		types.TimestampType(0), types.TimestampType(3), types.TimestampType(6), types.TimestampType(9),
		types.TimestampLTZ(0), types.TimestampLTZ(3), types.TimestampLTZ(9),
	}
}

// NestedTypes returns ARRAY, MAP, MULTISET and ROW types over scalars.
func NestedTypes() []types.Type {
	return []types.Type{
		types.Array(types.Int()), types.Array(types.String()), types.Array(types.Array(types.DecimalType(10, 2))),
		types.Map(types.String(), types.BigInt()), types.Map(types.Int(), types.TimestampType(3)),
		types.Multiset(types.String()),
		types.RowType(types.Field{Name: "a", Type: types.Int()}, types.Field{Name: "b", Type: types.String()},
			types.Field{Name: "c", Type: types.Array(types.RowType(types.Field{Name: "x", Type: types.Double()}))}),
	}
}

const alphabet = "abcXYZ019 _-\"\\/\t\n\r\x01\x1f'é中😀,;:{}[]"

// Value returns a random value of t (NULL with probability 1/8 unless t is
// NOT NULL).
func Value(r *rand.Rand, t types.Type, l Limits, depth int) types.Value {
	if !t.NotNull && r.IntN(8) == 0 {
		return types.Value{}
	}
	switch t.Kind {
	case types.KindBoolean:
		return types.Bool(r.IntN(2) == 0)
	case types.KindTinyInt:
		return types.Int64(int64(int8(r.Uint32())))
	case types.KindSmallInt:
		return types.Int64(int64(int16(r.Uint32())))
	case types.KindInt:
		return types.Int64(int64(int32(r.Uint32())))
	case types.KindBigInt:
		return types.Int64(int64(r.Uint64()))
	case types.KindFloat:
		return types.Float64(float64(float32(randFloat(r, l))))
	case types.KindDouble:
		return types.Float64(randFloat(r, l))
	case types.KindDecimal:
		digits := 1 + r.IntN(t.Precision)
		var b []byte
		for i := 0; i < digits; i++ {
			b = append(b, byte('0'+r.IntN(10)))
		}
		u, _ := new(big.Int).SetString(string(b), 10)
		if r.IntN(2) == 0 {
			u.Neg(u)
		}
		return types.DecimalValue(types.NewDecimalBig(u, t.Scale))
	case types.KindChar, types.KindVarChar:
		n := r.IntN(12)
		if l.NoEmptyString && n == 0 {
			n = 1
		}
		rs := []rune(alphabet)
		out := make([]rune, n)
		for i := range out {
			out[i] = rs[r.IntN(len(rs))]
		}
		return types.Str(string(out))
	case types.KindBinary, types.KindVarBinary:
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return types.BytesValue(b)
	case types.KindDate:
		return types.DateValue(int32(r.IntN(2932897) - 719162)) // years 0001..9999
	case types.KindTime:
		ns := r.Int64N(86400) * 1e9
		if !l.TimeWholeSeconds {
			ns += randFraction(r, t.Precision)
		}
		return types.TimeValue(ns)
	case types.KindTimestamp, types.KindTimestampLTZ:
		sec := r.Int64N(253402300800+62135596800) - 62135596800
		ns := randFraction(r, t.Precision)
		return types.TimestampValue(types.Timestamp{Millis: sec*1000 + ns/1e6, NanoOfMilli: int32(ns % 1e6)})
	case types.KindArray:
		n := r.IntN(4)
		if depth > 3 {
			n = 0
		}
		out := make([]types.Value, n)
		for i := range out {
			out[i] = Value(r, *t.Elem, l, depth+1)
		}
		return types.List(out)
	case types.KindMap, types.KindMultiset:
		n := r.IntN(4)
		m := &types.MapData{}
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			k := Value(r, t.Elem.NotNullable(), l, depth+1)
			ks := fmt.Sprint(k)
			if seen[ks] {
				continue
			}
			seen[ks] = true
			m.Keys = append(m.Keys, k)
			if t.Kind == types.KindMultiset {
				m.Values = append(m.Values, types.Int64(int64(1+r.IntN(5))))
			} else {
				m.Values = append(m.Values, Value(r, *t.Value, l, depth+1))
			}
		}
		return types.MapValue(m)
	case types.KindRow:
		out := make([]types.Value, len(t.Fields))
		for i, f := range t.Fields {
			out[i] = Value(r, f.Type, l, depth+1)
		}
		return types.List(out)
	}
	panic("formattest: no generator for " + t.String())
}

func randFraction(r *rand.Rand, precision int) int64 {
	ns := r.Int64N(1e9)
	unit := int64(1)
	for i := precision; i < 9; i++ {
		unit *= 10
	}
	return ns - ns%unit
}

func randFloat(r *rand.Rand, l Limits) float64 {
	switch r.IntN(10) {
	case 0:
		return float64(r.IntN(1000))
	case 1:
		if !l.NoNaN {
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
		}
	case 2:
		return math.Ldexp(r.Float64(), r.IntN(200)-100)
	}
	return (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(30)-15))
}

// Equal reports whether a and b are the same value of type t.
func Equal(t types.Type, a, b types.Value) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() == b.IsNull()
	}
	switch t.Kind {
	case types.KindBoolean:
		return a.Bool() == b.Bool()
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return a.Int64() == b.Int64()
	case types.KindFloat, types.KindDouble:
		fa, fb := a.Float64(), b.Float64()
		return fa == fb || (math.IsNaN(fa) && math.IsNaN(fb))
	case types.KindDecimal:
		return a.Decimal().Cmp(b.Decimal()) == 0 && a.Decimal().Scale() == b.Decimal().Scale()
	case types.KindChar, types.KindVarChar:
		return a.Str() == b.Str()
	case types.KindBinary, types.KindVarBinary:
		return bytes.Equal(a.Bytes(), b.Bytes())
	case types.KindDate:
		return a.Date() == b.Date()
	case types.KindTime:
		return a.Time() == b.Time()
	case types.KindTimestamp, types.KindTimestampLTZ:
		return a.Timestamp() == b.Timestamp()
	case types.KindArray:
		la, lb := a.List(), b.List()
		if len(la) != len(lb) {
			return false
		}
		for i := range la {
			if !Equal(*t.Elem, la[i], lb[i]) {
				return false
			}
		}
		return true
	case types.KindMap, types.KindMultiset:
		ma, mb := a.Map(), b.Map()
		if ma.Len() != mb.Len() {
			return false
		}
		vt := types.Int()
		if t.Value != nil {
			vt = *t.Value
		}
		for i := range ma.Keys {
			if !Equal(*t.Elem, ma.Keys[i], mb.Keys[i]) || !Equal(vt, ma.Values[i], mb.Values[i]) {
				return false
			}
		}
		return true
	case types.KindRow:
		la, lb := a.List(), b.List()
		if len(la) != len(lb) {
			return false
		}
		for i, f := range t.Fields {
			if !Equal(f.Type, la[i], lb[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// Show formats v for failure messages.
func Show(t types.Type, v types.Value) string {
	if v.IsNull() {
		return "NULL"
	}
	switch t.Kind {
	case types.KindBoolean:
		return fmt.Sprint(v.Bool())
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return fmt.Sprint(v.Int64())
	case types.KindFloat, types.KindDouble:
		return fmt.Sprint(v.Float64())
	case types.KindDecimal:
		return v.Decimal().String()
	case types.KindChar, types.KindVarChar:
		return fmt.Sprintf("%q", v.Str())
	case types.KindBinary, types.KindVarBinary:
		return fmt.Sprintf("%x", v.Bytes())
	case types.KindDate:
		return fmt.Sprint("date ", v.Date())
	case types.KindTime:
		return fmt.Sprint("time ", v.Time())
	case types.KindTimestamp, types.KindTimestampLTZ:
		return v.Timestamp().Time().String()
	case types.KindArray:
		s := "["
		for i, x := range v.List() {
			if i > 0 {
				s += ", "
			}
			s += Show(*t.Elem, x)
		}
		return s + "]"
	case types.KindRow:
		s := "("
		for i, x := range v.List() {
			if i > 0 {
				s += ", "
			}
			s += Show(t.Fields[i].Type, x)
		}
		return s + ")"
	case types.KindMap, types.KindMultiset:
		m := v.Map()
		vt := types.Int()
		if t.Value != nil {
			vt = *t.Value
		}
		s := "{"
		for i := range m.Keys {
			if i > 0 {
				s += ", "
			}
			s += Show(*t.Elem, m.Keys[i]) + ": " + Show(vt, m.Values[i])
		}
		return s + "}"
	}
	return "?"
}
