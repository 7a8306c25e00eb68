package join_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

var (
	ts3     = types.TimestampType(3)
	ktTypes = []types.Type{bigint, ts3}
	ktkt    = []types.Type{bigint, ts3, bigint, ts3}
)

func at(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }

// kt is an interval join of (k BIGINT, t TIMESTAMP(3)) rows on k with
// l.t BETWEEN r.t + lower AND r.t + upper.
func kt(typ join.Type, lower, upper time.Duration) join.IntervalSpec {
	return join.IntervalSpec{Type: typ, KeyTypes: []types.Type{bigint},
		Left:  join.Side{Types: ktTypes, Keys: []int{0}},
		Right: join.Side{Types: ktTypes, Keys: []int{0}}, LeftTime: 1, RightTime: 1, Lower: lower, Upper: upper}
}

// TestIntervalJoinBounds: a pair matches when l.t - r.t is within the
// bounds, whichever side arrives first.
func TestIntervalJoinBounds(t *testing.T) {
	tk := streamtest.Open(t, join.NewInterval(kt(join.Inner, -time.Second, 2*time.Second)), streamtest.Options{})
	tk.ProcessInput(1, r(ins, 1, at(10_000)))
	tk.ProcessInput(0, r(ins, 1, at(8_999)), r(ins, 1, at(9_000)), r(ins, 1, at(12_000)), r(ins, 1, at(12_001)), r(ins, 2, at(10_000)))
	expect(t, tk.Take(), ktkt,
		"+I[1, 1970-01-01 00:00:09.000, 1, 1970-01-01 00:00:10.000]",
		"+I[1, 1970-01-01 00:00:12.000, 1, 1970-01-01 00:00:10.000]")
	tk.ProcessInput(1, r(ins, 1, at(6_998)), r(ins, 1, at(6_999)))
	expect(t, tk.Take(), ktkt, "+I[1, 1970-01-01 00:00:08.999, 1, 1970-01-01 00:00:06.999]")
}

// TestIntervalJoinExpires: a row is kept until the watermark passes its
// time plus its side's bound; an outer row that matched nothing is then
// emitted padded, and the state is empty. The output watermark is held
// back by the larger bound.
func TestIntervalJoinExpires(t *testing.T) {
	tk := streamtest.Open(t, join.NewInterval(kt(join.Full, -time.Second, 2*time.Second)), streamtest.Options{})
	tk.ProcessInput(0, r(ins, 1, at(10_000)), r(ins, 3, at(10_000)))
	tk.ProcessInput(1, r(ins, 2, at(10_000)), r(ins, 3, at(9_500)))
	expect(t, tk.Take(), ktkt, "+I[3, 1970-01-01 00:00:10.000, 3, 1970-01-01 00:00:09.500]")
	// A left row at 10 s waits for right rows up to 11 s: it goes at a
	// watermark of 11.001 s.
	tk.Watermark(11_000)
	expect(t, tk.Take(), ktkt)
	if got := tk.OutputWatermark(); got != 9_000 {
		t.Fatalf("output watermark %d, want 9000 (held back by 2 s)", got)
	}
	tk.Watermark(11_001)
	expect(t, tk.Take(), ktkt, "+I[1, 1970-01-01 00:00:10.000, null, null]")
	// A right row at 10 s waits for left rows up to 12 s.
	tk.Watermark(12_001)
	expect(t, tk.Take(), ktkt, "+I[null, null, 2, 1970-01-01 00:00:10.000]")
	if n := tk.State().Stats().Entries; n != 0 {
		t.Fatalf("%d state entries left after every row expired", n)
	}
	// A row too late to wait for matches is padded at once.
	tk.ProcessInput(0, r(ins, 4, at(5_000)))
	expect(t, tk.Take(), ktkt, "+I[4, 1970-01-01 00:00:05.000, null, null]")
	tk.EndInputs(0, 1)
	if got := tk.OutputWatermark(); got != stream.MaxWatermark {
		t.Fatalf("output watermark %d at the end, want the maximum", got)
	}
}

