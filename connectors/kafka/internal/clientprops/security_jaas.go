package clientprops

import (
	"fmt"
	"strings"
)

// jaasEntry is one login module of a sasl.jaas.config value:
//
//	org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3cret";
type jaasEntry struct {
	module  string            // login module class name
	flag    string            // required, requisite, sufficient or optional (lower case)
	options map[string]string // option name → unquoted value
	order   []string          // option names in the order written
}

// JAASError reports a malformed sasl.jaas.config value. Its message shows
// the column and an excerpt of the value in which every quoted string is
// masked, so that a password never reaches the message.
type JAASError struct {
	// Column is the 1-based position (in characters) of the problem.
	Column int
	// Reason says what was expected.
	Reason string
	// Excerpt is the value around Column with quoted strings masked and a
	// caret line under the problem.
	Excerpt string
}

func (e *JAASError) Error() string {
	return fmt.Sprintf("malformed JAAS configuration at column %d: %s\n%s", e.Column, e.Reason, e.Excerpt)
}

// jaasFlags are the control flags Java's JAAS configuration accepts.
var jaasFlags = []string{"required", "requisite", "sufficient", "optional"}

// parseJAAS parses a sasl.jaas.config value as Kafka's JaasConfig does:
// one or more entries "ModuleClass flag name=value ... ;", where a value is
// a bare word or a double-quoted string with backslash escapes, and // and
// /* */ comments are allowed between tokens. Kafka clients accept exactly one
// login module; so does the caller.
func parseJAAS(s string) ([]jaasEntry, error) {
	p := jaasParser{src: []rune(s)}
	var entries []jaasEntry
	for {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		if tok.kind == tokEOF {
			break
		}
		if tok.kind != tokWord {
			return nil, p.errAt(tok.pos, "expected a login module class name")
		}
		e := jaasEntry{module: tok.text, options: map[string]string{}}
		flag, err := p.next()
		if err != nil {
			return nil, err
		}
		if flag.kind != tokWord || !isJAASFlag(flag.text) {
			return nil, p.errAt(flag.pos, "expected a control flag after the login module (required, requisite, sufficient or optional)")
		}
		e.flag = strings.ToLower(flag.text)
		for {
			name, err := p.next()
			if err != nil {
				return nil, err
			}
			if name.kind == tokSemi {
				break
			}
			if name.kind == tokEOF {
				return nil, p.errAt(name.pos, "expected ';' at the end of the login module entry")
			}
			if name.kind != tokWord {
				return nil, p.errAt(name.pos, "expected an option name")
			}
			eq, err := p.next()
			if err != nil {
				return nil, err
			}
			if eq.kind != tokEquals {
				return nil, p.errAt(eq.pos, "expected '=' after an option name")
			}
			val, err := p.next()
			if err != nil {
				return nil, err
			}
			if val.kind != tokWord && val.kind != tokQuoted {
				return nil, p.errAt(val.pos, fmt.Sprintf("expected a value for option %s", name.text))
			}
			if _, dup := e.options[name.text]; dup {
				return nil, p.errAt(name.pos, fmt.Sprintf("option %s is given twice", name.text))
			}
			e.options[name.text] = val.text
			e.order = append(e.order, name.text)
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		return nil, p.errAt(len(p.src), "no login module given")
	}
	return entries, nil
}

func isJAASFlag(s string) bool {
	for _, f := range jaasFlags {
		if strings.EqualFold(s, f) {
			return true
		}
	}
	return false
}

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokWord
	tokQuoted
	tokEquals
	tokSemi
)

type jaasToken struct {
	kind tokKind
	text string
	pos  int // rune index of the first character
}

type jaasParser struct {
	src []rune
	i   int
}

// isWordRune reports whether r may appear in a bare word: class names
// (with '.', '$'), option names and unquoted values.
func isWordRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	case r == '.' || r == '_' || r == '$' || r == '-' || r == ':' || r == '/' || r == '+' || r == '@':
		return true
	}
	return r > 127 && !isSpace(r)
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' || r == 0xA0
}

