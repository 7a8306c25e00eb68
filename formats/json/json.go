// Package json is the json format ('format' = 'json'), compatible with
// Flink's flink-json: the same option names and defaults, and the same
// bytes for the same rows (golden files produced by Flink itself are under
// testdata/flink; see tools/flink-formats-gen).
//
// Importing the package registers the format in factory.Default. Options,
// prefixed json. (or key.json., value.json.):
//
//	fail-on-missing-field          false  a missing field fails the record
//	ignore-parse-errors            false  bad fields become NULL, malformed
//	                                      records are skipped (ErrSkipRecord)
//	timestamp-format.standard      SQL    SQL (yyyy-MM-dd HH:mm:ss.f) or
//	                                      ISO-8601 (yyyy-MM-ddTHH:mm:ss.f)
//	map-null-key.mode              FAIL   FAIL, DROP or LITERAL
//	map-null-key.literal           null   key written for a NULL map key
//	encode.decimal-as-plain-number false  1E-7 vs 0.0000001
//	encode.ignore-null-fields      false  omit NULL fields when writing
//
// Type mapping, as Flink's: BOOLEAN, numbers as JSON numbers (DECIMAL
// exactly, as Java's BigDecimal prints it; FLOAT/DOUBLE as Java prints
// them, NaN and infinities as strings); strings as strings; BINARY/BYTES as
// base64 strings; DATE yyyy-MM-dd; TIME HH:mm:ss (Flink keeps whole seconds
// when writing); TIMESTAMP and TIMESTAMP_LTZ in the chosen standard, LTZ
// with a trailing Z (UTC); ARRAY as arrays; MAP and MULTISET as objects
// (MULTISET counts as values; non-string keys as the text of their value);
// ROW as nested objects. When reading, numbers, booleans and temporal
// values are also accepted as strings, a non-string JSON value for a STRING
// column is kept as its JSON text, and unknown fields are ignored. A record
// that is empty, blank or JSON null holds no row: Decode returns an error
// wrapping factory.ErrSkipRecord, as Flink skips it.
//
// Projection: a decoder made with FormatContext.ReadFields decodes only
// the fields the job reads; an unread field is NULL, its value is skipped
// as JSON without being converted (a bad value there fails no record) and
// json.fail-on-missing-field does not apply to it, as with Flink's
// projected json decoder (testdata/flink/projection.txt). The same holds
// inside ROW fields that FormatContext.ReadRows narrows (nested
// projection, as Flink's json format supports it): the ROW is built with
// its full width, its unread fields NULL and their values only scanned
// (strings are not unescaped, numbers and times not parsed).
//
// Deliberate deviation: a DECIMAL that does not fit its precision is a
// decode error (Flink silently reads NULL); with ignore-parse-errors it is
// NULL, as in Flink.
//
// The decoder is a hand-written scanner over the record bytes: scalars
// decode without allocating, and all unescaped strings of one record share
// a single copy of the record. See BenchmarkDecode.
package json

