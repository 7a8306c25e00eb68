package window_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/heap"
	"github.com/streamsql/streamsql/state/lsm"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

var backends = []struct {
	name string
	kind state.Kind
}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}}

// oracle computes window results the slow way: each row not late goes to
// every window (by Spec.Ends) its time falls in.
type oracle struct {
	spec    window.Spec
	windows map[[2]int64]map[string][2]int64 // (end) -> key -> (count, sum)
	wm      int64
	fired   []string
}

func newOracle(sp window.Spec) *oracle {
	return &oracle{spec: sp, windows: map[[2]int64]map[string][2]int64{}, wm: stream.MinWatermark}
}

func (o *oracle) add(k string, v, ms int64) {
	ends, first := o.spec.Ends(nil, ms)
	if o.wm != stream.MinWatermark && first-1 <= o.wm {
		return // late
	}
	for _, e := range ends {
		w := o.windows[[2]int64{e}]
		if w == nil {
			w = map[string][2]int64{}
			o.windows[[2]int64{e}] = w
		}
		c := w[k]
		w[k] = [2]int64{c[0] + 1, c[1] + v}
	}
}

func (o *oracle) watermark(wm int64) {
	o.wm = wm
	for e, w := range o.windows {
		if e[0]-1 > wm {
			continue
		}
		start := o.spec.Start(e[0])
		for k, c := range w {
			o.fired = append(o.fired, fmt.Sprintf("+I[%s, %d, %d, %s, %s, %s]", k, c[0], c[1], ts(start), ts(e[0]), ts(e[0]-1)))
		}
		delete(o.windows, e)
	}
}

func ts(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")
}

// TestSlicedWindowsMatchWholeWindows: HOP and CUMULATE windows computed
// from slices (with the buffer in front of the state, its flushes,
// checkpoints and restores between rows, and late rows) give the results
// of adding each row to each of its windows, on both state backends.
func TestSlicedWindowsMatchWholeWindows(t *testing.T) {
	cases := []struct {
		name string
		spec window.Spec
	}{
		{"hop", spec(window.Hop, 10*time.Second, 2*time.Second)},
		{"hop-offset", func() window.Spec {
			sp := spec(window.Hop, 6*time.Second, 3*time.Second)
			sp.Offset = time.Second
			return sp
		}()},
		{"cumulate", spec(window.Cumulate, 10*time.Second, 2*time.Second)},
		{"tumble", spec(window.Tumble, 4*time.Second, 0)},
	}
	for _, b := range backends {
		for _, c := range cases {
			t.Run(b.name+"/"+c.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(len(c.name))))
				o := newOracle(c.spec)
				got, _ := randomRun{steps: 2000, keys: 7, values: 100, spread: 9000, behind: 3000, tick: 60, lag: 4000}.
					run(t, window.New(c.spec), b.kind, rng, o)
				if len(o.fired) < 100 {
					t.Fatalf("only %d results: the test is too small", len(o.fired))
				}
				expect(t, got, o.fired...)
			})
		}
	}
}

// TestSlicedWindowBufferFills: more keys than the buffer holds in one
// slice: it writes them into the state when full, and every key's window
// is right.
func TestSlicedWindowBufferFills(t *testing.T) {
	sp := spec(window.Hop, 4*time.Second, 2*time.Second)
	tk := streamtest.Open(t, window.New(sp), streamtest.Options{})
	const keys = 40000
	var rows []types.Row
	for i := range keys {
		rows = append(rows, row(fmt.Sprint(i), int64(i), 1*s))
	}
	tk.Process(rows...)
	tk.Process(rows...)
	tk.Process(row("0", 5, 2*s)) // the next slice
	tk.Watermark(stream.MaxWatermark)
	got := tk.Take()
	if len(got) != 2*keys+1 {
		t.Fatalf("%d results, want %d", len(got), 2*keys+1)
	}
	for _, r := range got {
		k, n, sum := r.Fields[0].Str(), r.Fields[1].Int64(), r.Fields[2].Int64()
		var i int64
		if _, err := fmt.Sscan(k, &i); err != nil {
			t.Fatal(err)
		}
		wantN, wantSum := int64(2), 2*i
		if k == "0" {
			switch r.Fields[4].Timestamp().Millis {
			case 4 * s:
				wantN, wantSum = 3, 5
			case 6 * s:
				wantN, wantSum = 1, 5
			}
		}
		if n != wantN || sum != wantSum {
			t.Fatalf("%s: count %d sum %d, want %d %d", streamtest.Format([]types.Row{r}, outTypes), n, sum, wantN, wantSum)
		}
	}
}

