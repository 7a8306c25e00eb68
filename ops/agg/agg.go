// Package agg holds SQL's aggregate functions (COUNT, SUM, AVG, MIN, MAX,
// FIRST_VALUE, LAST_VALUE, LISTAGG, ARRAY_AGG, JSON_ARRAYAGG, JSON_OBJECTAGG,
// SINGLE_VALUE; DISTINCT and FILTER variants) and the
// GROUP BY operator that keeps them per key ([NewGroupAggregate], Flink's
// GroupAggregate). The window operators (package ops/window) use the same
// accumulators.
//
// Accumulators live in keyed state as bytes ([Accumulators.Append] and
// [Accumulators.Read]), one record per key holding every call's
// accumulator and the number of rows the key holds; what a function needs
// beyond a fixed-size accumulator (the distinct values of a DISTINCT call,
// the values of a MIN or MAX whose input retracts) is kept in map tables
// of its own. The planner decides the calls, their argument columns and
// result types ([ResultType]) from the query; this package knows nothing
// of SQL text.
package agg

import (
	"fmt"
	"slices"
	"time"

	"github.com/streamsql/streamsql/types"
)

// Func is an aggregate function.
type Func uint8

// The aggregate functions.
const (
	// Count is COUNT(x) (rows where x is not NULL), or COUNT(*) when the
	// call's Arg is -1.
	Count Func = iota
	// Sum is SUM(x): NULL when no row had a non-NULL x.
	Sum
	// Avg is AVG(x): the sum divided by the count, in the result type
	// (integer division for integer arguments, as Flink does).
	Avg
	// Min and Max are MIN(x) and MAX(x).
	Min
	Max
	// FirstValue and LastValue are FIRST_VALUE(x) and LAST_VALUE(x): the
	// first and the last non-NULL x in arrival order.
	FirstValue
	LastValue
	// ListAgg is LISTAGG(x [, sep]): the non-NULL x concatenated in arrival
	// order, separated by sep (',' by default).
	ListAgg
	// ArrayAgg is ARRAY_AGG(x): every x, NULLs included, in arrival order
	// (NULL when there is none); a retraction removes the first element
	// equal to its x, as Flink's ArrayAggFunction does.
	ArrayAgg
	// JSONArrayAgg is JSON_ARRAYAGG(x): the non-NULL x as a JSON array,
	// in arrival order ('[]' when there is none); it retracts as ArrayAgg.
	JSONArrayAgg
	// JSONObjectAgg is JSON_OBJECTAGG(KEY k VALUE v): its argument is
	// ROW(k, v), and its result a JSON object of each row's k and v, the
	// keys in order (as Flink writes them), a NULL v written as null
	// (Call.Absent: left out); a NULL key or a key two rows have fails,
	// as in Flink. It keeps and retracts its rows as ArrayAgg.
	JSONObjectAgg
	// SingleValue is SINGLE_VALUE(x), the value of a scalar subquery that
	// may return more than one row: NULL without a row, x of the only
	// row, and an error when a second row arrives (as Flink's
	// SingleValueAggFunction). It keeps and retracts its rows as ArrayAgg.
	SingleValue
)

var funcNames = [...]string{"COUNT", "SUM", "AVG", "MIN", "MAX", "FIRST_VALUE", "LAST_VALUE", "LISTAGG", "ARRAY_AGG", "JSON_ARRAYAGG", "JSON_OBJECTAGG", "SINGLE_VALUE"}

// KeepsRows reports whether f's accumulator keeps every row's argument
// (ARRAY_AGG, JSON_ARRAYAGG, JSON_OBJECTAGG, SINGLE_VALUE), so that it
// grows with the rows and retracts a row by finding its value.
func (f Func) KeepsRows() bool {
	return f == ArrayAgg || f == JSONArrayAgg || f == JSONObjectAgg || f == SingleValue
}

// String returns the function's SQL name.
func (f Func) String() string {
	if int(f) < len(funcNames) {
		return funcNames[f]
	}
	return fmt.Sprintf("Func(%d)", f)
}

