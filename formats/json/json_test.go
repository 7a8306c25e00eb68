package json

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

var formatOpt = factory.FormatOption("format").Required()

// resolve validates json.* options through a throwaway connector and
// returns the resolved format, exactly as a connector sees it.
func resolve(t testing.TB, kv ...string) (*factory.Format, error) {
	t.Helper()
	r := factory.NewRegistry()
	r.MustRegisterFormat(Factory())
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "t", Options: []option.Option{formatOpt},
		NewSink: func(factory.Context) (connector.Sink, error) { return nil, nil }})
	opts := map[string]string{"connector": "t", "format": "json"}
	for i := 0; i < len(kv); i += 2 {
		opts["json."+kv[i]] = kv[i+1]
	}
	v, err := r.Validate(factory.Table{Name: "t", Options: opts})
	if err != nil {
		return nil, err
	}
	return formatOpt.Get(v.Config), nil
}

func codecs(t testing.TB, fields []types.Field, kv ...string) (factory.Decoder, factory.Encoder) {
	t.Helper()
	f, err := resolve(t, kv...)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := f.NewDecoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := f.NewEncoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	return dec, enc
}

func allFields() []types.Field {
	var fs []types.Field
	for i, ty := range append(formattest.ScalarTypes(), formattest.NestedTypes()...) {
		fs = append(fs, types.Field{Name: "f" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Type: ty})
	}
	return fs
}

func TestRoundTripEveryType(t *testing.T) {
	fields := allFields()
	for _, opts := range [][]string{
		nil,
		{"timestamp-format.standard", "ISO-8601", "encode.decimal-as-plain-number", "true"},
		{"encode.ignore-null-fields", "true"},
	} {
		dec, enc := codecs(t, fields, opts...)
		r := rand.New(rand.NewPCG(1, uint64(len(opts))))
		var row types.Row
		for i := 0; i < 2000; i++ {
			in := types.NewRow(len(fields))
			for j, f := range fields {
				in.Fields[j] = formattest.Value(r, f.Type, formattest.Limits{TimeWholeSeconds: true}, 0)
			}
			data, err := enc.Encode(nil, in)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if err := dec.Decode(data, &row); err != nil {
				t.Fatalf("decode %s: %v", data, err)
			}
			for j, f := range fields {
				if !formattest.Equal(f.Type, in.Fields[j], row.Fields[j]) {
					t.Fatalf("opts %v field %s %s: wrote %s, read %s\njson: %s", opts, f.Name, f.Type,
						formattest.Show(f.Type, in.Fields[j]), formattest.Show(f.Type, row.Fields[j]), data)
				}
			}
		}
	}
}

func TestDecodedValuesDoNotAliasInput(t *testing.T) {
	fields := []types.Field{{Name: "s", Type: types.String()}, {Name: "b", Type: types.Bytes()}}
	dec, _ := codecs(t, fields)
	data := []byte(`{"s":"hello","b":"AQI="}`)
	var row types.Row
	if err := dec.Decode(data, &row); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'x'
	}
	if row.Fields[0].Str() != "hello" || string(row.Fields[1].Bytes()) != "\x01\x02" {
		t.Fatalf("values changed with the input buffer: %q %q", row.Fields[0].Str(), row.Fields[1].Bytes())
	}
}

// TestDecodedStringsStayValid: strings of many rows, decoded one after the
// other from one reused buffer (so across the decoder's string chunks, and
// past arenaMax), keep their values while later records are decoded,
// whether plain, escaped, map keys or the JSON text of a non-string value.
func TestDecodedStringsStayValid(t *testing.T) {
	fields := []types.Field{
		{Name: "s", Type: types.String()}, {Name: "e", Type: types.String()},
		{Name: "m", Type: types.Map(types.String(), types.Int())}, {Name: "j", Type: types.String()},
		{Name: "long", Type: types.String()},
	}
	dec, _ := codecs(t, fields)
	const n = 3000
	rows := make([]types.Row, n)
	var buf []byte
	want := func(i int) (s, e, k, j, long string) {
		return fmt.Sprintf("s-%d", i), fmt.Sprintf("e\"%d\n", i), fmt.Sprintf("k%d", i),
			fmt.Sprintf(`{"a":[%d,true]}`, i), strings.Repeat(string(rune('a'+i%26)), arenaMax+i%3)
	}
	for i := range rows {
		s, _, k, _, long := want(i)
		buf = fmt.Appendf(buf[:0], `{"s":%q,"e":"e\"%d\n","m":{%q:%d},"j":{ "a" : [ %d, true ] },"long":%q}`,
			s, i, k, i, i, long)
		if err := dec.Decode(buf, &rows[i]); err != nil {
			t.Fatalf("record %d %s: %v", i, buf, err)
		}
		clear(buf)
	}
	for i, row := range rows {
		s, e, k, j, long := want(i)
		m := row.Fields[2].Map()
		if got := row.Fields[0].Str(); got != s {
			t.Fatalf("row %d: s is %q, want %q", i, got, s)
		}
		if got := row.Fields[1].Str(); got != e {
			t.Fatalf("row %d: e is %q, want %q", i, got, e)
		}
		if len(m.Keys) != 1 || m.Keys[0].Str() != k || m.Values[0].Int64() != int64(i) {
			t.Fatalf("row %d: m is %v, want {%s: %d}", i, row.Fields[2], k, i)
		}
		if got := row.Fields[3].Str(); got != j {
			t.Fatalf("row %d: j is %q, want %q", i, got, j)
		}
		if got := row.Fields[4].Str(); got != long {
			t.Fatalf("row %d: long is %q, want %q", i, got, long)
		}
	}
}

