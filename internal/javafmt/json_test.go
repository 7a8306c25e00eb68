package javafmt

import (
	"strings"
	"testing"
)

func TestJSONString(t *testing.T) {
	for in, want := range map[string]string{
		``:                  `""`,
		`plain é 😀`:         `"plain é 😀"`,
		`a"b\c`:             `"a\"b\\c"`,
		"\n\t\r\b\f":        `"\n\t\r\b\f"`,
		"\x00\x01\x1f\x7f/": `"\u0000\u0001\u001F` + "\x7f" + `/"`,
	} {
		var b strings.Builder
		JSONString(&b, in)
		if b.String() != want {
			t.Errorf("JSONString(%q) = %s, want %s", in, b.String(), want)
		}
	}
}