import (
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the format's name in 'format' = 'json'.
const Identifier = "json"

// The format's options, declared without the json. prefix.
var (
	FailOnMissingField = option.Bool("fail-on-missing-field").Default(false).
				Description("Fail when a field of the schema is missing from a record.")
	IgnoreParseErrors = option.Bool("ignore-parse-errors").Default(false).
				Description("Set fields that cannot be parsed to NULL and skip malformed records instead of failing.")
	TimestampStandard = option.Enum("timestamp-format.standard", "SQL", "ISO-8601").Default("SQL").
				Description("Text form of TIMESTAMP and TIMESTAMP_LTZ: SQL is `yyyy-MM-dd HH:mm:ss.s{p}`, ISO-8601 is `yyyy-MM-ddTHH:mm:ss.s{p}`; TIMESTAMP_LTZ adds `Z`.")
	MapNullKeyMode = option.Enum("map-null-key.mode", nullKeyFail, nullKeyDrop, nullKeyLiteral).Default(nullKeyFail).
			Description("What to do with a NULL map key when writing: fail, drop the entry, or write map-null-key.literal.")
	MapNullKeyLiteral = option.String("map-null-key.literal").Default("null").
				Description("The key written for a NULL map key when map-null-key.mode is LITERAL.")
	EncodeDecimalAsPlainNumber = option.Bool("encode.decimal-as-plain-number").Default(false).
					Description("Write DECIMAL values without scientific notation (0.000000027 rather than 2.7E-8).")
	EncodeIgnoreNullFields = option.Bool("encode.ignore-null-fields").Default(false).
				Description("Omit fields whose value is NULL when writing.")
)

// Factory returns the json format's declaration.
func Factory() factory.FormatFactory {
	return factory.FormatFactory{
		Identifier:  Identifier,
		Description: "JSON objects, one per record, compatible with Flink's json format.",
		Options: []option.Option{FailOnMissingField, IgnoreParseErrors, TimestampStandard,
			MapNullKeyMode, MapNullKeyLiteral, EncodeDecimalAsPlainNumber, EncodeIgnoreNullFields},
		Rules: []option.Rule{
			option.Check("fail-on-missing-field and ignore-parse-errors cannot both be true", func(c *option.Config) error {
				if FailOnMissingField.Get(c) && IgnoreParseErrors.Get(c) {
					return errBothTrue
				}
				return nil
			}, FailOnMissingField, IgnoreParseErrors),
		},
		NewDecoder: NewDecoder,
		NewEncoder: NewEncoder,
	}
}

func init() { factory.MustRegisterFormat(Factory()) }

type constErr string

func (e constErr) Error() string { return string(e) }

const errBothTrue = constErr("set only one of them")

// NewDecoder returns a decoder for ctx.Fields with ctx.Options.
func NewDecoder(ctx factory.FormatContext) (factory.Decoder, error) {
	root, err := compileRoot(ctx)
	if err != nil {
		return nil, err
	}
	return &decoder{
		root:        root,
		hasDecimal:  hasDecimal(root),
		failMissing: FailOnMissingField.Get(ctx.Options),
		ignore:      IgnoreParseErrors.Get(ctx.Options),
		iso:         TimestampStandard.Get(ctx.Options) == "ISO-8601",
	}, nil
}

// NewEncoder returns an encoder for ctx.Fields with ctx.Options.
func NewEncoder(ctx factory.FormatContext) (factory.Encoder, error) {
	root, err := compileRoot(ctx)
	if err != nil {
		return nil, err
	}
	return &encoder{
		root:         root,
		ignoreNull:   EncodeIgnoreNullFields.Get(ctx.Options),
		plainDecimal: EncodeDecimalAsPlainNumber.Get(ctx.Options),
		iso:          TimestampStandard.Get(ctx.Options) == "ISO-8601",
		nullKeyMode:  MapNullKeyMode.Get(ctx.Options),
		nullLiteral:  MapNullKeyLiteral.Get(ctx.Options),
	}, nil
}

func compileRoot(ctx factory.FormatContext) (*node, error) {
	root := &node{index: make(map[string]int, len(ctx.Fields))}
	for i, f := range ctx.Fields {
		c, err := compile(f.Name, f.Name, f.Type)
		if err != nil {
			return nil, err
		}
		c.unread = i < len(ctx.ReadFields) && !ctx.ReadFields[i]
		if i < len(ctx.ReadRows) && !c.unread {
			projectRow(c, ctx.ReadRows[i])
		}
		root.fields = append(root.fields, c)
		root.index[f.Name] = i
	}
	return root, nil
}

// projectRow marks the fields of n, a ROW, that r says are not read
// (FormatContext.ReadRows), and narrows its read ROW fields in turn.
// It does nothing when r is nil or does not fit n's type.
func projectRow(n *node, r *factory.RowRead) {
	if r == nil || !r.Fits(n.typ) {
		return
	}
	for i, f := range n.fields {
		f.unread = !r.Reads(i)
		if !f.unread {
			projectRow(f, r.Row(i))
		}
	}
}

func hasDecimal(n *node) bool {
	if n.typ.Kind == types.KindDecimal {
		return true
	}
	for _, c := range append(n.fields, n.elem, n.val) {
		if c != nil && hasDecimal(c) {
			return true
		}
	}
	return false
}

// ProjectRows makes d, a decoder from NewDecoder, skip in every nested
// ROW value of type row the fields that read marks false, as a decoder
// made with FormatContext.ReadFields does at the top level: they are NULL,
// their values only checked to be JSON; and, within read ROW fields, the
// nested fields that rows marks unread (FormatContext.ReadRows; nil:
// none). A ROW is of type row when its compiled type shares row's Fields
// slice (the change-event formats build their envelope from one row type:
// Debezium's before and after, Canal's data and old). It does nothing
// when read and rows are both nil, read's length is not row's, or d is
// not this package's.
func ProjectRows(d factory.Decoder, row types.Type, read []bool, rows []*factory.RowRead) {
	dec, ok := d.(*decoder)
	if read == nil && rows != nil {
		read = make([]bool, len(row.Fields))
		for i := range read {
			read[i] = true
		}
	}
	if !ok || len(read) != len(row.Fields) || len(read) == 0 || !factory.RowsFit(rows, row.Fields) {
		return
	}
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		if n.typ.Kind == types.KindRow && len(n.typ.Fields) == len(row.Fields) && &n.typ.Fields[0] == &row.Fields[0] {
			for i, f := range n.fields {
				f.unread = !read[i]
				if !f.unread && i < len(rows) {
					projectRow(f, rows[i])
				}
			}
			return
		}
		for _, f := range n.fields {
			walk(f)
		}
		walk(n.elem)
		walk(n.val)
	}
	walk(dec.root)
}
