package runtime

import (
	"context"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/stream"

	"golang.org/x/sync/errgroup"
)

// channelHead is the head of a task fed by channels: one per upstream task
// of each edge into the task's first vertex. Several channels are merged by
// forwarders, one goroutine each; under EXACTLY_ONCE a forwarder that
// passed barrier N blocks until the task has every channel's barrier N and
// took its checkpoint (alignment, in bounded memory: the channels stay
// bounded). One channel needs no merging and no alignment (the task takes
// its checkpoint at the barrier before it reads on): the task reads it
// directly, one goroutine hand-off per batch fewer.
type channelHead struct {
	t       *task
	inputs  []chan message
	inputOf []int // the operator input each channel feeds
	release []chan struct{}
	merged  chan message
	wms     chanWM // each channel's watermark
}

// start starts the forwarders of a head with several channels.
func (h *channelHead) start(g *errgroup.Group, ctx context.Context) {
	h.wms = chanWM{wm: make([]int64, len(h.inputs)), idle: make([]bool, len(h.inputs))}
	for i := range h.wms.wm {
		h.wms.wm[i] = stream.MinWatermark
	}
	if len(h.inputs) == 1 {
		h.merged = h.inputs[0]
		return
	}
	capacity := h.t.a.j.spec.Config.ChannelCapacity
	h.merged = make(chan message, capacity)
	align := h.t.a.mode == jobconfig.ExactlyOnce
	if align {
		h.release = make([]chan struct{}, len(h.inputs))
		for k := range h.release {
			h.release[k] = make(chan struct{}, 1)
		}
	}
	for k, in := range h.inputs {
		g.Go(func() error {
			for {
				var m message
				select {
				case m = <-in:
				case <-ctx.Done():
					return ctx.Err()
				}
				m.input = int32(k)
				select {
				case h.merged <- m:
				case <-ctx.Done():
					return ctx.Err()
				}
				switch {
				case m.kind == msgEOF:
					return nil
				case m.kind == msgBarrier && align:
					select {
					case <-h.release[k]:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
			}
		})
	}
}

// releaseAll lets every forwarder blocked after an aligned barrier go on.
func (h *channelHead) releaseAll() {
	for _, r := range h.release {
		r <- struct{}{}
	}
}

// next implements head.
func (h *channelHead) next(ctx context.Context) (message, error) {
	t := h.t
	for {
		if t.timerDue() {
			return message{kind: msgTimer}, nil
		}
		select {
		case m := <-h.merged:
			return m, nil
		case <-t.wake:
			if err := t.housekeeping(ctx); err != nil {
				return message{}, err
			}
		case <-ctx.Done():
			return message{}, ctx.Err()
		}
	}
}
