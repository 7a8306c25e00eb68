package join_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/heap"
	"github.com/streamsql/streamsql/state/lsm"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// TestWindowJoinBufferMatchesNestedLoops: a FULL window join of HOP sides,
// with rows buffered before the state, checkpoints and restores between
// rows (the buffer written into the state at each), duplicates, NULL keys
// and late rows, gives the pairs a nested loop over each window's rows
// gives, on both state backends.
func TestWindowJoinBufferMatchesNestedLoops(t *testing.T) {
	for _, b := range []struct {
		name string
		kind state.Kind
	}{{"hashmap", heap.Kind{}}, {"rocksdb", lsm.Kind{}}} {
		t.Run(b.name, func(t *testing.T) {
			hop := assigned(window.Hop, 4*time.Second, 2*time.Second)
			spec := join.WindowSpec{Type: join.Full, KeyTypes: []types.Type{bigint}, Left: hop, Right: hop}
			f := join.NewWindow(spec)
			tk := streamtest.Open(t, f, streamtest.Options{Backend: b.kind})
			rng := rand.New(rand.NewPCG(7, 7))
			type in struct {
				side int
				key  any
				ms   int64
			}
			windows := map[int64][]in{} // the rows of each window, not late
			wm, clock := stream.MinWatermark, int64(0)
			var want []string
			var got []types.Row
			fire := func(upTo int64) {
				for end, rows := range windows {
					if end-1 > upTo {
						continue
					}
					delete(windows, end)
					win := fmt.Sprintf("%s, %s, %s", ts(end-4000), ts(end), ts(end-1))
					side := func(x in) string { return fmt.Sprintf("%v, %s, %s", fmtKey(x.key), ts(x.ms), win) }
					const none = "null, null, null, null, null"
					matched := make([]bool, len(rows))
					for _, l := range rows {
						if l.side != 0 {
							continue
						}
						any := false
						for j, r := range rows {
							if r.side == 1 && l.key != nil && r.key == l.key {
								any, matched[j] = true, true
								want = append(want, "+I["+side(l)+", "+side(r)+"]")
							}
						}
						if !any {
							want = append(want, "+I["+side(l)+", "+none+"]")
						}
					}
					for j, r := range rows {
						if r.side == 1 && !matched[j] {
							want = append(want, "+I["+none+", "+side(r)+"]")
						}
					}
				}
			}
			for range 1500 {
				switch c := rng.IntN(100); {
				case c < 88:
					x := in{side: rng.IntN(2), ms: clock + rng.Int64N(5000) - 2000}
					if k := rng.IntN(6); k < 5 {
						x.key = int64(k)
					}
					tk.ProcessInput(x.side, r(ins, x.key, at(x.ms)))
					ends, _ := hop.Assign.Ends(nil, x.ms)
					for _, e := range ends {
						if wm == stream.MinWatermark || e-1 > wm {
							windows[e] = append(windows[e], x)
						}
					}
					clock += rng.Int64N(40)
				case c < 97:
					if next := clock - 3000; next > wm {
						wm = next
						tk.Watermark(wm)
						fire(wm)
					}
				default:
					h := tk.Snapshot()
					got = append(got, tk.Take()...)
					tk = streamtest.Open(t, f, streamtest.Options{Backend: b.kind, Restore: []state.Handle{h}, Files: tk.Files(), Watermark: wm})
				}
			}
			tk.Watermark(stream.MaxWatermark)
			fire(stream.MaxWatermark)
			got = append(got, tk.Take()...)
			if len(want) < 200 {
				t.Fatalf("only %d pairs: the test is too small", len(want))
			}
			g := sorted(got, ktWinBoth)
			slices.Sort(want)
			if !slices.Equal(g, want) {
				t.Fatalf("%d rows, want %d:\n  %s\nwant:\n  %s", len(g), len(want), strings.Join(g, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

func fmtKey(k any) string {
	if k == nil {
		return "null"
	}
	return fmt.Sprint(k)
}

func ts(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000") }

// TestWindowJoinBufferAddsToState: a row buffered after a checkpoint wrote
// the same row into the state counts twice.
func TestWindowJoinBufferAddsToState(t *testing.T) {
	spec := join.WindowSpec{Type: join.Inner, KeyTypes: []types.Type{bigint},
		Left: assigned(window.Tumble, 10*time.Second, 0), Right: assigned(window.Tumble, 10*time.Second, 0)}
	tk := streamtest.Open(t, join.NewWindow(spec), streamtest.Options{})
	tk.ProcessInput(0, r(ins, 1, at(1_000)))
	tk.Snapshot()
	tk.ProcessInput(0, r(ins, 1, at(1_000)))
	tk.ProcessInput(1, r(ins, 1, at(2_000)))
	tk.Watermark(stream.MaxWatermark)
	w := "1970-01-01 00:00:00.000, 1970-01-01 00:00:10.000, 1970-01-01 00:00:09.999"
	pair := "+I[1, 1970-01-01 00:00:01.000, " + w + ", 1, 1970-01-01 00:00:02.000, " + w + "]"
	expect(t, tk.Take(), ktWinBoth, pair, pair)
}
