package avroconfluent

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/internal/testrig/srtest"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

var formatOpt = factory.FormatOption("format").Required()

// resolve validates avro-confluent.* options through a throwaway connector
// and returns the resolved format, exactly as a connector sees it.
func resolve(t testing.TB, kv ...string) (*factory.Format, error) {
	t.Helper()
	r := factory.NewRegistry()
	r.MustRegisterFormat(Factory())
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "t", Options: []option.Option{formatOpt},
		NewSink: func(factory.Context) (connector.Sink, error) { return nil, nil }})
	opts := map[string]string{"connector": "t", "format": Identifier}
	for i := 0; i < len(kv); i += 2 {
		opts[Identifier+"."+kv[i]] = kv[i+1]
	}
	v, err := r.Validate(factory.Table{Name: "t", Options: opts})
	if err != nil {
		return nil, err
	}
	return formatOpt.Get(v.Config), nil
}

var fields = []types.Field{
	{Name: "id", Type: types.BigInt().NotNullable()},
	{Name: "name", Type: types.String()},
	{Name: "amount", Type: types.DecimalType(10, 2)},
}

func row(id int64, name string) types.Row {
	return types.Row{Fields: []types.Value{types.Int64(id), types.Str(name), types.DecimalValue(types.NewDecimal(id*100+5, 2))}}
}

