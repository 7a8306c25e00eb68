package expr

import (
	"errors"
	"fmt"
	"time"

	"github.com/streamsql/streamsql/types"
)

// evalFn evaluates one compiled node over a positional row.
type evalFn func(row []types.Value) (types.Value, error)

// Options are the session settings that evaluation depends on.
type Options struct {
	// Location is the session time zone, Flink's table.local-time-zone.
	// It is used by TIMESTAMP_LTZ conversions, CURRENT_TIMESTAMP,
	// LOCALTIMESTAMP, FROM_UNIXTIME, UNIX_TIMESTAMP and TO_TIMESTAMP_LTZ.
	// Nil means time.Local, as Flink's default ("default": the JVM's zone).
	Location *time.Location
	// Now returns the current time for CURRENT_TIMESTAMP, NOW,
	// LOCALTIMESTAMP and UNIX_TIMESTAMP(). Nil means time.Now. It is called
	// once per evaluation of such a function (per record, as Flink does in
	// streaming mode).
	Now func() time.Time
}

type builder struct {
	loc *time.Location
	now func() time.Time
	// viaArgs makes operators read their arguments only through the
	// evaluators they are given, never straight from the row (the expr-lang
	// backend passes argument slots, not rows).
	viaArgs bool
	// plainCase compiles every searched CASE branch by branch, without
	// caseOnString's shared operand (tests compare the two).
	plainCase bool
	// consts memoizes constant over the nodes compiled, which compile
	// visits children first: checking each node costs its arity, not its
	// subtree (a chain of n operators would cost n²).
	consts map[Expr]bool
	// known holds the input columns whose value is fixed in every row
	// evaluated (KnownColumns of the filter before a projection): such a
	// column compiles to a constant.
	known map[int]types.Value
	// memo, when set, holds the values of the nodes in memoSlots (by
	// slot) per row: CompileFlow's common subexpressions.
	memo      *Memo
	memoSlots map[Expr]int
	// splitSlots, with memo, holds the SPLIT_INDEX calls that share one
	// split of their string per row (CompileFlow's splitGroups).
	splitSlots map[*Call]splitSlot
	// dsts holds the dstFn a node's build recorded (setDst), refs the
	// refFn of each memoized node compiled (memoEval): dst.go.
	dsts map[Expr]dstFn
	refs map[Expr]refFn
	// peeks holds the refFn of a searched CASE whose results are all
	// held in the row or constant (setPeek).
	peeks map[Expr]refFn
}

func newBuilder(opts Options) *builder {
	b := &builder{loc: opts.Location, now: opts.Now}
	if b.loc == nil {
		b.loc = time.Local
	}
	if b.now == nil {
		b.now = time.Now
	}
	return b
}

// Program is a compiled scalar expression. It is immutable and safe for
// concurrent use.
type Program struct {
	expr Expr
	fn   evalFn
	// peek, when set, returns where fn's value already is (Peek).
	peek refFn
}

// Compile resolves e (see [Resolve]) and compiles it into a [Program] of Go
// closures. Constant sub-expressions are evaluated once here.
func Compile(e Expr, opts Options) (*Program, error) {
	r, err := Resolve(e)
	if err != nil {
		return nil, err
	}
	b := newBuilder(opts)
	fn, err := b.compile(r)
	if err != nil {
		return nil, err
	}
	return &Program{expr: r, fn: fn, peek: b.peekOf(r, fn)}, nil
}

// Peeks reports whether Peek evaluates the program: its value is always
// one held in the row or in the program (a column, a ROW's field, a
// constant, or a searched CASE choosing among those).
func (p *Program) Peeks() bool { return p.peek != nil }

// Peek is Eval for a program that Peeks: it returns where the value is
// (in row, or in the program) instead of a copy, which saves copying a
// types.Value out of the evaluator (dst.go). The value must not be
// modified; it is valid as long as row is. Without Peeks it returns nil
// and no error.
func (p *Program) Peek(row []types.Value) (*types.Value, error) {
	if p.peek == nil {
		return nil, nil
	}
	v, err := p.peek(row)
	if err != nil {
		return nil, wrapEval(p.expr, err)
	}
	return v, nil
}

// Expr returns the resolved expression.
func (p *Program) Expr() Expr { return p.expr }

// Type returns the result type.
func (p *Program) Type() types.Type { return p.expr.Type() }

