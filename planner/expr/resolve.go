package expr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/internal/suggest"
	"github.com/streamsql/streamsql/types"
)

// funcDef is one entry of the function registry: how to type-check a call
// and how to build its evaluator.
type funcDef struct {
	name string
	// minArgs and maxArgs bound the argument count; maxArgs < 0 means
	// variadic.
	minArgs, maxArgs int
	// expected describes the accepted signatures for error messages.
	expected string
	// check computes the result type from the resolved arguments. It may
	// replace c.Args[i] with implicit casts. It returns errArgs when the
	// argument types are not accepted.
	check func(c *Call) (types.Type, error)
	// build returns the evaluator of a resolved call given its arguments'
	// evaluators.
	build func(b *builder, c *Call, args []evalFn) (evalFn, error)
	// nonDeterministic marks functions whose result changes between calls
	// with the same input (NOW, UUID, ...); they are never folded.
	nonDeterministic bool
}

// errArgs is returned by check functions to have resolveCall report an
// ArgumentError with the function's expected signatures.
var errArgs = fmt.Errorf("wrong argument types")

// registry maps upper-cased names to functions: builtins and their
// aliases (builtins.go). It is filled at init and read-only afterwards.
var registry = map[string]*funcDef{}

func init() {
	register(builtins...)
	for name, target := range aliases {
		alias(name, target)
	}
}

func register(defs ...*funcDef) {
	for _, d := range defs {
		if _, dup := registry[d.name]; dup {
			panic("expr: duplicate function " + d.name)
		}
		registry[d.name] = d
	}
}

func alias(name, target string) {
	d := *registry[target]
	d.name = name
	register(&d)
}

// Functions returns the names of all functions and operators, sorted.
func Functions() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Resolve type-checks e and returns a resolved copy in which every node's
// Type is computed and implicit casts are explicit [*Cast] nodes. e itself is
// not modified. Errors are [*UnknownFunctionError], [*ArgumentError] or
// [*CastError]. A call or CASE that is already resolved is returned as it
// is (resolved nodes are never modified), so that resolving a node whose
// children were resolved one by one costs only the node itself.
func Resolve(e Expr) (Expr, error) {
	switch n := e.(type) {
	case *Call:
		if n.fn != nil {
			return n, nil
		}
	case *Case:
		if n.typ.Kind != types.KindInvalid {
			return n, nil
		}
	}
	switch n := e.(type) {
	case *Literal:
		c := *n
		return &c, nil
	case *ColumnRef:
		c := *n
		return &c, nil
	case *Cast:
		inner, err := Resolve(n.Expr)
		if err != nil {
			return nil, err
		}
		if !castAllowed(inner.Type(), n.Target) {
			return nil, &CastError{From: inner.Type(), To: n.Target}
		}
		return &Cast{Expr: inner, Target: n.Target, Try: n.Try}, nil
	case *Case:
		return resolveCase(n)
	case *Call:
		return resolveCall(n)
	case nil:
		return nil, fmt.Errorf("expr: nil expression")
	}
	return nil, fmt.Errorf("expr: unknown node %T", e)
}

func resolveCall(n *Call) (Expr, error) {
	name := strings.ToUpper(n.Name)
	def, ok := registry[name]
	if n.user != nil {
		def, ok = userDef(n.user), true
	}
	if !ok {
		return nil, &UnknownFunctionError{Name: name, Suggestion: suggest.Typo(name, userFunctionNames())}
	}
	args := n.Args
	if name == "AND" || name == "OR" {
		// a AND (b AND c) is one n-ary AND: one closure instead of two.
		// The terms are gathered before they are resolved, so that a long
		// chain costs its length, not its length squared.
		args = chainTerms(n, name)
	}
	c := &Call{Name: name, Unit: n.Unit, Returning: n.Returning, fn: def, user: n.user, Args: make([]Expr, len(args))}
	for i, a := range args {
		r, err := Resolve(a)
		if err != nil {
			return nil, err
		}
		c.Args[i] = r
	}
	if len(c.Args) < def.minArgs || (def.maxArgs >= 0 && len(c.Args) > def.maxArgs) {
		return nil, argError(c)
	}
	if c.Returning.Kind != types.KindInvalid && name != "JSON_VALUE" {
		return nil, &ArgumentError{Function: name, Given: argTypes(c), Expected: "no RETURNING clause (only JSON_VALUE takes one)"}
	}
	t, err := def.check(c)
	if err == errArgs {
		return nil, argError(c)
	}
	if err != nil {
		return nil, err
	}
	c.typ = t
	return c, nil
}

