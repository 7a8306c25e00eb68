// Package memlimit keeps the Go runtime's soft memory limit
// (debug.SetMemoryLimit) a little above what the collector's own pacing
// needs, never below a floor: `streamsql run`'s default memory policy.
//
// With GOGC=100 alone, the heap may grow to twice what the last collection
// found live, and the process's memory holds more than that: the heap
// allocated while a collection marks (at hundreds of thousands of records a
// second, several megabytes), freed spans the runtime has not yet returned
// to the system, and its own metadata. A small job then sits well above
// twice its live heap (the stateless benchmark job: 10–14 MB live, 35–60
// MB of runtime memory). A fixed soft limit cuts that, but a job that keeps more
// live than the limit makes the collector run almost all the time (Go caps
// it at about half the CPU). The governor avoids both: after each
// collection it sets the limit to the larger of the floor and 5/4 of the
// pacer's heap goal (live × (1 + GOGC/100)), so that a small job is held at
// the floor and a large one keeps GOGC's pacing, with only what grows past
// a quarter above its goal trimmed.
//
// A job whose live heap is mostly free of pointers — a stateful job's
// state in the heap backend, whose arenas live as long as the job — gets
// less: GOGC's headroom on the scannable part of the live heap only, plus
// a fixed Headroom for the rest (the live heap + 5/4 × scannable × GOGC/100
// + Headroom, when that is below the goal above). Marking a pointer-free
// object costs a collection next to nothing, so GOGC's doubling of it would
// buy few collections for much memory: a job with 200 MB of state would be
// let reach 500 MB; it gets about 220 MB and a collection every 20 MiB
// allocated.
//
// A job whose live heap is a few megabytes (a stateless pipeline: the
// rows of the batches in flight and the fetched bytes) would, under GOGC
// alone, collect every few megabytes allocated — over a hundred
// collections per million Kafka records, each with its write barriers and
// assists — while the floor's memory went unused. The governor raises
// GOGC for such a job so that the heap goal is at least MinHeap(floor)
// (a third of the floor): GOGC's share of a small live heap, not the
// floor, decided how often a small job collected. A job whose goal under
// GOGC is already above it keeps GOGC as it is. The live heap it goes by
// is the largest of the last eight collections, so that a job whose live
// heap swings keeps GOGC rather than getting a multiple of a low sample as
// its next goal. The governor leaves GOGC alone when the GOGC environment
// variable is set.
package memlimit

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// DefaultFloor is the limit the governor never goes below: 30 MiB. The
// limit counts the runtime's memory, not the binary's own pages (about
// 14 MB of the benchmark program's are resident); 30 MiB holds the
// stateless benchmark job (filter and projection from Kafka to Kafka, 2 M
// records) at 44–46 MB peak RSS, where GOGC alone let it reach 46–76 MB,
// with CPU per record within the noise (BENCHMARKS.md, "Memory").
const DefaultFloor = 30 << 20

// poll is how often the governor looks for a finished collection.
const poll = 50 * time.Millisecond

// Headroom is what the governor lets a job whose live heap is mostly free
// of pointers allocate between collections, beyond GOGC's share of its
// scannable heap. It was 64 MiB; once the join and Top-N operators and the
// graph's readers allocated a third less per event, 40 MiB gave them
// about as many collections as before for 23–28 MiB less peak RSS
// (Nexmark q19, q20, q9; BENCHMARKS.md, "Memory"). Since the edges and
// operators reuse their rows (a collection of a pointer-free state is a
// small share of the CPU), 20 MiB: 17–25 MB less peak RSS on q4, q9, q19
// and q20 at 2·10⁶ events, CPU within the noise (BENCHMARKS.md, "Memory").
const Headroom = 20 << 20

// MinHeap returns the smallest heap goal the governor lets GOGC give a
// job under floor: a third of it (10 MiB under DefaultFloor). The
// runtime's memory runs to about twice the heap goal on a small job that
// allocates its fetches in large blocks (freed spans wait to be reused or
// returned), and the rest of the floor is for stacks, the runtime's own
// metadata and the bursts the soft limit trims.
func MinHeap(floor int64) int64 { return floor / 3 }

// runtimeHeapMinimum is the Go runtime's smallest heap goal at GOGC=100,
// which it scales with GOGC: 4 MiB × GOGC/100.
const runtimeHeapMinimum = 4 << 20

// GCPercent returns the GOGC that gives a heap of live bytes the goal
// minHeap, when base (GOGC's setting) gives it less: live × (1 + p/100)
// ≈ minHeap, and no more than the p whose scaled runtime minimum
// (4 MiB × p/100) is minHeap, so that a job starting with next to nothing
// live gets minHeap too, not more. A negative base (GOGC=off), or a live
// heap whose goal under base reaches minHeap, keeps base.
func GCPercent(minHeap int64, live uint64, base int) int {
	if base < 0 || float64(live)*(1+float64(base)/100) >= float64(minHeap) {
		return base
	}
	most := int(minHeap * 100 / runtimeHeapMinimum)
	if live == 0 {
		return max(base, most)
	}
	p := int(math.Ceil((float64(minHeap)/float64(live) - 1) * 100))
	return max(base, min(p, most))
}

