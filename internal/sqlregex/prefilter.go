package sqlregex

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Prefilter is a test that every string a regular expression matches
// passes, derived from the expression's syntax tree as RE2's and Rust
// regex's prefilters are: a formula of AND and OR over substrings the
// string must contain. A string that fails it cannot match, so the regex
// engine need not run on it: REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)',
// 2) rejects a URL without "channel_id=" with one substring search. A nil
// *Prefilter passes every string (the expression requires no substring,
// as a*b? does).
type Prefilter struct {
	op   pfOp
	lit  string       // pfLit
	subs []*Prefilter // pfAnd, pfOr: two or more, none nil
}

type pfOp uint8

const (
	pfLit pfOp = iota // the string contains lit
	pfAnd             // every sub passes
	pfOr              // some sub passes
)

// maxExact bounds the set of strings a subexpression is known to match
// exactly (such as {"a", "b"} for [ab] or (a|b)): past it the set becomes
// an OR of substrings, as in RE2.
const maxExact = 16

// NewPrefilter returns the prefilter of re, a parsed expression (as
// regexp.Compile parses it: syntax.Perl flags); nil when re requires no
// substring.
func NewPrefilter(re *syntax.Regexp) *Prefilter {
	return analyze(re).match()
}

// MayMatch reports whether s passes p: false means the expression cannot
// match s.
func (p *Prefilter) MayMatch(s string) bool {
	if p == nil {
		return true
	}
	switch p.op {
	case pfLit:
		return strings.Contains(s, p.lit)
	case pfAnd:
		for _, q := range p.subs {
			if !q.MayMatch(s) {
				return false
			}
		}
		return true
	}
	for _, q := range p.subs {
		if q.MayMatch(s) {
			return true
		}
	}
	return false
}

// String renders p for tests and EXPLAIN-like output: "channel_id=",
// ("ab" AND ("c" OR "d")), or "*" for nil.
func (p *Prefilter) String() string {
	if p == nil {
		return "*"
	}
	if p.op == pfLit {
		return `"` + p.lit + `"`
	}
	sep := " AND "
	if p.op == pfOr {
		sep = " OR "
	}
	parts := make([]string, len(p.subs))
	for i, q := range p.subs {
		parts[i] = q.String()
	}
	return "(" + strings.Join(parts, sep) + ")"
}

// info is what a subexpression says about the strings it matches: either
// exactly one of a small set of strings (exact, when known), or strings
// that pass a prefilter (cond; nil: any string).
type info struct {
	exact []string // sorted, distinct; valid when isExact
	// isExact distinguishes an exact set from an unknown one (an empty
	// exact set matches nothing, as [^\x00-\x{10FFFF}] does).
	isExact bool
	cond    *Prefilter
}

func anything() info { return info{} }

func exactly(s ...string) info {
	slices.Sort(s)
	return info{exact: slices.Compact(s), isExact: true}
}

// match returns the prefilter of what i matches: for an exact set, that
// the string contains one of its strings.
func (i info) match() *Prefilter {
	if !i.isExact {
		return i.cond
	}
	return orOf(i.exact)
}

// orOf returns the prefilter that a string contains one of ss: nil (any
// string) when one of them is empty, since every string contains "". An
// empty ss matches nothing; a prefilter cannot say so, and passes all.
func orOf(ss []string) *Prefilter {
	if len(ss) == 0 || slices.Contains(ss, "") {
		return nil
	}
	// A string containing a contains every string that contains it: of
	// "ab" and "b", "b" suffices (the OR passes whenever "ab" is there).
	var keep []string
	for _, s := range ss {
		redundant := false
		for _, t := range ss {
			if t != s && strings.Contains(s, t) {
				redundant = true
				break
			}
		}
		if !redundant {
			keep = append(keep, s)
		}
	}
	subs := make([]*Prefilter, len(keep))
	for i, s := range keep {
		subs[i] = &Prefilter{op: pfLit, lit: s}
	}
	return combine(pfOr, subs...)
}