// Eval evaluates the expression over row (the positional fields of the
// input). Errors are [*EvalError].
func (p *Program) Eval(row []types.Value) (types.Value, error) {
	v, err := p.fn(row)
	if err != nil {
		return types.Value{}, wrapEval(p.expr, err)
	}
	return v, nil
}

func wrapEval(e Expr, err error) error {
	var ee *EvalError
	if errors.As(err, &ee) {
		return err
	}
	return &EvalError{Expr: e.String(), Err: err}
}

// Filter is a compiled WHERE condition.
type Filter struct {
	p *Program
	// cond, when set, decides Keep: p's condition compiled as a condFn
	// (cond.go), the same answer without a types.Value per node.
	cond condFn
}

// CompileFilter compiles a BOOLEAN condition.
func CompileFilter(cond Expr, opts Options) (*Filter, error) {
	r, err := Resolve(cond)
	if err != nil {
		return nil, err
	}
	return compileFilter(r, opts, nil)
}

// compileFilter is CompileFilter of resolved r; with, when set, sets up
// the builder (CompileFlow's memo).
func compileFilter(r Expr, opts Options, with func(*builder)) (*Filter, error) {
	b := newBuilder(opts)
	if with != nil {
		with(b)
	}
	fn, err := b.compile(r)
	if err != nil {
		return nil, err
	}
	p := &Program{expr: r, fn: fn}
	if k := p.Type().Kind; k != types.KindBoolean && k != types.KindNull {
		return nil, &ArgumentError{Function: "WHERE", Given: []types.Type{p.Type()}, Expected: "a BOOLEAN condition"}
	}
	f := &Filter{p: p}
	cond, special, err := b.cond(r)
	if err != nil {
		return nil, err
	}
	if special {
		f.cond = cond
	}
	return f, nil
}

// Keep reports whether row passes the condition: TRUE passes, FALSE and
// NULL do not (SQL's WHERE).
func (f *Filter) Keep(row []types.Value) (bool, error) {
	if f.cond != nil {
		t, err := f.cond(row)
		if err != nil {
			return false, wrapEval(f.p.expr, err)
		}
		return t == isTrue, nil
	}
	v, err := f.p.fn(row)
	if err != nil {
		return false, wrapEval(f.p.expr, err)
	}
	return !v.IsNull() && v.Bool(), nil
}

// Program returns the compiled condition.
func (f *Filter) Program() *Program { return f.p }

// Projection is a compiled list of output expressions.
type Projection struct {
	progs []*Program
	// cols[i] is the input field copied to output i when that output is a
	// bare column reference (no call needed), else -1.
	cols []int
	// fields[i], when its col is >= 0, is the field of a ROW column that
	// output i reads (row.field, or a CASE decided to one): read in
	// Project without a call.
	fields []fieldPath
	// dsts[i], when set, writes output i in place (dst.go) when it is
	// neither a column nor a field; else progs[i] is called.
	dsts []dstFn
}

// fieldPath is field idx of the ROW in input column col.
type fieldPath struct{ col, idx int }

// CompileProjection compiles the output expressions of a SELECT list.
func CompileProjection(exprs []Expr, opts Options) (*Projection, error) {
	return CompileProjectionUnder(exprs, nil, opts)
}

// CompileProjectionUnder compiles a projection that is only evaluated
// over rows filter keeps (nil: every row): the columns the filter fixes
// (KnownColumns) are compiled as constants, so that what depends only on
// them is folded once here, and a CASE branch whose condition is then
// constant is decided here too. The results are those of
// CompileProjection on every row the filter keeps.
func CompileProjectionUnder(exprs []Expr, filter Expr, opts Options) (*Projection, error) {
	rs := make([]Expr, len(exprs))
	for i, e := range exprs {
		r, err := Resolve(e)
		if err != nil {
			return nil, fmt.Errorf("projection column %d: %w", i+1, err)
		}
		rs[i] = r
	}
	return compileProjectionUnder(rs, filter, opts, nil)
}

