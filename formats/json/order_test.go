package json

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/text"
	"github.com/streamsql/streamsql/types"
)

// orderFields is a schema with two nested ROWs of different widths (so
// that, recycled, one's fields take the memory of the other's), for the
// tests of row's in-order loop against rowFrom.
var orderFields = []types.Field{
	{Name: "a", Type: types.BigInt()}, {Name: "b", Type: types.String()},
	{Name: "r", Type: types.RowType(
		types.Field{Name: "x", Type: types.Int()}, types.Field{Name: "y", Type: types.String()},
		types.Field{Name: "z", Type: types.TimestampType(3)}, types.Field{Name: "w", Type: types.Double()})},
	{Name: "c", Type: types.Double()}, {Name: "e", Type: types.Boolean()},
	{Name: "s", Type: types.RowType(
		types.Field{Name: "p", Type: types.String()}, types.Field{Name: "q", Type: types.BigInt()},
		types.Field{Name: "t", Type: types.Int()})},
}

// orderDecoders returns two decoders of orderFields with the options kv,
// reading the fields read and rows mark: one as the decoder runs, one
// that sends every object through rowFrom (keys in any order).
func orderDecoders(t testing.TB, read []bool, rows []*factory.RowRead, kv ...string) (*decoder, *decoder) {
	t.Helper()
	f, err := resolve(t, kv...)
	if err != nil {
		t.Fatal(err)
	}
	var ds [2]*decoder
	for i := range ds {
		d, err := f.NewNestedDecoder(orderFields, read, rows, nil)
		if err != nil {
			t.Fatal(err)
		}
		ds[i] = d.(*decoder)
	}
	ds[1].anyOrder = true
	return ds[0], ds[1]
}

// orderValues are JSON values for each field of orderFields (and of r's),
// the usual ones first, then ones of the wrong kind or malformed.
var orderValues = map[string][]string{
	"a": {`12`, `-7`, `null`, `"34"`, `1.5`, `"x"`, `[1]`, `1e`},
	"b": {`"bee"`, `"a\"b\\c"`, `null`, `12`, `{"k":1}`, `"\u00e9`, `"x` + "\x01" + `"`},
	"x": {`5`, `null`, `"6"`, `true`, `-`},
	"y": {`"why"`, `"\n"`, `null`, `7`},
	"z": {`"2026-12-07 10:11:12.123"`, `null`, `"bad"`, `"2026-12-07T10:11:12"`},
	"w": {`2.5`, `null`, `-0.125`, `"3"`, `[]`},
	"c": {`1.25`, `null`, `3`, `"x"`},
	"e": {`true`, `false`, `null`, `"true"`, `tru`},
	"r": {`null`, `{}`, `"x"`, `[1]`, `{"x":1`},
	"p": {`"pea"`, `null`, `1`},
	"q": {`123456789012`, `null`, `"9"`},
	"t": {`-3`, `null`, `[]`},
	"s": {`null`, `{}`, `1`},
	"u": {`1`, `"unknown"`, `{"r":{"x":1}}`, `[1,{"a":2}]`, `null`},
}

// orderObject writes a random object of names: mostly in order with
// plain keys, sometimes shuffled, with fields left out, repeated,
// unknown or escaped keys, spaces, and now and then a malformed end.
func orderObject(r *rand.Rand, b *bytes.Buffer, names []string, inner func(k string)) {
	keys := append([]string(nil), names...)
	if r.IntN(4) == 0 {
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	}
	var out []string
	for _, k := range keys {
		switch r.IntN(16) {
		case 0: // left out
			continue
		case 1:
			out = append(out, k, k)
		case 2:
			out = append(out, "u", k)
		default:
			out = append(out, k)
		}
	}
	if r.IntN(8) == 0 {
		out = append(out, "u")
	}
	sp := func() {
		if r.IntN(10) == 0 {
			b.WriteString(" \n")
		}
	}
	b.WriteByte('{')
	for i, k := range out {
		if i > 0 {
			b.WriteByte(',')
		}
		sp()
		switch {
		case r.IntN(12) == 0:
			fmt.Fprintf(b, `"\u%04x%s"`, k[0], k[1:]) // an escaped key
		default:
			b.WriteString(`"` + k + `"`)
		}
		sp()
		b.WriteByte(':')
		sp()
		if (k == "r" || k == "s") && r.IntN(5) != 0 {
			inner(k)
		} else {
			vs := orderValues[k]
			if r.IntN(4) == 0 {
				b.WriteString(vs[r.IntN(len(vs))])
			} else {
				b.WriteString(vs[r.IntN(min(2, len(vs)))])
			}
		}
		sp()
	}
	switch r.IntN(40) {
	case 0:
		b.WriteByte(',') // a trailing comma
	case 1:
		b.WriteString(`,"`)
	}
	b.WriteByte('}')
}

