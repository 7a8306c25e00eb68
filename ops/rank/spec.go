// Package rank holds the operators of SQL's ranking pattern — a subquery
// with ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) and an outer
// filter on the row number:
//
//   - Top-N ([NewTopN], Flink's Rank): the first N rows of each partition
//     by the ORDER BY key, kept up to date as rows arrive (and, over an
//     updating input, as they change or go), emitted as a changelog.
//   - Deduplication ([NewDeduplicate], Flink's Deduplicate): rn = 1
//     ordered by a time attribute keeps the first (ASC) or the last (DESC)
//     row of each partition.
//   - Window Top-N and window deduplication ([NewWindow], Flink's
//     WindowRank and WindowDeduplicate): the same per window of a window
//     table function, emitted once, as inserts, when the window ends.
//
// Each mirrors the row kinds of the Flink function it stands for
// (AppendOnlyTopNFunction, RetractableTopNFunction, UpdatableTopNFunction,
// FastTop1Function, AppendOnlyFirstNFunction, the deduplicate functions),
// so that the same input gives the same changelog. State is kept encoded
// (package state's codec), the rows of a partition in a map table whose
// sub-keys are the rows' ORDER BY keys in an order-preserving encoding
// ([AppendSortKey]): a partition's rows come out of the table in rank
// order.
package rank

import (
	"fmt"
	"time"

	"github.com/streamsql/streamsql/types"
)

// SortKey is one column of an ORDER BY.
type SortKey struct {
	// Col is the input column.
	Col int
	// Desc orders descending.
	Desc bool
	// NullsLast puts NULL after every value (SQL's NULLS LAST); Flink's
	// default is NULLS FIRST for ASC and NULLS LAST for DESC (NULL is the
	// smallest value).
	NullsLast bool
}

// String returns "$2 DESC NULLS LAST", for EXPLAIN.
func (k SortKey) String() string {
	s := fmt.Sprintf("$%d", k.Col)
	if k.Desc {
		s += " DESC"
	}
	if k.NullsLast != k.Desc {
		if k.NullsLast {
			s += " NULLS LAST"
		} else {
			s += " NULLS FIRST"
		}
	}
	return s
}

// Strategy is how a Top-N keeps its state, which depends on its input
// (Flink's RankProcessStrategy).
type Strategy uint8

// The strategies.
const (
	// AppendOnly is for an insert-only input: only the rows that may still
	// rank are kept (at most N per partition, and the rows tied with the
	// N-th), since a row that fell out never comes back (Flink's
	// AppendFastStrategy).
	AppendOnly Strategy = iota
	// Retract is for an input with updates and deletes: every row of a
	// partition is kept, since a retraction of a ranked row brings the
	// next one back (Flink's RetractStrategy). Only table.exec.state.ttl
	// bounds it.
	Retract
	// Updatable is for an input that updates rows by a unique key
	// (Spec.RowKey) without retracting them, whose ORDER BY key only
	// improves (a COUNT ordered DESC): only the top rows are kept (Flink's
	// UpdateFastStrategy).
	Updatable
)

var strategyNames = [...]string{"AppendFast", "Retract", "UpdateFast"}

// String returns Flink's name of the strategy ("AppendFast").
func (s Strategy) String() string {
	if int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", s)
}

// Spec configures a Top-N (NewTopN). Its input rows are those of the
// ranked relation; its output rows are the input rows, followed by the
// row number (a BIGINT) when OutputRank is set.
type Spec struct {
	// Types are the input row's column types.
	Types []types.Type
	// Partition are the PARTITION BY columns (nil: one partition, in one
	// task).
	Partition []int
	// Order is the ORDER BY.
	Order []SortKey
	// Start and End are the ranks kept, 1-based and inclusive: rn <= 3 is
	// 1 and 3, rn BETWEEN 2 AND 3 is 2 and 3.
	Start, End int64
	// OutputRank appends the row number to each output row. Without it a
	// row that changes rank emits nothing (Flink's "rank number not
	// output" optimisation), unless Start > 1.
	OutputRank bool
	// Strategy is how the state is kept (see Strategy).
	Strategy Strategy
	// RowKey are the columns of the input's unique key (Updatable only).
	RowKey []int
	// FirstN says that Order is processing time ascending: the first rows
	// of each partition to arrive are its top, and a later row never
	// displaces one (Flink's AppendOnlyFirstNFunction). Insert-only input.
	FirstN bool
	// UpdateBefore says that the consumer needs an UPDATE_BEFORE row
	// before each UPDATE_AFTER.
	UpdateBefore bool
	// TTL forgets state not written for TTL (table.exec.state.ttl); 0:
	// never.
	TTL time.Duration
}

