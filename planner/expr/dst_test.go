package expr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// dstString is TestDstAgreesWithEval's STRING column, after condSchema's.
var dstString = Col(len(condSchema), "s", types.String())

// dstGen extends condGen with STRING and DECIMAL values and CASEs of
// them: the nodes that write their value in place (dst.go).
type dstGen struct{ condGen }

func (g dstGen) strExpr() Expr {
	switch g.r.IntN(6) {
	case 0:
		return dstString
	case 1:
		return Fn([]string{"LOWER", "UPPER"}[g.r.IntN(2)], dstString)
	case 2:
		return Fn("LOWER", ls("AbC"))
	}
	// SPLIT_INDEX calls on one string share a split per row (a memo's
	// split cell) when there are two or more.
	return Fn("SPLIT_INDEX", dstString, ls("/"), li(int64(g.r.IntN(5)-1)))
}

func (g dstGen) decExpr(depth int) Expr {
	rate := Lit(types.DecimalType(3, 3).NotNullable(), types.DecimalValue(types.NewDecimal(908, 3)))
	switch g.r.IntN(4) {
	case 0:
		return Fn("*", rate, condSchema[g.r.IntN(3)])
	case 1:
		return Fn("*", condSchema[7], rate)
	case 2:
		return Fn("*", rate, Fn("FIELD", condSchema[3], ls("a")))
	}
	return g.decimalExpr(depth)
}

// valueExpr returns an expression of kind k: 0 integer, 1 DECIMAL, 2
// STRING, 3 BOOLEAN.
func (g dstGen) valueExpr(k, depth int) Expr {
	if depth > 0 && g.r.IntN(3) == 0 {
		c := &Case{}
		for i := 0; i <= g.r.IntN(3); i++ {
			cond := g.boolExpr(depth - 1)
			if g.r.IntN(6) == 0 {
				cond = Lit(types.Boolean(), []types.Value{{}, types.Bool(true), types.Bool(false)}[g.r.IntN(3)])
			}
			c.Whens = append(c.Whens, When{Cond: cond, Result: g.valueExpr(k, depth-1)})
		}
		if g.r.IntN(3) > 0 {
			c.Else = g.valueExpr(k, depth-1)
		}
		return c
	}
	switch k {
	case 0:
		return g.intExpr(depth)
	case 1:
		return g.decExpr(depth)
	case 2:
		return g.strExpr()
	}
	return g.boolExpr(depth)
}

func (g dstGen) row() []types.Value {
	row := append(g.condGen.row(), types.Value{})
	if g.r.IntN(5) > 0 {
		row[dstString.Index] = types.Str([]string{"", "a", "Ab/cD", "http://x.org/a/b?c", "//", "/a//b/", "ÀÉ/ß"}[g.r.IntN(7)])
	}
	return row
}

// sameValue reports whether a and b, values of type t, are the same
// (a wide DECIMAL by its digits and scale, not its address).
func sameValue(t types.Type, a, b types.Value) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() == b.IsNull()
	}
	if t.Kind == types.KindDecimal {
		return a.Decimal().String() == b.Decimal().String()
	}
	return a.String() == b.String()
}

