package javatime

// DateLayout names whose rules for spelling a date ParseDate applies. The
// layouts differ on purpose, each matching what Flink accepts in that
// place; every one checks the month and the day against the calendar.
type DateLayout uint8

const (
	// SQLDate is Flink's CAST(string AS DATE) (Integer.parseInt of each
	// '-'-separated field): a year of one or more digits, a month and a day
	// of one or two characters, each field optionally signed with '+':
	// '2024-1-5' and '+2024-01-05' are dates.
	SQLDate DateLayout = iota
	// LiteralDate is the text of a DATE literal: exactly yyyy-mm-dd, a
	// four-digit year and two-digit month and day.
	LiteralDate
	// ISODate is java.time's ISO_LOCAL_DATE, which Flink's json and csv
	// formats and the filesystem connector's partition values use: a year of
	// four to nine digits, optionally signed ('+10000-01-01',
	// '-0001-12-31'), then two-digit month and day.
	ISODate
)

// ParseDate parses the whole of s as a date in layout l and returns the
// days since 1970-01-01.
func ParseDate(s string, l DateLayout) (days int64, ok bool) {
	days, n, ok := ParseDatePrefix(s, l)
	return days, ok && n == len(s)
}

// ParseDatePrefix parses a date in layout l at the start of s and returns
// the days since 1970-01-01 and the number of bytes it read.
func ParseDatePrefix(s string, l DateLayout) (days int64, n int, ok bool) {
	var y, m, d int64
	var neg bool
	i := 0
	switch l {
	case SQLDate:
		if y, i, ok = field(s, 0, 1, 18, 0); !ok {
			return 0, 0, false
		}
	case LiteralDate:
		if y, i, ok = field(s, 0, 4, 4, -1); !ok {
			return 0, 0, false
		}
	case ISODate:
		if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
			neg, i = s[0] == '-', 1
		}
		if y, i, ok = field(s, i, 4, 9, -1); !ok {
			return 0, 0, false
		}
		if neg {
			y = -y
		}
	default:
		return 0, 0, false
	}
	width, sign := 2, -1 // exactly two digits
	if l == SQLDate {
		width, sign = 1, 2 // one or two characters, '+' counted
	}
	if i >= len(s) || s[i] != '-' {
		return 0, 0, false
	}
	if m, i, ok = field(s, i+1, width, 2, sign); !ok || i >= len(s) || s[i] != '-' {
		return 0, 0, false
	}
	if d, i, ok = field(s, i+1, width, 2, sign); !ok {
		return 0, 0, false
	}
	if m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m) {
		return 0, 0, false
	}
	return DaysFromCivil(y, m, d), i, true
}

// field reads an unsigned decimal number of minDigits to maxDigits digits
// at s[i:]. With signLen >= 0 a leading '+' is allowed and then the field,
// sign included, may be at most signLen bytes (0: no limit beyond
// maxDigits), as Integer.parseInt of a field of bounded length. It returns
// the value and the index after the field.
func field(s string, i, minDigits, maxDigits, signLen int) (int64, int, bool) {
	start := i
	if signLen >= 0 && i < len(s) && s[i] == '+' {
		i++
	}
	j := i
	var v int64
	for j < len(s) && s[j] >= '0' && s[j] <= '9' && j-i < maxDigits {
		v = v*10 + int64(s[j]-'0')
		j++
	}
	if j-i < minDigits || (j < len(s) && s[j] >= '0' && s[j] <= '9') {
		return 0, 0, false
	}
	if signLen > 0 && j-start > signLen {
		return 0, 0, false
	}
	return v, j, true
}
