package avro

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/flinkgolden"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

var formatOpt = factory.FormatOption("format").Required()

// resolve validates avro.* options through a throwaway connector and
// returns the resolved format, exactly as a connector sees it.
func resolve(t testing.TB, kv ...string) (*factory.Format, error) {
	t.Helper()
	r := factory.NewRegistry()
	r.MustRegisterFormat(Factory())
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "t", Options: []option.Option{formatOpt},
		NewSink: func(factory.Context) (connector.Sink, error) { return nil, nil }})
	opts := map[string]string{"connector": "t", "format": "avro"}
	for i := 0; i < len(kv); i += 2 {
		opts["avro."+kv[i]] = kv[i+1]
	}
	v, err := r.Validate(factory.Table{Name: "t", Options: opts})
	if err != nil {
		return nil, err
	}
	return formatOpt.Get(v.Config), nil
}

func legacyArgs(opts map[string]string) []string {
	return []string{"timestamp_mapping.legacy", opts["avro.timestamp_mapping.legacy"]}
}

// TestFlinkSchemaGolden compares the derived schema with the text of the
// schema Flink's AvroSchemaConverter derives, byte for byte, and the types
// Flink rejects.
func TestFlinkSchemaGolden(t *testing.T) {
	f, err := os.Open("testdata/flink/schemas.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var legacy bool
	var typ types.Type
	n := 0
	for sc.Scan() {
		word, rest, _ := strings.Cut(sc.Text(), " ")
		switch word {
		case "type":
			l, ts, _ := strings.Cut(rest, " ")
			legacy = l == "true"
			typ, err = flinkgolden.ParseType(ts)
			if err != nil {
				t.Fatal(err)
			}
		case "schema", "error":
			n++
			got, err := DeriveSchema(Identifier, typ.Fields, legacy)
			if word == "error" {
				if err == nil {
					t.Errorf("%s legacy=%v: Flink fails (%s), we derive %s", typ, legacy, rest, got)
				}
				continue
			}
			if err != nil || got != rest {
				t.Errorf("%s legacy=%v:\n got %s (%v)\nwant %s", typ, legacy, got, err, rest)
			}
		}
	}
	if n < 60 {
		t.Fatalf("only %d schema cases", n)
	}
}

// TestFlinkSerializeGolden compares the encoder with Flink's
// AvroRowDataSerializationSchema byte for byte.
func TestFlinkSerializeGolden(t *testing.T) {
	blocks, err := flinkgolden.Read("testdata/flink/serialize.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range blocks {
		f, err := resolve(t, legacyArgs(b.Options)...)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range b.Cases {
			enc, err := f.NewEncoder(c.Type.Fields)
			if err != nil {
				t.Fatalf("line %d: %v", c.Line, err)
			}
			got, err := enc.Encode(nil, *c.Row)
			n++
			if c.Error != "" {
				if err == nil {
					t.Errorf("line %d: Flink fails (%s), we wrote %x", c.Line, c.Error, got)
				}
				continue
			}
			if err == nil && string(got) != string(c.Bytes) && hasMap(c.Type) && len(got) == len(c.Bytes) {
				// Flink writes map entries in Java HashMap order: compare the
				// entries it wrote with ours, unordered.
				dec, _ := f.NewDecoder(c.Type.Fields)
				var fr, or types.Row
				if dec.Decode(c.Bytes, &fr) == nil && dec.Decode(got, &or) == nil {
					fr, or = sortMaps(c.Type, fr), sortMaps(c.Type, or)
					if flinkgolden.DecodeProblem(flinkgolden.Case{Type: c.Type, Row: &fr}, or, nil) == "" {
						continue
					}
				}
			}
			if err != nil || string(got) != string(c.Bytes) {
				t.Errorf("line %d %v: %s\n got %x (%v)\nwant %x", c.Line, b.Options, c.Type, got, err, c.Bytes)
			}
		}
	}
	if n < 300 {
		t.Fatalf("only %d golden cases", n)
	}
}

// deviations lists where streamsql deliberately decodes differently from
// Flink, keyed by type, options and input (hex).
var deviations = flinkgolden.Deviations{}

func init() {
	for _, l := range []string{"true", "false"} {
		// 1000000 unscaled does not fit DECIMAL(5, 2): Flink reads NULL, we
		// fail rather than lose the value silently.
		deviations[fmt.Sprintf("ROW<`f` DECIMAL(5, 2)> NOT NULL %s 02060f4240", l)] = "an overflowing DECIMAL is an error, not NULL"
	}
}

// TestFlinkDeserializeGolden compares the decoder with Flink's
// AvroRowDataDeserializationSchema on Flink's own bytes, truncated copies
// and malformed inputs.
func TestFlinkDeserializeGolden(t *testing.T) {
	blocks, err := flinkgolden.Read("testdata/flink/deserialize.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	n := 0
	for _, b := range blocks {
		f, err := resolve(t, legacyArgs(b.Options)...)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range b.Cases {
			dec, err := f.NewDecoder(c.Type.Fields)
			if err != nil {
				t.Fatalf("line %d: %v", c.Line, err)
			}
			var row types.Row
			err = dec.Decode(c.Input, &row)
			n++
			if err == nil && c.Row != nil {
				// Map entries come out of Flink in HashMap order.
				sorted := sortMaps(c.Type, *c.Row)
				c.Row = &sorted
				row = sortMaps(c.Type, row)
			}
			key := fmt.Sprintf("%s %s %x", c.Type, b.Options["avro.timestamp_mapping.legacy"], c.Input)
			deviations.Check(t, seen, c.Line, key, flinkgolden.DecodeProblem(c, row, err))
		}
	}
	deviations.Unseen(t, seen)
	if n < 500 {
		t.Fatalf("only %d golden cases", n)
	}
}

// TestRoundTrip encodes random rows of every supported type and decodes
// them back.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, legacy := range []string{"true", "false"} {
		f, err := resolve(t, "timestamp_mapping.legacy", legacy)
		if err != nil {
			t.Fatal(err)
		}
		all := append(formattest.ScalarTypes(), formattest.NestedTypes()...)
		for _, ft := range all {
			fields := []types.Field{{Name: "f", Type: ft}, {Name: "g", Type: types.Int().NotNullable()}}
			enc, err := f.NewEncoder(fields)
			if err != nil {
				var ute *factory.UnsupportedTypeError
				if !errors.As(err, &ute) {
					t.Fatalf("%s: %v", ft, err)
				}
				continue
			}
			dec, err := f.NewDecoder(fields)
			if err != nil {
				t.Fatal(err)
			}
			var row types.Row
			for range 50 {
				v := formattest.Value(r, ft, formattest.Limits{}, 0)
				if ft.IsTimestamp() && !v.IsNull() {
					v = types.TimestampValue(v.Timestamp().Truncate(3)) // milliseconds, as Flink
				}
				in := types.Row{Fields: []types.Value{v, types.Int64(r.Int64N(1000))}}
				b, err := enc.Encode(nil, in)
				if err != nil {
					t.Fatalf("%s: %v", ft, err)
				}
				if err := dec.Decode(b, &row); err != nil {
					t.Fatalf("%s: decode %x: %v", ft, b, err)
				}
				for i, fl := range fields {
					if !formattest.Equal(fl.Type, in.Fields[i], row.Fields[i]) {
						t.Fatalf("%s: wrote %s, read %s", ft, formattest.Show(fl.Type, in.Fields[i]), formattest.Show(fl.Type, row.Fields[i]))
					}
				}
			}
		}
	}
}

