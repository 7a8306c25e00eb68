package javatime

import (
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// EpochDays returns the days since 1970-01-01 of a proleptic Gregorian
// date, as the int32 of a DATE value.
func EpochDays(y, m, d int) int32 {
	return int32(DaysFromCivil(int64(y), int64(m), int64(d)))
}

// TruncNanos drops fractional-second digits of a TIME beyond precision p.
func TruncNanos(nanos int64, p int) int64 {
	unit := int64(1)
	for i := p; i < 9; i++ {
		unit *= 10
	}
	return nanos - nanos%unit
}

// ParseSQLTime parses [h]h:[m]m[:[s]s[.fraction]] (Flink's CAST(string AS
// TIME)) into nanoseconds since midnight.
func ParseSQLTime(s string) (int64, bool) {
	frac := int64(0)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		f := s[i+1:]
		if len(f) == 0 || len(f) > 9 {
			return 0, false
		}
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, false
		}
		frac = int64(n)
		for k := len(f); k < 9; k++ {
			frac *= 10
		}
		s = s[:i]
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	var hms [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || len(p) > 2 || len(p) == 0 {
			return 0, false
		}
		hms[i] = n
	}
	if hms[0] > 23 || hms[1] > 59 || hms[2] > 59 {
		return 0, false
	}
	return (int64(hms[0])*3600+int64(hms[1])*60+int64(hms[2]))*1e9 + frac, true
}

// ParseSQLTimestamp parses 'yyyy-MM-dd[ HH:mm[:ss[.fffffffff]]]' (the date
// in [SQLDate] layout) as a local date-time, as Flink's CAST(string AS
// TIMESTAMP) does (it rejects the ISO 'T' separator).
func ParseSQLTimestamp(s string) (types.Timestamp, bool) {
	datePart, timePart := s, ""
	if i := strings.IndexByte(s, ' '); i >= 0 {
		datePart, timePart = s[:i], strings.TrimSpace(s[i+1:])
	}
	d, ok := ParseDate(datePart, SQLDate)
	if !ok {
		return types.Timestamp{}, false
	}
	var nanos int64
	if timePart != "" {
		if nanos, ok = ParseSQLTime(timePart); !ok {
			return types.Timestamp{}, false
		}
	}
	return types.Timestamp{Millis: d*MillisPerDay + nanos/NanosPerMilli, NanoOfMilli: int32(nanos % NanosPerMilli)}, true
}

// FormatDate prints days since 1970-01-01 as yyyy-MM-dd, as Flink's
// CAST(date AS STRING).
func FormatDate(days int32) string {
	y, m, d := CivilFromDays(int64(days))
	return Pad(int(y), 4) + "-" + Pad(int(m), 2) + "-" + Pad(int(d), 2)
}

// FormatTimeOfDay prints nanoseconds since midnight as HH:mm:ss with
// exactly p fractional digits.
func FormatTimeOfDay(nanos int64, p int) string {
	secs := nanos / 1e9
	s := Pad(int(secs/3600), 2) + ":" + Pad(int(secs/60%60), 2) + ":" + Pad(int(secs%60), 2)
	return s + Fraction(nanos%1e9, p)
}

// Fraction returns ".ddd" with p digits of the nanoseconds, or "" for p 0.
func Fraction(nanos int64, p int) string {
	if p <= 0 {
		return ""
	}
	f := Pad(int(nanos), 9)
	return "." + f[:p]
}

// FormatTimestamp prints a local timestamp as 'yyyy-MM-dd HH:mm:ss' with
// exactly p fractional digits, as Flink's CAST(ts AS STRING).
func FormatTimestamp(ts types.Timestamp, p int) string {
	days := FloorDiv(ts.Millis, MillisPerDay)
	ms := ts.Millis - days*MillisPerDay
	nanos := ms*NanosPerMilli + int64(ts.NanoOfMilli)
	return FormatDate(int32(days)) + " " + FormatTimeOfDay(nanos, p)
}

// Pad prints n in decimal with at least width digits, zero-padded; a
// negative n gets a '-' before the digits.
func Pad(n, width int) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := strconv.Itoa(n)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	if neg {
		s = "-" + s
	}
	return s
}