// TestDecodeKeysAndPlainIntegers covers the decoder's fast paths and
// where they hand over to the general one: keys written exactly as the
// next field's name are taken without a string scan, other spellings of
// a key still find their field; integers of up to 18 digits are parsed in
// one pass, longer ones, fractions, exponents and values out of the
// column's range take the general path with its errors.
func TestDecodeKeysAndPlainIntegers(t *testing.T) {
	fields := []types.Field{
		{Name: "id", Type: types.BigInt()}, {Name: "t", Type: types.TinyInt()},
		{Name: `q"k`, Type: types.Int()}, {Name: "idx", Type: types.SmallInt()},
	}
	dec, _ := codecs(t, fields)
	for _, c := range []struct {
		in   string
		want []int64 // -1: NULL
		err  string  // part of the error; "" for none
	}{
		{in: `{"id":1,"t":2,"q\"k":3,"idx":4}`, want: []int64{1, 2, 3, 4}},
		{in: `{"idx":4,"id":1}`, want: []int64{1, -1, -1, 4}},
		{in: `{"id" : 5 , "t":-6}`, want: []int64{5, -6, -1, -1}},
		{in: `{"\u0069d":7,"i\u0064x":8}`, want: []int64{7, -1, -1, 8}},
		{in: `{"id":007,"t":-0}`, want: []int64{7, 0, -1, -1}},
		{in: `{"id":999999999999999999}`, want: []int64{999999999999999999, -1, -1, -1}},
		{in: `{"id":-999999999999999999}`, want: []int64{-999999999999999999, -1, -1, -1}},
		{in: `{"id":9223372036854775807}`, want: []int64{math.MaxInt64, -1, -1, -1}},
		{in: `{"id":-9223372036854775808}`, want: []int64{math.MinInt64, -1, -1, -1}},
		{in: `{"id":00000000000000000000001}`, want: []int64{1, -1, -1, -1}},
		{in: `{"t":127,"idx":-32768}`, want: []int64{-1, 127, -1, -32768}},
		{in: `{"t":-128}`, want: []int64{-1, -128, -1, -1}},
		{in: `{"id":9223372036854775808}`, err: "9223372036854775808 is not a valid BIGINT"},
		{in: `{"t":128}`, err: "128 is not a valid TINYINT"},
		{in: `{"t":-129}`, err: "-129 is not a valid TINYINT"},
		{in: `{"id":1.0}`, err: "1.0 is not a valid BIGINT"},
		{in: `{"id":1e2}`, err: "1e2 is not a valid BIGINT"},
		{in: `{"id":-}`, err: "invalid number"},
		{in: `{"id":12a}`, err: "expected ',' or '}' in object"},
		{in: `{"id":1`, err: "expected ',' or '}' in object"},
		{in: `{"id":`, err: "unexpected end of JSON input"},
		{in: `{"id"`, err: "expected ':'"},
		{in: `{"id":1,"id`, err: "unterminated string"},
	} {
		var row types.Row
		err := dec.Decode([]byte(c.in), &row)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		for i, w := range c.want {
			if v := row.Fields[i]; (w == -1) != v.IsNull() || (w != -1 && v.Int64() != w) {
				t.Errorf("%s: field %s is %v, want %d", c.in, fields[i].Name, v, w)
			}
		}
	}
}

