package duration

import (
	"errors"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"10s": 10 * time.Second, "1 min": time.Minute, "500": 500 * time.Millisecond, "1m": time.Minute,
		"2h": 2 * time.Hour, "3 days": 72 * time.Hour, "10 SECONDS": 10 * time.Second, "4µs": 4 * time.Microsecond,
		"4 us": 4 * time.Microsecond, "9ns": 9, " 0 ": 0,
	} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]Problem{
		"": NoNumber, "s": NoNumber, "-1s": NoNumber, "1.5s": UnknownUnit, "10 fortnights": UnknownUnit,
		"99999999999999999999s": NumberTooLarge, "9999999999d": TooLarge,
	} {
		_, err := Parse(in)
		var e *Error
		if !errors.As(err, &e) || e.Problem != want || e.Text != in {
			t.Errorf("Parse(%q) = %v, want problem %d naming the text", in, err, want)
		}
	}
}

func TestFormatParsesBack(t *testing.T) {
	for _, s := range []string{"0 ms", "10 min", "1 h", "2 d", "1500 ms", "3 us", "7 ns", "90 s"} {
		d, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Format(d); got != s {
			t.Errorf("Format(Parse(%q)) = %q", s, got)
		}
	}
}
