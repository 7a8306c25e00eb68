package expr

import (
	"math"
	"math/big"
	"strconv"

	"github.com/streamsql/streamsql/types"
)

// Conditional and numeric functions.

func checkCoalesce(c *Call) (types.Type, error) {
	t, ok := commonType(argTypes(c)...)
	if !ok {
		return t, errArgs
	}
	// NOT NULL as soon as one argument is NOT NULL.
	t.NotNull = false
	for _, a := range c.Args {
		if a.Type().NotNull {
			t.NotNull = true
		}
	}
	coerceArgs(c, t)
	return t, nil
}

// buildCoalesce returns the first non-NULL argument, evaluating no further.
func buildCoalesce(b *builder, c *Call, a []evalFn) (evalFn, error) {
	ops := make([]operand, len(a))
	for i := range a {
		ops[i] = b.operandOf(c.Args[i], a[i])
	}
	if len(ops) == 2 && ops[0].col >= 0 && ops[1].konst {
		// COALESCE(column, default): the common case, without calls.
		xc, def := ops[0].col, ops[1].val
		return func(row []types.Value) (types.Value, error) {
			if xc >= len(row) {
				return types.Value{}, errColumn(xc, len(row))
			}
			if v := row[xc]; !v.IsNull() {
				return v, nil
			}
			return def, nil
		}, nil
	}
	return func(row []types.Value) (types.Value, error) {
		for i := range ops {
			v, err := ops[i].read(row)
			if err != nil || !v.IsNull() {
				return v, err
			}
		}
		return types.Value{}, nil
	}, nil
}

func checkNullIf(c *Call) (types.Type, error) {
	a, b := c.Args[0].Type(), c.Args[1].Type()
	if !comparableTypes(a, b) {
		return types.Type{}, errArgs
	}
	return a.Nullable(), nil
}

// buildNullIf: NULL when a = b, else a.
func buildNullIf(b *builder, c *Call, a []evalFn) (evalFn, error) {
	ct, _ := commonType(c.Args[0].Type(), c.Args[1].Type())
	x, err := b.castEval(a[0], c.Args[0].Type(), ct, false)
	if err != nil {
		return nil, err
	}
	y, err := b.castEval(a[1], c.Args[1].Type(), ct, false)
	if err != nil {
		return nil, err
	}
	cmp := types.Comparator(ct)
	orig := a[0]
	return func(row []types.Value) (types.Value, error) {
		v, err := orig(row)
		if err != nil || v.IsNull() {
			return types.Value{}, err
		}
		cv, err := x(row)
		if err != nil {
			return cv, err
		}
		w, err := y(row)
		if err != nil {
			return w, err
		}
		if !w.IsNull() && cmp(cv, w) == 0 {
			return types.Value{}, nil
		}
		return v, nil
	}, nil
}

func checkIf(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famBool) {
		return types.Type{}, errArgs
	}
	t, ok := commonType(c.Args[1].Type(), c.Args[2].Type())
	if !ok {
		return t, errArgs
	}
	c.Args[1], c.Args[2] = coerce(c.Args[1], t), coerce(c.Args[2], t)
	return t, nil
}

func buildIf(b *builder, c *Call, a []evalFn) (evalFn, error) {
	cond, yes, no := a[0], a[1], a[2]
	return func(row []types.Value) (types.Value, error) {
		v, err := cond(row)
		if err != nil {
			return v, err
		}
		if !v.IsNull() && v.Bool() {
			return yes(row)
		}
		return no(row)
	}, nil
}

func checkSameNumeric(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if !is(t, famNumeric) {
		return t, errArgs
	}
	return t, nil
}

func buildAbs(b *builder, c *Call, a []evalFn) (evalFn, error) {
	t := c.typ
	switch {
	case t.IsInteger():
		wrap := intWrapper(t.Kind)
		return strict1(a[0], func(v types.Value) (types.Value, error) {
			i := v.Int64()
			if i < 0 {
				i = wrap(-i)
			}
			return types.Int64(i), nil
		}), nil
	case t.Kind == types.KindDecimal:
		return strict1(a[0], func(v types.Value) (types.Value, error) {
			d := v.Decimal()
			if d.Sign() >= 0 {
				return v, nil
			}
			u := d.Unscaled()
			return types.DecimalValue(types.NewDecimalBig(u.Neg(u), d.Scale())), nil
		}), nil
	case t.Kind == types.KindNull:
		return constFn(types.Value{}), nil
	}
	return strict1(a[0], func(v types.Value) (types.Value, error) { return types.Float64(math.Abs(v.Float64())), nil }), nil
}

func checkRound(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if !is(t, famNumeric) {
		return t, errArgs
	}
	r := 0
	if len(c.Args) == 2 {
		rt := c.Args[1].Type()
		if !rt.IsInteger() {
			return t, errArgs
		}
		if t.Kind == types.KindDecimal {
			l, ok := c.Args[1].(*Literal)
			if !ok || l.Val.IsNull() {
				return t, &ArgumentError{Function: "ROUND", Given: argTypes(c), Expected: "ROUND(DECIMAL, INT literal)"}
			}
			r = int(l.Val.Int64())
		}
	}
	if t.Kind == types.KindDecimal {
		return roundDecimalType(t.Precision, t.Scale, r, t.NotNull && allNotNull(c)), nil
	}
	return withNull(t, allNotNull(c)), nil
}

