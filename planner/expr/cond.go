package expr

import (
	"cmp"

	"github.com/streamsql/streamsql/types"
)

// Conditions and integer operands without types.Value results.
//
// An evalFn returns a types.Value: 48 bytes that come back in registers and
// are spilled and copied by the caller as a block, which stalls on store
// forwarding (a spill of one byte, one word, ... read back as 16 bytes).
// Through the three or four closure layers of a filter such as Nexmark
// q2's
//
//	event_type = 2 AND MOD(bid.auction, 123) = 0
//
// that cost ~130 ns per row. The builder therefore also compiles a
// condition into a condFn, which returns its truth as a byte, and an
// integer operand of a comparison into an intFn, which returns an int64
// and a NULL flag. These are the same compiler over the same IR, not a
// second evaluator: each form is built by the builder from the same nodes,
// with the same order of evaluation, the same NULL rules and the same
// errors as the node's evalFn, and every node they do not specialise is
// read through its evalFn (cond and intOf fall back to compile).

// truth is a BOOLEAN's value in SQL's three-valued logic.
type truth uint8

const (
	isFalse truth = iota
	isTrue
	isNull
)

// truthOf returns the truth of a BOOLEAN value.
func truthOf(v types.Value) truth {
	if v.IsNull() {
		return isNull
	}
	if v.Bool() {
		return isTrue
	}
	return isFalse
}

// condFn evaluates a BOOLEAN expression to its truth: what the
// expression's evalFn gives, without building a types.Value.
type condFn func(row []types.Value) (truth, error)

// intFn evaluates an expression whose value is an integer-like Value
// (types.Value.Int64: integers, DATE, TIME, BOOLEAN): its Int64 and
// whether it is NULL, as the expression's evalFn gives them.
type intFn func(row []types.Value) (v int64, null bool, err error)

// cond compiles BOOLEAN expression e (resolved) into a condFn. special is
// false when cond only wraps e's evalFn (nothing was specialised): a
// caller that has that evalFn already may as well call it.
func (b *builder) cond(e Expr) (fn condFn, special bool, err error) {
	if c, ok := e.(*Call); ok && c.user == nil && !b.viaArgs && !b.memoized(e) && !b.constant(e) {
		switch c.Name {
		case "AND", "OR":
			fn, err := b.condChain(c)
			return fn, err == nil, err
		case "NOT":
			x, _, err := b.cond(c.Args[0])
			if err != nil {
				return nil, false, err
			}
			return func(row []types.Value) (truth, error) {
				t, err := x(row)
				switch {
				case err != nil || t == isNull:
					return isNull, err
				case t == isTrue:
					return isFalse, nil
				}
				return isTrue, nil
			}, true, nil
		case "IS NULL", "IS NOT NULL":
			x, err := b.compile(c.Args[0])
			if err != nil {
				return nil, false, err
			}
			ox := b.operandOf(c.Args[0], x)
			// buildIsNull: the operand is always evaluated.
			null, notNull := isTrue, isFalse
			if c.Name == "IS NOT NULL" {
				null, notNull = isFalse, isTrue
			}
			return func(row []types.Value) (truth, error) {
				v, err := ox.read(row)
				switch {
				case err != nil:
					return isNull, err
				case v.IsNull():
					return null, nil
				}
				return notNull, nil
			}, true, nil
		case "=", "<>", "<", "<=", ">", ">=":
			fn, ok, err := b.cmpCond(c)
			if err != nil || ok {
				return fn, ok, err
			}
		}
	}
	v, err := b.compile(e)
	if err != nil {
		return nil, false, err
	}
	return condOfEval(v), false, nil
}

// condOfEval reads a BOOLEAN evalFn as a condFn.
func condOfEval(fn evalFn) condFn {
	return func(row []types.Value) (truth, error) {
		v, err := fn(row)
		if err != nil {
			return isNull, err
		}
		return truthOf(v), nil
	}
}

// memoized reports whether e is one of CompileFlow's common
// subexpressions: its value is read through the memo (compile), which a
// specialised form would bypass.
func (b *builder) memoized(e Expr) bool {
	_, ok := b.memoSlots[e]
	return ok
}

