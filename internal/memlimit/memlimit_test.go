package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	const minHeap = 10 << 20
	for _, c := range []struct {
		live uint64
		base int
		want int
	}{
		{2 << 20, 100, 250},  // 2 MiB live: GOGC 250, whose scaled runtime minimum (4 MiB × 2.5) is the goal
		{4 << 20, 100, 150},  // 4 MiB: 150
		{5 << 20, 100, 100},  // GOGC=100's goal is 10 MiB already
		{64 << 20, 100, 100}, // a large job keeps GOGC
		{1 << 20, 100, 250},  // little live: likewise, no more
		{0, 100, 250},        // nothing live yet: likewise
		{2 << 20, 50, 250},   // a base below 100: raised the same way
		{2 << 20, 300, 300},  // a base above what is needed stays
		{2 << 20, -1, -1},    // GOGC=off stays off
		{3 << 20, 100, 234},  // rounded up: 3 MiB × 3.34 ≥ 10 MiB
		{5 << 20, 50, 100},   // exactly: 5 MiB × 2 = 10 MiB
	} {
		if got := GCPercent(minHeap, c.live, c.base); got != c.want {
			t.Errorf("GCPercent(10 MiB, %d, %d) = %d, want %d", c.live, c.base, got, c.want)
		}
		// The heap goal the runtime derives from it: GOGC's share of the
		// live heap, or its minimum scaled by GOGC.
		if got := GCPercent(minHeap, c.live, c.base); got > c.base {
			goal := max(float64(c.live)*(1+float64(got)/100), runtimeHeapMinimum*float64(got)/100)
			if goal < minHeap || goal > minHeap*1.01 {
				t.Errorf("GCPercent(10 MiB, %d, %d) = %d: heap goal %.0f, want 10 MiB", c.live, c.base, got, goal)
			}
		}
	}
}

// gogc reads GOGC as the runtime has it.
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return gogcOf(s[0])
}

func TestTarget(t *testing.T) {
	const floor = 32 << 20
	for _, c := range []struct {
		live, scan uint64
		gogc       int
		want       int64
	}{
		{0, 0, 100, floor},
		{12 << 20, 12 << 20, 100, floor},                // 12 MiB live: the goal 24 MiB, ×5/4 is 30 MiB, under the floor
		{100 << 20, 100 << 20, 100, 225<<20 + Headroom}, // a large job of pointers: live + 5/4 × GOGC's share + Headroom, under GOGC's goal plus a quarter
		{100 << 20, 100 << 20, 50, 325<<19 + Headroom},  // GOGC=50: 50 MiB share, ×5/4
		{100 << 20, 100 << 20, -1, floor},               // GOGC=off: the floor only
		{12 << 20, 1 << 20, 100, floor},                 // a small job free of pointers: still the floor
		{200 << 20, 8 << 20, 100, 210<<20 + Headroom},   // 200 MiB of state: live + 5/4 × 8 MiB + Headroom
		{200 << 20, 8 << 20, 50, 205<<20 + Headroom},    // GOGC=50 halves the scannable part's share
		{13 << 20, 0, 100, 65 << 19},                    // GOGC's goal (×5/4) when it is the smaller
		{100 << 20, 200 << 20, 100, 225<<20 + Headroom}, // scan above live (metrics of two moments): all of it
		{math.MaxUint64 / 2, math.MaxUint64 / 2, 100, math.MaxInt64},
	} {
		if got := Target(floor, c.live, c.scan, c.gogc); got != c.want {
			t.Errorf("Target(%d, %d, %d, %d) = %d MiB, want %d MiB", int64(floor), c.live, c.scan, c.gogc, got>>20, c.want>>20)
		}
	}
}

