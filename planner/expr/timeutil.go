package expr

import (
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/types"
)

const (
	msPerDay   = 86400000
	nanosPerMs = 1000000
)

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func bigPow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// truncNanos drops fractional-second digits of a TIME beyond precision p.
func truncNanos(nanos int64, p int) int64 {
	unit := int64(1)
	for i := p; i < 9; i++ {
		unit *= 10
	}
	return nanos - nanos%unit
}

// offsetMillis returns the UTC offset of loc at the instant ms.
func offsetMillis(ms int64, loc *time.Location) int64 {
	if loc == time.UTC {
		return 0
	}
	_, off := time.UnixMilli(ms).In(loc).Zone()
	return int64(off) * 1000
}

// localMillis returns the wall-clock milliseconds of ts in loc: ts itself
// for TIMESTAMP (loc UTC), the instant's local time for TIMESTAMP_LTZ.
func localMillis(ts types.Timestamp, loc *time.Location) int64 {
	return ts.Millis + offsetMillis(ts.Millis, loc)
}

// toLocal converts an instant (TIMESTAMP_LTZ) to the local date-time in loc
// (TIMESTAMP).
func toLocal(ts types.Timestamp, loc *time.Location) types.Timestamp {
	return types.Timestamp{Millis: localMillis(ts, loc), NanoOfMilli: ts.NanoOfMilli}
}

// fromLocal converts a local date-time (TIMESTAMP) in loc to an instant
// (TIMESTAMP_LTZ), as Java's LocalDateTime.atZone (CAST to TIMESTAMP_LTZ):
// a time in a DST gap moves forward by the gap, an ambiguous time takes the
// earlier offset.
func fromLocal(ts types.Timestamp, loc *time.Location) types.Timestamp {
	return fromLocalPick(ts, loc, false)
}

// fromLocalPick converts a local date-time in loc to an instant. In a DST
// gap the time moves forward by the gap (both Java's atZone and its
// lenient legacy parsing do so); an ambiguous time takes the earlier
// offset (summer time, as atZone) or, with later, the later one (standard
// time, as java.util.TimeZone, which UNIX_TIMESTAMP's parsing uses).
func fromLocalPick(ts types.Timestamp, loc *time.Location, later bool) types.Timestamp {
	if loc == time.UTC {
		return ts
	}
	wall := ts.Millis
	// The offsets in force half a day before and after: transitions are
	// further apart than that.
	early := offsetMillis(wall-12*3600*1000, loc)
	late := offsetMillis(wall+12*3600*1000, loc)
	earlyOK := offsetMillis(wall-early, loc) == early
	lateOK := offsetMillis(wall-late, loc) == late
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

func epochDays(y int, m time.Month, d int) int32 {
	return int32(floorDiv(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix(), 86400))
}

// parseDate parses yyyy-[m]m-[d]d (Flink's lenient DATE literal form).
func parseDate(s string) (int32, bool) {
	parts := strings.Split(s, "-")
	if len(parts) != 3 || parts[0] == "" {
		return 0, false
	}
	y, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	d, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || m < 1 || m > 12 || d < 1 || d > daysIn(y, time.Month(m)) ||
		len(parts[1]) > 2 || len(parts[2]) > 2 {
		return 0, false
	}
	return epochDays(y, time.Month(m), d), true
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseTime parses [h]h:[m]m[:[s]s[.fraction]] into nanoseconds since
// midnight.
func parseTime(s string) (int64, bool) {
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

// parseTimestamp parses 'yyyy-MM-dd[ HH:mm[:ss[.fffffffff]]]' as a local
// date-time (Flink rejects the ISO 'T' separator in casts).
func parseTimestamp(s string) (types.Timestamp, bool) {
	datePart, timePart := s, ""
	if i := strings.IndexByte(s, ' '); i >= 0 {
		datePart, timePart = s[:i], strings.TrimSpace(s[i+1:])
	}
	d, ok := parseDate(datePart)
	if !ok {
		return types.Timestamp{}, false
	}
	var nanos int64
	if timePart != "" {
		if nanos, ok = parseTime(timePart); !ok {
			return types.Timestamp{}, false
		}
	}
	return types.Timestamp{Millis: int64(d)*msPerDay + nanos/nanosPerMs, NanoOfMilli: int32(nanos % nanosPerMs)}, true
}

func formatDate(days int32) string {
	t := time.Unix(int64(days)*86400, 0).UTC()
	return pad(t.Year(), 4) + "-" + pad(int(t.Month()), 2) + "-" + pad(t.Day(), 2)
}

func formatTimeOfDay(nanos int64, p int) string {
	secs := nanos / 1e9
	s := pad(int(secs/3600), 2) + ":" + pad(int(secs/60%60), 2) + ":" + pad(int(secs%60), 2)
	return s + fraction(nanos%1e9, p)
}

// fraction returns ".ddd" with p digits of the nanoseconds, or "" for p 0.
func fraction(nanos int64, p int) string {
	if p <= 0 {
		return ""
	}
	f := pad(int(nanos), 9)
	return "." + f[:p]
}

// formatTimestamp prints a local timestamp as 'yyyy-MM-dd HH:mm:ss' with
// exactly p fractional digits, as Flink's CAST(ts AS STRING).
func formatTimestamp(ts types.Timestamp, p int) string {
	days := floorDiv(ts.Millis, msPerDay)
	ms := ts.Millis - days*msPerDay
	nanos := ms*nanosPerMs + int64(ts.NanoOfMilli)
	return formatDate(int32(days)) + " " + formatTimeOfDay(nanos, p)
}

func pad(n, width int) string {
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
