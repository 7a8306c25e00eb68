package expr

import (
	"fmt"
	"strconv"
	"strings"

	exprlang "github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/streamsql/streamsql/types"
)

// exprLangProgram is a resolved expression compiled into a program of
// github.com/expr-lang/expr, the expression engine the project names. The
// program reads the positional row from a typed environment (R, no map per
// record) and literals from L; every operator and function is a custom
// expr-lang function carrying the same SQL semantics as the closure
// compiler (it evaluates the node with the library's own kernels). CASE is
// expr-lang's lazy conditional operator; other arguments are evaluated
// eagerly.
//
// It exists to measure the engine honestly against the closure compiler
// (see BenchmarkFilterProject*): the closure [Program] is the default.
// An exprLangProgram is not safe for concurrent use: it reuses one VM and
// one set of argument slots; compile one per goroutine.
type exprLangProgram struct {
	expr Expr
	prog *vm.Program
	env  *exprLangEnv
	vm   vm.VM
}

type exprLangEnv struct {
	R []types.Value
	L []types.Value
}

// compileExprLang resolves e and compiles it into an expr-lang program.
func compileExprLang(e Expr, opts Options) (*exprLangProgram, error) {
	r, err := Resolve(e)
	if err != nil {
		return nil, err
	}
	b := newBuilder(opts)
	b.viaArgs = true
	c := &exprLangCompiler{b: b, env: &exprLangEnv{}}
	src, err := c.source(r)
	if err != nil {
		return nil, err
	}
	c.opts = append(c.opts, exprlang.Env(c.env),
		exprlang.Function("truthy", func(p ...any) (any, error) {
			v, _ := p[0].(types.Value)
			return !v.IsNull() && v.Bool(), nil
		}))
	prog, err := exprlang.Compile(src, c.opts...)
	if err != nil {
		return nil, fmt.Errorf("expr-lang compile of %s: %w", src, err)
	}
	return &exprLangProgram{expr: r, prog: prog, env: c.env}, nil
}

// Type returns the result type.
func (p *exprLangProgram) Type() types.Type { return p.expr.Type() }

// Source returns the expr-lang source of the program.
func (p *exprLangProgram) Source() string { return p.prog.Source().String() }

// Eval evaluates the program over row.
func (p *exprLangProgram) Eval(row []types.Value) (types.Value, error) {
	p.env.R = row
	out, err := p.vm.Run(p.prog, p.env)
	if err != nil {
		return types.Value{}, wrapEval(p.expr, err)
	}
	v, _ := out.(types.Value)
	return v, nil
}

type exprLangCompiler struct {
	b    *builder
	env  *exprLangEnv
	opts []exprlang.Option
	n    int
}

// source returns the expr-lang text of e, registering one custom function
// per operator or function node.
func (c *exprLangCompiler) source(e Expr) (string, error) {
	switch n := e.(type) {
	case *Literal:
		c.env.L = append(c.env.L, n.Val)
		return "L[" + strconv.Itoa(len(c.env.L)-1) + "]", nil
	case *ColumnRef:
		return "R[" + strconv.Itoa(n.Index) + "]", nil
	case *Case:
		return c.caseSource(n)
	case *Cast:
		arg, err := c.source(n.Expr)
		if err != nil {
			return "", err
		}
		slots := make([]types.Value, 1)
		fn, err := c.b.castEval(slotReader(slots, 0), n.Expr.Type(), n.Target, n.Try)
		if err != nil {
			return "", err
		}
		return c.register(slots, fn, []string{arg}), nil
	case *Call:
		args := make([]string, len(n.Args))
		slots := make([]types.Value, len(n.Args))
		readers := make([]evalFn, len(n.Args))
		for i, a := range n.Args {
			s, err := c.source(a)
			if err != nil {
				return "", err
			}
			args[i] = s
			readers[i] = slotReader(slots, i)
		}
		// Constant-ness is decided on the original arguments, which the
		// build functions inspect; slot readers are not constant, so
		// builders that pre-compute from constant arguments (LIKE, regex,
		// date formats) read the slot once at build time. Give them the
		// real constant evaluators instead.
		for i, a := range n.Args {
			if isConstant(a) {
				f, err := c.b.compile(a)
				if err != nil {
					return "", err
				}
				readers[i] = f
			}
		}
		fn, err := n.fn.build(c.b, n, readers)
		if err != nil {
			return "", err
		}
		return c.register(slots, fn, args), nil
	}
	return "", fmt.Errorf("expr: unknown node %T", e)
}

func slotReader(slots []types.Value, i int) evalFn {
	return func([]types.Value) (types.Value, error) { return slots[i], nil }
}

func (c *exprLangCompiler) register(slots []types.Value, fn evalFn, args []string) string {
	name := "f" + strconv.Itoa(c.n)
	c.n++
	c.opts = append(c.opts, exprlang.Function(name, func(params ...any) (any, error) {
		for i, p := range params {
			slots[i], _ = p.(types.Value)
		}
		return fn(nil)
	}))
	return name + "(" + strings.Join(args, ", ") + ")"
}

func (c *exprLangCompiler) caseSource(n *Case) (string, error) {
	elseSrc := "L[" + strconv.Itoa(len(c.env.L)) + "]"
	c.env.L = append(c.env.L, types.Value{})
	if n.Else != nil {
		var err error
		if elseSrc, err = c.source(n.Else); err != nil {
			return "", err
		}
	}
	out := elseSrc
	for i := len(n.Whens) - 1; i >= 0; i-- {
		w := n.Whens[i]
		cond := w.Cond
		if n.Operand != nil {
			eq, err := resolveCall(&Call{Name: "=", Args: []Expr{n.Operand, w.Cond}})
			if err != nil {
				return "", err
			}
			cond = eq
		}
		cs, err := c.source(cond)
		if err != nil {
			return "", err
		}
		rs, err := c.source(w.Result)
		if err != nil {
			return "", err
		}
		out = "(truthy(" + cs + ") ? " + rs + " : " + out + ")"
	}
	return out, nil
}
