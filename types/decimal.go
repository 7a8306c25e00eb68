package types

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

type bigInt = big.Int

// Decimal is an exact decimal number: an unscaled integer and a scale, as
// Flink's DecimalData. Values whose unscaled integer fits in 18 digits are
// held without allocation; wider ones use math/big.
type Decimal struct {
	compact int64    // unscaled value when big == nil
	big     *big.Int // unscaled value when it does not fit compactly
	scale   int32
}

var pow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// ErrDecimalOverflow is returned when a decimal does not fit the requested
// precision.
var ErrDecimalOverflow = errors.New("decimal value out of range for its precision")

// NewDecimal returns unscaled × 10^-scale.
func NewDecimal(unscaled int64, scale int) Decimal {
	return Decimal{compact: unscaled, scale: int32(scale)}
}

// NewDecimalBig returns unscaled × 10^-scale. It does not retain unscaled.
func NewDecimalBig(unscaled *big.Int, scale int) Decimal {
	if unscaled.IsInt64() {
		return Decimal{compact: unscaled.Int64(), scale: int32(scale)}
	}
	return Decimal{big: new(big.Int).Set(unscaled), scale: int32(scale)}
}

// Scale returns the number of digits after the decimal point.
func (d Decimal) Scale() int { return int(d.scale) }

// Unscaled returns the unscaled integer.
func (d Decimal) Unscaled() *big.Int {
	if d.big != nil {
		return new(big.Int).Set(d.big)
	}
	return big.NewInt(d.compact)
}

// UnscaledInt64 returns the unscaled integer and whether it fits an int64.
func (d Decimal) UnscaledInt64() (int64, bool) {
	if d.big != nil {
		return 0, false
	}
	return d.compact, true
}

// Sign returns -1, 0 or +1.
func (d Decimal) Sign() int {
	if d.big != nil {
		return d.big.Sign()
	}
	switch {
	case d.compact < 0:
		return -1
	case d.compact > 0:
		return 1
	}
	return 0
}

// Precision returns the number of significant digits of the unscaled value
// (at least 1).
func (d Decimal) Precision() int {
	if d.big == nil {
		u := d.compact
		if u < 0 {
			if u == math.MinInt64 {
				return 19
			}
			u = -u
		}
		n := 1
		for n < len(pow10) && u >= pow10[n] {
			n++
		}
		return n
	}
	return len(new(big.Int).Abs(d.big).String())
}

// Rescale returns d with the given scale and checks it against precision,
// rounding half-up (away from zero on .5) when digits are dropped, as Flink
// does. It returns ErrDecimalOverflow when the result needs more than
// precision digits.
func (d Decimal) Rescale(precision, scale int) (Decimal, error) {
	u := d.Unscaled()
	diff := scale - int(d.scale)
	switch {
	case diff > 0:
		u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(diff)), nil))
	case diff < 0:
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-diff)), nil)
		q, r := new(big.Int).QuoRem(u, div, new(big.Int))
		r.Abs(r).Mul(r, big.NewInt(2))
		if r.Cmp(div) >= 0 {
			if u.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		u = q
	}
	out := NewDecimalBig(u, scale)
	if out.Precision() > precision && out.Sign() != 0 {
		return Decimal{}, fmt.Errorf("%w: %s does not fit DECIMAL(%d, %d)", ErrDecimalOverflow, d, precision, scale)
	}
	return out, nil
}

// Cmp compares d and e numerically: -1, 0 or +1. Two compact values
// compare without allocating, whatever their scales.
func (d Decimal) Cmp(e Decimal) int {
	if d.big == nil && e.big == nil {
		a, b := d.compact, e.compact
		if d.scale != e.scale {
			// Bring the smaller scale up to the larger: a side that
			// overflows an int64 doing so is beyond the other (which fits
			// one), by its sign.
			var ok bool
			if d.scale < e.scale {
				if a, ok = mulPow10(a, int64(e.scale)-int64(d.scale)); !ok {
					return signOf(d.compact)
				}
			} else if b, ok = mulPow10(b, int64(d.scale)-int64(e.scale)); !ok {
				return -signOf(e.compact)
			}
		}
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	}
	return d.Rat().Cmp(e.Rat())
}

