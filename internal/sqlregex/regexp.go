package sqlregex

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Regexp is a pattern of Flink's REGEXP functions (java.util.regex syntax,
// translated by Java), compiled for Go's regexp with two shortcuts that
// give the same results as the engine alone:
//
//   - its prefilter (NewPrefilter): a string without the substrings every
//     match contains is rejected without running the engine;
//   - its anchor: when the pattern is a sequence with a plain literal of
//     which what comes before can match at most W bytes (q21's
//     '(&|^)channel_id=([^&]*)': one byte before "channel_id="), no match
//     can start more than W bytes before the literal's first occurrence,
//     so the engine searches only from there.
//
// Its methods are safe for concurrent use, as regexp's are.
type Regexp struct {
	re  *regexp.Regexp
	pre *Prefilter
	// lit is the anchor literal ("" when there is none) and before the
	// most bytes the part of the pattern before it can match.
	lit    string
	before int
	// preIsLit says the prefilter is that the string contains lit, which
	// window checks anyway.
	preIsLit bool
}

// Compile compiles a Java-syntax pattern (see Java): an error when Go's
// regexp cannot compile its translation (look-around, back-references,
// possessive quantifiers, a syntax error).
func Compile(javaPattern string) (*Regexp, error) {
	p := Java(javaPattern)
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	// regexp.Compile parsed p with these flags and simplified the tree.
	tree, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	r := &Regexp{re: re, pre: NewPrefilter(tree)}
	r.lit, r.before = anchor(tree)
	r.preIsLit = r.lit != "" && r.pre != nil && r.pre.op == pfLit && r.pre.lit == r.lit
	return r, nil
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re }

// Prefilter returns the pattern's prefilter (nil: none).
func (r *Regexp) Prefilter() *Prefilter { return r.pre }

// NumSubexp returns the number of parenthesized groups.
func (r *Regexp) NumSubexp() int { return r.re.NumSubexp() }

// MatchString reports whether s contains a match.
func (r *Regexp) MatchString(s string) bool {
	off, ok := r.window(s)
	return ok && r.re.MatchString(s[off:])
}

// FindStringSubmatchIndex is regexp's: the bounds of the leftmost match
// and its groups in s, or nil.
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	off, ok := r.window(s)
	if !ok {
		return nil
	}
	m := r.re.FindStringSubmatchIndex(s[off:])
	if off > 0 {
		for i, x := range m {
			if x >= 0 {
				m[i] = x + off
			}
		}
	}
	return m
}

// ReplaceAllLiteralString is regexp's: s with every match replaced by
// rep, taken literally.
func (r *Regexp) ReplaceAllLiteralString(s, rep string) string {
	off, ok := r.window(s)
	if !ok {
		return s
	}
	if off == 0 {
		return r.re.ReplaceAllLiteralString(s, rep)
	}
	return s[:off] + r.re.ReplaceAllLiteralString(s[off:], rep)
}

// window reports whether s passes the prefilter (ok), and where in s the
// engine needs to start searching: from one rune before the earliest
// position a match can start at (see Regexp), 0 without an anchor.
// Starting a byte early keeps the context of the assertions (\b, ^ with
// (?m)) at every position a match can start at; at the suffix's first
// position, where ^ and \b would see no left context, no match can start.
// The cut is moved back to a rune boundary, so that the engine decodes
// the same runes as in s.
func (r *Regexp) window(s string) (off int, ok bool) {
	if !r.preIsLit && !r.pre.MayMatch(s) {
		return 0, false
	}
	if r.lit == "" {
		return 0, true
	}
	// The anchor is a required part of the pattern: without it, no match.
	q := strings.Index(s, r.lit)
	if q < 0 {
		return 0, false
	}
	p := q - r.before - 1
	for p > 0 && !utf8.RuneStart(s[p]) {
		p--
	}
	return max(p, 0), true
}

// anchor finds, in a pattern that is a sequence (under any captures), the
// plain literal to search for first and the most bytes the part before it
// can match; "" when the pattern has no such literal, or what comes
// before it is unbounded. Of several candidates it takes the longest
// literal.
func anchor(re *syntax.Regexp) (lit string, before int) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	width := 0
	for _, s := range subs {
		if s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0 {
			if l := string(s.Rune); len(l) > len(lit) && !strings.ContainsRune(l, utf8.RuneError) {
				lit, before = l, width
			}
		}
		w, ok := maxWidth(s)
		if !ok {
			break
		}
		width += w
	}
	return lit, before
}

// maxWidth returns the most bytes re can match, when bounded.
func maxWidth(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return 0, true
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += runeWidth(r, re.Flags&syntax.FoldCase != 0)
		}
		return n, true
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0, true
		}
		return runeWidth(re.Rune[len(re.Rune)-1], false), true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax, true
	case syntax.OpCapture:
		return maxWidth(re.Sub[0])
	case syntax.OpQuest:
		return maxWidth(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return 0, false
		}
		w, ok := maxWidth(re.Sub[0])
		return w * re.Max, ok
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, s := range re.Sub {
			w, ok := maxWidth(s)
			if !ok {
				return 0, false
			}
			if re.Op == syntax.OpConcat {
				total += w
			} else {
				total = max(total, w)
			}
		}
		return total, true
	}
	return 0, false // OpStar, OpPlus
}

// runeWidth is the most bytes r takes in UTF-8, or any rune it folds to
// (an invalid byte the engine reads as one rune is one byte).
func runeWidth(r rune, fold bool) int {
	if fold {
		return utf8.UTFMax
	}
	return max(utf8.RuneLen(r), 1)
}
