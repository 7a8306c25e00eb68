package sqlregex

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// similarSpecials are the metacharacters of SQL regular expressions (the
// escape character may quote them); javaSpecials are those of
// java.util.regex. The sets, and the translation below, are those of
// Flink's SqlLikeUtils.sqlToRegexSimilar (a copy of Calcite's Like).
const (
	similarSpecials = "[]()|^-+*_%?{}"
	javaSpecials    = "[]()|^-+*?{}$\\."
)

// similarCharClasses are the named classes allowed inside [...], with their
// java.util.regex spelling, in the order Flink tries them.
var similarCharClasses = [...][2]string{
	{"[:ALPHA:]", `\p{Alpha}`}, {"[:alpha:]", `\p{Alpha}`},
	{"[:UPPER:]", `\p{Upper}`}, {"[:upper:]", `\p{Upper}`},
	{"[:LOWER:]", `\p{Lower}`}, {"[:lower:]", `\p{Lower}`},
	{"[:DIGIT:]", `\d`}, {"[:digit:]", `\d`},
	{"[:SPACE:]", " "}, {"[:space:]", " "},
	{"[:WHITESPACE:]", `\s`}, {"[:whitespace:]", `\s`},
	{"[:ALNUM:]", `\p{Alnum}`}, {"[:alnum:]", `\p{Alnum}`},
}

func similarBadEscape(pattern string, pos int) error {
	return &Error{fmt.Sprintf("SIMILAR TO pattern %q: invalid escape sequence at %d", pattern, pos)}
}

func similarBadRegex(pattern string) error {
	return &Error{fmt.Sprintf("SIMILAR TO pattern %q is not a valid regular expression", pattern)}
}

// similarToJava translates a SIMILAR TO pattern into the java.util.regex
// pattern Flink matches with (Pattern.matches, so the whole string must
// match): % is (?s:.*), _ is any character, \ and $ are literals, the
// escape character quotes the next metacharacter, and the other characters
// — . | * + ? { } ( ) ^ included — pass through to the regex engine. esc is
// 0 without ESCAPE, as in Flink (a NUL in the pattern then acts as one).
func similarToJava(pattern string, esc rune) (string, error) {
	p := []rune(pattern)
	if err := checkSimilarEscapes(pattern, p, esc); err != nil {
		return "", err
	}
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == esc {
			if i == len(p)-1 {
				return "", similarBadEscape(pattern, i)
			}
			n := p[i+1]
			switch {
			case strings.ContainsRune(similarSpecials, n):
				if strings.ContainsRune(javaSpecials, n) {
					sb.WriteByte('\\')
				}
				sb.WriteRune(n)
			case n == esc:
				sb.WriteRune(n)
			default:
				return "", similarBadEscape(pattern, i)
			}
			i++
			continue
		}
		switch c {
		case '_':
			sb.WriteByte('.')
		case '%':
			sb.WriteString("(?s:.*)")
		case '[':
			sb.WriteByte('[')
			inClass = true
			j, err := similarClassToJava(pattern, p, &sb, i, esc)
			if err != nil {
				return "", err
			}
			i = j
		case ']':
			if !inClass {
				return "", similarBadRegex(pattern)
			}
			inClass = false
			sb.WriteByte(']')
		case '\\':
			sb.WriteString(`\\`)
		case '$':
			sb.WriteString(`\$`)
		default:
			sb.WriteRune(c)
		}
	}
	if inClass {
		return "", similarBadRegex(pattern)
	}
	return sb.String(), nil
}

