package expr

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Function is a scalar function written in Go that a program registers
// (job.Options.Functions, planner.Options.Functions): SQL calls it by its
// name as it calls a built-in one, and CREATE FUNCTION name AS 'class'
// binds to it when its name or one of its Classes is the statement's (so
// that a job file written for Flink, whose function is a Java class, runs
// unchanged against the Go function that does the same).
type Function struct {
	// Name is the function's SQL name; case does not matter.
	Name string
	// Classes are other names CREATE FUNCTION may give it: the Java classes
	// of the Flink functions it stands for.
	Classes []string
	// Args are the parameter types; an argument is converted to its
	// parameter's type as a value is to a column's (an INT to a BIGINT
	// parameter; no narrowing).
	Args []types.Type
	// Result is the result type.
	Result types.Type
	// Eval computes the result from the arguments (of Args' types). It
	// must be safe for concurrent use and must not keep args. Unless
	// CallOnNull is set, a NULL argument gives NULL without a call.
	Eval       func(args []types.Value) (types.Value, error)
	CallOnNull bool
	// NonDeterministic marks a function whose result may change between
	// calls with the same arguments: it is never evaluated ahead of time.
	NonDeterministic bool
}

// Check returns an error when f cannot be registered: no name, a name of
// a built-in function, no Eval, or a parameter or result type that is not
// valid.
func (f *Function) Check() error {
	name := strings.ToUpper(f.Name)
	switch {
	case name == "":
		return fmt.Errorf("a Go function without a name")
	case registry[name] != nil:
		return fmt.Errorf("the Go function %s: a built-in function has that name", f.Name)
	case f.Eval == nil:
		return fmt.Errorf("the Go function %s has no Eval", f.Name)
	case f.Result.Kind == types.KindInvalid || f.Result.Kind == types.KindNull:
		return fmt.Errorf("the Go function %s has no result type", f.Name)
	}
	return nil
}

// UserFn returns a call of Go function f, to be resolved.
func UserFn(f *Function, args ...Expr) *Call {
	return &Call{Name: strings.ToUpper(f.Name), Args: args, user: f}
}

// userDef is the function definition of a call of Go function f.
func userDef(f *Function) *funcDef {
	var sig []string
	for _, a := range f.Args {
		sig = append(sig, a.String())
	}
	return &funcDef{
		name: strings.ToUpper(f.Name), minArgs: len(f.Args), maxArgs: len(f.Args),
		expected:         strings.ToUpper(f.Name) + "(" + strings.Join(sig, ", ") + ")",
		nonDeterministic: f.NonDeterministic,
		check: func(c *Call) (types.Type, error) {
			nullable := false
			for i, a := range c.Args {
				want := f.Args[i]
				if a.Type().Kind == types.KindNull {
					c.Args[i] = &Cast{Expr: a, Target: want.Nullable()}
					nullable = true
					continue
				}
				if !a.Type().Nullable().Equal(want.Nullable()) {
					cast, err := AssignTo(a, want.Nullable())
					if err != nil {
						return types.Type{}, errArgs
					}
					c.Args[i] = cast
				}
				nullable = nullable || !c.Args[i].Type().NotNull
			}
			t := f.Result
			if nullable || f.CallOnNull {
				t = t.Nullable()
			}
			return t, nil
		},
		build: func(b *builder, c *Call, args []evalFn) (evalFn, error) {
			if b.memo != nil {
				ops := make([]operand, len(args))
				for i, a := range args {
					ops[i] = b.operandOf(c.Args[i], a)
				}
				return reusingArgs(f, ops), nil
			}
			if f.CallOnNull {
				return func(row []types.Value) (types.Value, error) {
					vals := make([]types.Value, len(args))
					for i, a := range args {
						v, err := a(row)
						if err != nil {
							return types.Value{}, err
						}
						vals[i] = v
					}
					return f.Eval(vals)
				}, nil
			}
			return strictN(args, f.Eval), nil
		},
	}
}

// reusingArgs is a Go function's call in a compilation for one goroutine
// (CompileFlow's, whose memo is set): the arguments are written in place
// (operand.into: a column or ROW field copied, a memo cell read, a node's
// dstFn) into one slice of the call site's, reused from call to call
// (Eval must not keep it) and cleared after each, not into a slice
// allocated per call. A NULL argument gives NULL without a call unless
// f.CallOnNull; an argument's error ends the call, as strictN's.
func reusingArgs(f *Function, ops []operand) evalFn {
	buf := make([]types.Value, len(ops))
	return func(row []types.Value) (types.Value, error) {
		for i := range ops {
			if err := ops[i].into(row, &buf[i]); err != nil || (buf[i].IsNull() && !f.CallOnNull) {
				clear(buf[:i+1])
				return types.Value{}, err
			}
		}
		r, err := f.Eval(buf)
		clear(buf)
		return r, err
	}
}