// TestSlicedWindowOrder: a window's slices merge in time order, whatever
// the order their rows arrived in: LAST_VALUE takes the later slice's
// row, FIRST_VALUE the earlier's, as Flink's merge of slices does; within
// a slice, rows count in arrival order, also when the buffer was written
// into the state between them.
func TestSlicedWindowOrder(t *testing.T) {
	sp := spec(window.Hop, 4*time.Second, 2*time.Second)
	sp.Calls = []agg.Call{
		{Func: agg.FirstValue, Arg: 1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt()},
		{Func: agg.LastValue, Arg: 1, Filter: -1, ArgType: types.BigInt(), Result: types.BigInt()},
	}
	tk := streamtest.Open(t, window.New(sp), streamtest.Options{})
	tk.Process(row("a", 2, 3*s), row("a", 1, 1*s))
	tk.Snapshot()                // the buffer goes into the state
	tk.Process(row("a", 4, 1*s)) // after the state's row of the slice
	tk.Watermark(4*s - 1)
	expect(t, tk.Take(),
		"+I[a, 1, 4, 1969-12-31 23:59:58.000, "+t0+"02"+end+", "+t0+"01.999]",
		"+I[a, 1, 2, "+t0+"00"+end+", "+t0+"04"+end+", "+t0+"03.999]")
}

// TestSlicedWindowRestoresVersion1: a HOP window aggregation's checkpoint
// from before slicing (whole windows in the "windows" table) restores:
// each of its windows fires once, its rows merged with those of the
// slices the restored task adds, and then leaves the state.
func TestSlicedWindowRestoresVersion1(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			sp := spec(window.Hop, 4*time.Second, 2*time.Second)
			f := window.New(sp)
			old := streamtest.Open(t, f, streamtest.Options{Backend: b.kind})
			// What version 1 wrote for ("a", 5) at 1 s and ("b", 7) at 3 s:
			// the row in each of its windows.
			acc := agg.NewAccumulators(sp.Calls)
			v1 := old.State().Map("windows")
			put := func(k string, v, at int64, ends ...int64) {
				key := state.AppendKey(nil, []types.Value{types.Str(k)}, []int{0}, sp.KeyTypes)
				kg := state.KeyGroupOf(key, state.DefaultMaxParallelism)
				acc.Reset()
				if err := acc.Apply(row(k, v, at).Fields, false, nil); err != nil {
					t.Fatal(err)
				}
				for _, e := range ends {
					if err := v1.Put(kg, binary.BigEndian.AppendUint64(nil, uint64(e)), key, acc.Append(nil)); err != nil {
						t.Fatal(err)
					}
				}
			}
			put("a", 5, 1*s, 2*s, 4*s)
			put("b", 7, 3*s, 4*s, 6*s)
			h := old.Snapshot()
			tk := streamtest.Open(t, f, streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: old.Files()})
			tk.Process(row("a", 10, 3*s), row("b", 1, 5*s))
			tk.Watermark(stream.MaxWatermark)
			expect(t, tk.Take(),
				"+I[a, 1, 5, 1969-12-31 23:59:58.000, "+t0+"02"+end+", "+t0+"01.999]",
				"+I[a, 2, 15, "+t0+"00"+end+", "+t0+"04"+end+", "+t0+"03.999]",
				"+I[a, 1, 10, "+t0+"02"+end+", "+t0+"06"+end+", "+t0+"05.999]",
				"+I[b, 1, 7, "+t0+"00"+end+", "+t0+"04"+end+", "+t0+"03.999]",
				"+I[b, 2, 8, "+t0+"02"+end+", "+t0+"06"+end+", "+t0+"05.999]",
				"+I[b, 1, 1, "+t0+"04"+end+", "+t0+"08"+end+", "+t0+"07.999]")
			n := 0
			for kg := range state.DefaultMaxParallelism {
				_ = tk.State().Map("windows").Keys(kg, func([]byte) bool { n++; return true })
			}
			if n != 0 {
				t.Fatalf("%d version 1 windows left in the state after they fired", n)
			}
		})
	}
}

// sessionOracle computes SESSION windows the slow way: each key's sessions
// as intervals, merged when a row's [t, t+gap) overlaps or touches them.
type sessionOracle struct {
	gap      int64
	sessions map[string][][4]int64 // start, end, count, sum
	wm       int64
	fired    []string
}

func (o *sessionOracle) add(k string, v, ms int64) {
	start, end := ms, ms+o.gap
	if o.wm != stream.MinWatermark && end-1 <= o.wm {
		return // late
	}
	n, sum := int64(1), v
	var kept [][4]int64
	for _, x := range o.sessions[k] {
		if x[0] <= end && x[1] >= start {
			start, end, n, sum = min(start, x[0]), max(end, x[1]), n+x[2], sum+x[3]
		} else {
			kept = append(kept, x)
		}
	}
	o.sessions[k] = append(kept, [4]int64{start, end, n, sum})
}

