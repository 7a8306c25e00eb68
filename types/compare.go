package types

import (
	"bytes"
	"math"
	"strings"
)

// Comparator returns SQL's order over non-NULL values of type t (both
// values of t): numbers by value (FLOAT and DOUBLE as Java's
// Double.compare orders them, NaN above everything), strings and bytes
// lexicographically by byte, dates, times and timestamps by time, ARRAYs
// and ROWs element by element (NULL first, then the shorter first). MAPs
// and MULTISETs compare 0 when they hold the same entries in any order and
// 1 otherwise: they are only equal or not.
func Comparator(t Type) func(a, b Value) int {
	switch {
	case t.Kind == KindBoolean:
		return func(a, b Value) int { return cmpInt(a.Int64(), b.Int64()) }
	case t.IsInteger(), t.Kind == KindIntervalYearMonth, t.Kind == KindIntervalDayTime:
		return func(a, b Value) int { return cmpInt(a.Int64(), b.Int64()) }
	case t.Kind == KindDecimal:
		return func(a, b Value) int { return a.Decimal().Cmp(b.Decimal()) }
	case t.Kind == KindFloat || t.Kind == KindDouble:
		return func(a, b Value) int { return CompareFloat(a.Float64(), b.Float64()) }
	case t.IsString():
		return func(a, b Value) int { return strings.Compare(a.Str(), b.Str()) }
	case t.IsBinary():
		return func(a, b Value) int { return bytes.Compare(a.Bytes(), b.Bytes()) }
	case t.Kind == KindDate:
		return func(a, b Value) int { return cmpInt(int64(a.Date()), int64(b.Date())) }
	case t.Kind == KindTime:
		return func(a, b Value) int { return cmpInt(a.Time(), b.Time()) }
	case t.IsTimestamp():
		return func(a, b Value) int { return a.Timestamp().Compare(b.Timestamp()) }
	case t.Kind == KindArray:
		elem := Comparator(*t.Elem)
		return func(a, b Value) int {
			return cmpList(a.List(), b.List(), func(int) func(a, b Value) int { return elem })
		}
	case t.Kind == KindRow:
		fields := make([]func(a, b Value) int, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = Comparator(f.Type)
		}
		return func(a, b Value) int {
			return cmpList(a.List(), b.List(), func(i int) func(a, b Value) int { return fields[i] })
		}
	case t.Kind == KindMap:
		key, val := Comparator(*t.Elem), Comparator(*t.Value)
		return func(a, b Value) int { return cmpMap(a.Map(), b.Map(), key, val) }
	case t.Kind == KindMultiset:
		key, val := Comparator(*t.Elem), Comparator(Int())
		return func(a, b Value) int { return cmpMap(a.Map(), b.Map(), key, val) }
	}
	return func(a, b Value) int { return 0 }
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CompareFloat orders as Java's Double.compare does, but for -0.0, which
// it takes as equal to 0.0 (SQL's order): NaN above everything.
func CompareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	}
	return -1
}

func cmpList(a, b []Value, elem func(i int) func(a, b Value) int) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		switch {
		case x.IsNull() && y.IsNull():
			continue
		case x.IsNull():
			return -1
		case y.IsNull():
			return 1
		}
		if c := elem(i)(x, y); c != 0 {
			return c
		}
	}
	return cmpInt(int64(len(a)), int64(len(b)))
}

// cmpMap returns 0 when the maps hold the same entries, regardless of order.
func cmpMap(a, b *MapData, key, val func(a, b Value) int) int {
	if a == nil || b == nil {
		if a == b {
			return 0
		}
		return 1
	}
	if a.Len() != b.Len() {
		return 1
	}
	for i := range a.Keys {
		found := false
		for j := range b.Keys {
			if NullsFirst(a.Keys[i], b.Keys[j], key) == 0 {
				found = NullsFirst(a.Values[i], b.Values[j], val) == 0
				break
			}
		}
		if !found {
			return 1
		}
	}
	return 0
}

// NullsFirst compares a and b with cmp, NULL before every other value.
func NullsFirst(a, b Value, cmp func(a, b Value) int) int {
	switch {
	case a.IsNull() && b.IsNull():
		return 0
	case a.IsNull():
		return -1
	case b.IsNull():
		return 1
	}
	return cmp(a, b)
}
