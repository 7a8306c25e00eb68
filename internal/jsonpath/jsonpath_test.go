package jsonpath

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	const doc = ` {"a": {"b": [10, {"c d": "x"}, null]}, "k.e": true} `
	for _, tc := range []struct {
		path, want string
		found      bool
	}{
		{"$", `{"a": {"b": [10, {"c d": "x"}, null]}, "k.e": true}`, true},
		{"$.a.b[0]", "10", true},
		{`$.a.b[1]."c d"`, `"x"`, true},
		{`lax $.a.b[1]['c d']`, `"x"`, true},
		{`strict $["k.e"]`, "true", true},
		{"$.a.b[2]", "null", true},
		{"$.a.b[3]", "", false}, // past the end
		{"$.a[0]", "", false},   // an index into an object
		{"$.a.b.c", "", false},  // a key into an array
		{"$.z", "", false},
	} {
		p, err := Parse(tc.path)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.path, err)
		}
		raw, found, err := p.Find(doc)
		if err != nil || found != tc.found || string(raw) != tc.want {
			t.Errorf("%s: %q, %v, %v; want %q, %v", tc.path, raw, found, err, tc.want, tc.found)
		}
	}
	p, _ := Parse("$.a")
	if _, _, err := p.Find(`{"a":`); !errors.Is(err, ErrInvalidJSON) {
		t.Errorf("invalid document: %v, want ErrInvalidJSON", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"a.b", "must start with $"},
		{`$."a`, "unterminated name"},
		{"$.", "empty name"},
		{"$[1", "missing ]"},
		{"$[-1]", "bad index"},
		{"$x", "unexpected"},
	} {
		_, err := Parse(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), strconv.Quote(tc.path)) {
			t.Errorf("Parse(%q) = %v, want an error naming the path and %q", tc.path, err, tc.want)
		}
	}
}
