package connectortest_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connector/connectortest"
	"github.com/streamsql/streamsql/types"
)

// This file is an in-memory connector, as an embedder might write one,
// and the test that runs the conformance suite on it. The suite's own
// tests (suite_test.go) break it in small ways and check that the suite
// notices.

// memSource reads a fixed list of rows, spread over memSplits splits: row
// i belongs to split i % memSplits. A reader fetches memFetch rows of a
// split at a time, after a short wait as a network would, and returns them
// over several Reads.
type memSource struct {
	rows   []types.Row
	faults sourceFaults
}

// sourceFaults are the contract violations the suite's tests switch on.
type sourceFaults struct {
	dropOnInterrupt bool // an interrupted Read drops what it fetched
	rowsWithError   bool // an interrupted Read returns rows with its error
	snapshotFetched bool // Snapshot describes what was fetched, not returned
	reuseRows       bool // Read reuses the rows it returned earlier
	swapColumns     bool // rows hold the table's columns in another order
}

const (
	memSplits = 3
	memFetch  = 10
	memReturn = 4
)

func (s *memSource) Splits(context.Context) ([]connector.Split, error) {
	out := make([]connector.Split, memSplits)
	for i := range out {
		out[i] = connector.Split{ID: "mem-" + strconv.Itoa(i)}
	}
	return out, nil
}

func (s *memSource) Bounded() bool { return true }

// Open restores each split's position: the index, within the split, of
// its next row (8 bytes).
func (s *memSource) Open(_ context.Context, _ connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r := &memReader{src: s}
	for _, sp := range splits {
		n, err := strconv.Atoi(sp.ID[len("mem-"):])
		if err != nil {
			return nil, fmt.Errorf("memory source: unknown split %q", sp.ID)
		}
		p := &memSplit{id: sp.ID, index: n}
		if sp.State != nil {
			if len(sp.State) != 8 {
				return nil, fmt.Errorf("memory source: split %s: bad state", sp.ID)
			}
			p.next = int(binary.BigEndian.Uint64(sp.State))
			p.fetched = p.next
		}
		r.splits = append(r.splits, p)
	}
	return r, nil
}

type memSplit struct {
	id      string
	index   int // the split's number
	next    int // position after the last row returned
	fetched int // position after the last row fetched
}

type memReader struct {
	src     *memSource
	splits  []*memSplit
	turn    int
	pending []types.Row // fetched, not yet returned
	from    *memSplit   // the split pending rows belong to
	reused  []types.Row
}

// row returns the n-th row of split sp, or false past the end.
func (r *memReader) row(sp *memSplit, n int) (types.Row, bool) {
	i := sp.index + n*memSplits
	if i >= len(r.src.rows) {
		return types.Row{}, false
	}
	return r.src.rows[i].Clone(), true
}

func (r *memReader) Read(ctx context.Context) ([]types.Row, error) {
	if len(r.pending) == 0 {
		if !r.fetch() {
			return nil, io.EOF
		}
		// The rows are fetched; the wait stands for their delivery.
		t := time.NewTimer(200 * time.Microsecond)
		defer t.Stop()
		select {
		case <-ctx.Done():
			f := r.src.faults
			switch {
			case f.dropOnInterrupt:
				r.from.next = r.from.fetched
				r.pending = nil
			case f.rowsWithError:
				return r.take(), ctx.Err()
			}
			return nil, ctx.Err()
		case <-t.C:
		}
	} else if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r.take(), nil
}

// fetch fetches the next rows of the next split that has any.
func (r *memReader) fetch() bool {
	for range r.splits {
		sp := r.splits[r.turn%len(r.splits)]
		r.turn++
		for len(r.pending) < memFetch {
			row, ok := r.row(sp, sp.fetched)
			if !ok {
				break
			}
			r.pending = append(r.pending, row)
			sp.fetched++
		}
		if len(r.pending) > 0 {
			r.from = sp
			return true
		}
	}
	return false
}

