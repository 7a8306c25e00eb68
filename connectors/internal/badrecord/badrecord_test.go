package badrecord

import (
	"strings"
	"testing"
	"time"
)

// TestParse: the supported policies parse (case and spaces aside); others
// are refused naming the option and the supported values.
func TestParse(t *testing.T) {
	for in, want := range map[string]Policy{"fail": Fail, " Skip ": Skip, "DEAD-LETTER": DeadLetter} {
		if p, err := Parse(in, Fail, Skip, DeadLetter); err != nil || p != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, p, err, want)
		}
	}
	_, err := Parse("dead-letter", Fail, Skip)
	if err == nil || !strings.Contains(err.Error(), "'scan.bad-record.policy' = 'dead-letter': want fail or skip") {
		t.Errorf("Parse(dead-letter) among fail and skip: %v", err)
	}
	if s := Policy(7).String(); s != "Policy(7)" {
		t.Errorf("String of an unknown policy: %q", s)
	}
}

// TestLogAllow: the first message at once, then one per interval, each
// counting those not logged since the last; Expire ends the interval;
// Flush returns and forgets the count.
func TestLogAllow(t *testing.T) {
	l := Log{Every: time.Minute}
	t0 := time.Unix(1000, 0)
	if ok, n := l.Allow(t0); !ok || n != 0 {
		t.Fatalf("first: %v %d", ok, n)
	}
	for i := range 5 {
		if ok, _ := l.Allow(t0.Add(time.Duration(i) * time.Second)); ok {
			t.Fatalf("allowed %d s after the first, within the interval", i)
		}
	}
	if ok, n := l.Allow(t0.Add(time.Minute)); !ok || n != 5 {
		t.Fatalf("after the interval: %v %d; want true 5", ok, n)
	}
	_, _ = l.Allow(t0.Add(time.Minute + time.Second))
	l.Expire()
	if ok, n := l.Allow(t0.Add(time.Minute + 2*time.Second)); !ok || n != 1 {
		t.Fatalf("after Expire: %v %d; want true 1", ok, n)
	}
	_, _ = l.Allow(t0.Add(time.Minute + 3*time.Second))
	_, _ = l.Allow(t0.Add(time.Minute + 4*time.Second))
	if n := l.Flush(); n != 2 {
		t.Fatalf("Flush = %d, want the 2 not logged", n)
	}
	if n := l.Flush(); n != 0 {
		t.Fatalf("second Flush = %d, want 0", n)
	}
}
