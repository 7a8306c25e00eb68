package expr

import (
	"fmt"
	"math"
	"math/big"

	"github.com/streamsql/streamsql/types"
)

// Operators: arithmetic, comparison, boolean logic, NULL tests, BETWEEN,
// IN, LIKE, || and subscripts.

// checkNegate accepts a numeric or untyped NULL operand and keeps its type.
func checkNegate(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if !t.IsNumeric() && t.Kind != types.KindNull {
		return t, errArgs
	}
	return t, nil
}

// ---- arithmetic ----

func checkArithmetic(c *Call) (types.Type, error) {
	a, b := c.Args[0].Type(), c.Args[1].Type()
	if a.Kind == types.KindNull {
		a = b
	}
	if b.Kind == types.KindNull {
		b = a
	}
	if a.Kind == types.KindNull {
		return types.Null(), nil
	}
	if arithOp(c) == "%" && (numericRank(a.Kind) > 5 || numericRank(b.Kind) > 5) {
		return types.Type{}, errArgs // MOD takes exact numerics only
	}
	t, ok := arithmeticType(arithOp(c), a, b)
	if !ok {
		return t, errArgs
	}
	if c.Args[0].Type().Kind == types.KindNull || c.Args[1].Type().Kind == types.KindNull {
		t = t.Nullable()
	}
	if arithOp(c) == "/" && t.IsNumeric() {
		// Division by zero raises, so the type keeps the arguments'
		// nullability.
		t.NotNull = a.NotNull && b.NotNull
	}
	return t, nil
}

func buildArithmetic(b *builder, c *Call, args []evalFn) (evalFn, error) {
	t := c.typ
	ta, tb := c.Args[0].Type(), c.Args[1].Type()
	if t.Kind == types.KindNull {
		return constFn(types.Value{}), nil
	}
	x, y := args[0], args[1]
	switch {
	case t.IsInteger():
		wrap := intWrapper(t.Kind)
		ox, oy := b.operandOf(c.Args[0], x), b.operandOf(c.Args[1], y)
		switch arithOp(c) {
		case "+":
			return binop(ox, oy, func(a, b types.Value) (types.Value, error) { return types.Int64(wrap(a.Int64() + b.Int64())), nil }), nil
		case "-":
			return binop(ox, oy, func(a, b types.Value) (types.Value, error) { return types.Int64(wrap(a.Int64() - b.Int64())), nil }), nil
		case "*":
			return binop(ox, oy, func(a, b types.Value) (types.Value, error) { return types.Int64(wrap(a.Int64() * b.Int64())), nil }), nil
		case "/":
			return binop(ox, oy, func(a, b types.Value) (types.Value, error) {
				if b.Int64() == 0 {
					return types.Value{}, ErrDivisionByZero
				}
				return types.Int64(wrap(a.Int64() / b.Int64())), nil
			}), nil
		case "%":
			return binop(ox, oy, func(a, b types.Value) (types.Value, error) {
				if b.Int64() == 0 {
					return types.Value{}, ErrDivisionByZero
				}
				return types.Int64(wrap(a.Int64() % b.Int64())), nil
			}), nil
		}
	case t.Kind == types.KindFloat || t.Kind == types.KindDouble:
		fa, fb := floatConv(ta), floatConv(tb)
		round := func(f float64) float64 { return f }
		if t.Kind == types.KindFloat {
			round = func(f float64) float64 { return float64(float32(f)) }
		}
		var op func(a, b float64) float64
		switch arithOp(c) {
		case "+":
			op = func(a, b float64) float64 { return a + b }
		case "-":
			op = func(a, b float64) float64 { return a - b }
		case "*":
			op = func(a, b float64) float64 { return a * b }
		case "/":
			op = func(a, b float64) float64 { return a / b }
		case "%":
			op = math.Mod
		}
		ox, oy := b.operandOf(c.Args[0], x), b.operandOf(c.Args[1], y)
		if t.Kind == types.KindDouble && ta.Kind == types.KindDouble && tb.Kind == types.KindDouble {
			switch arithOp(c) {
			case "+":
				return binop(ox, oy, func(a, b types.Value) (types.Value, error) { return types.Float64(a.Float64() + b.Float64()), nil }), nil
			case "*":
				return binop(ox, oy, func(a, b types.Value) (types.Value, error) { return types.Float64(a.Float64() * b.Float64()), nil }), nil
			}
		}
		return binop(ox, oy, func(a, b types.Value) (types.Value, error) {
			return types.Float64(round(op(fa(a), fb(b)))), nil
		}), nil
	case t.Kind == types.KindDecimal:
		da, db := decimalConv(ta), decimalConv(tb)
		p, s := t.Precision, t.Scale
		var op func(a, b types.Decimal) (types.Decimal, error)
		switch arithOp(c) {
		case "+":
			op = func(a, b types.Decimal) (types.Decimal, error) { return a.Add(b), nil }
		case "-":
			op = func(a, b types.Decimal) (types.Decimal, error) { return a.Sub(b), nil }
		case "*":
			op = func(a, b types.Decimal) (types.Decimal, error) { return a.Mul(b), nil }
		case "/":
			op = func(a, b types.Decimal) (types.Decimal, error) { return a.Quo(b, s) }
		case "%":
			op = func(a, b types.Decimal) (types.Decimal, error) { return a.Rem(b) }
		}
		general := func(a, b types.Value) (types.Value, error) {
			r, err := op(da(a), db(b))
			if err != nil {
				return types.Value{}, err
			}
			return decimalResult(r, p, s), nil
		}
		ox, oy := b.operandOf(c.Args[0], x), b.operandOf(c.Args[1], y)
		var dst dstFn
		if fn := compactDecimalArith(arithOp(c), ox, oy, ta, tb, p, s, general, &dst); fn != nil {
			if dst != nil {
				b.setDst(c, dst)
			}
			return fn, nil
		}
		return binop(ox, oy, general), nil
	}
	return nil, argError(c)
}