// Top1 reports whether the spec keeps the first row only (rn <= 1), which
// needs only one row of state per partition unless the input retracts
// (Flink's FastTop1Function).
func (s *Spec) Top1() bool {
	return s.Start == 1 && s.End == 1 && s.Strategy != Retract && !s.FirstN
}

// Function names the Flink function whose changelog the operator of s
// emits, for EXPLAIN.
func (s *Spec) Function() string {
	switch {
	case s.FirstN:
		return "AppendOnlyFirstN"
	case s.Top1():
		return "FastTop1"
	case s.Strategy == Retract:
		return "RetractableTopN"
	case s.Strategy == Updatable:
		return "UpdatableTopN"
	}
	return "AppendOnlyTopN"
}

func (s *Spec) check() error {
	switch {
	case s.Start < 1 || s.End < s.Start:
		return fmt.Errorf("top-n: the ranks %d to %d are no range (ranks start at 1)", s.Start, s.End)
	case len(s.Order) == 0 && !s.FirstN:
		return fmt.Errorf("top-n: no ORDER BY")
	case s.Strategy == Updatable && len(s.RowKey) == 0:
		return fmt.Errorf("top-n: the updatable strategy needs the input's unique key")
	}
	if err := checkCols("top-n", s.Types, s.Partition); err != nil {
		return err
	}
	if err := checkCols("top-n", s.Types, s.RowKey); err != nil {
		return err
	}
	for _, k := range s.Order {
		if err := checkCols("top-n", s.Types, []int{k.Col}); err != nil {
			return err
		}
	}
	return nil
}

func checkCols(what string, ts []types.Type, cols []int) error {
	for _, c := range cols {
		if c < 0 || c >= len(ts) {
			return fmt.Errorf("%s: the input has no column %d", what, c)
		}
	}
	return nil
}

// DedupSpec configures a deduplication (NewDeduplicate): ROW_NUMBER()
// OVER (PARTITION BY ... ORDER BY time) = 1 without the row number in the
// output. Input and output rows have the same layout; the input inserts
// only.
type DedupSpec struct {
	// Types are the row's column types.
	Types []types.Type
	// Partition are the PARTITION BY columns.
	Partition []int
	// Time is the rowtime column ordered by; -1 for processing time.
	Time int
	// KeepLast keeps the last row (ORDER BY time DESC): each later row
	// replaces it, an update. Otherwise the first row (ASC) is kept and
	// the output inserts only: over processing time at once, over event
	// time when the watermark passes the row's time (an earlier row may
	// still come until then).
	KeepLast bool
	// OutputRank appends the row number, always 1, to each row (the query
	// selects it).
	OutputRank bool
	// UpdateBefore: see Spec.
	UpdateBefore bool
	// TTL: see Spec.
	TTL time.Duration
}

// Describe returns "keep=[LastRow], order=[ROWTIME]" (Flink's words), for
// EXPLAIN.
func (s *DedupSpec) Describe() string {
	keep, order := "FirstRow", "ROWTIME"
	if s.KeepLast {
		keep = "LastRow"
	}
	if s.Time < 0 {
		order = "PROCTIME"
	}
	return fmt.Sprintf("keep=[%s], order=[%s]", keep, order)
}

// InsertOnly reports whether the deduplication emits inserts only.
func (s *DedupSpec) InsertOnly() bool { return !s.KeepLast }
