package json

import (
	"bytes"
	"encoding/binary"
	stdjson "encoding/json"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/formats/internal/text"
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

// TestKeyAt checks the word comparison of field keys against
// bytes.HasPrefix: names of 1 to 20 bytes, followed by 0 to 20 bytes, with
// each byte of the key changed in turn.
func TestKeyAt(t *testing.T) {
	for l := 1; l <= 20; l++ {
		n, err := compile(strings.Repeat("k", l-1)+"z", "", types.BigInt())
		if err != nil {
			t.Fatal(err)
		}
		for tail := 0; tail <= 20; tail++ {
			data := append(append([]byte(`{`), n.match...), strings.Repeat("7", tail)...)
			if !n.keyAt(data, 1) {
				t.Fatalf("key of %d bytes with %d after it: not found", l, tail)
			}
			for i := 1; i < len(data); i++ {
				changed := append([]byte(nil), data...)
				changed[i] ^= 0x40
				want := bytes.HasPrefix(changed[1:], n.match)
				if got := n.keyAt(changed, 1); got != want {
					t.Fatalf("%q: keyAt %v, want %v", changed, got, want)
				}
			}
		}
	}
}

// plainIntRef is plainInt by its byte-by-byte loop alone.
func plainIntRef(data []byte, lo, hi int64) (int64, bool, int) {
	s := scanner{data: data}
	neg := len(data) > 0 && data[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	v, ok := s.plainIntFrom(i, neg, lo, hi)
	return v, ok, s.pos
}

func checkPlainInt(t *testing.T, data []byte) {
	t.Helper()
	if len(data) > 0 && (data[0] == '-' || data[0]-'0' <= 9) {
		// skipShortInt ends a number where number does, or leaves it
		// to number.
		s, ref := scanner{data: data}, scanner{data: data}
		_, end, err := ref.number()
		if s.skipShortInt() && (err != nil || s.pos != end) {
			t.Fatalf("%q: skipShortInt ends at %d, number at %d (err %v)", data, s.pos, end, err)
		}
	}
	for _, r := range [][2]int64{{math.MinInt64, math.MaxInt64}, {-128, 127}, {0, 0}} {
		s := scanner{data: data}
		v, ok := s.plainInt(r[0], r[1])
		wv, wok, wpos := plainIntRef(data, r[0], r[1])
		if v != wv || ok != wok || (ok && s.pos != wpos) {
			t.Fatalf("%q in [%d, %d]: plainInt %d %v at %d, byte by byte %d %v at %d", data, r[0], r[1], v, ok, s.pos, wv, wok, wpos)
		}
	}
}

// TestPlainInt checks plainInt's word-at-a-time path against its
// byte-by-byte loop: every length of digits with every kind of byte after
// them, signs, and random numbers.
func TestPlainInt(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 20; n++ {
		for _, after := range []string{"", ",", "}", ".5", "e3", "E", "x", " ", "0123456789", ",\"k\":1}"} {
			for _, sign := range []string{"", "-"} {
				digits := make([]byte, n)
				for i := range digits {
					digits[i] = byte('0' + r.IntN(10))
				}
				checkPlainInt(t, []byte(sign+string(digits)+after))
			}
		}
	}
	for range 200_000 {
		b := []byte(strconv.FormatInt(r.Int64N(1<<uint(r.IntN(62)+1)), 10))
		if r.IntN(2) == 0 {
			b = append([]byte{'-'}, b...)
		}
		for range r.IntN(10) {
			b = append(b, byte(r.IntN(256)))
		}
		checkPlainInt(t, b)
	}
}

// FuzzPlainInt compares plainInt with its byte-by-byte loop, and
// skipShortInt with number.
func FuzzPlainInt(f *testing.F) {
	for _, s := range []string{"1234567,", "-12345678}", "0", "99999999999", "12.5", "1e5", "-", "0x12", "-1234567,", "12345678", "1234567e", "0.5}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkPlainInt(t, b) })
}

// keepStringRef is keepString's two-pass way alone: str, then keep or
// keepUnescaped (what the decoder did before the one pass).
func keepStringRef(d *decoder) (string, error) {
	s := &d.s
	start, end, esc, err := s.str()
	if err != nil {
		return "", err
	}
	if !esc {
		return d.keep(s.data[start:end]), nil
	}
	v, ok := d.keepUnescaped(s.data[start:end])
	if !ok {
		return "", &syntaxError{off: start, msg: "invalid escape in string"}
	}
	return v, nil
}

// checkKeepString compares keepString with keepStringRef on data (a
// string's opening quote at 0), the arena having room bytes free: the
// same string, scanner position and error (message and offset), and the
// strings kept before it unchanged.
func checkKeepString(t *testing.T, data []byte, room int) {
	t.Helper()
	room = room % (arenaChunk + 1)
	setup := func() *decoder {
		d := &decoder{s: scanner{data: data}}
		d.arena = make([]byte, arenaChunk-room, arenaChunk)
		for i := range d.arena {
			d.arena[i] = 'k'
		}
		return d
	}
	got, want := setup(), setup()
	kept := text.UnsafeString(got.arena)
	gv, gerr := got.keepString()
	wv, werr := keepStringRef(want)
	if gv != wv || got.s.pos != want.s.pos || (gerr == nil) != (werr == nil) ||
		gerr != nil && (gerr.Error() != werr.Error() || gerr.(*syntaxError).off != werr.(*syntaxError).off) {
		t.Fatalf("%q with %d bytes free: one pass %q at %d (err %v), two passes %q at %d (err %v)",
			data, room, gv, got.s.pos, gerr, wv, want.s.pos, werr)
	}
	if strings.Trim(kept, "k") != "" {
		t.Fatalf("%q with %d bytes free: the arena's earlier strings changed", data, room)
	}
}

// TestKeepString checks keepString's one pass against the two-pass way:
// escapes, quotes and control characters at every offset of the
// eight-byte steps, strings near the arena's end and past arenaMax, and
// random strings.
func TestKeepString(t *testing.T) {
	var cases []string
	for n := range 20 {
		pre := strings.Repeat("é", n/2) + strings.Repeat("a", n%2)
		for _, tail := range []string{``, `\"x`, `\\`, `\/`, `\b\f\n\r\t`, `\u00e9z`, `\u0000`, `\ud83d\ude00`, `\udc00`,
			`\uZZZZ`, `\x`, `\`, `\u12`, "\x01", "\x1f"} {
			cases = append(cases, `"`+pre+tail+`"`, `"`+pre+tail, `"`+pre+tail+`","next":"x"}`)
		}
	}
	cases = append(cases, `"`+strings.Repeat("a", arenaMax-1)+`"`, `"`+strings.Repeat("a", arenaMax)+`"`,
		`"`+strings.Repeat("a", arenaMax+1)+`"`, `"`+strings.Repeat(`\\`, arenaMax)+`"`, `""`, `"`)
	for _, c := range cases {
		for _, room := range []int{0, 1, 7, 8, 9, keepMin - 1, keepMin, keepMin + 1, keepMin + 5, 100, arenaMax, arenaChunk} {
			checkKeepString(t, []byte(c), room)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte("ab\"\\/bfnrtu0123456789abcdefABCDEF\x00\x1f é")
	for range 20_000 {
		b := []byte{'"'}
		for range r.IntN(60) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		checkKeepString(t, b, r.IntN(arenaChunk+1))
	}
}

// FuzzKeepString compares keepString's one pass with the two-pass way.
func FuzzKeepString(f *testing.F) {
	for _, s := range []string{`abc"`, `a\"b"`, `\u00e9\\"`, "a\x01b\"", `\x"`, `\u12"`, `12345678\"90123456\\"`, `\ud83d\ude00"`, `abc`} {
		f.Add([]byte(s), uint16(100))
		f.Add([]byte(s), uint16(keepMin))
	}
	f.Fuzz(func(t *testing.T, b []byte, room uint16) {
		checkKeepString(t, append([]byte{'"'}, b...), int(room))
	})
}
