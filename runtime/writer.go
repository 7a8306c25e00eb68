package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/types"
)

type sinkRT struct {
	id        string
	index     int
	spec      *SinkSpec
	committer connector.Committer
	health    connector.HealthReporter // the committer's, when it reports
	timeout   time.Duration            // transaction timeout declared by the committer
	tasks     []*writerTail
	// deadLetters is set when a source routes its dead letters to this
	// sink's writers (SourceSpec.DeadLettersInSink).
	deadLetters bool
}

// writerTail is the tail of a task that writes a sink: one sink task's
// writer.
type writerTail struct {
	a     *attempt
	sink  *sinkRT
	index int
	m     *member

	w connector.Writer
	// The writer's optional capabilities, found once when it opens.
	listener  connector.CheckpointListener
	positions connector.GroupPositionWriter
	ender     connector.InputEnder
	wmWriter  connector.WatermarkWriter
	notified  int64

	// openSince is when the task first wrote after its last pre-commit
	// (unix nanoseconds; 0: nothing written since): the start of the
	// writer's open transaction, whose age the coordinator guards.
	openSince atomic.Int64
	// Read by Status and the coordinator from other goroutines (mu).
	mu     sync.Mutex
	bytes  connector.ByteCounter
	health connector.HealthReporter
	// delivered counts the writer's acknowledged records, when it does
	// (connector.DeliveryCounter); deliveryTimeout is its delivery
	// timeout (connector.DeliveryTimeouter). preCommitted is the rows in
	// at the last successful pre-commit: the records out of writers that
	// do not count deliveries.
	delivered       connector.DeliveryCounter
	deliveryTimeout time.Duration
	preCommitted    atomic.Int64
}

// open opens the writer and finds its capabilities.
func (w *writerTail) open(ctx context.Context) error {
	a := w.a
	info := connector.TaskInfo{Job: a.j.spec.Name, Table: w.sink.spec.Name, Sink: w.sink.id, Index: w.index,
		Parallelism: len(w.sink.tasks), Logger: a.j.log.With("sink", w.sink.id, "task", w.index),
		Commits: sinkTracker{a.tracker, w.sink.index}, RestoredCheckpoint: a.restoredID,
		MaxUncommitted: maxUncommitted(a.j.spec.Config.Checkpoint)}
	wr, err := w.sink.spec.Sink.Open(ctx, info)
	if err != nil {
		return fmt.Errorf("sink %q task %d: open: %w", w.sink.id, w.index, err)
	}
	w.mu.Lock()
	w.bytes, _ = wr.(connector.ByteCounter)
	w.health, _ = wr.(connector.HealthReporter)
	w.writerCounters(wr)
	w.mu.Unlock()
	w.listener, _ = wr.(connector.CheckpointListener)
	w.ender, _ = wr.(connector.InputEnder)
	w.wmWriter, _ = wr.(connector.WatermarkWriter)
	w.positions, _ = wr.(connector.GroupPositionWriter)
	if w.sink.deadLetters {
		if _, ok := wr.(connector.DeadLetterWriter); !ok {
			_ = wr.Close() // the check's error is the one to report
			return fmt.Errorf("sink %q task %d: a source of the pipeline routes its dead letters to this sink (runtime.SourceSpec.DeadLettersInSink), but its writer (%T) cannot write them in its transactions (connector.DeadLetterWriter)",
				w.sink.id, w.index, wr)
		}
	}
	w.w = wr
	if w.listener != nil {
		// A reader's loop blocked in Read is woken to tell it at once.
		w.m.t.wakeOnComplete.Store(true)
	}
	return nil
}

// close closes the writer, after the commits of the final checkpoint are
// acknowledged when the job ends normally (connector.Writer.Close).
func (w *writerTail) close() error {
	if err := w.w.Close(); err != nil {
		return fmt.Errorf("sink %q task %d: close: %w", w.sink.id, w.index, err)
	}
	return nil
}

// write writes rows.
func (w *writerTail) write(ctx context.Context, rows []types.Row) error {
	w.m.recordsIn.Add(int64(len(rows)))
	if len(rows) > 0 && w.openSince.Load() == 0 {
		w.openSince.Store(time.Now().UnixNano())
	}
	if err := w.w.Write(ctx, rows); err != nil {
		return fmt.Errorf("sink %q task %d: write: %w", w.sink.id, w.index, err)
	}
	return nil
}

// endInput tells the writer, when it wants to know, that its input has
// ended for good (connector.InputEnder).
func (w *writerTail) endInput(ctx context.Context) error {
	if w.ender == nil {
		return nil
	}
	if err := w.ender.EndInput(ctx); err != nil {
		return fmt.Errorf("sink %q task %d: end of input: %w", w.sink.id, w.index, err)
	}
	return nil
}

