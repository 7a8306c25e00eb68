package ddl

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/internal/secret"
)

// Pos is a position in the user's original text (before ${NAME}
// substitution). The zero Pos means "no position".
type Pos struct {
	Offset int // byte offset, 0-based
	Line   int // 1-based line
	Column int // 1-based column, counted in characters
}

// IsValid reports whether p is a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String returns "line:column".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Column) }

// subst records one ${NAME} replacement: text[start:end] of the substituted
// text came from orig[origStart:origEnd].
type subst struct {
	start, end         int
	origStart, origEnd int
}

// source is one job file: its original text, the text after substitution
// that the lexer reads, and what is needed to map offsets in the latter to
// positions in the former.
type source struct {
	name       string
	orig       string
	text       string
	substs     []subst // ordered by start
	lineStarts []int   // byte offsets of line starts in orig
	// undefined are the references to undefined variables, replaced by
	// nothing, ordered by offset: the statements they are in fail.
	undefined []undefinedRef

	// secretValues are the values of the text's sensitive options (see
	// secrets), found when the first error is made; secretsOf is the
	// length of the substituted text they were found in (substitution
	// errors are made before the text is complete), -1 before that.
	secretValues []string
	secretsOf    int
	isSecret     func(key string) bool // Config.Sensitive

	lastCol colMemo // see posOrig
}

// undefinedRef is a ${NAME} without a value or default: off is where its
// (empty) replacement is in the substituted text.
type undefinedRef struct {
	off int
	err *Error
}

// Config controls parsing.
type Config struct {
	// Vars gives values for ${NAME} references; they take precedence over
	// Env.
	Vars map[string]string
	// Env looks names up that Vars does not define; pass os.LookupEnv to use
	// the process environment. Nil means no environment.
	Env func(name string) (string, bool)
	// Sensitive reports whether an option key holds a secret, whose value
	// parse errors then mask (the planner passes its registry's
	// factory.Registry.IsSensitive). Nil means keys that look secret
	// (password, token, jaas.config, ...: option.IsSensitiveKey).
	Sensitive func(key string) bool
	// Unset, when set, is asked for a ${NAME} without a default that Vars
	// and Env do not define: a value it returns (ok) stands for the
	// reference instead of the error ErrUndefinedVariable. Tools that
	// connect nowhere (validate, explain) give a placeholder.
	Unset func(name string) (string, bool)
}

func (c Config) lookup(name string) (string, bool) {
	if v, ok := c.Vars[name]; ok {
		return v, true
	}
	if c.Env != nil {
		return c.Env(name)
	}
	return "", false
}

func newSource(name, orig string) *source {
	s := &source{name: name, orig: orig, text: orig, lineStarts: []int{0}, secretsOf: -1}
	for i := 0; i < len(orig); i++ {
		if orig[i] == '\n' {
			s.lineStarts = append(s.lineStarts, i+1)
		}
	}
	return s
}

// substitute replaces ${NAME} and ${NAME:-default} outside comments;
// inside a quoted literal or identifier the value's quote characters are
// doubled, so that the value is the literal's content. A
// reference to an undefined variable is replaced by nothing and recorded
// in s.undefined; a malformed reference is returned as an *Error, and
// stops parsing.
func (s *source) substitute(cfg Config) *Error {
	src := s.orig
	if !strings.Contains(src, "${") {
		return nil
	}
	var b strings.Builder
	b.Grow(len(src))
	var quote byte // the quote character of the literal or identifier we are in
	for i := 0; i < len(src); {
		switch {
		case quote != 0 && src[i] == quote:
			quote = 0
			b.WriteByte(src[i])
			i++
		case quote == 0 && (src[i] == '\'' || src[i] == '`' || src[i] == '"'):
			quote = src[i]
			b.WriteByte(src[i])
			i++
		case quote == 0 && strings.HasPrefix(src[i:], "--"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			b.WriteString(src[i : i+j])
			i += j
		case quote == 0 && strings.HasPrefix(src[i:], "/*") && !strings.HasPrefix(src[i:], "/*+"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				j = len(src) - i
			} else {
				j += 4
			}
			b.WriteString(src[i : i+j])
			i += j
		case strings.HasPrefix(src[i:], "${"):
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return s.errorAtOrig(i, ErrSyntax, "unterminated ${ reference: missing '}'")
			}
			ref := src[i+2 : i+end]
			name, def, hasDef := strings.Cut(ref, ":-")
			if !validVarName(name) {
				return s.errorAtOrig(i, ErrSyntax, fmt.Sprintf("invalid variable reference ${%s}: names are letters, digits and '_', not starting with a digit", ref))
			}
			val, ok := cfg.lookup(name)
			if !ok && !hasDef && cfg.Unset != nil {
				val, ok = cfg.Unset(name)
			}
			if !ok {
				val = def
				if !hasDef {
					s.undefined = append(s.undefined, undefinedRef{off: b.Len(), err: s.errorAtOrig(i, ErrUndefinedVariable,
						fmt.Sprintf("undefined variable ${%s}: set it in the environment or give a default with ${%s:-value}", name, name))})
				}
			}
			if quote != 0 {
				// Inside a quoted literal or identifier the value is its
				// content: its own quote characters are doubled, so that a
				// password holding a quote neither ends the literal early
				// (the rest of it then parsed as SQL, and shown in errors)
				// nor changes the statement.
				val = strings.ReplaceAll(val, string(quote), string(quote)+string(quote))
			}
			start := b.Len()
			b.WriteString(val)
			s.substs = append(s.substs, subst{start: start, end: b.Len(), origStart: i, origEnd: i + end + 1})
			i += end + 1
		default:
			b.WriteByte(src[i])
			i++
		}
	}
	s.text = b.String()
	return nil
}