// condChain is buildAnd's and buildOr's three-valued AND and OR over
// conditions: the terms in order, stopping at the first that decides
// (FALSE for AND, TRUE for OR) or fails; else NULL if a term was NULL.
func (b *builder) condChain(c *Call) (condFn, error) {
	terms := make([]condFn, len(c.Args))
	for i, a := range c.Args {
		t, _, err := b.cond(a)
		if err != nil {
			return nil, err
		}
		terms[i] = t
	}
	// decides is the truth that ends the chain; otherwise the chain gives
	// NULL if any term was NULL, else the other truth.
	decides, rest := isFalse, isTrue
	if c.Name == "OR" {
		decides, rest = isTrue, isFalse
	}
	if len(terms) == 2 {
		x, y := terms[0], terms[1]
		return func(row []types.Value) (truth, error) {
			t, err := x(row)
			if err != nil || t == decides {
				return t, err
			}
			u, err := y(row)
			if err != nil || u == decides {
				return u, err
			}
			if t == isNull {
				return isNull, nil
			}
			return u, nil
		}, nil
	}
	return func(row []types.Value) (truth, error) {
		out := rest
		for _, x := range terms {
			t, err := x(row)
			if err != nil || t == decides {
				return t, err
			}
			if t == isNull {
				out = isNull
			}
		}
		return out, nil
	}, nil
}

// cmpCond is buildComparison's comparison, as a condition, where the
// common type is integer-like (compared as Int64s, as buildComparison
// does inline), DECIMAL against a constant, or FLOAT/DOUBLE of a column
// or ROW field with a constant.
// ok is false for the other comparisons.
func (b *builder) cmpCond(c *Call) (fn condFn, ok bool, err error) {
	ct, _ := commonType(c.Args[0].Type(), c.Args[1].Type())
	op := cmpOpOf(c.Name)
	switch {
	case ct.IsInteger() || ct.Kind == types.KindDate || ct.Kind == types.KindTime || ct.Kind == types.KindBoolean:
		x, err := b.intOf(c.Args[0])
		if err != nil {
			return nil, false, err
		}
		y, err := b.intOf(c.Args[1])
		if err != nil {
			return nil, false, err
		}
		return intCmp(op, x, y), true, nil
	case ct.Kind == types.KindDecimal && !mixedApproxDecimal(c.Args[0].Type(), c.Args[1].Type()):
		// buildComparison's DECIMAL comparison (Decimal.Cmp), of any
		// operand with a constant (q14's 0.908 * price > 1000000).
		xf, err := b.compile(c.Args[0])
		if err != nil {
			return nil, false, err
		}
		yf, err := b.compile(c.Args[1])
		if err != nil {
			return nil, false, err
		}
		ox, oy := b.operandOf(c.Args[0], xf), b.operandOf(c.Args[1], yf)
		if !oy.konst || oy.val.IsNull() {
			return nil, false, nil
		}
		k := oy.val.Decimal()
		if ku, ks, ok := oy.val.CompactDecimal(); ok && (ox.ref != nil || ox.direct()) {
			// Read in place (q14's memoized 0.908 * price, a column or a
			// field), compared as integers when compact at k's scale.
			rd := ox.ref
			if rd == nil {
				rd = ox.ptr
			}
			return func(row []types.Value) (truth, error) {
				a, err := rd(row)
				if err != nil || a == nil || a.IsNull() {
					return isNull, err
				}
				if u, s, ok := a.CompactDecimal(); ok && s == ks {
					return truthOfBool(op.holds(cmp.Compare(u, ku))), nil
				}
				return truthOfBool(op.holds(a.Decimal().Cmp(k))), nil
			}, true, nil
		}
		return func(row []types.Value) (truth, error) {
			a, err := ox.read(row)
			if err != nil || a.IsNull() {
				return isNull, err
			}
			return truthOfBool(op.holds(a.Decimal().Cmp(k))), nil
		}, true, nil
	case (ct.Kind == types.KindDouble || ct.Kind == types.KindFloat) && !mixedApproxDecimal(c.Args[0].Type(), c.Args[1].Type()):
		xf, err := b.compile(c.Args[0])
		if err != nil {
			return nil, false, err
		}
		yf, err := b.compile(c.Args[1])
		if err != nil {
			return nil, false, err
		}
		ox, oy := b.operandOf(c.Args[0], xf), b.operandOf(c.Args[1], yf)
		if !oy.konst || oy.val.IsNull() || (ox.col < 0 && !ox.field) {
			return nil, false, nil
		}
		// types.Comparator of a FLOAT or DOUBLE type: CompareFloat.
		k := oy.val.Float64()
		return func(row []types.Value) (truth, error) {
			a, err := ox.read(row)
			if err != nil || a.IsNull() {
				return isNull, err
			}
			return truthOfBool(op.holds(types.CompareFloat(a.Float64(), k))), nil
		}, true, nil
	}
	return nil, false, nil
}

