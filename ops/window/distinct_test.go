package window_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// distinctSpec is spec's window with the calls COUNT(DISTINCT v) and
// SUM(DISTINCT v): the output has the shape outTypes describes.
func distinctSpec(kind window.Kind, size, slide time.Duration) window.Spec {
	sp := spec(kind, size, slide)
	sp.Calls = []agg.Call{
		{Func: agg.Count, Arg: 1, Filter: -1, Distinct: true, ArgType: types.BigInt(), Result: types.BigInt().NotNullable()},
		{Func: agg.Sum, Arg: 1, Filter: -1, Distinct: true, ArgType: types.BigInt(), Result: types.BigInt()},
	}
	return sp
}

// distinctOracle computes COUNT(DISTINCT v) and SUM(DISTINCT v) per key
// and window the slow way: each row not late goes into the set of values
// of every window its time falls in.
type distinctOracle struct {
	spec    window.Spec
	windows map[int64]map[string]map[int64]bool // end -> key -> values
	wm      int64
	fired   []string
}

func (o *distinctOracle) add(k string, v, ms int64) {
	ends, first := o.spec.Ends(nil, ms)
	if o.wm != stream.MinWatermark && first-1 <= o.wm {
		return // late
	}
	for _, e := range ends {
		if o.windows[e] == nil {
			o.windows[e] = map[string]map[int64]bool{}
		}
		if o.windows[e][k] == nil {
			o.windows[e][k] = map[int64]bool{}
		}
		o.windows[e][k][v] = true
	}
}

func (o *distinctOracle) watermark(wm int64) {
	o.wm = wm
	for e, w := range o.windows {
		if e-1 > wm {
			continue
		}
		start := o.spec.Start(e)
		for k, vals := range w {
			sum := int64(0)
			for v := range vals {
				sum += v
			}
			o.fired = append(o.fired, fmt.Sprintf("+I[%s, %d, %d, %s, %s, %s]", k, len(vals), sum, ts(start), ts(e), ts(e-1)))
		}
		delete(o.windows, e)
	}
}

// TestDistinctWindows: COUNT(DISTINCT) and SUM(DISTINCT) in TUMBLE, HOP
// and CUMULATE windows (a value repeated within a window, also across
// what would be two of its slices, counts once), with the buffer in front
// of the state, checkpoints and restores between rows, and late rows,
// give the oracle's results on both state backends; a fired window's
// values are dropped from the state.
func TestDistinctWindows(t *testing.T) {
	cases := []struct {
		name string
		spec window.Spec
	}{
		{"tumble", distinctSpec(window.Tumble, 4*time.Second, 0)},
		{"hop", distinctSpec(window.Hop, 10*time.Second, 2*time.Second)},
		{"cumulate", distinctSpec(window.Cumulate, 10*time.Second, 2*time.Second)},
	}
	for _, b := range backends {
		for _, c := range cases {
			t.Run(b.name+"/"+c.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(2, uint64(len(c.name))))
				o := &distinctOracle{spec: c.spec, windows: map[int64]map[string]map[int64]bool{}, wm: stream.MinWatermark}
				// Values below 12: they repeat within a window.
				got, tk := randomRun{steps: 3000, keys: 5, values: 12, spread: 9000, behind: 3000, tick: 60, lag: 4000}.
					run(t, window.New(c.spec), b.kind, rng, o)
				if len(o.fired) < 100 {
					t.Fatalf("only %d results: the test is too small", len(o.fired))
				}
				expect(t, got, o.fired...)
				if n := stateEntries(t, tk.State()); n != 0 {
					t.Errorf("%d state entries left after every window fired", n)
				}
			})
		}
	}
}

