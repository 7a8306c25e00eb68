package json

import (
	"errors"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// FuzzDecode checks that no input panics the decoder, that every failure is
// a *factory.DecodeError (or a skip), and that what decodes re-encodes and
// decodes to the same row.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":"x","c":[1.5],"d":{"k":true},"e":{"x":null}}`, `{"a":"1"}`, `{}`, `null`, `{"b":"\ud83d\ude00"}`, `{"c":[1,`} {
		f.Add([]byte(s))
	}
	fields := []types.Field{
		{Name: "a", Type: types.BigInt()}, {Name: "b", Type: types.String()},
		{Name: "c", Type: types.Array(types.DecimalType(10, 2))}, {Name: "d", Type: types.Map(types.String(), types.Boolean())},
		{Name: "e", Type: types.RowType(types.Field{Name: "x", Type: types.TimestampLTZ(3)})},
	}
	dec, enc := codecs(f, fields)
	f.Fuzz(func(t *testing.T, data []byte) {
		var row types.Row
		err := dec.Decode(data, &row)
		if err != nil {
			var de *factory.DecodeError
			if !errors.As(err, &de) && !errors.Is(err, factory.ErrSkipRecord) {
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
			t.Fatalf("decode of our own output %s: %v", out, err)
		}
		out2, _ := enc.Encode(nil, again)
		if string(out) != string(out2) {
			t.Fatalf("not stable: %s vs %s", out, out2)
		}
	})
}