// mulPow10 returns u × 10^n (n > 0) and whether it fits an int64.
func mulPow10(u int64, n int64) (int64, bool) {
	if u == 0 {
		return 0, true
	}
	if n >= int64(len(pow10)) {
		return 0, false // |u × 10^19| > MaxInt64
	}
	p := pow10[n]
	r := u * p
	if r/p != u {
		return 0, false
	}
	return r, true
}

func signOf(u int64) int {
	switch {
	case u < 0:
		return -1
	case u > 0:
		return 1
	}
	return 0
}

// Rat returns d as an exact rational number.
func (d Decimal) Rat() *big.Rat {
	if d.scale < 0 {
		// unscaled × 10^-scale is an integer (big.Int.Exp of a negative
		// exponent gives 1, not a fraction).
		m := new(big.Int).Exp(big.NewInt(10), big.NewInt(-int64(d.scale)), nil)
		return new(big.Rat).SetInt(m.Mul(m, d.Unscaled()))
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.scale)), nil)
	return new(big.Rat).SetFrac(d.Unscaled(), den)
}

// Float64 returns the nearest float64.
func (d Decimal) Float64() float64 {
	if d.big == nil && d.scale >= 0 && int(d.scale) < len(pow10) {
		f := float64(d.compact) / float64(pow10[d.scale])
		if float64(int64(f*float64(pow10[d.scale]))) == float64(d.compact) {
			return f
		}
	}
	f, _ := d.Rat().Float64()
	return f
}

// String returns the plain (non-scientific) decimal text with exactly Scale
// digits after the point, for example "-12.50".
func (d Decimal) String() string {
	var digits string
	neg := false
	if d.big == nil {
		u := d.compact
		if u < 0 {
			neg = true
		}
		digits = new(big.Int).Abs(big.NewInt(u)).String()
	} else {
		neg = d.big.Sign() < 0
		digits = new(big.Int).Abs(d.big).String()
	}
	scale := int(d.scale)
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if scale <= 0 {
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", -scale))
		return b.String()
	}
	if len(digits) <= scale {
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", scale-len(digits)))
		b.WriteString(digits)
		return b.String()
	}
	b.WriteString(digits[:len(digits)-scale])
	b.WriteByte('.')
	b.WriteString(digits[len(digits)-scale:])
	return b.String()
}

// maxDecimalExponent bounds the exponent ParseDecimal accepts, so that a
// hostile input such as "1e-999999999" cannot make it compute a huge power
// of ten. Any value beyond it is far outside every DECIMAL type.
const maxDecimalExponent = 1000

// ParseDecimal parses a decimal number in plain or scientific notation
// ("12.5", "-0.001", "+.5", "1e3", "1.5E-2") exactly, keeping the scale of
// the text (digits after the point minus the exponent, at least 0). Only
// ASCII digits are accepted: no spaces, underscores, base prefixes, Inf or
// NaN.
func ParseDecimal(s string) (Decimal, error) {
	invalid := func() (Decimal, error) { return Decimal{}, fmt.Errorf("invalid decimal %q", s) }
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		n, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return invalid()
		}
		if n < -maxDecimalExponent || n > maxDecimalExponent {
			return Decimal{}, fmt.Errorf("%w: exponent of %q is beyond ±%d", ErrDecimalOverflow, s, maxDecimalExponent)
		}
		exp = n
	}
	neg := false
	if mant != "" && (mant[0] == '+' || mant[0] == '-') {
		neg = mant[0] == '-'
		mant = mant[1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" {
		return invalid()
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return invalid()
		}
	}
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return invalid()
	}
	scale := len(frac) - exp
	if scale < 0 {
		u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil))
		scale = 0
	}
	if neg {
		u.Neg(u)
	}
	return NewDecimalBig(u, scale), nil
}
