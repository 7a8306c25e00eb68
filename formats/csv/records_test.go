package csv

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// scannerOptions are the option sets the scanner tests and fuzz target use.
var scannerOptions = []map[string]string{
	{},
	{"quote-character": "'", "escape-character": "\\", "allow-comments": "true"},
	{"escape-character": "\\", "field-delimiter": "|"},
	{"disable-quote-character": "true", "escape-character": "\\"},
	{"field-delimiter": "\t", "quote-character": "'", "allow-comments": "true"},
}

func newScanner(t testing.TB, opts map[string]string) *RecordScanner {
	t.Helper()
	f, err := resolve(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newRecordScanner(f.Options)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// records splits data into records, feeding the scanner chunks of at most
// chunk bytes, and returns each record's bytes, its content (without the
// terminator) and whether the input ended inside quotes.
func records(s *RecordScanner, data []byte, chunk int) (recs, contents [][]byte, open bool) {
	start := 0
	s.Reset()
	for pos := 0; pos < len(data); {
		end := min(pos+chunk, len(data))
		n, done := s.Feed(data[pos:end])
		pos += n
		if done {
			recs = append(recs, data[start:pos])
			contents = append(contents, data[start:pos-s.Terminator()])
			start = pos
			s.Reset()
		}
	}
	if start < len(data) {
		recs = append(recs, data[start:])
		contents = append(contents, data[start:])
		open = s.Open()
	}
	return recs, contents, open
}

func TestRecordScanner(t *testing.T) {
	cases := []struct {
		opts map[string]string
		in   string
		want []string // contents
		open bool
	}{
		{nil, "a,b\nc,d", []string{"a,b", "c,d"}, false},
		{nil, "\"a\nb\",1\r\n2,\"c\r\nd\"\r\n", []string{"\"a\nb\",1", "2,\"c\r\nd\""}, false},
		{nil, "\"a\"\"\nb\",1\n", []string{"\"a\"\"\nb\",1"}, false},
		{nil, "x\"y\nz\n", []string{"x\"y", "z"}, false},     // a quote inside an unquoted field
		{nil, "\"a\"x\ny\n", []string{"\"a\"x", "y"}, false}, // text after a closing quote
		{nil, "\n\r\n", []string{"", ""}, false},
		{nil, "1,\"a\nb", []string{"1,\"a\nb"}, true},
		{nil, "#c \"\n1\n", []string{"#c \"", "1"}, false},
		{nil, "#c,\"\n1\n", []string{"#c,\"\n1\n"}, true},
		{map[string]string{"allow-comments": "true"}, "#c \"\n1\n", []string{"#c \"", "1"}, false},
		{map[string]string{"allow-comments": "true"}, "1,\"\n#x\"\n", []string{"1,\"\n#x\""}, false},
		{map[string]string{"escape-character": "\\"}, "a\\\nb\n\"c\\\"\n\"\n", []string{"a\\\nb", "\"c\\\"\n\""}, false},
		{map[string]string{"escape-character": "\\"}, "a\\\r\n", []string{"a\\\r"}, false},
		{map[string]string{"quote-character": "'"}, "'a\n\"',\"b\n", []string{"'a\n\"',\"b"}, false},
		{map[string]string{"disable-quote-character": "true"}, "\"a\nb\"\n", []string{"\"a", "b\""}, false},
		{map[string]string{"field-delimiter": "|"}, "a,\"b\n|\"c\nd\"\n", []string{"a,\"b", "|\"c\nd\""}, false},
	}
	for _, c := range cases {
		s := newScanner(t, c.opts)
		for _, chunk := range []int{1, 2, 3, 1 << 20} {
			recs, contents, open := records(s, []byte(c.in), chunk)
			var got []string
			for _, b := range contents {
				got = append(got, string(b))
			}
			if !slices.Equal(got, c.want) || open != c.open {
				t.Errorf("%v %q (chunks of %d): records %q, open %v; want %q, open %v", c.opts, c.in, chunk, got, open, c.want, c.open)
			}
			if !bytes.Equal(bytes.Join(recs, nil), []byte(c.in)) {
				t.Errorf("%v %q: records do not add up to the input", c.opts, c.in)
			}
		}
	}
}

// FuzzRecordScanner checks the scanner against the encoder and decoder:
// rows of fuzzed STRING values, encoded one per line, split back into the
// same records, which decode to the same rows, whatever the chunking; and on
// arbitrary input, the records add up to the input and every record but the
// last ends with a line feed, and a record the decoder reads as complete is
// never one the scanner thinks is inside quotes.
func FuzzRecordScanner(f *testing.F) {
	for _, s := range [][]byte{[]byte("a\nb"), []byte("\"x\"\r\n\""), []byte("#c\n\\\n"), []byte("'\n'"), []byte("|\r\r\n")} {
		f.Add(s, []byte("\n\"\n"), uint8(0), uint8(3))
	}
	fields := []types.Field{{Name: "a", Type: types.String()}, {Name: "b", Type: types.String()}}
	type codec struct {
		s   *RecordScanner
		dec interface {
			Decode([]byte, *types.Row) error
		}
		enc interface {
			Encode([]byte, types.Row) ([]byte, error)
		}
		quoting bool
	}
	var cs []codec
	for _, o := range scannerOptions {
		dec, enc := codecs(f, fields, o)
		cs = append(cs, codec{s: newScanner(f, o), dec: dec, enc: enc, quoting: o["disable-quote-character"] != "true"})
	}
	f.Fuzz(func(t *testing.T, a, b []byte, opt, chunk uint8) {
		c := cs[int(opt)%len(cs)]
		size := int(chunk)%7 + 1

		// Arbitrary input.
		in := slices.Concat(a, b) // a and b may share an array
		recs, _, _ := records(c.s, in, size)
		if !bytes.Equal(bytes.Join(recs, nil), in) {
			t.Fatalf("records %q do not add up to the input", recs)
		}
		for i, r := range recs {
			if i < len(recs)-1 && (len(r) == 0 || r[len(r)-1] != '\n') {
				t.Fatalf("record %d %q does not end with a line feed", i, r)
			}
		}

		// Encoded rows read back, when the format quotes line breaks.
		if !c.quoting {
			return
		}
		rows := []types.Row{
			{Fields: []types.Value{types.Str(string(a)), types.Str(string(b))}},
			{Fields: []types.Value{types.Str(string(b)), types.Value{}}},
			{Fields: []types.Value{types.Str(string(a)), types.Str(string(a))}},
		}
		var file []byte
		for _, r := range rows {
			var err error
			if file, err = c.enc.Encode(file, r); err != nil {
				t.Fatal(err)
			}
			file = append(file, '\n')
		}
		recs, contents, open := records(c.s, file, size)
		if open || len(recs) != len(rows) {
			t.Fatalf("encoded %q: %d records %q (open %v), want %d", file, len(recs), recs, open, len(rows))
		}
		for i, content := range contents {
			var got types.Row
			if err := c.dec.Decode(content, &got); err != nil {
				if errors.Is(err, ErrUnterminatedQuote) {
					t.Fatalf("record %q: %v", content, err)
				}
				// The row's own content may not decode (a comment
				// record, an empty line); the split is what is checked.
				continue
			}
			for j, v := range got.Fields {
				if g, w := str(v), str(rows[i].Fields[j]); g != w {
					t.Fatalf("record %q field %d: %q, want %q", content, j, g, w)
				}
			}
		}
	})
}

// str is a STRING value's text, "" for NULL (written as an empty field).
func str(v types.Value) string {
	if v.IsNull() {
		return ""
	}
	return v.Str()
}
