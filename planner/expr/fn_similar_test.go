package expr

import (
	"errors"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestSimilarToJava checks the SIMILAR TO to java.util.regex translation
// against the regexes and errors Flink 1.20.3's SqlLikeUtils.sqlToRegexSimilar
// gives for the same patterns (taken from Flink by hand; the matching
// itself is checked by the golden cases).
func TestSimilarToJava(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		esc     rune
		want    string // "" when Flink raises
	}{
		{"a_b%c", 0, "a.b(?s:.*)c"},
		{"a.b", 0, "a.b"},
		{`a$b\c`, 0, `a\$b\\c`},
		{"[[:ALPHA:][:digit:][:SPACE:][:whitespace:][:alnum:][:UPPER:][:lower:]]", 0, `[\p{Alpha}\d \s\p{Alnum}\p{Upper}\p{Lower}]`},
		{"[a-z^]", 0, "[a-z^]"},
		{"a#%#_##", '#', "a%_#"},
		{"[#%#]#-]", '#', `[%\]\-]`},
		{"(a|b){2,3}+?*", 0, "(a|b){2,3}+?*"},
		{"#%#_#.", '#', ""},  // '.' is not a metacharacter, so it cannot be escaped
		{"[a", 0, ""},        // unclosed class
		{"a]", 0, ""},        // ']' without '['
		{"[a(]", 0, ""},      // metacharacter inside a class
		{"[[:FOO:]]", 0, ""}, // unknown class
		{"a#", '#', ""},      // trailing escape
		{"a#b", '#', ""},     // escaped non-metacharacter
		{"[a#", '#', ""},     // trailing escape inside a class
		{"[a#b]", '#', ""},   // escaped non-metacharacter inside a class
		{"a%%b", '%', ""},    // metacharacter escape: pairs are not skipped by the check
		{"a%%", '%', ""},     // ... so the last '%' is a trailing escape
		{"a||", '|', ""},
		{"[:a", ':', ""}, // escape ':' needs both "[:" and ":]"
		{"a", ':', ""},
	} {
		got, err := similarToJava(tc.pattern, tc.esc)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%q ESCAPE %q: got %q, Flink raises", tc.pattern, tc.esc, got)
		case tc.want == "":
			if !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("%q: error %v does not wrap ErrInvalidArgument", tc.pattern, err)
			}
		case err != nil:
			t.Errorf("%q ESCAPE %q: %v, Flink gives %q", tc.pattern, tc.esc, err, tc.want)
		case got != tc.want:
			t.Errorf("%q ESCAPE %q: got %q, Flink gives %q", tc.pattern, tc.esc, got, tc.want)
		}
	}
}

// TestJavaSimilarToRE2 checks the rewriting of Java regex syntax into RE2
// with the same meaning, and the Java errors RE2 would not raise.
func TestJavaSimilarToRE2(t *testing.T) {
	for _, tc := range []struct{ java, want string }{
		{"a.b", `\A(?:a` + javaDot + `b)\z`},
		{`[\s]\s`, `\A(?:[\t\n\v\f\r ][\t\n\v\f\r ])\z`},
		{`[\p{Alpha}\d]\p{Upper}`, `\A(?:[[:alpha:]\d][[:upper:]])\z`},
		{"a{2,3}b{2}c{1,}", `\A(?:a{2,3}b{2}c{1,})\z`},
		{"a|b", `\A(?:a|b)\z`},
		{"a(?s:.*)", `\A(?:a(?s:.*))\z`},
		{"{2}a", `\A(?:a)\z`},
		{"a{2}{3}?b*{1}+", `\A(?:a{2}b*)\z`},
		{"(|{2})", `\A(?:(|))\z`},
		{"a{3,2}", `\A(?:a{3,2})\z`}, // RE2 rejects it as Java does
		{"a{", ""},
		{"a{,2}", ""},
		{"a{2", ""},
		{"[]", ""},
		{`a\`, ""},
	} {
		got, err := javaSimilarToRE2(tc.java)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%q: got %q, Java raises", tc.java, got)
		case tc.want != "" && (err != nil || got != tc.want):
			t.Errorf("%q: got %q (%v), want %q", tc.java, got, err, tc.want)
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
