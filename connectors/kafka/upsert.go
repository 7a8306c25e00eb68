package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// keyFunc appends the primary key of row to buf and returns the result. It
// identifies rows of one key for upsertBuffer.
type keyFunc func(row *types.Row, buf []byte) []byte

// upsertBuffer is upsert-kafka's 'sink.buffer-flush.max-rows' and
// 'sink.buffer-flush.interval': it keeps only the latest row per primary
// key and writes the buffer to the underlying writer when it holds maxRows
// keys, when interval has passed since the first row after the last flush,
// and at every PreCommit. UPDATE_BEFORE rows are dropped, as an upsert sink
// needs only the latest image (and tombstones for DELETE). Write, PreCommit
// and Close are called from the task's goroutine; the interval flush runs
// on a timer and is serialised with them.
type upsertBuffer struct {
	w        connector.Writer
	key      keyFunc
	maxRows  int
	interval time.Duration

	// stop ends an interval flush that waits on the client (a broker
	// outage) when the buffer is closed or the writer's context ends.
	stop   context.Context
	cancel context.CancelFunc

	mu     sync.Mutex // guards everything below, and calls into w
	index  map[string]int
	rows   []types.Row
	keyBuf []byte
	timer  *time.Timer
	failed error // a timer flush failed; reported by the next call
	closed bool
}

// The connector capabilities upsertBuffer means to have (checked by the compiler).
var (
	_ connector.Writer              = (*upsertBuffer)(nil)
	_ connector.ByteCounter         = (*upsertBuffer)(nil)
	_ connector.GroupPositionWriter = (*upsertBuffer)(nil)
	_ connector.HealthReporter      = (*upsertBuffer)(nil)
)

// newUpsertBuffer wraps w. maxRows and interval must both be positive (the
// options enable buffering only together). ctx is the writer's (Open's):
// when it ends, interval flushes stop.
func newUpsertBuffer(ctx context.Context, w connector.Writer, key keyFunc, maxRows int, interval time.Duration) (*upsertBuffer, error) {
	if maxRows <= 0 || interval <= 0 {
		return nil, errors.New("'sink.buffer-flush.max-rows' and 'sink.buffer-flush.interval' must be set to be greater than zero together to enable sink buffer flushing")
	}
	stop, cancel := context.WithCancel(ctx)
	return &upsertBuffer{w: w, key: key, maxRows: maxRows, interval: interval, index: make(map[string]int, maxRows),
		stop: stop, cancel: cancel}, nil
}

// Write buffers rows (copies: the caller keeps its rows), writing the
// buffer through when it is full.
func (u *upsertBuffer) Write(ctx context.Context, rows []types.Row) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.failed != nil {
		return u.failed
	}
	for i := range rows {
		r := &rows[i]
		if r.Kind == types.UpdateBefore {
			continue
		}
		u.keyBuf = u.key(r, u.keyBuf[:0])
		if j, ok := u.index[string(u.keyBuf)]; ok {
			u.rows[j] = r.Clone()
			continue
		}
		u.index[string(u.keyBuf)] = len(u.rows)
		u.rows = append(u.rows, r.Clone())
		if len(u.rows) == 1 {
			u.armTimer()
		}
		if len(u.rows) >= u.maxRows {
			if err := u.flushLocked(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (u *upsertBuffer) armTimer() {
	if u.timer == nil {
		u.timer = time.AfterFunc(u.interval, u.onTimer)
		return
	}
	u.timer.Reset(u.interval)
}

func (u *upsertBuffer) onTimer() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed || u.failed != nil || len(u.rows) == 0 || u.stop.Err() != nil {
		return
	}
	if err := u.flushLocked(u.stop); err != nil {
		u.failed = fmt.Errorf("kafka sink: interval flush of the upsert buffer: %w", err)
	}
}

func (u *upsertBuffer) flushLocked(ctx context.Context) error {
	if len(u.rows) == 0 {
		return nil
	}
	if u.timer != nil {
		u.timer.Stop()
	}
	err := u.w.Write(ctx, u.rows)
	clear(u.rows)
	u.rows = u.rows[:0]
	clear(u.index)
	if err != nil {
		u.failed = err
	}
	return err
}

// PreCommit writes the buffer through, then pre-commits the underlying
// writer.
func (u *upsertBuffer) PreCommit(ctx context.Context, checkpointID int64) ([]connector.Committable, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.failed != nil {
		return nil, u.failed
	}
	if err := u.flushLocked(ctx); err != nil {
		return nil, err
	}
	return u.w.PreCommit(ctx, checkpointID)
}

// AcceptsGroupPositions reports whether the underlying writer stores group
// positions of p's cluster with its transactions
// (connector.GroupPositionWriter).
func (u *upsertBuffer) AcceptsGroupPositions(p connector.GroupPositions) bool {
	pw, ok := u.w.(connector.GroupPositionWriter)
	return ok && pw.AcceptsGroupPositions(p)
}

// PreCommitWithPositions writes the buffer through, then pre-commits the
// underlying writer with positions (connector.GroupPositionWriter).
func (u *upsertBuffer) PreCommitWithPositions(ctx context.Context, checkpointID int64, positions []connector.GroupPositions) ([]connector.Committable, error) {
	pw, ok := u.w.(connector.GroupPositionWriter)
	if !ok {
		return nil, errors.New("kafka sink: the buffered writer cannot store group positions")
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.failed != nil {
		return nil, u.failed
	}
	if err := u.flushLocked(ctx); err != nil {
		return nil, err
	}
	return pw.PreCommitWithPositions(ctx, checkpointID, positions)
}

// Close stops the timer and closes the underlying writer; buffered rows
// that were not pre-committed are discarded.
func (u *upsertBuffer) Close() error {
	u.cancel()
	u.mu.Lock()
	u.closed = true
	if u.timer != nil {
		u.timer.Stop()
	}
	u.mu.Unlock()
	return u.w.Close()
}

// Unwrap returns the underlying writer (for example a txn.Writer,
// for a driver that consults its CheckpointReady).
func (u *upsertBuffer) Unwrap() connector.Writer { return u.w }

// Bytes returns the bytes the underlying writer wrote, when it counts them
// (connector.ByteCounter).
func (u *upsertBuffer) Bytes() int64 {
	if bc, ok := u.w.(connector.ByteCounter); ok {
		return bc.Bytes()
	}
	return 0
}

// Delivered reports what the underlying writer reports
// (connector.DeliveryCounter): records, after the buffer merged rows.
func (u *upsertBuffer) Delivered() int64 {
	if dc, ok := u.w.(connector.DeliveryCounter); ok {
		return dc.Delivered()
	}
	return 0
}

// DeliveryTimeout reports what the underlying writer reports
// (connector.DeliveryTimeouter).
func (u *upsertBuffer) DeliveryTimeout() time.Duration {
	if dt, ok := u.w.(connector.DeliveryTimeouter); ok {
		return dt.DeliveryTimeout()
	}
	return 0
}

// Unhealthy reports what the underlying writer reports
// (connector.HealthReporter).
func (u *upsertBuffer) Unhealthy() string {
	if h, ok := u.w.(connector.HealthReporter); ok {
		return h.Unhealthy()
	}
	return ""
}
