package runtime

import (
	"context"
	"fmt"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// Chaining. When every row of a source task goes to one sink task and that
// sink task gets rows from no other source task (the pipeline has one sink,
// does not re-partition by key unless both sides have one task, and has as
// many sink tasks as source tasks), the sink task needs no goroutine and no
// channel of its own: the source task runs its writer in its loop (read →
// transform → write, and at a barrier snapshot → pre-commit), as Flink
// chains operators. What the sink task does is the same code either way
// (sinkTask.write, sinkTask.preCommit); only who calls it differs. A
// dead-letter sink keeps its own task and channel.

// chainable reports whether pipeline pr's one sink can run in its source
// tasks' loops (see above).
func (a *attempt) chainable(pr *pipeRT) bool {
	if a.j.spec.Config.DisableChaining || len(pr.sinks) != 1 {
		return false
	}
	n := max(pr.sinks[0].spec.Parallelism, 1)
	return n == pr.sourceTasks && (pr.p.Partition == nil || n == 1)
}

// chainedWriter is the writer of the sink task a source task runs in its
// own loop.
type chainedWriter struct {
	t        *sinkTask
	w        connector.Writer
	listener connector.CheckpointListener
	notified int64
}

// openChained opens the writer of sink task st for source task t, alongside
// the reader t opens itself; wait returns it (or the open's error).
func (t *sourceTask) openChained(ctx context.Context, st *sinkTask) (wait func() (*chainedWriter, error)) {
	type result struct {
		w   connector.Writer
		err error
	}
	ch := make(chan result, 1)
	// Opening a transactional writer takes round trips to the broker; the
	// reader opens meanwhile. The goroutine ends when Open returns, which
	// it does when ctx ends at the latest.
	go func() {
		w, err := st.open(ctx)
		ch <- result{w, err}
	}()
	return func() (*chainedWriter, error) {
		r := <-ch
		if r.err != nil {
			return nil, r.err
		}
		cw := &chainedWriter{t: st, w: r.w}
		cw.listener, _ = r.w.(connector.CheckpointListener)
		if cw.listener != nil {
			t.wakeOnComplete.Store(true)
		}
		return cw, nil
	}
}

// write writes rows as the sink task would on receiving them.
func (c *chainedWriter) write(ctx context.Context, rows []types.Row) error {
	return c.t.write(ctx, c.w, rows)
}

// writeDeadLetters writes rows, dead letters of the source task for its
// dead-letter sink dl, in the writer's open transaction
// (SourceSpec.DeadLettersInSink), as the sink task does on receiving them
// ahead of the barrier.
func (c *chainedWriter) writeDeadLetters(ctx context.Context, dl *SinkSpec, rows []types.Row) error {
	return c.t.writeDeadLetters(ctx, c.w, message{kind: msgDeadLetters, rows: rows, dl: dl})
}

// barrier pre-commits the writer's work of checkpoint id with pos, the
// source task's group positions (nil: none), as the sink task does on
// receiving the barrier from its one input.
func (c *chainedWriter) barrier(ctx context.Context, id int64, pos *taskPositions) error {
	var ps []taskPositions
	if pos != nil {
		ps = []taskPositions{*pos}
	}
	return c.t.preCommit(ctx, c.w, id, ps)
}

// notify tells the writer, when it listens, about the newest completed
// checkpoint it has not been told about.
func (c *chainedWriter) notify(ctx context.Context, done int64) error {
	if c.listener == nil || done <= c.notified {
		return nil
	}
	c.notified = done
	if err := c.listener.CheckpointComplete(ctx, done); err != nil {
		return fmt.Errorf("sink %q task %d: checkpoint %d complete: %w", c.t.sink.id, c.t.index, done, err)
	}
	return nil
}

// close closes the writer, after the commits of the final checkpoint are
// acknowledged when the job ends normally (connector.Writer.Close).
func (c *chainedWriter) close() error {
	if err := c.w.Close(); err != nil {
		return fmt.Errorf("sink %q task %d: close: %w", c.t.sink.id, c.t.index, err)
	}
	return nil
}

// interrupt cancels the task's blocked Read, if any, or wakes it from
// waiting at the end of its input, so that its loop runs once more.
func (t *sourceTask) interrupt() {
	t.mu.Lock()
	if t.cancelRead != nil {
		t.cancelRead()
	}
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}