// checkSimilarEscapes applies Flink's up-front checks: an escape character
// that is itself a metacharacter must be followed by a metacharacter or
// itself at every occurrence (pairs are not skipped, so "a%%" with ESCAPE
// '%' fails on its last '%'), and the escape ':' needs both "[:" and ":]".
func checkSimilarEscapes(pattern string, p []rune, esc rune) error {
	if esc == 0 {
		return nil
	}
	if strings.ContainsRune(similarSpecials, esc) {
		for i, c := range p {
			if c != esc {
				continue
			}
			if i == len(p)-1 {
				return similarBadEscape(pattern, i)
			}
			if n := p[i+1]; !strings.ContainsRune(similarSpecials, n) && n != esc {
				return similarBadEscape(pattern, i)
			}
		}
	}
	if esc == ':' && (!strings.Contains(pattern, "[:") || !strings.Contains(pattern, ":]")) {
		return similarBadEscape(pattern, -1)
	}
	return nil
}

// similarClassToJava copies the body of a [...] enumeration that starts at
// p[open] and returns the index just before its closing ']' (or the last
// index when it has none, which the caller reports).
func similarClassToJava(pattern string, p []rune, sb *strings.Builder, open int, esc rune) (int, error) {
	j := open + 1
	for ; j < len(p); j++ {
		c := p[j]
		switch {
		case c == ']':
			return j - 1, nil
		case c == esc:
			j++
			if j == len(p) {
				return 0, similarBadEscape(pattern, j-1)
			}
			n := p[j]
			switch {
			case strings.ContainsRune(similarSpecials, n):
				if strings.ContainsRune(javaSpecials, n) {
					sb.WriteByte('\\')
				}
				sb.WriteRune(n)
			case n == esc:
				sb.WriteRune(n)
			default:
				return 0, similarBadRegex(pattern)
			}
		case c == '-' || c == '^':
			sb.WriteRune(c)
		case c == '[' && j+1 < len(p) && p[j+1] == ':':
			found := false
			for _, cc := range similarCharClasses {
				if strings.HasPrefix(string(p[j:]), cc[0]) {
					sb.WriteString(cc[1])
					j += len(cc[0]) - 1
					found = true
					break
				}
			}
			if !found {
				return 0, similarBadRegex(pattern)
			}
		case strings.ContainsRune(similarSpecials, c):
			return 0, similarBadRegex(pattern)
		default:
			sb.WriteRune(c)
		}
	}
	return j - 1, nil
}

// javaDot is java.util.regex's '.' without DOTALL: any character but a
// line terminator (\n, \r, U+0085, U+2028, U+2029); RE2's '.' excludes
// only \n.
const javaDot = `[^\n\r\x{85}\x{2028}\x{2029}]`