// TestDstAgreesWithEval: the forms that write a node's value in place
// (dstFn: a projection's outputs, a CASE's result, compact DECIMAL
// arithmetic with a constant, one-operand string functions, SPLIT_INDEX
// over a memo's split, a memo cell) and read a memo cell in place (refFn:
// an integer operand or a DECIMAL comparison over a common subexpression)
// give, on random expressions and rows, what the general evaluators give:
// the same value and NULL, the same error. Each flow repeats
// subexpressions among its filter and outputs so that CompileFlow's memo
// holds them; the outputs are written into one slice reused row after row
// (a form that leaves a field unwritten shows the previous row's value).
func TestDstAgreesWithEval(t *testing.T) {
	g := dstGen{condGen{rand.New(rand.NewPCG(34, 8))}}
	rows := make([][]types.Value, 64)
	for i := range rows {
		rows[i] = g.row()
	}
	rows = append(rows, make([]types.Value, len(condSchema)+1)) // all NULL
	cmpOps := []string{"=", "<>", "<", "<=", ">", ">="}
	var flows, outputs, kept, special, peeks int
	for n := 0; n < 1500; n++ {
		// A pool of subexpressions the filter and the outputs share.
		kinds := []int{g.r.IntN(4), g.r.IntN(4), g.r.IntN(3)}
		pool := make([]Expr, len(kinds))
		for i, k := range kinds {
			pool[i] = g.valueExpr(k, 2)
		}
		use := func(i int) Expr {
			switch kinds[i] {
			case 0:
				return Fn(cmpOps[g.r.IntN(6)], pool[i], g.intLit())
			case 1:
				return Fn(cmpOps[g.r.IntN(6)], pool[i], g.decimalConst())
			case 2:
				return Fn("IS NOT NULL", pool[i])
			}
			return pool[i]
		}
		filter := Fn("AND", g.boolExpr(1), use(g.r.IntN(len(pool))))
		if g.r.IntN(3) == 0 {
			filter = Fn("OR", use(g.r.IntN(len(pool))), use(g.r.IntN(len(pool))))
		}
		var proj []Expr
		for i := 0; i < 3+g.r.IntN(4); i++ {
			j := g.r.IntN(len(pool))
			switch g.r.IntN(4) {
			case 0:
				proj = append(proj, pool[j])
			case 1:
				proj = append(proj, use(j))
			case 2:
				proj = append(proj, &Case{Whens: []When{{Cond: use(g.r.IntN(len(pool))), Result: pool[j]}}, Else: g.valueExpr(kinds[j], 1)})
			default:
				proj = append(proj, g.valueExpr(g.r.IntN(4), 2))
			}
		}
		rf, err := Resolve(filter)
		if err != nil {
			continue
		}
		rps := make([]Expr, len(proj))
		for i, e := range proj {
			if rps[i], err = Resolve(e); err != nil {
				break
			}
		}
		if err != nil {
			continue
		}
		flows++
		outputs += len(rps)
		refF := refEval(t, rf)
		refs := make([]evalFn, len(rps))
		for i, r := range rps {
			refs[i] = refEval(t, r)
		}
		// Each output's dstFn alone (no memo), and the flow with and
		// without its filter (the projection compiled under it: only
		// the rows it keeps are projected).
		dsts := make([]dstFn, len(rps))
		progs := make([]*Program, len(rps))
		for i, r := range rps {
			b := newBuilder(benchOpts)
			fn, err := b.compile(r)
			if err != nil {
				t.Fatalf("%s: %v", r, err)
			}
			if b.specialDst(r, fn) != nil {
				special++
			}
			dsts[i] = b.dstOf(r, fn)
			if progs[i], err = Compile(r, benchOpts); err != nil {
				t.Fatalf("%s: %v", r, err)
			}
			if progs[i].Peeks() {
				peeks++
			}
		}
		f, ps, memo, err := CompileFlow(filter, [][]Expr{proj}, benchOpts)
		if err != nil {
			t.Fatalf("%s: %v", rf, err)
		}
		_, all, allMemo, err := CompileFlow(nil, [][]Expr{proj}, benchOpts)
		if err != nil {
			t.Fatalf("%v: %v", rps, err)
		}
		out, outAll := make([]types.Value, len(rps)), make([]types.Value, len(rps))
		var one types.Value
		for _, row := range rows {
			want := make([]types.Value, len(rps))
			werr := make([]error, len(rps))
			firstErr := error(nil)
			for i, ref := range refs {
				want[i], werr[i] = ref(row)
				if werr[i] != nil && firstErr == nil {
					firstErr = wrapEval(rps[i], werr[i])
				}
				gerr := dsts[i](row, &one)
				if errText(gerr) != errText(werr[i]) || (werr[i] == nil && !sameValue(rps[i].Type(), one, want[i])) {
					t.Fatalf("%s over %v: dst %s, %v; eval %s, %v", rps[i], row, one, gerr, want[i], werr[i])
				}
				if progs[i].Peeks() {
					p, perr := progs[i].Peek(row)
					if (perr == nil) != (werr[i] == nil) || (perr == nil && !sameValue(rps[i].Type(), *p, want[i])) {
						t.Fatalf("%s over %v: Peek %v, %v; eval %s, %v", rps[i], row, p, perr, want[i], werr[i])
					}
				}
			}
			check := func(what string, p *Projection, m *Memo, out []types.Value) {
				if m != nil {
					m.Next()
				}
				perr := p.Project(row, out)
				if errText(perr) != errText(firstErr) {
					t.Fatalf("%s over %v: Project %v; eval %v", what, row, perr, firstErr)
				}
				for i := range out {
					if firstErr == nil && !sameValue(rps[i].Type(), out[i], want[i]) {
						t.Fatalf("%s output %d %s over %v: %v, eval %v", what, i, rps[i], row, out[i], want[i])
					}
				}
			}
			check("flow without filter", all[0], allMemo, outAll)
			if memo != nil {
				memo.Next()
			}
			fv, ferr := refF(row)
			keep, kerr := f.Keep(row)
			if (kerr == nil) != (ferr == nil) || (ferr == nil && keep != (truthOf(fv) == isTrue)) {
				t.Fatalf("%s over %v: Keep %v, %v; eval %v, %v", rf, row, keep, kerr, fv, ferr)
			}
			if keep {
				kept++
				// The filter's memo values carry on into the projection.
				perr := ps[0].Project(row, out)
				if errText(perr) != errText(firstErr) {
					t.Fatalf("flow %s over %v: Project %v; eval %v", rf, row, perr, firstErr)
				}
				for i := range out {
					if firstErr == nil && !sameValue(rps[i].Type(), out[i], want[i]) {
						t.Fatalf("flow %s output %d %s over %v: %v, eval %v", rf, i, rps[i], row, out[i], want[i])
					}
				}
			}
		}
	}
	t.Logf("%d flows, %d outputs (%d with a dstFn of their own, %d Peek), %d rows kept of %d", flows, outputs, special, peeks, kept, flows*len(rows))
	if flows < 1000 || special < outputs/3 || peeks < outputs/10 || kept < flows*len(rows)/10 {
		t.Fatalf("too few flows resolved or rows kept: %d flows, %d outputs (%d special), %d rows kept", flows, outputs, special, kept)
	}
}

