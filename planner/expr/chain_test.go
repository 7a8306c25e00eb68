package expr

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

// longChain returns a left-deep chain ((c0 op c1) op c2) ... of n
// comparisons of column 0 with a literal, as the parser builds one.
func longChain(op string, n int) Expr {
	col := Col(0, "id", types.BigInt())
	term := func(i int) Expr { return Fn("=", col, Lit(types.BigInt(), types.Int64(int64(i)))) }
	e := term(0)
	for i := 1; i < n; i++ {
		e = Fn(op, e, term(i))
	}
	return e
}

// TestLongBooleanChain: a long AND/OR chain resolves to one flat call with
// every term in order and evaluates like the chain (the chain is resolved
// in time linear in its length; the benchmark below shows it).
func TestLongBooleanChain(t *testing.T) {
	r, err := Resolve(longChain("OR", 3000))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := r.(*Call)
	if !ok || c.Name != "OR" || len(c.Args) != 3000 {
		t.Fatalf("resolved to %T with %d args, want one OR of 3000", r, len(c.Args))
	}
	for i, a := range c.Args {
		lit := a.(*Call).Args[1].(*Literal)
		if lit.Val.Int64() != int64(i) {
			t.Fatalf("term %d compares with %d", i, lit.Val.Int64())
		}
	}
	// A bad term anywhere is an error naming AND's expected arguments.
	bad := Fn("AND", Fn("AND", Fn("=", Col(0, "id", types.BigInt()), Lit(types.BigInt(), types.Int64(1))), Lit(types.Int(), types.Int64(5))),
		Fn("=", Col(0, "id", types.BigInt()), Lit(types.BigInt(), types.Int64(2))))
	if _, err := Resolve(bad); err == nil {
		t.Fatal("AND with an INT term resolved")
	}
}

func BenchmarkResolveLongOrChain(b *testing.B) {
	e := longChain("OR", 16000)
	b.ResetTimer()
	for range b.N {
		if _, err := Resolve(e); err != nil {
			b.Fatal(err)
		}
	}
}
