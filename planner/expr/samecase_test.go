package expr

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestSameExprCase: two CASEs are the same expression (sameExpr: one memo
// slot for calls over them) only when their operand, conditions, results,
// ELSE and type are; a CASE that differs from another in any one of them
// is not, and calls over the two keep their own values in a flow.
func TestSameExprCase(t *testing.T) {
	s, n := Col(0, "s", types.String()), Col(1, "n", types.BigInt())
	mk := func(variant int) Expr {
		c := &Case{Whens: []When{{Cond: Fn("=", n, li(0)), Result: Fn("LOWER", s)}, {Cond: Fn("=", n, li(1)), Result: ls("one")}},
			Else: Fn("UPPER", s)}
		switch variant {
		case 1:
			c.Whens[0].Cond = Fn("=", n, li(2))
		case 2:
			c.Whens[1].Result = ls("two")
		case 3:
			c.Else = Fn("LOWER", s)
		case 4:
			c.Else = nil
		case 5:
			c.Whens = c.Whens[:1]
		case 6:
			c = &Case{Operand: n, Whens: []When{{Cond: li(0), Result: Fn("LOWER", s)}, {Cond: li(1), Result: ls("one")}}, Else: Fn("UPPER", s)}
		case 7:
			c = &Case{Operand: Fn("+", n, li(1)), Whens: []When{{Cond: li(0), Result: Fn("LOWER", s)}, {Cond: li(1), Result: ls("one")}}, Else: Fn("UPPER", s)}
		}
		return c
	}
	const variants = 8
	resolved := make([]Expr, variants)
	for v := range variants {
		r, err := Resolve(Fn("CONCAT", mk(v), ls("!")))
		if err != nil {
			t.Fatal(err)
		}
		resolved[v] = r
	}
	for a := range variants {
		again, err := Resolve(Fn("CONCAT", mk(a), ls("!")))
		if err != nil {
			t.Fatal(err)
		}
		if !sameExpr(resolved[a], again) {
			t.Errorf("variant %d built twice: not the same", a)
		}
		for b := range variants {
			if a != b && sameExpr(resolved[a], resolved[b]) {
				t.Errorf("variants %d and %d: the same", a, b)
			}
		}
	}
	// In one flow: every variant's call, each twice (a memo slot per
	// variant), against each compiled alone.
	var proj []Expr
	for v := range variants {
		proj = append(proj, Fn("CONCAT", mk(v), ls("!")), Fn("CONCAT", mk(v), ls("!")))
	}
	_, ps, memo, err := CompileFlow(nil, [][]Expr{proj}, benchOpts)
	if err != nil {
		t.Fatal(err)
	}
	alone := make([]*Program, len(proj))
	for i, e := range proj {
		if alone[i], err = Compile(e, benchOpts); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]types.Value, len(proj))
	for _, row := range [][]types.Value{{vs("Ab"), types.Int64(0)}, {vs("Ab"), types.Int64(1)}, {vs("Ab"), types.Int64(2)},
		{vs("Ab"), types.Int64(-1)}, {{}, types.Int64(0)}, {vs("x"), {}}} {
		memo.Next()
		if err := ps[0].Project(row, out); err != nil {
			t.Fatal(err)
		}
		for i, p := range alone {
			want, err := p.Eval(row)
			if err != nil {
				t.Fatal(err)
			}
			if show(out[i]) != show(want) {
				t.Fatalf("%s over %v: flow %s, alone %s", proj[i], row, show(out[i]), show(want))
			}
		}
	}
}
