package planner_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// TestValueConstructors plans an INSERT that fills ARRAY, MAP and ROW
// columns with ARRAY[...], MAP[...] and ROW(...) (and the (a, b) form),
// runs rows through the flow and encodes the sink rows with the json and
// csv formats: the constructed values have the representation the formats
// expect.
func TestValueConstructors(t *testing.T) {
	p := compile(t, `CREATE TABLE src (id INT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE TABLE snk (
  tags ARRAY<BIGINT>, attrs MAP<STRING, DECIMAL(12, 2)>, who ROW<id BIGINT, name STRING>, pair ROW<a INT, b STRING>,
  n INT, first_tag BIGINT, amt DECIMAL(12, 2), nm STRING
) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT
  ARRAY[id, 7, NULL], MAP['amount', amount, 'one', 1], ROW(id, name), (id, 'x'),
  CARDINALITY(ARRAY[id, id]), ARRAY[id, CAST(2 AS BIGINT)][1], MAP['amount', amount, 'amount', 2]['amount'],
  ROW(id, name).EXPR$1
FROM src;`)
	fl := p.Inserts[0].Flows[0]
	tf, err := fl.Transform(expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := types.ParseDecimal("12.50")
	out, err := tf(types.Row{Fields: []types.Value{types.Int64(3), types.Str("ann"), types.DecimalValue(d)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err = tf(types.Row{Fields: []types.Value{{}, {}, {}}}, out)
	if err != nil {
		t.Fatal(err)
	}
	sinkFields := p.Inserts[0].Sink.Schema.Columns
	var fields []types.Field
	for _, c := range sinkFields {
		fields = append(fields, types.Field{Name: c.Name, Type: c.Type})
	}
	want := map[string][]string{
		"json": {
			`{"tags":[3,7,null],"attrs":{"amount":12.5,"one":1},"who":{"id":3,"name":"ann"},"pair":{"a":3,"b":"x"},"n":2,"first_tag":3,"amt":2,"nm":"ann"}`,
			`{"tags":[null,7,null],"attrs":{"amount":null,"one":1},"who":{"id":null,"name":null},"pair":{"a":null,"b":"x"},"n":2,"first_tag":null,"amt":2,"nm":null}`,
		},
	}
	for format, lines := range want {
		enc := encoder(t, format, fields)
		for i, r := range out {
			b, err := enc.Encode(nil, r)
			if err != nil {
				t.Fatalf("%s row %d: %v", format, i, err)
			}
			if got := string(b); got != lines[i] {
				t.Errorf("%s row %d:\n got %s\nwant %s", format, i, got, lines[i])
			}
		}
	}
	// csv has no MAP (the format refuses the type) and no nested
	// collections; the ARRAY and ROW columns are encoded.
	csvFields := []types.Field{fields[0], fields[2], fields[3]}
	enc := encoder(t, "csv", csvFields)
	b, err := enc.Encode(nil, types.Row{Fields: []types.Value{out[0].Fields[0], out[0].Fields[2], out[0].Fields[3]}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != "3;7;,3;ann,3;x" {
		t.Errorf("csv: got %q", got)
	}
}

func encoder(t *testing.T, format string, fields []types.Field) factory.Encoder {
	t.Helper()
	r := testRegistry()
	opt := factory.FormatOption("format").Required()
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "enc-test", Options: []option.Option{opt},
		NewSink: func(factory.Context) (connector.Sink, error) { return nil, nil }})
	v, err := r.Validate(factory.Table{Name: "t", Options: map[string]string{"connector": "enc-test", "format": format}})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := opt.Get(v.Config).NewEncoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestValueConstructorErrors: the constructors' type errors are reported at
// the constructor, as type errors, with Flink's rules.
func TestValueConstructorErrors(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"ARRAY[1, 'a']", "invalid arguments for ARRAY"},
		{"ARRAY[NULL]", "not all untyped NULL"},
		{"ARRAY[]", "at least one element"},
		{"MAP['a', 1, 'b']", "even number of arguments"},
		{"ROW(1, NULL)", "untyped NULL"},
		{"ROW(1, 'a').f0", "no field \"f0\""},
		{"ARRAY[1, 2].x", "only ROW values have fields"},
	} {
		_, err := planner.Compile(context.Background(), "job.sql", `CREATE TABLE src (id INT) WITH ('connector' = 'datagen');
CREATE TABLE snk (s STRING) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT CAST(`+tc.sql+` AS STRING) FROM src;`, planner.Options{Registry: testRegistry()})
		if err == nil {
			t.Errorf("%s: accepted", tc.sql)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "job.sql:3:") {
			t.Errorf("%s: error %q, want it to mention %q at line 3", tc.sql, err, tc.want)
		}
		if errors.Is(err, ddl.ErrUnsupported) {
			t.Errorf("%s: reported as unsupported: %v", tc.sql, err)
		}
	}
}
