package json

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/streamsql/streamsql/formats/internal/text"
)

// errSyntax marks malformed JSON: the record cannot be parsed further.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

var errUnexpectedEnd = errors.New("unexpected end of JSON input")

// scanner walks JSON bytes. It never allocates except to unescape strings.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) fail(msg string) error {
	return &syntaxError{off: s.pos, msg: msg}
}

func (s *scanner) ws() {
	// Records rarely hold whitespace between tokens: one test when there
	// is none.
	if s.pos < len(s.data) && s.data[s.pos] > ' ' {
		return
	}
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		if c := s.data[s.pos]; c > ' ' {
			return c
		}
	}
	s.ws()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		if s.pos >= len(s.data) {
			return s.fail("unexpected end of JSON input, expected '" + string(c) + "'")
		}
		return s.fail("expected '" + string(c) + "', found '" + string(s.data[s.pos]) + "'")
	}
	s.pos++
	return nil
}

// literal consumes an exact word such as true.
func (s *scanner) literal(w string) error {
	if len(s.data)-s.pos < len(w) || string(s.data[s.pos:s.pos+len(w)]) != w {
		return s.fail("invalid literal, expected " + w)
	}
	s.pos += len(w)
	return nil
}

// str scans a string whose opening quote is at pos. It returns the raw
// content bounds and whether it contains escapes. Escapes are checked
// (one of \" \\ \/ \b \f \n \r \t, or \u and four hex digits), so that a
// string skipped unread is as well-formed as one read.
func (s *scanner) str() (start, end int, escaped bool, err error) {
	s.pos++ // opening quote
	start = s.pos
	d := s.data
	i := s.pos
	for {
		// Sixteen, then eight bytes at a time to the first quote,
		// backslash or control character (most of a string's bytes are
		// none); byte by byte in the last seven.
		for i+16 <= len(d) {
			w := d[i : i+16]
			if m := special8(binary.LittleEndian.Uint64(w)); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			if m := special8(binary.LittleEndian.Uint64(w[8:])); m != 0 {
				i += 8 + bits.TrailingZeros64(m)>>3
				goto found
			}
			i += 16
		}
		if i+8 <= len(d) {
			if m := special8(binary.LittleEndian.Uint64(d[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			i += 8
		}
		for i < len(d) {
			if c := d[i]; c == '"' || c == '\\' || c < 0x20 {
				goto found
			}
			i++
		}
		s.pos = i
		return 0, 0, false, s.fail("unterminated string")
	found:
		switch d[i] {
		case '"':
			s.pos = i + 1
			return start, i, escaped, nil
		case '\\':
			escaped = true
			if i+1 < len(d) {
				switch d[i+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					i += 2
					continue
				}
			}
			if n := escapeLen(d[i+1:]); n > 0 {
				i += 1 + n
				continue
			}
			if i+1 >= len(d) {
				s.pos = len(d)
				return 0, 0, false, s.fail("unterminated string")
			}
			s.pos = i
			return 0, 0, false, s.fail("invalid escape in string")
		default:
			s.pos = i
			return 0, 0, false, s.fail("control character in string")
		}
	}
}

// escapeLen returns the length of the escape that b starts with (after
// its backslash): 1, 5 for \u and four hex digits, or 0 when b starts
// with no valid escape.
func escapeLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1
	case 'u':
		if _, ok := hex4(b[1:]); ok {
			return 5
		}
	}
	return 0
}

// special8 returns a mask with the high bit of the first byte of x (in
// little-endian order) that is '"', '\\' or below 0x20 set, and maybe
// high bits of later bytes; 0 if there is none. Flipping bit 1 of every
// byte maps '"' (0x22) to 0x20 and the bytes below 0x20 among themselves,
// and nothing else below 0x21, so one less-than test finds both quotes
// and control characters; a zero test finds backslashes. (The SWAR tests
// may flag bytes after the first match, never before it, and never a byte
// at or above 0x80; so the lowest bit set marks the first match.)
func special8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * 0x02)
	bslash := x ^ (ones * '\\')
	return ((q-ones*0x21)&^q | (bslash-ones)&^bslash) & highs
}