// Target returns the limit for a heap whose last collection found live
// bytes live, scan of them scannable (objects that hold pointers), under
// GOGC gogc: the larger of floor and the smaller of 5/4 × live × (1 +
// gogc/100) and live + 5/4 × scan × gogc/100 + Headroom. A negative gogc
// (GOGC=off) leaves only the floor.
func Target(floor int64, live, scan uint64, gogc int) int64 {
	if gogc < 0 {
		return floor
	}
	scan = min(scan, live)
	goal := float64(live) * (1 + float64(gogc)/100) * 5 / 4
	goal = min(goal, float64(live)+float64(scan)*float64(gogc)/100*5/4+Headroom)
	if goal >= math.MaxInt64/2 {
		return math.MaxInt64
	}
	return max(floor, int64(goal))
}

// Governor adjusts the soft memory limit after each collection; Start
// makes one.
type Governor struct {
	floor int64
	prev  int64 // the limit before Start, restored by Stop
	// base is GOGC at Start, restored by Stop; gcPercent is what the
	// governor set last. adjust is false when GOGC is the user's (the
	// environment variable is set): then the governor reads GOGC at each
	// update and never sets it.
	base      int
	gcPercent int
	adjust    bool
	// recent holds the live heap of the last len(recent) collections the
	// governor saw, GOGC is raised for the largest: a job whose live heap
	// swings (a stateless pipeline with large batches in flight) keeps
	// GOGC when it was above MinHeap's share lately, so that a low sample
	// does not let the next goal be a multiple of a high one.
	recent  [8]uint64
	nseen   int
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	samples []metrics.Sample
	cycles  uint64
	limit   int64
}

// Start sets the soft memory limit to Target, and GOGC to GCPercent
// (unless the GOGC environment variable is set), for the live heap now,
// and starts a goroutine that keeps them so after every collection,
// until Stop.
func Start(floor int64) *Governor {
	g := &Governor{floor: floor, prev: debug.SetMemoryLimit(-1), stop: make(chan struct{}), done: make(chan struct{}),
		samples: []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"}, {Name: "/gc/gogc:percent"},
			{Name: "/gc/scan/heap:bytes"}}}
	metrics.Read(g.samples)
	g.base = gogcOf(g.samples[2])
	g.gcPercent = g.base
	g.adjust = os.Getenv("GOGC") == "" && g.base >= 0
	g.update(true)
	go g.run()
	return g
}

// Limit returns the limit the governor set last.
func (g *Governor) Limit() int64 { return debug.SetMemoryLimit(-1) }

func (g *Governor) run() {
	defer close(g.done)
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
			g.update(false)
		}
	}
}

// update sets the limit for the last collection's live heap, when a
// collection finished since the last update (or force).
func (g *Governor) update(force bool) {
	metrics.Read(g.samples)
	cycles := g.samples[0].Value.Uint64()
	if !force && cycles == g.cycles {
		return
	}
	g.cycles = cycles
	gogc := g.base
	if !g.adjust {
		gogc = gogcOf(g.samples[2])
	}
	live := g.samples[1].Value.Uint64()
	scan := live // unknown: all of it, GOGC's own goal
	if g.samples[3].Value.Kind() == metrics.KindUint64 {
		scan = g.samples[3].Value.Uint64()
	}
	limit := Target(g.floor, live, scan, gogc)
	// Small moves are not worth a call into the runtime.
	if d := limit - g.limit; force || d > g.limit/32 || -d > g.limit/32 {
		g.limit = limit
		debug.SetMemoryLimit(limit)
	}
	if g.adjust {
		g.recent[g.nseen%len(g.recent)] = live
		g.nseen++
		peak := live
		for _, l := range g.recent {
			peak = max(peak, l)
		}
		// Small moves are not worth it either; back to base always.
		if p := GCPercent(MinHeap(g.floor), peak, g.base); p != g.gcPercent && (p == g.base || force || 16*abs(p-g.gcPercent) > g.gcPercent) {
			g.gcPercent = p
			debug.SetGCPercent(p)
		}
	}
}

// gogcOf reads a /gc/gogc:percent sample: GOGC, 100 when unknown, -1 when
// off.
func gogcOf(s metrics.Sample) int {
	if s.Value.Kind() != metrics.KindUint64 {
		return 100
	}
	return int(int64(s.Value.Uint64()))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Stop ends the goroutine and restores the limit that was set before
// Start. It may be called more than once.
func (g *Governor) Stop() {
	g.once.Do(func() {
		close(g.stop)
		<-g.done
		debug.SetMemoryLimit(g.prev)
		if g.adjust {
			debug.SetGCPercent(g.base)
		}
	})
}
