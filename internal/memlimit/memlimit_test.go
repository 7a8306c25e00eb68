package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestTarget(t *testing.T) {
	const floor = 32 << 20
	for _, c := range []struct {
		live uint64
		gogc int
		want int64
	}{
		{0, 100, floor},
		{12 << 20, 100, floor},      // 12 MiB live: the goal 24 MiB, ×5/4 is 30 MiB, under the floor
		{100 << 20, 100, 250 << 20}, // a large job keeps GOGC's goal, plus a quarter
		{100 << 20, 50, 375 << 19},  // GOGC=50: 150 MiB goal, ×5/4
		{100 << 20, -1, floor},      // GOGC=off: the floor only
		{math.MaxUint64 / 2, 100, math.MaxInt64},
	} {
		if got := Target(floor, c.live, c.gogc); got != c.want {
			t.Errorf("Target(%d, %d, %d) = %d, want %d", int64(floor), c.live, c.gogc, got, c.want)
		}
	}
}

// TestGovernor starts the governor, checks that it sets the floor for a
// small heap, that the limit follows a live heap far above the floor (so
// that the collector is not held at the floor), and that Stop restores the
// limit found at Start.
func TestGovernor(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	g := Start(DefaultFloor)
	runtime.GC()
	time.Sleep(3 * poll)
	if got := g.Limit(); got < DefaultFloor || got > 2*DefaultFloor {
		t.Errorf("with a small heap the limit is %d, want the floor %d or near it", got, DefaultFloor)
	}
	// Keep 96 MiB live, far above the floor.
	big := make([][]byte, 96)
	for i := range big {
		big[i] = make([]byte, 1<<20)
		big[i][0] = 1
	}
	runtime.GC()
	deadline := time.Now().Add(10 * time.Second)
	for g.Limit() < 2*96<<20 && time.Now().Before(deadline) {
		time.Sleep(poll)
	}
	if got := g.Limit(); got < 2*96<<20 {
		t.Errorf("with 96 MiB live the limit is %d MiB, want at least twice the live heap (GOGC=100's goal)", got>>20)
	}
	runtime.KeepAlive(big)
	g.Stop()
	g.Stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after Stop the limit is %d, want %d as before Start", got, before)
	}
}
