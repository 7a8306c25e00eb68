package rank

import (
	"bytes"
	"slices"

	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Retract (Flink's RetractableTopNFunction): the partition keeps every
// row; only the sort keys that cover the ranks up to End+1 are read for a
// row (a row of a later sort key cannot change what is emitted).

func (t *topN) retractable(kg int, accumulate bool, out *stream.Output) error {
	if err := t.load(kg, t.spec.End+1, false); err != nil {
		return err
	}
	// The row's own sort key, also when it lies past the loaded ones.
	i, ok := t.find(t.sk)
	if !ok && i == len(t.entries) {
		v, has, err := t.rows.Get(kg, t.pkey, t.sk)
		if err != nil {
			return err
		}
		if has {
			e := t.newEntry(t.sk)
			if err := readList(v, &e.list, false, &t.scratch); err != nil {
				return err
			}
			t.entries = append(t.entries, e)
		}
	}
	in := slices.Clone(t.in)
	t.inEnc = in
	var err error
	if accumulate {
		// The sort key's count includes the new row while the emission
		// is worked out (Flink's sorted map); the row joins the list
		// after it.
		i := t.add(t.sk, nil, nil)
		e := &t.entries[i]
		e.list.rows = e.list.rows[:len(e.list.rows)-1]
		if t.withRowNumber() {
			err = t.retractEmitWithRowNumber(in, out)
		} else {
			err = t.retractEmitWithoutRowNumber(in, out)
		}
		e = &t.entries[i]
		e.list.rows = append(e.list.rows, in)
		e.dirty = true
	} else {
		var removed bool
		if t.withRowNumber() {
			removed, err = t.retractWithRowNumber(in, out)
		} else {
			removed, err = t.retractWithoutRowNumber(in, out)
		}
		if err == nil && !removed {
			// Not within the ranks the emission looked at: remove it from
			// its sort key's list directly. A row the state does not hold
			// (expired by the TTL) is ignored, as Flink does.
			if i, ok := t.find(t.sk); ok {
				e := &t.entries[i]
				if j := slices.IndexFunc(e.list.rows, func(r []byte) bool { return bytes.Equal(r, in) }); j >= 0 {
					e.list.rows = slices.Delete(e.list.rows, j, j+1)
					e.dirty = true
				}
			}
		}
	}
	if err != nil {
		return err
	}
	return t.store(kg, false)
}

// rowsOf returns the rows of entry i, counting the new row of an
// accumulation (which is not in the list yet) in its own sort key.
func (t *topN) rowsOf(i int, accumulating bool) int64 {
	n := int64(len(t.entries[i].list.rows))
	if accumulating && bytes.Equal(t.entries[i].key, t.sk) {
		n++
	}
	return n
}

// retractEmitWithRowNumber is appendWithRowNumber without the eviction.
func (t *topN) retractEmitWithRowNumber(in []byte, out *stream.Output) error {
	var rank int64
	found := false
	var cur []byte
	for i := 0; i < len(t.entries) && rank <= t.spec.End; i++ {
		e := &t.entries[i]
		switch {
		case !found && bytes.Equal(e.key, t.sk):
			rank += t.rowsOf(i, true)
			cur, found = in, true
		case found:
			for j := 0; j < len(e.list.rows) && rank <= t.spec.End; j++ {
				prev := e.list.rows[j]
				if err := t.emitRanked(out, types.UpdateBefore, prev, rank); err != nil {
					return err
				}
				if err := t.emitRanked(out, types.UpdateAfter, cur, rank); err != nil {
					return err
				}
				cur = prev
				rank++
			}
		default:
			rank += t.rowsOf(i, true)
		}
	}
	if rank <= t.spec.End {
		return t.emitRanked(out, types.Insert, cur, rank)
	}
	return nil
}

// retractEmitWithoutRowNumber emits the new row as an insert when it
// ranks, and the row it pushed out of the top (rank End+1 now) as a
// delete.
func (t *topN) retractEmitWithoutRowNumber(in []byte, out *stream.Output) error {
	var rank int64
	found := false
	var collect, del []byte
	for i := 0; i < len(t.entries) && rank <= t.spec.End; i++ {
		e := &t.entries[i]
		switch {
		case !found && bytes.Equal(e.key, t.sk):
			rank += t.rowsOf(i, true)
			if rank >= t.spec.Start && rank <= t.spec.End {
				collect = in
			}
			found = true
		case found:
			last := rank + int64(len(e.list.rows))
			if last <= t.spec.End {
				rank = last
				continue
			}
			del = e.list.rows[t.spec.End-rank]
			i = len(t.entries) // break
		default:
			rank += t.rowsOf(i, true)
		}
	}
	if del != nil {
		if err := t.emitPlain(out, types.Delete, del); err != nil {
			return err
		}
	}
	if collect != nil {
		return t.emitPlain(out, types.Insert, collect)
	}
	return nil
}

// retractWithRowNumber removes the retracted row when it is within the
// ranks looked at, moves the rows after it up one rank each, and deletes
// the last rank when no row is left for it. It reports whether it
// removed the row.
func (t *topN) retractWithRowNumber(in []byte, out *stream.Output) (bool, error) {
	var rank int64
	var prev []byte
	found := false
	for i := 0; i < len(t.entries) && rank <= t.spec.End; i++ {
		e := &t.entries[i]
		switch {
		case !found && bytes.Equal(e.key, t.sk):
			rows := e.list.rows
			for j := 0; j < len(rows) && rank <= t.spec.End; j++ {
				cur := rows[j]
				switch {
				case !found && bytes.Equal(cur, in):
					prev, found = cur, true
					rows = slices.Delete(rows, j, j+1)
					j--
					e.dirty = true
				case found:
					if err := t.emitRanked(out, types.UpdateBefore, prev, rank); err != nil {
						return found, err
					}
					if err := t.emitRanked(out, types.UpdateAfter, cur, rank); err != nil {
						return found, err
					}
					prev = cur
				}
				rank++
			}
			e.list.rows = rows
		case found:
			for j := 0; j < len(e.list.rows) && rank <= t.spec.End; j++ {
				cur := e.list.rows[j]
				if err := t.emitRanked(out, types.UpdateBefore, prev, rank); err != nil {
					return found, err
				}
				if err := t.emitRanked(out, types.UpdateAfter, cur, rank); err != nil {
					return found, err
				}
				prev = cur
				rank++
			}
		default:
			rank += int64(len(e.list.rows))
		}
	}
	if rank <= t.spec.End && prev != nil {
		return found, t.emitRanked(out, types.Delete, prev, rank)
	}
	return found, nil
}

// retractWithoutRowNumber deletes the retracted row when it ranked, and
// inserts the row that moves up into rank End.
func (t *topN) retractWithoutRowNumber(in []byte, out *stream.Output) (bool, error) {
	next := int64(1) // the rank of the next row
	found := false
	for i := 0; i < len(t.entries) && next <= t.spec.End; i++ {
		e := &t.entries[i]
		switch {
		case !found && bytes.Equal(e.key, t.sk):
			rows := e.list.rows
			for j := 0; j < len(rows) && next <= t.spec.End; j++ {
				cur := rows[j]
				switch {
				case !found && bytes.Equal(cur, in):
					if err := t.emitRanked(out, types.Delete, cur, next); err != nil {
						return found, err
					}
					next--
					found = true
					rows = slices.Delete(rows, j, j+1)
					j--
					e.dirty = true
				case found && next == t.spec.End:
					if err := t.emitRanked(out, types.Insert, cur, next); err != nil {
						return found, err
					}
				}
				next++
			}
			e.list.rows = rows
		case found:
			last := next + int64(len(e.list.rows)) - 1
			if last < t.spec.End {
				next = last + 1
				continue
			}
			if err := t.emitPlain(out, types.Insert, e.list.rows[t.spec.End-next]); err != nil {
				return found, err
			}
			i = len(t.entries) // break
		default:
			next += int64(len(e.list.rows))
		}
	}
	return found, nil
}