// take returns up to memReturn pending rows.
func (r *memReader) take() []types.Row {
	n := min(memReturn, len(r.pending))
	out := r.pending[:n:n]
	r.pending = r.pending[n:]
	r.from.next += n
	if r.src.faults.swapColumns {
		// Wrong: (name, id) for a table declared (id, name).
		swapped := make([]types.Row, len(out))
		for i, row := range out {
			swapped[i] = types.Row{Kind: row.Kind, Fields: []types.Value{row.Fields[1], row.Fields[0]}}
		}
		out = swapped
	}
	if r.src.faults.reuseRows {
		// Wrong: the caller owns returned rows.
		for i := range r.reused {
			r.reused[i].Fields[1] = types.Str("overwritten")
		}
		r.reused = out
	}
	return out
}

func (r *memReader) Snapshot(int64) ([]connector.SplitState, error) {
	out := make([]connector.SplitState, len(r.splits))
	for i, sp := range r.splits {
		pos := sp.next
		if r.src.faults.snapshotFetched {
			pos = sp.fetched
		}
		out[i] = connector.SplitState{ID: sp.id, State: binary.BigEndian.AppendUint64(nil, uint64(pos))}
	}
	return out, nil
}

func (r *memReader) Close() error { return nil }

// memStore is the destination of memSink: committed rows, and
// transactions pre-committed and not yet committed or aborted. It outlives
// sinks, as an external system outlives a job's runs.
type memStore struct {
	mu        sync.Mutex
	committed []types.Row
	open      map[string][]types.Row // by transaction id
	done      map[string][]types.Row // committed transactions
	broken    bool
	faults    sinkFaults
}

// sinkFaults are the contract violations the suite's tests switch on.
type sinkFaults struct {
	commitTwice    bool // Commit of a committed transaction commits again
	abortUnknown   bool // Abort of an unknown transaction fails
	recoverFails   bool // Recover of a committed transaction fails
	recoverAll     bool // Recover commits every open transaction
	visibleAtWrite bool // Write makes rows visible at once
	swallowErrors  bool // a broken store's errors are not reported
	visibleOnClose bool // Close makes what was written visible
}

func newMemStore() *memStore {
	return &memStore{open: map[string][]types.Row{}, done: map[string][]types.Row{}}
}

// memSink writes to a memStore in transactions, one per writer and
// checkpoint.
type memSink struct{ store *memStore }

func (s *memSink) Open(_ context.Context, task connector.TaskInfo) (connector.Writer, error) {
	return &memWriter{store: s.store, prefix: fmt.Sprintf("%s/%d/%p/", task.Job, task.Index, s)}, nil
}

func (s *memSink) Committer(_ context.Context, job string) (connector.Committer, error) {
	return &memCommitter{store: s.store, job: job}, nil
}

type memWriter struct {
	store  *memStore
	prefix string
	rows   []types.Row
	err    error
}

func (w *memWriter) Write(_ context.Context, rows []types.Row) error {
	st := w.store
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.broken && !st.faults.swallowErrors {
		w.err = errors.New("memory sink: store unavailable")
	}
	if st.faults.visibleAtWrite {
		st.committed = append(st.committed, rows...)
		return nil
	}
	w.rows = append(w.rows, rows...)
	return nil
}

func (w *memWriter) PreCommit(_ context.Context, checkpoint int64) ([]connector.Committable, error) {
	if w.err != nil {
		return nil, w.err
	}
	if len(w.rows) == 0 {
		return nil, nil
	}
	id := w.prefix + strconv.FormatInt(checkpoint, 10)
	w.store.mu.Lock()
	w.store.open[id] = w.rows
	w.store.mu.Unlock()
	w.rows = nil
	return []connector.Committable{connector.Committable(id)}, nil
}

func (w *memWriter) Close() error {
	if w.store.faults.visibleOnClose {
		w.store.mu.Lock()
		w.store.committed = append(w.store.committed, w.rows...)
		w.store.mu.Unlock()
	}
	w.rows = nil
	return nil
}

type memCommitter struct {
	store *memStore
	job   string
}

func (c *memCommitter) Commit(_ context.Context, b connector.Committable) error {
	st := c.store
	st.mu.Lock()
	defer st.mu.Unlock()
	id := string(b)
	if rows, ok := st.done[id]; ok {
		if st.faults.commitTwice {
			st.committed = append(st.committed, rows...)
		}
		return nil
	}
	rows, ok := st.open[id]
	if !ok {
		return fmt.Errorf("memory sink: transaction %s: %w", id, connector.ErrCommitLost)
	}
	st.committed = append(st.committed, rows...)
	st.done[id] = rows
	delete(st.open, id)
	return nil
}

