package runtime

import (
	"context"
	"fmt"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Watermarks are elements of the stream, as barriers are. A task reading
// a source with event time (SourceVertex.Watermark) generates them per
// split: a split's watermark is the largest candidate (the WATERMARK FOR
// expression) of its rows so far; a split without a row for the idle
// timeout is idle; the task's watermark is the minimum over its active
// splits, sent after each batch that advanced it (all idle: the task sends
// idle instead, so that downstream tasks do not wait for it). A reader
// whose batches mix splits says which row came from which
// (connector.RowSplitter); a reader without counts as one split.
//
// A task fed by channels keeps each channel's watermark; its own is the
// minimum over the channels that are not idle (a channel is idle from an
// idle element until its next row or watermark). When it advances, every
// operator of the chain gets Watermark (and emits what it completes), the
// exchanges flush, and the watermark goes on to every downstream task.
// Watermarks never go back: after a restore a task starts from the
// watermark it had at the checkpoint, and a source's splits from theirs,
// so rows count as late exactly as in an uninterrupted run.
//
// At the end of its input (io.EOF) a source task sends MaxWatermark,
// which fires everything that waits, before the end of the input and
// before the coordinator hears of it: all that output precedes the final
// barrier. A stop or a reassignment never sends it: their final barrier
// comes without, and the resumed run goes on where they stopped.

// wmGen generates a source task's watermarks.
type wmGen struct {
	t        *task
	spec     *WatermarkSpec
	splitter connector.RowSplitter
	ids      []string // the split ids; one more slot for rows of no known split
	wm       []int64  // per split: the largest candidate so far
	last     []int64  // per split: when its last row came (unix ms)
	active   []bool   // per split: not idle
	seen     []bool   // per batch: the split had a row
}

// newWMGen returns the generator of reader head h, with the split
// watermarks restored (restored: split id → watermark).
func newWMGen(t *task, spec *WatermarkSpec, h *readerHead, restored map[string]int64) *wmGen {
	n := len(h.splits)
	if h.splitter == nil {
		n = min(n, 1) // the reader counts as one split
	}
	g := &wmGen{t: t, spec: spec, splitter: h.splitter}
	now := nowMillis()
	for i := range n + 1 {
		w := stream.MinWatermark
		id := ""
		if i < n {
			if h.splitter != nil {
				id = h.splits[i].ID
				if r, ok := restored[id]; ok {
					w = r
				}
			} else if len(h.splits) > 0 {
				// One generator for every split: the least of theirs.
				w = stream.MaxWatermark
				for _, sp := range h.splits {
					r, ok := restored[sp.ID]
					if !ok {
						r = stream.MinWatermark
					}
					w = min(w, r)
				}
			}
		}
		g.ids = append(g.ids, id)
		g.wm = append(g.wm, w)
		g.last = append(g.last, now)
		// The extra slot (rows of no known split) counts once it has rows.
		g.active = append(g.active, i < n)
		g.seen = append(g.seen, false)
	}
	return g
}

// observe takes the watermark candidates of a batch of rows as the reader
// returned them.
func (g *wmGen) observe(rd *readerHead, rows []types.Row) error {
	extra := len(g.wm) - 1
	for i, row := range rows {
		ms, ok, err := g.spec.Generate(row)
		if err != nil {
			return rowError(rd.src.id, fmt.Errorf("watermark: %w", err), rd.positioner, i)
		}
		s := 0
		if g.splitter != nil {
			if s = g.splitter.RowSplit(i); s < 0 || s >= extra {
				s = extra
			}
		}
		g.seen[s] = true
		if ok && ms > g.wm[s] {
			g.wm[s] = ms
		}
	}
	now := nowMillis()
	for s, seen := range g.seen {
		if seen {
			g.last[s], g.active[s], g.seen[s] = now, true, false
		}
	}
	return nil
}

// current returns the task's watermark: the least over the active splits;
// idle when every split is.
func (g *wmGen) current(now int64) (wm int64, idle bool) {
	wm, idle = stream.MaxWatermark, true
	timeout := g.spec.IdleTimeout.Milliseconds()
	for s := range g.wm {
		// Strictly more than the timeout in whole milliseconds: the clock
		// is read in truncated milliseconds, and ">=" could turn a split
		// idle up to a millisecond before its timeout.
		if g.active[s] && timeout > 0 && now-g.last[s] > timeout {
			g.active[s] = false
		}
		if g.active[s] {
			wm, idle = min(wm, g.wm[s]), false
		}
	}
	return wm, idle
}

// nextIdle returns when the next active split turns idle (unix ms; 0:
// never).
func (g *wmGen) nextIdle() int64 {
	timeout := g.spec.IdleTimeout.Milliseconds()
	if timeout <= 0 {
		return 0
	}
	var at int64
	for s := range g.wm {
		if g.active[s] && (at == 0 || g.last[s]+timeout+1 < at) {
			at = g.last[s] + timeout + 1
		}
	}
	return at
}

// splitWatermarks returns the watermark of each split, for a checkpoint.
func (g *wmGen) splitWatermarks(splits []connector.SplitState) map[string]int64 {
	out := make(map[string]int64, len(splits))
	if g.splitter == nil {
		for _, sp := range splits {
			out[sp.ID] = g.wm[0]
		}
		return out
	}
	for s, id := range g.ids {
		if id != "" {
			out[id] = g.wm[s]
		}
	}
	return out
}

// chanWM is a channel head's view of its channels' watermarks.
type chanWM struct {
	wm   []int64
	idle []bool
}

// current returns the least watermark over the active channels, and
// whether all are idle.
func (c *chanWM) current() (wm int64, idle bool) {
	wm, idle = stream.MaxWatermark, true
	for i, w := range c.wm {
		if !c.idle[i] {
			wm, idle = min(wm, w), false
		}
	}
	return wm, idle
}

// watermark handles the task's watermark now being w, or all its inputs
// idle: an advance goes through the chain and downstream; idleness goes
// downstream once.
func (t *task) watermark(ctx context.Context, w int64, idle bool) error {
	if idle {
		if t.idleSent {
			return nil
		}
		t.idleSent = true
		if err := t.flushOuts(ctx); err != nil {
			return err
		}
		for _, o := range t.outs {
			if err := o.broadcast(ctx, message{kind: msgIdle}); err != nil {
				return err
			}
		}
		return nil
	}
	t.idleSent = false
	for w > t.wm {
		// An operator that fires at watermarks below w (stream.
		// WatermarkStepper) gets them one at a time, each handed on
		// downstream before the next.
		step := w
		for _, s := range t.ops {
			if st, ok := s.op.(stream.WatermarkStepper); ok {
				if x, ok := st.WatermarkStep(w); ok && x > t.wm && x < step {
					step = x
				}
			}
		}
		if err := t.advance(ctx, step); err != nil {
			return err
		}
	}
	return nil
}

// advance hands watermark w (above the task's) through the task's
// operators, then downstream.
func (t *task) advance(ctx context.Context, w int64) error {
	t.wm = w
	t.wmPub.Store(w)
	// An operator that holds the watermark back (an interval join, whose
	// rows may carry times up to its bound behind it: stream.
	// WatermarkHolder) hands the operators after it, and the task's
	// outputs, the held one.
	out := w
	for _, s := range t.ops {
		in := out
		if err := s.call("watermark", func() error { return s.op.Watermark(in, s.out) }); err != nil {
			return err
		}
		if h, ok := s.op.(stream.WatermarkHolder); ok {
			out = min(h.OutputWatermark(in), in)
		}
	}
	if err := t.flushOuts(ctx); err != nil {
		return err
	}
	if out <= t.wmOut {
		t.armTimer()
		return nil
	}
	t.wmOut = out
	if t.w != nil {
		// The writer has every row before it (the chain wrote them).
		if err := t.w.watermark(ctx, out); err != nil {
			return err
		}
	}
	for _, o := range t.outs {
		if err := o.broadcast(ctx, message{kind: msgWatermark, id: out}); err != nil {
			return err
		}
	}
	t.armTimer()
	return nil
}

// channelWatermark handles a watermark (or idleness) of channel c.
func (t *task) channelWatermark(ctx context.Context, c int, m message) error {
	cw := &t.ch.wms
	switch m.kind {
	case msgWatermark:
		cw.wm[c] = max(cw.wm[c], m.id)
		cw.idle[c] = false
	case msgIdle:
		cw.idle[c] = true
	}
	w, idle := cw.current()
	return t.watermark(ctx, w, idle)
}

// sourceWatermark sends the source task's watermark on after a batch (or a
// timer), when it advanced or every split turned idle.
func (t *task) sourceWatermark(ctx context.Context) error {
	g := t.rd.gen
	w, idle := g.current(nowMillis())
	return t.watermark(ctx, w, idle)
}

// idleTimerAt returns when the task must look at its splits' idleness
// again (0: never).
func (t *task) idleTimerAt() int64 {
	if t.rd == nil || t.rd.gen == nil {
		return 0
	}
	return t.rd.gen.nextIdle()
}