// compileProjectionUnder is CompileProjectionUnder of the resolved
// expressions exprs; with, when set, sets up each builder (CompileFlow's
// memo).
func compileProjectionUnder(exprs []Expr, filter Expr, opts Options, with func(*builder)) (*Projection, error) {
	known := KnownColumns(filter)
	p := &Projection{progs: make([]*Program, len(exprs)), cols: make([]int, len(exprs)), fields: make([]fieldPath, len(exprs)), dsts: make([]dstFn, len(exprs))}
	for i, r := range exprs {
		b := newBuilder(opts)
		b.known = known
		if with != nil {
			with(b)
		}
		fn, err := b.compile(r)
		if err != nil {
			return nil, fmt.Errorf("projection column %d: %w", i+1, err)
		}
		p.progs[i] = &Program{expr: r, fn: fn}
		p.dsts[i] = b.specialDst(r, fn)
		p.cols[i] = -1
		p.fields[i] = fieldPath{col: -1}
		if c, ok := r.(*ColumnRef); ok {
			if _, fixed := known[c.Index]; !fixed {
				p.cols[i] = c.Index
			}
		}
		if c, ok := b.decided(r).(*Call); ok && c.Name == "FIELD" {
			if col, ok := c.Args[0].(*ColumnRef); ok {
				if _, fixed := known[col.Index]; !fixed {
					p.fields[i] = fieldPath{col: col.Index, idx: fieldIndex(c)}
				}
			}
		}
	}
	return p, nil
}

// decided returns what e evaluates as once the searched CASEs the builder
// decides when compiling (decideWhens) are replaced by their branch: e
// itself when it is not such a CASE.
func (b *builder) decided(e Expr) Expr {
	for {
		c, ok := e.(*Case)
		if !ok || c.Operand != nil {
			return e
		}
		var next Expr
		for _, w := range c.Whens {
			if !b.constant(w.Cond) {
				return e
			}
			fn, err := b.compile(w.Cond)
			if err != nil {
				return e
			}
			v, err := fn(nil)
			if err != nil {
				return e
			}
			if !v.IsNull() && v.Bool() {
				next = w.Result
				break
			}
		}
		if next == nil {
			if next = c.Else; next == nil {
				return e
			}
		}
		e = next
	}
}

// Types returns the output column types.
func (p *Projection) Types() []types.Type {
	out := make([]types.Type, len(p.progs))
	for i, prog := range p.progs {
		out[i] = prog.Type()
	}
	return out
}

// Project evaluates every output expression over in and stores the results
// in out, which must have one slot per expression.
func (p *Projection) Project(in, out []types.Value) error {
	for i, prog := range p.progs {
		if c := p.cols[i]; c >= 0 && c < len(in) {
			out[i] = in[c]
			continue
		}
		if f := p.fields[i]; f.col >= 0 && f.col < len(in) {
			// FIELD's evaluation (buildField) without its two calls.
			out[i] = types.Value{}
			if r := in[f.col]; !r.IsNull() {
				if l := r.List(); f.idx < len(l) {
					out[i] = l[f.idx]
				}
			}
			continue
		}
		if d := p.dsts[i]; d != nil {
			if err := d(in, &out[i]); err != nil {
				return wrapEval(prog.expr, err)
			}
			continue
		}
		v, err := prog.fn(in)
		if err != nil {
			return wrapEval(prog.expr, err)
		}
		out[i] = v
	}
	return nil
}

func (b *builder) compile(e Expr) (evalFn, error) {
	switch n := e.(type) {
	case *Literal:
		v := n.Val
		return func([]types.Value) (types.Value, error) { return v, nil }, nil
	case *ColumnRef:
		i := n.Index
		if v, ok := b.known[i]; ok {
			return constFn(v), nil
		}
		return func(row []types.Value) (types.Value, error) {
			if i >= len(row) {
				return types.Value{}, fmt.Errorf("%w: row has %d fields, column %s is #%d", ErrInvalidArgument, len(row), n.Name, i)
			}
			return row[i], nil
		}, nil
	}
	fn, err := b.compileComposite(e)
	if err != nil {
		return nil, err
	}
	if b.constant(e) {
		v, err := fn(nil)
		if err == nil {
			return func([]types.Value) (types.Value, error) { return v, nil }, nil
		}
		// Keep the evaluator: the error belongs to each evaluation.
	}
	if j, ok := b.memoSlots[e]; ok {
		return b.memoEval(e, j, fn), nil
	}
	return fn, nil
}

func (b *builder) compileComposite(e Expr) (evalFn, error) {
	switch n := e.(type) {
	case *Cast:
		inner, err := b.compile(n.Expr)
		if err != nil {
			return nil, err
		}
		return b.castEval(inner, n.Expr.Type(), n.Target, n.Try)
	case *Case:
		return b.compileCase(n)
	case *Call:
		args := make([]evalFn, len(n.Args))
		for i, a := range n.Args {
			f, err := b.compile(a)
			if err != nil {
				return nil, err
			}
			args[i] = f
		}
		if n.fn == nil {
			return nil, fmt.Errorf("expr: call %s is not resolved", n.Name)
		}
		return n.fn.build(b, n, args)
	}
	return nil, fmt.Errorf("expr: unknown node %T", e)
}

