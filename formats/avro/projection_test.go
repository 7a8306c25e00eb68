package avro

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	hamba "github.com/hamba/avro/v2"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// projFields have a ROW within a ROW, a NOT NULL and a narrow column, so
// that a value can be well-formed Avro the column cannot hold.
var projFields = []types.Field{
	{Name: "id", Type: types.BigInt()},
	{Name: "small", Type: types.TinyInt()},
	{Name: "r", Type: types.RowType(
		types.Field{Name: "x", Type: types.Int()},
		types.Field{Name: "s", Type: types.String()},
		types.Field{Name: "z", Type: types.RowType(
			types.Field{Name: "p", Type: types.SmallInt()},
			types.Field{Name: "d", Type: types.DecimalType(4, 2)}),
		})},
	{Name: "tags", Type: types.Array(types.String())},
}

// wideFields are projFields with types wide enough for any value: what a
// writer with a wider schema writes (the derived schema is the same for
// TINYINT and INT, and DECIMAL(4,2) and DECIMAL(10,2) share bytes).
var wideFields = []types.Field{
	{Name: "id", Type: types.BigInt()},
	{Name: "small", Type: types.Int()},
	{Name: "r", Type: types.RowType(
		types.Field{Name: "x", Type: types.Int()},
		types.Field{Name: "s", Type: types.String()},
		types.Field{Name: "z", Type: types.RowType(
			types.Field{Name: "p", Type: types.Int()},
			types.Field{Name: "d", Type: types.DecimalType(10, 2)}),
		})},
	{Name: "tags", Type: types.Array(types.String())},
}

