package runtime

import (
	"testing"
	"time"

	"github.com/streamsql/streamsql/jobconfig"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestRestartStrategies(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	cfg := jobconfig.DefaultConfig()

	cfg.Restart.Strategy = jobconfig.RestartNone
	if _, ok := newRestarter(cfg, clock.now).next(clock.t); ok {
		t.Fatal("none restarted")
	}

	cfg.Restart.Strategy = jobconfig.RestartFixedDelay
	cfg.Restart.FixedDelayAttempts = 2
	r := newRestarter(cfg, clock.now)
	for i := range 2 {
		if d, ok := r.next(clock.t); !ok || d != time.Second {
			t.Fatalf("fixed-delay attempt %d: %v %v", i, d, ok)
		}
	}
	if _, ok := r.next(clock.t); ok {
		t.Fatal("fixed-delay restarted a third time")
	}

	cfg.Restart.Strategy = jobconfig.RestartFailureRate
	cfg.Restart.FailureRateMaxFailures = 3
	r = newRestarter(cfg, clock.now)
	for i := range 2 {
		if _, ok := r.next(clock.t); !ok {
			t.Fatalf("failure-rate failure %d refused", i)
		}
		clock.t = clock.t.Add(10 * time.Second)
	}
	if _, ok := r.next(clock.t); ok {
		t.Fatal("failure-rate allowed 3 failures within a minute")
	}
	clock.t = clock.t.Add(2 * time.Minute)
	if _, ok := r.next(clock.t); !ok {
		t.Fatal("failure-rate refused after the interval passed")
	}

	cfg.Restart.Strategy = jobconfig.RestartExponentialDelay
	cfg.Restart.JitterFactor = 0
	r = newRestarter(cfg, clock.now)
	want := []time.Duration{time.Second, 1500 * time.Millisecond, 2250 * time.Millisecond}
	for i, w := range want {
		if d, ok := r.next(clock.t); !ok || d != w {
			t.Fatalf("exponential attempt %d: %v, want %v", i, d, w)
		}
	}
	for range 20 {
		r.next(clock.t)
	}
	if d, _ := r.next(clock.t); d != time.Minute {
		t.Fatalf("exponential backoff not capped at max-backoff: %v", d)
	}
	started := clock.t
	clock.t = clock.t.Add(2 * time.Hour)
	if d, _ := r.next(started); d != time.Second {
		t.Fatalf("backoff not reset after a long run: %v", d)
	}
	cfg.Restart.JitterFactor = 0.5
	r = newRestarter(cfg, clock.now)
	for range 50 {
		if d, _ := r.next(clock.t); d < 0 || d > time.Duration(1.5*float64(time.Minute)) {
			t.Fatalf("jittered delay %v out of range", d)
		}
	}
	cfg.Restart.AttemptsBeforeReset = 1
	r = newRestarter(cfg, clock.now)
	r.next(clock.t)
	if _, ok := r.next(clock.t); ok {
		t.Fatal("attempts-before-reset-backoff not honoured")
	}
}