// TestRoundTripThroughRegistry: the encoder registers the derived schema
// under <topic>-value, prefixes records with magic byte 0 and the id, and
// the decoder reads them back, fetching the schema once.
func TestRoundTripThroughRegistry(t *testing.T) {
	reg := srtest.Start(srtest.Options{})
	defer reg.Close()
	f, err := resolve(t, "url", reg.URL())
	if err != nil {
		t.Fatal(err)
	}
	f.Topic = "orders"
	enc, err := f.NewEncoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := f.NewDecoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for i := range 10 {
		b, err := enc.Encode(nil, row(int64(i), "n"))
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, b)
	}
	if recs[0][0] != 0 || binary.BigEndian.Uint32(recs[0][1:5]) != 1 {
		t.Fatalf("header %x: want magic 0 and id 1", recs[0][:5])
	}
	if n := reg.Requests("POST /subjects/versions"); n != 1 {
		t.Fatalf("%d registrations, want 1", n)
	}
	rc, _ := client(f.Options)
	cl := rc.cl
	latest, err := cl.SchemaByVersion(t.Context(), "orders-value", -1)
	if err != nil {
		t.Fatalf("subject orders-value: %v", err)
	}
	if !strings.Contains(latest.Schema.Schema, `"name":"record","namespace":"org.apache.flink.avro.generated"`) {
		t.Fatalf("registered schema %s", latest.Schema.Schema)
	}
	var got types.Row
	for i, b := range recs {
		if err := dec.Decode(b, &got); err != nil {
			t.Fatal(err)
		}
		want := row(int64(i), "n")
		for j, fl := range fields {
			if !formattest.Equal(fl.Type, want.Fields[j], got.Fields[j]) {
				t.Fatalf("record %d field %s: %s", i, fl.Name, formattest.Show(fl.Type, got.Fields[j]))
			}
		}
	}
	if n := reg.Requests("GET /schemas/ids"); n != 1 {
		t.Fatalf("%d schema lookups for 10 records of one id, want 1 (cached)", n)
	}

	// The key format's subject is <topic>-key.
	f.Key = "key.format"
	kenc, err := f.NewEncoder(fields[:1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kenc.Encode(nil, types.Row{Fields: []types.Value{types.Int64(1)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.SchemaByVersion(t.Context(), "orders-key", -1); err != nil {
		t.Fatalf("subject orders-key: %v", err)
	}
}

// TestSchemaEvolution reads records written with other compatible schemas:
// an older writer without a column the table has (NULL), a writer with a
// field the table has not (skipped), a writer with int where the table
// has BIGINT (promoted).
func TestSchemaEvolution(t *testing.T) {
	reg := srtest.Start(srtest.Options{})
	defer reg.Close()
	f, err := resolve(t, "url", reg.URL(), "subject", "evolving")
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := client(f.Options)
	cl := rc.cl
	writer := `{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":[{"name":"id","type":"int"},` +
		`{"name":"removed","type":{"type":"array","items":"string"},"default":[]},` +
		`{"name":"name","type":["null","string"],"default":null}]}`
	ws, err := hamba.Parse(writer)
	if err != nil {
		t.Fatal(err)
	}
	id, err := cl.RegisterSchema(t.Context(), "evolving", srSchema(writer), -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	body, err := hamba.Marshal(ws, map[string]any{"id": 42, "removed": []string{"x", "y"}, "name": "alice"})
	if err != nil {
		t.Fatal(err)
	}
	rec := binary.BigEndian.AppendUint32([]byte{0}, uint32(id))
	rec = append(rec, body...)
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

	// A table with a NOT NULL column the writer lacks cannot read it.
	strict := append([]types.Field(nil), fields...)
	strict[2].Type = strict[2].Type.NotNullable()
	dec, err = f.NewDecoder(strict)
	if err != nil {
		t.Fatal(err)
	}
	err = dec.Decode(rec, &got)
	var de *factory.DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "amount") {
		t.Fatalf("NOT NULL column missing in the writer: %v", err)
	}

	// Registering the table's schema after the writer's is BACKWARD
	// compatible (amount is nullable with a default), so writes go on.
	enc, err := f.NewEncoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Encode(nil, row(1, "b")); err != nil {
		t.Fatalf("compatible registration: %v", err)
	}
	// An incompatible one (a NOT NULL column without default) is refused
	// by the registry, and the error says so.
	enc, err = f.NewEncoder(strict)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Encode(nil, row(1, "b")); err == nil || !strings.Contains(err.Error(), "incompatible") {
		t.Fatalf("incompatible registration: %v", err)
	}
}

// TestBadRecords: wrong magic byte, short header, unknown id.
func TestBadRecords(t *testing.T) {
	reg := srtest.Start(srtest.Options{})
	defer reg.Close()
	f, err := resolve(t, "url", reg.URL())
	if err != nil {
		t.Fatal(err)
	}
	dec, err := f.NewDecoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	var got types.Row
	for _, in := range [][]byte{{}, {0, 0, 0}, {1, 0, 0, 0, 1, 2}, {0, 0, 0, 0, 9, 2}} {
		var de *factory.DecodeError
		if err := dec.Decode(in, &got); !errors.As(err, &de) {
			t.Errorf("%x: %v", in, err)
		}
	}
	// An unknown id is asked for once, not once per record.
	for range 3 {
		if err := dec.Decode([]byte{0, 0, 0, 0, 9, 2}, &got); !errors.As(err, new(*factory.DecodeError)) {
			t.Fatal(err)
		}
	}
	if n := reg.Requests("GET /schemas/ids"); n != 1 {
		t.Fatalf("%d lookups of one unknown id, want 1", n)
	}
}

// TestAuth: basic auth and bearer tokens reach the registry; a wrong one
// fails with the registry's answer, and the secret is not in the error.
func TestAuth(t *testing.T) {
	reg := srtest.Start(srtest.Options{BasicAuth: "u:s3cret"})
	defer reg.Close()
	for _, c := range []struct {
		info string
		ok   bool
	}{{"u:s3cret", true}, {"u:wrong-pass", false}} {
		f, err := resolve(t, "url", reg.URL(), "subject", "s", "basic-auth.credentials-source", "USER_INFO", "basic-auth.user-info", c.info)
		if err != nil {
			t.Fatal(err)
		}
		enc, _ := f.NewEncoder(fields)
		_, err = enc.Encode(nil, row(1, "a"))
		if (err == nil) != c.ok {
			t.Fatalf("%s: %v", c.info, err)
		}
		if err != nil && strings.Contains(err.Error(), "wrong-pass") {
			t.Fatalf("secret in error: %v", err)
		}
	}
	breg := srtest.Start(srtest.Options{BearerToken: "tok"})
	defer breg.Close()
	f, err := resolve(t, "url", breg.URL(), "subject", "s", "bearer-auth.credentials-source", "STATIC_TOKEN", "bearer-auth.token", "tok")
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := f.NewEncoder(fields)
	if _, err := enc.Encode(nil, row(1, "a")); err != nil {
		t.Fatalf("bearer: %v", err)
	}
}

// TestOptions: Flink's options that are not built say so; secrets are
// masked in option errors; writing needs a subject or a single topic.
func TestOptions(t *testing.T) {
	for _, kv := range [][]string{
		{"ssl.truststore.location", "/x"}, {"ssl.keystore.location", "/x"}, {"schema", "{}"},
		{"properties", "a:b"}, {"basic-auth.credentials-source", "URL"},
	} {
		_, err := resolve(t, "url", "http://localhost:1", kv[0], kv[1])
		if err == nil || !strings.Contains(err.Error(), "not supported yet") {
			t.Errorf("%s: %v", kv[0], err)
		}
	}
	_, err := resolve(t, "url", "http://localhost:1", "basic-auth.user-info", "nocolon-secret")
	if err == nil || strings.Contains(err.Error(), "nocolon-secret") {
		t.Errorf("bad user-info: %v", err)
	}
	if _, err := resolve(t); !errors.As(err, new(*option.MissingOptionsError)) {
		t.Errorf("no url: %v", err)
	}
	f, err := resolve(t, "url", "http://localhost:1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.NewEncoder(fields); err == nil || !strings.Contains(err.Error(), "subject") {
		t.Errorf("no subject, no topic: %v", err)
	}
}

func srSchema(s string) sr.Schema { return sr.Schema{Schema: s, Type: sr.TypeAvro} }

// TestURLPasswordNotInErrors: a registry URL with user information
// (http://user:password@host) is quoted by the registry client's errors;
// the password, as written or escaped, never reaches the error, while the
// host still does.
func TestURLPasswordNotInErrors(t *testing.T) {
	for _, pw := range []string{"s3cretpw", "s3cret%23pw"} { // the second is "s3cret#pw" escaped
		f, err := resolve(t, "url", "http://reg:"+pw+"@127.0.0.1:1", "subject", "s")
		if err != nil {
			t.Fatal(err)
		}
		dec, err := f.NewDecoder(fields)
		if err != nil {
			t.Fatal(err)
		}
		var got types.Row
		derr := dec.Decode([]byte{0, 0, 0, 0, 1, 2}, &got)
		enc, err := f.NewEncoder(fields)
		if err != nil {
			t.Fatal(err)
		}
		_, eerr := enc.Encode(nil, row(1, "a"))
		for _, err := range []error{derr, eerr} {
			if err == nil {
				t.Fatal("no error from an unreachable registry")
			}
			if msg := err.Error(); strings.Contains(msg, "s3cret") || !strings.Contains(msg, "127.0.0.1:1") {
				t.Errorf("error shows the URL's password or not the host: %s", msg)
			}
		}
	}
}
