package types

import (
	"testing"
	"time"
)

func TestTypeString(t *testing.T) {
	cases := []struct {
		typ  Type
		want string
	}{
		{String(), "STRING"},
		{String().NotNullable(), "STRING NOT NULL"},
		{VarChar(10), "VARCHAR(10)"},
		{Bytes(), "BYTES"},
		{DecimalType(10, 2), "DECIMAL(10, 2)"},
		{TimestampLTZ(3), "TIMESTAMP_LTZ(3)"},
		{TimestampType(6), "TIMESTAMP(6)"},
		{Array(Int()), "ARRAY<INT>"},
		{Map(String(), BigInt().NotNullable()), "MAP<STRING, BIGINT NOT NULL>"},
		{RowType(Field{Name: "a", Type: Int()}, Field{Name: "b`c", Type: String(), Description: "it's"}), "ROW<`a` INT, `b``c` STRING 'it''s'>"},
		{IntervalYearMonth(), "INTERVAL YEAR TO MONTH"},
		{IntervalDayTime().NotNullable(), "INTERVAL DAY TO SECOND(3) NOT NULL"},
	}
	for _, c := range cases {
		if got := c.typ.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

func TestTypeEqual(t *testing.T) {
	a := RowType(Field{Name: "a", Type: Array(Int())})
	b := RowType(Field{Name: "a", Type: Array(Int())})
	c := RowType(Field{Name: "a", Type: Array(BigInt())})
	if !a.Equal(b) || a.Equal(c) || Int().Equal(Int().NotNullable()) {
		t.Fatal("Equal is wrong")
	}
}

func TestDecimal(t *testing.T) {
	cases := []struct {
		in        string
		p, s      int
		want      string
		overflows bool
	}{
		{"12.5", 10, 2, "12.50", false},
		{"-0.005", 10, 2, "-0.01", false},
		{"0.004", 10, 2, "0.00", false},
		{"1e3", 10, 0, "1000", false},
		{"12345678901234567890.123", 38, 3, "12345678901234567890.123", false},
		{"123.45", 4, 2, "", true},
	}
	for _, c := range cases {
		d, err := ParseDecimal(c.in)
		if err != nil {
			t.Fatalf("ParseDecimal(%q): %v", c.in, err)
		}
		r, err := d.Rescale(c.p, c.s)
		if c.overflows {
			if err == nil {
				t.Errorf("Rescale(%q, %d, %d) = %s, want overflow", c.in, c.p, c.s, r)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Rescale(%q): %v", c.in, err)
		}
		if got := r.String(); got != c.want {
			t.Errorf("Rescale(%q, %d, %d) = %s, want %s", c.in, c.p, c.s, got, c.want)
		}
		v := DecimalValue(r)
		if v.Decimal().Cmp(r) != 0 {
			t.Errorf("Value round trip of %s changed it to %s", r, v.Decimal())
		}
	}
	if _, err := ParseDecimal("abc"); err == nil {
		t.Error("ParseDecimal(abc) did not fail")
	}
}

func TestValueScalars(t *testing.T) {
	var null Value
	if !null.IsNull() || Int64(0).IsNull() {
		t.Fatal("zero Value must be NULL and only it")
	}
	if Int64(-7).Int64() != -7 || Float64(1.5).Float64() != 1.5 || !Bool(true).Bool() || Str("x").Str() != "x" {
		t.Fatal("scalar round trip failed")
	}
	if string(BytesValue([]byte{1, 2}).Bytes()) != "\x01\x02" {
		t.Fatal("bytes round trip failed")
	}
	now := time.Date(2024, 2, 29, 13, 4, 5, 123456789, time.UTC)
	ts := TimestampFromTime(now)
	if !TimestampValue(ts).Timestamp().Time().Equal(now) {
		t.Fatalf("timestamp round trip: %v", ts.Time())
	}
	if got := ts.Truncate(3).Time(); !got.Equal(now.Truncate(time.Millisecond)) {
		t.Fatalf("Truncate(3) = %v", got)
	}
	if got := ts.Truncate(6).Time(); !got.Equal(now.Truncate(time.Microsecond)) {
		t.Fatalf("Truncate(6) = %v", got)
	}
}

func TestValueAllocations(t *testing.T) {
	row := NewRow(4)
	allocs := testing.AllocsPerRun(100, func() {
		row.Fields[0] = Int64(123456789)
		row.Fields[1] = Float64(3.25)
		row.Fields[2] = DecimalValue(NewDecimal(1234, 2))
		row.Fields[3] = TimestampValue(Timestamp{Millis: 1})
	})
	if allocs != 0 {
		t.Fatalf("scalar Values allocated %v times per row, want 0", allocs)
	}
}

func TestKindIntRange(t *testing.T) {
	for _, c := range []struct {
		k      Kind
		lo, hi int64
	}{
		{KindTinyInt, -128, 127},
		{KindSmallInt, -32768, 32767},
		{KindInt, -2147483648, 2147483647},
		{KindBigInt, -9223372036854775808, 9223372036854775807},
	} {
		if lo, hi := c.k.IntRange(); lo != c.lo || hi != c.hi {
			t.Errorf("%s.IntRange() = %d, %d; want %d, %d", c.k, lo, hi, c.lo, c.hi)
		}
	}
}