// javaSimilarToRE2 rewrites the java.util.regex pattern similarToJava
// produced into RE2 syntax with the same meaning, anchored at both ends:
//
//   - '.' excludes Java's line terminators; the (?s:.*) of % stays as is;
//   - \s includes \x0B; \p{Alpha}-style classes become POSIX classes;
//   - a '{' that does not start a valid {n}, {n,} or {n,m} is an error
//     (Java's "Illegal repetition"; RE2 would read a literal '{');
//   - a {n,m} with nothing to repeat (at the start, after '(', '|' or
//     another quantifier) repeats the empty string in Java, so it is
//     dropped with its lazy or possessive suffix (RE2 would fail).
//
// What RE2 lacks (possessive quantifiers, look-around, class intersection
// with &&, repetition counts above 1000) stays an error or a different
// match: planner/expr's knownDeviations (golden_test.go) lists them.
func javaSimilarToRE2(j string) (string, error) {
	var sb strings.Builder
	sb.WriteString(`\A(?:`)
	inClass := false
	atom := false // whether a quantifier here has something to repeat
	for i := 0; i < len(j); i++ {
		c := j[i]
		switch {
		case c == '\\':
			if i+1 == len(j) {
				return "", fmt.Errorf("trailing backslash")
			}
			atom = true
			n := j[i+1]
			switch {
			case (n == 'p' || n == 'P') && strings.HasPrefix(j[i+2:], "{"):
				end := strings.IndexByte(j[i+2:], '}')
				if end < 0 {
					return "", fmt.Errorf("unclosed \\%c{", n)
				}
				name := j[i+3 : i+2+end]
				cls, ok := posixClasses[name]
				if !ok {
					// Unicode classes (\p{L}) are spelled alike.
					sb.WriteString(j[i : i+3+end])
				} else {
					neg := ""
					if n == 'P' {
						neg = "^"
					}
					if inClass {
						sb.WriteString("[:" + neg + cls + ":]")
					} else {
						sb.WriteString("[" + neg + "[:" + cls + ":]]")
					}
				}
				i += 2 + end
			case n == 's' && inClass:
				sb.WriteString(`\t\n\v\f\r `)
				i++
			case n == 's':
				sb.WriteString(`[\t\n\v\f\r ]`)
				i++
			case n == 'S' && !inClass:
				sb.WriteString(`[^\t\n\v\f\r ]`)
				i++
			case n >= utf8.RuneSelf:
				// Java quotes any non-letter; RE2 only punctuation.
				r, size := utf8.DecodeRuneInString(j[i+1:])
				sb.WriteString(regexp.QuoteMeta(string(r)))
				i += size
			default:
				sb.WriteByte('\\')
				sb.WriteByte(n)
				i++
			}
		case inClass:
			if c == ']' {
				inClass = false
			}
			sb.WriteByte(c)
		case c == '[':
			inClass, atom = true, true
			sb.WriteByte(c)
			// Java reads a ']' right after '[' or '[^' as the end of an
			// empty class (an error); RE2 as a literal.
			k := i + 1
			if k < len(j) && j[k] == '^' {
				k++
			}
			if k < len(j) && j[k] == ']' {
				return "", fmt.Errorf("empty character class")
			}
		case strings.HasPrefix(j[i:], "(?s:.*)"):
			sb.WriteString("(?s:.*)")
			i += len("(?s:.*)") - 1
			atom = true
		case c == '.':
			sb.WriteString(javaDot)
			atom = true
		case c == '(' || c == '|':
			sb.WriteByte(c)
			atom = false
		case c == '*' || c == '+' || c == '?':
			sb.WriteByte(c)
			atom = false
		case c == '{':
			k := i + 1
			digits := 0
			for k < len(j) && j[k] >= '0' && j[k] <= '9' {
				k, digits = k+1, digits+1
			}
			if digits > 0 && k < len(j) && j[k] == ',' {
				k++
				for k < len(j) && j[k] >= '0' && j[k] <= '9' {
					k++
				}
			}
			if digits == 0 || k == len(j) || j[k] != '}' {
				return "", fmt.Errorf("illegal repetition")
			}
			if atom {
				sb.WriteString(j[i : k+1])
			} else if k+1 < len(j) && (j[k+1] == '?' || j[k+1] == '+') {
				k++ // the suffix belongs to the dropped repetition
			}
			i = k
			atom = false
		default:
			sb.WriteByte(c)
			atom = true
		}
	}
	sb.WriteString(`)\z`)
	return sb.String(), nil
}

// Similar compiles a SIMILAR TO pattern with its optional escape
// (hasEscape reports whether ESCAPE was given) into an RE2 regexp that
// matches what Flink's matches, anchored at both ends. It returns an
// *[Error] for a pattern or escape Flink rejects.
func Similar(pattern, escape string, hasEscape bool) (*regexp.Regexp, error) {
	var esc rune
	if hasEscape {
		if n := utf8.RuneCountInString(escape); n != 1 || utf16.RuneLen([]rune(escape)[0]) != 1 {
			return nil, &Error{fmt.Sprintf("SIMILAR TO escape must be one character, got %q", escape)}
		}
		esc, _ = utf8.DecodeRuneInString(escape)
	}
	j, err := similarToJava(pattern, esc)
	if err != nil {
		return nil, err
	}
	src, err := javaSimilarToRE2(j)
	if err == nil {
		var re *regexp.Regexp
		if re, err = regexp.Compile(src); err == nil {
			return re, nil
		}
	}
	return nil, &Error{fmt.Sprintf("SIMILAR TO pattern %q is not a valid regular expression: %v", pattern, err)}
}
