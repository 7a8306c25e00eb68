package over

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// An OVER aggregate over an updating input (Spec.Updating), which Flink
// refuses (FLINK-19059). Its output is the changelog of the OVER evaluated
// over the input's current table: after every input row, the table the
// output changelog leaves is the OVER of the table the input changelog
// leaves, as a batch query computes it.
//
// Each partition keeps every row of its current table in a map table, the
// sub-key ordering it: the key encoding of the ORDER BY value, then the key
// encoding of every column of the row, left to right. Rows of equal ORDER
// BY value are so ordered by their columns' values (ascending, NULL first;
// the key encoding's order), which makes the order — and so the frames of
// a ROWS window — deterministic: a batch OVER with ORDER BY the column,
// then every column, gives the same rows. Identical rows share an entry
// with a count.
//
// An insert (+I, +U) adds the row at its place, a retraction (-U, -D)
// takes one copy of it out (a row the state does not hold — expired by the
// TTL — is ignored, as Flink's retracting operators do). Then the rows
// whose frame changed are computed again, before and after the change,
// and emitted: the new row +I, the row taken out -D, each other row whose
// results changed -U (its old results, when Spec.UpdateBefore asks for
// them) and +U (the new ones). Which rows
// those are depends on the frame: for ROWS BETWEEN n PRECEDING the n rows
// after the change's place; for UNBOUNDED PRECEDING every row after it
// (and, for RANGE, the rows of equal ORDER BY value before it, which are
// its peers). The aggregates are computed from the frame's rows each time,
// never retracted.
//
// The cost of a change is a scan of the partition's sub-keys up to the
// change (and, for an unbounded frame, to the partition's end), plus
// decoding the rows of the frames that changed. The state is every row of
// the input's current table, until the input retracts it or the TTL
// expires it (table.exec.state.ttl: then it leaves the frames and its
// retraction is ignored, so the output no longer matches the input).

// checkUpdating checks the parts of spec an updating input needs.
func (s *Spec) checkUpdating() error {
	if s.Time != -1 {
		return fmt.Errorf("over aggregate: an updating input is ordered by a column (Order), not by time")
	}
	if s.Order < 0 || s.Order >= len(s.Types) {
		return fmt.Errorf("over aggregate: the input has no ORDER BY column %d", s.Order)
	}
	if !s.Frame.Rows && !s.Frame.Unbounded {
		return fmt.Errorf("over aggregate: a bounded RANGE frame over an updating input is not supported yet")
	}
	for _, c := range s.Calls {
		if c.Distinct {
			return fmt.Errorf("over aggregate: %s (DISTINCT) over an updating input is not supported yet", c)
		}
	}
	return nil
}

type updatingOver struct {
	stream.Base
	spec Spec
	maxP int
	ctx  *stream.Context

	// rows holds each partition's rows: sub-key the ORDER BY value and
	// the row (key encodings), value a count and the row's value
	// encoding.
	rows state.MapTable

	partTypes []types.Type
	allCols   []int
	acc       *agg.Accumulators
	pkey      []byte
	sub, buf  []byte
	peerBuf   []byte
	resBuf    []types.Value
	slab      []types.Value
	width     int
	peerLen   int // the length of the change's ORDER BY key
	window    []entry
	oldRows   expanded
	newRows   expanded
	oldOut    [][]types.Value
	newOut    [][]types.Value
}

// entry is one distinct row of a partition, as scanned: its sub-key, its
// count and (held) the row's value encoding. Its buffers are reused from
// one change to the next.
type entry struct {
	sub, enc []byte
	count    int64
	held     bool
	// row is the decoded row when decoded is set.
	row     []types.Value
	decoded bool
}

func newUpdating(spec Spec, task stream.TaskInfo) *updatingOver {
	o := &updatingOver{spec: spec, maxP: task.MaxParallelism}
	if o.maxP <= 0 {
		o.maxP = state.DefaultMaxParallelism
	}
	return o
}

func (o *updatingOver) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("over aggregate: the task has no keyed state")
	}
	o.ctx = ctx
	o.rows = ctx.State.Map("sorted", state.TTL(o.spec.TTL))
	for _, c := range o.spec.Partition {
		o.partTypes = append(o.partTypes, o.spec.Types[c])
	}
	for i := range o.spec.Types {
		o.allCols = append(o.allCols, i)
	}
	o.acc = agg.NewAccumulators(o.spec.Calls)
	o.width = len(o.spec.Types) + len(o.spec.Calls)
	return nil
}

