package sqlregex

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"testing"
)

// TestPrefilterOf: the substrings required of a match, as derived from
// the syntax tree.
func TestPrefilterOf(t *testing.T) {
	for _, c := range []struct{ pattern, want string }{
		{`(&|^)channel_id=([^&]*)`, `"channel_id="`},
		{`abc`, `"abc"`},
		{`a(b|c)d`, `("abd" OR "acd")`},
		{`[ab]x[cd]`, `("axc" OR "axd" OR "bxc" OR "bxd")`},
		{`foo.*bar`, `("foo" AND "bar")`},
		{`foo|bar.*baz`, `("foo" OR ("bar" AND "baz"))`},
		{`(foo)+x`, `("foo" AND "x")`},
		{`x(foo){2,}`, `("x" AND "foo")`},
		{`a*`, `*`},
		{`a?b`, `"b"`},
		{`.*`, `*`},
		{`\d+`, `*`},
		{`foo|.*`, `*`},
		{`(?i)ab`, `("AB" OR "Ab" OR "aB" OR "ab")`},
		{`(?i)sk`, `*`}, // s and k fold to non-ASCII letters (ſ, K)
		{`\bword\b`, `"word"`},
		{"\uFFFDx", `"x"`},
		{`[^a]`, `*`},
		{`(ab|cd|ef|gh|ij)(kl|mn|op|qr|st)`, `(("ab" OR "cd" OR "ef" OR "gh" OR "ij") AND ("kl" OR "mn" OR "op" OR "qr" OR "st"))`},
		{`(a|b|c|d|e)x`, `"x"`}, // [a-e]: a class of more than 4 runes requires nothing of its own
	} {
		tree, err := syntax.Parse(Java(c.pattern), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := NewPrefilter(tree.Simplify()).String(); got != c.want {
			t.Errorf("%s: prefilter %s, want %s", c.pattern, got, c.want)
		}
	}
}

// TestAnchor: the literal searched for first and the most bytes before
// it.
func TestAnchor(t *testing.T) {
	for _, c := range []struct {
		pattern string
		lit     string
		before  int
	}{
		{`(&|^)channel_id=([^&]*)`, "channel_id=", 1},
		{`^abc`, "abc", 0},
		{`\bx{2,3}yz`, "yz", 3},
		{`.{0,2}é`, "é", 8},
		{`.*abc`, "", 0},
		{`(a|bc)d(?:ef)+gh`, "d", 2},
		{`(?i)abc`, "", 0},
	} {
		r, err := Compile(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if r.lit != c.lit || r.before != c.before {
			t.Errorf("%s: anchor %q after at most %d bytes, want %q after %d", c.pattern, r.lit, r.before, c.lit, c.before)
		}
	}
}

// regexpCases are patterns and subjects where the shortcuts must give
// exactly what Go's regexp gives: matches after other occurrences of the
// literal, assertions just before the window, multi-byte and invalid
// UTF-8 before the literal, case folding.
var regexpCases = []struct{ pattern, s string }{
	{`(&|^)channel_id=([^&]*)`, "https://www.nexmark.com/ab_c/de/f__g/item.htm?query=1&channel_id=1234"},
	{`(&|^)channel_id=([^&]*)`, "https://www.nexmark.com/ab_c/de/f__g/item.htm?query=1"},
	{`(&|^)channel_id=([^&]*)`, "channel_id=7&x"},
	{`(&|^)channel_id=([^&]*)`, "xchannel_id=1&channel_id=2"},
	{`(&|^)channel_id=([^&]*)`, "ééchannel_id=1&channel_id=2"},
	{`(&|^)channel_id=([^&]*)`, "\xff\xfe&channel_id=3"},
	{`\bfoo=(\d+)`, "afoo=1 foo=2"},
	{`(?m)^foo=(\d+)`, "xfoo=1\nfoo=2"},
	{`\Bfoo`, "é foo afoo"},
	{`.foo`, "éfoo"},
	{`(?i)ab(c)`, "xxABC"},
	{`a(b|c)d`, "xxacdabd"},
}

// TestRegexpAgrees: Regexp's methods give what regexp's give.
func TestRegexpAgrees(t *testing.T) {
	for _, c := range regexpCases {
		checkAgrees(t, c.pattern, c.s)
	}
}

func checkAgrees(t *testing.T, pattern, s string) {
	t.Helper()
	r, err := Compile(pattern)
	if err != nil {
		return
	}
	re := regexp.MustCompile(Java(pattern))
	want := re.FindStringSubmatchIndex(s)
	if want != nil && !r.Prefilter().MayMatch(s) {
		t.Fatalf("%q on %q: the prefilter %s rejects a string the regex matches at %v", pattern, s, r.Prefilter(), want)
	}
	if got := r.FindStringSubmatchIndex(s); !slices.Equal(got, want) {
		t.Fatalf("%q on %q: FindStringSubmatchIndex %v, regexp's %v", pattern, s, got, want)
	}
	if got, want := r.MatchString(s), re.MatchString(s); got != want {
		t.Fatalf("%q on %q: MatchString %v, regexp's %v", pattern, s, got, want)
	}
	if got, want := r.ReplaceAllLiteralString(s, "<$1>"), re.ReplaceAllLiteralString(s, "<$1>"); got != want {
		t.Fatalf("%q on %q: ReplaceAllLiteralString %q, regexp's %q", pattern, s, got, want)
	}
}

// FuzzRegexp is the differential test of the shortcuts: for any pattern
// Go's regexp compiles and any string, the prefilter never rejects a
// string the regex matches, and Regexp's matches and replacements are
// regexp's.
func FuzzRegexp(f *testing.F) {
	for _, c := range regexpCases {
		f.Add(c.pattern, c.s)
	}
	f.Add(`(foo|ba[rz])+\d{2}`, "xxbaz12foo")
	f.Add(`[[:alpha:]]+=(x|y)`, "k=x")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > 200 || len(s) > 1000 {
			return
		}
		checkAgrees(t, pattern, s)
	})
}
