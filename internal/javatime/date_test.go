package javatime

import (
	"strings"
	"testing"
	"time"
)

func TestCalendarAgainstTimePackage(t *testing.T) {
	for days := int64(-800000); days <= 3000000; days += 97 {
		tm := time.Unix(days*86400, 0).UTC()
		y, m, d := CivilFromDays(days)
		if y != int64(tm.Year()) || m != int64(tm.Month()) || d != int64(tm.Day()) {
			t.Fatalf("CivilFromDays(%d) = %d-%d-%d, time says %s", days, y, m, d, tm)
		}
		if back := DaysFromCivil(y, m, d); back != days {
			t.Fatalf("DaysFromCivil(%d-%d-%d) = %d, want %d", y, m, d, back, days)
		}
		if got, want := DaysInMonth(y, m), int64(time.Date(int(y), time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()); got != want {
			t.Fatalf("DaysInMonth(%d, %d) = %d, want %d", y, m, got, want)
		}
	}
}

// TestDateLayouts pins what each layout accepts: the same calendar checks
// everywhere, and the differences in spelling that match where Flink uses
// each (CAST, DATE literals, java.time's ISO_LOCAL_DATE).
func TestDateLayouts(t *testing.T) {
	const jan5 = 19727 // 2024-01-05
	cases := []struct {
		in                string
		sql, literal, iso bool
	}{
		{"2024-01-05", true, true, true},
		{"2024-1-5", true, false, false},         // one-digit month and day: CAST only
		{"+2024-01-05", true, false, true},       // a '+' on the year: CAST and ISO
		{"2024-+1-05", true, false, false},       // a '+' on the month: CAST only (Integer.parseInt)
		{"02024-01-05", true, false, true},       // five year digits: not a literal
		{"-2024-01-05", false, false, true},      // a negative year: ISO only
		{"24-01-05", true, false, false},         // a two-digit year: CAST only (year 24)
		{"2024-001-05", false, false, false},     // three-digit month
		{"2024-+12-05", false, false, false},     // '+12' is three characters
		{"2024-02-30", false, false, false},      // not in the calendar
		{"2024-13-01", false, false, false},      // no month 13
		{"2024-00-10", false, false, false},      // no month 0
		{"2024-01-05x", false, false, false},     // trailing text
		{"2024-01", false, false, false},         // no day
		{"", false, false, false},                // empty
		{"1234567890-01-01", true, false, false}, // ten year digits: CAST only
	}
	for _, c := range cases {
		for _, l := range []struct {
			layout DateLayout
			want   bool
		}{{SQLDate, c.sql}, {LiteralDate, c.literal}, {ISODate, c.iso}} {
			days, ok := ParseDate(c.in, l.layout)
			if ok != l.want {
				t.Errorf("ParseDate(%q, %d) ok = %v, want %v", c.in, l.layout, ok, l.want)
			}
			if ok && strings.Contains(c.in, "2024-") && c.in[0] != '-' && days != jan5 {
				t.Errorf("ParseDate(%q, %d) = %d, want %d", c.in, l.layout, days, jan5)
			}
		}
	}
	if d, ok := ParseDate("-0001-12-31", ISODate); !ok || d != DaysFromCivil(-1, 12, 31) {
		t.Errorf("ParseDate(-0001-12-31, ISO) = %d, %v", d, ok)
	}
	if d, n, ok := ParseDatePrefix("2024-01-05 10:00", ISODate); !ok || n != 10 || d != jan5 {
		t.Errorf("ParseDatePrefix = %d, %d, %v", d, n, ok)
	}
}