// checkOrder decodes data with both decoders into rows reused from the
// records before, after recycling their nested values when recycle is
// set (so a field left NULL must be written NULL), and compares the
// errors and the rows.
func checkOrder(t *testing.T, inOrder, anyOrder *decoder, enc factory.Encoder, rows *[2]types.Row, data []byte, recycle bool) {
	t.Helper()
	if recycle {
		inOrder.RecycleValues()
		anyOrder.RecycleValues()
	}
	e1 := inOrder.Decode(data, &rows[0])
	e2 := anyOrder.Decode(data, &rows[1])
	if (e1 == nil) != (e2 == nil) || e1 != nil && e1.Error() != e2.Error() {
		t.Fatalf("%s: in order: %v; any order: %v", data, e1, e2)
	}
	if e1 != nil {
		return
	}
	o1, err := enc.Encode(nil, rows[0])
	if err != nil {
		t.Fatal(err)
	}
	o2, _ := enc.Encode(nil, rows[1])
	if !bytes.Equal(o1, o2) {
		t.Fatalf("%s:\nin order  %s\nany order %s", data, o1, o2)
	}
}

// TestRowInOrderAgreesWithAnyOrder checks row's loop over keys in schema
// order against rowFrom's keys in any order, on random objects that
// leave the schema's order at every point, with every field read and
// with some unread, and with fail-on-missing-field and
// ignore-parse-errors.
func TestRowInOrderAgreesWithAnyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	top := []string{"a", "b", "r", "c", "e", "s"}
	nested := map[string][]string{"r": {"x", "y", "z", "w"}, "s": {"p", "q", "t"}}
	for _, read := range []struct {
		top  []bool
		rows []*factory.RowRead
	}{
		{nil, nil},
		{[]bool{true, false, true, false, true, true}, []*factory.RowRead{nil, nil, {Fields: []bool{false, true, true, false}}, nil, nil, {Fields: []bool{true, false, true}}}},
		{[]bool{false, true, true, true, false, true}, []*factory.RowRead{nil, nil, {Fields: []bool{true, false, false, true}}, nil, nil, {Fields: []bool{false, true, false}}}},
	} {
		for _, kv := range [][]string{nil, {"fail-on-missing-field", "true"}, {"ignore-parse-errors", "true"}} {
			inOrder, anyOrder := orderDecoders(t, read.top, read.rows, kv...)
			_, enc := codecs(t, orderFields)
			var rows [2]types.Row
			var b bytes.Buffer
			for i := range 4_000 {
				b.Reset()
				orderObject(r, &b, top, func(k string) { orderObject(r, &b, nested[k], nil) })
				checkOrder(t, inOrder, anyOrder, enc, &rows, b.Bytes(), i%3 == 0)
			}
		}
	}
}

