// Package suggest finds the likely intended word for a misspelt one — the
// "did you mean" of every error that names an unknown type, option,
// table, column or function.
//
// Start with [Nearest] (a bound chosen by the caller), [Typo] (the bound
// the planner's errors use) and [TypoFold] (the same, ignoring case).
package suggest

import (
	"slices"
	"strings"
)

// maxLen bounds the inputs Distance compares in full: longer strings are
// never plausible typos of each other, and the bound keeps the quadratic
// cost small on adversarial input.
const maxLen = 256

// Distance returns the Levenshtein edit distance between a and b counted
// in runes, or a large number when either is longer than 256 bytes.
func Distance(a, b string) int {
	if len(a) > maxLen || len(b) > maxLen {
		return 1 << 30
	}
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
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

// typoBound is the largest distance Typo and TypoFold accept for word: two
// edits, or one in three bytes of a longer word.
func typoBound(word string) int { return max(2, len(word)/3) }

// Typo returns the candidate closest to word when it is close enough to be
// a plausible typo (at most two edits, or one in three bytes of a longer
// word), else "".
func Typo(word string, candidates []string) string {
	return Nearest(word, candidates, typoBound(word))
}

// TypoFold is Typo ignoring case: a candidate equal to word but for case
// wins outright, and distances compare lower-cased text. It returns the
// candidate as written.
func TypoFold(word string, candidates []string) string {
	lw := strings.ToLower(word)
	best, bestD := "", typoBound(word)+1
	for _, c := range candidates {
		if strings.EqualFold(c, word) {
			return c
		}
		if d := Distance(lw, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Closest returns up to n candidates nearest to word, nearest first: those
// sharing the longest leading dotted segments with it ("scan.startup." for
// "scan.startup.mdoe") before the others, then by edit distance, then in
// the candidates' order. It is for listing a few options a misspelt key
// may have meant, rather than every one.
func Closest(word string, candidates []string, n int) []string {
	type scored struct {
		c            string
		shared, dist int
		index        int
	}
	segs := strings.Split(word, ".")
	list := make([]scored, 0, len(candidates))
	for i, c := range candidates {
		cs := strings.Split(c, ".")
		shared := 0
		for shared < len(segs)-1 && shared < len(cs)-1 && segs[shared] == cs[shared] {
			shared++
		}
		list = append(list, scored{c, shared, Distance(word, c), i})
	}
	slices.SortStableFunc(list, func(a, b scored) int {
		if a.shared != b.shared {
			return b.shared - a.shared
		}
		return a.dist - b.dist
	})
	out := make([]string, 0, min(n, len(list)))
	for _, s := range list[:min(n, len(list))] {
		out = append(out, s.c)
	}
	return out
}
