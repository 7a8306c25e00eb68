package ddl

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF       tokKind = iota
	tIdent             // unquoted identifier or keyword; val as written
	tQIdent            // `quoted` identifier; val unescaped
	tString            // 'string'; val unescaped
	tBinary            // X'0A1B'; val is the hex digits
	tNumber            // 12, 1.5, .5, 1e3
	tOp                // punctuation and operators; val is the operator
	tHintStart         // "/*+"
	tHintEnd           // the "*/" that closes a hint
	tIllegal           // a lexical error; val is the message
)

// token is one lexical token. Offsets are in the substituted text.
type token struct {
	kind     tokKind
	val      string
	off, end int
}

// lex splits text into tokens. It never fails: a lexical error becomes a
// tIllegal token that the parser reports when it reaches it, so that
// free-form text (the value of the Flink 1.13 form SET k = v) survives.
func lex(text string) []token {
	var toks []token
	inHint := false
	i := 0
	if strings.HasPrefix(text, "\uFEFF") {
		i = len("\uFEFF") // a byte order mark written by some editors
	}
	emit := func(k tokKind, val string, start, end int) {
		toks = append(toks, token{kind: k, val: val, off: start, end: end})
	}
	for i < len(text) {
		c := text[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				i = len(text)
			} else {
				i += j + 1
			}
		case c == '/' && strings.HasPrefix(text[i:], "/*+") && !inHint:
			inHint = true
			i += 3
			emit(tHintStart, "/*+", start, i)
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				emit(tIllegal, "unterminated comment: missing '*/'", start, len(text))
				i = len(text)
			} else {
				i += j + 4
			}
		case c == '*' && inHint && strings.HasPrefix(text[i:], "*/"):
			inHint = false
			i += 2
			emit(tHintEnd, "*/", start, i)
		case c == '\'':
			val, end, ok := lexQuoted(text, i, '\'')
			if !ok {
				emit(tIllegal, "unterminated string literal: missing closing quote", start, len(text))
				i = len(text)
				break
			}
			i = end
			emit(tString, val, start, end)
		case c == '`':
			val, end, ok := lexQuoted(text, i, c)
			if !ok {
				emit(tIllegal, "unterminated quoted identifier: missing closing `", start, len(text))
				i = len(text)
				break
			}
			i = end
			if val == "" {
				emit(tIllegal, "empty quoted identifier", start, end)
				break
			}
			emit(tQIdent, val, start, end)
		case c == '"':
			_, end, _ := lexQuoted(text, i, c)
			i = end
			emit(tIllegal, "double quotes are not used in Flink SQL: write 'text' for a string or `name` for an identifier", start, end)
		case (c == 'u' || c == 'U') && strings.HasPrefix(text[i+1:], "&'"):
			raw, end, ok := lexQuoted(text, i+2, '\'')
			if !ok {
				emit(tIllegal, "unterminated string literal: missing closing quote", start, len(text))
				i = len(text)
				break
			}
			i = end
			val, msg := unicodeUnescape(raw)
			if msg != "" {
				emit(tIllegal, msg, start, end)
				break
			}
			emit(tString, val, start, end)
		case (c == 'x' || c == 'X') && i+1 < len(text) && text[i+1] == '\'':
			val, end, ok := lexQuoted(text, i+1, '\'')
			if !ok {
				emit(tIllegal, "unterminated binary literal: missing closing quote", start, len(text))
				i = len(text)
				break
			}
			i = end
			emit(tBinary, val, start, end)
		case isDigit(c) || (c == '.' && i+1 < len(text) && isDigit(text[i+1])):
			i = lexNumber(text, i)
			emit(tNumber, text[start:i], start, i)
		case c == '_' || c < utf8.RuneSelf && unicode.IsLetter(rune(c)) || c >= utf8.RuneSelf && isLetterAt(text, i):
			for i < len(text) {
				d := text[i]
				if d == '_' || d == '$' || isDigit(d) || d < utf8.RuneSelf && unicode.IsLetter(rune(d)) {
					i++
					continue
				}
				if d >= utf8.RuneSelf && isLetterAt(text, i) {
					_, n := utf8.DecodeRuneInString(text[i:])
					i += n
					continue
				}
				break
			}
			emit(tIdent, text[start:i], start, i)
		default:
			if op := lexOp(text[i:]); op != "" {
				i += len(op)
				emit(tOp, op, start, i)
				break
			}
			r, n := utf8.DecodeRuneInString(text[i:])
			i += n
			emit(tIllegal, "unexpected character "+quoteRune(r), start, i)
		}
	}
	toks = append(toks, token{kind: tEOF, off: len(text), end: len(text)})
	return toks
}

func quoteRune(r rune) string {
	if r == utf8.RuneError {
		return "(invalid UTF-8)"
	}
	if unicode.IsPrint(r) {
		return "'" + string(r) + "'"
	}
	return fmt.Sprintf("U+%04X", r)
}

func isLetterAt(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return r != utf8.RuneError && unicode.IsLetter(r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexQuoted reads a literal quoted by q starting at text[i] == q, where a
// doubled quote stands for one. It returns the unescaped value and the
// offset after the closing quote.
func lexQuoted(text string, i int, q byte) (string, int, bool) {
	i++
	start := i
	var b *strings.Builder
	for i < len(text) {
		c := text[i]
		if c != q {
			i++
			continue
		}
		if i+1 < len(text) && text[i+1] == q {
			if b == nil {
				b = &strings.Builder{}
			}
			b.WriteString(text[start : i+1])
			i += 2
			start = i
			continue
		}
		if b == nil {
			return text[start:i], i + 1, true
		}
		b.WriteString(text[start:i])
		return b.String(), i + 1, true
	}
	return "", len(text), false
}

func lexNumber(text string, i int) int {
	for i < len(text) && isDigit(text[i]) {
		i++
	}
	if i < len(text) && text[i] == '.' {
		i++
		for i < len(text) && isDigit(text[i]) {
			i++
		}
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		j := i + 1
		if j < len(text) && (text[j] == '+' || text[j] == '-') {
			j++
		}
		if j < len(text) && isDigit(text[j]) {
			for j < len(text) && isDigit(text[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

var ops = []string{"<>", "!=", "<=", ">=", "||", "=>", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ";", ".", "[", "]", ":", "?", "{", "}"}

func lexOp(s string) string {
	for _, op := range ops {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

// unicodeUnescape decodes the body of a U&'...' literal: \XXXX and
// \+XXXXXX are code points in hex, \\ is a backslash. It returns a message
// when an escape is malformed.
func unicodeUnescape(s string) (string, string) {
	if !strings.Contains(s, "\\") {
		return s, ""
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 4
		j := i + 1
		switch {
		case strings.HasPrefix(s[j:], "\\"):
			b.WriteByte('\\')
			i += 2
			continue
		case strings.HasPrefix(s[j:], "+"):
			n, j = 6, j+1
		}
		if j+n > len(s) {
			return "", "invalid escape in U&'' literal: expected \\XXXX, \\+XXXXXX or \\\\"
		}
		cp, err := strconv.ParseUint(s[j:j+n], 16, 32)
		if err != nil || cp > unicode.MaxRune || cp >= 0xD800 && cp <= 0xDFFF {
			return "", "invalid escape in U&'' literal: \\" + s[i+1:j+n] + " is not a Unicode code point in hex"
		}
		b.WriteRune(rune(cp))
		i = j + n
	}
	return b.String(), ""
}
