package rank

import (
	"bytes"
	"slices"

	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Updatable (Flink's UpdatableTopNFunction): the partition keeps its top
// rows, each with its unique key; an input row whose key is in the top
// replaces that row (its sort key can only have improved), one whose key
// is not enters as a new row.

// loc is where a unique key's row is among the loaded entries.
type loc struct{ entry, pos int }

func (t *topN) updatable(kg int, out *stream.Output) error {
	if err := t.load(kg, -1, true); err != nil {
		return err
	}
	in, rk := slices.Clone(t.in), slices.Clone(t.rk)
	t.inEnc = in
	var err error
	if t.withRowNumber() {
		err = t.updatableWithRowNumber(in, rk, out)
	} else {
		err = t.updatableWithoutRowNumber(in, rk, out)
	}
	if err != nil {
		return err
	}
	return t.store(kg, true)
}

// locate returns where the row of unique key rk is, if the top holds it.
func (t *topN) locate(rk []byte) (loc, bool) {
	for i := range t.entries {
		e := &t.entries[i]
		if e.deleted {
			continue
		}
		for j, k := range e.list.keys {
			if bytes.Equal(k, rk) {
				return loc{i, j}, true
			}
		}
	}
	return loc{}, false
}

// rankOf returns the rank of the row at l.
func (t *topN) rankOf(l loc) int64 {
	var rank int64
	for i := range l.entry {
		if !t.entries[i].deleted {
			rank += int64(len(t.entries[i].list.rows))
		}
	}
	return rank + int64(l.pos) + 1
}

// move removes the row at l and appends (row, rk) to sort key sk's list,
// dropping the old entry when it empties. It returns the old row.
func (t *topN) move(l loc, sk, row, rk []byte) []byte {
	e := &t.entries[l.entry]
	old := e.list.rows[l.pos]
	e.list.rows = slices.Delete(e.list.rows, l.pos, l.pos+1)
	e.list.keys = slices.Delete(e.list.keys, l.pos, l.pos+1)
	e.dirty = true
	t.add(sk, row, rk)
	return old
}

func (t *topN) updatableWithRowNumber(in, rk []byte, out *stream.Output) error {
	l, held := t.locate(rk)
	if !held {
		if !t.inBufferRange(t.sk) {
			return nil
		}
		t.add(t.sk, in, rk)
		return t.updatableEmit(in, nil, nil, 0, out)
	}
	e := &t.entries[l.entry]
	oldSK := slices.Clone(e.key)
	switch c := bytes.Compare(t.sk, oldSK); {
	case c == 0:
		// The same sort key: the same rank, new content.
		rank := t.rankOf(l)
		old := e.list.rows[l.pos]
		e.list.rows[l.pos] = in
		e.dirty = true
		if err := t.emitRanked(out, types.UpdateBefore, old, rank); err != nil {
			return err
		}
		return t.emitRanked(out, types.UpdateAfter, in, rank)
	case c < 0:
		oldRank := t.rankOf(l)
		old := t.move(l, t.sk, in, rk)
		return t.updatableEmit(in, oldSK, old, oldRank, out)
	default:
		// The sort key got worse, which the strategy rules out (upstream
		// state expired by its TTL): Flink's lenient path, the old row
		// retracted, the rows between moved up, the new row at its rank.
		oldRank := t.rankOf(l)
		old := t.move(l, t.sk, in, rk)
		newL, _ := t.locate(rk)
		newRank := t.rankOf(newL)
		if err := t.emitRanked(out, types.UpdateBefore, old, oldRank); err != nil {
			return err
		}
		var rank int64
		for i := range t.entries {
			en := &t.entries[i]
			if en.deleted {
				continue
			}
			for _, r := range en.list.rows {
				rank++
				if rank == newRank {
					return t.emitRanked(out, types.UpdateAfter, in, newRank)
				}
				if oldRank <= rank {
					if err := t.emitRanked(out, types.UpdateBefore, r, rank+1); err != nil {
						return err
					}
					if err := t.emitRanked(out, types.UpdateAfter, r, rank); err != nil {
						return err
					}
				}
			}
		}
		return t.emitRanked(out, types.UpdateAfter, in, newRank)
	}
}

// updatableEmit emits the ranks a new or improved row (in, now at sort
// key t.sk) changed: the rows it passed move down one rank each, down to
// its old rank (oldSK, old and oldRank; old is nil for a new row), and
// drops the sort keys past End.
func (t *topN) updatableEmit(in, oldSK, old []byte, oldRank int64, out *stream.Output) error {
	var rank int64
	found, curIsIn, oldRetracted := false, false, false
	var cur []byte
	shift := func(prev []byte) error {
		if err := t.emitRanked(out, types.UpdateBefore, prev, rank); err != nil {
			return err
		}
		if curIsIn && old != nil && !oldRetracted {
			// The same unique key: its old row is retracted first.
			if err := t.emitRanked(out, types.UpdateBefore, old, oldRank); err != nil {
				return err
			}
			oldRetracted = true
		}
		if err := t.emitRanked(out, types.UpdateAfter, cur, rank); err != nil {
			return err
		}
		cur, curIsIn = prev, false
		rank++
		return nil
	}
	i := 0
loop:
	for ; i < len(t.entries) && rank <= t.spec.End; i++ {
		e := &t.entries[i]
		if e.deleted {
			continue
		}
		switch {
		case !found && bytes.Equal(e.key, t.sk):
			rank += int64(len(e.list.rows))
			cur, curIsIn, found = in, true, true
		case found && old == nil:
			for j := 0; j < len(e.list.rows) && rank <= t.spec.End; j++ {
				if err := shift(e.list.rows[j]); err != nil {
					return err
				}
			}
		case found:
			if bytes.Compare(e.key, oldSK) > 0 {
				i++ // past the old rank: nothing below moves
				break loop
			}
			for j := 0; j < len(e.list.rows) && rank < oldRank; j++ {
				if err := shift(e.list.rows[j]); err != nil {
					return err
				}
			}
		default:
			rank += int64(len(e.list.rows))
		}
	}
	if rank <= t.spec.End {
		if old == nil {
			return t.emitRanked(out, types.Insert, cur, rank)
		}
		// An update: the last row moved into the old rank.
		if !oldRetracted {
			if err := t.emitRanked(out, types.UpdateBefore, old, oldRank); err != nil {
				return err
			}
		}
		return t.emitRanked(out, types.UpdateAfter, cur, rank)
	}
	for ; i < len(t.entries); i++ {
		t.entries[i].deleted, t.entries[i].dirty = true, true
	}
	return nil
}

func (t *topN) updatableWithoutRowNumber(in, rk []byte, out *stream.Output) error {
	l, held := t.locate(rk)
	if held {
		e := &t.entries[l.entry]
		old := e.list.rows[l.pos]
		if !bytes.Equal(e.key, t.sk) {
			t.move(l, t.sk, in, rk)
		} else {
			e.list.rows[l.pos] = in
			e.dirty = true
		}
		if err := t.emitPlain(out, types.UpdateBefore, old); err != nil {
			return err
		}
		return t.emitPlain(out, types.UpdateAfter, in)
	}
	if !t.inBufferRange(t.sk) {
		return nil
	}
	t.add(t.sk, in, rk)
	if t.total() > t.spec.End {
		// The worst row leaves the top (the last of the last sort key).
		for i := len(t.entries) - 1; i >= 0; i-- {
			e := &t.entries[i]
			if e.deleted || len(e.list.rows) == 0 {
				continue
			}
			n := len(e.list.rows)
			evicted := e.list.rows[n-1]
			e.list.rows, e.list.keys = e.list.rows[:n-1], e.list.keys[:n-1]
			e.dirty = true
			if err := t.emitPlain(out, types.Delete, evicted); err != nil {
				return err
			}
			break
		}
	}
	return t.emitPlain(out, types.Insert, in)
}