func (c *memCommitter) Abort(_ context.Context, b connector.Committable) error {
	st := c.store
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.open[string(b)]; !ok && st.faults.abortUnknown {
		return fmt.Errorf("memory sink: no transaction %s", b)
	}
	delete(st.open, string(b))
	return nil
}

func (c *memCommitter) Recover(ctx context.Context, pending []connector.Committable) error {
	ids := map[string]bool{}
	for _, b := range pending {
		c.store.mu.Lock()
		_, done := c.store.done[string(b)]
		c.store.mu.Unlock()
		if done && c.store.faults.recoverFails {
			return fmt.Errorf("memory sink: transaction %s is not open", b)
		}
		ids[string(b)] = true
		if err := c.Commit(ctx, b); err != nil {
			return err
		}
	}
	c.store.mu.Lock()
	var leftovers []string
	for id := range c.store.open {
		if !ids[id] && len(id) > len(c.job) && id[:len(c.job)+1] == c.job+"/" {
			leftovers = append(leftovers, id)
		}
	}
	c.store.mu.Unlock()
	for _, id := range leftovers {
		var err error
		if c.store.faults.recoverAll {
			err = c.Commit(ctx, connector.Committable(id))
		} else {
			err = c.Abort(ctx, connector.Committable(id))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *memCommitter) Close() error { return nil }

// memSourceHarness describes the memory source with the given faults.
func memSourceHarness(f sourceFaults) connectortest.SourceHarness {
	return connectortest.SourceHarness{
		Input: func(_ testing.TB, rows []types.Row) func() (connector.Source, error) {
			return func() (connector.Source, error) { return &memSource{rows: rows, faults: f}, nil }
		},
	}
}

// memSinkHarness describes the memory sink with the given faults.
func memSinkHarness(f sinkFaults) connectortest.SinkHarness {
	return connectortest.SinkHarness{
		New: func(testing.TB) connectortest.SinkFixture {
			store := newMemStore()
			store.faults = f
			return connectortest.SinkFixture{
				NewSink: func() (connector.Sink, error) { return &memSink{store: store}, nil },
				Committed: func(testing.TB, int) []types.Row {
					store.mu.Lock()
					defer store.mu.Unlock()
					return slices.Clone(store.committed)
				},
				Break: func(testing.TB) {
					store.mu.Lock()
					store.broken = true
					store.mu.Unlock()
				},
			}
		},
	}
}

// TestMemoryConnector runs the suite on the in-memory connector.
func TestMemoryConnector(t *testing.T) {
	t.Run("source", func(t *testing.T) { connectortest.RunSource(t, memSourceHarness(sourceFaults{})) })
	t.Run("sink", func(t *testing.T) { connectortest.RunSink(t, memSinkHarness(sinkFaults{})) })
}

// An embedder runs the suite from a test of its own connector: Input gives
// a source its rows, New makes a fresh destination for a sink. (The
// in-memory connector of this example is in the package's example_test.go.)
func ExampleRunSource() {
	_ = func(t *testing.T) {
		connectortest.RunSource(t, connectortest.SourceHarness{
			Input: func(_ testing.TB, rows []types.Row) func() (connector.Source, error) {
				return func() (connector.Source, error) { return &memSource{rows: rows}, nil }
			},
		})
	}
}

// A sink's harness makes a destination per check and reads back what was
// committed to it.
func ExampleRunSink() {
	_ = func(t *testing.T) {
		connectortest.RunSink(t, connectortest.SinkHarness{
			New: func(testing.TB) connectortest.SinkFixture {
				store := newMemStore()
				return connectortest.SinkFixture{
					NewSink: func() (connector.Sink, error) { return &memSink{store: store}, nil },
					Committed: func(testing.TB, int) []types.Row {
						store.mu.Lock()
						defer store.mu.Unlock()
						return slices.Clone(store.committed)
					},
				}
			},
		})
	}
}