// isConstant reports whether e depends on neither the row nor the clock.
func isConstant(e Expr) bool {
	switch n := e.(type) {
	case *Literal:
		return true
	case *ColumnRef:
		return false
	case *Cast:
		return isConstant(n.Expr)
	case *Case:
		if n.Operand != nil && !isConstant(n.Operand) {
			return false
		}
		for _, w := range n.Whens {
			if !isConstant(w.Cond) || !isConstant(w.Result) {
				return false
			}
		}
		return n.Else == nil || isConstant(n.Else)
	case *Call:
		if n.fn == nil || n.fn.nonDeterministic {
			return false
		}
		for _, a := range n.Args {
			if !isConstant(a) {
				return false
			}
		}
		return true
	}
	return false
}

// constant is isConstant, memoized in b.consts.
func (b *builder) constant(e Expr) bool {
	if c, ok := b.consts[e]; ok {
		return c
	}
	var c bool
	switch n := e.(type) {
	case *Literal:
		c = true
	case *ColumnRef:
		_, c = b.known[n.Index]
	case *Cast:
		c = b.constant(n.Expr)
	case *Case:
		c = n.Operand == nil || b.constant(n.Operand)
		for _, w := range n.Whens {
			c = c && b.constant(w.Cond) && b.constant(w.Result)
		}
		c = c && (n.Else == nil || b.constant(n.Else))
	case *Call:
		c = n.fn != nil && !n.fn.nonDeterministic
		for _, a := range n.Args {
			c = c && b.constant(a)
		}
	}
	if b.consts == nil {
		b.consts = map[Expr]bool{}
	}
	b.consts[e] = c
	return c
}

func (b *builder) compileCase(n *Case) (evalFn, error) {
	if n.Operand == nil && !b.plainCase {
		if x, keys := b.caseOnString(n); x != nil {
			return b.compileCaseOnString(n, x, keys)
		}
	}
	conds := make([]evalFn, len(n.Whens))
	results := make([]evalFn, len(n.Whens))
	var caseOp evalFn
	var eq func(a, b types.Value) int
	if n.Operand != nil {
		var err error
		if caseOp, err = b.compile(n.Operand); err != nil {
			return nil, err
		}
		ts := []types.Type{n.Operand.Type()}
		for _, w := range n.Whens {
			ts = append(ts, w.Cond.Type())
		}
		ct, _ := commonType(ts...)
		if caseOp, err = b.castEval(caseOp, n.Operand.Type(), ct, false); err != nil {
			return nil, err
		}
		eq = types.Comparator(ct)
		for i, w := range n.Whens {
			c, err := b.compile(w.Cond)
			if err != nil {
				return nil, err
			}
			if conds[i], err = b.castEval(c, w.Cond.Type(), ct, false); err != nil {
				return nil, err
			}
		}
	} else {
		// decideWhens evaluates the constant conditions; the others are
		// compiled as conditions (cond) below.
		for i, w := range n.Whens {
			if !b.constant(w.Cond) {
				continue
			}
			c, err := b.compile(w.Cond)
			if err != nil {
				return nil, err
			}
			conds[i] = c
		}
	}
	for i, w := range n.Whens {
		r, err := b.compile(w.Result)
		if err != nil {
			return nil, err
		}
		results[i] = r
	}
	elseFn := func([]types.Value) (types.Value, error) { return types.Value{}, nil }
	if n.Else != nil {
		var err error
		if elseFn, err = b.compile(n.Else); err != nil {
			return nil, err
		}
	}
	if caseOp == nil {
		kept, elseAt := b.decideWhens(n, conds)
		if elseAt >= 0 {
			elseFn = results[elseAt]
		}
		if len(kept) == 0 {
			switch {
			case elseAt >= 0:
				b.setDst(n, b.dstOf(n.Whens[elseAt].Result, elseFn))
			case n.Else != nil:
				b.setDst(n, b.dstOf(n.Else, elseFn))
			}
			return elseFn, nil
		}
		// The conditions as condFns and the results read as operands:
		// no types.Value per condition, no call for a column, a ROW's
		// field or a constant result (the Nexmark tables' dateTime CASE).
		truths := make([]condFn, len(kept))
		outs := make([]operand, len(kept))
		for j, i := range kept {
			t, _, err := b.cond(n.Whens[i].Cond)
			if err != nil {
				return nil, err
			}
			truths[j], outs[j] = t, b.operandOf(n.Whens[i].Result, results[i])
		}
		var elseOp operand
		switch {
		case elseAt >= 0:
			elseOp = b.operandOf(n.Whens[elseAt].Result, elseFn)
		case n.Else != nil:
			elseOp = b.operandOf(n.Else, elseFn)
		default:
			elseOp = operand{fn: elseFn, col: -1, konst: true}
		}
		b.setPeek(n, truths, outs, elseOp)
		b.setDst(n, func(row []types.Value, dst *types.Value) error {
			for j, c := range truths {
				t, err := c(row)
				if err != nil {
					return err
				}
				if t == isTrue {
					return outs[j].into(row, dst)
				}
			}
			return elseOp.into(row, dst)
		})
		return func(row []types.Value) (types.Value, error) {
			for j, c := range truths {
				t, err := c(row)
				if err != nil {
					return types.Value{}, err
				}
				if t == isTrue {
					return outs[j].read(row)
				}
			}
			return elseOp.read(row)
		}, nil
	}
	return func(row []types.Value) (types.Value, error) {
		op, err := caseOp(row)
		if err != nil {
			return op, err
		}
		if !op.IsNull() {
			for i, c := range conds {
				v, err := c(row)
				if err != nil {
					return v, err
				}
				if !v.IsNull() && eq(op, v) == 0 {
					return results[i](row)
				}
			}
		}
		return elseFn(row)
	}, nil
}