// combine returns the AND or OR of ps: for AND, nil (any string) operands
// drop out; for OR, one makes the whole nil. Nested operators of the same
// kind are flattened.
func combine(op pfOp, ps ...*Prefilter) *Prefilter {
	var subs []*Prefilter
	add := func(p *Prefilter) {
		for _, q := range subs {
			if q.op == pfLit && p.op == pfLit && q.lit == p.lit {
				return // the same test twice
			}
		}
		subs = append(subs, p)
	}
	for _, p := range ps {
		switch {
		case p == nil && op == pfOr:
			return nil
		case p == nil:
		case p.op == op:
			for _, q := range p.subs {
				add(q)
			}
		default:
			add(p)
		}
	}
	switch len(subs) {
	case 0:
		return nil
	case 1:
		return subs[0]
	}
	return &Prefilter{op: op, subs: subs}
}

// analyze computes what re matches.
func analyze(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactly("")
	case syntax.OpLiteral:
		return literal(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		return charClass(re.Rune)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpPlus:
		return info{cond: analyze(re.Sub[0]).match()}
	case syntax.OpRepeat:
		if re.Min == 0 {
			return anything()
		}
		return info{cond: analyze(re.Sub[0]).match()}
	case syntax.OpConcat:
		return concat(re.Sub)
	case syntax.OpAlternate:
		return alternate(re.Sub)
	}
	// OpStar, OpQuest (they match ""), OpAnyChar, OpAnyCharNotNL,
	// OpNoMatch and anything else: no requirement.
	return anything()
}

// literal is the exact set of a literal: its case variants when it folds
// case (ASCII letters only, and few enough of them), else unknown. A
// U+FFFD in it splits it: the engine reads an invalid byte of the input
// as U+FFFD, which a substring test for its encoding would miss, so only
// the parts around it are required.
func literal(runes []rune, fold bool) info {
	if i := slices.Index(runes, utf8.RuneError); i >= 0 {
		return info{cond: combine(pfAnd, literal(runes[:i], fold).match(), literal(runes[i+1:], fold).match())}
	}
	set := []string{""}
	for _, r := range runes {
		alts := []rune{r}
		if fold {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f >= utf8.RuneSelf || r >= utf8.RuneSelf {
					return anything()
				}
				alts = append(alts, f)
			}
		}
		if len(set)*len(alts) > maxExact {
			return anything()
		}
		next := make([]string, 0, len(set)*len(alts))
		for _, s := range set {
			for _, a := range alts {
				next = append(next, s+string(a))
			}
		}
		set = next
	}
	return exactly(set...)
}

// charClass is the exact set of a small class ([ab], [&]): its runes.
func charClass(ranges []rune) info {
	n := 0
	for i := 0; i < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > maxExact/4 {
			return anything()
		}
	}
	var set []string
	for i := 0; i < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if r == utf8.RuneError {
				return anything()
			}
			set = append(set, string(r))
		}
	}
	return exactly(set...)
}

// concat joins its parts' exact sets while they stay small (a cross
// product); past that, or at a part that is not exact, what it has
// becomes a condition ANDed with the rest.
func concat(subs []*syntax.Regexp) info {
	var conds []*Prefilter
	cur := []string{""}
	for _, s := range subs {
		in := analyze(s)
		if !in.isExact {
			conds = append(conds, orOf(cur), in.cond)
			cur = []string{""}
			continue
		}
		if len(cur)*len(in.exact) > maxExact {
			conds = append(conds, orOf(cur))
			cur = in.exact
			continue
		}
		next := make([]string, 0, len(cur)*len(in.exact))
		for _, a := range cur {
			for _, b := range in.exact {
				next = append(next, a+b)
			}
		}
		cur = next
	}
	if conds == nil {
		return exactly(cur...)
	}
	conds = append(conds, orOf(cur))
	return info{cond: combine(pfAnd, conds...)}
}

// alternate unions its branches' exact sets while they stay small, else
// ORs their conditions.
func alternate(subs []*syntax.Regexp) info {
	infos := make([]info, len(subs))
	var union []string
	allExact := true
	for i, s := range subs {
		infos[i] = analyze(s)
		if !infos[i].isExact {
			allExact = false
		}
		union = append(union, infos[i].exact...)
	}
	if allExact {
		if in := exactly(union...); len(in.exact) <= maxExact {
			return in
		}
	}
	conds := make([]*Prefilter, len(infos))
	for i, in := range infos {
		conds[i] = in.match()
		if conds[i] == nil {
			return anything()
		}
	}
	return info{cond: combine(pfOr, conds...)}
}
