package main

import (
	"testing"
	"time"
)

// TestStartPhaseDurations checks the split of start→first into phases: in
// order they are the differences of the steps' times; a step the child saw
// after the next one counts as happening with it (no negative phase), and
// the phases always add up to start→first; a missing step gives none.
func TestStartPhaseDurations(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) int64 { return t0.Add(time.Duration(n) * time.Millisecond).UnixNano() }
	p := &startPhases{Main: ms(5), Built: ms(7), Running: ms(20), FirstRead: ms(60), FirstSink: ms(61)}
	got := p.durations(t0, t0.Add(90*time.Millisecond))
	want := []float64{5, 2, 13, 40, 1, 29}
	if len(got) != len(want) {
		t.Fatalf("durations = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("durations = %v, want %v", got, want)
		}
	}
	// The child's poll saw the row reach the sink 3 ms after the parent
	// saw the output record.
	late := *p
	late.FirstSink = ms(93)
	got = late.durations(t0, t0.Add(90*time.Millisecond))
	sum := 0.0
	for _, d := range got {
		if d < 0 {
			t.Fatalf("durations = %v: a negative phase", got)
		}
		sum += d
	}
	if got[4] != 30 || got[5] != 0 || sum != 90 {
		t.Fatalf("durations = %v (sum %v), want to sink 30, produce+visible 0, sum 90", got, sum)
	}
	missing := *p
	missing.Running = 0
	if got := missing.durations(t0, t0.Add(90*time.Millisecond)); got != nil {
		t.Fatalf("durations with a step missing = %v, want nil", got)
	}
	if got := p.durations(t0, time.Time{}); got != nil {
		t.Fatalf("durations without a first output = %v, want nil", got)
	}
}

// TestStatusPoll: the streamsql child reads the job's Status every
// millisecond only until it has what needs that resolution — the first
// output (a throughput run's start-up phases), the job running (a latency
// run) — and every 20 ms after (a millisecond poll cost streamsql
// throughput and latency under load).
func TestStatusPoll(t *testing.T) {
	for _, tc := range []struct {
		expect             int64
		running, sawOutput bool
		want               time.Duration
	}{
		{0, false, false, time.Millisecond},
		{0, true, false, time.Millisecond},
		{0, true, true, 20 * time.Millisecond},
		{200_000, false, false, time.Millisecond},
		{200_000, true, false, 20 * time.Millisecond},
		{200_000, true, true, 20 * time.Millisecond},
	} {
		if got := statusPoll(tc.expect, tc.running, tc.sawOutput); got != tc.want {
			t.Errorf("statusPoll(%d, %v, %v) = %s, want %s", tc.expect, tc.running, tc.sawOutput, got, tc.want)
		}
	}
}