// FuzzRowOrder compares row's in-order loop with rowFrom on any input.
func FuzzRowOrder(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":"x","r":{"x":1,"y":"y","z":"2026-12-07 10:11:12","w":1.5},"c":2.5,"e":true}`,
		`{"a":1,"r":{"y":"y","x":1},"b":"x"}`, `{"a":1,"a":2,"b":"x","u":1}`, `{"a":1,}`, `{}`,
		`{"a":1,"b":"x","r":null,"c":2.5,"e":true,"a":3}`, `{"\u0061":1,"b":"x"}`, `{ "a" : 1 , "b" : "x" }`, `{"r":{"x":1,"y":"y"},"s":{"p":"p","q":1,"t":2}}`,
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	var decs [2][2]*decoder
	decs[0][0], decs[0][1] = orderDecoders(f, nil, nil, "fail-on-missing-field", "true")
	decs[1][0], decs[1][1] = orderDecoders(f, []bool{true, false, true, false, true, true},
		[]*factory.RowRead{nil, nil, {Fields: []bool{false, true, true, false}}, nil, nil, {Fields: []bool{true, false, true}}})
	_, enc := codecs(f, orderFields)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		d := decs[which%2]
		var rows [2]types.Row
		checkOrder(t, d[0], d[1], enc, &rows, data, true)
		// And again into the rows the first decode filled, without
		// recycling, then with.
		checkOrder(t, d[0], d[1], enc, &rows, data, false)
		checkOrder(t, d[0], d[1], enc, &rows, bytes.Replace(data, []byte(`"r"`), []byte(`"s"`), 1), true)
	})
}

// TestTimestampOfRememberedMinute decodes a TIMESTAMP field through
// records of one minute (read by the memory's Quoted, without scanning
// the string first) mixed with escaped, malformed and other minutes'
// ones, in both standards, each compared with text.ParseTimestamp of the
// string's content (or its failure).
func TestTimestampOfRememberedMinute(t *testing.T) {
	fields := []types.Field{{Name: "ts", Type: types.TimestampType(3)}, {Name: "n", Type: types.Int()}}
	for _, std := range []struct {
		name string
		sep  byte
	}{{"SQL", ' '}, {"ISO-8601", 'T'}} {
		dec, _ := codecs(t, fields, "timestamp-format.standard", std.name)
		m := func(s string) string { return strings.ReplaceAll(s, "_", string(std.sep)) }
		for _, c := range []struct{ raw, content string }{
			{m(`2026-12-07_10:11:12`), m(`2026-12-07_10:11:12`)},
			{m(`2026-12-07_10:11:13.5`), m(`2026-12-07_10:11:13.5`)},
			{m(`2026-12-07_10:11:14.123456789`), m(`2026-12-07_10:11:14.123456789`)},
			{m(`2026-12-07_10:11:1\u0035`), m(`2026-12-07_10:11:15`)},
			{m(`2026-12-07_10:11\u003a16`), m(`2026-12-07_10:11:16`)},
			{m(`2026-12-07_10:11:60`), m(`2026-12-07_10:11:60`)},
			{m(`2026-12-07_10:11:17.`), m(`2026-12-07_10:11:17.`)},
			{m(`2026-12-07_10:11:17.1234567891`), m(`2026-12-07_10:11:17.1234567891`)},
			{m(`2026-12-07_10:11:18`) + `x`, m(`2026-12-07_10:11:18`) + `x`},
			{m(`2026-12-07_10:12:00`), m(`2026-12-07_10:12:00`)},
			{m(`2026-12-07_10:11:19`), m(`2026-12-07_10:11:19`)},
			{`2026-12-07 10:11:20`, `2026-12-07 10:11:20`},
		} {
			rec := []byte(`{"ts":"` + c.raw + `","n":1}`)
			var row types.Row
			err := dec.Decode(rec, &row)
			want, werr := text.ParseTimestamp([]byte(c.content), std.sep, false)
			if (err == nil) != (werr == nil) || err == nil && row.Fields[0].Timestamp() != want {
				t.Fatalf("%s %s: decoded %v (err %v), ParseTimestamp %v (err %v)", std.name, rec, row.Fields, err, want, werr)
			}
			if err == nil && row.Fields[1].Int64() != 1 {
				t.Fatalf("%s %s: the field after it is %v", std.name, rec, row.Fields[1])
			}
		}
	}
}
