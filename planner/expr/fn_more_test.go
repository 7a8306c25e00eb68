package expr

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestConvertTZNullable: CONVERT_TZ gives NULL for text that does not
// parse even when every argument is NOT NULL, so its type is nullable, as
// Flink declares it (STRING, forced nullable).
func TestConvertTZNullable(t *testing.T) {
	e := Fn("CONVERT_TZ", ls("not a time"), ls("UTC"), ls("Asia/Shanghai"))
	r, err := Resolve(e)
	if err != nil {
		t.Fatal(err)
	}
	if r.Type().NotNull {
		t.Fatalf("type %s, want a nullable STRING", r.Type())
	}
	p, err := Compile(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.Eval([]types.Value{})
	if err != nil || !v.IsNull() {
		t.Fatalf("got %v, %v; want NULL", v, err)
	}
}

// TestForcedNullableStringFunctions: CHR, REVERSE, LEFT and RIGHT are
// nullable even over NOT NULL literals, as Flink's SQL operators declare
// them (FlinkSqlOperatorTable: VARCHAR_FORCE_NULLABLE,
// ARG0_VARCHAR_FORCE_NULLABLE); the golden cases cover them over nullable
// columns only.
func TestForcedNullableStringFunctions(t *testing.T) {
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{Fn("CHR", li(65)), "STRING"},
		{Fn("REVERSE", ls("ab")), "STRING"},
		{Fn("LEFT", ls("abc"), li(2)), "VARCHAR(3)"},
		{Fn("RIGHT", CastTo(ls("abc"), types.String().NotNullable()), li(2)), "STRING"},
		{Fn("REPEAT", ls("ab"), li(2)), "STRING NOT NULL"},
		{Fn("INITCAP", ls("ab")), "CHAR(2) NOT NULL"},
	} {
		r, err := Resolve(tc.e)
		if err != nil {
			t.Fatalf("%s: %v", tc.e, err)
		}
		if got := r.Type().String(); got != tc.want {
			t.Errorf("%s: type %s, want %s", tc.e, got, tc.want)
		}
	}
}