// number scans a JSON number at pos and returns its bounds.
func (s *scanner) number() (int, int, error) {
	start := s.pos
	d := s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	digits := i
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	if i == digits {
		s.pos = i
		return 0, 0, s.fail("invalid number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		f := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == f {
			s.pos = i
			return 0, 0, s.fail("invalid number")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		f := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == f {
			s.pos = i
			return 0, 0, s.fail("invalid number")
		}
	}
	s.pos = i
	return start, i, nil
}

// skip skips one value of any kind.
func (s *scanner) skip() error {
	// Strings and numbers, the usual skipped values, directly.
	switch c := s.peek(); {
	case c == '"':
		_, _, _, err := s.str()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		if s.skipShortInt() {
			return nil
		}
		_, _, err := s.number()
		return err
	}
	return s.skipDepth(0)
}

// skipShortInt moves past a number at pos of one to seven digits after
// an optional '-', followed by neither a fraction nor an exponent, found
// in one word without a branch per digit (number would end it at the
// same byte). Otherwise it reports false and leaves pos alone.
func (s *scanner) skipShortInt() bool {
	d := s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i+8 > len(d) {
		return false
	}
	n := digits8(binary.LittleEndian.Uint64(d[i:]))
	if n == 0 || n == 8 {
		return false
	}
	if c := d[i+n]; c == '.' || c == 'e' || c == 'E' {
		return false
	}
	s.pos = i + n
	return true
}

// plainInt reads an integer at pos written as an optional '-' and at most
// 18 digits (so it fits an int64), not followed by a fraction or exponent,
// that lies in [lo, hi]. Otherwise it reports false and leaves pos alone:
// the caller then takes the general path, which also makes the errors.
func (s *scanner) plainInt(lo, hi int64) (int64, bool) {
	d := s.data
	i := s.pos
	neg := i < len(d) && d[i] == '-'
	if neg {
		i++
	}
	if i+8 <= len(d) {
		// The usual integer, of one to seven digits, from one word and
		// without a branch per digit.
		x := binary.LittleEndian.Uint64(d[i:])
		if n := digits8(x); n > 0 && n < 8 {
			if c := d[i+n]; c == '.' || c == 'e' || c == 'E' {
				return 0, false
			}
			u := int64(digitsValue(x, n))
			if neg {
				u = -u
			}
			if u < lo || u > hi {
				return 0, false
			}
			s.pos = i + n
			return u, true
		}
	}
	return s.plainIntFrom(i, neg, lo, hi)
}

// digits8 returns how many of x's bytes, in little-endian order, are
// ASCII digits before the first that is not (8: all of them).
func digits8(x uint64) int {
	const hiNibbles, loNibbles, highs = 0xF0F0F0F0F0F0F0F0, 0x0F0F0F0F0F0F0F0F, 0x8080808080808080
	// A byte is a digit when its high nibble is 3 and its low nibble
	// plus 6 does not carry out of the nibble (at most 0x15: never into
	// the next byte).
	nd := (x&hiNibbles ^ 0x3030303030303030) | ((x&loNibbles)+0x0606060606060606)&hiNibbles
	// The bytes of nd that are not 0, exactly (no carry between bytes).
	m := ((nd &^ highs) + ^uint64(highs) | nd) & highs
	return bits.TrailingZeros64(m) >> 3
}

// digitsValue returns the value of the decimal digits in the first n
// (1 to 7) bytes of x, in little-endian order, the first the most
// significant.
func digitsValue(x uint64, n int) uint64 {
	// The digits' values, moved to the last n bytes behind leading zeros:
	// eight digits, then combined pairwise (SWAR).
	v := (x - 0x3030303030303030) & (1<<(8*uint(n)) - 1) << (8 * uint(8-n))
	v = v*10 + v>>8
	v = ((v&0x000000FF000000FF)*(100+1000000<<32) + (v>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
	return v
}

// plainIntFrom is plainInt's byte-by-byte loop from i, after the sign.
func (s *scanner) plainIntFrom(i int, neg bool, lo, hi int64) (int64, bool) {
	d := s.data
	start := i
	var u int64
	for i < len(d) && i-start < 19 {
		c := d[i] - '0'
		if c > 9 {
			break
		}
		u = u*10 + int64(c)
		i++
	}
	if n := i - start; n == 0 || n > 18 {
		return 0, false
	}
	if i < len(d) {
		if c := d[i]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	if neg {
		u = -u
	}
	if u < lo || u > hi {
		return 0, false
	}
	s.pos = i
	return u, true
}

func (s *scanner) skipDepth(depth int) error {
	if depth > 1000 {
		return s.fail("JSON nested too deeply")
	}
	switch c := s.peek(); c {
	case '{':
		s.pos++
		if s.peek() == '}' {
			s.pos++
			return nil
		}
		for {
			if s.peek() != '"' {
				return s.fail("expected a field name")
			}
			if _, _, _, err := s.str(); err != nil {
				return err
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			if err := s.skipDepth(depth + 1); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.pos++
			case '}':
				s.pos++
				return nil
			default:
				return s.fail("expected ',' or '}' in object")
			}
		}
	case '[':
		s.pos++
		if s.peek() == ']' {
			s.pos++
			return nil
		}
		for {
			if err := s.skipDepth(depth + 1); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.pos++
			case ']':
				s.pos++
				return nil
			default:
				return s.fail("expected ',' or ']' in array")
			}
		}
	case '"':
		_, _, _, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	case 0:
		return s.fail(errUnexpectedEnd.Error())
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			_, _, err := s.number()
			return err
		}
		return s.fail("invalid character '" + string(c) + "' looking for a value")
	}
}

// plainFloat reads a number at pos written as an optional '-', digits and
// an optional fraction, without exponent, whose digits make an integer
// below 2^53 and whose fraction has at most 22 digits, as
// text.ExactDecimal reads them: correctly rounded, as strconv.ParseFloat
// gives. Otherwise it reports false and leaves pos alone.
func (s *scanner) plainFloat() (float64, bool) {
	d := s.data
	i := s.pos
	neg := i < len(d) && d[i] == '-'
	if neg {
		i++
	}
	var m uint64
	start := i
	for i < len(d) && d[i]-'0' <= 9 && m < 1<<53/10 {
		m = m*10 + uint64(d[i]-'0')
		i++
	}
	if i == start {
		return 0, false
	}
	frac := 0
	if i < len(d) && d[i] == '.' {
		i++
		f := i
		for i < len(d) && d[i]-'0' <= 9 && m < 1<<53/10 {
			m = m*10 + uint64(d[i]-'0')
			i++
		}
		frac = i - f
		if frac == 0 {
			return 0, false
		}
	}
	if i < len(d) {
		if c := d[i]; c-'0' <= 9 || c == 'e' || c == 'E' || c == '.' {
			return 0, false // more digits than m holds, or an exponent
		}
	}
	v, ok := text.ExactDecimal(m, frac, neg)
	if ok {
		s.pos = i
	}
	return v, ok
}

// unescape appends the unescaped content of a string with escapes.
func unescape(dst, raw []byte) ([]byte, bool) {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			// The run up to the next backslash, at once.
			j := bytes.IndexByte(raw[i:], '\\')
			if j < 0 {
				return append(dst, raw[i:]...), true
			}
			dst = append(dst, raw[i:i+j]...)
			i += j
		}
		i++
		if i >= len(raw) {
			return dst, false
		}
		switch raw[i] {
		case '"', '\\', '/':
			dst = append(dst, raw[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(raw[i+1:])
			if !ok {
				return dst, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if r2, ok := hex4(raw[i+3:]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							dst = utf8.AppendRune(dst, dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, false
		}
	}
	return dst, true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
