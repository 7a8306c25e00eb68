// Package sqlregex translates SQL's pattern languages into Go regular
// expressions (RE2) with Flink's meaning: [Like] for LIKE and [Similar]
// for SIMILAR TO (Flink's SqlLikeUtils, a copy of Calcite's Like, first
// turns a SIMILAR TO pattern into a java.util.regex pattern; Similar does
// the same and then rewrites that into RE2 syntax with the same meaning).
//
// Learn [Like], [Similar] and [Error] first. planner/expr compiles the
// LIKE and SIMILAR TO operators with them.
package sqlregex

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Error is returned for a pattern or escape that Flink rejects. Its text
// names the pattern; planner/expr wraps it as an invalid argument.
type Error struct{ msg string }

// Error returns the description of the problem.
func (e *Error) Error() string { return e.msg }

// Like compiles a LIKE pattern into a matcher of whole strings: % matches
// any sequence, _ any one character, and the escape character (none when
// escape is empty) makes the next one literal. Patterns that are a plain
// prefix, suffix, infix or string skip the regexp engine. It returns an
// *[Error] for an escape of more than one character or a pattern ending
// with the escape.
func Like(pattern, escape string) (func(string) bool, error) {
	var esc rune = -1
	if escape != "" {
		if utf8.RuneCountInString(escape) != 1 {
			return nil, &Error{fmt.Sprintf("LIKE escape must be one character, got %q", escape)}
		}
		esc, _ = utf8.DecodeRuneInString(escape)
	}
	var sb strings.Builder
	sb.WriteString("(?s)^")
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == esc:
			if i+1 >= len(rs) {
				return nil, &Error{fmt.Sprintf("LIKE pattern %q ends with the escape character", pattern)}
			}
			i++
			sb.WriteString(regexp.QuoteMeta(string(rs[i])))
		case r == '%':
			sb.WriteString(".*")
		case r == '_':
			sb.WriteString(".")
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	sb.WriteString("$")
	// Plain prefix/suffix/contains patterns avoid the regexp engine.
	if escape == "" && !strings.ContainsAny(pattern, "_") {
		inner := strings.Trim(pattern, "%")
		if !strings.Contains(inner, "%") {
			pre, suf := strings.HasPrefix(pattern, "%"), strings.HasSuffix(pattern, "%") && len(pattern) > 1
			switch {
			case pre && suf:
				return func(s string) bool { return strings.Contains(s, inner) }, nil
			case pre:
				return func(s string) bool { return strings.HasSuffix(s, inner) }, nil
			case suf:
				return func(s string) bool { return strings.HasPrefix(s, inner) }, nil
			default:
				return func(s string) bool { return s == inner }, nil
			}
		}
	}
	re, err := regexp.Compile(sb.String())
	if err != nil {
		return nil, &Error{fmt.Sprintf("LIKE pattern %q: %v", pattern, err)}
	}
	return re.MatchString, nil
}
