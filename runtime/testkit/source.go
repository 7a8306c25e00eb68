// Package testkit holds test doubles for the runtime's protocol: a
// deterministic source of partitioned sequence numbers, a two-phase sink
// that writes real files, a fault injector for the runtime's failure
// points (also configurable from an environment variable, for child
// processes), and a checker that the committed output equals the input
// exactly once, in order per partition.
//
// The types to learn first: [SeqSource] (the source), [FileSink] (the
// sink), [Faults] (the injector, parsed by [ParseFaults] or read from
// [FaultsEnv]) and [CheckExactlyOnce] (the checker).
package testkit

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// SeqSource is a source of Partitions splits ("p0", "p1", ...); split p
// yields rows (p, 0), (p, 1), ... as two BIGINT fields. Its state per
// split is the next sequence number.
type SeqSource struct {
	// Partitions is the number of splits.
	Partitions int
	// PerPartition is the number of rows of each split; 0: unbounded.
	PerPartition int64
	// Batch is the number of rows a Read returns at most (default 16).
	Batch int
	// Delay is waited before each batch (0: none): it paces the source.
	Delay time.Duration
}

// Splits implements connector.Source.
func (s *SeqSource) Splits(context.Context) ([]connector.Split, error) {
	sp := make([]connector.Split, s.Partitions)
	for i := range sp {
		sp[i].ID = "p" + strconv.Itoa(i)
	}
	return sp, nil
}

// Bounded implements connector.Source.
func (s *SeqSource) Bounded() bool { return s.PerPartition > 0 }

// Open implements connector.Source.
func (s *SeqSource) Open(_ context.Context, _ connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r := &seqReader{s: s, batch: s.Batch}
	if r.batch <= 0 {
		r.batch = 16
	}
	for _, sp := range splits {
		p, err := strconv.Atoi(sp.ID[1:])
		if err != nil || sp.ID[0] != 'p' {
			return nil, fmt.Errorf("seq source: bad split %q", sp.ID)
		}
		var next int64
		if sp.State != nil {
			if next, err = strconv.ParseInt(string(sp.State), 10, 64); err != nil {
				return nil, fmt.Errorf("seq source: bad state of split %q: %w", sp.ID, err)
			}
		}
		r.parts = append(r.parts, int64(p))
		r.next = append(r.next, next)
	}
	return r, nil
}

type seqReader struct {
	s     *SeqSource
	batch int
	parts []int64
	next  []int64
	turn  int
	timer *time.Timer
	mu    sync.Mutex // guards next against Snapshot from tests
}

func (r *seqReader) Read(ctx context.Context) ([]types.Row, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.s.Delay > 0 {
		if r.timer == nil {
			r.timer = time.NewTimer(r.s.Delay)
		} else {
			r.timer.Reset(r.s.Delay)
		}
		select {
		case <-r.timer.C:
		case <-ctx.Done():
			r.timer.Stop()
			return nil, ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for range r.parts {
		i := r.turn % len(r.parts)
		r.turn++
		n := int64(r.batch)
		if r.s.PerPartition > 0 {
			n = min(n, r.s.PerPartition-r.next[i])
		}
		if n <= 0 {
			continue
		}
		rows := make([]types.Row, n)
		fields := make([]types.Value, 2*n)
		for k := range rows {
			f := fields[2*k : 2*k+2 : 2*k+2]
			f[0], f[1] = types.Int64(r.parts[i]), types.Int64(r.next[i]+int64(k))
			rows[k] = types.Row{Fields: f}
		}
		r.next[i] += n
		return rows, nil
	}
	if r.s.PerPartition > 0 {
		return nil, io.EOF
	}
	<-ctx.Done() // no splits: nothing to read until stopped
	return nil, ctx.Err()
}

func (r *seqReader) Snapshot(int64) ([]connector.SplitState, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := make([]connector.SplitState, len(r.parts))
	for i, p := range r.parts {
		st[i] = connector.SplitState{ID: "p" + strconv.FormatInt(p, 10), State: []byte(strconv.FormatInt(r.next[i], 10))}
	}
	return st, nil
}

func (r *seqReader) Close() error {
	if r.timer != nil {
		r.timer.Stop()
	}
	return nil
}
