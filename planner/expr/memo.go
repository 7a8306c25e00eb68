package expr

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/streamsql/streamsql/types"
)

// Memo holds, for one goroutine, the values of the common subexpressions
// of a flow compiled by [CompileFlow]: each is computed at most once per
// row however many times the filter and the projections use it (Nexmark
// q21's REGEXP_EXTRACT(url, ...) in the WHERE and again in the CASE, q14's
// 0.908 * price three times, HOUR(dateTime) four times). Call Next before
// evaluating a new row. A Memo is not safe for concurrent use.
type Memo struct {
	gen    uint64
	cells  []memoCell
	splits []splitCell
}

// splitCell is where the tokens of the string the SPLIT_INDEX calls of
// one group (splitGroups) last split start and end, for row gen: bounds
// holds start and end of token 0, 1, ..., up to the group's largest
// index.
type splitCell struct {
	gen    uint64
	s      string
	bounds []int
}

// splitSlot is a SPLIT_INDEX call's group: its cell.
type splitSlot struct {
	cell int
}

// splitPart is splitPartByte(s, sep, n) for a call of group j (n <= its
// largest index): s is split once per row, up to the group's largest
// index, and every call of the group reads its token from that split. A
// call whose s is not the string split for this row (another value, or a
// new row) splits again. null when s has no token n.
func (m *Memo) splitPart(j int, s string, sep byte, n int64) (part string, null bool) {
	c := &m.splits[j]
	if c.gen != m.gen || len(c.s) != len(s) || unsafe.StringData(c.s) != unsafe.StringData(s) {
		c.gen, c.s, c.bounds = m.gen, s, c.bounds[:0]
		last := int64(cap(c.bounds)/2 - 1) // the group's largest index
		from := 0
		for k := int64(0); k <= last; k++ {
			i := strings.IndexByte(s[from:], sep)
			if i < 0 {
				c.bounds = append(c.bounds, from, len(s))
				break
			}
			c.bounds = append(c.bounds, from, from+i)
			from += i + 1
		}
	}
	if n >= int64(len(c.bounds)/2) {
		return "", true
	}
	return s[c.bounds[2*n]:c.bounds[2*n+1]], false
}

// memoCell is one subexpression's value, valid while gen is the memo's.
type memoCell struct {
	gen uint64
	v   types.Value
}

// Next starts a new row: the values computed for the previous one are
// forgotten.
func (m *Memo) Next() { m.gen++ }

// Len returns how many subexpressions the memo holds (0 for a nil memo).
func (m *Memo) Len() int {
	if m == nil {
		return 0
	}
	return len(m.cells)
}

// ref returns the refFn of cell j, which fill (when set, else fn)
// evaluates into when the cell does not hold this row's value. A failed
// evaluation is not kept: its error belongs to the evaluation that met
// it, and a later use in the same row evaluates (and fails) again.
func (m *Memo) ref(j int, fill dstFn, fn evalFn) refFn {
	if fill == nil {
		return func(row []types.Value) (*types.Value, error) {
			c := &m.cells[j]
			if c.gen != m.gen {
				v, err := fn(row)
				if err != nil {
					return nil, err
				}
				c.v, c.gen = v, m.gen
			}
			return &c.v, nil
		}
	}
	return func(row []types.Value) (*types.Value, error) {
		c := &m.cells[j]
		if c.gen != m.gen {
			if err := fill(row, &c.v); err != nil {
				return nil, err
			}
			c.gen = m.gen
		}
		return &c.v, nil
	}
}

// wrap returns fn reading and filling cell j (the cell ref reads). A
// failed evaluation is not kept, as with ref.
func (m *Memo) wrap(j int, fn evalFn) evalFn {
	return func(row []types.Value) (types.Value, error) {
		c := &m.cells[j]
		if c.gen == m.gen {
			return c.v, nil
		}
		v, err := fn(row)
		if err == nil {
			c.v, c.gen = v, m.gen
		}
		return v, err
	}
}