// arithOp returns the operator of an arithmetic call; MOD is %.
func arithOp(c *Call) string {
	if c.Name == "MOD" {
		return "%"
	}
	return c.Name
}

// intWrapper returns the two's-complement wrap-around of an integer kind,
// as Java's int arithmetic (Flink's generated code) overflows.
func intWrapper(k types.Kind) func(int64) int64 {
	switch k {
	case types.KindTinyInt:
		return func(v int64) int64 { return int64(int8(v)) }
	case types.KindSmallInt:
		return func(v int64) int64 { return int64(int16(v)) }
	case types.KindInt:
		return func(v int64) int64 { return int64(int32(v)) }
	}
	return func(v int64) int64 { return v }
}

// floatConv returns the conversion of a numeric value of type t to float64.
func floatConv(t types.Type) func(types.Value) float64 {
	switch {
	case t.IsInteger():
		return func(v types.Value) float64 { return float64(v.Int64()) }
	case t.Kind == types.KindDecimal:
		return func(v types.Value) float64 { return v.Decimal().Float64() }
	}
	return func(v types.Value) float64 { return v.Float64() }
}

// decimalConv returns the conversion of an exact numeric value of type t to
// a Decimal.
func decimalConv(t types.Type) func(types.Value) types.Decimal {
	if t.IsInteger() {
		return func(v types.Value) types.Decimal { return types.NewDecimal(v.Int64(), 0) }
	}
	return func(v types.Value) types.Decimal { return v.Decimal() }
}

// decimalResult rescales r to DECIMAL(p, s), giving NULL on overflow as
// Flink does for DECIMAL arithmetic.
func decimalResult(r types.Decimal, p, s int) types.Value {
	if r.Scale() == s {
		if u, ok := r.UnscaledInt64(); ok && u != math.MinInt64 && absLess(u, p) {
			return types.DecimalValue(r)
		}
	}
	out, err := r.Rescale(p, s)
	if err != nil {
		return types.Value{}
	}
	return types.DecimalValue(out)
}

func absLess(u int64, p int) bool {
	if u < 0 {
		u = -u
	}
	return p >= len(pow10) || u < pow10[p]
}

var pow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

