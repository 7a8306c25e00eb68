package sqlregex

import "strings"

// posixClasses maps Java's \p{Name} ASCII classes to RE2's POSIX classes.
var posixClasses = map[string]string{
	"Alpha": "alpha", "Digit": "digit", "Alnum": "alnum", "Upper": "upper", "Lower": "lower",
	"Punct": "punct", "Space": "space", "XDigit": "xdigit", "Blank": "blank", "Cntrl": "cntrl",
	"Graph": "graph", "Print": "print", "ASCII": "ascii",
}

// Java rewrites the java.util.regex syntax of a pattern given to Flink's
// REGEXP functions where RE2 spells it differently: the POSIX classes
// \p{Alpha}, \P{Digit}, ... Everything else is passed through; constructs RE2 lacks (look-around, back-references, possessive
// quantifiers) make the pattern invalid, which gives NULL.
func Java(p string) string {
	if !strings.Contains(p, `\p{`) && !strings.Contains(p, `\P{`) {
		return p
	}
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if (p[i+1] == 'p' || p[i+1] == 'P') && i+2 < len(p) && p[i+2] == '{' {
				if end := strings.IndexByte(p[i+3:], '}'); end >= 0 {
					if cls, ok := posixClasses[p[i+3:i+3+end]]; ok {
						neg := ""
						if p[i+1] == 'P' {
							neg = "^"
						}
						if inClass {
							sb.WriteString("[:" + neg + cls + ":]")
						} else {
							sb.WriteString("[" + neg + "[:" + cls + ":]]")
						}
						i += 3 + end
						continue
					}
				}
			}
			sb.WriteByte(c)
			sb.WriteByte(p[i+1])
			i++
		case c == '[' && !inClass:
			inClass = true
			sb.WriteByte(c)
		case c == ']' && inClass:
			inClass = false
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