// CompileFlow compiles a flow's filter (nil: none) as CompileFilter does
// and its projections as CompileProjectionUnder does under that filter,
// such that a deterministic call or cast that occurs more than once among
// them (compared structurally) is evaluated at most once per row: the
// filter's evaluation of it is reused by the projections, and one
// projection's by the next. Which subexpressions are evaluated, in which
// order, and what each gives are unchanged; only repeats read the first
// value. With no repeated subexpression and no call of a Go function the
// memo is nil and the programs are those of CompileFilter and
// CompileProjectionUnder. Else (and a Go function's call then reuses one
// argument slice of its own, not one per call) the programs share the
// memo: they belong to one goroutine, which calls
// memo.Next before each row, and evaluates the filter (when there is one)
// before the projections of that row.
func CompileFlow(filter Expr, projections [][]Expr, opts Options) (*Filter, []*Projection, *Memo, error) {
	var rf Expr
	if filter != nil {
		var err error
		if rf, err = Resolve(filter); err != nil {
			return nil, nil, nil, err
		}
	}
	rps := make([][]Expr, len(projections))
	for k, es := range projections {
		rps[k] = make([]Expr, len(es))
		for i, e := range es {
			r, err := Resolve(e)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("projection column %d: %w", i+1, err)
			}
			rps[k][i] = r
		}
	}
	roots := []Expr{}
	if rf != nil {
		roots = append(roots, rf)
	}
	for _, es := range rps {
		roots = append(roots, es...)
	}
	slots, n := commonSubexprs(roots)
	splits, maxes := splitGroups(roots, opts)
	var memo *Memo
	if n > 0 || len(maxes) > 0 || callsGoFunction(roots) {
		// A Go function's call keeps one argument slice per call site
		// in a compilation for one goroutine (userDef), and SPLIT_INDEX
		// calls on one string share its split: these too need the
		// per-goroutine programs a memo stands for.
		memo = &Memo{gen: 1, cells: make([]memoCell, n), splits: make([]splitCell, len(maxes))}
		for j, m := range maxes {
			memo.splits[j].bounds = make([]int, 0, 2*(m+1))
		}
	}
	with := func(b *builder) {
		if memo != nil {
			b.memo, b.memoSlots, b.splitSlots = memo, slots, splits
		}
	}
	var f *Filter
	if rf != nil {
		var err error
		if f, err = compileFilter(rf, opts, with); err != nil {
			return nil, nil, nil, err
		}
	}
	ps := make([]*Projection, len(rps))
	for k, es := range rps {
		p, err := compileProjectionUnder(es, filter, opts, with)
		if err != nil {
			return nil, nil, nil, err
		}
		ps[k] = p
	}
	return f, ps, memo, nil
}

// splitGroups finds, among the trees roots, the SPLIT_INDEX calls with a
// one-byte constant delimiter and a constant non-negative index whose
// string is a deterministic non-constant expression, and groups those
// on the same string (structurally, sameExpr) and delimiter (Nexmark
// q22's SPLIT_INDEX(url, '/', 3), 4 and 5): a group of two or more gets a
// split cell in the memo. It returns each grouped call's slot and each
// cell's largest index.
func splitGroups(roots []Expr, opts Options) (map[*Call]splitSlot, []int64) {
	type call struct {
		c   *Call
		sep string
		n   int64
	}
	var calls []call
	var walk func(e Expr)
	walk = func(e Expr) {
		eachOperand(e, walk)
		c, ok := e.(*Call)
		if !ok || c.user != nil || c.Name != "SPLIT_INDEX" || len(c.Args) != 3 || !isConstant(c.Args[1]) || !isConstant(c.Args[2]) ||
			isConstant(c.Args[0]) || !Deterministic(c.Args[0]) {
			return
		}
		b := newBuilder(opts)
		d, derr := b.compile(c.Args[1])
		i, ierr := b.compile(c.Args[2])
		if derr != nil || ierr != nil {
			return
		}
		dv, derr := d(nil)
		iv, ierr := i(nil)
		if derr != nil || ierr != nil || dv.IsNull() || iv.IsNull() || len(dv.Str()) != 1 || iv.Int64() < 0 {
			return
		}
		calls = append(calls, call{c, dv.Str(), iv.Int64()})
	}
	for _, r := range roots {
		walk(r)
	}
	slots := map[*Call]splitSlot{}
	var maxes []int64
	done := make([]bool, len(calls))
	for i, a := range calls {
		if done[i] {
			continue
		}
		group := []int{i}
		for j := i + 1; j < len(calls); j++ {
			if b := calls[j]; !done[j] && b.sep == a.sep && sameExpr(a.c.Args[0], b.c.Args[0]) {
				group = append(group, j)
			}
		}
		if len(group) < 2 {
			continue
		}
		hi := int64(0)
		for _, k := range group {
			done[k] = true
			hi = max(hi, calls[k].n)
		}
		for _, k := range group {
			slots[calls[k].c] = splitSlot{cell: len(maxes)}
		}
		maxes = append(maxes, hi)
	}
	return slots, maxes
}