func validVarName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// origOffset maps an offset in the substituted text to the original text.
// An offset inside a substituted value maps to the '$' of its reference.
func (s *source) origOffset(off int) int {
	i := sort.Search(len(s.substs), func(i int) bool { return s.substs[i].start > off }) - 1
	if i < 0 {
		return off
	}
	sb := s.substs[i]
	if off < sb.end {
		return sb.origStart
	}
	return sb.origEnd + (off - sb.end)
}

// posOrig returns the position of a byte offset in the original text.
func (s *source) posOrig(off int) Pos {
	if off > len(s.orig) {
		off = len(s.orig)
	}
	if off < 0 {
		off = 0
	}
	line := sort.Search(len(s.lineStarts), func(i int) bool { return s.lineStarts[i] > off }) - 1
	start := s.lineStarts[line]
	if line == 0 && strings.HasPrefix(s.orig, "\uFEFF") && off >= len("\uFEFF") {
		start = len("\uFEFF") // the byte order mark is not a column
	}
	// Columns count characters from the line start; positions are asked
	// for near each other, so count from the last one on the same line,
	// forwards or backwards (a long line would otherwise cost its length
	// per token: a generated WHERE of thousands of terms on one line).
	var col int
	switch c := s.lastCol; {
	case c.col > 0 && c.line == line && c.start == start && c.off <= off:
		col = c.col + utf8.RuneCountInString(s.orig[c.off:off])
	case c.col > 0 && c.line == line && c.start == start && c.off > off && utf8.RuneStart(s.orig[off]):
		col = c.col - utf8.RuneCountInString(s.orig[off:c.off])
	default:
		col = 1 + utf8.RuneCountInString(s.orig[start:off])
	}
	s.lastCol = colMemo{line: line, start: start, off: off, col: col}
	return Pos{Offset: off, Line: line + 1, Column: col}
}

// colMemo is the column of the last position posOrig computed.
type colMemo struct{ line, start, off, col int }

// pos returns the original position of an offset in the substituted text.
func (s *source) pos(off int) Pos { return s.posOrig(s.origOffset(off)) }

// lineText returns the original line (without terminator) that holds p.
func (s *source) lineText(p Pos) string {
	if p.Line < 1 || p.Line > len(s.lineStarts) {
		return ""
	}
	start := s.lineStarts[p.Line-1]
	if p.Line == 1 {
		start = len(s.orig) - len(strings.TrimPrefix(s.orig, "\uFEFF"))
	}
	end := len(s.orig)
	if p.Line < len(s.lineStarts) {
		end = s.lineStarts[p.Line] - 1
	}
	return strings.TrimRight(s.orig[start:end], "\r")
}

// errorAt makes the error at p, with the values of sensitive options
// masked in its excerpt and message.
func (s *source) errorAt(p Pos, class error, msg string) *Error {
	values := s.secrets()
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = "'" + v + "'"
		msg = strings.ReplaceAll(msg, "'"+truncate(v)+"'", "'"+secret.Mask+"'")
	}
	e := &Error{File: s.name, Line: p.Line, Column: p.Column, Offset: p.Offset, Message: msg, Err: class}
	var col int
	e.Excerpt, col = secret.MaskLine(s.lineText(p), p.Column, quoted, s.isSecret)
	if col != p.Column {
		e.ExcerptColumn = col
	}
	return e
}

// secrets returns the values of the 'key' = 'value' options with a
// secret key (Config.Sensitive, else secret.IsSensitiveKey) in the original and the
// substituted text, so that errors never show them, even when the key is
// on another line than the error or the statement does not parse.
func (s *source) secrets() []string {
	if s.secretsOf != len(s.text) {
		s.secretsOf = len(s.text)
		s.secretValues = secret.SQLValues(s.orig, s.isSecret)
		if s.text != s.orig {
			s.secretValues = append(s.secretValues, secret.SQLValues(s.text, s.isSecret)...)
		}
	}
	return s.secretValues
}

func (s *source) errorAtOrig(off int, class error, msg string) *Error {
	return s.errorAt(s.posOrig(off), class, msg)
}