func buildNegate(b *builder, c *Call, args []evalFn) (evalFn, error) {
	t := c.typ
	switch {
	case t.IsInteger():
		wrap := intWrapper(t.Kind)
		return strict1(args[0], func(v types.Value) (types.Value, error) { return types.Int64(wrap(-v.Int64())), nil }), nil
	case t.Kind == types.KindDecimal:
		return strict1(args[0], func(v types.Value) (types.Value, error) {
			return types.DecimalValue(v.Decimal().Neg()), nil
		}), nil
	case t.Kind == types.KindFloat || t.Kind == types.KindDouble:
		return strict1(args[0], func(v types.Value) (types.Value, error) { return types.Float64(-v.Float64()), nil }), nil
	}
	return constFn(types.Value{}), nil
}

// ---- comparison ----

func checkComparison(c *Call) (types.Type, error) {
	a, b := c.Args[0].Type(), c.Args[1].Type()
	if !comparableTypes(a, b) {
		return types.Type{}, errArgs
	}
	ct, _ := commonType(a, b)
	if unordered(ct) && c.Name != "=" && c.Name != "<>" {
		return types.Type{}, errArgs
	}
	if !mixedApproxDecimal(a, b) {
		coerceArgs(c, ct)
	}
	notNull := a.NotNull && b.NotNull
	if ct.Kind == types.KindRow && (c.Name == "=" || c.Name == "<>") {
		// Row equality is field by field, so a NULL field can make it NULL.
		notNull = notNull && fieldsNotNull(ct)
	}
	return withNull(types.Boolean(), notNull), nil
}

// unordered reports a type Flink compares only with = and <>: ARRAY,
// MULTISET, MAP and ROW ("Comparable type expected" otherwise).
func unordered(t types.Type) bool {
	switch familyOf(t) {
	case famArray, famMap, famRow:
		return true
	}
	return false
}

// fieldsNotNull reports whether every field of ROW type t, nested ROWs
// included, is NOT NULL.
func fieldsNotNull(t types.Type) bool {
	for _, f := range t.Fields {
		if !f.Type.NotNull || f.Type.Kind == types.KindRow && !fieldsNotNull(f.Type) {
			return false
		}
	}
	return true
}

// rowEquality returns Flink's equality of ROW values of type t: ROW(a, b)
// = ROW(c, d) is a = c AND b = d, so FALSE when a pair of non-NULL fields
// differs, else NULL when a field is NULL, else TRUE. Nested ROWs are
// compared as whole values, NULL fields equal to NULL (Flink gives FALSE
// for ROW(ROW(NULL), 1) = ROW(ROW(1), 1)). The second result reports NULL.
func rowEquality(t types.Type) func(a, b types.Value) (eq, null bool) {
	cmps := make([]func(a, b types.Value) int, len(t.Fields))
	for i, f := range t.Fields {
		cmps[i] = types.Comparator(f.Type)
	}
	return func(a, b types.Value) (bool, bool) {
		la, lb := a.List(), b.List()
		sawNull := false
		for i, cmp := range cmps {
			if i >= len(la) || i >= len(lb) || la[i].IsNull() || lb[i].IsNull() {
				sawNull = true
				continue
			}
			if cmp(la[i], lb[i]) != 0 {
				return false, false
			}
		}
		return !sawNull, sawNull
	}
}

// mixedApproxDecimal reports a comparison of FLOAT/DOUBLE with DECIMAL.
// Flink decides = and <> on the exact values (0.1e0 = 0.1 is FALSE: the
// double nearest 0.1 is not 0.1) but <, <=, > and >= on doubles
// (0.1e0 <= 0.1 is TRUE); streamsql does the same.
func mixedApproxDecimal(a, b types.Type) bool {
	approx := func(t types.Type) bool { return t.Kind == types.KindFloat || t.Kind == types.KindDouble }
	return (approx(a) && b.Kind == types.KindDecimal) || (a.Kind == types.KindDecimal && approx(b))
}

