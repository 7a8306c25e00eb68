package avroconfluent

import (
	"encoding/binary"
	"errors"
	"net/http"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/internal/testrig/srtest"
	"github.com/streamsql/streamsql/types"
)

// The tests in this file run the format against a real registry (Apicurio
// Registry's Confluent API, started by scripts/registry.sh), as the tests
// with srtest do, with subjects of their own on the shared registry and no
// assumption about which ids it hands out.

// TestRealRegistryRoundTrip: the encoder registers the derived schema under
// <topic>-value and <topic>-key on the real registry, and the decoder reads
// the records back with the schema it looks up by id.
func TestRealRegistryRoundTrip(t *testing.T) {
	url := srtest.RequireReal(t)
	f, err := resolve(t, "url", url)
	if err != nil {
		t.Fatal(err)
	}
	f.Topic = srtest.Unique("orders")
	enc, err := f.NewEncoder(confluentFields)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := f.NewDecoder(confluentFields)
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for _, r := range confluentRows() {
		b, err := enc.Encode(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, b)
	}
	id := binary.BigEndian.Uint32(recs[0][1:5])
	if recs[0][0] != 0 || id == 0 {
		t.Fatalf("header %x: want magic 0 and an id", recs[0][:5])
	}
	rc, err := client(f.Options)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := rc.cl.SchemaByVersion(t.Context(), f.Topic+"-value", -1)
	if err != nil {
		t.Fatalf("subject %s-value: %v", f.Topic, err)
	}
	if latest.ID != int(id) || !strings.Contains(latest.Schema.Schema, `"namespace":"org.apache.flink.avro.generated"`) {
		t.Fatalf("registered id %d schema %s, records carry id %d", latest.ID, latest.Schema.Schema, id)
	}
	rows := confluentRows()
	var got types.Row
	for i, b := range recs {
		if err := dec.Decode(b, &got); err != nil {
			t.Fatal(err)
		}
		for j, fl := range confluentFields {
			if !formattest.Equal(fl.Type, rows[i].Fields[j], got.Fields[j]) {
				t.Fatalf("record %d field %s: %s", i, fl.Name, formattest.Show(fl.Type, got.Fields[j]))
			}
		}
	}

	f.Key = "key.format"
	kenc, err := f.NewEncoder(confluentFields[:1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kenc.Encode(nil, types.Row{Fields: []types.Value{types.Int64(1)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.cl.SchemaByVersion(t.Context(), f.Topic+"-key", -1); err != nil {
		t.Fatalf("subject %s-key: %v", f.Topic, err)
	}
}

// TestRealRegistryEvolution reads a record written with an older writer
// schema (int id, a field the table lacks, no amount) registered on the
// real registry; with the subject's compatibility set to BACKWARD, the
// table's schema registers after it and a NOT NULL column without default
// is refused.
func TestRealRegistryEvolution(t *testing.T) {
	url := srtest.RequireReal(t)
	subject := srtest.Unique("evolving")
	f, err := resolve(t, "url", url, "subject", subject)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := client(f.Options)
	if err != nil {
		t.Fatal(err)
	}
	cl := rc.cl
	// Confluent's registry defaults to BACKWARD; Apicurio has no rule
	// unless one is set.
	for _, r := range cl.SetCompatibility(t.Context(), sr.SetCompatibility{Level: sr.CompatBackward}, subject) {
		if r.Err != nil {
			t.Fatalf("setting BACKWARD on %s: %v", subject, r.Err)
		}
	}
	writer := `{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":[{"name":"id","type":"int"},` +
		`{"name":"removed","type":{"type":"array","items":"string"},"default":[]},` +
		`{"name":"name","type":["null","string"],"default":null}]}`
	ws, err := hamba.Parse(writer)
	if err != nil {
		t.Fatal(err)
	}
	id, err := cl.RegisterSchema(t.Context(), subject, srSchema(writer), -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	body, err := hamba.Marshal(ws, map[string]any{"id": 42, "removed": []string{"x", "y"}, "name": "alice"})
	if err != nil {
		t.Fatal(err)
	}
	rec := append(binary.BigEndian.AppendUint32([]byte{0}, uint32(id)), body...)
	dec, err := f.NewDecoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	var got types.Row
	if err := dec.Decode(rec, &got); err != nil {
		t.Fatal(err)
	}
	if got.Fields[0].Int64() != 42 || got.Fields[1].Str() != "alice" || !got.Fields[2].IsNull() {
		t.Fatalf("read %v", got.Fields)
	}

	enc, err := f.NewEncoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Encode(nil, row(1, "b")); err != nil {
		t.Fatalf("compatible registration: %v", err)
	}
	strict := append([]types.Field(nil), fields...)
	strict[2].Type = strict[2].Type.NotNullable()
	enc, err = f.NewEncoder(strict)
	if err != nil {
		t.Fatal(err)
	}
	_, err = enc.Encode(nil, row(1, "b"))
	var re *sr.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusConflict {
		t.Fatalf("incompatible registration: %v, want the registry's 409", err)
	}
}

// TestRealRegistryUnknownID: a record whose schema id the real registry
// does not know is a DecodeError (the registry's 40403), not a failure to
// reach the registry.
func TestRealRegistryUnknownID(t *testing.T) {
	url := srtest.RequireReal(t)
	f, err := resolve(t, "url", url)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := f.NewDecoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	var got types.Row
	var de *factory.DecodeError
	if err := dec.Decode([]byte{0, 0x7f, 0xff, 0xff, 0xf0, 2}, &got); !errors.As(err, &de) {
		t.Fatalf("unknown id: %v, want a DecodeError", err)
	}
}
