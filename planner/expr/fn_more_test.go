package expr

import (
	"testing"

	"github.com/streamsql/streamsql/internal/javatime"
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

// TestDateFormatDayMemo: DATE_FORMAT with a pattern of date fields only
// remembers the last day's text; over timestamps that come back to a day,
// cross midnight and change year, each text is the pattern's own, also
// for a pattern taken from a column that changes between rows.
func TestDateFormatDayMemo(t *testing.T) {
	ts := Col(0, "ts", types.TimestampType(3))
	pat := Col(1, "p", types.String())
	for _, e := range []Expr{Fn("DATE_FORMAT", ts, ls("yyyy-MM-dd")), Fn("DATE_FORMAT", ts, ls("EEE d MMM yy D")), Fn("DATE_FORMAT", ts, pat)} {
		p, err := Compile(e, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range []struct{ at, pattern string }{
			{"2024-12-31 00:00:00", "yyyy-MM-dd"}, {"2024-12-31 23:59:59.999", "yyyy"}, {"2025-01-01 00:00:00", "yyyy-MM-dd"},
			{"2024-12-31 12:00:00", "yyyy-MM-dd"}, {"2024-12-31 12:00:00", "MM/dd"}, {"2025-01-01 00:00:00", "yyyy-MM-dd HH:mm"},
			{"2025-01-01 00:00:01", "yyyy-MM-dd HH:mm:ss"}, {"2025-02-01 00:00:00", "yyyy-MM-dd"}, {"2025-02-02 00:00:00", "yyyy-MM-dd"},
		} {
			v, err := p.Eval([]types.Value{vts(c.at), types.Str(c.pattern)})
			if err != nil {
				t.Fatal(err)
			}
			text := c.pattern
			if l, ok := e.(*Call).Args[1].(*Literal); ok {
				text = l.Val.Str()
			}
			f, err := javatime.Compile(text)
			if err != nil {
				t.Fatal(err)
			}
			at, ok := javatime.ParseSQLTimestamp(c.at)
			if !ok {
				t.Fatal(c.at)
			}
			if want := f.Format(at.Time()); v.Str() != want {
				t.Errorf("%s, row %d (%s): %q, want %q", e, i, c.at, v.Str(), want)
			}
		}
	}
}