// Lookup returns the function called name (upper case), if it is one of
// this package's.
func Lookup(name string) (Func, bool) {
	for i, n := range funcNames {
		if n == name {
			return Func(i), true
		}
	}
	return 0, false
}

// Call is one aggregate call of a GROUP BY or window aggregation.
type Call struct {
	// Func is the function.
	Func Func
	// Arg is the input column of the argument; -1 for COUNT(*).
	Arg int
	// ArgType is the argument's type.
	ArgType types.Type
	// Separator is LISTAGG's separator.
	Separator string
	// Absent is JSON_OBJECTAGG's ABSENT ON NULL: members whose value is
	// NULL are left out (NULL ON NULL, the default, writes null).
	Absent bool
	// Distinct aggregates each distinct argument value once (COUNT(DISTINCT
	// x)); a value retracted as often as it was added is forgotten.
	Distinct bool
	// Filter is the input column of the call's FILTER (WHERE ...)
	// condition, a BOOLEAN: rows where it is not TRUE are skipped; -1:
	// none.
	Filter int
	// Result is the call's result type (ResultType).
	Result types.Type
}

// String describes the call, for EXPLAIN: "COUNT(DISTINCT $2) FILTER $5".
func (c Call) String() string {
	arg := "*"
	if c.Arg >= 0 {
		arg = fmt.Sprintf("$%d", c.Arg)
	}
	if c.Distinct {
		arg = "DISTINCT " + arg
	}
	s := fmt.Sprintf("%s(%s)", c.Func, arg)
	if c.Filter >= 0 {
		s += fmt.Sprintf(" FILTER $%d", c.Filter)
	}
	return s
}

// ResultType returns the result type of f over an argument of type arg
// (ignored for COUNT), by Flink's rules (LogicalTypeMerging's
// findSumAggType and findAvgAggType; COUNT is BIGINT NOT NULL). grouped
// says whether the aggregation has grouping keys: without them SUM, AVG,
// MIN and MAX of an empty input are NULL, so they are nullable. It
// returns an error for an argument type the function does not take.
func ResultType(f Func, arg types.Type, grouped bool) (types.Type, error) {
	switch f {
	case Count:
		return types.BigInt().NotNullable(), nil
	case Sum, Avg:
		if !arg.IsNumeric() {
			return types.Type{}, fmt.Errorf("%s does not take an argument of type %s; it needs a numeric one", f, arg)
		}
		t := arg
		if arg.Kind == types.KindDecimal {
			scale := arg.Scale
			if f == Sum {
				t = types.DecimalType(types.MaxDecimalPrecision, scale)
			} else {
				p, s := types.DecimalDivType(types.MaxDecimalPrecision, scale, 20, 0)
				t = types.DecimalType(p, s)
			}
		}
		t.NotNull = arg.NotNull && grouped
		return t, nil
	case Min, Max:
		if !comparable(arg) {
			return types.Type{}, fmt.Errorf("%s does not take an argument of type %s", f, arg)
		}
		t := arg
		t.NotNull = arg.NotNull && grouped
		return t, nil
	case FirstValue, LastValue:
		t := arg
		t.NotNull = false
		return t, nil
	case ListAgg:
		if !arg.IsString() {
			return types.Type{}, fmt.Errorf("LISTAGG does not take an argument of type %s; it needs a string", arg)
		}
		return types.String(), nil
	case ArrayAgg:
		if arg.Kind == types.KindNull {
			return types.Type{}, fmt.Errorf("ARRAY_AGG does not take an argument of type %s", arg)
		}
		return types.Array(arg), nil
	case JSONArrayAgg:
		if !jsonScalar(arg) {
			return types.Type{}, fmt.Errorf("JSON_ARRAYAGG of %s is not supported yet; it takes strings, integers and BOOLEAN", arg)
		}
		return types.String().NotNullable(), nil
	case SingleValue:
		if arg.Kind == types.KindNull {
			return types.Type{}, fmt.Errorf("SINGLE_VALUE does not take an argument of type %s", arg)
		}
		return arg.Nullable(), nil
	case JSONObjectAgg:
		if arg.Kind != types.KindRow || len(arg.Fields) != 2 || !arg.Fields[0].Type.IsString() {
			return types.Type{}, fmt.Errorf("JSON_OBJECTAGG takes a string key and a value, not %s", arg)
		}
		if v := arg.Fields[1].Type; !jsonScalar(v) && v.Kind != types.KindNull {
			return types.Type{}, fmt.Errorf("JSON_OBJECTAGG of %s values is not supported yet; it takes strings, integers and BOOLEAN", v)
		}
		return types.String().NotNullable(), nil
	}
	return types.Type{}, fmt.Errorf("unknown aggregate function %v", f)
}

