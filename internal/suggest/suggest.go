// Package suggest finds the likely intended word for a misspelt one — the
// "did you mean" of every error that names an unknown type, option,
// table, column or function.
package suggest

// maxLen bounds the inputs Distance compares in full: longer strings are
// never plausible typos of each other, and the bound keeps the quadratic
// cost small on adversarial input.
const maxLen = 256

// Distance returns the Levenshtein edit distance between a and b, or a
// large number when either is longer than 256 bytes.
func Distance(a, b string) int {
	if len(a) > maxLen || len(b) > maxLen {
		return 1 << 30
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Nearest returns the candidate closest to word when its distance is at
// most maxDist, else "". Of equally close candidates the first wins.
func Nearest(word string, candidates []string, maxDist int) string {
	best, bestD := "", maxDist+1
	for _, c := range candidates {
		if d := Distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
