package state

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestStringDict: rows in the dictionary's form decode to the values
// written, expand to exactly what AppendRow writes (also through a cut
// taken before later values entered), and compact back from it; a value
// enters on its third sighting and is then a reference, short, long,
// binary and nested strings stay inline, text of a narrow alphabet is
// packed in six bits a byte, and a reference past the dictionary is
// corrupt.
func TestStringDict(t *testing.T) {
	typs := []types.Type{types.BigInt(), types.String(), types.Char(8), types.Bytes(), types.String(),
		types.Array(types.String()), types.String(), types.String()}
	pool := []string{"channel-1", "https://www.example.com/a_b/c/d/item.htm?query=1", "Google", "Baidu"}
	rnd := rand.New(rand.NewPCG(1, 2))
	// Nexmark's extra: 'a' and the 25 characters either side of it, of
	// every length around packMinLen and beyond the RowReader's chunk
	// strings; a seventh of them one character too wide to be packed.
	text := func(i int) string {
		b := make([]byte, i%(2*rowReaderMax))
		for j := range b {
			b[j] = byte('a' - 25 + rnd.IntN(51))
		}
		switch {
		case len(b) < 2:
		case i%7 == 0:
			b[0], b[len(b)-1] = 'z', 'z'-64 // 65 values: inline
		case i%7 == 1:
			b[0], b[len(b)-1] = 'z', 'z'-63 // 64 values: packed
		}
		return string(b)
	}
	row := func(i int) []types.Value {
		p := pool[rnd.IntN(len(pool))]
		var nullable types.Value
		if i%3 != 0 {
			nullable = types.Str(pool[rnd.IntN(len(pool))])
		}
		return []types.Value{types.Int64(int64(i)), types.Str(p), types.Str("abc"), types.BytesValue([]byte(p)),
			nullable, types.List([]types.Value{types.Str(p)}), types.Str(fmt.Sprintf("unique-%d-%s", i, strings.Repeat("x", i%300))), types.Str(text(i))}
	}
	d := NewStringDict()
	var rows [][]types.Value
	var encs [][]byte
	var cut DictCut
	cutAt := 0
	for i := range 400 {
		r := row(i)
		enc := d.AppendRow(nil, r, typs)
		rows, encs = append(rows, r), append(encs, enc)
		if i == 200 {
			cut, cutAt = d.Cut(), i+1
		}
	}
	if d.Len() != len(pool) {
		t.Fatalf("the dictionary holds %d values, want the %d that recur", d.Len(), len(pool))
	}
	var rr RowReader
	for i, enc := range encs {
		got, rest, err := d.ReadRow(&rr, enc, typs, nil)
		if err != nil || len(rest) != 0 {
			t.Fatalf("row %d: %v, %d bytes left", i, err, len(rest))
		}
		if !reflect.DeepEqual(got, rows[i]) {
			t.Fatalf("row %d reads %v, want %v", i, got, rows[i])
		}
		plain := AppendRow(nil, rows[i], typs)
		exp, rest, err := d.Cut().ExpandRow(nil, enc, typs)
		if err != nil || len(rest) != 0 || !bytes.Equal(exp, plain) {
			t.Fatalf("row %d expands to %x (%v), want %x", i, exp, err, plain)
		}
		if i < cutAt {
			if exp, _, err := cut.ExpandRow(nil, enc, typs); err != nil || !bytes.Equal(exp, plain) {
				t.Fatalf("row %d through the earlier cut: %x (%v), want %x", i, exp, err, plain)
			}
		}
		back, rest, err := d.CompactRow(nil, plain, typs)
		if err != nil || len(rest) != 0 {
			t.Fatalf("row %d compacts: %v", i, err)
		}
		if got, _, err := d.ReadRow(nil, back, typs, nil); err != nil || !reflect.DeepEqual(got, rows[i]) {
			t.Fatalf("row %d compacted reads %v (%v), want %v", i, got, err, rows[i])
		}
		if i > 40 && len(enc) >= len(plain) {
			t.Fatalf("row %d: %d bytes in the dictionary's form, %d plain", i, len(enc), len(plain))
		}
	}
	// A reference past the cut's values.
	late := NewStringDict()
	c0 := late.Cut()
	r := []types.Value{types.Int64(1), types.Str("Google"), types.Str("abc"), types.BytesValue(nil), types.Value{}, types.List(nil), types.Str("Google"), types.Str("")}
	late.AppendRow(nil, r, typs)
	enc := late.AppendRow(nil, r, typs)
	if _, _, err := c0.ExpandRow(nil, enc, typs); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a reference past the cut: %v, want ErrCorrupt", err)
	}
	if _, _, err := NewStringDict().ReadRow(nil, enc, typs, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a reference past the dictionary: %v, want ErrCorrupt", err)
	}
	// 40 bytes of 64 values take 30 packed, after the NULL bits, the
	// kind and length (2 bytes) and the base.
	wide := []byte(strings.Repeat("abcdefgh", 5))
	wide[3], wide[9] = 'z', 'z'-63
	if enc := d.AppendRow(nil, []types.Value{types.Str(string(wide))}, []types.Type{types.String()}); len(enc) != 1+2+1+30 {
		t.Errorf("40 bytes of 64 values: %d bytes in the dictionary's form, want 34", len(enc))
	}
	// A string of the fourth kind, a packed one with a base past 192 (its
	// bytes would run past 255), and one cut short.
	one := []types.Type{types.String()}
	for _, c := range []struct {
		enc  []byte
		want error
	}{{[]byte{0, 3}, ErrCorrupt}, {append([]byte{0, 16<<2 | 2, 200}, make([]byte, 12)...), ErrCorrupt},
		{append([]byte{0, 16<<2 | 2, 'a'}, make([]byte, 11)...), errTruncated}} {
		if _, _, err := d.ReadRow(nil, c.enc, one, nil); !errors.Is(err, c.want) {
			t.Errorf("ReadRow(%x): %v, want %v", c.enc, err, c.want)
		}
		if _, _, err := d.Cut().ExpandRow(nil, c.enc, one); !errors.Is(err, c.want) {
			t.Errorf("ExpandRow(%x): %v, want %v", c.enc, err, c.want)
		}
	}
}

// TestStringDictBounded: values seen only twice do not enter the
// dictionary, and it stops growing at its bound.
func TestStringDictBounded(t *testing.T) {
	typs := []types.Type{types.String()}
	d := NewStringDict()
	for i := range 100_000 {
		v := []types.Value{types.Str(fmt.Sprintf("twice-%d", i))}
		d.AppendRow(nil, v, typs)
		d.AppendRow(nil, v, typs)
	}
	if d.Len() != 0 {
		t.Fatalf("%d values seen twice entered", d.Len())
	}
	for i := range dictMaxEntries + 1000 {
		v := []types.Value{types.Str(fmt.Sprintf("thrice-%d", i))}
		d.AppendRow(nil, v, typs)
		d.AppendRow(nil, v, typs)
		d.AppendRow(nil, v, typs)
	}
	if d.Len() != dictMaxEntries {
		t.Fatalf("%d values, want the bound %d", d.Len(), dictMaxEntries)
	}
}
