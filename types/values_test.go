package types

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestParseDecimalStrict(t *testing.T) {
	good := map[string]string{
		"0": "0", "-0": "0", "+5": "5", "-.5": "-0.5", ".5": "0.5", "5.": "5", "007.10": "7.10",
		"1e+3": "1000", "1E-2": "0.01", "1.50e1": "15.0", "-12.345e2": "-1234.5",
		"123456789012345678901234567890.5": "123456789012345678901234567890.5",
	}
	for in, want := range good {
		d, err := ParseDecimal(in)
		if err != nil || d.String() != want {
			t.Errorf("ParseDecimal(%q) = %s, %v; want %s", in, d, err, want)
		}
	}
	for _, in := range []string{"", "+", "-", ".", "e3", "1e", "1e+", "0x10", "0b1", "0o7", "1_0", " 1", "1 ", "Inf", "NaN",
		"--1", "1.2.3", "1e3.5", "١٢", "1/2"} {
		if d, err := ParseDecimal(in); err == nil {
			t.Errorf("ParseDecimal(%q) = %s, want an error", in, d)
		}
	}
	if _, err := ParseDecimal("1e-999999999"); !errors.Is(err, ErrDecimalOverflow) {
		t.Errorf("huge exponent: %v", err)
	}
	d, err := ParseDecimal("1e-50")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := d.Rescale(10, 2); err != nil || r.String() != "0.00" {
		t.Errorf("1e-50 as DECIMAL(10, 2) = %s, %v", r, err)
	}
}

func TestDecimalAccessors(t *testing.T) {
	d := NewDecimal(-1250, 2)
	if d.Scale() != 2 || d.Sign() != -1 || d.Precision() != 4 || d.Float64() != -12.5 {
		t.Errorf("accessors of %s: scale %d sign %d precision %d float %v", d, d.Scale(), d.Sign(), d.Precision(), d.Float64())
	}
	if u, ok := d.UnscaledInt64(); !ok || u != -1250 {
		t.Errorf("UnscaledInt64 = %d, %v", u, ok)
	}
	big, _ := ParseDecimal("123456789012345678901234567890")
	if _, ok := big.UnscaledInt64(); ok || big.Sign() != 1 || big.Precision() != 30 {
		t.Errorf("wide decimal: %v %d %d", ok, big.Sign(), big.Precision())
	}
	if NewDecimal(0, 3).Sign() != 0 || NewDecimal(1, 0).Cmp(NewDecimal(10, 1)) != 0 || NewDecimal(1, 0).Cmp(big) != -1 {
		t.Error("Sign/Cmp wrong")
	}
}

func TestTypePredicates(t *testing.T) {
	cases := []struct {
		typ                                           Type
		str, bin, integer, numeric, timestamp, nonNul bool
	}{
		{Boolean(), false, false, false, false, false, false},
		{TinyInt(), false, false, true, true, false, false},
		{SmallInt(), false, false, true, true, false, false},
		{BigInt().NotNullable(), false, false, true, true, false, true},
		{Float(), false, false, false, true, false, false},
		{Double(), false, false, false, true, false, false},
		{DecimalType(5, 1), false, false, false, true, false, false},
		{Char(2), true, false, false, false, false, false},
		{String(), true, false, false, false, false, false},
		{Binary(2), false, true, false, false, false, false},
		{Bytes(), false, true, false, false, false, false},
		{Date(), false, false, false, false, false, false},
		{Time(3), false, false, false, false, false, false},
		{TimestampType(3), false, false, false, false, true, false},
		{TimestampLTZ(3).NotNullable().Nullable(), false, false, false, false, true, false},
		{Multiset(Int()), false, false, false, false, false, false},
		{Null(), false, false, false, false, false, false},
	}
	for _, c := range cases {
		if c.typ.IsString() != c.str || c.typ.IsBinary() != c.bin || c.typ.IsInteger() != c.integer ||
			c.typ.IsNumeric() != c.numeric || c.typ.IsTimestamp() != c.timestamp || c.typ.NotNull != c.nonNul {
			t.Errorf("predicates of %s are wrong", c.typ)
		}
	}
	names := map[string]Type{"BOOLEAN": Boolean(), "CHAR(2)": Char(2), "BINARY(2)": Binary(2), "DATE": Date(),
		"TIME(3)": Time(3), "MULTISET<INT>": Multiset(Int()), "NULL": Null(), "TINYINT": TinyInt(), "SMALLINT": SmallInt(),
		"FLOAT": Float(), "DOUBLE": Double()}
	for want, typ := range names {
		if typ.String() != want {
			t.Errorf("String() = %q, want %q", typ.String(), want)
		}
	}
	if Kind(200).String() != "Kind(200)" {
		t.Error("unknown Kind String")
	}
}

