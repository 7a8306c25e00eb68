package expr

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSplitPart checks SPLIT_INDEX's splitPart against strings.Split, on
// every index up to past the last part, over strings and separators made
// to overlap and repeat ("aa" in "aaaaa"), empty parts, multi-byte runes
// and URLs like Nexmark's.
func TestSplitPart(t *testing.T) {
	cases := [][2]string{
		{"https://www.nexmark.com/abc/def/ghi/item.htm?query=1", "/"},
		{"", "/"}, {"/", "/"}, {"//", "/"}, {"a/b/", "/"}, {"/a", "/"},
		{"aaaaa", "aa"}, {"abababa", "aba"}, {"x", "xyz"}, {"日本/語", "/"}, {"日本語日本", "本"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "/", "ab", "日"}
	for range 2000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, [2]string{sb.String(), alphabet[rng.IntN(len(alphabet))] + strings.Repeat("a", rng.IntN(2))})
	}
	for _, c := range cases {
		parts := strings.Split(c[0], c[1])
		for n := range len(parts) + 2 {
			got, ok := splitPart(c[0], c[1], int64(n))
			if want := n < len(parts); ok != want || (ok && got != parts[n]) {
				t.Fatalf("splitPart(%q, %q, %d) = %q, %v; strings.Split gives %q", c[0], c[1], n, got, ok, parts)
			}
		}
	}
}