// next returns the next token, skipping white space and comments.
func (p *jaasParser) next() (jaasToken, error) {
	for p.i < len(p.src) {
		r := p.src[p.i]
		switch {
		case isSpace(r):
			p.i++
			continue
		case r == '/' && p.i+1 < len(p.src) && p.src[p.i+1] == '/':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
			continue
		case r == '/' && p.i+1 < len(p.src) && p.src[p.i+1] == '*':
			start := p.i
			p.i += 2
			for p.i+1 < len(p.src) && (p.src[p.i] != '*' || p.src[p.i+1] != '/') {
				p.i++
			}
			if p.i+1 >= len(p.src) {
				return jaasToken{}, p.errAt(start, "unterminated /* comment")
			}
			p.i += 2
			continue
		}
		break
	}
	if p.i >= len(p.src) {
		return jaasToken{kind: tokEOF, pos: p.i}, nil
	}
	start := p.i
	r := p.src[p.i]
	switch {
	case r == '=':
		p.i++
		return jaasToken{kind: tokEquals, text: "=", pos: start}, nil
	case r == ';':
		p.i++
		return jaasToken{kind: tokSemi, text: ";", pos: start}, nil
	case r == '"' || r == '\'':
		return p.quoted(r)
	case isWordRune(r):
		for p.i < len(p.src) && isWordRune(p.src[p.i]) {
			p.i++
		}
		return jaasToken{kind: tokWord, text: string(p.src[start:p.i]), pos: start}, nil
	}
	return jaasToken{}, p.errAt(start, fmt.Sprintf("unexpected character %q", r))
}

// quoted reads a string quoted with q. Escapes are those of Java's
// StreamTokenizer: \n \t \r \b \f, \\ \" \' and any other character taken
// literally after a backslash. A value may not span lines unescaped.
func (p *jaasParser) quoted(q rune) (jaasToken, error) {
	start := p.i
	p.i++
	var b strings.Builder
	for p.i < len(p.src) {
		r := p.src[p.i]
		switch r {
		case q:
			p.i++
			return jaasToken{kind: tokQuoted, text: b.String(), pos: start}, nil
		case '\n', '\r':
			return jaasToken{}, p.errAt(start, "quoted value is not closed before the end of the line")
		case '\\':
			p.i++
			if p.i >= len(p.src) {
				return jaasToken{}, p.errAt(start, "quoted value ends in a lone backslash and is not closed")
			}
			switch e := p.src[p.i]; e {
			case 'n':
				b.WriteRune('\n')
			case 't':
				b.WriteRune('\t')
			case 'r':
				b.WriteRune('\r')
			case 'b':
				b.WriteRune('\b')
			case 'f':
				b.WriteRune('\f')
			default:
				b.WriteRune(e)
			}
			p.i++
		default:
			b.WriteRune(r)
			p.i++
		}
	}
	return jaasToken{}, p.errAt(start, "quoted value is not closed")
}

// errAt builds a JAASError for rune position pos.
func (p *jaasParser) errAt(pos int, reason string) error {
	return &JAASError{Column: pos + 1, Reason: reason, Excerpt: maskedExcerpt(p.src, pos)}
}

// maskedExcerpt returns up to 60 characters of src around pos, with a
// caret under pos. Everything that may be a secret is replaced by "***":
// every quoted string (quotes kept), and every bare word other than a login
// module, its flag and an option name (a word followed by '='), so that a
// password written bare or in a wrong place is not shown either.
func maskedExcerpt(src []rune, pos int) string {
	var out []rune
	caret := -1
	wordsInEntry := 0            // words since the last ';'
	mark := func(from, to int) { // src[from:to] becomes the next output
		if caret < 0 && pos >= from && pos < to {
			caret = len(out)
		}
	}
	for i := 0; i < len(src); {
		r := src[i]
		switch {
		case r == '"' || r == '\'':
			j := i + 1
			for j < len(src) && src[j] != r && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j < len(src) && src[j] == r {
				j++
			}
			j = min(j, len(src))
			mark(i, j)
			out = append(out, r, '*', '*', '*')
			if j-i >= 2 && src[j-1] == r {
				out = append(out, r)
			}
			i = j
			wordsInEntry++
		case isWordRune(r):
			j := i
			for j < len(src) && isWordRune(src[j]) {
				j++
			}
			k := j
			for k < len(src) && isSpace(src[k]) {
				k++
			}
			mark(i, j)
			if wordsInEntry < 2 || k < len(src) && src[k] == '=' {
				out = append(out, src[i:j]...)
			} else {
				out = append(out, '*', '*', '*')
			}
			i = j
			wordsInEntry++
		default:
			mark(i, i+1)
			if r == ';' {
				wordsInEntry = 0
			}
			if isSpace(r) {
				r = ' '
			}
			out = append(out, r)
			i++
		}
	}
	if caret < 0 {
		caret = len(out)
	}
	lo := max(0, caret-40)
	hi := min(len(out), caret+20)
	prefix, suffix := "", ""
	if lo > 0 {
		prefix = "..."
	}
	if hi < len(out) {
		suffix = "..."
	}
	line := prefix + string(out[lo:hi]) + suffix
	return "  " + line + "\n  " + strings.Repeat(" ", len([]rune(prefix))+caret-lo) + "^"
}
