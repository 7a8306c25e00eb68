package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/connector"
)

// sourceRT is a source vertex of a run.
type sourceRT struct {
	id    string
	table string
	par   int
	v     *SourceVertex
	vr    *vertexRT
	// oneWriter is set when every row of each of the source's tasks goes
	// to one writer task (vertexRT.oneWriter): only then can a writer
	// commit the source's group positions with its own work.
	oneWriter bool
}

type barrierReq struct {
	id    int64
	final bool
}

// readerHead is the head of a task that reads a source: it reads batches,
// and injects barriers between Reads.
type readerHead struct {
	t      *task
	src    *sourceRT
	index  int // among the source's tasks
	global int // among the run's readers
	m      *member
	splits []connector.SplitState

	r connector.Reader
	// checked is set once the first batch was checked (columns.go).
	checked bool
	// The reader's optional capabilities, found once when it opens.
	listener  connector.CheckpointListener
	positions connector.GroupPositionReader
	recycler  connector.RowRecycler // only when the chain's first operator copies
	// nested is recycler when it reuses nested values too and the first
	// operator copies those (OperatorVertex.CopiesNested); nil otherwise.
	nested      connector.NestedRowRecycler
	bad         connector.BadRowHandler
	deadLetters connector.DeadLetterReader
	positioner  connector.RowPositioner
	splitter    connector.RowSplitter
	// gen generates the task's watermarks when the source has event time.
	gen *wmGen

	mu         sync.Mutex
	reqs       []barrierReq
	readCtx    context.Context
	cancelRead context.CancelFunc
	// Read by Status from other goroutines (mu).
	bytes      connector.ByteCounter
	lags       connector.LagReporter
	badRecords connector.BadRecordCounter

	eof      bool // Read returned io.EOF
	ended    bool // the final barrier went out: the next element is msgEOF
	notified int64

	// inTxn is set (for good) by the sink task that stored this task's
	// group positions with its pre-committed work: from then on they are
	// never committed directly, which could move the group back behind a
	// later transaction's commit.
	inTxn atomic.Bool
	// groupPending holds the group positions of checkpoints whose commits
	// are not yet durably acknowledged, oldest first (task goroutine only).
	groupPending []pendingPositions
	groupDone    int64
}

type pendingPositions struct {
	id int64
	p  connector.GroupPositions
}

// open opens the reader on the task's splits and finds its capabilities.
func (h *readerHead) open(ctx context.Context) error {
	a := h.t.a
	info := connector.TaskInfo{Job: a.j.spec.Name, Table: h.src.table, Index: h.index,
		Parallelism: h.src.par, Logger: a.j.log.With("source", h.src.id, "task", h.index),
		RestoredCheckpoint: a.restoredID}
	r, err := h.src.v.Source.Open(ctx, info, h.splits)
	if err != nil {
		return fmt.Errorf("source %q task %d: open: %w", h.src.id, h.index, err)
	}
	h.r = r
	h.mu.Lock()
	h.bytes, _ = r.(connector.ByteCounter)
	h.lags, _ = r.(connector.LagReporter)
	h.badRecords, _ = r.(connector.BadRecordCounter)
	h.mu.Unlock()
	h.listener, _ = r.(connector.CheckpointListener)
	h.positions, _ = r.(connector.GroupPositionReader)
	h.bad, _ = r.(connector.BadRowHandler)
	h.deadLetters, _ = r.(connector.DeadLetterReader)
	h.positioner, _ = r.(connector.RowPositioner)
	h.splitter, _ = r.(connector.RowSplitter)
	if ws := h.src.v.Watermark; ws != nil {
		var restored map[string]int64
		if a.restored != nil {
			restored = a.restored.Watermarks[h.src.id]
		}
		h.gen = newWMGen(h.t, ws, h, restored)
	}
	if rr, ok := r.(connector.RowRecycler); ok && h.firstCopies() {
		h.recycler = rr
		if nr, ok := r.(connector.NestedRowRecycler); ok && h.firstCopiesNested() {
			h.nested = nr
		}
	}
	return nil
}

// firstCopies reports whether the operator right after the reader
// promises that its output shares no memory with its input
// (OperatorVertex.Copies, Pipeline.TransformCopies), or, with no
// operator, the transforms of all the edges out of it (Edge.Transform).
func (h *readerHead) firstCopies() bool {
	if len(h.t.members) < 2 {
		return h.t.edgesCopy(false)
	}
	op := h.t.members[1].v.v.Operator
	return op != nil && op.Copies
}

// firstCopiesNested reports whether the operator right after the reader
// also promises that its output refers to no nested value of its input
// (OperatorVertex.CopiesNested).
func (h *readerHead) firstCopiesNested() bool {
	if len(h.t.members) < 2 {
		return h.t.edgesCopy(true)
	}
	op := h.t.members[1].v.v.Operator
	return op != nil && op.Copies && op.CopiesNested
}