// TestMemoRefKeepsNoFailure: a memo cell read in place (Memo.ref) is not
// filled by a failed evaluation (the next read in the row evaluates
// again), and is filled once by a successful one, whether it is filled
// through a dstFn or an evalFn.
func TestMemoRefKeepsNoFailure(t *testing.T) {
	fail := errColumn(9, 1)
	for _, viaDst := range []bool{true, false} {
		m := &Memo{gen: 1, cells: make([]memoCell, 1)}
		calls := 0
		fn := func([]types.Value) (types.Value, error) {
			if calls++; calls == 1 {
				return types.Int64(-1), fail
			}
			return types.Int64(int64(calls)), nil
		}
		var r refFn
		if viaDst {
			r = m.ref(0, dstOfEval(fn), nil)
		} else {
			r = m.ref(0, nil, fn)
		}
		if _, err := r(nil); err != fail {
			t.Fatalf("viaDst %v: first read: %v, want the failure", viaDst, err)
		}
		for i := 0; i < 2; i++ {
			p, err := r(nil)
			if err != nil || p.Int64() != 2 || calls != 2 {
				t.Fatalf("viaDst %v: read %d: %v, %v after %d calls; want 2 after 2", viaDst, i, p, err, calls)
			}
		}
		m.Next()
		if p, err := r(nil); err != nil || p.Int64() != 3 {
			t.Fatalf("viaDst %v: next row: %v, %v; want 3", viaDst, p, err)
		}
	}
}

