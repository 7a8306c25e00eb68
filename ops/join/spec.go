// Package join holds the join operators of SQL's FROM a JOIN b: the
// regular join of two changelogs ([New], Flink's Join), the interval join
// of two insert-only streams bounded in event time ([NewInterval], Flink's
// IntervalJoin), and the window join of two windowed streams
// ([NewWindow], Flink's WindowJoin).
//
// Every join has two inputs, 0 the left and 1 the right, each hashed by
// its equi-join key (the columns of each side's Side.Keys, encoded with
// Spec.KeyTypes: the planner casts both sides' key columns to common
// types, so that equal keys encode alike and reach the same task), or
// gathered in one task when the join has no equi-join key. The output row
// is the left row's columns then the right row's (only the left row's for
// SEMI and ANTI joins); the side an outer join pads holds NULLs.
//
// The state each keeps and what bounds it:
//
//   - The regular join keeps every row of both sides by join key, for ever
//     unless a TTL bounds it (Side.TTL: table.exec.state.ttl, or a
//     STATE_TTL hint): a row not written for the TTL is forgotten, and a
//     row of the other side arriving later no longer finds it.
//   - The interval join keeps a row only while rows of the other side
//     within its time bounds may still arrive: until the watermark passes
//     the row's time plus the bound.
//   - The window join keeps a window's rows until the watermark passes the
//     window's end, when it joins and forgets them.
//
// Keys and rows are kept encoded (package state's codec), never as
// decoded rows.
package join

import (
	"fmt"
	"time"

	"github.com/streamsql/streamsql/types"
)

// Type is a join type.
type Type uint8

// The join types.
const (
	// Inner emits the pairs of rows that match.
	Inner Type = iota
	// Left also emits each left row that matches no right row, padded
	// with NULLs (LEFT OUTER JOIN); Right the same for right rows; Full
	// both.
	Left
	Right
	Full
	// Semi emits each left row that matches a right row (EXISTS, IN);
	// Anti each left row that matches none (NOT EXISTS, NOT IN).
	Semi
	Anti
)

var typeNames = [...]string{"InnerJoin", "LeftOuterJoin", "RightOuterJoin", "FullOuterJoin", "LeftSemiJoin", "LeftAntiJoin"}

// String returns Flink's name of the join type ("LeftOuterJoin").
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", t)
}

// LeftOuter reports whether left rows without a match are emitted padded.
func (t Type) LeftOuter() bool { return t == Left || t == Full }

// RightOuter reports whether right rows without a match are emitted
// padded.
func (t Type) RightOuter() bool { return t == Right || t == Full }

// SemiOrAnti reports whether the join emits left rows only.
func (t Type) SemiOrAnti() bool { return t == Semi || t == Anti }

// Side describes one input of a join.
type Side struct {
	// Types are the input row's column types.
	Types []types.Type
	// Keys are the columns of the equi-join key, in the order of
	// Spec.KeyTypes; nil for a join without one (every row in one task).
	Keys []int
	// UniqueKey are the columns of a unique key of the input (an upsert
	// key: at most one row of the input holds each value at any time),
	// nil when it has none. With one the state keeps a row per unique key
	// rather than a count per distinct row (regular joins only).
	UniqueKey []int
	// InsertOnly says that the input only ever inserts rows (its changelog
	// is [I]): no retraction will ask to remove a row. A side with it, no
	// unique key, no TTL and no number of matches to keep (not a side an
	// outer join preserves) keeps its rows as a list per join key
	// (state.ListTable: an append per row) where the backend has list
	// tables, instead of a count per distinct row.
	InsertOnly bool
	// TTL forgets a row of this side not written for TTL
	// (table.exec.state.ttl, or the STATE_TTL hint of this side's table);
	// 0 keeps rows until they are retracted (regular joins only).
	TTL time.Duration
}

// Condition is a join's residual condition (what is not an equi-join key)
// over the joined row: the left row's columns then the right row's. It
// reports whether the pair matches (NULL does not).
type Condition func(row []types.Value) (bool, error)

// Spec configures a regular join (New).
type Spec struct {
	Type        Type
	Left, Right Side
	// KeyTypes are the types of the equi-join key's columns (both sides
	// hold them with these types).
	KeyTypes []types.Type
	// NullSafe[i] makes key column i match NULL with NULL (IS NOT
	// DISTINCT FROM); otherwise a row whose key holds a NULL matches
	// nothing. nil: none is.
	NullSafe []bool
	// NewCondition returns the residual condition of one task; nil: none.
	NewCondition func() Condition
	// ConditionColumns, when set, are the only columns of the joined row
	// the condition reads: a probe hands it those of each pair and leaves
	// the others as an earlier pair had them. nil: it may read any.
	ConditionColumns []int
	// Prune, when set, drops the left input's rows that can match no
	// right row still to come (an INNER join whose right input is a
	// window aggregation; see Prune).
	Prune *Prune
}

func (s *Spec) check(what string) error {
	if s.Type > Anti {
		return fmt.Errorf("%s: unknown join type %d", what, s.Type)
	}
	for i, sd := range []*Side{&s.Left, &s.Right} {
		if len(sd.Keys) != len(s.KeyTypes) {
			return fmt.Errorf("%s: input %d has %d key columns but the join has %d key types", what, i, len(sd.Keys), len(s.KeyTypes))
		}
		for _, c := range append(append([]int(nil), sd.Keys...), sd.UniqueKey...) {
			if c < 0 || c >= len(sd.Types) {
				return fmt.Errorf("%s: input %d has no column %d", what, i, c)
			}
		}
	}
	if p := s.Prune; p != nil && (s.Type != Inner || p.Time < 0 || p.Time >= len(s.Left.Types) || !s.Left.Types[p.Time].IsTimestamp()) {
		return fmt.Errorf("%s: pruning the left input's rows needs an INNER join and a timestamp column of the left input", what)
	}
	if s.NullSafe != nil && len(s.NullSafe) != len(s.KeyTypes) {
		return fmt.Errorf("%s: %d null-safe flags for %d key columns", what, len(s.NullSafe), len(s.KeyTypes))
	}
	return nil
}

// width returns the number of output columns.
func (s *Spec) width() int {
	if s.Type.SemiOrAnti() {
		return len(s.Left.Types)
	}
	return len(s.Left.Types) + len(s.Right.Types)
}