// jsonScalar reports whether JSON_ARRAYAGG and JSON_OBJECTAGG take values
// of type t.
func jsonScalar(t types.Type) bool {
	return t.IsString() || t.IsInteger() || t.Kind == types.KindBoolean
}

// comparable reports whether MIN and MAX take values of type t.
func comparable(t types.Type) bool {
	switch t.Kind {
	case types.KindArray, types.KindMap, types.KindMultiset, types.KindRow, types.KindNull:
		return false
	}
	return true
}

// Spec configures a GROUP BY aggregation (NewGroupAggregate). Its input
// rows are the grouping key's columns, the calls' argument and filter
// columns, in any layout the spec's indexes describe; its output rows are
// the key's values followed by the calls' results.
type Spec struct {
	// Keys are the input columns of the grouping key, KeyTypes their
	// types. An aggregation without keys (SELECT COUNT(*) FROM t) runs in
	// one task.
	Keys     []int
	KeyTypes []types.Type
	// Calls are the aggregate calls.
	Calls []Call
	// Retracting says that the input has UPDATE_BEFORE and DELETE rows,
	// which the accumulators retract.
	Retracting bool
	// UpdateBefore says that the output's consumer needs an UPDATE_BEFORE
	// row with the old result before each UPDATE_AFTER (Flink's
	// generateUpdateBefore).
	UpdateBefore bool
	// TTL expires a key's state when the key had no row for TTL
	// (table.exec.state.ttl); 0: never. A key that comes back after
	// expiring starts afresh, as in Flink.
	TTL time.Duration
	// MiniBatch, when positive, folds the rows of each key in up to
	// MiniBatch consecutive rows of one input batch before emitting: one
	// change per key (INSERT, or UPDATE_BEFORE and UPDATE_AFTER when the
	// result changed) instead of one per row, as Flink's mini-batch
	// (table.exec.mini-batch.enabled, table.exec.mini-batch.size) emits
	// one per key per bundle. Nothing is held past the input batch, so
	// nothing is buffered at a checkpoint's barrier. The fold needs the
	// cache of decoded accumulators: under a TTL and with LISTAGG,
	// ARRAY_AGG or JSON_ARRAYAGG the operator emits per row (see
	// [Spec.Folds]). A key whose last row is retracted emits its DELETE
	// at once; a key taken out of the cache within the batch (more keys
	// than the cache holds) emits its change then.
	MiniBatch int
}

// Folds reports whether the GROUP BY of s folds each key's rows of an
// input batch into one change (Spec.MiniBatch); false when it emits a
// change per row.
func (s *Spec) Folds() bool {
	return s.MiniBatch > 0 && s.cached()
}

// cached reports whether the GROUP BY of s keeps recently updated keys'
// accumulators decoded (see slot): not under a TTL (a write sets an
// entry's time) nor with an accumulator that grows without bound.
func (s *Spec) cached() bool {
	return s.TTL == 0 && !slices.ContainsFunc(s.Calls, func(c Call) bool {
		return c.Func == ListAgg || c.Func.KeepsRows()
	})
}