// roundHalfUp rounds the decimal to r fractional digits (r may be
// negative), half away from zero.
func roundHalfUp(d types.Decimal, r int) types.Decimal {
	if d.Scale() <= r {
		return d
	}
	u := d.Unscaled()
	div := bigPow10(d.Scale() - r)
	q, m := new(big.Int).QuoRem(u, div, new(big.Int))
	m.Abs(m).Mul(m, big.NewInt(2))
	if m.Cmp(div) >= 0 {
		if u.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if r < 0 {
		return types.NewDecimalBig(q.Mul(q, bigPow10(-r)), 0)
	}
	return types.NewDecimalBig(q, r)
}

// buildRound rounds half-up. DOUBLE values round through their shortest
// decimal representation (as BigDecimal.valueOf), so ROUND(2.675, 2) is
// 2.68.
func buildRound(b *builder, c *Call, a []evalFn) (evalFn, error) {
	t := c.typ
	digits := constFn(types.Int64(0))
	if len(a) == 2 {
		digits = a[1]
	}
	switch {
	case t.Kind == types.KindDecimal:
		p, s := t.Precision, t.Scale
		return strict2(a[0], digits, func(v, r types.Value) (types.Value, error) {
			return decimalResult(roundHalfUp(v.Decimal(), int(r.Int64())), p, s), nil
		}), nil
	case t.IsInteger():
		wrap := intWrapper(t.Kind)
		return strict2(a[0], digits, func(v, r types.Value) (types.Value, error) {
			if r.Int64() >= 0 {
				return v, nil
			}
			d := roundHalfUp(types.NewDecimal(v.Int64(), 0), int(r.Int64()))
			return types.Int64(wrap(decimalToInt64(d))), nil
		}), nil
	case t.Kind == types.KindNull:
		return constFn(types.Value{}), nil
	}
	bits := 64
	if t.Kind == types.KindFloat {
		bits = 32
	}
	return strict2(a[0], digits, func(v, r types.Value) (types.Value, error) {
		f := v.Float64()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return v, nil
		}
		d, err := types.ParseDecimal(strconv.FormatFloat(f, 'g', -1, bits))
		if err != nil {
			return v, nil
		}
		out := roundHalfUp(d, int(r.Int64())).Float64()
		if bits == 32 {
			out = float64(float32(out))
		}
		return types.Float64(out), nil
	}), nil
}

func checkFloorCeil(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if c.Unit != UnitNone {
		if !is(t, famDate, famTimestamp) {
			return t, errArgs
		}
		switch c.Unit {
		case UnitYear, UnitQuarter, UnitMonth, UnitWeek, UnitDay, UnitHour, UnitMinute, UnitSecond, UnitMillisecond:
		default:
			return t, &ArgumentError{Function: c.Name, Given: argTypes(c), Expected: c.Name + "(datetime TO YEAR|QUARTER|MONTH|WEEK|DAY|HOUR|MINUTE|SECOND|MILLISECOND)"}
		}
		return t, nil
	}
	if !is(t, famNumeric) {
		return t, errArgs
	}
	if t.Kind == types.KindDecimal {
		// DECIMAL(p, s) -> DECIMAL(p, 0) (Calcite's ARG0_OR_EXACT_NO_SCALE).
		return withNull(types.DecimalType(t.Precision, 0), t.NotNull), nil
	}
	return t, nil
}

func buildFloorCeil(ceil bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		if c.Unit != UnitNone {
			return b.buildTruncTime(c, a[0], ceil)
		}
		t := c.typ
		switch {
		case t.IsInteger() || t.Kind == types.KindNull:
			return a[0], nil
		case t.Kind == types.KindDecimal:
			p := t.Precision
			return strict1(a[0], func(v types.Value) (types.Value, error) {
				d := v.Decimal()
				if d.Scale() <= 0 {
					return decimalResult(d, p, 0), nil
				}
				u := d.Unscaled()
				q, m := new(big.Int).QuoRem(u, bigPow10(d.Scale()), new(big.Int))
				if m.Sign() != 0 {
					if ceil && u.Sign() > 0 {
						q.Add(q, big.NewInt(1))
					} else if !ceil && u.Sign() < 0 {
						q.Sub(q, big.NewInt(1))
					}
				}
				return decimalResult(types.NewDecimalBig(q, 0), p, 0), nil
			}), nil
		}
		f := math.Floor
		if ceil {
			f = math.Ceil
		}
		return strict1(a[0], func(v types.Value) (types.Value, error) { return types.Float64(f(v.Float64())), nil }), nil
	}
}

func checkDoubleFn(c *Call) (types.Type, error) {
	for _, a := range c.Args {
		if !is(a.Type(), famNumeric) {
			return types.Type{}, errArgs
		}
	}
	return withNull(types.Double(), allNotNull(c)), nil
}

func buildDoubleFn(f func(a, b float64) float64) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		fa := floatConv(c.Args[0].Type())
		if len(a) == 1 {
			return strict1(a[0], func(x types.Value) (types.Value, error) { return types.Float64(f(fa(x), 0)), nil }), nil
		}
		fb := floatConv(c.Args[1].Type())
		return strict2(a[0], a[1], func(x, y types.Value) (types.Value, error) {
			return types.Float64(f(fa(x), fb(y))), nil
		}), nil
	}
}
