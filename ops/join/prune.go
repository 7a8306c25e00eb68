package join

import (
	"fmt"
	"time"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Prune bounds the state of a regular INNER join's left input by the
// watermark, when the right input's rows come late in a known way: the
// right input is a window aggregation, which emits a window's row only
// when its watermark reaches the window's end − 1 ms and drops late rows,
// so that once the join's watermark is W every right row still to come
// has a window_end above W + 1 ms; and the residual condition needs
// window_end <= t + Bound of a left row at time t. A left row with
// t + Bound <= W so matches no right row still to come: the join drops it
// from its state (a sweep, see sweep), and a left row that arrives so
// late is matched against the right rows held but not kept. A left row
// whose time is NULL matches nothing and is not kept either. Flink keeps
// such rows for ever; the results are the same.
//
// The watermark is the task's (the least over both inputs' channels),
// which is at most the right input's as long as no channel is idle: the
// planner sets Prune only when table.exec.source.idle-timeout is 0. A
// channel is idle without it only while the sources behind it have no
// split (an empty table): nothing is dropped until a right row has
// arrived since the operator opened, so that a right input that was idle
// throughout and then starts (a table's first file found later) fires
// its windows before any row they may match is gone.
type Prune struct {
	// Time is the left input's column of the row's time (a TIMESTAMP or
	// TIMESTAMP_LTZ).
	Time int
	// Bound is how far past a left row's time the window_end of a right
	// row it matches may be.
	Bound time.Duration
	// MinRows is the fewest left rows added between two sweeps (0: 1024).
	MinRows int64
}

// pruneState is the regular join's side of Prune: the watermark, and how
// many left rows were added since the last sweep and held after it.
type pruneState struct {
	wm          int64
	right       bool // a right row arrived since Open
	added, held int64
	kgs         state.KeyGroupRange
	keyArena    []byte
	keyOffs     []int
	drop        []byte
	dropOffs    []int
	swept       int64 // entries dropped by sweeps
	// sweep is the list sweep under way (sweepList): its view, key group,
	// time column and limit, its first error, and its test of a row.
	sweep struct {
		v       *view
		kg, col int
		limit   int64
		err     error
		fn      func(row []byte) bool
	}
}

// keep reports whether a left row (its fields) may still match a right row
// to come, and so goes into the state.
func (r *regular) keep(row []types.Value) bool {
	if r.spec.Prune == nil {
		return true
	}
	t := row[r.spec.Prune.Time]
	if t.IsNull() {
		return false
	}
	limit, ok := r.pruneLimit()
	return !ok || t.Timestamp().Millis > limit
}

// pruneLimit returns the latest left time that can match no right row still
// to come, and whether there is one.
func (r *regular) pruneLimit() (int64, bool) {
	if r.spec.Prune == nil || !r.prune.right || r.prune.wm == stream.MinWatermark || r.prune.wm == stream.MaxWatermark {
		return 0, false
	}
	return r.prune.wm - r.spec.Prune.Bound.Milliseconds(), true
}

// Watermark sweeps the left input's rows that can match no right row still
// to come, when as many left rows were added since the last sweep as it
// left (at least Prune.MinRows): a sweep reads every held row, so each row
// added pays for about two reads, and the state holds at most about twice
// the rows that may still match.
func (r *regular) Watermark(wm int64, _ *stream.Output) error {
	if r.spec.Prune == nil || wm == stream.MaxWatermark {
		return nil
	}
	r.prune.wm = wm
	minRows := r.spec.Prune.MinRows
	if minRows <= 0 {
		minRows = 1024
	}
	if r.prune.added < max(r.prune.held, minRows) {
		return nil
	}
	return r.sweep()
}

// sweep drops the left rows whose time is at or before the limit (or
// NULL).
func (r *regular) sweep() error {
	limit, ok := r.pruneLimit()
	if !ok {
		return nil
	}
	v := &r.sides[0]
	col := r.spec.Prune.Time
	ps := &r.prune
	ps.added, ps.held = 0, 0
	for kg := ps.kgs.Start; kg < ps.kgs.End; kg++ {
		ps.keyArena, ps.keyOffs = ps.keyArena[:0], ps.keyOffs[:0]
		var keys func(int, func([]byte) bool) error
		if v.list != nil {
			keys = v.list.Keys
		} else {
			keys = v.table.Keys
		}
		if err := keys(kg, func(key []byte) bool {
			ps.keyArena = append(ps.keyArena, key...)
			ps.keyOffs = append(ps.keyOffs, len(ps.keyArena))
			return true
		}); err != nil {
			return fmt.Errorf("join: %w", err)
		}
		start := 0
		for _, end := range ps.keyOffs {
			r.key = append(r.key[:0], ps.keyArena[start:end]...)
			start = end
			r.keyRead = false
			if v.list != nil {
				if err := r.sweepList(v, kg, col, limit); err != nil {
					return err
				}
				continue
			}
			ps.drop, ps.dropOffs = ps.drop[:0], ps.dropOffs[:0]
			var ferr error
			err := v.table.RangeKey(kg, r.key, func(sub, value []byte) bool {
				count, _, rest, err := readCounts(value)
				if err == nil {
					r.vals = r.vals[:0]
					if v.unique {
						r.vals, _, err = r.rr.ReadRow(rest, v.side.Types, r.vals)
					} else {
						err = r.readSub(v, sub)
					}
				}
				if err != nil {
					ferr = fmt.Errorf("join: key group %d: %w", kg, err)
					return false
				}
				if t := r.vals[col]; t.IsNull() || t.Timestamp().Millis <= limit {
					ps.drop = append(ps.drop, sub...)
					ps.dropOffs = append(ps.dropOffs, len(ps.drop))
					return true
				}
				ps.held += count
				return true
			})
			if err == nil {
				err = ferr
			}
			if err != nil {
				return err
			}
			s := 0
			for _, e := range ps.dropOffs {
				if err := v.table.Delete(kg, r.key, ps.drop[s:e]); err != nil {
					return fmt.Errorf("join: %w", err)
				}
				s = e
				ps.swept++
			}
		}
	}
	r.vals = r.vals[:0]
	return nil
}

// sweepList is sweep's step for key r.key of a left input kept as lists
// (view.list): DeleteIf with the rows whose time is at or before limit.
func (r *regular) sweepList(v *view, kg, col int, limit int64) error {
	ps := &r.prune
	sw := &ps.sweep
	if sw.fn == nil {
		// One closure for every sweep (it reads sw): one per call was an
		// allocation per key swept, about one per event in Nexmark q7.
		sw.fn = func(row []byte) bool { return r.sweepRow(row) }
	}
	sw.v, sw.kg, sw.col, sw.limit, sw.err = v, kg, col, limit, nil
	err := v.list.DeleteIf(kg, r.key, sw.fn)
	if err == nil {
		err = sw.err
	}
	sw.v, sw.err = nil, nil
	if err != nil {
		return fmt.Errorf("join: %w", err)
	}
	return nil
}

// sweepRow is sweepList's test of one row of the list (pruneState.sweep):
// whether it is to be dropped.
func (r *regular) sweepRow(row []byte) bool {
	ps := &r.prune
	sw := &ps.sweep
	if sw.err != nil {
		return false
	}
	r.vals = r.vals[:0]
	if err := r.readSub(sw.v, row); err != nil {
		sw.err = fmt.Errorf("join: key group %d: %w", sw.kg, err)
		return false
	}
	if t := r.vals[sw.col]; t.IsNull() || t.Timestamp().Millis <= sw.limit {
		ps.swept++
		return true
	}
	ps.held++
	return false
}