// TestGovernor starts the governor, checks that it sets the floor for a
// small heap, that the limit follows a live heap far above the floor (so
// that the collector is not held at the floor), and that Stop restores the
// limit found at Start.
func TestGovernor(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Setenv("GOGC", "") // the governor's own GOGC (this test does not set it)
	base := gogc()
	g := Start(DefaultFloor)
	runtime.GC()
	time.Sleep(3 * poll)
	if got := g.Limit(); got < DefaultFloor || got > 2*DefaultFloor {
		t.Errorf("with a small heap the limit is %d, want the floor %d or near it", got, DefaultFloor)
	}
	// The test binary's live heap is a few MiB at most: GOGC is raised so
	// that the heap goal is MinHeap, never above the floor.
	if p := gogc(); p <= base || p > int(MinHeap(DefaultFloor)*100/runtimeHeapMinimum) {
		t.Errorf("with a small heap GOGC is %d, want above %d and at most %d", p, base, MinHeap(DefaultFloor)*100/runtimeHeapMinimum)
	}
	// Keep 96 MiB of pointers live, far above the floor.
	big := make([][]*[4]int64, 96)
	for i := range big {
		big[i] = make([]*[4]int64, 1<<17)
		big[i][0] = new([4]int64)
	}
	runtime.GC()
	// The governor leaves the limit alone while it is within 1/32 of its
	// target (a collection during the allocations above may have set it
	// a little short): a limit L stays while |target-L| <= L/32, so
	// L >= target*32/33.
	within := func(target int64) int64 { return target * 32 / 33 }
	deadline := time.Now().Add(10 * time.Second)
	for g.Limit() < within(2*96<<20) && time.Now().Before(deadline) {
		time.Sleep(poll)
	}
	if got := g.Limit(); got < within(2*96<<20) {
		t.Errorf("with 96 MiB of pointers live the limit is %d MiB, want at least twice the live heap (GOGC=100's goal)", got>>20)
	}
	if p := gogc(); p != base {
		t.Errorf("with 96 MiB live GOGC is %d, want %d as at Start", p, base)
	}
	runtime.KeepAlive(big)
	big = nil
	// 256 MiB live without pointers (state arenas): the live heap plus
	// the Headroom, not GOGC's doubling.
	state := make([][]byte, 256)
	for i := range state {
		state[i] = make([]byte, 1<<20)
		state[i][0] = 1
	}
	runtime.GC()
	deadline = time.Now().Add(10 * time.Second)
	for g.Limit() < within(256<<20+Headroom) && time.Now().Before(deadline) {
		time.Sleep(poll)
	}
	if got := g.Limit(); got < within(256<<20+Headroom) || got > 256<<20+2*Headroom {
		t.Errorf("with 256 MiB live without pointers the limit is %d MiB, want the live heap and the Headroom (%d MiB), not GOGC's %d MiB", got>>20, (256<<20+Headroom)>>20, 2*256*5/4)
	}
	runtime.KeepAlive(state)
	g.Stop()
	g.Stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after Stop the limit is %d, want %d as before Start", got, before)
	}
	if p := gogc(); p != base {
		t.Errorf("after Stop GOGC is %d, want %d as before Start", p, base)
	}
}

// TestGovernorLeavesUsersGOGC checks that a GOGC set in the environment is
// the user's: the governor sets only the limit.
func TestGovernorLeavesUsersGOGC(t *testing.T) {
	t.Setenv("GOGC", "100")
	base := gogc()
	g := Start(DefaultFloor)
	defer g.Stop()
	runtime.GC()
	time.Sleep(3 * poll)
	if p := gogc(); p != base {
		t.Errorf("with GOGC set in the environment the governor changed it from %d to %d", base, p)
	}
}

// TestGovernorRecentPeak checks that GOGC is raised for the largest live
// heap of the last collections: right after a large live heap is dropped
// GOGC stays where it was, and it is raised once the collections the
// governor remembers have all found the heap small.
func TestGovernorRecentPeak(t *testing.T) {
	t.Setenv("GOGC", "")
	base := gogc()
	g := Start(DefaultFloor)
	defer g.Stop()
	big := make([][]*[4]int64, 32)
	for i := range big {
		big[i] = make([]*[4]int64, 1<<17)
	}
	gcSeen := func() { runtime.GC(); time.Sleep(2 * poll) }
	gcSeen()
	if p := gogc(); p != base {
		t.Fatalf("with 32 MiB live GOGC is %d, want %d", p, base)
	}
	runtime.KeepAlive(big)
	big = nil
	gcSeen()
	if p := gogc(); p != base {
		t.Errorf("right after 32 MiB live were dropped GOGC is %d, want %d until the governor's window forgets them", p, base)
	}
	for range len(g.recent) {
		gcSeen()
	}
	if p := gogc(); p <= base {
		t.Errorf("after %d collections of a small heap GOGC is %d, want it raised above %d", len(g.recent), p, base)
	}
}
