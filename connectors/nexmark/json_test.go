package nexmark_test

import (
	"bytes"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/json"
	"github.com/streamsql/streamsql/option"
)

// TestAppendJSONIsFlinkJSON checks AppendJSON against the json format's
// encoder (whose output formats/json checks against Flink's own
// JsonRowDataSerializationSchema) for the rows of the same events with
// ddl_kafka.sql's schema: byte for byte, over every event type, with
// dates across a year boundary, a leap day and fractions of 0 to 3
// digits.
func TestAppendJSONIsFlinkJSON(t *testing.T) {
	// The json format as a table with 'format' = 'json' gets it.
	formatOpt := factory.FormatOption("format").Required()
	r := factory.NewRegistry()
	r.MustRegisterFormat(json.Factory())
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "t", Options: []option.Option{formatOpt},
		NewSink: func(factory.Context) (connector.Sink, error) { return nil, nil }})
	v, err := r.Validate(factory.Table{Name: "t", Options: map[string]string{"connector": "t", "format": "json"}})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := formatOpt.Get(v.Config).NewEncoder(nexmark.Schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"2023-12-31 23:59:58", "2024-02-28 23:59:59.001", "1999-06-01 12:00:00.5"} {
		opts := map[string]string{"events.num": "3000", "base-time": base, "first-event.rate": "997", "seed": "3"}
		cfg, err := nexmark.ConfigFromOptions(opts)
		if err != nil {
			t.Fatal(err)
		}
		m, err := nexmark.NewModel(cfg)
		if err != nil {
			t.Fatal(err)
		}
		g := m.NewGenerator(0)
		src := createSource(t, opts, nexmark.Schema)
		rows := readAll(t, src)
		var ev nexmark.Event
		var got, want []byte
		for i := 0; g.HasNext(); i++ {
			g.Next(&ev)
			got = nexmark.AppendJSON(got[:0], &ev)
			want, err = enc.Encode(want[:0], rows[i])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("base %s event %d:\n got %s\nwant %s", base, i, got, want)
			}
		}
	}
}
