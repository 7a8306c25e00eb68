package planner_test

import (
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/csv"
	"github.com/streamsql/streamsql/formats/json"
	"github.com/streamsql/streamsql/formats/raw"
)

// testRegistry returns a registry with stand-ins of the built-in
// connectors (their main options, no behaviour) and the real formats, so
// that planner tests do not depend on which connectors are registered in
// factory.Default.
func testRegistry() *factory.Registry {
	r := factory.NewRegistry()
	r.MustRegisterFormat(json.Factory())
	r.MustRegisterFormat(csv.Factory())
	r.MustRegisterFormat(raw.Factory())
	src := func(factory.Context) (connector.Source, error) { return nil, nil }
	snk := func(factory.Context) (connector.Sink, error) { return nil, nil }
	kafkaOpts := []factory.Option{
		factory.List("topic"),
		factory.String("topic-pattern"),
		factory.String("properties.bootstrap.servers").Required(),
		factory.Prefix("properties."),
		factory.Enum("scan.startup.mode", "earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets"),
		factory.Enum("scan.bounded.mode", "unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets"),
		factory.Enum("sink.delivery-guarantee", "at-least-once", "exactly-once", "none").DeprecatedKey("sink.semantic", nil),
		factory.String("sink.transactional-id-prefix"),
		factory.FormatOption("key.format"),
		factory.FormatOption("value.format").FallbackKeys("format"),
		factory.List("key.fields"),
		factory.Enum("value.fields-include", "ALL", "EXCEPT_KEY"),
		factory.String("sasl.jaas.config").Sensitive(),
	}
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "kafka", Options: kafkaOpts, NewSource: src, NewSink: snk})
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "upsert-kafka", Options: kafkaOpts, NewSource: src, NewSink: snk})
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "datagen", NewSource: src, Options: []factory.Option{
		factory.Long("number-of-rows"), factory.Long("rows-per-second"), factory.Prefix("fields."),
	}})
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "print", NewSink: snk, Options: []factory.Option{
		factory.String("print-identifier"), factory.Bool("standard-error"), factory.Int("sink.parallelism"),
	}})
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "blackhole", NewSink: snk})
	r.MustRegisterConnector(factory.ConnectorFactory{Identifier: "filesystem", NewSource: src, NewSink: snk, Options: []factory.Option{
		factory.String("path").Required(), factory.FormatOption("format").Required(), factory.List("partition.keys"),
		factory.Size("sink.rolling-policy.file-size"), factory.Duration("sink.rolling-policy.rollover-interval"),
	}})
	return r
}

func noSource(factory.Context) (connector.Source, error) { return nil, nil }
func noSink(factory.Context) (connector.Sink, error)     { return nil, nil }
