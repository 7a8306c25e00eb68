package sqlregex

import (
	"errors"
	"testing"
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
			if pe := (*Error)(nil); !errors.As(err, &pe) {
				t.Errorf("%q: error %v is not an *Error", tc.pattern, err)
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
