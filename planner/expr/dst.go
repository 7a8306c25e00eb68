package expr

import (
	"github.com/streamsql/streamsql/types"
)

// Results written in place.
//
// An evalFn hands its result back as a types.Value: 48 bytes in
// registers that the caller spills and then copies as 16-byte blocks into
// where the value goes (a projection's output field, a memo cell), and
// that copy stalls on store forwarding (cond.go). The builder therefore
// also compiles the nodes whose value is stored somewhere into a dstFn,
// which writes the value into its destination itself, and gives the
// memo's common subexpressions a refFn, which returns where the value is
// (the memo's cell) instead of a copy: a condition or an integer operand
// over it reads the cell in place. As with condFn and intFn (cond.go)
// these are the same compiler over the same IR: each form is built from
// the same nodes, with the same order of evaluation, NULL rules and
// errors as the node's evalFn, and a node no form specialises is written
// through its evalFn (dstOfEval).

// dstFn evaluates a node into *dst: what its evalFn returns, stored
// there. It writes *dst once, after everything it reads (so dst may be a
// field a later part of the same evaluation does not read); after an
// error *dst is unspecified.
type dstFn func(row []types.Value, dst *types.Value) error

// refFn evaluates a node whose value is kept (a memo cell) and returns
// where it is, valid until the memo's next row: what its evalFn returns,
// not copied.
type refFn func(row []types.Value) (*types.Value, error)

// dstOfEval writes fn's value.
func dstOfEval(fn evalFn) dstFn {
	return func(row []types.Value, dst *types.Value) error {
		v, err := fn(row)
		*dst = v
		return err
	}
}

// setDst records d as the dstFn of node e (before the constant folding
// and memo of compile, which compileDst applies itself): the build of
// e's evalFn calls it with the form that gives what that evalFn gives.
func (b *builder) setDst(e Expr, d dstFn) {
	if b.dsts == nil {
		b.dsts = map[Expr]dstFn{}
	}
	b.dsts[e] = d
}

// dstOf returns the dstFn of e (resolved), whose evalFn fn this builder
// compiled: a column copied in place, a constant, a memo cell (copied
// from the cell), the form e's build recorded (setDst), else fn
// (dstOfEval).
func (b *builder) dstOf(e Expr, fn evalFn) dstFn {
	if d := b.specialDst(e, fn); d != nil {
		return d
	}
	return dstOfEval(fn)
}

// specialDst is dstOf, but nil where dstOf would only wrap fn: a caller
// that has fn may as well call it (one closure layer fewer).
func (b *builder) specialDst(e Expr, fn evalFn) dstFn {
	if c, ok := e.(*ColumnRef); ok {
		if _, fixed := b.known[c.Index]; !fixed {
			i := c.Index
			return func(row []types.Value, dst *types.Value) error {
				if i >= len(row) {
					_, err := fn(row) // the column's error
					return err
				}
				*dst = row[i]
				return nil
			}
		}
	}
	if b.constant(e) {
		if v, err := fn(nil); err == nil {
			return func(_ []types.Value, dst *types.Value) error {
				*dst = v
				return nil
			}
		}
		return nil
	}
	if r := b.refOf(e); r != nil {
		return func(row []types.Value, dst *types.Value) error {
			p, err := r(row)
			if err != nil {
				return err
			}
			*dst = *p
			return nil
		}
	}
	return b.dsts[e]
}

// refOf returns the refFn of e when e is one of CompileFlow's common
// subexpressions compiled by this builder (compile made it), else nil.
func (b *builder) refOf(e Expr) refFn {
	if !b.memoized(e) {
		return nil
	}
	return b.refs[e]
}

// memoEval is compile's evaluator of memoized node e whose own
// evaluator is fn: cell j, filled through e's dstFn (or fn); its refFn is
// kept for refOf.
func (b *builder) memoEval(e Expr, j int, fn evalFn) evalFn {
	fill := b.dsts[e]
	if b.refs == nil {
		b.refs = map[Expr]refFn{}
	}
	b.refs[e] = b.memo.ref(j, fill, fn)
	// The evalFn fills the cell through fn: a value written in place
	// and read back at once as a whole would stall on store forwarding.
	return b.memo.wrap(j, fn)
}