// chainTerms returns the terms of the AND or OR (name) chain n, in order:
// its arguments, with every argument that is itself a call of name (as
// written, or resolved) replaced by its terms.
func chainTerms(n *Call, name string) []Expr {
	var terms []Expr
	stack := slices.Clone(n.Args)
	slices.Reverse(stack)
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if inner, ok := e.(*Call); ok && strings.EqualFold(inner.Name, name) && inner.Returning.Kind == types.KindInvalid {
			for i := len(inner.Args) - 1; i >= 0; i-- {
				stack = append(stack, inner.Args[i])
			}
			continue
		}
		terms = append(terms, e)
	}
	return terms
}

func argError(c *Call) error {
	given := make([]types.Type, len(c.Args))
	for i, a := range c.Args {
		given[i] = a.Type()
	}
	return &ArgumentError{Function: c.Name, Given: given, Expected: c.fn.expected}
}

// userFunctionNames lists the names worth suggesting: functions, not
// operator spellings.
func userFunctionNames() []string {
	var out []string
	for n := range registry {
		if n[0] >= 'A' && n[0] <= 'Z' && !strings.Contains(n, " ") {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func resolveCase(n *Case) (Expr, error) {
	c := &Case{}
	var err error
	if n.Operand != nil {
		if c.Operand, err = Resolve(n.Operand); err != nil {
			return nil, err
		}
	}
	if len(n.Whens) == 0 {
		return nil, &ArgumentError{Function: "CASE", Expected: "at least one WHEN"}
	}
	results := make([]types.Type, 0, len(n.Whens)+1)
	for _, w := range n.Whens {
		cond, err := Resolve(w.Cond)
		if err != nil {
			return nil, err
		}
		res, err := Resolve(w.Result)
		if err != nil {
			return nil, err
		}
		if c.Operand != nil {
			if !comparableTypes(c.Operand.Type(), cond.Type()) {
				return nil, &ArgumentError{Function: "CASE", Given: []types.Type{c.Operand.Type(), cond.Type()},
					Expected: "WHEN values comparable with the CASE operand"}
			}
		} else if k := cond.Type().Kind; k != types.KindBoolean && k != types.KindNull {
			return nil, &ArgumentError{Function: "CASE", Given: []types.Type{cond.Type()}, Expected: "BOOLEAN WHEN conditions"}
		}
		c.Whens = append(c.Whens, When{Cond: cond, Result: res})
		results = append(results, res.Type())
	}
	if n.Else != nil {
		if c.Else, err = Resolve(n.Else); err != nil {
			return nil, err
		}
		results = append(results, c.Else.Type())
	}
	t, ok := leastRestrictive(results...)
	if !ok {
		return nil, &ArgumentError{Function: "CASE", Given: results, Expected: "result types with a common type"}
	}
	if c.Else == nil {
		t = t.Nullable()
	}
	for i := range c.Whens {
		c.Whens[i].Result = coerce(c.Whens[i].Result, t)
	}
	if c.Else != nil {
		c.Else = coerce(c.Else, t)
	}
	c.typ = t
	return c, nil
}

// coerce returns e converted implicitly to t: e itself when its type is
// already t up to nullability, otherwise a cast to t.
func coerce(e Expr, t types.Type) Expr {
	et := e.Type()
	if t.Kind == types.KindNull || et.Nullable().Equal(t.Nullable()) {
		return e
	}
	return &Cast{Expr: e, Target: t.Nullable()}
}

// coerceArgs casts every argument of c to t (keeping nullability).
func coerceArgs(c *Call, t types.Type) {
	for i, a := range c.Args {
		c.Args[i] = coerce(a, t)
	}
}

func argTypes(c *Call) []types.Type {
	out := make([]types.Type, len(c.Args))
	for i, a := range c.Args {
		out[i] = a.Type()
	}
	return out
}

// allNotNull reports whether every argument is NOT NULL.
func allNotNull(c *Call) bool {
	for _, a := range c.Args {
		if !a.Type().NotNull {
			return false
		}
	}
	return true
}

// is reports whether t belongs to one of fams; an untyped NULL belongs to
// every family.
func is(t types.Type, fams ...family) bool {
	f := familyOf(t)
	if f == famNull {
		return true
	}
	return slices.Contains(fams, f)
}