func truthOfBool(b bool) truth {
	if b {
		return isTrue
	}
	return isFalse
}

// intOperand is an integer-like operand: a column, a field of a ROW
// column, a constant, or any other expression (fn).
type intOperand struct {
	fn         intFn
	col        int // >= 0: a bare column
	field      bool
	fcol, fidx int
	konst      bool
	k          int64
	kNull      bool
}

// intOf compiles integer-like expression e (resolved) into an intOperand,
// classified as operandOf classifies: representation-preserving casts are
// looked through; a column whose value the filter fixes and an expression
// that evaluates without error once here are constants. Integer
// arithmetic (+, -, *, /, MOD with an integer result) is compiled as
// buildArithmetic compiles it; anything else is read through its evalFn.
func (b *builder) intOf(e Expr) (intOperand, error) {
	o := intOperand{col: -1}
	if b.viaArgs {
		return b.intOfEval(e)
	}
	if b.memoized(e) {
		// The memo's cell read in place (HOUR(dateTime) in q14's four
		// comparisons), not a types.Value copied out of it.
		if _, err := b.compile(e); err != nil {
			return o, err
		}
		if r := b.refOf(e); r != nil {
			o.fn = func(row []types.Value) (int64, bool, error) {
				p, err := r(row)
				if err != nil {
					return 0, false, err
				}
				return p.Int64(), p.IsNull(), nil
			}
			return o, nil
		}
		return b.intOfEval(e)
	}
	if c, ok := e.(*Cast); ok && !b.constant(e) {
		if conv, err := b.castFunc(c.Expr.Type(), c.Target); err == nil && conv == nil {
			return b.intOf(c.Expr)
		}
		return b.intOfEval(e)
	}
	if b.constant(e) {
		fn, err := b.compile(e)
		if err != nil {
			return o, err
		}
		v, err := fn(nil)
		if err != nil {
			// Each evaluation fails, as compile keeps it.
			o.fn = intOfEval(fn)
			return o, nil
		}
		o.konst, o.k, o.kNull = true, v.Int64(), v.IsNull()
		o.fn = func([]types.Value) (int64, bool, error) { return o.k, o.kNull, nil }
		return o, nil
	}
	switch n := e.(type) {
	case *ColumnRef:
		i := n.Index
		o.col = i
		o.fn = func(row []types.Value) (int64, bool, error) {
			if i >= len(row) {
				return 0, false, errColumn(i, len(row))
			}
			return row[i].Int64(), row[i].IsNull(), nil
		}
		return o, nil
	case *Call:
		if n.user != nil {
			break
		}
		switch n.Name {
		case "FIELD":
			if r, ok := n.Args[0].(*ColumnRef); ok {
				if _, fixed := b.known[r.Index]; !fixed {
					col, idx := r.Index, fieldIndex(n)
					o.field, o.fcol, o.fidx = true, col, idx
					o.fn = func(row []types.Value) (int64, bool, error) {
						v, err := readField(row, col, idx)
						return v.Int64(), v.IsNull(), err
					}
					return o, nil
				}
			}
		case "+", "-", "*", "/", "%", "MOD":
			if n.typ.IsInteger() {
				fn, err := b.intArith(n)
				if err != nil {
					return o, err
				}
				o.fn = fn
				return o, nil
			}
		}
	}
	return b.intOfEval(e)
}

// intOfEval is the intOperand that reads e through its evalFn.
func (b *builder) intOfEval(e Expr) (intOperand, error) {
	fn, err := b.compile(e)
	if err != nil {
		return intOperand{}, err
	}
	return intOperand{col: -1, fn: intOfEval(fn)}, nil
}

