package csv

import (
	"errors"
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
