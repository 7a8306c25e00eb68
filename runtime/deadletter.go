package runtime

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/types"
)

// Dead letters. A reader that sets records aside (connector.DeadLetterReader)
// hands them to its task after each batch and before each barrier; the task
// sends them, before the barrier that follows their records, either to the
// source's dead-letter sink (SourceVertex.DeadLetter: a sink task per
// source task, fed by that source task alone, which takes part in
// checkpoints as any sink), or — SourceSpec.DeadLettersInSink — to the
// one sink task that receives the source task's rows: its writer (fused in
// the task, or over the same channel as the rows and barriers) writes them
// in its open transaction (connector.DeadLetterWriter), which the barrier's
// pre-commit hands out, so that the dead letters commit, or abort, with
// the output and the source positions of their checkpoint.

// routeDeadLettersToSink points the dead letters of reader task t, when
// its source routes them to its sink, at the sink task that receives its
// rows: its own fused writer, or the one edge out of its chain into a sink.
func (a *attempt) routeDeadLettersToSink(t *task) error {
	if t.rd == nil || !t.rd.src.v.DeadLettersInSink {
		return nil
	}
	if t.w != nil {
		t.w.sink.deadLetters = true
		return nil
	}
	if len(t.outs) != 1 || t.outs[0].to.sink == nil {
		return fmt.Errorf("%w: source %q routes its dead letters to its sink (DeadLettersInSink), but its rows do not go to one sink over one edge",
			ErrInvalidSpec, t.rd.src.id)
	}
	o := t.outs[0]
	o.to.sink.deadLetters = true
	t.deadTxn = o.chans[o.fwd%len(o.chans)]
	return nil
}

// recoveryOnlySink adds the dead-letter sink of source vertex vr, whose
// dead letters go to the pipeline's sink, as a sink without tasks when the
// restored checkpoint holds pending commits of it: a checkpoint taken
// while its dead letters had transactions of their own (an earlier
// version, or the same job before its sink moved to the dead-letter
// topic's cluster). Recovery then commits them with its committer, and the
// checkpoints that follow carry them until their commit is durable, as any
// sink's.
func (a *attempt) recoveryOnlySink(vr *vertexRT) {
	sv := vr.v.Source
	if sv.DeadLetter == nil || !sv.DeadLettersInSink || a.restored == nil {
		return
	}
	id := deadLetterID(vr.id, sv.DeadLetter.Name)
	if !slices.ContainsFunc(a.restored.Pending, func(c checkpoint.Committable) bool { return c.Sink == id }) {
		return
	}
	a.sinks = append(a.sinks, &sinkRT{id: id, index: len(a.sinks), spec: sv.DeadLetter})
}

// sendDeadLetters sends the dead letters of the reader's last batch (or of
// an interrupted Read) on, ahead of the next barrier.
func (t *task) sendDeadLetters(ctx context.Context, rows []types.Row) error {
	if len(rows) == 0 {
		return nil
	}
	src := t.rd.src
	switch {
	case src.v.DeadLettersInSink && t.w != nil:
		return t.w.writeDeadLetters(ctx, message{kind: msgDeadLetters, rows: rows, dl: src.v.DeadLetter})
	case t.deadTxn != nil:
		return t.send(ctx, t.deadTxn, message{kind: msgDeadLetters, rows: rows, dl: src.v.DeadLetter})
	case t.dead == nil:
		return fmt.Errorf("source %q task %d: the reader set %d records aside as dead letters, but the source has no dead-letter sink (runtime.SourceSpec.DeadLetter)",
			src.id, t.rd.index, len(rows))
	}
	return t.send(ctx, t.dead, message{kind: msgData, rows: rows})
}

// writeDeadLetters writes the dead letters of m in the writer's open
// transaction.
func (w *writerTail) writeDeadLetters(ctx context.Context, m message) error {
	if len(m.rows) == 0 {
		return nil
	}
	dw, ok := w.w.(connector.DeadLetterWriter)
	if !ok {
		return fmt.Errorf("sink %q task %d: received %d dead letters of %s, but its writer (%T) cannot write them in its transactions (connector.DeadLetterWriter)",
			w.sink.id, w.index, len(m.rows), m.dl.Name, w.w)
	}
	if w.openSince.Load() == 0 {
		w.openSince.Store(time.Now().UnixNano())
	}
	if err := dw.WriteDeadLetters(ctx, m.dl.Sink, m.rows); err != nil {
		return fmt.Errorf("sink %q task %d: writing %d dead letters of %s: %w", w.sink.id, w.index, len(m.rows), m.dl.Name, err)
	}
	return nil
}
