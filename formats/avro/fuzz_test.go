package avro

import (
	"errors"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// FuzzDecode checks that no input panics the decoder, that every failure is
// a *factory.DecodeError, and that what decodes re-encodes to bytes that
// decode to the same encoding.
func FuzzDecode(f *testing.F) {
	fields := []types.Field{
		{Name: "a", Type: types.BigInt()}, {Name: "b", Type: types.String()},
		{Name: "c", Type: types.Array(types.DecimalType(10, 2))}, {Name: "d", Type: types.Map(types.String(), types.Boolean())},
		{Name: "e", Type: types.RowType(types.Field{Name: "x", Type: types.TimestampType(3)})},
		{Name: "g", Type: types.Bytes().NotNullable()},
	}
	fm, err := resolve(f)
	if err != nil {
		f.Fatal(err)
	}
	dec, err := fm.NewDecoder(fields)
	if err != nil {
		f.Fatal(err)
	}
	enc, err := fm.NewEncoder(fields)
	if err != nil {
		f.Fatal(err)
	}
	seed, err := enc.Encode(nil, types.Row{Fields: []types.Value{
		types.Int64(-5), types.Str("héllo"), types.List([]types.Value{types.DecimalValue(types.NewDecimal(-12345, 2)), {}}),
		types.MapValue(&types.MapData{Keys: []types.Value{types.Str("k")}, Values: []types.Value{types.Bool(true)}}),
		types.List([]types.Value{types.TimestampValue(types.Timestamp{Millis: 1e12})}), types.BytesValue([]byte{0, 1}),
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte{0, 0, 0, 0, 0, 0})
	f.Add([]byte{2, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		var row types.Row
		err := dec.Decode(data, &row)
		if err != nil {
			var de *factory.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error of unexpected kind: %v", err)
			}
			return
		}
		out, err := enc.Encode(nil, row)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		var again types.Row
		if err := dec.Decode(out, &again); err != nil {
			t.Fatalf("decode of our own output %x: %v", out, err)
		}
		out2, _ := enc.Encode(nil, again)
		if string(out) != string(out2) {
			t.Fatalf("not stable: %x vs %x", out, out2)
		}
	})
}
