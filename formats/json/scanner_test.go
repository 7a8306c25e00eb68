package json

import (
	"encoding/binary"
	stdjson "encoding/json"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestSpecial8 checks the eight-byte test of the string scanner against a
// byte-by-byte one: every byte value at every position among ordinary
// bytes, and random words. The lowest bit of its mask must mark the first
// special byte (8: none).
func TestSpecial8(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	want := func(b []byte) int {
		for i, c := range b {
			if special(c) {
				return i
			}
		}
		return 8
	}
	first := func(x uint64) int { return bits.TrailingZeros64(special8(x)) >> 3 }
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 8)
	for pos := range 8 {
		for c := range 256 {
			for i := range b {
				b[i] = byte(0x20 + r.IntN(0xe0))
				for special(b[i]) {
					b[i] = byte(0x20 + r.IntN(0xe0))
				}
			}
			b[pos] = byte(c)
			if got := first(binary.LittleEndian.Uint64(b)); got != want(b) {
				t.Fatalf("special8(%q) marks byte %d first, want %d", b, got, want(b))
			}
		}
	}
	for range 1_000_000 {
		x := r.Uint64()
		binary.LittleEndian.PutUint64(b, x)
		if got := first(x); got != want(b) {
			t.Fatalf("special8(%q) marks byte %d first, want %d", b, got, want(b))
		}
	}
}

// TestStringScanAtEveryPosition decodes strings whose quote, escape or
// control character falls at every offset of the eight-byte steps.
func TestStringScanAtEveryPosition(t *testing.T) {
	dec, _ := codecs(t, benchFields[1:2]) // customer STRING
	for n := range 20 {
		pre := strings.Repeat("é", n/2) + strings.Repeat("a", n%2)
		for _, c := range []struct{ raw, want string }{
			{pre, pre}, {pre + `\"x`, pre + `"x`}, {pre + `\\`, pre + `\`}, {pre + `\u00e9z`, pre + "éz"},
		} {
			var row = make([]byte, 0, 64)
			row = append(row, `{"customer":"`...)
			row = append(row, c.raw...)
			row = append(row, `"}`...)
			var out types.Row
			if err := dec.Decode(row, &out); err != nil {
				t.Fatalf("%s: %v", row, err)
			}
			if got := out.Fields[0].Str(); got != c.want {
				t.Fatalf("%s: got %q, want %q", row, got, c.want)
			}
		}
		bad := []byte(`{"customer":"` + pre + "\x01" + `"}`)
		var out types.Row
		if err := dec.Decode(bad, &out); err == nil || !strings.Contains(err.Error(), "control character") {
			t.Fatalf("%q: err %v, want a control character error", bad, err)
		}
	}
}

// FuzzScanString checks the string scanner against encoding/json: the
// content b between two quotes scans to the closing quote exactly when
// encoding/json finds the string valid.
func FuzzScanString(f *testing.F) {
	for _, s := range []string{`abc`, `a\"b`, `\u00e9\\`, "a\x01b", `\x`, `\u12`, `12345678\"90123456\\`, `a"b`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		data := append(append([]byte{'"'}, b...), '"')
		s := scanner{data: data}
		_, end, _, err := s.str()
		got := err == nil && end == len(data)-1
		if want := stdjson.Valid(data); got != want {
			t.Fatalf("%q: scanned to the closing quote %v (err %v, end %d), encoding/json valid %v", data, got, err, end, want)
		}
	})
}
