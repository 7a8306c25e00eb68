package csv

import (
	"errors"
	"reflect"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// FuzzDecode checks that no input panics the decoder and that every failure
// is a *factory.DecodeError (or a skip).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`1,"a,b",2020-01-01 00:00:00,1;2`, `x`, `,,,`, `"`, `1,"a""b`, "#c"} {
		f.Add([]byte(s))
	}
	fields := []types.Field{{Name: "a", Type: types.Int()}, {Name: "b", Type: types.String()},
		{Name: "c", Type: types.TimestampType(3)}, {Name: "d", Type: types.Array(types.Int())}}
	dec, enc := codecs(f, fields, map[string]string{"escape-character": "\\", "allow-comments": "true"})
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
		if _, err := enc.Encode(nil, row); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
	})
}

// FuzzProjectedDecode checks the decoder made with
// FormatContext.ReadFields against the one of every field: no panic;
// failures are *factory.DecodeError or skips; where the full decoder
// reads a row the projected one reads the same values in the read fields
// and NULL in the others; it fails only where the full decoder fails.
func FuzzProjectedDecode(f *testing.F) {
	for _, s := range []string{`1,"a,b",2020-01-01 00:00:00,1;2`, `x,y`, `,,,`, `"`, `1,abc,x,1`} {
		f.Add([]byte(s), uint8(0b0101))
	}
	fields := []types.Field{{Name: "a", Type: types.Int()}, {Name: "b", Type: types.String()},
		{Name: "c", Type: types.TimestampType(3)}, {Name: "d", Type: types.Array(types.Int())}}
	opts := map[string]string{"escape-character": "\\"}
	full, _ := codecs(f, fields, opts)
	format, err := resolve(f, opts)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, mask uint8) {
		read := make([]bool, len(fields))
		for i := range read {
			read[i] = mask&(1<<i) != 0
		}
		proj, err := format.NewProjectedDecoder(fields, read, nil)
		if err != nil {
			t.Fatal(err)
		}
		var fr, pr types.Row
		ferr := full.Decode(data, &fr)
		perr := proj.Decode(data, &pr)
		if perr != nil {
			var de *factory.DecodeError
			if !errors.As(perr, &de) && !errors.Is(perr, factory.ErrSkipRecord) {
				t.Fatalf("error of unexpected kind: %v", perr)
			}
			if ferr == nil {
				t.Fatalf("%q: the projected decoder fails (%v) where the full one reads a row", data, perr)
			}
			return
		}
		for i, r := range read {
			switch {
			case !r && !pr.Fields[i].IsNull():
				t.Fatalf("%q: unread field %d is not NULL", data, i)
			case r && ferr == nil && !reflect.DeepEqual(pr.Fields[i], fr.Fields[i]):
				t.Fatalf("%q: field %d differs from the full decoder's", data, i)
			}
		}
	})
}
