package suggest

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"STRIN", "STRING", 1}, {"kitten", "sitting", 3},
		{strings.Repeat("a", 300), "a", 1 << 30},
	}
	for _, c := range cases {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	cands := []string{"topic", "topic-pattern", "format"}
	if got := Nearest("topc", cands, 2); got != "topic" {
		t.Errorf("Nearest(topc) = %q", got)
	}
	if got := Nearest("zzzzzz", cands, 2); got != "" {
		t.Errorf("Nearest(zzzzzz) = %q, want none", got)
	}
	if got := Nearest("format", cands, 0); got != "format" {
		t.Errorf("exact match with maxDist 0 = %q", got)
	}
}
