package javatime

import (
	"testing"
	"time"
)

// TestLoadZone: region ids load from the zone database, Java's three-letter
// ids map to their regions or offsets, "GMT" custom offsets are fixed
// zones; anything else is GMT, as java.util.TimeZone.getTimeZone gives.
func TestLoadZone(t *testing.T) {
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		id     string
		offset int
	}{
		{"UTC", 0},
		{"Asia/Shanghai", 8 * 3600},
		{"GMT+05:30", 5*3600 + 30*60},
		{"GMT-08:00", -8 * 3600},
		{"GMT+8", 8 * 3600},
		{"GMT+0530", 5*3600 + 30*60},
		{"GMT-830", -(8*3600 + 30*60)},
		{"PST", -8 * 3600},
		{"EST", -5 * 3600},
		{"CTT", 8 * 3600},
		{"UTC+08", 0},
		{"+01:00", 0},
		{"No/Such_Zone", 0},
		{"Local", 0},
		{"GMT+5x", 0},
		{"GMT+24", 0},
		{"GMT+05:3", 0},
	} {
		loc, err := LoadZone(tc.id)
		if err != nil {
			t.Fatalf("%s: %v", tc.id, err)
		}
		if _, off := at.In(loc).Zone(); off != tc.offset {
			t.Errorf("%s: offset %d, want %d", tc.id, off, tc.offset)
		}
	}
}