func projDecoder(t testing.TB, read []bool, rows []*factory.RowRead) factory.Decoder {
	t.Helper()
	f, err := resolve(t)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.NewNestedDecoder(projFields, read, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func encodeWide(t testing.TB, v ...types.Value) []byte {
	t.Helper()
	f, err := resolve(t)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := f.NewEncoder(wideFields)
	if err != nil {
		t.Fatal(err)
	}
	b, err := enc.Encode(nil, types.Row{Fields: v})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProjectedDecode: the columns and nested fields a job does not read
// are NULL, skipped by the writer's schema without conversion, so a value
// they could not hold fails no record; read values are as without the
// projection; and a record malformed in a skipped value (a union branch
// out of range, a negative length, a bad boolean, a record cut short)
// fails as when the value is read, naming the field.
func TestProjectedDecode(t *testing.T) {
	i64, str := types.Int64, types.Str
	dec := func(u int64) types.Value { return types.DecimalValue(types.NewDecimal(u, 2)) }
	row := func(v ...types.Value) types.Value { return types.List(v) }
	var null types.Value
	read := []bool{true, false, true, true}
	rows := []*factory.RowRead{nil, nil, {Fields: []bool{true, false, true}, Rows: []*factory.RowRead{nil, nil, {Fields: []bool{false, true}}}}, nil}
	full := projDecoder(t, nil, nil)
	proj := projDecoder(t, read, rows)

	good := encodeWide(t, i64(1), i64(2), row(i64(3), str("a"), row(i64(4), dec(512))), types.List([]types.Value{str("t")}))
	want := []types.Value{i64(1), null, row(i64(3), null, row(null, dec(512))), types.List([]types.Value{str("t")})}
	// small = 1000 does not fit TINYINT, r.z.p = 100000 not SMALLINT:
	// neither is read.
	unfit := encodeWide(t, i64(1), i64(1000), row(i64(3), str("a"), row(i64(100000), dec(512))), types.List([]types.Value{}))
	// r.z.d = 1234567.89 does not fit DECIMAL(4, 2), and it is read.
	unfitRead := encodeWide(t, i64(1), i64(2), row(i64(3), str("a"), row(i64(4), dec(123456789))), null)

	var fr, pr types.Row
	if err := full.Decode(good, &fr); err != nil {
		t.Fatal(err)
	}
	if err := proj.Decode(good, &pr); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pr.Fields, want) {
		t.Errorf("projected: got %v, want %v", pr.Fields, want)
	}
	if err := full.Decode(unfit, &fr); err == nil {
		t.Errorf("the full decoder read %v from values that do not fit", fr.Fields)
	}
	if err := proj.Decode(unfit, &pr); err != nil {
		t.Errorf("a value that does not fit an unread column failed the record: %v", err)
	} else if pr.Fields[1] != null || !pr.Fields[2].List()[2].List()[0].IsNull() {
		t.Errorf("unread fields not NULL: %v", pr.Fields)
	}
	if err := proj.Decode(unfitRead, &pr); err == nil {
		t.Errorf("a value that does not fit a read column decoded: %v", pr.Fields)
	}

	// Malformed records: the union of the unread small (at byte 2, after
	// id's branch and value 1) out of range; r.s (unread) with a negative
	// length; cut short inside r.s.
	malformed := map[string][]byte{}
	b := slices.Clone(good)
	b[2] = 9 // small's union branch 9 ... zigzag(9) = -5
	malformed["small: union branch out of range"] = b
	sIdx := 0
	for i := 0; i+2 < len(good); i++ {
		if good[i] == 2 && good[i+1] == 'a' { // r.s: length 1 (zigzag 2), "a"
			sIdx = i
		}
	}
	if sIdx == 0 {
		t.Fatalf("r.s not found in %x", good)
	}
	b = slices.Clone(good)
	b[sIdx] = 3 // length -2
	malformed["r.s: negative length"] = b
	malformed["r.s: cut short"] = good[:sIdx+1]
	for name, m := range malformed {
		for _, d := range []struct {
			name string
			dec  factory.Decoder
		}{{"full", full}, {"projected", proj}} {
			var r types.Row
			err := d.dec.Decode(m, &r)
			var de *factory.DecodeError
			if !errors.As(err, &de) {
				t.Errorf("%s, %s decoder: got %v, want a DecodeError", name, d.name, err)
			}
		}
	}
	// The projected decoder names the skipped field.
	var r types.Row
	err := proj.Decode(malformed["r.s: negative length"], &r)
	var de *factory.DecodeError
	if !errors.As(err, &de) || de.Field != "r.s" {
		t.Errorf("negative length in r.s: got %v, want a DecodeError of field r.s", err)
	}
}

// TestSkipBoolean: a boolean other than 0 or 1 in a skipped value is
// malformed Avro, as it is in a read one.
func TestSkipBoolean(t *testing.T) {
	fields := []types.Field{{Name: "a", Type: types.Boolean().NotNullable()}, {Name: "b", Type: types.Int().NotNullable()}}
	f, err := resolve(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, read := range [][]bool{nil, {false, true}} {
		d, err := f.NewProjectedDecoder(fields, read, nil)
		if err != nil {
			t.Fatal(err)
		}
		var r types.Row
		if err := d.Decode([]byte{2, 4}, &r); err == nil {
			t.Errorf("read %v: boolean byte 2 decoded as %v", read, r.Fields)
		}
		if err := d.Decode([]byte{1, 4}, &r); err != nil || r.Fields[1].Int64() != 2 {
			t.Errorf("read %v: got %v, %v", read, r.Fields, err)
		}
	}
}

// FuzzProjectedDecode checks the decoder that reads projFields in part
// (mask's bits: small, r, tags, and r.s, r.z, r.z.p narrowing r) against
// the one that reads every field: no panic; failures are DecodeErrors; it
// fails where Avro's own generic reader (hamba's Unmarshal) finds the
// record malformed and the full decoder fails too; where the full decoder
// reads the record, the projected row has its read values and NULL in
// the others.
func FuzzProjectedDecode(f *testing.F) {
	str := types.Str
	seed := encodeWide(f, types.Int64(1), types.Int64(2), types.List([]types.Value{types.Int64(3), str("a"),
		types.List([]types.Value{types.Int64(4), types.DecimalValue(types.NewDecimal(512, 2))})}), types.List([]types.Value{str("t")}))
	f.Add(seed, uint8(0b101101))
	f.Add(seed[:len(seed)-3], uint8(0b000011))
	f.Add([]byte{2, 2, 9, 0, 0}, uint8(0))
	full := projDecoder(f, nil, nil)
	_, writer, err := Schema(Identifier, projFields, true)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, mask uint8) {
		read := []bool{true, mask&1 != 0, mask&2 != 0, mask&4 != 0}
		var rows []*factory.RowRead
		if read[2] && mask&64 == 0 {
			rr := &factory.RowRead{Fields: []bool{true, mask&8 != 0, mask&16 != 0}}
			if mask&16 != 0 && mask&128 == 0 {
				rr.Rows = []*factory.RowRead{nil, nil, {Fields: []bool{mask&32 != 0, true}}}
			}
			rows = []*factory.RowRead{nil, nil, rr, nil}
		}
		proj := projDecoder(t, read, rows)
		var fr, pr types.Row
		ferr := full.Decode(data, &fr)
		perr := proj.Decode(data, &pr)
		if perr != nil {
			var de *factory.DecodeError
			if !errors.As(perr, &de) {
				t.Fatalf("error of unexpected kind: %v", perr)
			}
			if ferr == nil {
				t.Fatalf("%x: the projected decoder fails (%v) where the full one reads %v", data, perr, fr.Fields)
			}
			return
		}
		var generic any
		if herr := hamba.Unmarshal(writer, data, &generic); herr != nil && ferr != nil {
			t.Fatalf("%x is malformed (%v; full decoder: %v), but the projected decoder reads %v", data, herr, ferr, pr.Fields)
		}
		if ferr != nil {
			return
		}
		want := slices.Clone(fr.Fields)
		for i, r := range read {
			if !r {
				want[i] = types.Value{}
			}
		}
		if rows != nil && !want[2].IsNull() {
			want[2] = project(want[2], rows[2])
		}
		if !reflect.DeepEqual(pr.Fields, want) {
			t.Fatalf("%x (%v %v): got %v, want %v", data, read, rows, pr.Fields, want)
		}
	})
}

// project sets the fields of ROW value v that r does not read to NULL.
func project(v types.Value, r *factory.RowRead) types.Value {
	if r == nil || v.IsNull() {
		return v
	}
	l := slices.Clone(v.List())
	for i := range l {
		if !r.Reads(i) {
			l[i] = types.Value{}
		} else {
			l[i] = project(l[i], r.Row(i))
		}
	}
	return types.List(l)
}
