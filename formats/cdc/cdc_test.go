package cdc

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

var formatOpt = factory.FormatOption("format").Required()

// resolve validates the format's options through a throwaway connector,
// as a connector sees them.
func resolve(t testing.TB, id string, kv ...string) (*factory.Format, error) {
	t.Helper()
	r := factory.NewRegistry()
	r.MustRegisterFormat(DebeziumFactory())
	r.MustRegisterFormat(CanalFactory())
	r.MustRegisterFormat(MaxwellFactory())
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "t", Options: []option.Option{formatOpt},
		NewSink: func(factory.Context) (connector.Sink, error) { return nil, nil }})
	opts := map[string]string{"connector": "t", "format": id}
	for i := 0; i < len(kv); i += 2 {
		opts[id+"."+kv[i]] = kv[i+1]
	}
	v, err := r.Validate(factory.Table{Name: "t", Options: opts})
	if err != nil {
		return nil, err
	}
	return formatOpt.Get(v.Config), nil
}

func newDec(t testing.TB, id string, fields []types.Field, metadata []string, kv ...string) factory.MultiRowDecoder {
	t.Helper()
	f, err := resolve(t, id, kv...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.NewMetadataDecoder(fields, metadata)
	if err != nil {
		t.Fatal(err)
	}
	return d.(factory.MultiRowDecoder)
}

// decodeAll returns the rows of one record as print shows them, or the
// error's text ("skip" for a skipped record).
func decodeAll(d factory.MultiRowDecoder, colTypes []types.Type, data []byte) string {
	var row types.Row
	if err := d.Decode(data, &row); err != nil {
		if errors.Is(err, factory.ErrSkipRecord) {
			return "skip"
		}
		return "error: " + err.Error()
	}
	out := []string{javafmt.FormatRow(row, colTypes)}
	for d.Next(&row) {
		out = append(out, javafmt.FormatRow(row, colTypes))
	}
	return strings.Join(out, " ")
}

var (
	idName   = []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}, {Name: "price", Type: types.DecimalType(10, 2)}}
	idTypes  = []types.Type{types.BigInt(), types.String(), types.DecimalType(10, 2)}
	metaKeys = []string{"source.table", "source.database", "ingestion-timestamp", "source.timestamp"}
)