// decideWhens decides the branches of a searched CASE whose condition is
// constant, as far as that decides them: a condition that is FALSE or
// NULL drops its branch, the first that is TRUE becomes the ELSE (and the
// branches after it are dropped). It stops at a constant condition whose
// evaluation fails, which stays an error of each evaluation. conds[i] is
// the evaluator of every constant condition. It returns the indexes of
// the branches kept and the index of the branch whose result is the ELSE
// (-1: the CASE's own ELSE).
func (b *builder) decideWhens(n *Case, conds []evalFn) (kept []int, elseAt int) {
	for i, w := range n.Whens {
		if !b.constant(w.Cond) {
			kept = append(kept, i)
			continue
		}
		v, err := conds[i](nil)
		if err != nil {
			for j := i; j < len(n.Whens); j++ {
				kept = append(kept, j)
			}
			return kept, -1
		}
		if !v.IsNull() && v.Bool() {
			return kept, i
		}
	}
	return kept, -1
}

// Helpers that lift value functions to evaluators with SQL's NULL
// propagation: a NULL argument gives NULL without calling f.

func strict1(a evalFn, f func(x types.Value) (types.Value, error)) evalFn {
	return func(row []types.Value) (types.Value, error) {
		x, err := a(row)
		if err != nil || x.IsNull() {
			return types.Value{}, err
		}
		return f(x)
	}
}

func strict2(a, b evalFn, f func(x, y types.Value) (types.Value, error)) evalFn {
	return func(row []types.Value) (types.Value, error) {
		x, err := a(row)
		if err != nil || x.IsNull() {
			return types.Value{}, err
		}
		y, err := b(row)
		if err != nil || y.IsNull() {
			return types.Value{}, err
		}
		return f(x, y)
	}
}

func strict3(a, b, c evalFn, f func(x, y, z types.Value) (types.Value, error)) evalFn {
	return func(row []types.Value) (types.Value, error) {
		x, err := a(row)
		if err != nil || x.IsNull() {
			return types.Value{}, err
		}
		y, err := b(row)
		if err != nil || y.IsNull() {
			return types.Value{}, err
		}
		z, err := c(row)
		if err != nil || z.IsNull() {
			return types.Value{}, err
		}
		return f(x, y, z)
	}
}

// strictN evaluates every argument and gives NULL when any is NULL.
func strictN(args []evalFn, f func(xs []types.Value) (types.Value, error)) evalFn {
	return func(row []types.Value) (types.Value, error) {
		xs := make([]types.Value, len(args))
		for i, a := range args {
			v, err := a(row)
			if err != nil || v.IsNull() {
				return types.Value{}, err
			}
			xs[i] = v
		}
		return f(xs)
	}
}

func constFn(v types.Value) evalFn {
	return func([]types.Value) (types.Value, error) { return v, nil }
}
