package expr

import (
	"math/rand/v2"
	"testing"
	"time"

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

// TestDateFormatSpanMemo: DATE_FORMAT remembers the text of the last
// period of its pattern's span (an hour, a minute, a second); over a walk
// of timestamps in small and large steps, across minutes, hours, days,
// DST changes and before 1970, in zones with half- and quarter-hour
// offsets, each text is what a fresh compilation (an empty memo) prints.
func TestDateFormatSpanMemo(t *testing.T) {
	ts := Col(0, "ts", types.TimestampType(3))
	ltz := Col(1, "l", types.TimestampLTZ(3))
	var at []types.Value
	ms := int64(-600_001) // ten minutes before the epoch
	for i := range 3000 {
		at = append(at, types.TimestampValue(types.TimestampFromTime(time.UnixMilli(ms).UTC())))
		switch {
		case i%97 == 96:
			ms += 86400_000*40 + 1234567 // a jump of weeks
		case i%13 == 0:
			ms += 3600_000 - 1
		default:
			ms += int64(i%7) * 7919
		}
		if i == 1500 {
			ms = 1710054000_000 - 3600_000 // 2024-03-10, America/New_York's spring change
		}
	}
	for _, zone := range []string{"UTC", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Location: loc}
		for _, pattern := range []string{"HH:mm", "yyyy-MM-dd HH", "mm:ss", "a hh", "HH:mm:ss", "ss.SSS", "EEE HH'h'"} {
			for _, col := range []Expr{ts, ltz} {
				e := Fn("DATE_FORMAT", col, ls(pattern))
				p, err := Compile(e, opts)
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range at {
					row := []types.Value{v, v}
					got, err1 := p.Eval(row)
					fresh, err := Compile(e, opts)
					if err != nil {
						t.Fatal(err)
					}
					want, err2 := fresh.Eval(row)
					if err1 != nil || err2 != nil || got.Str() != want.Str() {
						t.Fatalf("%s in %s, row %d (%v): %q (%v), a fresh compilation %q (%v)", e, zone, i, v.Timestamp().Time(), got.Str(), err1, want.Str(), err2)
					}
				}
			}
		}
	}
}

// TestTimestampAddConstant checks TIMESTAMPADD with a constant amount of
// hours, minutes, seconds or milliseconds on a TIMESTAMP (added as
// milliseconds) against the same call with the amount from a column (the
// general path through time.Time): before and after 1970, with
// nanoseconds, amounts of either sign and up to the largest a
// time.Duration holds, NULL timestamps, a ROW field operand.
func TestTimestampAddConstant(t *testing.T) {
	ts := Col(0, "ts", types.TimestampType(9))
	n := Col(1, "n", types.BigInt())
	r := Col(2, "r", types.RowType(types.Field{Name: "t", Type: types.TimestampType(9)}))
	var vals []types.Value
	for _, ms := range []int64{0, -1, 1, 1700000000123, -86400_000*365*300 - 7, 86400_000 * 365 * 250, 1<<62 + 5, -(1 << 62), 1<<63 - 6, -1 << 63} {
		for _, nano := range []int32{0, 1, 999_999} {
			vals = append(vals, types.TimestampValue(types.Timestamp{Millis: ms, NanoOfMilli: nano}))
		}
	}
	vals = append(vals, types.Value{})
	for _, unit := range []TimeUnit{UnitHour, UnitMinute, UnitSecond, UnitMillisecond} {
		for _, amount := range []int64{-4, 4, 0, -4000, 1 << 40, -(1 << 40), 2562047, -2562048, 1 << 62} {
			for _, arg := range []Expr{ts, Fn("FIELD", r, ls("t"))} {
				p, err := Compile(FnUnit("TIMESTAMPADD", unit, Lit(types.BigInt().NotNullable(), types.Int64(amount)), arg), Options{})
				if err != nil {
					t.Fatal(err)
				}
				g, err := Compile(FnUnit("TIMESTAMPADD", unit, n, ts), Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range vals {
					row := []types.Value{v, types.Int64(amount), types.List([]types.Value{v})}
					got, err1 := p.Eval(row)
					want, err2 := g.Eval(row)
					if (err1 == nil) != (err2 == nil) || got.IsNull() != want.IsNull() || got.Timestamp() != want.Timestamp() {
						t.Fatalf("TIMESTAMPADD(%v, %d, %s) of %s = %s (%v), general path %s (%v)", unit, amount, arg, show(v), show(got), err1, show(want), err2)
					}
				}
			}
		}
	}
}

// TestDateFormatTimestampOperands checks DATE_FORMAT of a TIMESTAMP read
// in place (dateFormatTimestamp): a column, a ROW's field (the ROW or the
// field NULL) and a nested call, nanoseconds and instants before 1970,
// against the evaluator-only path (viaArgs), row after row so that the
// memo of the last period is exercised across periods and back.
func TestDateFormatTimestampOperands(t *testing.T) {
	ts := Col(0, "ts", types.TimestampType(9))
	r := Col(1, "r", types.RowType(types.Field{Name: "n", Type: types.Int()}, types.Field{Name: "dateTime", Type: types.TimestampType(9)}))
	rng := rand.New(rand.NewPCG(8, 9))
	var at []types.Value
	ms := int64(-90_000_001)
	for range 2000 {
		at = append(at, types.TimestampValue(types.Timestamp{Millis: ms, NanoOfMilli: int32(rng.IntN(1_000_000))}))
		ms += []int64{0, 1, 999, 1000, 59_999, 3_600_000, -61_000, 86_400_000}[rng.IntN(8)]
	}
	at = append(at, types.Value{})
	field := Fn("FIELD", r, ls("dateTime"))
	for _, pattern := range []string{"HH:mm", "yyyy-MM-dd", "yyyy-MM-dd HH:mm:ss", "ss", "a hh", "ss.SSS"} {
		for _, arg := range []Expr{ts, field, Fn("TIMESTAMPADD", Lit(types.Int().NotNullable(), types.Int64(0)), ts)} {
			for _, e := range []Expr{Fn("DATE_FORMAT", arg, ls(pattern))} {
				if c, ok := arg.(*Call); ok && c.Name == "TIMESTAMPADD" {
					c.Unit = UnitSecond
				}
				rs, err := Resolve(e)
				if err != nil {
					t.Fatalf("%s: %v", e, err)
				}
				got, err := newBuilder(benchOpts).compile(rs)
				if err != nil {
					t.Fatal(err)
				}
				ref := newBuilder(benchOpts)
				ref.viaArgs = true
				want, err := ref.compile(rs)
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range at {
					for _, rv := range []types.Value{{}, types.List([]types.Value{types.Int64(1), v})} {
						row := []types.Value{v, rv}
						g, err1 := got(row)
						w, err2 := want(row)
						if err1 != nil || err2 != nil || show(g) != show(w) {
							t.Fatalf("%s, row %d (%v, %s): %s (%v), want %s (%v)", rs, i, show(v), show(rv), show(g), err1, show(w), err2)
						}
					}
				}
			}
		}
	}
}
