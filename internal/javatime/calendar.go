// Package javatime holds the date and time algorithms that Flink inherits
// from Java and that several streamsql packages need alike: the proleptic
// Gregorian calendar, the spellings of a date ([ParseDate] with a
// [DateLayout] naming whose rules apply), Java date-time patterns
// ([Compile], [Pattern]; DATE_FORMAT, TO_TIMESTAMP, UNIX_TIMESTAMP) and the
// conversion between local date-times and instants in a time zone
// ([ToLocal], [FromLocal]).
//
// Learn [ParseDate] and [Pattern] first. The package knows nothing of
// expressions, formats or connectors: planner/expr, ddl,
// formats/internal/text and connectors/filesystem call it.
package javatime

// Units of the values streamsql keeps: TIMESTAMP is milliseconds plus
// nanoseconds of the millisecond, DATE is days since 1970-01-01.
const (
	// MillisPerDay is the number of milliseconds in a day (no leap seconds).
	MillisPerDay = 86400000
	// NanosPerMilli is the number of nanoseconds in a millisecond.
	NanosPerMilli = 1000000
)

// FloorDiv returns a/b rounded towards negative infinity, as Java's
// Math.floorDiv.
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FloorMod returns a - FloorDiv(a, b)*b, as Java's Math.floorMod.
func FloorMod(a, b int64) int64 { return a - FloorDiv(a, b)*b }

// DaysFromCivil returns the days since 1970-01-01 of a proleptic
// Gregorian date (month 1-12, day 1-31; no range check).
func DaysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// CivilFromDays is the inverse of DaysFromCivil.
func CivilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// DaysInMonth returns the number of days of month m (1-12) of year y.
func DaysInMonth[T int | int64](y, m T) T {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
