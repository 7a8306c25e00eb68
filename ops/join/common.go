package join

import (
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/ops/internal/slab"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// joiner is what the join operators share: the key of a row, the residual
// condition over a pair, and the output rows.
type joiner struct {
	spec *Spec
	maxP int
	cond Condition
	what string // the operator's name, for errors

	key []byte
	// keyHash is key's hash (state.Hash), whose remainder is its key
	// group.
	keyHash uint64
	joined  []types.Value // the pair, for the condition
	// condCols are the columns of the left and right row the condition
	// reads (Spec.ConditionColumns); nil: all of both.
	condCols [2][]int
	slabs    slab.Slabs
	width    int
}

func newJoiner(spec *Spec, task stream.TaskInfo, what string) joiner {
	j := joiner{spec: spec, maxP: task.MaxParallelism, what: what, width: spec.width()}
	if j.maxP <= 0 {
		j.maxP = state.DefaultMaxParallelism
	}
	if spec.NewCondition != nil {
		j.cond = spec.NewCondition()
		if spec.ConditionColumns != nil {
			nl := len(spec.Left.Types)
			j.condCols = [2][]int{{}, {}}
			for _, c := range spec.ConditionColumns {
				if c < nl {
					j.condCols[0] = append(j.condCols[0], c)
				} else {
					j.condCols[1] = append(j.condCols[1], c-nl)
				}
			}
		}
	}
	return j
}

// keyOf encodes the join key of row (of side s) into j.key and returns its
// key group; ok is false when a key column that is not null-safe is NULL:
// the row matches nothing.
func (j *joiner) keyOf(s *Side, row []types.Value) (kg int, ok bool) {
	for i, c := range s.Keys {
		if row[c].IsNull() && (j.spec.NullSafe == nil || !j.spec.NullSafe[i]) {
			return 0, false
		}
	}
	j.key = state.AppendKey(j.key[:0], row, s.Keys, j.spec.KeyTypes)
	j.keyHash = state.Hash(j.key)
	return state.KeyGroupOfHash(j.keyHash, j.maxP), true
}

// matches reports whether the pair (left, right) passes the residual
// condition.
func (j *joiner) matches(left, right []types.Value) (bool, error) {
	if j.cond == nil {
		return true, nil
	}
	if j.condCols[0] == nil {
		j.joined = append(append(j.joined[:0], left...), right...)
	} else {
		// Only the columns the condition reads: a pair of wide rows
		// (Nexmark q9's auction and bid) is copied for two or three.
		nl := len(left)
		if len(j.joined) != nl+len(right) {
			j.joined = make([]types.Value, nl+len(right))
		}
		for _, c := range j.condCols[0] {
			j.joined[c] = left[c]
		}
		for _, c := range j.condCols[1] {
			j.joined[nl+c] = right[c]
		}
	}
	ok, err := j.cond(j.joined)
	if err != nil {
		return false, fmt.Errorf("%s: %w", j.what, err)
	}
	return ok, nil
}

// emit emits the pair (left, right) with kind; a nil side is padded with
// NULLs. Semi and anti joins emit the left row only. The fields come from
// a slab shared by a few output rows (slab.Slabs: reused only when nothing
// after the operator keeps a row), and each is written.
func (j *joiner) emit(out *stream.Output, kind types.RowKind, left, right []types.Value) {
	f := j.slabs.Take(j.width)
	nl := len(j.spec.Left.Types)
	if left != nil {
		copy(f, left)
	} else {
		clear(f[:nl])
	}
	if !j.spec.Type.SemiOrAnti() {
		if right != nil {
			copy(f[nl:], right)
		} else {
			clear(f[nl:])
		}
	}
	out.Emit(types.Row{Kind: kind, Fields: f})
}

// allColumns returns 0, 1, ..., n-1.
func allColumns(n int) []int {
	cols := make([]int, n)
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// readCounts reads the two uvarints at the head of a stored value (a
// row's count and its number of matches) and returns the rest.
func readCounts(v []byte) (count, assoc int64, rest []byte, err error) {
	c, n := binary.Uvarint(v)
	if n <= 0 {
		return 0, 0, nil, fmt.Errorf("%w: a join row's count", state.ErrCorrupt)
	}
	a, m := binary.Uvarint(v[n:])
	if m <= 0 {
		return 0, 0, nil, fmt.Errorf("%w: a join row's matches", state.ErrCorrupt)
	}
	return int64(c), int64(a), v[n+m:], nil
}

func appendCounts(dst []byte, count, assoc int64) []byte {
	dst = binary.AppendUvarint(dst, uint64(max(count, 0)))
	return binary.AppendUvarint(dst, uint64(max(assoc, 0)))
}

// isAccumulate reports whether a row of kind k adds to its side (INSERT,
// UPDATE_AFTER) rather than retracting (UPDATE_BEFORE, DELETE).
func isAccumulate(k types.RowKind) bool { return k == types.Insert || k == types.UpdateAfter }
