// Package javafmt prints values the way Java's toString does, which is what
// Flink shows: Double.toString and Float.toString for FLOAT and DOUBLE,
// BigDecimal.toString for DECIMAL (Float, BigDecimal), and the toString of
// Flink's default external class of every type for whole values and rows
// (AppendValue, FormatRow). The print connector, the filesystem sink's
// partition directories and the expression engine's CAST to STRING share
// it, and JSONString writes a JSON string as Jackson escapes it for the JSON
// functions and JSON_ARRAYAGG. Expectations come from a Java 17 program
// (testdata/gen).
package javafmt

import (
	"math"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Float formats f as Java's Double.toString (bits 64) or
// Float.toString (bits 32): plain notation with at least one fractional
// digit for magnitudes in [1e-3, 1e7), otherwise computerized scientific
// notation such as "1.0E10" or "1.5E-4"; the shortest digits that round-trip.
func Float(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // e.g. 1.5e-04, 1e+10
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		// Java writes at least two significant digits, the nearest ones:
		// 1.0E10, and 4.9E-324 where the shortest form is 5e-324.
		s = strconv.FormatFloat(f, 'e', 1, bits)
		mant, exp, _ = strings.Cut(s, "e")
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// BigDecimal formats d as Java's BigDecimal.toString: plain when
// the scale is not negative and the adjusted exponent is at least -6,
// scientific ("1E-8", "1.23E+5") otherwise.
func BigDecimal(d types.Decimal) string {
	unscaled := d.Unscaled()
	digits := unscaled.String()
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	scale := d.Scale()
	adjusted := -scale + len(digits) - 1
	if scale >= 0 && adjusted >= -6 {
		return d.String()
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	b.WriteString(digits[:1])
	if len(digits) > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('E')
	if adjusted >= 0 {
		b.WriteByte('+')
	}
	b.WriteString(strconv.Itoa(adjusted))
	return b.String()
}