func intOfEval(fn evalFn) intFn {
	return func(row []types.Value) (int64, bool, error) {
		v, err := fn(row)
		return v.Int64(), v.IsNull(), err
	}
}

// intArith is buildArithmetic's integer arithmetic: the operands through
// binop's rules (a NULL constant right operand gives NULL without
// evaluating the left; else left, then right unless the left is NULL),
// wrapped to the result's width as Java's int arithmetic overflows, and
// division or MOD by zero an error.
func (b *builder) intArith(c *Call) (intFn, error) {
	x, err := b.intOf(c.Args[0])
	if err != nil {
		return nil, err
	}
	y, err := b.intOf(c.Args[1])
	if err != nil {
		return nil, err
	}
	kind := c.typ.Kind
	op := arithOp(c)
	if y.konst {
		if y.kNull {
			return func([]types.Value) (int64, bool, error) { return 0, true, nil }, nil
		}
		k, xf := y.k, x.fn
		if k != 0 && (op == "%" || op == "/") {
			// The common form (MOD(bid.auction, 123)): no zero test.
			if op == "%" {
				return func(row []types.Value) (int64, bool, error) {
					a, null, err := xf(row)
					if err != nil || null {
						return 0, true, err
					}
					return wrapInt(kind, a%k), false, nil
				}, nil
			}
			return func(row []types.Value) (int64, bool, error) {
				a, null, err := xf(row)
				if err != nil || null {
					return 0, true, err
				}
				return wrapInt(kind, a/k), false, nil
			}, nil
		}
	}
	xf, yf := x.fn, y.fn
	return func(row []types.Value) (int64, bool, error) {
		a, null, err := xf(row)
		if err != nil || null {
			return 0, true, err
		}
		c, null, err := yf(row)
		if err != nil || null {
			return 0, true, err
		}
		switch op {
		case "+":
			return wrapInt(kind, a+c), false, nil
		case "-":
			return wrapInt(kind, a-c), false, nil
		case "*":
			return wrapInt(kind, a*c), false, nil
		}
		if c == 0 {
			return 0, true, ErrDivisionByZero
		}
		if op == "/" {
			return wrapInt(kind, a/c), false, nil
		}
		return wrapInt(kind, a%c), false, nil
	}, nil
}

// wrapInt is intWrapper's two's-complement wrap-around to integer kind k.
func wrapInt(k types.Kind, v int64) int64 {
	switch k {
	case types.KindTinyInt:
		return int64(int8(v))
	case types.KindSmallInt:
		return int64(int16(v))
	case types.KindInt:
		return int64(int32(v))
	}
	return v
}

// intCmp compares two integer-like operands as buildComparison does: a
// NULL constant right operand gives NULL without evaluating the left;
// else the left, then the right unless the left is NULL.
func intCmp(op cmpOp, x, y intOperand) condFn {
	if y.konst {
		if y.kNull {
			return func([]types.Value) (truth, error) { return isNull, nil }
		}
		k := y.k
		switch {
		case x.col >= 0:
			col := x.col
			return func(row []types.Value) (truth, error) {
				if col >= len(row) {
					return isNull, errColumn(col, len(row))
				}
				if row[col].IsNull() {
					return isNull, nil
				}
				return truthOfBool(op.holds(cmp.Compare(row[col].Int64(), k))), nil
			}
		case x.field:
			col, idx := x.fcol, x.fidx
			return func(row []types.Value) (truth, error) {
				a, err := readField(row, col, idx)
				if err != nil || a.IsNull() {
					return isNull, err
				}
				return truthOfBool(op.holds(cmp.Compare(a.Int64(), k))), nil
			}
		}
		xf := x.fn
		return func(row []types.Value) (truth, error) {
			a, null, err := xf(row)
			if err != nil || null {
				return isNull, err
			}
			return truthOfBool(op.holds(cmp.Compare(a, k))), nil
		}
	}
	xf, yf := x.fn, y.fn
	return func(row []types.Value) (truth, error) {
		a, null, err := xf(row)
		if err != nil || null {
			return isNull, err
		}
		c, null, err := yf(row)
		if err != nil || null {
			return isNull, err
		}
		return truthOfBool(op.holds(cmp.Compare(a, c))), nil
	}
}
