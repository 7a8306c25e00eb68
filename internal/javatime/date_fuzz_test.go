package javatime

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// The oracles below are the parsers ParseDate replaced, kept here to show
// that each layout accepts exactly what its old implementation did.

// oldLiteral is ddl's DATE literal parser before javatime.
func oldLiteral(s string) (int64, bool) {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		return 0, false
	}
	return d.Unix() / 86400, true
}

// oldSQL is planner/expr's CAST(string AS DATE) parser before javatime.
func oldSQL(s string) (int64, bool) {
	parts := strings.Split(s, "-")
	if len(parts) != 3 || parts[0] == "" {
		return 0, false
	}
	y, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	d, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || m < 1 || m > 12 || d < 1 ||
		d > time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day() || len(parts[1]) > 2 || len(parts[2]) > 2 {
		return 0, false
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400, true
}

// oldISO is formats/internal/text's ISO date parser before javatime.
func oldISO(b string) (int64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		i = 1
	}
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j-i < 4 || j-i > 9 || j+6 > len(b) || b[j] != '-' || b[j+3] != '-' {
		return 0, false
	}
	y, _ := strconv.ParseInt(b[i:j], 10, 64)
	if neg {
		y = -y
	}
	two := func(s string) (int64, bool) {
		if s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
			return 0, false
		}
		return int64(s[0]-'0')*10 + int64(s[1]-'0'), true
	}
	m, ok1 := two(b[j+1:])
	d, ok2 := two(b[j+4:])
	if !ok1 || !ok2 || m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m) || j+6 != len(b) {
		return 0, false
	}
	return DaysFromCivil(y, m, d), true
}

func FuzzDateLayoutsMatchTheirOldParsers(f *testing.F) {
	for _, s := range []string{"2024-01-05", "2024-1-5", "+2024-01-05", "2024-+1-05", "02024-01-05", "24-01-05",
		"2024-02-29", "2023-02-29", "0000-01-01", "9999-12-31", "-2024-01-05", "2024-01-05x", "2024--1-05", "+-1-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseDate(s, LiteralDate)
		if want, wok := oldLiteral(s); ok != wok || (ok && got != want) {
			t.Errorf("LiteralDate %q = %d, %v; time.Parse gives %d, %v", s, got, ok, want, wok)
		}
		got, ok = ParseDate(s, ISODate)
		if want, wok := oldISO(s); ok != wok || (ok && got != want) {
			t.Errorf("ISODate %q = %d, %v; the old parser gives %d, %v", s, got, ok, want, wok)
		}
		// The old CAST parser took any int for the year, which time.Date
		// then wrapped; compare where years are sane.
		if i := strings.IndexByte(s, '-'); i >= 0 && i <= 7 {
			got, ok := ParseDate(s, SQLDate)
			want, wok := oldSQL(s)
			if ok != wok || (ok && got != want) {
				t.Errorf("SQLDate %q = %d, %v; the old parser gives %d, %v", s, got, ok, want, wok)
			}
		}
	})
}
