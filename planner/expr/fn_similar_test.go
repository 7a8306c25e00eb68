package expr

import (
	"errors"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestPatternErrorsAreInvalidArguments checks that the pattern errors of
// internal/sqlregex (whose translations are tested there) reach users as
// invalid arguments.
func TestPatternErrorsAreInvalidArguments(t *testing.T) {
	for _, tc := range []struct{ pattern, esc string }{
		{"#%#_#.", "#"}, {"[a", ""}, {"a#", "#"}, {"a{,2}", ""}, {"a", "##"},
	} {
		if _, err := similarRegexp(tc.pattern, tc.esc, tc.esc != ""); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("SIMILAR TO %q ESCAPE %q: error %v does not wrap ErrInvalidArgument", tc.pattern, tc.esc, err)
		}
	}
	for _, tc := range []struct{ pattern, esc string }{{"a#", "#"}, {"a", "##"}} {
		if _, err := likeMatcher(tc.pattern, tc.esc); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("LIKE %q ESCAPE %q: error %v does not wrap ErrInvalidArgument", tc.pattern, tc.esc, err)
		}
	}
}

// TestSimilarPatternFromRowConcurrent evaluates a SIMILAR TO whose pattern
// comes from the row from several goroutines, alternating patterns so that
// the one-entry compile cache is swapped constantly; with -race it checks
// that the cache is safe for concurrent use and never answers with another
// pattern's regexp.
func TestSimilarPatternFromRowConcurrent(t *testing.T) {
	p, err := Compile(Fn("SIMILAR TO", Col(0, "s", types.String()), Col(1, "p", types.String())), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		row  []types.Value
		want bool
	}{
		{[]types.Value{types.Str("abc"), types.Str("a%")}, true},
		{[]types.Value{types.Str("abc"), types.Str("b%")}, false},
		{[]types.Value{types.Str("b"), types.Str("b%")}, true},
		{[]types.Value{types.Str("b"), types.Str("[a-c]{2}")}, false},
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 500; k++ {
				r := rows[(k+g)%len(rows)]
				v, err := p.Eval(r.row)
				if err != nil || v.IsNull() || v.Bool() != r.want {
					errs <- "wrong result for " + r.row[0].Str() + " SIMILAR TO " + r.row[1].Str()
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestSimilarConstantInvalidPattern: a constant invalid pattern does
// not fail compilation (Flink fails only rows that reach it) but fails each
// non-NULL row, and a NULL input gives NULL.
func TestSimilarConstantInvalidPattern(t *testing.T) {
	p, err := Compile(Fn("SIMILAR TO", Col(0, "s", types.String()), Lit(types.String().NotNullable(), types.Str("a["))), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Eval([]types.Value{types.Str("a")}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("non-NULL row: error %v, want ErrInvalidArgument", err)
	}
	if v, err := p.Eval([]types.Value{{}}); err != nil || !v.IsNull() {
		t.Errorf("NULL row: got %v, %v; want NULL", v, err)
	}
}

// BenchmarkSimilarTo measures SIMILAR TO with a constant pattern (compiled
// once), with the pattern from the row but the same in every row (the
// one-entry cache hits) and with two patterns alternating (every row
// compiles).
func BenchmarkSimilarTo(b *testing.B) {
	s, p := Col(0, "s", types.String()), Col(1, "p", types.String())
	pattern := "cust(omer)?_[[:DIGIT:]]{2,4}%"
	rowA := []types.Value{types.Str("customer_0042 gold"), types.Str(pattern)}
	rowB := []types.Value{types.Str("customer_0042 gold"), types.Str("cust%")}
	for _, bc := range []struct {
		name string
		e    Expr
		rows [][]types.Value
	}{
		{"constant", Fn("SIMILAR TO", s, Lit(types.String().NotNullable(), types.Str(pattern))), [][]types.Value{rowA}},
		{"row-same", Fn("SIMILAR TO", s, p), [][]types.Value{rowA}},
		{"row-alternating", Fn("SIMILAR TO", s, p), [][]types.Value{rowA, rowB}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			prog, err := Compile(bc.e, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if v, err := prog.Eval(bc.rows[i%len(bc.rows)]); err != nil || !v.Bool() {
					b.Fatalf("got %v, %v", v, err)
				}
			}
		})
	}
}