// TestDecodeBooleans: true and false take the fast path; quoted, NULL and
// malformed values the general one, with its errors.
func TestDecodeBooleans(t *testing.T) {
	dec, _ := codecs(t, []types.Field{{Name: "b", Type: types.Boolean()}})
	for _, c := range []struct{ in, want, err string }{
		{in: `true`, want: "true"}, {in: `false`, want: "false"}, {in: ` true `, want: "true"},
		{in: `"TRUE"`, want: "true"}, {in: `"no"`, want: "false"}, {in: `null`, want: "NULL"},
		{in: `tru`, err: "invalid literal, expected true"}, {in: `fals`, err: "invalid literal, expected false"},
		{in: `truex`, err: "expected ',' or '}' in object"}, {in: `1`, err: "expected a boolean, found a number"},
	} {
		var row types.Row
		err := dec.Decode([]byte(`{"b":`+c.in+`}`), &row)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		got := "NULL"
		if !row.Fields[0].IsNull() {
			got = strconv.FormatBool(row.Fields[0].Bool())
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
}

// TestDecodePlainDoubles: a DOUBLE written as plain digits with a
// fraction is read in one pass; every value must equal strconv's
// (bit for bit: the fast path is exact), and what it cannot read (long
// mantissas, exponents, malformed numbers) takes the general path.
func TestDecodePlainDoubles(t *testing.T) {
	dec, _ := codecs(t, []types.Field{{Name: "d", Type: types.Double()}})
	r := rand.New(rand.NewPCG(5, 6))
	var nums []string
	for range 20000 {
		digits := 1 + r.IntN(19)
		var b []byte
		if r.IntN(4) == 0 {
			b = append(b, '-')
		}
		for j := range digits {
			b = append(b, byte('0'+r.IntN(10)))
			if j == digits-1-r.IntN(digits) && j < digits-1 && !strings.Contains(string(b), ".") {
				b = append(b, '.')
			}
		}
		nums = append(nums, string(b))
	}
	nums = append(nums, "0", "-0", "-0.0", "0.000", "01.50", "9007199254740991", "9007199254740993",
		"4503599627370497.5", "0.1", "1.7976931348623157", "123456789012345678901234567890",
		"0.0000000000000000000001", "0.00000000000000000000001", "1e5", "-2.5E-3", "1.5e+300")
	var row types.Row
	for _, n := range nums {
		want, err := strconv.ParseFloat(n, 64)
		if err != nil {
			t.Fatal(err)
		}
		if err := dec.Decode([]byte(`{"d":`+n+`}`), &row); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if got := row.Fields[0].Float64(); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: got %v, want %v", n, got, want)
		}
	}
	for _, bad := range []string{"1.", "-", "1.e5", "-.5", ".5", "1.5.", "1e"} {
		if err := dec.Decode([]byte(`{"d":`+bad+`}`), &row); err == nil {
			t.Errorf("%s: decoded as %v, want an error", bad, row.Fields[0])
		}
	}
}

func TestDecodeFlinkLeniency(t *testing.T) {
	fields := []types.Field{
		{Name: "i", Type: types.Int()}, {Name: "b", Type: types.Boolean()}, {Name: "d", Type: types.Double()},
		{Name: "s", Type: types.String()}, {Name: "dec", Type: types.DecimalType(5, 2)}, {Name: "t", Type: types.Time(3)},
	}
	dec, _ := codecs(t, fields)
	var row types.Row
	in := `{"extra":{"x":[1,2]},"i":" 42 ","b":"TRUE","d":"NaN","s":{"a": 1},"dec":"1.005","t":"10:11:12.5"}`
	if err := dec.Decode([]byte(in), &row); err != nil {
		t.Fatal(err)
	}
	if row.Fields[0].Int64() != 42 || !row.Fields[1].Bool() || !math.IsNaN(row.Fields[2].Float64()) {
		t.Errorf("quoted scalars: %v", row.Fields)
	}
	if row.Fields[3].Str() != `{"a":1}` {
		t.Errorf("non-string for STRING kept as JSON text: %q", row.Fields[3].Str())
	}
	if row.Fields[4].Decimal().String() != "1.01" {
		t.Errorf("decimal rounds half-up to the column scale: %s", row.Fields[4].Decimal())
	}
	if row.Fields[5].Time() != ((10*60+11)*60+12)*1e9+5e8 {
		t.Errorf("time %d", row.Fields[5].Time())
	}
	// Missing fields are NULL; a reused row is cleared.
	if err := dec.Decode([]byte(`{"i":1}`), &row); err != nil {
		t.Fatal(err)
	}
	for j := 1; j < len(fields); j++ {
		if !row.Fields[j].IsNull() {
			t.Errorf("field %d not NULL after reuse", j)
		}
	}
}

func TestDecodeErrorsNameFieldAndOffset(t *testing.T) {
	fields := []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "r", Type: types.RowType(types.Field{Name: "ts", Type: types.TimestampType(3)})}, {Name: "dec", Type: types.DecimalType(3, 1)}}
	dec, _ := codecs(t, fields)
	cases := []struct {
		in     string
		field  string
		offset int
	}{
		{`{"id":"x"}`, "id", 6},
		{`{"id":1.5}`, "id", 6},
		{`{"id":99999999999999999999}`, "id", 6},
		{`{"id":1, "r":{"ts":"2020-01-01T00:00:00"}}`, "r.ts", 19},
		{`{"dec":123.4}`, "dec", 7},
		{`{"id":[1]}`, "id", 6},
		{`{"id":1,}`, "", 8},
		{`{"id":1`, "", 7},
		{`[1]`, "", 0},
		{`{"id":1} x`, "", 9},
		{`{"id":tru}`, "", 6},
		{`{"id":"\x"}`, "", 7},
	}
	var row types.Row
	for _, tc := range cases {
		err := dec.Decode([]byte(tc.in), &row)
		var de *factory.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%s: got %v", tc.in, err)
			continue
		}
		if de.Field != tc.field || de.Offset != tc.offset {
			t.Errorf("%s: field %q offset %d, want %q %d (%v)", tc.in, de.Field, de.Offset, tc.field, tc.offset, err)
		}
	}
}