// exactNumericComparator compares a FLOAT/DOUBLE with a DECIMAL exactly.
func exactNumericComparator(ta, tb types.Type) func(a, b types.Value) int {
	toRat := func(t types.Type) func(v types.Value) (*big.Rat, float64) {
		if t.Kind == types.KindDecimal {
			return func(v types.Value) (*big.Rat, float64) { return v.Decimal().Rat(), v.Decimal().Float64() }
		}
		return func(v types.Value) (*big.Rat, float64) {
			f := v.Float64()
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, f
			}
			return new(big.Rat).SetFloat64(f), f
		}
	}
	ra, rb := toRat(ta), toRat(tb)
	return func(a, b types.Value) int {
		x, fx := ra(a)
		y, fy := rb(b)
		if x == nil || y == nil {
			return types.CompareFloat(fx, fy)
		}
		return x.Cmp(y)
	}
}

func buildComparison(b *builder, c *Call, args []evalFn) (evalFn, error) {
	ct, _ := commonType(c.Args[0].Type(), c.Args[1].Type())
	x, y := args[0], args[1]
	op := cmpOpOf(c.Name)
	ox, oy := b.operandOf(c.Args[0], x), b.operandOf(c.Args[1], y)
	// Integer-like kinds compare inline, without a comparator call.
	if ct.IsInteger() || ct.Kind == types.KindDate || ct.Kind == types.KindTime || ct.Kind == types.KindBoolean {
		var f func(a, b types.Value) (types.Value, error)
		switch c.Name {
		case "=":
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Int64() == b.Int64()), nil }
		case "<>":
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Int64() != b.Int64()), nil }
		case "<":
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Int64() < b.Int64()), nil }
		case "<=":
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Int64() <= b.Int64()), nil }
		case ">":
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Int64() > b.Int64()), nil }
		default:
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Int64() >= b.Int64()), nil }
		}
		if ox.field && oy.konst && !oy.val.IsNull() {
			return fieldIntCmp(op, ox.fcol, ox.fidx, oy.val.Int64()), nil
		}
		return binop(ox, oy, f), nil
	}
	if ct.Kind == types.KindDecimal && !mixedApproxDecimal(c.Args[0].Type(), c.Args[1].Type()) {
		var f func(a, b types.Value) (types.Value, error)
		switch c.Name {
		case "=":
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Decimal().Cmp(b.Decimal()) == 0), nil }
		case "<>":
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Decimal().Cmp(b.Decimal()) != 0), nil }
		case "<":
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Decimal().Cmp(b.Decimal()) < 0), nil }
		case "<=":
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Decimal().Cmp(b.Decimal()) <= 0), nil }
		case ">":
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Decimal().Cmp(b.Decimal()) > 0), nil }
		default:
			f = func(a, b types.Value) (types.Value, error) { return types.Bool(a.Decimal().Cmp(b.Decimal()) >= 0), nil }
		}
		return binop(ox, oy, f), nil
	}
	if ct.Kind == types.KindRow && (c.Name == "=" || c.Name == "<>") {
		eq, ne := rowEquality(ct), c.Name == "<>"
		return binop(ox, oy, func(a, b types.Value) (types.Value, error) {
			r, null := eq(a, b)
			if null {
				return types.Value{}, nil
			}
			return types.Bool(r != ne), nil
		}), nil
	}
	cmp := types.Comparator(ct)
	if ta, tb := c.Args[0].Type(), c.Args[1].Type(); mixedApproxDecimal(ta, tb) {
		if c.Name == "=" || c.Name == "<>" {
			cmp = exactNumericComparator(ta, tb)
		} else {
			fa, fb := floatConv(ta), floatConv(tb)
			cmp = func(a, b types.Value) int { return types.CompareFloat(fa(a), fb(b)) }
		}
	}
	return binop(ox, oy, func(a, b types.Value) (types.Value, error) { return types.Bool(op.holds(cmp(a, b))), nil }), nil
}

