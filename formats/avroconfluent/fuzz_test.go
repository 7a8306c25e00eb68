package avroconfluent

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/srtest"
	"github.com/streamsql/streamsql/types"
)

// FuzzDecode checks that no record panics the decoder and that every
// failure is a *factory.DecodeError (a bad header, an unknown id or a bad
// Avro body), against a registry holding the table's schema (id 1) and an
// older schema of it (id 2).
func FuzzDecode(f *testing.F) {
	reg := srtest.Start(srtest.Options{})
	defer reg.Close()
	fm, err := resolve(f, "url", reg.URL(), "subject", "fuzz")
	if err != nil {
		f.Fatal(err)
	}
	enc, err := fm.NewEncoder(fields)
	if err != nil {
		f.Fatal(err)
	}
	seed, err := enc.Encode(nil, row(7, "seed"))
	if err != nil {
		f.Fatal(err)
	}
	rc, _ := client(fm.Options)
	cl := rc.cl
	old := `{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":[` +
		`{"name":"id","type":"long"},{"name":"gone","type":{"type":"map","values":"int"},"default":{}}]}`
	id, err := cl.RegisterSchema(f.Context(), "other", srSchema(old), -1, -1)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(append(binary.BigEndian.AppendUint32([]byte{0}, uint32(id)), 14, 2, 2, 6, 2, 0))
	f.Add([]byte{0, 0, 0, 0, 3, 0})
	f.Add([]byte{1})
	dec, err := fm.NewDecoder(fields)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got types.Row
		if err := dec.Decode(data, &got); err != nil {
			var de *factory.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error of unexpected kind: %v", err)
			}
		}
	})
}