func TestIgnoreParseErrorsAndFailOnMissing(t *testing.T) {
	fields := []types.Field{{Name: "a", Type: types.Int()}, {Name: "b", Type: types.String()}}
	dec, _ := codecs(t, fields, "ignore-parse-errors", "true")
	var row types.Row
	if err := dec.Decode([]byte(`{"a":"nope","b":"ok"}`), &row); err != nil {
		t.Fatal(err)
	}
	if !row.Fields[0].IsNull() || row.Fields[1].Str() != "ok" {
		t.Errorf("bad field should be NULL: %v", row.Fields)
	}
	if err := dec.Decode([]byte(`{"a":`), &row); !errors.Is(err, factory.ErrSkipRecord) {
		t.Errorf("malformed record should be skipped: %v", err)
	}
	dec, _ = codecs(t, fields, "fail-on-missing-field", "true")
	err := dec.Decode([]byte(`{"a":1}`), &row)
	var de *factory.DecodeError
	if !errors.As(err, &de) || de.Field != "b" {
		t.Errorf("missing field: %v", err)
	}
	_, err = resolve(t, "fail-on-missing-field", "true", "ignore-parse-errors", "true")
	var re *option.RuleError
	if !errors.As(err, &re) {
		t.Errorf("both true: %v", err)
	}
	for _, in := range []string{"null", "", " \n"} {
		if err := dec.Decode([]byte(in), &row); !errors.Is(err, factory.ErrSkipRecord) {
			t.Errorf("%q: want a skipped record as in Flink, got %v", in, err)
		}
	}
}

