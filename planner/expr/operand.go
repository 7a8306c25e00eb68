package expr

import (
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// operand is how a hot binary operator reads one argument: straight from a
// row field, as a pre-computed constant, or through a nested evaluator.
// Reading fields and constants inside the operator's own closure saves two
// closure calls per operator, which is most of the cost of a simple filter
// such as amount > 100.
type operand struct {
	fn    evalFn
	col   int // >= 0: a bare column
	konst bool
	val   types.Value
	// field: a field of a ROW column (row.f), field idx of column fcol,
	// read as FIELD reads it (buildField) without its two calls.
	field      bool
	fcol, fidx int
	// ref, for a memoized argument, reads its memo cell in place; dst,
	// for another whose build recorded one, writes it in place (into).
	ref refFn
	dst dstFn
}

// operandOf classifies argument e whose evaluator is fn. Casts that do not
// change the representation are looked through.
func (b *builder) operandOf(e Expr, fn evalFn) operand {
	if b.viaArgs {
		return operand{fn: fn, col: -1}
	}
	if r := b.refOf(e); r != nil {
		return operand{fn: fn, col: -1, ref: r}
	}
	// A CASE the known columns decide is its branch (whose evaluator fn
	// is): the Nexmark tables' dateTime under a view's event_type filter
	// is a ROW's field.
	if d := b.decided(e); d != e {
		if r := b.refOf(d); r != nil {
			return operand{fn: fn, col: -1, ref: r}
		}
		e = d
	}
	orig := e
	for {
		c, ok := e.(*Cast)
		if !ok {
			break
		}
		conv, err := b.castFunc(c.Expr.Type(), c.Target)
		if err != nil || conv != nil {
			break
		}
		e = c.Expr
	}
	if c, ok := e.(*ColumnRef); ok {
		if v, fixed := b.known[c.Index]; fixed {
			return operand{fn: fn, col: -1, konst: true, val: v}
		}
		return operand{fn: fn, col: c.Index}
	}
	if c, ok := e.(*Call); ok && c.Name == "FIELD" {
		if r, ok := c.Args[0].(*ColumnRef); ok {
			if _, fixed := b.known[r.Index]; !fixed {
				return operand{fn: fn, col: -1, field: true, fcol: r.Index, fidx: fieldIndex(c)}
			}
		}
	}
	if b.constant(e) {
		if v, err := fn(nil); err == nil {
			return operand{fn: fn, col: -1, konst: true, val: v}
		}
	}
	if e == orig && !b.constant(e) {
		// (A constant that fails to evaluate is compiled as fn.)
		return operand{fn: fn, col: -1, dst: b.dsts[e]}
	}
	return operand{fn: fn, col: -1}
}

func errColumn(i, n int) error {
	return fmt.Errorf("%w: row has %d fields, no field #%d", ErrInvalidArgument, n, i)
}

// read evaluates the operand.
func (o *operand) read(row []types.Value) (types.Value, error) {
	switch {
	case o.col >= 0:
		if o.col >= len(row) {
			return types.Value{}, errColumn(o.col, len(row))
		}
		return row[o.col], nil
	case o.konst:
		return o.val, nil
	case o.field:
		return readField(row, o.fcol, o.fidx)
	}
	return o.fn(row)
}

// readField is FIELD's evaluation (buildField over a bare column): field
// idx of the ROW in column col, NULL when the ROW is NULL or shorter.
func readField(row []types.Value, col, idx int) (types.Value, error) {
	if col >= len(row) {
		return types.Value{}, errColumn(col, len(row))
	}
	if r := row[col]; !r.IsNull() {
		if l := r.List(); idx < len(l) {
			return l[idx], nil
		}
	}
	return types.Value{}, nil
}

// unop returns a strict evaluator of f(x): NULL when x is NULL.
func unop(x operand, f func(a types.Value) (types.Value, error)) evalFn {
	if x.col >= 0 {
		xc := x.col
		return func(row []types.Value) (types.Value, error) {
			if xc >= len(row) {
				return types.Value{}, errColumn(xc, len(row))
			}
			a := row[xc]
			if a.IsNull() {
				return types.Value{}, nil
			}
			return f(a)
		}
	}
	if x.field {
		xc, xi := x.fcol, x.fidx
		return func(row []types.Value) (types.Value, error) {
			a, err := readField(row, xc, xi)
			if err != nil || a.IsNull() {
				return types.Value{}, err
			}
			return f(a)
		}
	}
	return strict1(x.fn, f)
}

// binop returns a strict evaluator of f(x, y): NULL when either is NULL.
func binop(x, y operand, f func(a, b types.Value) (types.Value, error)) evalFn {
	switch {
	case x.col >= 0 && y.konst:
		xc, yv := x.col, y.val
		if yv.IsNull() {
			return constFn(types.Value{})
		}
		return func(row []types.Value) (types.Value, error) {
			if xc >= len(row) {
				return types.Value{}, errColumn(xc, len(row))
			}
			a := row[xc]
			if a.IsNull() {
				return types.Value{}, nil
			}
			return f(a, yv)
		}
	case x.col >= 0 && y.col >= 0:
		xc, yc := x.col, y.col
		return func(row []types.Value) (types.Value, error) {
			if xc >= len(row) || yc >= len(row) {
				return types.Value{}, errColumn(max(xc, yc), len(row))
			}
			a, b := row[xc], row[yc]
			if a.IsNull() || b.IsNull() {
				return types.Value{}, nil
			}
			return f(a, b)
		}
	case y.konst:
		xf, yv := x.fn, y.val
		if yv.IsNull() {
			return constFn(types.Value{})
		}
		return func(row []types.Value) (types.Value, error) {
			a, err := xf(row)
			if err != nil || a.IsNull() {
				return types.Value{}, err
			}
			return f(a, yv)
		}
	}
	return strict2(x.fn, y.fn, f)
}

// strUnop is unop for a string function of a string: f gets the
// operand's string, not its types.Value, and gives a string (null: NULL),
// not a types.Value. A types.Value passed into or back out of a closure is
// spilled and copied as 16-byte blocks, which stalls on store forwarding
// (cond.go), and costs more than a short string function's own work
// (Nexmark q22's three SPLIT_INDEX(bid.url, '/', k) per bid).
func strUnop(x operand, f func(s string) (r string, null bool)) evalFn {
	if x.col >= 0 {
		xc := x.col
		return func(row []types.Value) (types.Value, error) {
			if xc >= len(row) {
				return types.Value{}, errColumn(xc, len(row))
			}
			if row[xc].IsNull() {
				return types.Value{}, nil
			}
			if r, null := f(row[xc].Str()); !null {
				return types.Str(r), nil
			}
			return types.Value{}, nil
		}
	}
	if x.field {
		xc, xi := x.fcol, x.fidx
		return func(row []types.Value) (types.Value, error) {
			if xc >= len(row) {
				return types.Value{}, errColumn(xc, len(row))
			}
			if row[xc].IsNull() {
				return types.Value{}, nil
			}
			l := row[xc].List()
			if xi >= len(l) || l[xi].IsNull() {
				return types.Value{}, nil
			}
			if r, null := f(l[xi].Str()); !null {
				return types.Str(r), nil
			}
			return types.Value{}, nil
		}
	}
	if x.konst {
		if x.val.IsNull() {
			return constFn(types.Value{})
		}
		s := x.val.Str()
		return func([]types.Value) (types.Value, error) {
			if r, null := f(s); !null {
				return types.Str(r), nil
			}
			return types.Value{}, nil
		}
	}
	xf := x.fn
	return func(row []types.Value) (types.Value, error) {
		a, err := xf(row)
		if err != nil || a.IsNull() {
			return types.Value{}, err
		}
		if r, null := f(a.Str()); !null {
			return types.Str(r), nil
		}
		return types.Value{}, nil
	}
}
