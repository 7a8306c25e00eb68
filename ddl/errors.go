package ddl

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
)

// The classes of parse errors. Every *Error wraps exactly one of them, so
// callers classify with errors.Is and read the position with errors.As.
var (
	// ErrSyntax is wrapped by an *Error when the text is not valid Flink SQL
	// or breaks a rule the parser checks (unknown type, duplicate option
	// key, a second WATERMARK, ...).
	ErrSyntax = errors.New("syntax error")
	// ErrUnsupported is wrapped by an *Error when the text is valid Flink SQL
	// that streamsql does not support yet (INSERT OVERWRITE, GROUP BY, JOIN,
	// CREATE CATALOG, ...). The message names the construct.
	ErrUnsupported = errors.New("not supported yet")
	// ErrUndefinedVariable is wrapped by an *Error when a ${NAME} reference
	// has no value and no default.
	ErrUndefinedVariable = errors.New("undefined variable")
)

// Error is a parse error at a position in the user's original text (before
// ${NAME} substitution). Its Error method gives the one-line form
// "job.sql:12:27: message" followed by the source line and a caret under
// the column.
type Error struct {
	File    string // file name as given to Parse
	Line    int    // 1-based line
	Column  int    // 1-based column, counted in characters
	Offset  int    // byte offset in the original text
	Message string // what is wrong, without the position
	// Excerpt is the whole source line the error points into, without its
	// line terminator, with the values of secret-looking options masked.
	Excerpt string
	// ExcerptColumn is where Column is in Excerpt when masking moved it
	// (1-based, in characters); 0 means Column.
	ExcerptColumn int
	// Err is ErrSyntax, ErrUnsupported or ErrUndefinedVariable.
	Err error
}

// Error returns "file:line:col: message", the source line and a caret line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Short())
	if e.Excerpt != "" || e.Column > 0 {
		b.WriteString("\n  ")
		b.WriteString(e.Excerpt)
		b.WriteString("\n  ")
		b.WriteString(e.Caret())
	}
	return b.String()
}

// Short returns the one-line form "file:line:col: message".
func (e *Error) Short() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	b.WriteString(strconv.Itoa(e.Line))
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(e.Column))
	b.WriteString(": ")
	b.WriteString(e.Message)
	return b.String()
}

// Caret returns a line that puts '^' under Column of Excerpt (ExcerptColumn
// when set), keeping the
// excerpt's tabs and using two spaces for wide (East Asian) characters so
// that the caret lines up in a terminal.
func (e *Error) Caret() string {
	col := e.Column
	if e.ExcerptColumn > 0 {
		col = e.ExcerptColumn
	}
	var b strings.Builder
	n := 0
	for _, r := range e.Excerpt {
		if n >= col-1 {
			break
		}
		switch {
		case r == '\t':
			b.WriteByte('\t')
		case isWide(r):
			b.WriteString("  ")
		default:
			b.WriteByte(' ')
		}
		n++
	}
	for ; n < col-1; n++ {
		b.WriteByte(' ')
	}
	b.WriteByte('^')
	return b.String()
}

// Unwrap returns the error class (ErrSyntax, ErrUnsupported or
// ErrUndefinedVariable).
func (e *Error) Unwrap() error { return e.Err }

// isWide reports whether r takes two columns in a terminal: CJK ideographs,
// kana, Hangul and fullwidth forms (an approximation of Unicode's East Asian
// Width property that covers the common cases).
func isWide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r >= 0xFF01 && r <= 0xFF60 || r >= 0xFFE0 && r <= 0xFFE6 || r >= 0x3000 && r <= 0x303F
}
