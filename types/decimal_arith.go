package types

import (
	"errors"
	"math"
	"math/big"
)

// Decimal arithmetic is exact: Add, Sub and Mul keep every digit (the
// scale of a sum is the larger scale, of a product the sum of the scales);
// Quo rounds half-up to the scale asked for. Callers rescale the result to
// the type Flink derives for the operation (DecimalAddType, ...), where a
// value too wide for it is an overflow.

// ErrDivisionByZero is returned by [Decimal.Quo] and [Decimal.Rem] for a
// zero divisor (Flink throws ArithmeticException).
var ErrDivisionByZero = errors.New("division by zero")

// Add returns d + e at the larger of their scales.
func (d Decimal) Add(e Decimal) Decimal {
	if ua, ok := d.UnscaledInt64(); ok && d.Scale() == e.Scale() {
		if ub, ok := e.UnscaledInt64(); ok {
			if r := ua + ub; (r > ua) == (ub > 0) {
				return NewDecimal(r, d.Scale())
			}
		}
	}
	x, y, s := align(d, e)
	return NewDecimalBig(x.Add(x, y), s)
}

// Sub returns d - e at the larger of their scales.
func (d Decimal) Sub(e Decimal) Decimal {
	if ua, ok := d.UnscaledInt64(); ok && d.Scale() == e.Scale() {
		if ub, ok := e.UnscaledInt64(); ok {
			if r := ua - ub; (r < ua) == (ub > 0) {
				return NewDecimal(r, d.Scale())
			}
		}
	}
	x, y, s := align(d, e)
	return NewDecimalBig(x.Sub(x, y), s)
}

// Mul returns d × e at the sum of their scales.
func (d Decimal) Mul(e Decimal) Decimal {
	if ua, ok := d.UnscaledInt64(); ok {
		if ub, ok := e.UnscaledInt64(); ok {
			if ua == 0 || ub == 0 {
				return NewDecimal(0, d.Scale()+e.Scale())
			}
			r := ua * ub
			if r/ub == ua && !(ua == -1 && ub == math.MinInt64) && !(ub == -1 && ua == math.MinInt64) {
				return NewDecimal(r, d.Scale()+e.Scale())
			}
		}
	}
	x := d.Unscaled()
	return NewDecimalBig(x.Mul(x, e.Unscaled()), d.Scale()+e.Scale())
}

// Neg returns -d at d's scale.
func (d Decimal) Neg() Decimal {
	if d.big == nil && d.compact != math.MinInt64 {
		return Decimal{compact: -d.compact, scale: d.scale}
	}
	u := d.Unscaled()
	return NewDecimalBig(u.Neg(u), d.Scale())
}

// Quo returns d / e rounded half-up (away from zero on .5) to scale
// digits, or ErrDivisionByZero.
func (d Decimal) Quo(e Decimal, scale int) (Decimal, error) {
	if e.Sign() == 0 {
		return Decimal{}, ErrDivisionByZero
	}
	// d/e at scale+1 digits, then round half-up: num = ud * 10^(scale+1+se-sd).
	n := scale + 1 + e.Scale() - d.Scale()
	num, den := d.Unscaled(), e.Unscaled()
	if n >= 0 {
		num = scaleUp(num, n)
	} else {
		den = scaleUp(den, -n)
	}
	q := num.Quo(num, den)
	return NewDecimalBig(q, scale+1).Rescale(MaxDecimalPrecision+1, scale)
}

// Rem returns the remainder of d / e truncated towards zero (the sign of
// d), at the larger of their scales, or ErrDivisionByZero.
func (d Decimal) Rem(e Decimal) (Decimal, error) {
	if e.Sign() == 0 {
		return Decimal{}, ErrDivisionByZero
	}
	x, y, s := align(d, e)
	return NewDecimalBig(x.Rem(x, y), s), nil
}

// align returns the unscaled values of a and b at their common scale.
func align(a, b Decimal) (*big.Int, *big.Int, int) {
	s := max(a.Scale(), b.Scale())
	return scaleUp(a.Unscaled(), s-a.Scale()), scaleUp(b.Unscaled(), s-b.Scale()), s
}

func scaleUp(u *big.Int, n int) *big.Int {
	if n == 0 {
		return u
	}
	return u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil))
}

// AdjustDecimalPrecision caps a derived precision at 38, giving up scale
// but keeping at least 6 fractional digits (Flink's adjustPrecisionScale).
func AdjustDecimalPrecision(p, s int) (int, int) {
	if p <= MaxDecimalPrecision {
		return p, s
	}
	intPart := p - s
	minScale := min(s, 6)
	s = max(MaxDecimalPrecision-intPart, minScale)
	return MaxDecimalPrecision, s
}

// DecimalAddType returns the precision and scale of DECIMAL(p1, s1) +
// or - DECIMAL(p2, s2), as Flink's LogicalTypeMerging derives them.
func DecimalAddType(p1, s1, p2, s2 int) (int, int) {
	s := max(s1, s2)
	return AdjustDecimalPrecision(max(p1-s1, p2-s2)+s+1, s)
}

// DecimalMulType returns the precision and scale of DECIMAL(p1, s1) ×
// DECIMAL(p2, s2), as Flink's LogicalTypeMerging derives them.
func DecimalMulType(p1, s1, p2, s2 int) (int, int) {
	return AdjustDecimalPrecision(p1+p2+1, s1+s2)
}

// DecimalDivType returns the precision and scale of DECIMAL(p1, s1) /
// DECIMAL(p2, s2), as Flink's LogicalTypeMerging derives them.
func DecimalDivType(p1, s1, p2, s2 int) (int, int) {
	s := max(6, s1+p2+1)
	return AdjustDecimalPrecision(p1-s1+s2+s, s)
}

// DecimalModType returns the precision and scale of MOD(DECIMAL(p1, s1),
// DECIMAL(p2, s2)), as Flink's LogicalTypeMerging derives them.
func DecimalModType(p1, s1, p2, s2 int) (int, int) {
	s := max(s1, s2)
	return AdjustDecimalPrecision(min(p1-s1, p2-s2)+s, s)
}
