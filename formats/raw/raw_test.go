package raw

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

var formatOpt = factory.FormatOption("value.format").Required()

func resolve(t testing.TB, kv ...string) (*factory.Format, error) {
	t.Helper()
	r := factory.NewRegistry()
	r.MustRegisterFormat(Factory())
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "t", Options: []option.Option{formatOpt},
		NewSink: func(factory.Context) (connector.Sink, error) { return nil, nil }})
	opts := map[string]string{"connector": "t", "value.format": "raw"}
	for i := 0; i < len(kv); i += 2 {
		opts["value.raw."+kv[i]] = kv[i+1]
	}
	v, err := r.Validate(factory.Table{Name: "t", Options: opts})
	if err != nil {
		return nil, err
	}
	return formatOpt.Get(v.Config), nil
}

func TestRoundTrip(t *testing.T) {
	tys := []types.Type{types.String(), types.VarChar(5), types.Bytes(), types.Binary(3), types.Boolean(),
		types.TinyInt(), types.SmallInt(), types.Int(), types.BigInt(), types.Float(), types.Double()}
	for _, opts := range [][]string{nil, {"endianness", "little-endian", "charset", "utf-16le"}, {"charset", "UTF-16BE"}} {
		f, err := resolve(t, opts...)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		for _, ty := range tys {
			fields := []types.Field{{Name: "v", Type: ty}}
			dec, err := f.NewDecoder(fields)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := f.NewEncoder(fields)
			if err != nil {
				t.Fatal(err)
			}
			var row types.Row
			for i := 0; i < 300; i++ {
				v := formattest.Value(r, ty.NotNullable(), formattest.Limits{}, 0)
				data, err := enc.Encode(nil, types.Row{Fields: []types.Value{v}})
				if err != nil {
					t.Fatal(err)
				}
				if data == nil {
					data = []byte{}
				}
				if err := dec.Decode(data, &row); err != nil {
					t.Fatalf("%s %x: %v", ty, data, err)
				}
				if !formattest.Equal(ty, v, row.Fields[0]) {
					t.Fatalf("%s %v: wrote %s read %s", ty, opts, formattest.Show(ty, v), formattest.Show(ty, row.Fields[0]))
				}
			}
		}
	}
}

func TestBytesLayout(t *testing.T) {
	f, _ := resolve(t)
	enc, _ := f.NewEncoder([]types.Field{{Name: "v", Type: types.Int()}})
	got, _ := enc.Encode(nil, types.Row{Fields: []types.Value{types.Int64(0x01020304)}})
	if string(got) != "\x01\x02\x03\x04" {
		t.Errorf("big-endian INT: %x", got)
	}
	f, _ = resolve(t, "charset", "iso-8859-1")
	enc, _ = f.NewEncoder([]types.Field{{Name: "v", Type: types.String()}})
	got, _ = enc.Encode(nil, types.Row{Fields: []types.Value{types.Str("é")}})
	if string(got) != "\xe9" {
		t.Errorf("latin-1: %x", got)
	}
	_, err := enc.Encode(nil, types.Row{Fields: []types.Value{types.Str("中")}})
	var ee *factory.EncodeError
	if !errors.As(err, &ee) {
		t.Errorf("unencodable: %v", err)
	}
}

func TestNullAndErrors(t *testing.T) {
	f, _ := resolve(t)
	dec, _ := f.NewDecoder([]types.Field{{Name: "s", Type: types.String()}})
	var row types.Row
	if err := dec.Decode(nil, &row); err != nil || !row.Fields[0].IsNull() {
		t.Errorf("nil record: %v %v", err, row.Fields)
	}
	err := dec.Decode([]byte("ok\xff"), &row)
	var de *factory.DecodeError
	if !errors.As(err, &de) || de.Field != "s" || de.Offset != 2 {
		t.Errorf("invalid UTF-8: %v", err)
	}
	dec, _ = f.NewDecoder([]types.Field{{Name: "n", Type: types.BigInt()}})
	if err := dec.Decode([]byte{1, 2}, &row); !errors.As(err, &de) || !errors.Is(err, errWidth) {
		t.Errorf("short number: %v", err)
	}
	for _, fields := range [][]types.Field{
		{{Name: "a", Type: types.String()}, {Name: "b", Type: types.String()}},
		{{Name: "d", Type: types.DecimalType(10, 2)}},
	} {
		_, err := f.NewDecoder(fields)
		var ue *factory.UnsupportedTypeError
		if !errors.As(err, &ue) {
			t.Errorf("%v: %v", fields, err)
		}
	}
	_, err = resolve(t, "charset", "EBCDIC")
	var ie *option.InvalidValueError
	if !errors.As(err, &ie) || ie.Key != "value.raw.charset" {
		t.Errorf("charset: %v", err)
	}
}