func TestDebeziumDecode(t *testing.T) {
	d := newDec(t, Debezium, idName, nil)
	cases := []struct{ in, want string }{
		{`{"before":null,"after":{"id":1,"name":"a","price":1.5},"op":"c"}`, "+I[1, a, 1.50]"},
		{`{"before":null,"after":{"id":1,"name":"a","price":1.5},"op":"r"}`, "+I[1, a, 1.50]"},
		{`{"before":{"id":1,"name":"a","price":1.5},"after":{"id":1,"name":"b","price":null},"op":"u"}`, "-U[1, a, 1.50] +U[1, b, null]"},
		{`{"before":{"id":1,"name":"b"},"after":null,"op":"d"}`, "-D[1, b, null]"},
		{``, "skip"},
		{`null`, "error: debezium-json: cannot decode record at byte 0: the record is JSON null"},
		{`{"before":null,"after":{"id":1},"op":"x"}`, `error: debezium-json: cannot decode record at byte 0: unknown "op" value "x"`},
		{`{"before":null,"after":{"id":1},"op":"u"}`, `error: debezium-json: cannot decode record at byte 0: the "before" field of an UPDATE message is null; with Debezium's Postgres connector, set the table's REPLICA IDENTITY to FULL`},
		{`{"after":{"id":"x"},"op":"c"}`, "error: debezium-json: cannot decode field 'after.id' at byte 15: x is not a valid BIGINT"},
	}
	for _, c := range cases {
		if got := decodeAll(d, idTypes, []byte(c.in)); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	ign := newDec(t, Debezium, idName, nil, "ignore-parse-errors", "true")
	if got := decodeAll(ign, idTypes, []byte(`{"op":"x"}`)); got != "skip" {
		t.Errorf("ignore-parse-errors: %s, want skip", got)
	}
}

func TestDebeziumSchemaIncludeAndMetadata(t *testing.T) {
	d := newDec(t, Debezium, idName, append([]string{"schema"}, metaKeys...), "schema-include", "true")
	types := append(idTypes, str, str, str, ltz3, ltz3)
	in := `{"schema":{"type":"struct"},"payload":{"before":{"id":2,"name":"x","price":3},"after":{"id":2,"name":"y","price":4},` +
		`"source":{"db":"inventory","table":"products","ts_ms":1589362330000},"op":"u","ts_ms":1589362330904}}`
	got := decodeAll(d, types, []byte(in))
	want := `-U[2, x, 3.00, {"type":"struct"}, products, inventory, 2020-05-13T09:32:10.904Z, 2020-05-13T09:32:10Z] +U[2, y, 4.00, {"type":"struct"}, products, inventory, 2020-05-13T09:32:10.904Z, 2020-05-13T09:32:10Z]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCanalDecode(t *testing.T) {
	d := newDec(t, Canal, idName, []string{"database", "table", "ingestion-timestamp"}, "table.include", "prod.*")
	types := append(idTypes, str, str, ltz3)
	cases := []struct{ in, want string }{
		{`{"data":[{"id":1,"name":"a","price":"1.5"},{"id":2,"name":"b","price":"2"}],"database":"db","table":"products","type":"INSERT","ts":1589373560798}`,
			"+I[1, a, 1.50, db, products, 2020-05-13T12:39:20.798Z] +I[2, b, 2.00, db, products, 2020-05-13T12:39:20.798Z]"},
		{`{"data":[{"id":1,"name":"new","price":null}],"old":[{"name":"old"}],"database":"db","table":"products","type":"UPDATE"}`,
			"-U[1, old, null, db, products, null] +U[1, new, null, db, products, null]"},
		{`{"data":[{"id":1,"name":"new","price":"9"}],"old":[{"price":null}],"database":"db","table":"products","type":"UPDATE"}`,
			"-U[1, new, null, db, products, null] +U[1, new, 9.00, db, products, null]"},
		{`{"data":[{"id":1,"name":"a"}],"database":"db","table":"products","type":"DELETE"}`, "-D[1, a, null, db, products, null]"},
		{`{"data":[{"id":1}],"database":"db","table":"users","type":"INSERT"}`, "skip"},
		{`{"data":null,"database":"db","table":"products","type":"CREATE","isDdl":true}`, "skip"},
		{`{"data":null,"database":"db","table":"products","type":"ALTER","isDdl":true}`, `error: canal-json: cannot decode record at byte 0: unknown "type" value "ALTER"`},
		{`{"data":[{"id":1}],"database":"db","table":"products","type":"NOPE"}`, `error: canal-json: cannot decode record at byte 0: unknown "type" value "NOPE"`},
	}
	for _, c := range cases {
		if got := decodeAll(d, types, []byte(c.in)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	if _, err := resolve(t, Canal, "database.include", "("); err == nil || !strings.Contains(err.Error(), "database.include") {
		t.Errorf("a bad regular expression: %v", err)
	}
}

func TestMaxwellDecode(t *testing.T) {
	d := newDec(t, Maxwell, idName, []string{"table", "ingestion-timestamp"})
	types := append(idTypes, str, ltz3)
	cases := []struct{ in, want string }{
		{`{"database":"db","table":"products","type":"insert","ts":1596684883,"data":{"id":1,"name":"a","price":1.5}}`,
			"+I[1, a, 1.50, products, 2020-08-06T03:34:43Z]"},
		{`{"database":"db","table":"products","type":"update","ts":1596684883,"data":{"id":1,"name":"b","price":1.5},"old":{"name":"a"}}`,
			"-U[1, a, 1.50, products, 2020-08-06T03:34:43Z] +U[1, b, 1.50, products, 2020-08-06T03:34:43Z]"},
		{`{"database":"db","table":"products","type":"delete","data":{"id":1,"name":"b"}}`, "-D[1, b, null, products, null]"},
		{`{"database":"db","table":"products","type":"table-create"}`, `error: maxwell-json: cannot decode record at byte 0: unknown "type" value "table-create"`},
	}
	for _, c := range cases {
		if got := decodeAll(d, types, []byte(c.in)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestDebeziumEncode(t *testing.T) {
	f, err := resolve(t, Debezium)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := f.NewEncoder(idName)
	if err != nil {
		t.Fatal(err)
	}
	vals := []types.Value{types.Int64(1), types.Str("a"), {}}
	want := map[types.RowKind]string{
		types.Insert:       `{"before":null,"after":{"id":1,"name":"a","price":null},"op":"c"}`,
		types.UpdateAfter:  `{"before":null,"after":{"id":1,"name":"a","price":null},"op":"c"}`,
		types.UpdateBefore: `{"before":{"id":1,"name":"a","price":null},"after":null,"op":"d"}`,
		types.Delete:       `{"before":{"id":1,"name":"a","price":null},"after":null,"op":"d"}`,
	}
	for k, w := range want {
		got, err := enc.Encode(nil, types.Row{Kind: k, Fields: vals})
		if err != nil || string(got) != w {
			t.Errorf("%v: %s, %v; want %s", k, got, err, w)
		}
	}
	f, _ = resolve(t, Debezium, "schema-include", "true")
	if _, err := f.NewEncoder(idName); err == nil || !strings.Contains(err.Error(), "schema-include") {
		t.Errorf("schema-include for a sink: %v", err)
	}
}
