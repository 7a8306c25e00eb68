package ddl

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestParseType(t *testing.T) {
	cases := []struct {
		in   string
		want types.Type
	}{
		{"BOOLEAN", types.Boolean()},
		{"TINYINT", types.TinyInt()},
		{"SMALLINT", types.SmallInt()},
		{"INT", types.Int()},
		{"integer", types.Int()},
		{"BIGINT", types.BigInt()},
		{"FLOAT", types.Float()},
		{"REAL", types.Float()},
		{"DOUBLE", types.Double()},
		{"DOUBLE PRECISION", types.Double()},
		{"DECIMAL", types.DecimalType(10, 0)},
		{"DECIMAL(10, 2)", types.DecimalType(10, 2)},
		{"DEC(5)", types.DecimalType(5, 0)},
		{"NUMERIC(38, 38)", types.DecimalType(38, 38)},
		{"CHAR", types.Char(1)},
		{"CHAR(10)", types.Char(10)},
		{"CHARACTER(3)", types.Char(3)},
		{"VARCHAR", types.String()},
		{"VARBINARY", types.Bytes()},
		{"CHARACTER VARYING", types.String()},
		{"VARCHAR(255)", types.VarChar(255)},
		{"CHARACTER VARYING(5)", types.VarChar(5)},
		{"STRING", types.String()},
		{"BINARY", types.Binary(1)},
		{"BINARY(16)", types.Binary(16)},
		{"VARBINARY(16)", types.VarBinary(16)},
		{"BINARY VARYING(4)", types.VarBinary(4)},
		{"BYTES", types.Bytes()},
		{"DATE", types.Date()},
		{"TIME", types.Time(0)},
		{"TIME(3)", types.Time(3)},
		{"TIME(3) WITHOUT TIME ZONE", types.Time(3)},
		{"TIMESTAMP", types.TimestampType(6)},
		{"TIMESTAMP(3)", types.TimestampType(3)},
		{"TIMESTAMP(9) WITHOUT TIME ZONE", types.TimestampType(9)},
		{"TIMESTAMP_LTZ", types.TimestampLTZ(6)},
		{"TIMESTAMP_LTZ(3)", types.TimestampLTZ(3)},
		{"TIMESTAMP(3) WITH LOCAL TIME ZONE", types.TimestampLTZ(3)},
		{"TIMESTAMP WITH LOCAL TIME ZONE", types.TimestampLTZ(6)},
		{"ARRAY<STRING>", types.Array(types.String())},
		{"INT ARRAY", types.Array(types.Int())},
		{"INT NOT NULL ARRAY NOT NULL", types.Array(types.Int().NotNullable()).NotNullable()},
		{"ARRAY<ARRAY<INT NOT NULL>>", types.Array(types.Array(types.Int().NotNullable()))},
		{"MAP<STRING, BIGINT>", types.Map(types.String(), types.BigInt())},
		{"MAP<STRING, MAP<INT, ARRAY<BYTES>>>", types.Map(types.String(), types.Map(types.Int(), types.Array(types.Bytes())))},
		{"MULTISET<STRING>", types.Multiset(types.String())},
		{"STRING MULTISET", types.Multiset(types.String())},
		{"ROW<a INT, b STRING>", types.RowType(types.Field{Name: "a", Type: types.Int()}, types.Field{Name: "b", Type: types.String()})},
		{"ROW(a INT, `b c` STRING NOT NULL)", types.RowType(types.Field{Name: "a", Type: types.Int()}, types.Field{Name: "b c", Type: types.String().NotNullable()})},
		{"ROW<a INT 'the a'>", types.RowType(types.Field{Name: "a", Type: types.Int(), Description: "the a"})},
		{"ROW<>", types.RowType()},
		{"ROW()", types.RowType()},
		{"ARRAY<ROW<key STRING, value BYTES>> NOT NULL", types.Array(types.RowType(types.Field{Name: "key", Type: types.String()}, types.Field{Name: "value", Type: types.Bytes()})).NotNullable()},
		{"STRING NOT NULL", types.String().NotNullable()},
		{"STRING NULL", types.String()},
		{"INTERVAL DAY TO SECOND(3)", types.IntervalDayTime()},
		{"INTERVAL YEAR TO MONTH", types.IntervalYearMonth()},
		{"INTERVAL SECOND", types.IntervalDayTime()},
	}
	for _, c := range cases {
		got, err := ParseType(c.in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", c.in, err)
			continue
		}
		if !got.Equal(c.want) || got.String() != c.want.String() {
			t.Errorf("ParseType(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	// Field descriptions are not part of Equal; check one directly.
	rt, _ := ParseType("ROW<a INT 'the a'>")
	if rt.Fields[0].Description != "the a" {
		t.Errorf("description = %q", rt.Fields[0].Description)
	}
}

func TestParseTypeErrors(t *testing.T) {
	cases := []struct {
		in, msg string
		col     int
		class   error
	}{
		{"STRIN", "unknown type 'STRIN' (did you mean STRING?)", 1, ErrSyntax},
		{"BIGINTT", "unknown type 'BIGINTT' (did you mean BIGINT?)", 1, ErrSyntax},
		{"TIMESTAMP_LZT(3)", "unknown type 'TIMESTAMP_LZT' (did you mean TIMESTAMP_LTZ?)", 1, ErrSyntax},
		{"FOOBARBAZ", "unknown type 'FOOBARBAZ'", 1, ErrSyntax},
		{"DECIMAL(39, 2)", "DECIMAL precision must be between 1 and 38, found 39", 9, ErrSyntax},
		{"DECIMAL(5, 6)", "DECIMAL scale must be between 0 and 5, found 6", 12, ErrSyntax},
		{"VARCHAR(0)", "VARCHAR length must be between 1 and 2147483647, found 0", 9, ErrSyntax},
		{"TIMESTAMP(10)", "TIMESTAMP precision must be between 0 and 9, found 10", 11, ErrSyntax},
		{"ARRAY<INT", "expected '>', found end of input", 10, ErrSyntax},
		{"MAP<STRING>", "expected ',', found '>'", 11, ErrSyntax},
		{"ROW<a INT, a STRING>", "duplicate ROW field 'a'", 12, ErrSyntax},
		{"TIMESTAMP(3) WITH TIME ZONE", "TIMESTAMP WITH TIME ZONE (use TIMESTAMP_LTZ) is not supported yet", 14, ErrUnsupported},
		{"RAW('a', 'b')", "the type RAW is not supported yet", 1, ErrUnsupported},
		{"INTERVAL SECOND TO DAY", "invalid interval qualifier SECOND TO DAY", 20, ErrSyntax},
		{"'x'", "expected a type, found string 'x'", 1, ErrSyntax},
	}
	for _, c := range cases {
		_, err := ParseType(c.in)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("ParseType(%q) = %v, want *Error", c.in, err)
			continue
		}
		if pe.Message != c.msg || pe.Column != c.col || !errors.Is(err, c.class) {
			t.Errorf("ParseType(%q) = %q at column %d (%v), want %q at %d (%v)", c.in, pe.Message, pe.Column, pe.Err, c.msg, c.col, c.class)
		}
	}
}

func TestDeepNestingIsAnErrorNotACrash(t *testing.T) {
	deepType := strings.Repeat("ARRAY<", 500) + "INT" + strings.Repeat(">", 500)
	if _, err := ParseType(deepType); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Errorf("deep type: %v", err)
	}
	deepExpr := strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000)
	if _, err := ParseExpr("", deepExpr); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Errorf("deep expression: %v", err)
	}
	deepNeg := strings.Repeat("- ", 1000) + "1"
	if _, err := ParseExpr("", deepNeg); err == nil {
		t.Error("deep unary minus parsed")
	}
	deepNot := strings.Repeat("NOT ", 1000) + "TRUE"
	if _, err := ParseExpr("", deepNot); err == nil {
		t.Error("deep NOT parsed")
	}
}