// TestExtractClockAgrees: EXTRACT(HOUR|MINUTE|SECOND|MILLISECOND FROM
// ts) of a TIMESTAMP column, ROW field and nested expression (evalFn and
// dstFn, alone and memoized under CompileFlow) against time.Time's civil
// fields of the same timestamps: before 1970, on day and second
// boundaries, the int64 extremes, nanosecond parts, NULLs and a NULL ROW.
func TestExtractClockAgrees(t *testing.T) {
	tsT := types.TimestampType(9)
	col := Col(0, "ts", tsT)
	rowCol := Col(1, "r", types.RowType(types.Field{Name: "ts", Type: tsT}))
	r := rand.New(rand.NewPCG(8, 34))
	millis := []int64{0, -1, 1, 86_399_999, 86_400_000, -86_400_000, -86_400_001, 999, -999, 1_700_000_000_123,
		-62_135_596_800_001, 253_402_300_799_999, math.MaxInt64, math.MinInt64, math.MaxInt64 / 2, math.MinInt64 / 2}
	var rows [][]types.Value
	for i := 0; i < 400; i++ {
		ms := millis[r.IntN(len(millis))]
		if i%2 == 1 {
			ms = r.Int64N(4e12) - 2e12
		}
		ts := types.TimestampValue(types.Timestamp{Millis: ms, NanoOfMilli: int32(r.IntN(3)) * 499_999})
		row := []types.Value{ts, types.List([]types.Value{ts})}
		switch r.IntN(8) {
		case 0:
			row[0] = types.Value{}
		case 1:
			row[1] = types.Value{}
		case 2:
			row[1] = types.List([]types.Value{{}})
		case 3:
			row[0], row[1] = types.Value{}, types.List([]types.Value{{}})
		}
		rows = append(rows, row)
	}
	want := func(v types.Value, u TimeUnit) types.Value {
		if v.IsNull() {
			return types.Value{}
		}
		c := v.Timestamp().Time()
		switch u {
		case UnitHour:
			return types.Int64(int64(c.Hour()))
		case UnitMinute:
			return types.Int64(int64(c.Minute()))
		case UnitSecond:
			return types.Int64(int64(c.Second()))
		}
		return types.Int64(int64(c.Nanosecond() / 1e6))
	}
	field := Fn("FIELD", rowCol, ls("ts"))
	nested := &Case{Whens: []When{{Cond: Fn("IS NULL", col), Result: field}}, Else: col}
	for _, u := range []TimeUnit{UnitHour, UnitMinute, UnitSecond, UnitMillisecond} {
		for _, arg := range []Expr{col, field, nested} {
			e := FnUnit("EXTRACT", u, arg)
			re, err := Resolve(e)
			if err != nil {
				t.Fatal(err)
			}
			b := newBuilder(benchOpts)
			fn, err := b.compile(re)
			if err != nil {
				t.Fatal(err)
			}
			d := b.specialDst(re, fn)
			if d == nil {
				t.Fatalf("%s: no dstFn", re)
			}
			// Memoized: twice in a projection, and in a comparison.
			_, ps, memo, err := CompileFlow(nil, [][]Expr{{e, Fn("+", e, li(1)), Fn(">=", e, li(8))}}, benchOpts)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]types.Value, 3)
			var one types.Value
			for _, row := range rows {
				a := row[0]
				if arg != col {
					if l := row[1].List(); len(l) > 0 && (arg == field || a.IsNull()) {
						a = l[0]
					} else if arg == field || a.IsNull() {
						a = types.Value{}
					}
				}
				w := want(a, u)
				got, err := fn(row)
				if err != nil || !sameValue(types.BigInt(), got, w) {
					t.Fatalf("%s over %v: %v, %v; want %v", re, row, got, err, w)
				}
				if err := d(row, &one); err != nil || !sameValue(types.BigInt(), one, w) {
					t.Fatalf("%s over %v: dst %v, %v; want %v", re, row, one, err, w)
				}
				memo.Next()
				if err := ps[0].Project(row, out); err != nil || !sameValue(types.BigInt(), out[0], w) ||
					(!w.IsNull() && (out[1].Int64() != w.Int64()+1 || out[2].Bool() != (w.Int64() >= 8))) || w.IsNull() != out[2].IsNull() {
					t.Fatalf("%s over %v in a flow: %v, %v; want %v", re, row, out, err, w)
				}
			}
		}
	}
}