func (o *updatingOver) Process(_ int, rows []types.Row, out *stream.Output) error {
	for i := range rows {
		r := &rows[i]
		o.pkey = state.AppendKey(o.pkey[:0], r.Fields, o.spec.Partition, o.partTypes)
		kg := state.KeyGroupOf(o.pkey, o.maxP)
		o.sub = state.AppendKeyValue(o.sub[:0], r.Fields[o.spec.Order], o.spec.Types[o.spec.Order])
		o.peerLen = len(o.sub)
		o.sub = state.AppendKey(o.sub, r.Fields, o.allCols, o.spec.Types)
		var err error
		switch r.Kind {
		case types.Insert, types.UpdateAfter:
			err = o.change(kg, r.Fields, false, out)
		default:
			err = o.change(kg, r.Fields, true, out)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// change adds row (retract false) to its partition or takes one copy of
// it out, and emits the changed results.
func (o *updatingOver) change(kg int, row []types.Value, retract bool, out *stream.Output) error {
	bounded := o.spec.Frame.Rows && !o.spec.Frame.Unbounded
	n := int(o.spec.Frame.PrecedingRows)
	// Scan the partition: the entries before the change (for a bounded
	// frame only the last n rows' worth), the change's own entry, and
	// after it n+1 rows' worth (bounded) or all of them.
	o.window = o.window[:0]
	before := 0 // rows in the window before the change's entry
	at := -1    // the window index of the change's entry
	afterRows := 0
	found := false
	var ownCount int64
	err := o.rows.RangeKey(kg, o.pkey, func(sub, val []byte) bool {
		cnt, used := binary.Varint(val)
		enc := val[max(used, 0):]
		c := bytes.Compare(sub, o.sub)
		if c < 0 {
			o.push(sub, enc, cnt, true)
			before += int(cnt)
			// A bounded frame needs only the last n rows before the
			// change: the entries before them go (their buffers are
			// kept for reuse).
			for bounded && len(o.window) > 1 && before-int(o.window[0].count) >= n {
				before -= int(o.window[0].count)
				first := o.window[0]
				copy(o.window, o.window[1:])
				o.window[len(o.window)-1] = first
				o.window = o.window[:len(o.window)-1]
			}
			return true
		}
		if c == 0 {
			found, ownCount, at = true, cnt, len(o.window)
			o.push(sub, enc, cnt, true)
			return true
		}
		if at < 0 {
			at = len(o.window)
			o.push(o.sub, nil, 0, false)
		}
		o.push(sub, enc, cnt, true)
		afterRows += int(cnt)
		return !bounded || afterRows <= n
	})
	if err != nil {
		return err
	}
	if at < 0 {
		at = len(o.window)
		o.push(o.sub, nil, 0, false)
	}
	if retract && !found {
		return nil // not held (expired by the TTL)
	}
	// The positions, in the window's expanded rows: the change is at p
	// (an insert goes after the copies of an identical row; a retraction
	// takes the last copy).
	p := before + int(ownCount)
	if retract {
		p--
	}
	// The rows whose results may change: from lo (the change, or its
	// first peer for RANGE) to hi in the old and the new expanded rows.
	oldRows, err := o.expand(&o.oldRows, row)
	if err != nil {
		return err
	}
	own := &o.window[at]
	if retract {
		own.count--
	} else {
		own.count++
	}
	newRows, err := o.expand(&o.newRows, row)
	if err != nil {
		return err
	}
	lo := p
	if !o.spec.Frame.Rows {
		// RANGE: the peers before the change see it too.
		for lo > 0 && o.peer(newRows.rows[lo-1]) {
			lo--
		}
	}
	o.oldOut, o.newOut = o.oldOut[:0], o.newOut[:0]
	oldHi, newHi := len(oldRows.rows)-1, len(newRows.rows)-1
	if bounded {
		oldHi, newHi = min(oldHi, p+n), min(newHi, p+n)
	}
	if o.oldOut, err = o.results(oldRows, lo, oldHi, o.oldOut); err != nil {
		return err
	}
	if o.newOut, err = o.results(newRows, lo, newHi, o.newOut); err != nil {
		return err
	}
	// Pair the rows of the old and new outputs: the rows before p are
	// the same rows, and so are old p+1.. and new p.. after a retraction
	// (new p+1.. and old p.. after an insert).
	emitPair := func(a, b []types.Value) {
		if o.equal(a, b) {
			return
		}
		if o.spec.UpdateBefore {
			out.Emit(types.Row{Kind: types.UpdateBefore, Fields: a})
		}
		out.Emit(types.Row{Kind: types.UpdateAfter, Fields: b})
	}
	for i := lo; i < p; i++ {
		emitPair(o.oldOut[i-lo], o.newOut[i-lo])
	}
	if retract {
		out.Emit(types.Row{Kind: types.Delete, Fields: o.oldOut[p-lo]})
		for i := p; i+1 <= oldHi && i <= newHi; i++ {
			emitPair(o.oldOut[i+1-lo], o.newOut[i-lo])
		}
	} else {
		out.Emit(types.Row{Kind: types.Insert, Fields: o.newOut[p-lo]})
		for i := p; i <= oldHi && i+1 <= newHi; i++ {
			emitPair(o.oldOut[i-lo], o.newOut[i+1-lo])
		}
	}
	// The state.
	if own.count <= 0 {
		return o.rows.Delete(kg, o.pkey, own.sub)
	}
	o.buf = binary.AppendVarint(o.buf[:0], own.count)
	if own.held {
		o.buf = append(o.buf, own.enc...)
	} else {
		o.buf = state.AppendRow(o.buf, row, o.spec.Types)
	}
	return o.rows.Put(kg, o.pkey, own.sub, o.buf)
}

// push appends an entry to the window, reusing the buffers of an entry
// that was there before; held says whether the state holds it (enc).
func (o *updatingOver) push(sub, enc []byte, count int64, held bool) {
	if len(o.window) < cap(o.window) {
		o.window = o.window[:len(o.window)+1]
	} else {
		o.window = append(o.window, entry{})
	}
	e := &o.window[len(o.window)-1]
	e.sub = append(e.sub[:0], sub...)
	e.enc = append(e.enc[:0], enc...)
	e.count, e.held, e.decoded = count, held, false
}

// expanded are a window's rows one by one (identical rows repeated), with
// their sub-keys (for RANGE peers).
type expanded struct {
	rows [][]types.Value
	subs [][]byte
}

// expand sets e to the window's rows one by one, decoding them (the
// change's own entry, when the state does not hold it yet, is row).
func (o *updatingOver) expand(e *expanded, row []types.Value) (expanded, error) {
	e.rows, e.subs = e.rows[:0], e.subs[:0]
	for i := range o.window {
		w := &o.window[i]
		if w.count > 0 && !w.decoded {
			if !w.held {
				w.row = append(w.row[:0], row...)
			} else {
				f, _, err := state.ReadRow(w.enc, o.spec.Types, w.row[:0])
				if err != nil {
					return *e, fmt.Errorf("over aggregate: %w", err)
				}
				w.row = f
			}
			w.decoded = true
		}
		for range w.count {
			e.rows = append(e.rows, w.row)
			e.subs = append(e.subs, w.sub)
		}
	}
	return *e, nil
}

// peer reports whether r has the ORDER BY value of the change.
func (o *updatingOver) peer(r []types.Value) bool {
	o.peerBuf = state.AppendKeyValue(o.peerBuf[:0], r[o.spec.Order], o.spec.Types[o.spec.Order])
	return bytes.Equal(o.peerBuf, o.sub[:o.peerLen])
}

// results appends the output rows of the window's rows lo..hi to dst.
func (o *updatingOver) results(e expanded, lo, hi int, dst [][]types.Value) ([][]types.Value, error) {
	if hi < lo {
		return dst, nil
	}
	n := int(o.spec.Frame.PrecedingRows)
	switch {
	case o.spec.Frame.Rows && !o.spec.Frame.Unbounded:
		for i := lo; i <= hi; i++ {
			o.acc.Reset()
			for j := max(0, i-n); j <= i; j++ {
				if err := o.acc.Apply(e.rows[j], false, nil); err != nil {
					return dst, fmt.Errorf("over aggregate: %w", err)
				}
			}
			r, err := o.output(e.rows[i])
			if err != nil {
				return dst, err
			}
			dst = append(dst, r)
		}
	default:
		// Unbounded: a running aggregate from the partition's first row;
		// for RANGE each row's frame ends with its last peer.
		o.acc.Reset()
		next := 0
		for i := lo; i <= hi; i++ {
			end := i
			if !o.spec.Frame.Rows {
				for end+1 < len(e.rows) && bytes.Equal(orderKey(e.subs[end+1], o), orderKey(e.subs[i], o)) {
					end++
				}
			}
			for ; next <= end; next++ {
				if err := o.acc.Apply(e.rows[next], false, nil); err != nil {
					return dst, fmt.Errorf("over aggregate: %w", err)
				}
			}
			r, err := o.output(e.rows[i])
			if err != nil {
				return dst, err
			}
			dst = append(dst, r)
		}
	}
	return dst, nil
}

// orderKey returns the ORDER BY part of a sub-key.
func orderKey(sub []byte, o *updatingOver) []byte {
	_, rest, err := state.ReadKeyValue(sub, o.spec.Types[o.spec.Order])
	if err != nil {
		return sub
	}
	return sub[:len(sub)-len(rest)]
}

// output returns row's output: its columns, then the accumulators'
// results.
func (o *updatingOver) output(row []types.Value) ([]types.Value, error) {
	if len(o.slab) < o.width {
		o.slab = make([]types.Value, o.width*max(4096/(o.width*24), 1))
	}
	f := o.slab[:0:o.width]
	o.slab = o.slab[o.width:]
	f = append(f, row...)
	var err error
	if o.resBuf, err = o.acc.Results(o.resBuf[:0]); err != nil {
		return nil, fmt.Errorf("over aggregate: %w", err)
	}
	return append(f, o.resBuf...), nil
}

// equal reports whether two output rows hold the same results (their
// input columns are the same row's).
func (o *updatingOver) equal(a, b []types.Value) bool {
	n := len(o.spec.Types)
	for k, c := range o.spec.Calls {
		x, y := a[n+k], b[n+k]
		if x.IsNull() != y.IsNull() {
			return false
		}
		if x.IsNull() {
			continue
		}
		o.buf = state.AppendKeyValue(o.buf[:0], x, c.Result)
		m := len(o.buf)
		o.buf = state.AppendKeyValue(o.buf, y, c.Result)
		if !bytes.Equal(o.buf[:m], o.buf[m:]) {
			return false
		}
	}
	return true
}