func (h *readerHead) close() error {
	h.mu.Lock()
	if h.cancelRead != nil {
		h.cancelRead()
	}
	h.mu.Unlock()
	_ = h.r.Close() // a reader's close has nothing to lose
	return nil
}

// trigger asks the task to inject barrier id after its current batch.
func (h *readerHead) trigger(id int64, final bool) {
	h.mu.Lock()
	h.reqs = append(h.reqs, barrierReq{id, final})
	h.mu.Unlock()
	h.t.interrupt()
}

// interrupt cancels a blocked Read.
func (h *readerHead) interrupt() {
	h.mu.Lock()
	if h.cancelRead != nil {
		h.cancelRead()
	}
	h.mu.Unlock()
}

// next implements head: the next barrier requested, else the next batch
// Read returns. A Read blocked when a barrier is requested (or a due timer,
// or a completed checkpoint a listening writer must hear of) is
// interrupted by cancelling its context; the reader returns its rows
// later.
func (h *readerHead) next(ctx context.Context) (message, error) {
	t := h.t
	for {
		if h.ended {
			return message{kind: msgEOF}, nil
		}
		h.mu.Lock()
		var req barrierReq
		has := len(h.reqs) > 0
		if has {
			req = h.reqs[0]
			h.reqs = h.reqs[1:]
		}
		if h.readCtx == nil || h.readCtx.Err() != nil {
			if h.cancelRead != nil {
				h.cancelRead()
			}
			h.readCtx, h.cancelRead = context.WithCancel(ctx)
		}
		readCtx := h.readCtx
		h.mu.Unlock()
		if h.deadLetters != nil {
			// Before any snapshot: a position past a bad record goes
			// with its dead letter into the same checkpoint.
			if err := t.sendDeadLetters(ctx, h.deadLetters.DeadLetters()); err != nil {
				return message{}, err
			}
		}
		if has {
			h.ended = req.final
			return message{kind: msgBarrier, id: req.id, final: req.final}, nil
		}
		if err := t.housekeeping(ctx); err != nil {
			return message{}, err
		}
		if t.timerDue() {
			return message{kind: msgTimer}, nil
		}
		if h.eof {
			select {
			case <-t.wake:
				continue
			case <-ctx.Done():
				return message{}, ctx.Err()
			}
		}
		rows, err := h.r.Read(readCtx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				h.eof = true
				return message{kind: msgEndInput}, nil
			}
			if readCtx.Err() != nil && ctx.Err() == nil {
				continue // interrupted to inject a barrier
			}
			if ctx.Err() != nil {
				return message{}, ctx.Err()
			}
			return message{}, fmt.Errorf("source %q task %d: read: %w", h.src.id, h.index, err)
		}
		if len(rows) == 0 {
			continue
		}
		if err := h.checkFirstBatch(rows); err != nil {
			return message{}, err
		}
		return message{kind: msgData, rows: rows}, nil
	}
}

// groupPositions returns the reader's group positions described by its
// last Snapshot (checkpoint id), and keeps them to commit once the
// checkpoint's commits are durable; ok is false when it has none.
func (h *readerHead) groupPositions(id int64) (taskPositions, bool) {
	if h.positions == nil {
		return taskPositions{}, false
	}
	p, ok := h.positions.GroupPositions()
	if !ok {
		return taskPositions{}, false
	}
	h.groupPending = append(h.groupPending, pendingPositions{id, p})
	return taskPositions{task: h.global, p: p}, true
}

// commitGroup commits the group positions of the newest checkpoint whose
// commits (and all earlier ones) are durably acknowledged, unless a sink
// stores this task's positions in its transactions. A failure is a
// warning: the job goes on, and the next checkpoint commits newer
// positions.
func (h *readerHead) commitGroup(ctx context.Context) {
	a := h.t.a
	done := a.coord.committed.Load()
	if done <= h.groupDone {
		return
	}
	h.groupDone = done
	n := 0
	for n < len(h.groupPending) && h.groupPending[n].id <= done {
		n++
	}
	if n == 0 {
		return
	}
	last := h.groupPending[n-1]
	clear(h.groupPending[:n])
	h.groupPending = append(h.groupPending[:0], h.groupPending[n:]...)
	if h.inTxn.Load() {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, groupCommitTimeout)
	defer cancel()
	if err := h.positions.CommitGroupPositions(cctx, last.p); err != nil {
		if ctx.Err() != nil {
			return
		}
		a.j.stats.groupCommitFailed()
		a.j.log.Warn("cannot commit consumer group positions; the job goes on, the next checkpoint commits newer ones",
			"source", h.src.id, "task", h.index, "checkpoint", last.id, "group", last.p.Group, "err", err)
	}
}

// groupCommitTimeout bounds one commit of group positions, so that an
// unreachable group coordinator delays reading only so long.
const groupCommitTimeout = 30 * time.Second
