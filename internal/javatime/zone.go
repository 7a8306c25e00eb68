package javatime

import (
	"time"

	"github.com/streamsql/streamsql/types"
)

// OffsetMillis returns the UTC offset of loc at the instant ms.
func OffsetMillis(ms int64, loc *time.Location) int64 {
	if loc == time.UTC {
		return 0
	}
	_, off := time.UnixMilli(ms).In(loc).Zone()
	return int64(off) * 1000
}

// LocalMillis returns the wall-clock milliseconds of ts in loc: ts itself
// for TIMESTAMP (loc UTC), the instant's local time for TIMESTAMP_LTZ.
func LocalMillis(ts types.Timestamp, loc *time.Location) int64 {
	return ts.Millis + OffsetMillis(ts.Millis, loc)
}

// ToLocal converts an instant (TIMESTAMP_LTZ) to the local date-time in loc
// (TIMESTAMP).
func ToLocal(ts types.Timestamp, loc *time.Location) types.Timestamp {
	return types.Timestamp{Millis: LocalMillis(ts, loc), NanoOfMilli: ts.NanoOfMilli}
}

// FromLocal converts a local date-time (TIMESTAMP) in loc to an instant
// (TIMESTAMP_LTZ), as Java's LocalDateTime.atZone (CAST to TIMESTAMP_LTZ):
// a time in a DST gap moves forward by the gap, an ambiguous time takes the
// earlier offset.
func FromLocal(ts types.Timestamp, loc *time.Location) types.Timestamp {
	return FromLocalPick(ts, loc, false)
}

// FromLocalPick converts a local date-time in loc to an instant. In a DST
// gap the time moves forward by the gap (both Java's atZone and its
// lenient legacy parsing do so); an ambiguous time takes the earlier
// offset (summer time, as atZone) or, with later, the later one (standard
// time, as java.util.TimeZone, which UNIX_TIMESTAMP's parsing uses).
func FromLocalPick(ts types.Timestamp, loc *time.Location, later bool) types.Timestamp {
	if loc == time.UTC {
		return ts
	}
	wall := ts.Millis
	// The offsets in force half a day before and after: transitions are
	// further apart than that.
	early := OffsetMillis(wall-12*3600*1000, loc)
	late := OffsetMillis(wall+12*3600*1000, loc)
	earlyOK := OffsetMillis(wall-early, loc) == early
	lateOK := OffsetMillis(wall-late, loc) == late
	off := early
	switch {
	case earlyOK && lateOK:
		if later {
			off = late
		}
	case lateOK:
		off = late
	case !earlyOK:
		off = early // a gap: keep the offset before it, landing after it
	}
	return types.Timestamp{Millis: wall - off, NanoOfMilli: ts.NanoOfMilli}
}

// LoadZone returns the zone of a Java time-zone id: a region id
// ("Europe/Berlin", "UTC") or a fixed offset "GMT+hh:mm", "UTC+h",
// "+hh:mm". Like java.util.TimeZone it falls back to GMT for an id it
// does not know.
func LoadZone(id string) (*time.Location, error) {
	if loc, err := time.LoadLocation(id); err == nil {
		return loc, nil
	}
	rest := id
	for _, p := range []string{"GMT", "UTC", "UT"} {
		if len(rest) > len(p) && rest[:len(p)] == p && (rest[len(p)] == '+' || rest[len(p)] == '-') {
			rest = rest[len(p):]
			break
		}
	}
	if n, sec, ok := parseOffset(rest); ok && n == len(rest) {
		return time.FixedZone(id, sec), nil
	}
	return time.UTC, nil
}
