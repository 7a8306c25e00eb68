// Package cdc holds the change-event JSON formats of Flink's flink-json:
// 'debezium-json', 'canal-json' and 'maxwell-json'. Their records are
// envelopes around the table's rows; decoding turns each into changelog
// rows (+I, -U/+U, -D), so a Kafka table with one of these value formats
// is a changelog source (factory.FormatFactory.Changelog), accepted by
// upsert-kafka and print sinks. debezium-json also encodes: every row
// becomes one envelope, as Flink writes it.
//
// The row payloads are decoded and encoded by package json (the same
// scanner, options and type mapping): an envelope is a json row whose
// 'before'/'after' (Debezium), 'data'/'old' (Canal, Maxwell) fields are
// ROWs (or ARRAYs of ROWs) of the table's physical columns.
//
// Semantics, as Flink's:
//
//   - debezium-json: op 'c' and 'r' are INSERT of 'after', 'u' is
//     UPDATE_BEFORE of 'before' then UPDATE_AFTER of 'after', 'd' is
//     DELETE of 'before'; a 'u' or 'd' without 'before' is an error
//     (Postgres tables need REPLICA IDENTITY FULL). With
//     debezium-json.schema-include the envelope is {"schema": ...,
//     "payload": {...}}. Encoding writes {"before":..,"after":..,"op":..}:
//     INSERT and UPDATE_AFTER as 'c' with 'after', UPDATE_BEFORE and
//     DELETE as 'd' with 'before'.
//   - canal-json: type INSERT, UPDATE, DELETE over every row of 'data'; an
//     UPDATE's before-row is the matching row of 'old' with the NULL
//     fields 'old' does not list taken from 'data' (unchanged), where a
//     field counts as listed when its name is a key anywhere in 'old' (in
//     any row, at any depth: inside nested ROWs, MAPs and ARRAYs too, as
//     Jackson's findValue finds it in Flink); a CREATE record
//     (DDL) holds no row, other DDL types are unknown types (errors), as in
//     Flink; canal-json.database.include and .table.include (regular
//     expressions, whole match) keep only the records of matching databases
//     and tables, checked before the rows are read.
//   - maxwell-json: type insert, update, delete of 'data', an update's
//     before-row built from 'old' as for Canal.
//   - An empty record (a Kafka tombstone, which Debezium writes after each
//     delete) holds no row and is skipped. Any other record that does not
//     decode, JSON null included, is an error, or skipped with
//     <format>.ignore-parse-errors.
//
// Compatibility is checked against Flink itself: testdata/flink holds what
// Flink 1.20's flink-json decodes (rows and kinds, skips, failures) for a
// set of envelopes and writes for rows of every kind, produced by
// tools/flink-formats-gen; TestFlinkChangelogGolden and
// TestFlinkDebeziumSerializeGolden compare row for row and byte for byte.
//
// Projection: a decoder made with FormatContext.ReadFields skips the
// unread fields in every row of an event (json.ProjectRows), and with
// FormatContext.ReadRows the unread fields of ROW columns: they are NULL
// and a bad value there fails no record, as with Flink's projectable
// change-event formats; malformed JSON there still fails it.
package cdc

