package sqlregex

import (
	"errors"
	"testing"
)

// TestLike covers the regexp path and each shortcut (prefix, suffix,
// infix, exact) with the same expectations.
func TestLike(t *testing.T) {
	for _, tc := range []struct {
		pattern, esc, s string
		want            bool
	}{
		{"ab%", "", "abc", true}, {"ab%", "", "xab", false},
		{"%ab", "", "xab", true}, {"%ab", "", "abx", false},
		{"%ab%", "", "xaby", true}, {"%ab%", "", "xay", false},
		{"ab", "", "ab", true}, {"ab", "", "abc", false},
		{"%", "", "", true}, {"a_c", "", "abc", true}, {"a_c", "", "ac", false},
		{"a%c%e", "", "a\nbcde", true}, // % crosses line breaks
		{"a.c", "", "abc", false},      // regexp metacharacters are literal
		{"a#%", "#", "a%", true}, {"a#%", "#", "ab", false},
		{"a__", "", "aßb", true}, // _ is one character, not one byte
	} {
		m, err := Like(tc.pattern, tc.esc)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		if got := m(tc.s); got != tc.want {
			t.Errorf("%q LIKE %q ESCAPE %q = %v, want %v", tc.s, tc.pattern, tc.esc, got, tc.want)
		}
	}
	for _, tc := range []struct{ pattern, esc string }{{"a#", "#"}, {"a", "##"}} {
		if _, err := Like(tc.pattern, tc.esc); !errors.As(err, new(*Error)) {
			t.Errorf("LIKE %q ESCAPE %q: error %v, want an *Error", tc.pattern, tc.esc, err)
		}
	}
}
