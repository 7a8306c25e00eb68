package javatime

import (
	"strings"
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

// LoadZone returns the zone java.util.TimeZone.getTimeZone gives for id
// (Flink's CONVERT_TZ reads its zones so): a region id ("Europe/Berlin",
// "UTC"), one of Java's three-letter ids ("PST", "CTT", ...), or a custom
// "GMT+h", "GMT+hh:mm", "GMT+hhmm"; like Java it falls back to GMT for an
// id it does not know ("UTC+08" included: Java parses custom offsets only
// after "GMT").
func LoadZone(id string) (*time.Location, error) {
	if region, ok := javaShortIDs[id]; ok {
		if region[0] == '-' {
			off, _ := customOffset(region)
			return time.FixedZone(id, off), nil
		}
		id = region
	}
	if strings.HasPrefix(id, "GMT") && len(id) > 3 {
		if off, ok := customOffset(id[3:]); ok {
			return time.FixedZone(id, off), nil
		}
		return time.UTC, nil
	}
	if id == "" || id == "Local" {
		return time.UTC, nil
	}
	if loc, err := time.LoadLocation(id); err == nil {
		return loc, nil
	}
	return time.UTC, nil
}

// customOffset parses Java's custom zone offset "+h", "+hh", "+hh:mm",
// "+hmm" or "+hhmm" (hours up to 23) into seconds east of UTC.
func customOffset(s string) (int, bool) {
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	digits := func(t string) (int, bool) {
		n := 0
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return 0, false
			}
			n = n*10 + int(t[i]-'0')
		}
		return n, len(t) > 0
	}
	rest := s[1:]
	var h, m int
	var ok bool
	if hs, ms, colon := strings.Cut(rest, ":"); colon {
		if len(hs) > 2 || len(ms) != 2 {
			return 0, false
		}
		h, ok = digits(hs)
		if !ok {
			return 0, false
		}
		if m, ok = digits(ms); !ok {
			return 0, false
		}
	} else {
		switch len(rest) {
		case 1, 2:
			if h, ok = digits(rest); !ok {
				return 0, false
			}
		case 3, 4:
			if h, ok = digits(rest[:len(rest)-2]); !ok {
				return 0, false
			}
			if m, ok = digits(rest[len(rest)-2:]); !ok {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	if h > 23 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

// javaShortIDs are the JDK's three-letter zone ids (java.time.ZoneId's
// SHORT_IDS, which java.util.TimeZone resolves the same way): a region,
// or a fixed offset for EST, MST and HST.
var javaShortIDs = map[string]string{
	"EST": "-05:00", "HST": "-10:00", "MST": "-07:00",
	"ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
	"ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo",
	"BST": "Asia/Dhaka", "CAT": "Africa/Harare", "CNT": "America/St_Johns",
	"CST": "America/Chicago", "CTT": "Asia/Shanghai", "EAT": "Africa/Addis_Ababa",
	"ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis", "IST": "Asia/Kolkata",
	"JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
	"NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix",
	"PRT": "America/Puerto_Rico", "PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal",
	"VST": "Asia/Ho_Chi_Minh",
}