import (
	"regexp"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/json"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// The format identifiers.
const (
	Debezium = "debezium-json"
	Canal    = "canal-json"
	Maxwell  = "maxwell-json"
)

// The options the formats share with json (declared without prefix: the
// keys are debezium-json.ignore-parse-errors, ...).
var (
	ignoreParseErrors = option.Bool("ignore-parse-errors").Default(false).
				Description("Skip records that cannot be decoded (and set fields that cannot be parsed to NULL) instead of failing.")
	timestampStandard = json.TimestampStandard
	mapNullKeyMode    = json.MapNullKeyMode
	mapNullKeyLiteral = json.MapNullKeyLiteral
	decimalPlain      = json.EncodeDecimalAsPlainNumber
	ignoreNullFields  = json.EncodeIgnoreNullFields

	// SchemaInclude is debezium-json.schema-include.
	SchemaInclude = option.Bool("schema-include").Default(false).
			Description("The Debezium records carry their schema: each is {\"schema\": ..., \"payload\": ...} (Kafka Connect's JsonConverter with schemas.enable). Decoding only; Flink cannot write it either.")
	// DatabaseInclude and TableInclude are canal-json.database.include and
	// canal-json.table.include.
	DatabaseInclude = option.String("database.include").
			Description("A regular expression: only records of the databases it matches as a whole are read.")
	TableInclude = option.String("table.include").
			Description("A regular expression: only records of the tables it matches as a whole are read.")
)

// DebeziumFactory returns the debezium-json format's declaration.
func DebeziumFactory() factory.FormatFactory {
	return factory.FormatFactory{
		Identifier: Debezium,
		Description: "Debezium change events in JSON (with or without the schema envelope), as Flink's debezium-json: " +
			"decoded into INSERT, UPDATE_BEFORE/UPDATE_AFTER and DELETE rows; encoded one envelope per row.",
		Options: []option.Option{SchemaInclude, ignoreParseErrors, timestampStandard, mapNullKeyMode, mapNullKeyLiteral,
			decimalPlain, ignoreNullFields},
		Changelog:        factory.AllKinds,
		ReadableMetadata: debeziumMetadata,
		NewDecoder:       func(ctx factory.FormatContext) (factory.Decoder, error) { return newDecoder(Debezium, ctx) },
		NewEncoder:       newDebeziumEncoder,
	}
}

// CanalFactory returns the canal-json format's declaration.
func CanalFactory() factory.FormatFactory {
	return factory.FormatFactory{
		Identifier:  Canal,
		Description: "Canal change events in JSON, as Flink's canal-json: decoded into INSERT, UPDATE_BEFORE/UPDATE_AFTER and DELETE rows (read only).",
		Options: []option.Option{ignoreParseErrors, timestampStandard, DatabaseInclude, TableInclude,
			mapNullKeyMode, mapNullKeyLiteral, decimalPlain},
		Rules: []option.Rule{
			option.Check("must be a valid regular expression", checkRegexp(DatabaseInclude), DatabaseInclude),
			option.Check("must be a valid regular expression", checkRegexp(TableInclude), TableInclude),
		},
		Changelog:        factory.AllKinds,
		ReadableMetadata: canalMetadata,
		NewDecoder:       func(ctx factory.FormatContext) (factory.Decoder, error) { return newDecoder(Canal, ctx) },
	}
}

// MaxwellFactory returns the maxwell-json format's declaration.
func MaxwellFactory() factory.FormatFactory {
	return factory.FormatFactory{
		Identifier:  Maxwell,
		Description: "Maxwell change events in JSON, as Flink's maxwell-json: decoded into INSERT, UPDATE_BEFORE/UPDATE_AFTER and DELETE rows (read only).",
		Options: []option.Option{ignoreParseErrors, timestampStandard, mapNullKeyMode, mapNullKeyLiteral,
			decimalPlain},
		Changelog:        factory.AllKinds,
		ReadableMetadata: maxwellMetadata,
		NewDecoder:       func(ctx factory.FormatContext) (factory.Decoder, error) { return newDecoder(Maxwell, ctx) },
	}
}

func init() {
	factory.MustRegisterFormat(DebeziumFactory())
	factory.MustRegisterFormat(CanalFactory())
	factory.MustRegisterFormat(MaxwellFactory())
}

func checkRegexp(o option.Opt[string]) func(c *option.Config) error {
	return func(c *option.Config) error {
		if v, ok := o.Lookup(c); ok {
			if _, err := compileInclude(v); err != nil {
				return err
			}
		}
		return nil
	}
}

// compileInclude compiles an include pattern to match whole names, as
// Java's Pattern.matcher(name).matches() does.
func compileInclude(p string) (*regexp.Regexp, error) {
	return regexp.Compile(`^(?:` + p + `)$`)
}

var (
	ltz3      = types.TimestampLTZ(3)
	str       = types.String()
	strMap    = types.Map(types.String(), types.String())
	strArray  = types.Array(types.String())
	intMap    = types.Map(types.String(), types.Int())
	timestamp = func(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }

	debeziumMetadata = map[string]types.Type{
		"schema": str, "ingestion-timestamp": ltz3, "source.timestamp": ltz3, "source.database": str,
		"source.schema": str, "source.table": str, "source.properties": strMap,
	}
	canalMetadata = map[string]types.Type{
		"database": str, "table": str, "sql-type": intMap, "pk-names": strArray,
		"ingestion-timestamp": ltz3, "event-timestamp": ltz3,
	}
	maxwellMetadata = map[string]types.Type{
		"database": str, "table": str, "primary-key-columns": strArray, "ingestion-timestamp": ltz3,
	}
)
