package csv

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/streamsql/streamsql/types"
)

// plainField is the per-byte definition of a quoted field (Jackson's
// CsvEncoder): quoted when it has a character below minSafe, the quote or
// the escape character, or is longer than maxQuoteCheck UTF-16 code units;
// inside quotes the quote and the escape character are written twice.
func plainField(e *encoder, dst, s []byte) []byte {
	units := 0
	for rest := s; len(rest) > 0; {
		r, size := utf8.DecodeRune(rest)
		rest = rest[size:]
		units++
		if r > 0xFFFF {
			units++
		}
	}
	quote := e.cfg.quote >= 0 && len(s) > 0 && units > maxQuoteCheck
	for _, c := range s {
		if int(c) < e.minSafe || int(c) == e.cfg.quote || (e.cfg.escape >= 0 && int(c) == e.cfg.escape) {
			quote = true
		}
	}
	if e.cfg.quote < 0 || !quote {
		return append(dst, s...)
	}
	dst = append(dst, byte(e.cfg.quote))
	for _, c := range s {
		if int(c) == e.cfg.quote || (e.cfg.escape >= 0 && int(c) == e.cfg.escape) {
			dst = append(dst, c)
		}
		dst = append(dst, c)
	}
	return append(dst, byte(e.cfg.quote))
}

// TestFieldAgreesWithPlain checks the encoder's quoting (runs appended
// whole, the length check stopping early) against plainField on random
// strings of quotes, escapes, delimiters, line breaks and one- to
// four-byte characters (and bytes that are not UTF-8) around the lengths
// where the quoting rule changes, for several quote and escape settings,
// through field and through Encode's CHAR/VARCHAR path.
func TestFieldAgreesWithPlain(t *testing.T) {
	alphabet := []string{"a", "b", " ", `"`, "'", `\`, ",", "|", "\t", "\n", "é", "€", "😀", "\xff", "\x80"}
	configs := []config{
		{delim: ',', quote: '"', escape: -1},
		{delim: ',', quote: '"', escape: '\\'},
		{delim: '|', quote: '\'', escape: '\\'},
		{delim: '\t', quote: '"', escape: '"'},
		{delim: ',', quote: -1, escape: -1},
		{delim: ';', quote: '\\', escape: '\''},
	}
	fields := []types.Field{{Name: "s", Type: types.Type{Kind: types.KindVarChar}},
		{Name: "c", Type: types.Type{Kind: types.KindChar}}, {Name: "i", Type: types.Type{Kind: types.KindInt}}}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range configs {
		c.nullLit = ""
		e := &encoder{cfg: c, fields: fields, minSafe: max(int(c.delim), c.quote, '\n') + 1}
		for range 20000 {
			var s []byte
			n := rng.IntN(40)
			plain := rng.IntN(3) == 0 // mostly letters: long runs between doubled characters
			wide := rng.IntN(3) == 0  // no character that forces quotes: the length decides
			for range n {
				if wide {
					s = append(s, []string{"a", "é", "€", "€", "😀"}[rng.IntN(5)]...)
					continue
				}
				if plain && rng.IntN(10) > 0 {
					s = append(s, 'a'+byte(rng.IntN(26)))
					continue
				}
				s = append(s, alphabet[rng.IntN(len(alphabet))]...)
			}
			prefix := []byte("x,")
			got := e.field(append([]byte(nil), prefix...), s)
			want := plainField(e, append([]byte(nil), prefix...), s)
			if string(got) != string(want) {
				t.Fatalf("config %+v, %q:\n got %q\nwant %q", c, s, got, want)
			}
			row := types.Row{Fields: []types.Value{types.Str(string(s)), types.Str(string(s)), types.Int64(7)}}
			enc, err := e.Encode(nil, row)
			if err != nil {
				t.Fatal(err)
			}
			want = plainField(e, nil, s)
			want = append(append(want, c.delim), plainField(e, nil, s)...)
			want = append(append(want, c.delim), strconv.Itoa(7)...)
			if string(enc) != string(want) {
				t.Fatalf("config %+v, Encode %q:\n got %q\nwant %q", c, s, enc, want)
			}
		}
	}
}