// TestOptions: unsupported and invalid option values are named.
func TestOptions(t *testing.T) {
	_, err := resolve(t, "encoding", "json")
	if err == nil || !strings.Contains(err.Error(), "not supported yet") {
		t.Fatalf("avro.encoding=json: %v", err)
	}
	if _, err := resolve(t, "codec", "snappy"); err != nil {
		t.Fatalf("avro.codec: %v", err)
	}
	f, err := resolve(t)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.NewEncoder([]types.Field{{Name: "ts", Type: types.TimestampLTZ(3)}})
	var ute *factory.UnsupportedTypeError
	if !errors.As(err, &ute) || ute.Field != "ts" {
		t.Fatalf("TIMESTAMP_LTZ with legacy mapping: %v", err)
	}
	_, err = f.NewDecoder([]types.Field{{Name: "a-b", Type: types.Int()}})
	if !errors.As(err, &ute) || ute.Field != "a-b" {
		t.Fatalf("bad Avro name: %v", err)
	}
}

// TestDecodeErrors: malformed records are DecodeErrors naming the field.
func TestDecodeErrors(t *testing.T) {
	f, _ := resolve(t)
	dec, err := f.NewDecoder([]types.Field{{Name: "a", Type: types.Int()}, {Name: "s", Type: types.String()}})
	if err != nil {
		t.Fatal(err)
	}
	var row types.Row
	for _, in := range [][]byte{{}, {2}, {2, 2, 2}, {2, 2, 2, 0x7f}, {4, 2}, {0, 2, 1}} {
		err := dec.Decode(in, &row)
		var de *factory.DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("%x: %v", in, err)
		}
		if de.Field == "" {
			t.Errorf("%x: no field in %v", in, err)
		}
	}
}

func hasMap(t types.Type) bool {
	for _, f := range t.Fields {
		if f.Type.Kind == types.KindMap || f.Type.Kind == types.KindMultiset {
			return true
		}
	}
	return false
}

// sortMaps returns row with the entries of its top-level MAP and MULTISET
// fields sorted by key.
func sortMaps(t types.Type, row types.Row) types.Row {
	row = row.Clone()
	for i, f := range t.Fields {
		if (f.Type.Kind != types.KindMap && f.Type.Kind != types.KindMultiset) || row.Fields[i].IsNull() {
			continue
		}
		m := row.Fields[i].Map()
		idx := make([]int, m.Len())
		for j := range idx {
			idx[j] = j
		}
		sort.Slice(idx, func(a, b int) bool { return m.Keys[idx[a]].Str() < m.Keys[idx[b]].Str() })
		out := &types.MapData{}
		for _, j := range idx {
			out.Keys = append(out.Keys, m.Keys[j])
			out.Values = append(out.Values, m.Values[j])
		}
		row.Fields[i] = types.MapValue(out)
	}
	return row
}