func (o *sessionOracle) watermark(wm int64) {
	o.wm = wm
	for k, xs := range o.sessions {
		var kept [][4]int64
		for _, x := range xs {
			if x[1]-1 <= wm {
				o.fired = append(o.fired, fmt.Sprintf("+I[%s, %d, %d, %s, %s, %s]", k, x[2], x[3], ts(x[0]), ts(x[1]), ts(x[1]-1)))
			} else {
				kept = append(kept, x)
			}
		}
		o.sessions[k] = kept
	}
}

// TestSessionsMatchOracle: SESSION windows kept in the cache of decoded
// sessions (written back at checkpoints, with restores between rows,
// merges and late rows) give the sessions of the rows, on both backends.
func TestSessionsMatchOracle(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			sp := spec(window.Session, 2*time.Second, 0)
			rng := rand.New(rand.NewPCG(3, 4))
			o := &sessionOracle{gap: 2 * s, sessions: map[string][][4]int64{}, wm: stream.MinWatermark}
			got, _ := randomRun{steps: 2000, keys: 9, values: 100, spread: 6000, behind: 2000, tick: 300, lag: 3000}.
				run(t, window.New(sp), b.kind, rng, o)
			if len(o.fired) < 100 {
				t.Fatalf("only %d sessions: the test is too small", len(o.fired))
			}
			expect(t, got, o.fired...)
		})
	}
}

// TestSessionCacheFills: more keys than the session cache holds: it writes
// them back when full, and every key's session is right.
func TestSessionCacheFills(t *testing.T) {
	tk := streamtest.Open(t, window.New(spec(window.Session, 10*time.Second, 0)), streamtest.Options{})
	const keys = 40000
	var rows []types.Row
	for i := range keys {
		rows = append(rows, row(fmt.Sprint(i), int64(i), 1*s))
	}
	tk.Process(rows...)
	for i := range rows {
		rows[i].Fields[2] = types.TimestampValue(types.Timestamp{Millis: 5 * s})
	}
	tk.Process(rows...)
	tk.Watermark(stream.MaxWatermark)
	got := tk.Take()
	if len(got) != keys {
		t.Fatalf("%d sessions, want %d", len(got), keys)
	}
	for _, r := range got {
		var i int64
		if _, err := fmt.Sscan(r.Fields[0].Str(), &i); err != nil {
			t.Fatal(err)
		}
		if n, sum, st, e := r.Fields[1].Int64(), r.Fields[2].Int64(), r.Fields[3].Timestamp().Millis, r.Fields[4].Timestamp().Millis; n != 2 || sum != 2*i || st != 1*s || e != 15*s {
			t.Fatalf("%s, want count 2, sum %d, [1 s, 15 s)", streamtest.Format([]types.Row{r}, outTypes), 2*i)
		}
	}
}

// randomRun is a random run of a window aggregation task: steps steps,
// each a row (seven in eight; its key among keys, its value below
// values, its time spread ahead of a clock, up to behind it: out of
// order, some late; the clock moves by up to tick), a watermark lagging
// the clock by lag, or a checkpoint and a restore of the task.
type randomRun struct {
	steps, keys                       int
	values, spread, behind, tick, lag int64
}

// runOracle is what a random run tells its rows and watermarks to.
type runOracle interface {
	add(k string, v, ms int64)
	watermark(wm int64)
}

// run drives a task of f on backend kind through the run, telling o the
// same rows and watermarks, ends the input with the maximum watermark, and
// returns every row the tasks emitted and the last task.
func (r randomRun) run(t *testing.T, f stream.Factory, kind state.Kind, rng *rand.Rand, o runOracle) ([]types.Row, *streamtest.Task) {
	t.Helper()
	tk := streamtest.Open(t, f, streamtest.Options{Backend: kind})
	var got []types.Row
	wm, clock := stream.MinWatermark, int64(0)
	for range r.steps {
		switch n := rng.IntN(200); {
		case n < 175:
			k := fmt.Sprintf("k%d", rng.IntN(r.keys))
			v := rng.Int64N(r.values)
			ms := clock + rng.Int64N(r.spread) - r.behind
			tk.Process(row(k, v, ms))
			o.add(k, v, ms)
			clock += rng.Int64N(r.tick)
		case n < 197:
			if next := clock - r.lag; next > wm {
				wm = next
				tk.Watermark(wm)
				o.watermark(wm)
			}
		default:
			h := tk.Snapshot()
			got = append(got, tk.Take()...)
			tk = streamtest.Open(t, f, streamtest.Options{Backend: kind, Restore: []state.Handle{h}, Files: tk.Files(), Watermark: wm})
		}
	}
	tk.Watermark(stream.MaxWatermark)
	o.watermark(stream.MaxWatermark)
	return append(got, tk.Take()...), tk
}
