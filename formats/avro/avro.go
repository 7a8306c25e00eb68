// Package avro is the avro format ('format' = 'avro'), compatible with
// Flink's flink-avro: each Kafka record is one Avro binary datum (no
// container file, no schema in the record) of the schema Flink derives from
// the table (see DeriveSchema), so the same rows give the same bytes as in
// Flink (golden files written by Flink itself are under testdata/flink;
// see tools/flink-formats-gen).
//
// Importing the package registers the format in factory.Default. Options,
// prefixed avro. (or key.avro., value.avro.):
//
//	codec                    (none)  compression of Avro container files;
//	                                 as in Flink it applies to the filesystem
//	                                 connector only and has no effect on
//	                                 Kafka records (single datums)
//	encoding                 binary  binary (json: not supported yet)
//	timestamp_mapping.legacy true    TIMESTAMP as timestamp-millis and no
//	                                 TIMESTAMP_LTZ (true), or TIMESTAMP as
//	                                 local-timestamp-millis/-micros and
//	                                 TIMESTAMP_LTZ as timestamp-* (false)
//
// Type mapping, as Flink's: BOOLEAN boolean; TINYINT, SMALLINT, INT int;
// BIGINT long; FLOAT float; DOUBLE double; CHAR/VARCHAR string;
// BINARY/VARBINARY bytes; DECIMAL(p, s) bytes with the decimal logical type
// (big-endian two's complement of the unscaled value); DATE int/date; TIME
// (precision at most 3) int/time-millis; TIMESTAMP and TIMESTAMP_LTZ long
// with a timestamp logical type (see the option above); ARRAY array; MAP
// (string keys) and MULTISET (counts) map; ROW a nested record named
// record_<field>. A nullable column is the union ["null", T] with default
// null.
//
// The record path reads and writes straight between Avro bytes and the row
// with hamba/avro's Reader and Writer, following a program compiled once
// from the schema: no per-record maps or reflection, and all strings and
// bytes of a record share one allocation (see BenchmarkDecode).
//
// Reading resolves a writer schema against the table as Avro does (fields
// matched by name, writer fields the table lacks skipped, nullable columns
// the writer lacks NULL, int→long→float→double and string↔bytes
// promotion): the avro-confluent format uses this with the schema the
// registry returns for each record (NewResolvingDecoder).
//
// Projection: a decoder made with FormatContext.ReadFields and ReadRows
// (columns, and fields of ROW columns, the job reads) skips the others by
// the writer's schema: they are NULL and not converted, so a value they
// could not hold fails no record, while a record malformed there (a union
// branch or enum symbol out of range, a negative length, a bad boolean,
// a record cut short) fails as if the value were read.
//
// As Flink 1.20 does, TIMESTAMP(4..6) and TIMESTAMP_LTZ(4..6) with
// timestamp_mapping.legacy = false are written and read as milliseconds
// although their schema says timestamp-micros / local-timestamp-micros
// (so Flink reads our records and we read Flink's; golden files show it).
//
// Deliberate deviations: a DECIMAL whose bytes do not fit its precision, an
// int out of the range of a TINYINT or SMALLINT column, and a record that
// ends early are decode errors (Flink reads NULL, truncates, or fails with
// an EOFException).
package avro

