package types

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactOf returns u × 10^-scale as a fraction num/den by repeated
// multiplication by ten: an oracle independent of Rat and Cmp.
func exactOf(u int64, scale int) (num, den *big.Int) {
	num, den = big.NewInt(u), big.NewInt(1)
	ten := big.NewInt(10)
	for i := 0; i < scale; i++ {
		den.Mul(den, ten)
	}
	for i := 0; i > scale; i-- {
		num.Mul(num, ten)
	}
	return num, den
}

// TestDecimalCmpCompactScales compares compact decimals of different
// scales (negative ones too) with Cmp against cross-multiplied exact
// fractions, including values whose rescaling overflows an int64, and
// checks that such comparisons allocate nothing.
func TestDecimalCmpCompactScales(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	edges := []int64{0, 1, -1, 9, 10, -10, 999999999999999999, -999999999999999999,
		math.MaxInt64, math.MinInt64, math.MaxInt64 / 10, math.MinInt64 / 10, 922337203685477580, -922337203685477581}
	pick := func() int64 {
		switch r.IntN(4) {
		case 0:
			return edges[r.IntN(len(edges))]
		case 1:
			return r.Int64N(2001) - 1000
		case 2:
			return int64(r.Uint64())
		}
		// A power of ten, so that equal values of different scales occur.
		return pow10[r.IntN(len(pow10))] * int64(1-2*r.IntN(2))
	}
	for i := 0; i < 200000; i++ {
		a, b := pick(), pick()
		sa, sb := r.IntN(46)-6, r.IntN(46)-6
		if r.IntN(4) == 0 {
			// Same value in two scales: b = a × 10^k.
			k := r.IntN(4)
			if m, ok := mulPow10(a, int64(k)); ok || k == 0 {
				if k == 0 {
					m = a
				}
				b, sb = m, sa+k
			}
		}
		an, ad := exactOf(a, sa)
		bn, bd := exactOf(b, sb)
		want := new(big.Int).Mul(an, bd).Cmp(new(big.Int).Mul(bn, ad))
		d, e := NewDecimal(a, sa), NewDecimal(b, sb)
		if got := d.Cmp(e); got != want {
			t.Fatalf("%d×10^%d Cmp %d×10^%d = %d, want %d", a, -sa, b, -sb, got, want)
		}
		if got := e.Cmp(d); got != -want {
			t.Fatalf("%d×10^%d Cmp %d×10^%d = %d, want %d", b, -sb, a, -sa, got, -want)
		}
	}
	// A wide value against compact ones still compares exactly.
	wide, _ := ParseDecimal("123456789012345678901234567890.5")
	if NewDecimal(math.MaxInt64, 0).Cmp(wide) != -1 || wide.Cmp(NewDecimal(math.MinInt64, 30)) != 1 {
		t.Error("wide against compact")
	}
	d, e := NewDecimal(908000, 6), NewDecimal(-12345, 2)
	if n := testing.AllocsPerRun(100, func() { _ = d.Cmp(e) }); n != 0 {
		t.Errorf("Cmp of compact decimals of different scales: %v allocations, want 0", n)
	}
}

// TestDecimalNegativeScale checks Rat, Float64 and String of a decimal
// with a negative scale (unscaled × 10^-scale, an integer).
func TestDecimalNegativeScale(t *testing.T) {
	for _, c := range []struct {
		u     int64
		scale int
		want  string
	}{{12, -3, "12000"}, {-7, -1, "-70"}, {0, -2, "0"}, {5, 0, "5"}, {123, 2, "123/100"}} {
		d := NewDecimal(c.u, c.scale)
		want, _ := new(big.Rat).SetString(c.want)
		if got := d.Rat(); got.Cmp(want) != 0 {
			t.Errorf("NewDecimal(%d, %d).Rat() = %s, want %s", c.u, c.scale, got, want)
		}
		if f, _ := want.Float64(); d.Float64() != f {
			t.Errorf("NewDecimal(%d, %d).Float64() = %v, want %v", c.u, c.scale, d.Float64(), f)
		}
	}
	if s := NewDecimal(12, -3).String(); s != "12000" {
		t.Errorf("String = %q", s)
	}
	wide := NewDecimalBig(new(big.Int).Lsh(big.NewInt(1), 70), -2)
	want := new(big.Rat).SetInt(new(big.Int).Mul(new(big.Int).Lsh(big.NewInt(1), 70), big.NewInt(100)))
	if wide.Rat().Cmp(want) != 0 {
		t.Errorf("wide negative scale: Rat = %s", wide.Rat())
	}
}

// BenchmarkDecimalCmpScales compares compact decimals of different scales
// (a DECIMAL(p, 3) column against an INT or a DECIMAL(p, 0) constant).
func BenchmarkDecimalCmpScales(b *testing.B) {
	d, e := NewDecimal(123456789, 3), NewDecimal(1000000, 0)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n += d.Cmp(e)
	}
	_ = n
}
