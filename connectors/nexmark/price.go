package nexmark

import (
	"math"
	"math/big"
)

// javaRound is Java's Math.round(double): the closest long, ties toward
// positive infinity, computed exactly (floor(a + 1/2) without rounding
// the sum), and (long) a for values whose ulp is 1 or more.
func javaRound(a float64) int64 {
	bits := math.Float64bits(a)
	biasedExp := int64(bits&0x7ff0000000000000) >> 52
	shift := (52 - 1 + 1023) - biasedExp
	if shift&-64 == 0 {
		r := int64(bits&0x000fffffffffffff | 0x0010000000000000)
		if int64(bits) < 0 {
			r = -r
		}
		return ((r >> shift) + 1) >> 1
	}
	return javaD2L(a)
}

// javaD2L is Java's (long) conversion of a double: truncation toward
// zero, NaN to 0 and saturation at the long range.
func javaD2L(a float64) int64 {
	switch {
	case a != a:
		return 0
	case a >= 9223372036854775807:
		return math.MaxInt64
	case a <= -9223372036854775808:
		return math.MinInt64
	}
	return int64(a)
}

// nextPrice is the generator's PriceGenerator.nextPrice: a price in cents,
// Math.round(Math.pow(10.0, nextDouble() * 6.0) * 100.0), log-uniform
// between 1.00 and 1,000,000.00.
func (r *splitRand) nextPrice() int64 {
	return price(r.float64())
}

func price(d float64) int64 {
	y := d * 6.0
	c := math.Exp(y*math.Ln10) * 100.0
	// exp(y ln 10) is fast but may be a few ulps (relative 1e-15, so at
	// most 1e-7 below 1e8) from Java's Math.pow, itself within an ulp of
	// the exact power. That changes the rounded price only when c lies
	// that close to a half: there (once in some 10^5 prices), compute
	// 10^y correctly rounded, which Java's pow is in all but rare cases
	// (see docs/nexmark.md).
	if f := c - math.Floor(c); f > 0.5-4e-6 && f < 0.5+4e-6 {
		c = pow10Exact(y) * 100.0
	}
	return javaRound(c)
}

// Double-double constants: log2(10) and ln(2) as hi + lo.
var (
	log2of10 = ddConst("3.3219280948873623478703194294893901758648313930245806120547563958159347766086252158501397433593701550996573717102502518")
	ln2      = ddConst("0.69314718055994530941723212145817656807550013436025525412068000949339362196969471560586332699641868754200148102057068573")
)

// pow10Exact returns 10^y for 0 <= y < 7, rounded from a double-double
// result whose relative error is far below 2^-106.
func pow10Exact(y float64) float64 {
	// t = y * log2(10), exactly enough.
	t := ddMulF(log2of10, y)
	k := math.Floor(t.hi)
	t = ddAdd(t, dd{hi: -k})
	if t.hi < 0 {
		t = ddAdd(t, dd{hi: 1})
		k--
	}
	// 2^t = exp(t ln2), by its Taylor series; t ln2 < 0.7.
	x := ddMul(t, ln2)
	sum, term := dd{hi: 1}, dd{hi: 1}
	for n := 1; n < 40; n++ {
		term = ddDivF(ddMul(term, x), float64(n))
		sum = ddAdd(sum, term)
		if math.Abs(term.hi) < 1e-40 {
			break
		}
	}
	return math.Ldexp(sum.hi+sum.lo, int(k))
}

// dd is a double-double number hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func ddConst(s string) dd {
	f, _, err := new(big.Float).SetPrec(300).Parse(s, 10)
	if err != nil {
		panic(err)
	}
	hi, _ := f.Float64()
	lo, _ := new(big.Float).SetPrec(300).Sub(f, new(big.Float).SetFloat64(hi)).Float64()
	return dd{hi, lo}
}

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

func twoProd(a, b float64) (p, e float64) {
	p = a * b
	e = math.FMA(a, b, -p)
	return p, e
}

func ddAdd(a, b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	t, f := twoSum(a.lo, b.lo)
	e += t
	s, e = twoSum(s, e)
	e += f
	s, e = twoSum(s, e)
	return dd{s, e}
}

func ddMul(a, b dd) dd {
	p, e := twoProd(a.hi, b.hi)
	e += a.hi*b.lo + a.lo*b.hi
	p, e = twoSum(p, e)
	return dd{p, e}
}

func ddMulF(a dd, b float64) dd {
	p, e := twoProd(a.hi, b)
	e += a.lo * b
	p, e = twoSum(p, e)
	return dd{p, e}
}

func ddDivF(a dd, b float64) dd {
	q1 := a.hi / b
	p, e := twoProd(q1, b)
	r := ((a.hi - p) - e + a.lo) / b
	q, f := twoSum(q1, r)
	return dd{q, f}
}
