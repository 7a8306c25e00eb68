package runtime

import (
	"context"
	"fmt"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// Exchanges. The tail of a task whose last vertex has edges out sends its
// rows over bounded channels (Config.ChannelCapacity messages each) to the
// tasks of the next vertices: each edge has one channel per (upstream
// task, downstream task) pair, and a downstream task with several input
// channels merges them (channelHead). Rows go by the edge's exchange:
// Forward to task u mod n, Single to task 0, Broadcast to every task, and
// Hash and Partition to the task of each row, in per-target buffers that
// go out when they hold exchangeBatch rows or exchangeBytes bytes, when
// the task has no more input waiting (after each batch of a reader), and
// before a barrier, a watermark or the end of the input, so that a batch
// does not shatter into tiny messages. Forward, Single and Broadcast send
// the batches they get, cut into messages of at most exchangeBytes. So a
// message holds at most exchangeBytes plus one row (types.Row.MemSize),
// and a channel ChannelCapacity messages: what is in flight between two
// tasks is bounded in bytes, whatever the rows' size or an operator's
// output batch (a window firing for 100,000 keys at once). Barriers,
// watermarks and the ends of the input and of the channel go to every
// downstream task.

// exchangeBatch bounds the rows of one message of a Hash or Partition
// exchange.
const exchangeBatch = 512

// exchangeBytes bounds the bytes of one message of any exchange (plus the
// row that crosses it).
const exchangeBytes = 256 << 10

// outEdge is one task's end of an edge.
type outEdge struct {
	t     *task
	to    *vertexRT
	kind  ExchangeKind
	chans []chan message // one per task of to
	// fwd is the task's number among the upstream tasks of to's input
	// (Forward: rows go to task fwd mod n).
	fwd    int
	part   func(types.Row, int) int
	key    func(types.Row, []byte) []byte
	maxP   int
	bufs   [][]types.Row // Hash, Partition: rows per target not sent yet
	bytes  []int         // Hash, Partition: the MemSize of bufs[k]
	keyBuf []byte
	// tf is the edge's transform (Edge.Transform), or nil.
	tf *edgeStage
}

// send sends rows on.
func (o *outEdge) send(ctx context.Context, rows []types.Row) error {
	arena := o.t.arena // the last operator's, when it cuts from one (opStage.cut)
	if o.tf != nil {
		var err error
		// Hash and Partition into more than one task copy the rows into
		// buffers of their own: the transform's output slice is the
		// edge's again after send. Otherwise the slice goes downstream,
		// in an arena when the transform recycles its memory (the
		// messages that carry it hand it back, sendCut).
		reuse := o.spread()
		rows, arena, err = o.tf.apply(o.t.rd, rows, reuse)
		if arena != nil {
			defer arena.release()
		}
		if err != nil || len(rows) == 0 {
			return err
		}
	}
	n := len(o.chans)
	switch {
	case o.kind == Forward:
		return o.sendCut(ctx, o.chans[o.fwd%n:o.fwd%n+1], rows, arena)
	case o.kind == Single || n == 1:
		return o.sendCut(ctx, o.chans[:1], rows, arena)
	case o.kind == Broadcast:
		return o.sendCut(ctx, o.chans, rows, arena)
	}
	for _, row := range rows {
		var k int
		if o.kind == Hash {
			o.keyBuf = o.key(row, o.keyBuf[:0])
			k = state.TaskOf(state.KeyGroupOf(o.keyBuf, o.maxP), n, o.maxP)
		} else if k = o.part(row, n); k < 0 || k >= n {
			return fmt.Errorf("pipeline partitioner returned %d for %d sink tasks", k, n)
		}
		o.bufs[k] = append(o.bufs[k], row)
		o.bytes[k] += row.MemSize()
		if len(o.bufs[k]) >= exchangeBatch || o.bytes[k] >= exchangeBytes {
			if err := o.flushTo(ctx, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// spread reports whether the edge copies each row into the buffer of its
// target task (Hash and Partition into more than one task).
func (o *outEdge) spread() bool {
	return (o.kind == Hash || o.kind == Partition) && len(o.chans) > 1
}

// flushTo sends the rows buffered for task k.
func (o *outEdge) flushTo(ctx context.Context, k int) error {
	b := o.bufs[k]
	// The downstream keeps the rows: the next ones get a new slice.
	o.bufs[k] = make([]types.Row, 0, min(cap(b), exchangeBatch))
	o.bytes[k] = 0
	return o.t.send(ctx, o.chans[k], message{kind: msgData, rows: b})
}

// sendCut sends rows to each of chans, in messages of at most
// exchangeBytes (plus the row that crosses it). A message's rows are
// capped slices of rows: a downstream that appends to them cannot
// overwrite the next message's. When the rows are in an arena (a
// recycling edge transform's), each message holds it until the task that
// gets it processed it.
func (o *outEdge) sendCut(ctx context.Context, chans []chan message, rows []types.Row, arena *slabArena) error {
	for len(rows) > 0 {
		n, size := 0, 0
		for n < len(rows) && size < exchangeBytes {
			size += rows[n].MemSize()
			n++
		}
		m := message{kind: msgData, rows: rows[:n:n], arena: arena}
		for _, ch := range chans {
			if arena != nil {
				arena.hold()
			}
			if err := o.t.send(ctx, ch, m); err != nil {
				return err
			}
		}
		rows = rows[n:]
	}
	return nil
}

// flush sends every buffered row.
func (o *outEdge) flush(ctx context.Context) error {
	for k, b := range o.bufs {
		if len(b) > 0 {
			if err := o.flushTo(ctx, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// barrier sends barrier b to every task of the edge, with pos (group
// positions) to the task that receives this task's rows.
func (o *outEdge) barrier(ctx context.Context, b message, pos []taskPositions) error {
	to := -1
	if len(pos) > 0 {
		to = 0
		if o.kind == Forward {
			to = o.fwd % len(o.chans)
		}
	}
	for k, ch := range o.chans {
		m := b
		if k == to {
			m.pos = pos
		}
		if err := o.t.send(ctx, ch, m); err != nil {
			return err
		}
	}
	return nil
}

// broadcast sends m to every task of the edge.
func (o *outEdge) broadcast(ctx context.Context, m message) error {
	for _, ch := range o.chans {
		if err := o.t.send(ctx, ch, m); err != nil {
			return err
		}
	}
	return nil
}
