package types

import (
	"errors"
	"math"
	"testing"
)

func dec(t *testing.T, s string) Decimal {
	t.Helper()
	d, err := ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDecimalArithmetic covers the int64 fast paths, their overflow into
// math/big, mixed scales and rounding of Quo.
func TestDecimalArithmetic(t *testing.T) {
	maxI := NewDecimal(math.MaxInt64, 0)
	minI := NewDecimal(math.MinInt64, 0)
	type tc struct {
		name string
		got  Decimal
		want string
	}
	cases := []tc{
		{"add", dec(t, "1.25").Add(dec(t, "2.5")), "3.75"},
		{"add same scale", dec(t, "1.25").Add(dec(t, "-2.50")), "-1.25"},
		{"add overflows int64", maxI.Add(NewDecimal(1, 0)), "9223372036854775808"},
		{"sub", dec(t, "1").Sub(dec(t, "0.001")), "0.999"},
		{"sub overflows int64", minI.Sub(NewDecimal(1, 0)), "-9223372036854775809"},
		{"mul", dec(t, "1.5").Mul(dec(t, "-0.25")), "-0.375"},
		{"mul zero keeps scale", dec(t, "0.00").Mul(dec(t, "1.5")), "0.000"},
		{"mul overflows int64", maxI.Mul(NewDecimal(2, 0)), "18446744073709551614"},
		{"mul -1 by MinInt64", minI.Mul(NewDecimal(-1, 0)), "9223372036854775808"},
		{"neg", dec(t, "-0.50").Neg(), "0.50"},
		{"neg MinInt64", minI.Neg(), "9223372036854775808"},
		{"neg wide", dec(t, "-12345678901234567890.1").Neg(), "12345678901234567890.1"},
	}
	q := func(a, b string, scale int) Decimal {
		d, err := dec(t, a).Quo(dec(t, b), scale)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	r := func(a, b string) Decimal {
		d, err := dec(t, a).Rem(dec(t, b))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	cases = append(cases,
		tc{"quo rounds half-up", q("2", "3", 4), "0.6667"},
		tc{"quo rounds away from zero", q("-1", "8", 2), "-0.13"},
		tc{"rem takes the dividend's sign", r("-7.5", "2"), "-1.5"},
	)
	for _, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if _, err := dec(t, "1").Quo(dec(t, "0.00"), 2); !errors.Is(err, ErrDivisionByZero) {
		t.Errorf("Quo by zero: %v", err)
	}
	if _, err := dec(t, "1").Rem(NewDecimal(0, 0)); !errors.Is(err, ErrDivisionByZero) {
		t.Errorf("Rem by zero: %v", err)
	}
}

// TestDecimalResultTypes pins Flink's LogicalTypeMerging rules, including
// the cap at 38 digits that keeps at least 6 of scale.
func TestDecimalResultTypes(t *testing.T) {
	cases := []struct {
		name      string
		got, want ps
	}{
		{"add", call(DecimalAddType(10, 2, 5, 4)), ps{13, 4}},
		{"mul", call(DecimalMulType(10, 2, 5, 4)), ps{16, 6}},
		{"div", call(DecimalDivType(10, 2, 5, 4)), ps{20, 8}},
		{"mod", call(DecimalModType(10, 2, 5, 4)), ps{5, 4}},
		{"add capped", call(DecimalAddType(38, 10, 38, 10)), ps{38, 9}},
		{"div capped keeps 6", call(DecimalDivType(38, 0, 38, 0)), ps{38, 6}},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = DECIMAL(%d, %d), want DECIMAL(%d, %d)", c.name, c.got.p, c.got.s, c.want.p, c.want.s)
		}
	}
}

type ps struct{ p, s int }

func call(p, s int) ps { return ps{p, s} }