// fieldIntCmp is an integer comparison of field idx of the ROW in column
// col with the constant k (bid.price < 10000): the field is read and
// compared inline, without the calls of FIELD's and the comparison's
// closures. NULL when the ROW or its field is NULL.
func fieldIntCmp(op cmpOp, col, idx int, k int64) evalFn {
	// One closure per operator: no switch per row.
	switch op {
	case opEq:
		return fieldIntPred(col, idx, func(v int64) bool { return v == k })
	case opNe:
		return fieldIntPred(col, idx, func(v int64) bool { return v != k })
	case opLt:
		return func(row []types.Value) (types.Value, error) {
			a, err := readField(row, col, idx)
			if err != nil || a.IsNull() {
				return types.Value{}, err
			}
			return types.Bool(a.Int64() < k), nil
		}
	case opLe:
		return fieldIntPred(col, idx, func(v int64) bool { return v <= k })
	case opGt:
		return fieldIntPred(col, idx, func(v int64) bool { return v > k })
	}
	return func(row []types.Value) (types.Value, error) {
		a, err := readField(row, col, idx)
		if err != nil || a.IsNull() {
			return types.Value{}, err
		}
		return types.Bool(a.Int64() >= k), nil
	}
}

// fieldIntPred is fieldIntCmp's form for the less common operators.
func fieldIntPred(col, idx int, holds func(v int64) bool) evalFn {
	return func(row []types.Value) (types.Value, error) {
		a, err := readField(row, col, idx)
		if err != nil || a.IsNull() {
			return types.Value{}, err
		}
		return types.Bool(holds(a.Int64())), nil
	}
}

// ---- boolean logic ----

func checkBoolean(c *Call) (types.Type, error) {
	for _, a := range c.Args {
		if !is(a.Type(), famBool) {
			return types.Type{}, errArgs
		}
	}
	return withNull(types.Boolean(), allNotNull(c)), nil
}

// buildAnd implements three-valued AND: FALSE if any operand is FALSE, else
// NULL if any is NULL, else TRUE. Evaluation stops at the first FALSE.
func buildAnd(b *builder, c *Call, args []evalFn) (evalFn, error) {
	if len(args) == 2 {
		x, y := args[0], args[1]
		return func(row []types.Value) (types.Value, error) {
			a, err := x(row)
			if err != nil {
				return a, err
			}
			if !a.IsNull() && !a.Bool() {
				return a, nil
			}
			v, err := y(row)
			if err != nil {
				return v, err
			}
			if a.IsNull() && (v.IsNull() || v.Bool()) {
				return types.Value{}, nil
			}
			return v, nil
		}, nil
	}
	ops := make([]operand, len(args))
	for i := range args {
		ops[i] = b.operandOf(c.Args[i], args[i])
	}
	return func(row []types.Value) (types.Value, error) {
		sawNull := false
		for i := range ops {
			v, err := ops[i].read(row)
			if err != nil {
				return v, err
			}
			if v.IsNull() {
				sawNull = true
			} else if !v.Bool() {
				return v, nil
			}
		}
		if sawNull {
			return types.Value{}, nil
		}
		return types.Bool(true), nil
	}, nil
}

// buildOr implements three-valued OR: TRUE if any operand is TRUE, else NULL
// if any is NULL, else FALSE.
func buildOr(b *builder, c *Call, args []evalFn) (evalFn, error) {
	return func(row []types.Value) (types.Value, error) {
		sawNull := false
		for _, f := range args {
			v, err := f(row)
			if err != nil {
				return v, err
			}
			if v.IsNull() {
				sawNull = true
			} else if v.Bool() {
				return v, nil
			}
		}
		if sawNull {
			return types.Value{}, nil
		}
		return types.Bool(false), nil
	}, nil
}

func buildNot(b *builder, c *Call, args []evalFn) (evalFn, error) {
	return strict1(args[0], func(v types.Value) (types.Value, error) { return types.Bool(!v.Bool()), nil }), nil
}

func checkIsNull(c *Call) (types.Type, error) { return types.Boolean().NotNullable(), nil }

func buildIsNull(negated bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, args []evalFn) (evalFn, error) {
		x := args[0]
		return func(row []types.Value) (types.Value, error) {
			v, err := x(row)
			if err != nil {
				return v, err
			}
			return types.Bool(v.IsNull() != negated), nil
		}, nil
	}
}

func checkIsBool(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famBool) {
		return types.Type{}, errArgs
	}
	return types.Boolean().NotNullable(), nil
}

