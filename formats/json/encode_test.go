package json

import (
	"math/rand/v2"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// appendStringBytewise is appendString as it was before it skipped eight
// plain bytes at a time: the reference its fast path must agree with.
func appendStringBytewise(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0xF0 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if size == 4 {
				dst = append(dst, s[start:i]...)
				r1, r2 := utf16.EncodeRune(r)
				dst = appendU(appendU(dst, r1), r2)
				i += size - 1
				start = i + 1
			}
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// TestAppendStringWords checks appendString against the byte-by-byte
// reference on strings of every length up to 40 mixing plain ASCII with
// each kind of byte the eight-byte skip must stop at (quote, backslash,
// control characters, DEL, non-ASCII of 2 to 4 bytes, invalid UTF-8) at
// every position.
func TestAppendStringWords(t *testing.T) {
	special := []string{`"`, `\`, "\x00", "\x1f", "\n", " ", "\x7f", "é", "€", "😀", "\xf0", "\xff", "!", "~", "#", "[", "]"}
	r := rand.New(rand.NewPCG(5, 5))
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 300; trial++ {
			b := make([]byte, 0, n+4)
			for len(b) < n {
				if r.IntN(6) == 0 {
					b = append(b, special[r.IntN(len(special))]...)
				} else {
					b = append(b, byte(' '+r.IntN(95)))
				}
			}
			s := string(b)
			if got, want := appendString(nil, s), appendStringBytewise(nil, s); string(got) != string(want) {
				t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
			}
		}
	}
	for c := 0; c < 256; c++ {
		for at := 0; at < 16; at++ {
			b := []byte("abcdefghijklmnopqrstuvw")
			b[at] = byte(c)
			if got, want := appendString(nil, string(b)), appendStringBytewise(nil, string(b)); string(got) != string(want) {
				t.Fatalf("appendString(%q) = %s, want %s", b, got, want)
			}
		}
	}
}