// stateEntries counts the entries of the window aggregation's tables in
// every key group.
func stateEntries(t *testing.T, b state.Backend) int {
	t.Helper()
	n := 0
	for _, name := range []string{"windows", "sessions", "distinct0", "distinct1"} {
		m := b.Map(name)
		for kg := range state.DefaultMaxParallelism {
			var keys [][]byte
			if err := m.Keys(kg, func(k []byte) bool { keys = append(keys, append([]byte(nil), k...)); return true }); err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				if err := m.RangeKey(kg, k, func(_, _ []byte) bool { n++; return true }); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return n
}

// TestDistinctWindowFilterAndNulls: a DISTINCT call's FILTER and NULL
// arguments keep values out of its set, so a value first seen where the
// filter fails still counts where it passes.
func TestDistinctWindowFilterAndNulls(t *testing.T) {
	sp := distinctSpec(window.Tumble, 10*time.Second, 0)
	sp.Calls[0].Filter = 3 // COUNT(DISTINCT v) FILTER (WHERE $3)
	tk := streamtest.Open(t, window.New(sp), streamtest.Options{})
	r := func(v types.Value, ms int64, pass bool) types.Row {
		return types.Row{Fields: []types.Value{types.Str("a"), v, types.TimestampValue(types.Timestamp{Millis: ms}), types.Bool(pass)}}
	}
	tk.Process(r(types.Int64(5), 1*s, false), r(types.Value{}, 2*s, true), r(types.Int64(5), 3*s, true), r(types.Int64(5), 4*s, true), r(types.Int64(7), 5*s, false))
	tk.Watermark(stream.MaxWatermark)
	// COUNT(DISTINCT v) FILTER: {5}; SUM(DISTINCT v): 5 + 7.
	expect(t, tk.Take(), "+I[a, 1, 12, "+t0+"00"+end+", "+t0+"10"+end+", "+t0+"09.999]")
}

// TestDistinctSessions: COUNT(DISTINCT) and SUM(DISTINCT) in SESSION
// windows whose rows arrive out of order, so that sessions grow backwards
// and rows bridge two sessions into one (their sets of values merge, and
// a value seen in both counts once), with checkpoints and restores
// between rows, give the results of sessions computed from the sorted
// rows, on both state backends, and leave no state behind.
func TestDistinctSessions(t *testing.T) {
	const gap = 1000
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			sp := distinctSpec(window.Session, 0, 0)
			sp.Gap = gap * time.Millisecond
			f := window.New(sp)
			tk := streamtest.Open(t, f, streamtest.Options{Backend: b.kind})
			type in struct {
				k     string
				v, ms int64
			}
			var rows []in
			var got []types.Row
			for i := range 1500 {
				r := in{fmt.Sprintf("k%d", rng.IntN(4)), rng.Int64N(8), rng.Int64N(400000)}
				rows = append(rows, r)
				tk.Process(row(r.k, r.v, r.ms))
				if i%200 == 199 {
					h := tk.Snapshot()
					got = append(got, tk.Take()...)
					tk = streamtest.Open(t, f, streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: tk.Files()})
				}
			}
			tk.Watermark(stream.MaxWatermark)
			got = append(got, tk.Take()...)
			// The sessions, from each key's rows sorted by time.
			byKey := map[string][]in{}
			for _, r := range rows {
				byKey[r.k] = append(byKey[r.k], r)
			}
			var want []string
			for k, rs := range byKey {
				slices.SortFunc(rs, func(a, b in) int { return cmp.Compare(a.ms, b.ms) })
				first := 0
				for i := range rs {
					if i < len(rs)-1 && rs[i+1].ms-rs[i].ms <= gap {
						continue
					}
					vals := map[int64]bool{}
					for _, r := range rs[first : i+1] {
						vals[r.v] = true
					}
					sum := int64(0)
					for v := range vals {
						sum += v
					}
					start, end := rs[first].ms, rs[i].ms+gap
					want = append(want, fmt.Sprintf("+I[%s, %d, %d, %s, %s, %s]", k, len(vals), sum, ts(start), ts(end), ts(end-1)))
					first = i + 1
				}
			}
			if len(want) < 50 {
				t.Fatalf("only %d sessions: the test is too small", len(want))
			}
			expect(t, got, want...)
			if n := stateEntries(t, tk.State()); n != 0 {
				t.Errorf("%d state entries left after every session fired", n)
			}
		})
	}
}