func buildIsBool(want, negated bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, args []evalFn) (evalFn, error) {
		x := args[0]
		return func(row []types.Value) (types.Value, error) {
			v, err := x(row)
			if err != nil {
				return v, err
			}
			is := !v.IsNull() && v.Bool() == want
			return types.Bool(is != negated), nil
		}, nil
	}
}

func checkDistinct(c *Call) (types.Type, error) {
	a, b := c.Args[0].Type(), c.Args[1].Type()
	if !comparableTypes(a, b) {
		return types.Type{}, errArgs
	}
	ct, _ := commonType(a, b)
	coerceArgs(c, ct)
	return types.Boolean().NotNullable(), nil
}

// buildDistinct: IS DISTINCT FROM treats two NULLs as equal and NULL as
// different from every value; it is never NULL.
func buildDistinct(distinct bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, args []evalFn) (evalFn, error) {
		ct, _ := commonType(c.Args[0].Type(), c.Args[1].Type())
		cmp := types.Comparator(ct)
		x, y := args[0], args[1]
		return func(row []types.Value) (types.Value, error) {
			a, err := x(row)
			if err != nil {
				return a, err
			}
			v, err := y(row)
			if err != nil {
				return v, err
			}
			var same bool
			switch {
			case a.IsNull() || v.IsNull():
				same = a.IsNull() && v.IsNull()
			default:
				same = cmp(a, v) == 0
			}
			return types.Bool(same != distinct), nil
		}, nil
	}
}

// checkBetween: like IN (and unlike =), BETWEEN lets strings meet numbers
// in Flink: '1' BETWEEN 1 AND 2 casts the string to the numbers' common
// type (and fails on text that is not a number).
func checkBetween(c *Call) (types.Type, error) {
	ts := argTypes(c)
	ct, ok := inCommonType(ts)
	if !ok || unordered(ct) {
		return types.Type{}, errArgs
	}
	coerceArgs(c, ct)
	return withNull(types.Boolean(), allNotNull(c)), nil
}

// buildBetween: x BETWEEN a AND b is x >= a AND x <= b, with AND's NULL
// logic.
func buildBetween(negated bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, args []evalFn) (evalFn, error) {
		ct, _ := commonType(argTypes(c)...)
		cmp := types.Comparator(ct)
		x, lo, hi := args[0], args[1], args[2]
		return func(row []types.Value) (types.Value, error) {
			v, err := x(row)
			if err != nil {
				return v, err
			}
			l, err := lo(row)
			if err != nil {
				return l, err
			}
			h, err := hi(row)
			if err != nil {
				return h, err
			}
			// Each half is NULL, TRUE or FALSE.
			ge, geNull := false, v.IsNull() || l.IsNull()
			if !geNull {
				ge = cmp(v, l) >= 0
			}
			le, leNull := false, v.IsNull() || h.IsNull()
			if !leNull {
				le = cmp(v, h) <= 0
			}
			var r types.Value
			switch {
			case (!geNull && !ge) || (!leNull && !le):
				r = types.Bool(false)
			case geNull || leNull:
				return types.Value{}, nil
			default:
				r = types.Bool(true)
			}
			if negated {
				r = types.Bool(!r.Bool())
			}
			return r, nil
		}, nil
	}
}

func checkIn(c *Call) (types.Type, error) {
	ct, ok := inCommonType(argTypes(c))
	if !ok {
		return types.Type{}, errArgs
	}
	coerceArgs(c, ct)
	return withNull(types.Boolean(), allNotNull(c) && (ct.Kind != types.KindRow || fieldsNotNull(ct))), nil
}

// inCommonType is the type IN compares in. Unlike =, IN lets strings meet
// numbers (Flink's '1' IN (1) is TRUE): the strings are cast to the
// numbers' common type.
func inCommonType(ts []types.Type) (types.Type, bool) {
	if ct, ok := commonType(ts...); ok {
		return ct, true
	}
	var nums []types.Type
	notNull := true
	for _, t := range ts {
		notNull = notNull && t.NotNull
		switch familyOf(t) {
		case famNumeric:
			nums = append(nums, t)
		case famString, famNull:
		default:
			return types.Type{}, false
		}
	}
	if len(nums) == 0 {
		return types.Type{}, false
	}
	ct, ok := commonType(nums...)
	ct.NotNull = notNull
	return ct, ok
}

