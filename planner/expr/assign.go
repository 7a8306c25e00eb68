package expr

import (
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// AssignmentError is returned by [AssignTo] when a value of type From cannot
// be written to a column of type To without an explicit CAST. NotNull is
// set when the only problem is a nullable value for a NOT NULL column.
type AssignmentError struct {
	From, To types.Type
	NotNull  bool
}

// Error describes the problem for the user.
func (e *AssignmentError) Error() string {
	if e.NotNull {
		return fmt.Sprintf("cannot write nullable %s to a NOT NULL column of type %s; cast it or filter out NULLs", e.From, e.To)
	}
	return fmt.Sprintf("cannot write %s to a column of type %s without an explicit CAST", e.From, e.To)
}

// ImplicitCastAllowed reports whether a value of type from may be written to
// a column of type to without a CAST (Flink's LogicalTypeCasts
// supportsImplicitCast; nullability is not considered): widening between
// integers; any exact numeric to DECIMAL; integers and DECIMAL to FLOAT; any
// number to DOUBLE; any character string to CHAR/VARCHAR and any binary
// string to BINARY/VARBINARY; TIMESTAMP, TIMESTAMP_LTZ and TIME to the same
// kind of any precision; collections element-wise; NULL to anything.
func ImplicitCastAllowed(from, to types.Type) bool {
	if from.Kind == types.KindNull {
		return true
	}
	ff, ft := familyOf(from), familyOf(to)
	switch to.Kind {
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return from.IsInteger() && numericRank(from.Kind) <= numericRank(to.Kind)
	case types.KindDecimal:
		return from.IsInteger() || from.Kind == types.KindDecimal
	case types.KindFloat:
		return ff == famNumeric && from.Kind != types.KindDouble
	case types.KindDouble:
		return ff == famNumeric
	case types.KindChar, types.KindVarChar:
		return ff == famString
	case types.KindBinary, types.KindVarBinary:
		return ff == famBinary
	case types.KindTimestamp, types.KindTimestampLTZ, types.KindDate, types.KindTime, types.KindBoolean:
		return from.Kind == to.Kind
	case types.KindArray, types.KindMultiset:
		return from.Kind == to.Kind && ImplicitCastAllowed(*from.Elem, *to.Elem)
	case types.KindMap:
		return from.Kind == to.Kind && ImplicitCastAllowed(*from.Elem, *to.Elem) && ImplicitCastAllowed(*from.Value, *to.Value)
	case types.KindRow:
		if from.Kind != to.Kind || len(from.Fields) != len(to.Fields) {
			return false
		}
		for i := range from.Fields {
			if !ImplicitCastAllowed(from.Fields[i].Type, to.Fields[i].Type) {
				return false
			}
		}
		return true
	}
	return ff == ft && from.Nullable().Equal(to.Nullable())
}

// AssignTo resolves e and converts it for writing to a column of type
// target (an INSERT's sink column): e itself when the types already agree,
// an implicit cast when Flink allows one, otherwise an [*AssignmentError]. A
// nullable expression is refused for a NOT NULL column unless it is an
// explicit CAST or TRY_CAST (the user took responsibility for it).
func AssignTo(e Expr, target types.Type) (Expr, error) {
	r, err := Resolve(e)
	if err != nil {
		return nil, err
	}
	from := r.Type()
	if !ImplicitCastAllowed(from, target) {
		return nil, &AssignmentError{From: from, To: target}
	}
	if target.NotNull && !from.NotNull {
		if _, explicit := e.(*Cast); !explicit {
			return nil, &AssignmentError{From: from, To: target, NotNull: true}
		}
	}
	return coerce(r, target), nil
}