func TestRowKindsAndRows(t *testing.T) {
	for _, k := range []RowKind{Insert, UpdateBefore, UpdateAfter, Delete} {
		back, ok := ParseRowKind(k.String())
		if !ok || back != k {
			t.Errorf("round trip of %v failed", k)
		}
	}
	if _, ok := ParseRowKind("+X"); ok || RowKind(9).String() != "RowKind(9)" {
		t.Error("invalid row kinds accepted")
	}
	r := Row{Kind: Delete, Fields: []Value{Int64(1), Str("a")}}
	c := r.Clone()
	c.Fields[0] = Int64(2)
	if r.Fields[0].Int64() != 1 || c.Kind != Delete || len(c.Fields) != 2 {
		t.Error("Clone shares fields or loses the kind")
	}
}

func TestCompositeAndTemporalValues(t *testing.T) {
	l := List([]Value{Int64(1), {}})
	if len(l.List()) != 2 || !l.List()[1].IsNull() || l.Map() != nil {
		t.Error("List value wrong")
	}
	m := MapValue(&MapData{Keys: []Value{Str("k")}, Values: []Value{Float64(math.Pi)}})
	if m.Map().Len() != 1 || m.Map().Values[0].Float64() != math.Pi || m.List() != nil {
		t.Error("Map value wrong")
	}
	if DateValue(-3).Date() != -3 || TimeValue(5e9).Time() != 5e9 || Bool(false).Bool() {
		t.Error("date/time/bool values wrong")
	}
	loc := time.FixedZone("X", 3600)
	local := time.Date(2024, 1, 2, 3, 4, 5, 6000, loc)
	ts := TimestampFromLocal(local)
	if got := ts.Time(); !got.Equal(time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC)) {
		t.Errorf("TimestampFromLocal = %v", got)
	}
	a, b := Timestamp{Millis: 1, NanoOfMilli: 5}, Timestamp{Millis: 1, NanoOfMilli: 6}
	if a.Compare(b) != -1 || b.Compare(a) != 1 || a.Compare(a) != 0 || (Timestamp{Millis: 2}).Compare(b) != 1 || (Timestamp{}).Compare(a) != -1 {
		t.Error("Compare wrong")
	}
	neg := Timestamp{Millis: -1001, NanoOfMilli: 999999}
	if got := neg.Truncate(0); got.Millis != -2000 || got.NanoOfMilli != 0 {
		t.Errorf("Truncate(0) of a negative timestamp = %+v", got)
	}
}

func TestTimestampOutsideUnixNanoRange(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1000, 1, 1, 0, 0, 0, 123456789, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC),
	} {
		ts := TimestampFromTime(tm)
		if ts.NanoOfMilli < 0 || ts.NanoOfMilli > 999999 || !ts.Time().Equal(tm) {
			t.Errorf("TimestampFromTime(%v) = %+v, back %v", tm, ts, ts.Time())
		}
	}
}

// TestRowMemSize checks that MemSize counts a row's fields and everything
// they refer to: strings, nested rows, maps and wide decimals.
func TestRowMemSize(t *testing.T) {
	v := int(unsafe.Sizeof(Value{}))
	wide, err := ParseDecimal("123456789012345678901234567890.5")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		row  Row
		min  int // at least
		max  int // at most
	}{
		{"empty", Row{}, 0, 0},
		{"scalars", Row{Fields: []Value{Int64(1), Float64(2), {}, Bool(true)}}, 4 * v, 4 * v},
		{"string", Row{Fields: []Value{Str(strings.Repeat("x", 1000))}}, v + 1000, v + 1000},
		{"nested", Row{Fields: []Value{List([]Value{Str("abc"), List([]Value{Str("de")})})}}, 4*v + 5, 4*v + 5},
		{"map", Row{Fields: []Value{MapValue(&MapData{Keys: []Value{Str("k")}, Values: []Value{Int64(1)}})}}, 3*v + 1, 3*v + 1},
		{"wide decimal", Row{Fields: []Value{DecimalValue(wide)}}, v + 8, v + 200},
	} {
		if got := c.row.MemSize(); got < c.min || got > c.max {
			t.Errorf("%s: MemSize %d, want %d..%d", c.name, got, c.min, c.max)
		}
	}
}
