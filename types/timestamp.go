package types

import "time"

// Timestamp is a point on the time line with nanosecond precision, as Flink's
// TimestampData: milliseconds since 1970-01-01T00:00:00 and the nanoseconds
// within that millisecond. For TIMESTAMP (without time zone) it is a local
// date-time stored as if it were UTC; for TIMESTAMP_LTZ it is an instant.
type Timestamp struct {
	Millis      int64
	NanoOfMilli int32 // 0..999,999
}

// TimestampFromTime returns t as a Timestamp (an instant).
func TimestampFromTime(t time.Time) Timestamp {
	// UnixMilli rounds down; the nanoseconds below the millisecond come from
	// Nanosecond, because UnixNano overflows outside the years 1678–2262.
	return Timestamp{Millis: t.UnixMilli(), NanoOfMilli: int32(t.Nanosecond() % 1e6)}
}

// TimestampFromLocal returns the wall-clock date-time of t, ignoring its
// zone, as a TIMESTAMP (without time zone) value.
func TimestampFromLocal(t time.Time) Timestamp {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return TimestampFromTime(time.Date(y, mo, d, h, mi, s, t.Nanosecond(), time.UTC))
}

// Time returns ts as a time.Time in UTC.
func (ts Timestamp) Time() time.Time {
	return time.UnixMilli(ts.Millis).Add(time.Duration(ts.NanoOfMilli)).UTC()
}

// Truncate drops fractional digits beyond precision (0..9).
func (ts Timestamp) Truncate(precision int) Timestamp {
	if precision >= 9 {
		return ts
	}
	if precision <= 3 {
		unit := int64(1)
		for i := precision; i < 3; i++ {
			unit *= 10
		}
		ms := ts.Millis - ((ts.Millis%unit)+unit)%unit
		return Timestamp{Millis: ms}
	}
	unit := int32(1)
	for i := precision; i < 9; i++ {
		unit *= 10
	}
	return Timestamp{Millis: ts.Millis, NanoOfMilli: ts.NanoOfMilli - ts.NanoOfMilli%unit}
}

// Compare returns -1, 0 or +1.
func (ts Timestamp) Compare(o Timestamp) int {
	switch {
	case ts.Millis < o.Millis:
		return -1
	case ts.Millis > o.Millis:
		return 1
	case ts.NanoOfMilli < o.NanoOfMilli:
		return -1
	case ts.NanoOfMilli > o.NanoOfMilli:
		return 1
	}
	return 0
}