// into evaluates the operand into *dst (read's value, written in place).
func (o *operand) into(row []types.Value, dst *types.Value) error {
	switch {
	case o.col >= 0:
		if o.col >= len(row) {
			return errColumn(o.col, len(row))
		}
		*dst = row[o.col]
		return nil
	case o.konst:
		*dst = o.val
		return nil
	case o.field:
		p, err := o.ptr(row)
		if err != nil {
			return err
		}
		if p == nil {
			*dst = types.Value{}
			return nil
		}
		*dst = *p
		return nil
	case o.ref != nil:
		p, err := o.ref(row)
		if err != nil {
			return err
		}
		*dst = *p
		return nil
	case o.dst != nil:
		return o.dst(row, dst)
	}
	v, err := o.fn(row)
	*dst = v
	return err
}

// strUnopDst is strUnop's dstFn: f's string (or NULL) written into *dst.
func strUnopDst(x operand, f func(s string) (r string, null bool)) dstFn {
	if x.direct() {
		return func(row []types.Value, dst *types.Value) error {
			a, err := x.ptr(row)
			if err != nil {
				return err
			}
			if a == nil || a.IsNull() {
				*dst = types.Value{}
				return nil
			}
			if r, null := f(a.Str()); !null {
				*dst = types.Str(r)
				return nil
			}
			*dst = types.Value{}
			return nil
		}
	}
	if x.konst {
		if x.val.IsNull() {
			return func(_ []types.Value, dst *types.Value) error { *dst = types.Value{}; return nil }
		}
		s := x.val.Str()
		return func(_ []types.Value, dst *types.Value) error {
			if r, null := f(s); !null {
				*dst = types.Str(r)
				return nil
			}
			*dst = types.Value{}
			return nil
		}
	}
	xf := x.fn
	return func(row []types.Value, dst *types.Value) error {
		a, err := xf(row)
		if err != nil || a.IsNull() {
			*dst = types.Value{}
			return err
		}
		if r, null := f(a.Str()); !null {
			*dst = types.Str(r)
			return nil
		}
		*dst = types.Value{}
		return nil
	}
}

// strUnop is strUnop's evalFn for call c, with its dstFn recorded.
func (b *builder) strUnop(c *Call, x operand, f func(s string) (r string, null bool)) evalFn {
	b.setDst(c, strUnopDst(x, f))
	return strUnop(x, f)
}

// held returns where operand o's value is when it is held in the row or
// is a constant (a NULL field of a NULL or short ROW: null), else nil.
func (o operand) held(null *types.Value) refFn {
	switch {
	case o.col >= 0 || o.field:
		return func(row []types.Value) (*types.Value, error) {
			p, err := o.ptr(row)
			if p == nil && err == nil {
				p = null
			}
			return p, err
		}
	case o.konst:
		k := new(types.Value)
		*k = o.val
		return func([]types.Value) (*types.Value, error) { return k, nil }
	}
	return nil
}

// setPeek records, for a searched CASE compiled as truths and outs (else
// elseOp) whose results are all held in the row or constant, the refFn
// that returns where the chosen result is (Program.Peek).
func (b *builder) setPeek(n *Case, truths []condFn, outs []operand, elseOp operand) {
	null := new(types.Value)
	refs := make([]refFn, len(outs))
	for j, o := range outs {
		if refs[j] = o.held(null); refs[j] == nil {
			return
		}
	}
	elseRef := elseOp.held(null)
	if elseRef == nil {
		return
	}
	if b.peeks == nil {
		b.peeks = map[Expr]refFn{}
	}
	b.peeks[n] = func(row []types.Value) (*types.Value, error) {
		for j, c := range truths {
			t, err := c(row)
			if err != nil {
				return nil, err
			}
			if t == isTrue {
				return refs[j](row)
			}
		}
		return elseRef(row)
	}
}

// peekOf returns the refFn of e (resolved, whose evalFn fn this builder
// compiled) when
// its value is always held in the row or constant: a column, a ROW
// column's field, a constant, a searched CASE of those (setPeek); else
// nil.
func (b *builder) peekOf(e Expr, fn evalFn) refFn {
	if b.viaArgs || b.memoized(e) {
		return nil
	}
	if r := b.operandOf(e, fn).held(new(types.Value)); r != nil {
		return r
	}
	return b.peeks[e]
}
