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

// Dead letters in the sink's transactions (SourceSpec.DeadLettersInSink):
// a source task sends its dead letters to the one sink task that receives
// its rows, on the same channel as the rows and the barriers, so that they
// reach the writer after the rows read before them and before the barrier
// whose snapshot is past their records. The writer
// (connector.DeadLetterWriter) writes them in its open transaction, which
// that barrier's pre-commit hands out: the dead letters commit, or abort,
// with the output and the source positions of their checkpoint.

// routeDeadLettersToSink points source task t's dead letters at the sink
// task that receives its rows, when its source routes them to the
// pipeline's sink. The spec's validation ensures that the pipeline has one
// sink.
func routeDeadLettersToSink(t *sourceTask) {
	if t.src.spec.DeadLetter == nil || !t.src.spec.DeadLettersInSink {
		return
	}
	t.src.pipe.sinks[0].deadLetters = true
	if t.chain != nil {
		return // the task writes them to its chained writer (chain.go)
	}
	outs := t.outs[0]
	t.deadTxn = outs[t.pipeIndex%len(outs)]
}

// recoveryOnlySink adds the dead-letter sink of sr, whose dead letters go
// to the pipeline's sink, as a sink without tasks when the restored
// checkpoint holds pending commits of it: a checkpoint taken while its dead
// letters had transactions of their own (an earlier version, or the same
// job before its sink moved to the dead-letter topic's cluster). Recovery
// then commits them with its committer, and the checkpoints that follow
// carry them until their commit is durable, as any sink's.
func (a *attempt) recoveryOnlySink(pn string, sr *sourceRT) {
	if sr.spec.DeadLetter == nil || !sr.spec.DeadLettersInSink || a.restored == nil {
		return
	}
	id := pn + "/" + sr.spec.DeadLetter.Name
	if !slices.ContainsFunc(a.restored.Pending, func(c checkpoint.Committable) bool { return c.Sink == id }) {
		return
	}
	a.sinks = append(a.sinks, &sinkRT{id: id, index: len(a.sinks), spec: sr.spec.DeadLetter})
}

// sendDeadLettersToSink sends rows, the dead letters of the task's last
// batch, to the sink task whose transaction takes them, ahead of the next
// barrier.
func (t *sourceTask) sendDeadLettersToSink(ctx context.Context, rows []types.Row) error {
	return t.send(ctx, t.deadTxn, message{kind: msgDeadLetters, rows: rows, dl: t.src.spec.DeadLetter})
}

// checkDeadLetterWriter fails at once when a source routes its dead letters
// to this sink and w cannot take them.
func (t *sinkTask) checkDeadLetterWriter(w connector.Writer) error {
	if !t.sink.deadLetters {
		return nil
	}
	if _, ok := w.(connector.DeadLetterWriter); !ok {
		return fmt.Errorf("sink %q task %d: a source of the pipeline routes its dead letters to this sink (runtime.SourceSpec.DeadLettersInSink), but its writer (%T) cannot write them in its transactions (connector.DeadLetterWriter)",
			t.sink.id, t.index, w)
	}
	return nil
}

// writeDeadLetters writes the dead letters of m in w's open transaction.
func (t *sinkTask) writeDeadLetters(ctx context.Context, w connector.Writer, m message) error {
	if len(m.rows) == 0 {
		return nil
	}
	dw, ok := w.(connector.DeadLetterWriter)
	if !ok {
		return fmt.Errorf("sink %q task %d: received %d dead letters of %s, but its writer (%T) cannot write them in its transactions (connector.DeadLetterWriter)",
			t.sink.id, t.index, len(m.rows), m.dl.Name, w)
	}
	if t.openSince.Load() == 0 {
		t.openSince.Store(time.Now().UnixNano())
	}
	if err := dw.WriteDeadLetters(ctx, m.dl.Sink, m.rows); err != nil {
		return fmt.Errorf("sink %q task %d: writing %d dead letters of %s: %w", t.sink.id, t.index, len(m.rows), m.dl.Name, err)
	}
	return nil
}
