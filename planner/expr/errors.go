package expr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// UnknownFunctionError is returned by [Resolve] for a call of a function
// that does not exist. Suggestion is the nearest known name, or empty.
type UnknownFunctionError struct {
	Name       string
	Suggestion string
}

// Error describes the problem for the user.
func (e *UnknownFunctionError) Error() string {
	msg := "unknown function " + e.Name
	if e.Suggestion != "" {
		msg += "; did you mean " + e.Suggestion + "?"
	}
	return msg
}

// ArgumentError is returned by [Resolve] when a function or operator is
// called with arguments it does not accept. Given lists the argument types
// of the call; Expected describes the accepted signatures.
type ArgumentError struct {
	Function string
	Given    []types.Type
	Expected string
}

// Error describes the problem for the user.
func (e *ArgumentError) Error() string {
	given := make([]string, len(e.Given))
	for i, t := range e.Given {
		given[i] = t.String()
	}
	return fmt.Sprintf("invalid arguments for %s: got (%s), expected %s",
		e.Function, strings.Join(given, ", "), e.Expected)
}

// CastError is returned by [Resolve] for a CAST between types that cannot
// be converted.
type CastError struct {
	From, To types.Type
}

// Error describes the problem for the user.
func (e *CastError) Error() string {
	return fmt.Sprintf("cannot cast %s to %s", e.From, e.To)
}

// Runtime errors, wrapped in an [*EvalError] by the evaluators.
var (
	// ErrDivisionByZero is returned when an integer or DECIMAL is divided
	// by zero (Flink throws ArithmeticException; DOUBLE division gives
	// Infinity or NaN instead). It is types.ErrDivisionByZero, which
	// DECIMAL arithmetic in package types returns.
	ErrDivisionByZero = types.ErrDivisionByZero
	// ErrCast is returned when CAST cannot convert a value (TRY_CAST gives
	// NULL instead).
	ErrCast = errors.New("invalid cast")
	// ErrInvalidArgument is returned when a function receives an argument
	// value it rejects, for example an invalid regular expression.
	ErrInvalidArgument = errors.New("invalid argument")
)

// EvalError is returned by an evaluator when evaluating an expression fails
// for one row. Expr is the SQL text of the failing sub-expression.
type EvalError struct {
	Expr string
	Err  error
}

// Error describes the problem for the user.
func (e *EvalError) Error() string { return "evaluating " + e.Expr + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *EvalError) Unwrap() error { return e.Err }
