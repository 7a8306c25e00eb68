package planner

import (
	"strings"

	"github.com/streamsql/streamsql/types"
)

// ChangelogMode is the set of row kinds a source produces or a sink
// accepts.
type ChangelogMode uint8

// The changelog modes.
const (
	// InsertOnly: only INSERT rows (Flink's append-only streams).
	InsertOnly ChangelogMode = iota
	// Upsert: INSERT, UPDATE_AFTER and DELETE rows keyed by the primary
	// key (upsert-kafka).
	Upsert
	// AllKinds: every row kind, UPDATE_BEFORE included (print,
	// blackhole).
	AllKinds
)

// String returns a short description.
func (m ChangelogMode) String() string {
	switch m {
	case Upsert:
		return "upsert (INSERT, UPDATE_AFTER, DELETE)"
	case AllKinds:
		return "all row kinds"
	}
	return "append-only (INSERT)"
}

// accepts reports whether a sink of mode m accepts rows of a source of
// mode src.
func (m ChangelogMode) accepts(src ChangelogMode) bool {
	return src == InsertOnly || m == AllKinds || m == Upsert && src == Upsert
}

// ConnectorTraits is what the planner knows about a connector beyond its
// options: which metadata keys it reads and writes (with the types it
// delivers or expects) and the changelog modes of its source and sink.
// factory.ConnectorFactory has no place for these, so the planner keeps a
// table of the built-in connectors ([BuiltinTraits]) and embedders add
// theirs through [Options].Traits.
type ConnectorTraits struct {
	// ReadableMetadata maps each metadata key the source delivers to its
	// type. A metadata column may be declared with any type that key's
	// type casts to.
	ReadableMetadata map[string]types.Type
	// WritableMetadata maps each metadata key the sink writes to the type
	// it expects. A non-VIRTUAL metadata column whose key is not writable
	// makes the table unusable as a sink.
	WritableMetadata map[string]types.Type
	// Source and Sink are the changelog modes of the connector's source
	// (what it produces) and sink (what it accepts).
	Source, Sink ChangelogMode
	// RequiresPrimaryKey is set for connectors whose tables must declare
	// a PRIMARY KEY (upsert-kafka: the key of its records).
	RequiresPrimaryKey bool
	// ExactlyOnceSink, when set, reports whether a sink with these options
	// commits its writes with checkpoints (two-phase commit).
	ExactlyOnceSink func(options map[string]string) bool
}

var kafkaReadable = map[string]types.Type{
	"topic":          types.String().NotNullable(),
	"partition":      types.Int().NotNullable(),
	"offset":         types.BigInt().NotNullable(),
	"timestamp":      types.TimestampLTZ(3).NotNullable(),
	"timestamp-type": types.String().NotNullable(),
	"headers":        types.Map(types.String(), types.Bytes()).NotNullable(),
	"leader-epoch":   types.Int(),
}

var kafkaWritable = map[string]types.Type{
	"topic":     types.String(),
	"timestamp": types.TimestampLTZ(3),
	"headers":   types.Map(types.String(), types.Bytes()),
}

// kafkaExactlyOnce reports whether a Kafka sink's options ask for
// exactly-once delivery (sink.delivery-guarantee, or the deprecated
// sink.semantic of Flink 1.12/1.13).
func kafkaExactlyOnce(options map[string]string) bool {
	return deliveryGuarantee(options) == "exactly-once"
}

// deliveryGuarantee returns a Kafka sink's delivery guarantee: the value of
// sink.delivery-guarantee or sink.semantic (normalised to lower case with
// dashes), or at-least-once, the default.
func deliveryGuarantee(options map[string]string) string {
	v, ok := options["sink.delivery-guarantee"]
	if !ok {
		v, ok = options["sink.semantic"]
	}
	if !ok {
		return "at-least-once"
	}
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(v)), "_", "-")
}

// BuiltinTraits returns the traits of the built-in connectors, keyed by
// connector identifier. The result is a new map on each call.
func BuiltinTraits() map[string]ConnectorTraits {
	always := func(map[string]string) bool { return true }
	return map[string]ConnectorTraits{
		"kafka": {ReadableMetadata: kafkaReadable, WritableMetadata: kafkaWritable,
			Source: InsertOnly, Sink: InsertOnly, ExactlyOnceSink: kafkaExactlyOnce},
		"upsert-kafka": {ReadableMetadata: kafkaReadable, WritableMetadata: kafkaWritable,
			Source: Upsert, Sink: Upsert, RequiresPrimaryKey: true},
		"datagen":    {Source: InsertOnly, Sink: InsertOnly},
		"print":      {Source: InsertOnly, Sink: AllKinds},
		"blackhole":  {Source: InsertOnly, Sink: AllKinds},
		"filesystem": {Source: InsertOnly, Sink: InsertOnly, ExactlyOnceSink: always},
	}
}

// unsupportedConnectors are Flink connectors streamsql does not have yet;
// naming one gives a "not supported yet" error rather than "unknown".
var unsupportedConnectors = map[string]bool{
	"jdbc": true, "elasticsearch-6": true, "elasticsearch-7": true, "opensearch": true, "hbase-1.4": true,
	"hbase-2.2": true, "kinesis": true, "firehose": true, "mongodb": true, "pulsar": true, "rabbitmq": true,
	"dynamodb": true, "hive": true, "mysql-cdc": true, "postgres-cdc": true, "values": true,
}

// unsupportedFormats are Flink formats streamsql does not have yet.
var unsupportedFormats = map[string]bool{
	"avro": true, "avro-confluent": true, "debezium-json": true, "debezium-avro-confluent": true,
	"canal-json": true, "maxwell-json": true, "ogg-json": true, "parquet": true, "orc": true,
	"protobuf": true, "debezium-protobuf": true,
}