func TestEncodeLikeFlink(t *testing.T) {
	fields := []types.Field{
		{Name: "d", Type: types.DecimalType(10, 8)}, {Name: "f", Type: types.Double()}, {Name: "g", Type: types.Float()},
		{Name: "s", Type: types.String()}, {Name: "ts", Type: types.TimestampType(3)}, {Name: "ltz", Type: types.TimestampLTZ(6)},
		{Name: "t", Type: types.Time(3)}, {Name: "n", Type: types.Int()},
	}
	row := types.Row{Fields: []types.Value{
		types.DecimalValue(types.NewDecimal(1, 8)), types.Float64(1e20), types.Float64(float64(float32(0.1))),
		types.Str("q\"\\\n\x01é"), types.TimestampValue(types.Timestamp{Millis: 1577880000100}),
		types.TimestampValue(types.Timestamp{Millis: 0, NanoOfMilli: 1000}), types.TimeValue(3723500 * 1e6), {},
	}}
	_, enc := codecs(t, fields)
	got, err := enc.Encode(nil, row)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"d":1E-8,"f":1.0E20,"g":0.1,"s":"q\"\\\n\u0001é","ts":"2020-01-01 12:00:00.1","ltz":"1970-01-01 00:00:00.000001Z","t":"01:02:03","n":null}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	_, enc = codecs(t, fields, "encode.decimal-as-plain-number", "true", "timestamp-format.standard", "iso-8601", "encode.ignore-null-fields", "true")
	got, _ = enc.Encode(nil, row)
	want = `{"d":0.00000001,"f":1.0E20,"g":0.1,"s":"q\"\\\n\u0001é","ts":"2020-01-01T12:00:00.1","ltz":"1970-01-01T00:00:00.000001Z","t":"01:02:03"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestMapNullKeyModes(t *testing.T) {
	fields := []types.Field{{Name: "m", Type: types.Map(types.String(), types.Int())}}
	row := types.Row{Fields: []types.Value{types.MapValue(&types.MapData{
		Keys: []types.Value{types.Str("a"), {}}, Values: []types.Value{types.Int64(1), types.Int64(2)}})}}
	_, enc := codecs(t, fields)
	_, err := enc.Encode(nil, row)
	var ee *factory.EncodeError
	if !errors.As(err, &ee) || ee.Field != "m" {
		t.Errorf("FAIL mode: %v", err)
	}
	_, enc = codecs(t, fields, "map-null-key.mode", "DROP")
	if got, _ := enc.Encode(nil, row); string(got) != `{"m":{"a":1}}` {
		t.Errorf("DROP: %s", got)
	}
	_, enc = codecs(t, fields, "map-null-key.mode", "LITERAL", "map-null-key.literal", "nil")
	if got, _ := enc.Encode(nil, row); string(got) != `{"m":{"a":1,"nil":2}}` {
		t.Errorf("LITERAL: %s", got)
	}
}

func TestEncodeRowWidthMismatch(t *testing.T) {
	_, enc := codecs(t, []types.Field{{Name: "a", Type: types.Int()}})
	var ee *factory.EncodeError
	if _, err := enc.Encode(nil, types.NewRow(2)); !errors.As(err, &ee) {
		t.Errorf("got %v", err)
	}
}

func TestUnsupportedType(t *testing.T) {
	f, err := resolve(t)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.NewDecoder([]types.Field{{Name: "n", Type: types.Null()}})
	var ue *factory.UnsupportedTypeError
	if !errors.As(err, &ue) || ue.Field != "n" {
		t.Errorf("got %v", err)
	}
}

func TestOptionValidation(t *testing.T) {
	_, err := resolve(t, "timestamp-format.standard", "RFC3339")
	var ie *option.InvalidValueError
	if !errors.As(err, &ie) || ie.Key != "json.timestamp-format.standard" || len(ie.Allowed) != 2 {
		t.Errorf("got %v", err)
	}
	_, err = resolve(t, "fail-on-missing-fields", "true")
	var ue *option.UnsupportedOptionsError
	if !errors.As(err, &ue) || ue.Suggestions["json.fail-on-missing-fields"] != "json.fail-on-missing-field" {
		t.Errorf("got %v", err)
	}
}

func TestRegisteredInDefault(t *testing.T) {
	if _, ok := factory.Default.Format(Identifier); !ok {
		t.Error("json not registered in factory.Default")
	}
}

// TestDecodeReusedRowNullsMissingFields decodes into a row that holds an
// earlier record's values (Decode does not clear it first): fields the new
// record lacks must come out NULL, and a record that fails leaves no
// values behind.
func TestDecodeReusedRowNullsMissingFields(t *testing.T) {
	fields := []types.Field{{Name: "a", Type: types.BigInt()}, {Name: "b", Type: types.String()},
		{Name: "c", Type: types.RowType(types.Field{Name: "x", Type: types.Int()}, types.Field{Name: "y", Type: types.Int()})}}
	dec, _ := codecs(t, fields)
	row := types.NewRow(3)
	if err := dec.Decode([]byte(`{"a":1,"b":"x","c":{"x":1,"y":2}}`), &row); err != nil {
		t.Fatal(err)
	}
	if err := dec.Decode([]byte(`{"c":{"y":3}}`), &row); err != nil {
		t.Fatal(err)
	}
	if !row.Fields[0].IsNull() || !row.Fields[1].IsNull() {
		t.Fatalf("missing fields kept the earlier record's values: %v", row.Fields)
	}
	if c := row.Fields[2].List(); len(c) != 2 || !c[0].IsNull() || c[1].Int64() != 3 {
		t.Fatalf("nested row = %v, want [NULL 3]", c)
	}
	if err := dec.Decode([]byte(`{"a":2,"b":`), &row); err == nil {
		t.Fatal("truncated record decoded")
	}
	for i, v := range row.Fields {
		if !v.IsNull() {
			t.Fatalf("field %d = %v after a failed decode, want NULL", i, v)
		}
	}
}