// buildIn: x IN (a, b, ...) is TRUE when x equals one of them, else NULL
// when x or any of them is NULL, else FALSE. Constant lists of integers or
// strings are looked up in a set.
func buildIn(negated bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, args []evalFn) (evalFn, error) {
		ct, _ := inCommonType(argTypes(c))
		cmp := types.Comparator(ct)
		var rowEq func(a, b types.Value) (bool, bool)
		if ct.Kind == types.KindRow {
			// ROW(a, b) IN (...) compares field by field, with NULLs.
			rowEq = rowEquality(ct)
		}
		x, list := args[0], args[1:]
		result := func(found, sawNull bool) types.Value {
			switch {
			case found:
				return types.Bool(!negated)
			case sawNull:
				return types.Value{}
			}
			return types.Bool(negated)
		}
		constant := true
		for _, a := range c.Args[1:] {
			constant = constant && isConstant(a)
		}
		if constant && (ct.IsInteger() || ct.IsString()) {
			ints, strs, listNull := map[int64]bool{}, map[string]bool{}, false
			for _, f := range list {
				v, err := f(nil)
				if err != nil {
					return nil, err
				}
				switch {
				case v.IsNull():
					listNull = true
				case ct.IsInteger():
					ints[v.Int64()] = true
				default:
					strs[v.Str()] = true
				}
			}
			isInt := ct.IsInteger()
			if !isInt && len(strs) <= 8 {
				// A short list is faster to scan than to hash.
				small := make([]string, 0, len(strs))
				for k := range strs {
					small = append(small, k)
				}
				ox := b.operandOf(c.Args[0], x)
				return func(row []types.Value) (types.Value, error) {
					v, err := ox.read(row)
					if err != nil || v.IsNull() {
						return types.Value{}, err
					}
					s := v.Str()
					for _, k := range small {
						if s == k {
							return result(true, listNull), nil
						}
					}
					return result(false, listNull), nil
				}, nil
			}
			return func(row []types.Value) (types.Value, error) {
				v, err := x(row)
				if err != nil || v.IsNull() {
					return types.Value{}, err
				}
				var found bool
				if isInt {
					found = ints[v.Int64()]
				} else {
					found = strs[v.Str()]
				}
				return result(found, listNull), nil
			}, nil
		}
		return func(row []types.Value) (types.Value, error) {
			v, err := x(row)
			if err != nil || v.IsNull() {
				return types.Value{}, err
			}
			sawNull := false
			for _, f := range list {
				e, err := f(row)
				if err != nil {
					return e, err
				}
				switch {
				case e.IsNull():
					sawNull = true
				case rowEq != nil:
					eq, null := rowEq(v, e)
					if eq {
						return result(true, false), nil
					}
					sawNull = sawNull || null
				case cmp(v, e) == 0:
					return result(true, false), nil
				}
			}
			return result(false, sawNull), nil
		}, nil
	}
}

// ---- subscripts ----

func checkItem(c *Call) (types.Type, error) {
	a, k := c.Args[0].Type(), c.Args[1].Type()
	switch a.Kind {
	case types.KindArray:
		if !k.IsInteger() && k.Kind != types.KindNull {
			return types.Type{}, errArgs
		}
		return a.Elem.Nullable(), nil
	case types.KindMap:
		if !comparableTypes(*a.Elem, k) {
			return types.Type{}, errArgs
		}
		c.Args[1] = coerce(c.Args[1], *a.Elem)
		return a.Value.Nullable(), nil
	case types.KindRow:
		// r[i] is field i (1-based); i must be an integer literal.
		i, ok := rowIndex(c)
		if !ok {
			return types.Type{}, &ArgumentError{Function: "ITEM", Given: argTypes(c),
				Expected: fmt.Sprintf("ROW[i] with i an integer literal from 1 to %d", len(a.Fields))}
		}
		return withNull(a.Fields[i].Type, a.Fields[i].Type.NotNull && a.NotNull), nil
	}
	return types.Type{}, errArgs
}

