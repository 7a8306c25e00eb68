package expr

import (
	"math"
	"math/bits"

	"github.com/streamsql/streamsql/types"
)

// compactDecimalArith returns the evaluator of x op y (op +, - or *) of
// result type DECIMAL(p, s) that computes in int64 when it can, as
// Flink's compact decimals (precision ≤ 18) do: both operands' unscaled
// values fit an int64, the result's scale is the exact one (s: the larger
// scale for + and -, the sum of the scales for *), and neither the
// aligning, the operation nor the result's precision overflows. Anything
// else goes to general, the exact math/big path, so results are the same
// to the digit (and NULL where that overflows DECIMAL(p, s)). It returns
// nil for other operators. An operand of an integer type is read at
// scale 0 (ta, tb: the operands' types). When one operand is a constant
// and the other read in place, *dst is set to the same evaluation as a
// dstFn (dst.go); otherwise it is left alone.
func compactDecimalArith(op string, x, y operand, ta, tb types.Type, p, s int, general func(a, b types.Value) (types.Value, error), dst *dstFn) evalFn {
	var code int
	switch op {
	case "+":
		code = opAdd
	case "-":
		code = opSub
	case "*":
		code = opMul
	default:
		return nil
	}
	xInt, yInt := ta.IsInteger(), tb.IsInteger()
	if (x.konst && x.val.IsNull()) || (y.konst && y.val.IsNull()) {
		return constFn(types.Value{})
	}
	// A constant side (q1's 0.908 * price) is read once, and the other
	// in place when it is a column or a ROW's field: a Value is 48 bytes,
	// and copying them was most of the cost.
	if y.konst && x.direct() {
		if ub, sb, ok := compactOf(&y.val, yInt); ok {
			yv := y.val
			if dst != nil {
				*dst = func(row []types.Value, dst *types.Value) error {
					a, err := x.ptr(row)
					if err != nil || a == nil || a.IsNull() {
						*dst = types.Value{}
						return err
					}
					if ua, sa, ok := compactOf(a, xInt); ok {
						if r, ok := compactOp(code, ua, sa, ub, sb, p, s); ok {
							*dst = types.CompactDecimal(r, s)
							return nil
						}
					}
					v, err := general(*a, yv)
					*dst = v
					return err
				}
			}
			return func(row []types.Value) (types.Value, error) {
				a, err := x.ptr(row)
				if err != nil || a == nil || a.IsNull() {
					return types.Value{}, err
				}
				if ua, sa, ok := compactOf(a, xInt); ok {
					if r, ok := compactOp(code, ua, sa, ub, sb, p, s); ok {
						return types.CompactDecimal(r, s), nil
					}
				}
				return general(*a, yv)
			}
		}
	}
	if x.konst && y.direct() {
		if ua, sa, ok := compactOf(&x.val, xInt); ok {
			xv := x.val
			if dst != nil {
				*dst = func(row []types.Value, dst *types.Value) error {
					b, err := y.ptr(row)
					if err != nil || b == nil || b.IsNull() {
						*dst = types.Value{}
						return err
					}
					if ub, sb, ok := compactOf(b, yInt); ok {
						if r, ok := compactOp(code, ua, sa, ub, sb, p, s); ok {
							*dst = types.CompactDecimal(r, s)
							return nil
						}
					}
					v, err := general(xv, *b)
					*dst = v
					return err
				}
			}
			return func(row []types.Value) (types.Value, error) {
				b, err := y.ptr(row)
				if err != nil || b == nil || b.IsNull() {
					return types.Value{}, err
				}
				if ub, sb, ok := compactOf(b, yInt); ok {
					if r, ok := compactOp(code, ua, sa, ub, sb, p, s); ok {
						return types.CompactDecimal(r, s), nil
					}
				}
				return general(xv, *b)
			}
		}
	}
	return func(row []types.Value) (types.Value, error) {
		a, err := x.read(row)
		if err != nil || a.IsNull() {
			return types.Value{}, err
		}
		b, err := y.read(row)
		if err != nil || b.IsNull() {
			return types.Value{}, err
		}
		if ua, sa, ok := compactOf(&a, xInt); ok {
			if ub, sb, ok := compactOf(&b, yInt); ok {
				if r, ok := compactOp(code, ua, sa, ub, sb, p, s); ok {
					return types.CompactDecimal(r, s), nil
				}
			}
		}
		return general(a, b)
	}
}

// The operators of compactOp.
const (
	opAdd = iota
	opSub
	opMul
)

// compactOp returns ua×10^-sa op ub×10^-sb as an unscaled value at scale
// s, and whether it is exact there in an int64 of at most p digits: for
// * s must be sa+sb, for + and - max(sa, sb).
func compactOp(code int, ua int64, sa int, ub int64, sb int, p, s int) (int64, bool) {
	var r int64
	var ok bool
	if code == opMul {
		if sa+sb != s {
			return 0, false
		}
		if r, ok = mul64(ua, ub); !ok {
			return 0, false
		}
	} else {
		if max(sa, sb) != s {
			return 0, false
		}
		if ua, ok = scaleUp64(ua, s-sa); !ok {
			return 0, false
		}
		if ub, ok = scaleUp64(ub, s-sb); !ok {
			return 0, false
		}
		if code == opSub {
			if ub == math.MinInt64 {
				return 0, false
			}
			ub = -ub
		}
		if r = ua + ub; ub != 0 && (r > ua) != (ub > 0) {
			return 0, false // the sum wrapped
		}
	}
	return r, fitsPrecision(r, p)
}

// direct reports whether the operand is read in place (ptr): a column or
// a ROW column's field.
func (o *operand) direct() bool { return o.col >= 0 || o.field }

// ptr returns where a direct operand's value is in row, or nil for the
// NULL of a field of a NULL or shorter ROW.
func (o *operand) ptr(row []types.Value) (*types.Value, error) {
	if o.col >= 0 {
		if o.col >= len(row) {
			return nil, errColumn(o.col, len(row))
		}
		return &row[o.col], nil
	}
	if o.fcol >= len(row) {
		return nil, errColumn(o.fcol, len(row))
	}
	if r := &row[o.fcol]; !r.IsNull() {
		if l := r.List(); o.fidx < len(l) {
			return &l[o.fidx], nil
		}
	}
	return nil, nil
}

// compactOf returns the unscaled value and scale of v, an integer (scale
// 0) when isInt, else a DECIMAL, and whether the unscaled value fits an
// int64.
func compactOf(v *types.Value, isInt bool) (int64, int, bool) {
	if isInt {
		return v.Int64(), 0, true
	}
	return v.CompactDecimal()
}

// mul64 returns a × b and whether it fits an int64.
func mul64(a, b int64) (int64, bool) {
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(absU64(a), absU64(b))
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return -int64(lo), true // lo == 1<<63 gives MinInt64
	}
	if lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-v) // MinInt64 gives 1<<63, as it should
	}
	return uint64(v)
}

// scaleUp64 returns u × 10^n (0 ≤ n) and whether it fits an int64.
func scaleUp64(u int64, n int) (int64, bool) {
	if n == 0 || u == 0 {
		return u, true
	}
	if n >= len(pow10) {
		return 0, false
	}
	return mul64(u, pow10[n])
}

// fitsPrecision reports whether u has at most p digits (any int64 has at
// most 19).
func fitsPrecision(u int64, p int) bool {
	if p >= len(pow10) {
		return true
	}
	if u == math.MinInt64 {
		return false
	}
	if u < 0 {
		u = -u
	}
	return u < pow10[p]
}
