package json

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/flinkgolden"
	"github.com/streamsql/streamsql/types"
)

// projectedDecoder returns a decoder of fields that reads only those read
// marks, with the json options kv.
func projectedDecoder(t testing.TB, fields []types.Field, read []bool, kv ...string) factory.Decoder {
	t.Helper()
	f, err := resolve(t, kv...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.NewProjectedDecoder(fields, read, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var projFields = []types.Field{
	{Name: "id", Type: types.BigInt()}, {Name: "n", Type: types.Int()},
	{Name: "s", Type: types.String()}, {Name: "nn", Type: types.Int().NotNullable()},
	{Name: "r", Type: types.RowType(types.Field{Name: "x", Type: types.Int()})},
}

// TestProjectedDecode: unread fields are NULL and their values are not
// converted, so a bad value there fails no record; read fields decode as
// with every field read; malformed JSON anywhere still fails.
func TestProjectedDecode(t *testing.T) {
	read := []bool{true, false, true, false, false}
	proj := projectedDecoder(t, projFields, read)
	full := projectedDecoder(t, projFields, nil)
	for _, c := range []struct {
		in       string
		fullFail bool // the full decoder fails
		projFail bool
		want     []types.Value // projected row
	}{
		{in: `{"id":1,"n":2,"s":"a","nn":3,"r":{"x":4}}`,
			want: []types.Value{types.Int64(1), {}, types.Str("a"), {}, {}}},
		// "abc" in the unread INT n, an object in the unread NOT NULL nn,
		// a string in the unread ROW r: only the full decoder fails.
		{in: `{"id":1,"n":"abc","s":"a"}`, fullFail: true,
			want: []types.Value{types.Int64(1), {}, types.Str("a"), {}, {}}},
		{in: `{"nn":{"a":[1,2]},"id":7,"r":"no"}`, fullFail: true,
			want: []types.Value{types.Int64(7), {}, {}, {}, {}}},
		// Out of order and repeated keys.
		{in: `{"s":"b","n":1,"id":2,"n":"x"}`, fullFail: true,
			want: []types.Value{types.Int64(2), {}, types.Str("b"), {}, {}}},
		// A bad value in a read field fails both.
		{in: `{"id":"abc","n":1}`, fullFail: true, projFail: true},
		// Malformed JSON in an unread field fails both.
		{in: `{"id":1,"n":[1,}`, fullFail: true, projFail: true},
		{in: `{"id":1,"n":tru}`, fullFail: true, projFail: true},
		// A bad escape in a string skipped unread, or in an unknown
		// field, is malformed JSON too (Jackson, Flink's parser, rejects
		// it).
		{in: `{"id":1,"n":"a\qb"}`, fullFail: true, projFail: true},
		{in: `{"id":1,"unknown":"\u12G4"}`, fullFail: true, projFail: true},
	} {
		var fr types.Row
		if err := full.Decode([]byte(c.in), &fr); (err != nil) != c.fullFail {
			t.Errorf("%s: full decode error %v, want failure %v", c.in, err, c.fullFail)
		}
		var pr types.Row
		err := proj.Decode([]byte(c.in), &pr)
		if (err != nil) != c.projFail {
			t.Errorf("%s: projected decode error %v, want failure %v", c.in, err, c.projFail)
			continue
		}
		if err != nil {
			var de *factory.DecodeError
			if !errors.As(err, &de) {
				t.Errorf("%s: error %v is not a *factory.DecodeError", c.in, err)
			}
			continue
		}
		if !reflect.DeepEqual(pr.Fields, c.want) {
			t.Errorf("%s: got %v, want %v", c.in, pr.Fields, c.want)
		}
	}
}

// TestProjectedDecodeReusedRow: a row that held every field before holds
// NULL in the unread ones after a projected decode.
func TestProjectedDecodeReusedRow(t *testing.T) {
	proj := projectedDecoder(t, projFields, []bool{false, true, false, false, false})
	row := types.Row{Fields: []types.Value{types.Int64(9), types.Int64(9), types.Str("old"), types.Int64(9), {}}}
	if err := proj.Decode([]byte(`{"id":1,"n":2,"s":"a","nn":3}`), &row); err != nil {
		t.Fatal(err)
	}
	want := []types.Value{{}, types.Int64(2), {}, {}, {}}
	if !reflect.DeepEqual(row.Fields, want) {
		t.Fatalf("got %v, want %v", row.Fields, want)
	}
}

// TestProjectedFailOnMissing: json.fail-on-missing-field applies to the
// fields read only (Flink's projected decoder knows no others).
func TestProjectedFailOnMissing(t *testing.T) {
	proj := projectedDecoder(t, projFields, []bool{true, false, false, false, false}, "fail-on-missing-field", "true")
	var row types.Row
	if err := proj.Decode([]byte(`{"id":1}`), &row); err != nil {
		t.Fatalf("unread fields missing: %v", err)
	}
	if err := proj.Decode([]byte(`{"n":1}`), &row); err == nil {
		t.Fatal("the read field id is missing but the record decoded")
	}
}

// FuzzProjectedDecode checks the projected decoder against the full one:
// no panic; every failure is a *factory.DecodeError or a skip; whatever
// the full decoder reads, the projected one reads too, with the same
// values in the read fields and NULL in the others; and it fails only
// where the full decoder fails as well.
func FuzzProjectedDecode(f *testing.F) {
	for _, s := range []string{`{"id":1,"n":2,"s":"a","nn":3,"r":{"x":4}}`, `{"id":1,"n":"abc"}`, `{"r":[1,{"x":[]}],"s":"\u00e9"}`, `{}`, `null`, `{"n":1,}`} {
		f.Add([]byte(s), uint8(0b00101))
	}
	full := projectedDecoder(f, projFields, nil)
	f.Fuzz(func(t *testing.T, data []byte, mask uint8) {
		read := make([]bool, len(projFields))
		for i := range read {
			read[i] = mask&(1<<i) != 0
		}
		proj := projectedDecoder(t, projFields, read)
		var fr, pr types.Row
		ferr := full.Decode(data, &fr)
		perr := proj.Decode(data, &pr)
		if perr != nil {
			var de *factory.DecodeError
			if !errors.As(perr, &de) && !errors.Is(perr, factory.ErrSkipRecord) {
				t.Fatalf("error of unexpected kind: %v", perr)
			}
			if ferr == nil {
				t.Fatalf("%q: the projected decoder fails (%v) where the full one reads %v", data, perr, fr.Fields)
			}
			return
		}
		for i, r := range read {
			if !r {
				if !pr.Fields[i].IsNull() {
					t.Fatalf("%q: unread field %d is %v, not NULL", data, i, pr.Fields[i])
				}
			} else if ferr == nil && !reflect.DeepEqual(pr.Fields[i], fr.Fields[i]) {
				t.Fatalf("%q: field %d is %v, the full decoder reads %v", data, i, pr.Fields[i], fr.Fields[i])
			}
		}
	})
}

// TestFlinkProjectionGolden compares the projected decoder with what
// Flink's json format decodes when the Kafka source pushes a projection
// into it (ProjectableDecodingFormat.createRuntimeDecoder with the
// projected fields; testdata/flink/projection.txt, from
// tools/flink-formats-gen's ProjectGen), and the decoder of every field
// with Flink's for the same inputs. Flink's row holds the projected
// fields in projection order; ours keeps the table's layout with NULL in
// the unread fields. A bad value in an unread column fails neither.
func TestFlinkProjectionGolden(t *testing.T) {
	blocks, err := flinkgolden.Read("testdata/flink/projection.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	projected, rescued := 0, 0
	for _, b := range blocks {
		f, err := resolve(t, optionArgs(b.Options)...)
		if err != nil {
			t.Fatal(err)
		}
		fullErr := false
		for _, c := range b.Cases {
			dec, err := f.NewProjectedDecoder(c.Type.Fields, flinkgolden.ReadFlags(c), nil)
			if err != nil {
				t.Fatalf("line %d: %v", c.Line, err)
			}
			var row types.Row
			err = dec.Decode(c.Input, &row)
			if c.Project == nil {
				fullErr = c.Error != ""
			} else if projected++; fullErr && c.Error == "" && !c.Skip {
				rescued++ // Flink fails the full decode, not the projected one
			}
			if p := flinkgolden.ProjectedProblem(c, row, err); p != "" {
				t.Errorf("line %d %v project %v: %s", c.Line, b.Options, c.Project, p)
			}
		}
	}
	if projected < 60 || rescued < 6 {
		t.Fatalf("only %d projected golden cases, %d where only the full decode fails", projected, rescued)
	}
}

// nestedFields have ROWs within ROWs, for nested projection.
var nestedFields = []types.Field{
	{Name: "id", Type: types.BigInt()},
	{Name: "r", Type: types.RowType(
		types.Field{Name: "x", Type: types.Int()},
		types.Field{Name: "s", Type: types.String()},
		types.Field{Name: "z", Type: types.RowType(
			types.Field{Name: "p", Type: types.Int()},
			types.Field{Name: "q", Type: types.TimestampType(3).NotNullable()}),
		})},
	{Name: "t", Type: types.RowType(types.Field{Name: "a", Type: types.Int()})},
}

// nestedDecoder returns a decoder of nestedFields that reads r only in
// part as rr says (nil: whole), with the json options kv.
func nestedDecoder(t testing.TB, rr *factory.RowRead, kv ...string) factory.Decoder {
	t.Helper()
	f, err := resolve(t, kv...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.NewNestedDecoder(nestedFields, nil, []*factory.RowRead{nil, rr, nil}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestNestedProjectedDecode: fields of a ROW the job does not read are
// NULL and their values are only scanned, so a bad value there fails no
// record, while malformed JSON there still does (with
// ignore-parse-errors, the record is skipped as before); the ROW keeps
// its width and is NULL exactly when the record's value is.
func TestNestedProjectedDecode(t *testing.T) {
	// r.x and r.z.p are read; r.s and r.z.q are not.
	rr := &factory.RowRead{Fields: []bool{true, false, true},
		Rows: []*factory.RowRead{nil, nil, {Fields: []bool{true, false}}}}
	i64 := types.Int64
	row := func(v ...types.Value) types.Value { return types.List(v) }
	var null types.Value
	for _, c := range []struct {
		in       string
		fullFail bool // the decoder of every field fails
		projFail bool
		want     []types.Value // the projected row
	}{
		{in: `{"id":1,"r":{"x":2,"s":"a\"b","z":{"p":3,"q":"2024-01-01 00:00:00"}},"t":{"a":4}}`,
			want: []types.Value{i64(1), row(i64(2), null, row(i64(3), null)), row(i64(4))}},
		// The ROW NULL, missing, or an empty object.
		{in: `{"id":1,"r":null}`, want: []types.Value{i64(1), null, {}}},
		{in: `{"id":1}`, want: []types.Value{i64(1), null, {}}},
		{in: `{"r":{}}`, want: []types.Value{{}, row(null, null, null), {}}},
		{in: `{"r":{"z":null}}`, want: []types.Value{{}, row(null, null, null), {}}},
		// Bad values in the unread r.s (a number: STRING keeps its text,
		// so no failure either way) and r.z.q (not a timestamp; NULL for
		// a NOT NULL field, which json reads as NULL, as Flink does).
		{in: `{"r":{"s":12,"z":{"q":"soon","p":5}}}`, fullFail: true,
			want: []types.Value{{}, row(null, null, row(i64(5), null)), {}}},
		{in: `{"r":{"z":{"q":null}}}`, want: []types.Value{{}, row(null, null, row(null, null)), {}}},
		// A bad value in a read nested field fails both.
		{in: `{"r":{"x":"two"}}`, fullFail: true, projFail: true},
		{in: `{"r":{"z":{"p":[]}}}`, fullFail: true, projFail: true},
		// Malformed JSON in an unread nested field fails both: a bad
		// literal, a bad escape, an unclosed array, a control character.
		{in: `{"r":{"s":tru,"x":1}}`, fullFail: true, projFail: true},
		{in: `{"r":{"s":"a\qb","x":1}}`, fullFail: true, projFail: true},
		{in: `{"r":{"z":{"q":[1,}}}`, fullFail: true, projFail: true},
		{in: "{\"r\":{\"s\":\"a\x01\"}}", fullFail: true, projFail: true},
		{in: `{"r":{"s":"a"`, fullFail: true, projFail: true},
	} {
		for _, opt := range [][]string{nil, {"ignore-parse-errors", "true"}} {
			full := nestedDecoder(t, nil, opt...)
			proj := nestedDecoder(t, rr, opt...)
			var fr, pr types.Row
			ferr := full.Decode([]byte(c.in), &fr)
			perr := proj.Decode([]byte(c.in), &pr)
			if opt != nil {
				// With ignore-parse-errors a bad value is NULL and
				// malformed JSON skips the record, read or not.
				if errors.Is(perr, factory.ErrSkipRecord) != (c.projFail && c.in != `{"r":{"x":"two"}}` && c.in != `{"r":{"z":{"p":[]}}}`) {
					t.Errorf("%s %v: projected decode %v", c.in, opt, perr)
				}
				if perr != nil && !errors.Is(perr, factory.ErrSkipRecord) {
					t.Errorf("%s %v: projected decode error %v is not a skip", c.in, opt, perr)
				}
				continue
			}
			if (ferr != nil) != c.fullFail {
				t.Errorf("%s: full decode error %v, want failure %v", c.in, ferr, c.fullFail)
			}
			if (perr != nil) != c.projFail {
				t.Errorf("%s: projected decode error %v, want failure %v", c.in, perr, c.projFail)
				continue
			}
			if perr != nil {
				var de *factory.DecodeError
				if !errors.As(perr, &de) {
					t.Errorf("%s: error %v is not a *factory.DecodeError", c.in, perr)
				}
				continue
			}
			if !reflect.DeepEqual(pr.Fields, c.want) {
				t.Errorf("%s: got %v, want %v", c.in, pr.Fields, c.want)
			}
		}
	}
}

// TestNestedProjectedFailOnMissing: json.fail-on-missing-field applies to
// the nested fields read only.
func TestNestedProjectedFailOnMissing(t *testing.T) {
	rr := &factory.RowRead{Fields: []bool{true, false, false}}
	proj := nestedDecoder(t, rr, "fail-on-missing-field", "true")
	var row types.Row
	if err := proj.Decode([]byte(`{"id":1,"r":{"x":1},"t":{"a":1}}`), &row); err != nil {
		t.Fatalf("unread nested fields missing: %v", err)
	}
	err := proj.Decode([]byte(`{"id":1,"r":{"s":"a"},"t":{"a":1}}`), &row)
	var de *factory.DecodeError
	if !errors.As(err, &de) || de.Field != "r.x" {
		t.Fatalf("the read field r.x is missing: got %v, want a DecodeError naming r.x", err)
	}
}

// FuzzNestedProjectedDecode checks the decoder that reads r in part
// (mask's bits: r.x, r.s, r.z, and r.z.p and r.z.q when r.z is read in
// part) against the one that reads everything: no panic; failures are
// DecodeErrors or skips; it fails only where the full decoder fails too,
// and always where a column's JSON is malformed (a malformed unread value
// fails the record); where the full decoder reads the record, the projected row
// has the same read values and NULL in the unread ones.
func FuzzNestedProjectedDecode(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"r":{"x":2,"s":"a","z":{"p":3,"q":"2024-01-01 00:00:00"}},"t":{"a":4}}`,
		`{"r":{"s":12,"z":{"q":"soon"}}}`, `{"r":{"s":"\u00e9\q"}}`, `{"r":null}`, `{"r":{"z":[1,}}`, `{"r":{"x":1,}}`,
	} {
		f.Add([]byte(s), uint8(0b01101))
	}
	full := nestedDecoder(f, nil)
	// syntax reads every column as STRING, which keeps any JSON value's
	// text: it fails exactly where the JSON of a column is malformed.
	syntax, _ := codecs(f, []types.Field{{Name: "id", Type: types.String()}, {Name: "r", Type: types.String()}, {Name: "t", Type: types.String()}})
	f.Fuzz(func(t *testing.T, data []byte, mask uint8) {
		rr := &factory.RowRead{Fields: []bool{mask&1 != 0, mask&2 != 0, mask&4 != 0}}
		if mask&4 != 0 && mask&32 == 0 {
			rr.Rows = []*factory.RowRead{nil, nil, {Fields: []bool{mask&8 != 0, mask&16 != 0}}}
		}
		proj := nestedDecoder(t, rr)
		var fr, pr types.Row
		ferr := full.Decode(data, &fr)
		perr := proj.Decode(data, &pr)
		if perr != nil {
			var de *factory.DecodeError
			if !errors.As(perr, &de) && !errors.Is(perr, factory.ErrSkipRecord) {
				t.Fatalf("error of unexpected kind: %v", perr)
			}
			if ferr == nil {
				t.Fatalf("%q: the projected decoder fails (%v) where the full one reads %v", data, perr, fr.Fields)
			}
			return
		}
		var sr types.Row
		if err := syntax.Decode(data, &sr); err != nil {
			t.Fatalf("%q is malformed (%v), but the projected decoder (%v) reads %v", data, err, rr, pr.Fields)
		}
		if ferr != nil {
			return
		}
		want := slices.Clone(fr.Fields)
		if r := want[1]; !r.IsNull() {
			l := slices.Clone(r.List())
			for i := range l {
				if !rr.Reads(i) {
					l[i] = types.Value{}
				} else if sub := rr.Row(i); sub != nil && !l[i].IsNull() {
					z := slices.Clone(l[i].List())
					for j := range z {
						if !sub.Reads(j) {
							z[j] = types.Value{}
						}
					}
					l[i] = types.List(z)
				}
			}
			want[1] = types.List(l)
		}
		if !reflect.DeepEqual(pr.Fields, want) {
			t.Fatalf("%q (%v): got %v, want %v", data, rr, pr.Fields, want)
		}
	})
}