// rowIndex returns the 0-based field index of ROW[i] when i is an integer
// literal within the row.
func rowIndex(c *Call) (int, bool) {
	l, ok := c.Args[1].(*Literal)
	if !ok || !l.Typ.IsInteger() || l.Val.IsNull() {
		return 0, false
	}
	n := l.Val.Int64()
	if n < 1 || n > int64(len(c.Args[0].Type().Fields)) {
		return 0, false
	}
	return int(n - 1), true
}

// checkField types r.name: the field's type, nullable when the row is.
func checkField(c *Call) (types.Type, error) {
	r := c.Args[0].Type()
	l, ok := c.Args[1].(*Literal)
	if r.Kind != types.KindRow || !ok || !l.Typ.IsString() || l.Val.IsNull() {
		return types.Type{}, errArgs
	}
	for _, f := range r.Fields {
		if f.Name == l.Val.Str() {
			t := f.Type
			if !r.NotNull {
				t = t.Nullable()
			}
			return t, nil
		}
	}
	names := make([]string, len(r.Fields))
	for i, f := range r.Fields {
		names[i] = f.Name
	}
	return types.Type{}, &ArgumentError{Function: "FIELD", Given: argTypes(c),
		Expected: fmt.Sprintf("one of the fields %v (no field %q)", names, l.Val.Str())}
}

// fieldIndex returns the position in its ROW of the field a resolved
// FIELD call reads.
func fieldIndex(c *Call) int {
	name := c.Args[1].(*Literal).Val.Str()
	idx := 0
	for i, f := range c.Args[0].Type().Fields {
		if f.Name == name {
			idx = i
		}
	}
	return idx
}

func buildField(b *builder, c *Call, a []evalFn) (evalFn, error) {
	idx := fieldIndex(c)
	return unop(b.operandOf(c.Args[0], a[0]), func(r types.Value) (types.Value, error) {
		l := r.List()
		if idx >= len(l) {
			return types.Value{}, nil
		}
		return l[idx], nil
	}), nil
}

// buildItem: arr[i] is 1-based, NULL past the end and an error below 1 (as
// in Flink); m[k] is NULL for a missing key.
func buildItem(b *builder, c *Call, args []evalFn) (evalFn, error) {
	a := c.Args[0].Type()
	if a.Kind == types.KindRow {
		idx, _ := rowIndex(c)
		return unop(b.operandOf(c.Args[0], args[0]), func(r types.Value) (types.Value, error) {
			if l := r.List(); idx < len(l) {
				return l[idx], nil
			}
			return types.Value{}, nil
		}), nil
	}
	if a.Kind == types.KindArray {
		return strict2(args[0], args[1], func(arr, i types.Value) (types.Value, error) {
			l := arr.List()
			n := i.Int64()
			if n < 1 {
				return types.Value{}, fmt.Errorf("%w: array index %d; indexes start at 1", ErrInvalidArgument, n)
			}
			if n > int64(len(l)) {
				return types.Value{}, nil
			}
			return l[n-1], nil
		}), nil
	}
	cmp := types.Comparator(*a.Elem)
	return strict2(args[0], args[1], func(m, k types.Value) (types.Value, error) {
		md := m.Map()
		if md == nil {
			return types.Value{}, nil
		}
		for i, key := range md.Keys {
			if !key.IsNull() && cmp(key, k) == 0 {
				return md.Values[i], nil
			}
		}
		return types.Value{}, nil
	}), nil
}

func bigPow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// cmpOp is a comparison operator.
type cmpOp uint8

const (
	opEq cmpOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

// holds reports whether a comparison whose result is r (below, at or
// above zero) satisfies op.
func (op cmpOp) holds(r int) bool {
	switch op {
	case opEq:
		return r == 0
	case opNe:
		return r != 0
	case opLt:
		return r < 0
	case opLe:
		return r <= 0
	case opGt:
		return r > 0
	}
	return r >= 0
}

func cmpOpOf(name string) cmpOp {
	switch name {
	case "=":
		return opEq
	case "<>":
		return opNe
	case "<":
		return opLt
	case "<=":
		return opLe
	case ">":
		return opGt
	}
	return opGe
}
