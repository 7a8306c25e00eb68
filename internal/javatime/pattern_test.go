package javatime

import (
	"testing"
	"time"
)

func TestPattern(t *testing.T) {
	ts := time.Date(2024, 3, 5, 7, 8, 9, 123000000, time.UTC)
	cases := []struct{ pattern, want string }{
		{"yyyy-MM-dd HH:mm:ss", "2024-03-05 07:08:09"},
		{"yyyy-MM-dd HH:mm:ss.SSS", "2024-03-05 07:08:09.123"},
		{"yy/M/d h:mm a", "24/3/5 7:08 AM"},
		{"EEE, d MMM yyyy", "Tue, 5 Mar 2024"},
		{"EEEE MMMM", "Tuesday March"},
		{"'at' HH 'o''clock'", "at 07 o'clock"},
		{"D", "65"},
		{"XXX Z", "Z +0000"},
	}
	for _, c := range cases {
		f, err := Compile(c.pattern)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		if got := f.Format(ts); got != c.want {
			t.Errorf("format %q = %q, want %q", c.pattern, got, c.want)
		}
	}
	f, _ := Compile("yyyyMMddHHmmss")
	p, ok := f.Parse("20240305070809")
	if !ok || !p.LocalTime().Equal(time.Date(2024, 3, 5, 7, 8, 9, 0, time.UTC)) {
		t.Errorf("parse of adjacent fields: %v %v", p, ok)
	}
	f, _ = Compile("yyyy-MM-dd HH:mm:ss XXX")
	p, ok = f.Parse("2024-03-05 07:08:09 +08:00")
	if !ok || p.Instant(time.UTC).Unix() != time.Date(2024, 3, 4, 23, 8, 9, 0, time.UTC).Unix() {
		t.Errorf("parse with offset: %v %v", p, ok)
	}
}

// TestAppendPad checks Format's allocation-free padding against Pad, which
// the rest of the package uses, over signs, digit counts and widths.
func TestAppendPad(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 99, 100, 2024, 12345, 999999999, -1, -9, -10, -2024, 1<<62 + 7, -(1<<62 + 7)} {
		for w := 0; w <= 21; w++ {
			if got, want := string(appendPad([]byte("x"), n, w)), "x"+Pad(n, w); got != want {
				t.Errorf("appendPad(%d, %d) = %q, want %q", n, w, got, want)
			}
		}
	}
}