// watermark tells the writer, when it wants to know, that the watermark
// of its rows advanced to wm (connector.WatermarkWriter).
func (w *writerTail) watermark(ctx context.Context, wm int64) error {
	if w.wmWriter == nil {
		return nil
	}
	if err := w.wmWriter.Watermark(ctx, wm); err != nil {
		return fmt.Errorf("sink %q task %d: watermark: %w", w.sink.id, w.index, err)
	}
	return nil
}

// notify tells the writer, when it listens, about the newest completed
// checkpoint it has not been told about.
func (w *writerTail) notify(ctx context.Context, done int64) error {
	if w.listener == nil || done <= w.notified {
		return nil
	}
	w.notified = done
	if err := w.listener.CheckpointComplete(ctx, done); err != nil {
		return fmt.Errorf("sink %q task %d: checkpoint %d complete: %w", w.sink.id, w.index, done, err)
	}
	return nil
}

// preCommit pre-commits the writer's work of checkpoint id, with pos (the
// group positions of the source tasks whose rows all come here) when the
// writer takes them, and returns the committables for the task's
// acknowledgement.
func (w *writerTail) preCommit(ctx context.Context, id int64, final bool, pos []taskPositions) ([]item, error) {
	a := w.a
	fi := FaultInfo{Checkpoint: id, Sink: w.sink.id, Task: w.index, Final: final}
	if err := a.j.fault(ctx, BeforePreCommit, fi); err != nil {
		return nil, err
	}
	var cs []connector.Committable
	var err error
	if pw := w.positions; pw != nil && len(pos) > 0 && acceptsAll(pw, pos) {
		ps := make([]connector.GroupPositions, len(pos))
		for i, p := range pos {
			ps[i] = p.p
			// Before the ack: the checkpoint cannot complete, and so no
			// direct commit of these positions can start, until it is set.
			a.readers[p.task].inTxn.Store(true)
		}
		cs, err = pw.PreCommitWithPositions(ctx, id, ps)
		if err != nil && cs != nil && errors.Is(err, connector.ErrGroupPositions) {
			a.j.stats.groupCommitFailed()
			a.j.log.Warn("consumer group positions are not committed with the sink's transaction; the job goes on",
				"sink", w.sink.id, "task", w.index, "checkpoint", id, "err", err)
			err = nil
		}
	} else {
		cs, err = w.w.PreCommit(ctx, id)
	}
	if err != nil {
		return nil, fmt.Errorf("sink %q task %d: pre-commit for checkpoint %d: %w", w.sink.id, w.index, id, err)
	}
	if len(cs) > 0 && w.sink.committer == nil {
		return nil, fmt.Errorf("sink %q task %d returned committables but its sink is not a connector.TwoPhaseSink", w.sink.id, w.index)
	}
	w.preCommitted.Store(w.m.recordsIn.Load())
	// The transaction's age counts from its first write, not from now: a
	// broker's transaction timeout starts there (docs/exactly-once.md, "Timeout").
	born := time.Now()
	if ns := w.openSince.Swap(0); ns != 0 {
		born = time.Unix(0, ns)
	}
	if to := w.sink.timeout; len(cs) > 0 && to > 0 && time.Since(born) > to*4/5 {
		return nil, fmt.Errorf("sink %q task %d: pre-commit for checkpoint %d: its transaction began %s ago, past 4/5 of the sink's transaction timeout %s (the other side may already have aborted it): failing over to the last completed checkpoint",
			w.sink.id, w.index, id, time.Since(born).Round(time.Millisecond), to)
	}
	items := make([]item, len(cs))
	for i, c := range cs {
		items[i] = item{c: checkpoint.Committable{Key: checkpoint.Key{Sink: w.sink.id, Run: a.run, Checkpoint: id, Task: w.index, Seq: i}, Data: c},
			sink: w.sink, born: born}
	}
	if len(cs) > 0 {
		a.tracker.add(w.sink.index, id, len(cs))
	}
	if err := a.j.fault(ctx, AfterPreCommit, fi); err != nil {
		return nil, err
	}
	return items, nil
}

func acceptsAll(w connector.GroupPositionWriter, pos []taskPositions) bool {
	for _, p := range pos {
		if !w.AcceptsGroupPositions(p.p) {
			return false
		}
	}
	return true
}

func sortItems(items []item) {
	slices.SortFunc(items, func(x, y item) int {
		return cmp.Or(cmp.Compare(x.sink.index, y.sink.index), x.c.Key.Compare(y.c.Key))
	})
}

// maxUncommitted bounds the transactions a sink task holds that are not
// committed (connector.TaskInfo.MaxUncommitted): the open one, one per
// checkpoint in flight, one per completed checkpoint waiting for its
// commits (triggering pauses at MaxUncommitted of them, carried work
// included), and the work carried over failed checkpoints (at most one
// per failure in a row that the job tolerates, plus the failure that
// fails the job).
func maxUncommitted(cp jobconfig.CheckpointConfig) int {
	return 1 + cp.MaxConcurrent + cp.MaxUncommitted + cp.TolerableFailed + 1
}