// callsGoFunction reports whether any of the trees roots calls a Go
// function ([Function]).
func callsGoFunction(roots []Expr) bool {
	found := false
	var walk func(e Expr)
	walk = func(e Expr) {
		if c, ok := e.(*Call); ok && c.user != nil {
			found = true
		}
		eachOperand(e, walk)
	}
	for _, r := range roots {
		walk(r)
	}
	return found
}

// eachOperand calls f on each operand of a cast, CASE or call, in
// evaluation order; other expressions have none here.
func eachOperand(e Expr, f func(Expr)) {
	switch n := e.(type) {
	case *Cast:
		f(n.Expr)
	case *Case:
		if n.Operand != nil {
			f(n.Operand)
		}
		for _, w := range n.Whens {
			f(w.Cond)
			f(w.Result)
		}
		if n.Else != nil {
			f(n.Else)
		}
	case *Call:
		for _, a := range n.Args {
			f(a)
		}
	}
}

// commonSubexprs assigns a memo slot to each occurrence, among the trees
// roots, of a deterministic, non-constant call or cast that occurs at least
// twice (structurally, sameExpr): occurrences of one subexpression share a
// slot. An occurrence inside one that has a slot gets none of its own (the
// outer value is reused whole). FIELD of a column, column references and
// literals are read directly and get none. It returns the slots and their
// number.
func commonSubexprs(roots []Expr) (map[Expr]int, int) {
	var cands []Expr // one representative per group
	var count []int
	group := map[Expr]int{}
	var walk func(e Expr)
	walk = func(e Expr) {
		eachOperand(e, walk)
		if !memoCandidate(e) {
			return
		}
		for g, c := range cands {
			if sameExpr(c, e) {
				group[e] = g
				count[g]++
				return
			}
		}
		group[e] = len(cands)
		cands = append(cands, e)
		count = append(count, 1)
	}
	for _, r := range roots {
		walk(r)
	}
	slots := map[Expr]int{}
	slotOf := map[int]int{} // group -> slot
	var mark func(e Expr)
	mark = func(e Expr) {
		if g, ok := group[e]; ok && count[g] > 1 {
			s, ok := slotOf[g]
			if !ok {
				s = len(slotOf)
				slotOf[g] = s
			}
			slots[e] = s
			return
		}
		eachOperand(e, mark)
	}
	for _, r := range roots {
		mark(r)
	}
	return slots, len(slotOf)
}

// memoCandidate reports whether e is worth a memo slot when it repeats: a
// deterministic, non-constant call (but FIELD of a column, read inline) or
// cast.
func memoCandidate(e Expr) bool {
	switch n := e.(type) {
	case *Call:
		if n.Name == "FIELD" {
			if _, col := n.Args[0].(*ColumnRef); col {
				return false
			}
		}
	case *Cast:
	default:
		return false
	}
	return Deterministic(e) && !isConstant(e)
}