import (
	"fmt"

	hamba "github.com/hamba/avro/v2"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the format's name in 'format' = 'avro'.
const Identifier = "avro"

// The format's options, declared without the avro. prefix.
var (
	Codec = option.String("codec").
		Description("Compression codec of Avro container files (null, deflate, snappy, bzip2, xz). As in Flink it applies to the filesystem connector only; Kafka records are single Avro datums and are never compressed by the format.")
	Encoding = option.Enum("encoding", "binary", "json").Default("binary").
			Description("Avro encoding of each record: binary (json is not supported yet).")
	TimestampMappingLegacy = option.Bool("timestamp_mapping.legacy").Default(true).
				Description("true: TIMESTAMP is timestamp-millis and TIMESTAMP_LTZ is not supported (Flink's default); false: TIMESTAMP is local-timestamp-millis/-micros and TIMESTAMP_LTZ is timestamp-millis/-micros.")
)

type constErr string

func (e constErr) Error() string { return string(e) }

const errJSONEncoding = constErr("not supported yet: use 'binary'")

// Factory returns the avro format's declaration.
func Factory() factory.FormatFactory {
	return factory.FormatFactory{
		Identifier:  Identifier,
		Description: "Avro binary records of the schema derived from the table, compatible with Flink's avro format.",
		Options:     []option.Option{Codec, Encoding, TimestampMappingLegacy},
		Rules: []option.Rule{
			option.Check("avro.encoding 'json' is not supported yet", func(c *option.Config) error {
				if Encoding.Get(c) == "json" {
					return errJSONEncoding
				}
				return nil
			}, Encoding),
		},
		NewDecoder: NewDecoder,
		NewEncoder: NewEncoder,
	}
}

func init() { factory.MustRegisterFormat(Factory()) }

// Schema returns the schema Flink derives for fields with the format's
// options, as JSON text and parsed.
func Schema(format string, fields []types.Field, legacyTimestamps bool) (string, hamba.Schema, error) {
	text, err := DeriveSchema(format, fields, legacyTimestamps)
	if err != nil {
		return "", nil, err
	}
	s, err := hamba.ParseBytes([]byte(text))
	if err != nil {
		return "", nil, fmt.Errorf("%s: derived schema does not parse: %w", format, err)
	}
	return text, s, nil
}

// NewDecoder returns a decoder for ctx.Fields with ctx.Options.
func NewDecoder(ctx factory.FormatContext) (factory.Decoder, error) {
	_, s, err := Schema(Identifier, ctx.Fields, TimestampMappingLegacy.Get(ctx.Options))
	if err != nil {
		return nil, err
	}
	return NewResolvingDecoder(Identifier, s, ctx.Fields, ReadOf(ctx))
}

// ReadOf returns what a decoder of ctx reads of its fields
// (FormatContext.ReadFields and ReadRows), for NewResolvingDecoder: nil
// when all of them.
func ReadOf(ctx factory.FormatContext) *factory.RowRead {
	if ctx.ReadFields == nil && ctx.ReadRows == nil {
		return nil
	}
	r := &factory.RowRead{Fields: ctx.ReadFields, Rows: ctx.ReadRows}
	if len(r.Fields) != len(ctx.Fields) {
		r.Fields = nil // every field, narrowed by Rows
	}
	if !factory.RowsFit(r.Rows, ctx.Fields) {
		r.Rows = nil
	}
	return r
}

// NewResolvingDecoder returns a decoder of records written with the
// writer schema into rows of fields, resolving the two as Avro does. The
// job reads the fields read says (nil: all): the values of the others are
// skipped by the writer's schema (checked as well-formed Avro, not
// converted, so a value the column could not hold fails no record) and
// they are NULL.
func NewResolvingDecoder(format string, writer hamba.Schema, fields []types.Field, read *factory.RowRead) (*Decoder, error) {
	prog, err := compileDecoder(format, writer, fields, read)
	if err != nil {
		return nil, err
	}
	return &Decoder{d: newRowDecoder(format, prog)}, nil
}

// Decoder decodes Avro binary records of one writer schema. It is not safe
// for concurrent use.
type Decoder struct{ d *rowDecoder }

// Decode decodes data into row (factory.Decoder).
func (d *Decoder) Decode(data []byte, row *types.Row) error { return d.d.decode(data, row) }

// NewEncoder returns an encoder for ctx.Fields with ctx.Options.
func NewEncoder(ctx factory.FormatContext) (factory.Encoder, error) {
	if _, _, err := Schema(Identifier, ctx.Fields, TimestampMappingLegacy.Get(ctx.Options)); err != nil {
		return nil, err
	}
	return NewRowEncoder(Identifier, ctx.Fields), nil
}

// Encoder writes rows as Avro binary datums of the derived schema. It is
// not safe for concurrent use.
type Encoder struct{ e *rowEncoder }

// NewRowEncoder returns an encoder of rows of fields (whose schema
// DeriveSchema accepted).
func NewRowEncoder(format string, fields []types.Field) *Encoder {
	return &Encoder{e: newRowEncoder(format, fields)}
}

// Encode appends the encoding of row to dst (factory.Encoder).
func (e *Encoder) Encode(dst []byte, row types.Row) ([]byte, error) { return e.e.encode(dst, row) }