// TestIntervalJoinRestores: rows kept at a checkpoint match after a
// restore into two tasks, and their expiry timers still fire there.
func TestIntervalJoinRestores(t *testing.T) {
	f := join.NewInterval(kt(join.Left, 0, time.Second))
	one := streamtest.Open(t, f, streamtest.Options{})
	keys := []int{1, 2, 3, 4, 5, 6}
	for _, k := range keys {
		one.ProcessInput(0, r(ins, k, at(1_000)))
	}
	h := one.Snapshot()
	for i := range 2 {
		tk := streamtest.Open(t, f, streamtest.Options{Index: i, Parallelism: 2, Restore: []state.Handle{h}, Files: one.Files()})
		var mine []string
		for _, k := range keys {
			kg := state.KeyGroupOf(state.AppendKey(nil, []types.Value{types.Int64(int64(k))}, []int{0}, []types.Type{bigint}), state.DefaultMaxParallelism)
			if state.TaskOf(kg, 2, state.DefaultMaxParallelism) != i {
				continue
			}
			mine = append(mine, fmt.Sprintf("+I[%d, 1970-01-01 00:00:01.000, null, null]", k))
			if k == 1 || k == 2 {
				tk.ProcessInput(1, r(ins, k, at(500)))
				expect(t, tk.Take(), ktkt, fmt.Sprintf("+I[%d, 1970-01-01 00:00:01.000, %d, 1970-01-01 00:00:00.500]", k, k))
				mine = mine[:len(mine)-1]
			}
		}
		tk.Watermark(1_001)
		got := streamtest.Format(tk.Take(), ktkt)
		slices.Sort(got)
		if !slices.Equal(got, mine) {
			t.Fatalf("task %d padded %v, want %v", i, got, mine)
		}
	}
}

// TestIntervalJoinMatchesBatchOracle: random rows of both sides, out of
// order within a bound the watermark allows for (so none is late), joined
// by every outer type: the output equals the batch interval join.
func TestIntervalJoinMatchesBatchOracle(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 9))
	for _, typ := range []join.Type{join.Inner, join.Left, join.Right, join.Full} {
		for _, b := range [][2]time.Duration{{-time.Second, time.Second}, {0, 3 * time.Second}, {-2 * time.Second, -time.Second}} {
			t.Run(fmt.Sprintf("%s/%s..%s", typ, b[0], b[1]), func(t *testing.T) {
				spec := kt(typ, b[0], b[1])
				const delay = 1500
				type ev struct {
					side int
					row  types.Row
				}
				var evs []ev
				var rows [2][]types.Row
				for i := range 200 {
					s := rng.IntN(2)
					tm := int64(i*100 + rng.IntN(delay))
					row := r(ins, rng.IntN(5), at(tm))
					evs = append(evs, ev{s, row})
					rows[s] = append(rows[s], row)
				}
				tk := streamtest.Open(t, join.NewInterval(spec), streamtest.Options{})
				var got []types.Row
				maxT := int64(0)
				for i, e := range evs {
					tk.ProcessInput(e.side, e.row)
					maxT = max(maxT, e.row.Fields[1].Timestamp().Millis)
					if i%7 == 0 {
						tk.Watermark(maxT - delay)
					}
					got = append(got, tk.Take()...)
				}
				tk.EndInputs(0, 1)
				got = append(got, tk.Take()...)
				g := streamtest.Format(got, ktkt)
				for i := range g {
					g[i] = g[i][2:]
				}
				slices.Sort(g)
				want := intervalOracle(spec, rows[0], rows[1])
				if !slices.Equal(g, want) {
					t.Fatalf("the result differs from the batch join\n got: %v\nwant: %v", g, want)
				}
			})
		}
	}
}

func intervalOracle(spec join.IntervalSpec, left, right []types.Row) []string {
	var out []types.Row
	nullRow := []types.Value{{}, {}}
	rm := make([]bool, len(right))
	for _, l := range left {
		any := false
		for j, rr := range right {
			d := l.Fields[1].Timestamp().Millis - rr.Fields[1].Timestamp().Millis
			if l.Fields[0].Int64() == rr.Fields[0].Int64() && d >= spec.Lower.Milliseconds() && d <= spec.Upper.Milliseconds() {
				any, rm[j] = true, true
				out = append(out, types.Row{Fields: append(slices.Clone(l.Fields), rr.Fields...)})
			}
		}
		if !any && spec.Type.LeftOuter() {
			out = append(out, types.Row{Fields: append(slices.Clone(l.Fields), nullRow...)})
		}
	}
	for j, rr := range right {
		if !rm[j] && spec.Type.RightOuter() {
			out = append(out, types.Row{Fields: append(slices.Clone(nullRow), rr.Fields...)})
		}
	}
	s := streamtest.Format(out, ktkt)
	for i := range s {
		s[i] = s[i][2:]
	}
	slices.Sort(s)
	return s
}
