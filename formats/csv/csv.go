// Package csv is the csv format ('format' = 'csv'), compatible with Flink's
// flink-csv: the same option names and defaults, and the same bytes for the
// same rows (golden files produced by Flink itself are under
// testdata/flink; see tools/flink-formats-gen). One message is one record,
// written without a line terminator; a quoted field may contain line
// breaks, which the encoder quotes. Readers of streams of records (the
// filesystem source) find where each record ends with the format's
// RecordScanner (factory.Format.NewRecordScanner).
//
// Importing the package registers the format in factory.Default. Options,
// prefixed csv. (or key.csv., value.csv.):
//
//	field-delimiter                        ,      one character; \t and other
//	                                              backslash escapes allowed
//	disable-quote-character                false  never quote fields
//	quote-character                        "      one character
//	allow-comments                         false  skip records starting with #
//	ignore-parse-errors                    false  bad fields become NULL,
//	                                              malformed records are skipped
//	array-element-delimiter                ;      between ARRAY elements and
//	                                              ROW fields
//	escape-character                       (none) one character
//	null-literal                           (none) text of NULL
//	write-bigdecimal-in-scientific-notation true  1E+2 vs 100
//
// Types: every scalar type, ARRAY of scalars and ROW of scalars (elements
// joined by the array-element delimiter, as Flink does). MAP and MULTISET
// have no CSV form and are rejected when the decoder or encoder is created,
// with a *factory.UnsupportedTypeError naming the column.
//
// Quoting follows Jackson's CSV writer, which Flink uses: numeric and
// boolean columns are never quoted; other fields are quoted when they are
// longer than 24 characters or contain a character below the "safe" bound
// (the largest of the delimiter, the quote character and '\n', plus one),
// the quote character or the escape character. Inside quotes the quote
// character is doubled and the escape character is escaped.
//
// Projection: a decoder made with FormatContext.ReadFields converts only
// the fields read (an unread field is NULL, its text unchecked), and
// fails a record with fewer fields than are read, as Flink's projected
// decoder does (testdata/flink/projection.txt). With
// FormatContext.ReadRows the unread fields of a ROW column are NULL and
// not converted too (the ROW's number of fields is still checked).
//
// Deliberate deviations from Flink: a DECIMAL that does not fit its
// precision is a decode error (Flink reads NULL); an INT field "1.5" is an
// error in both; a record that is only a comment is skipped when
// allow-comments is true (Flink fails on it); a line break outside quotes
// is part of a message's record (Flink reads the first line and drops the
// rest).
package csv

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the format's name in 'format' = 'csv'.
const Identifier = "csv"

// The format's options, declared without the csv. prefix.
var (
	FieldDelimiter = option.String("field-delimiter").Default(",").
			Description("Field delimiter, a single character; `\\t` is a tab.")
	DisableQuoteCharacter = option.Bool("disable-quote-character").Default(false).
				Description("Never quote fields. Cannot be combined with quote-character.")
	QuoteCharacter = option.String("quote-character").Default("\"").
			Description("Character that encloses field values, a single character.")
	AllowComments = option.Bool("allow-comments").Default(false).
			Description("Skip records that start with `#`.")
	IgnoreParseErrors = option.Bool("ignore-parse-errors").Default(false).
				Description("Set fields that cannot be parsed to NULL and skip malformed records instead of failing.")
	ArrayElementDelimiter = option.String("array-element-delimiter").Default(";").
				Description("Separator of ARRAY elements and ROW fields.")
	EscapeCharacter = option.String("escape-character").
			Description("Escape character, a single character (none by default).")
	NullLiteral = option.String("null-literal").
			Description("Text that stands for NULL (none by default: NULL is written as an empty field).")
	WriteBigDecimalInScientificNotation = option.Bool("write-bigdecimal-in-scientific-notation").Default(true).
						Description("Write DECIMAL values in scientific notation where Java's BigDecimal.toString does (1E+2).")
)

// Factory returns the csv format's declaration.
func Factory() factory.FormatFactory {
	single := func(o option.Opt[string]) option.Rule {
		return option.Check(fmt.Sprintf("'%s' must be a single character", o.Key()), func(c *option.Config) error {
			if v, ok := o.Lookup(c); ok {
				if u := unescapeChar(v); len([]rune(u)) != 1 {
					return fmt.Errorf("'%s' has %d characters", v, len([]rune(u)))
				}
			}
			return nil
		}, o)
	}
	return factory.FormatFactory{
		Identifier:  Identifier,
		Description: "Comma-separated values, one record per message or per line of a file (a quoted field may contain line breaks), compatible with Flink's csv format.",
		Options: []option.Option{FieldDelimiter, DisableQuoteCharacter, QuoteCharacter, AllowComments,
			IgnoreParseErrors, ArrayElementDelimiter, EscapeCharacter, NullLiteral, WriteBigDecimalInScientificNotation},
		Rules: []option.Rule{
			single(FieldDelimiter), single(QuoteCharacter), single(EscapeCharacter),
			option.Check("a format cannot define a quote character and disable quoting at the same time", func(c *option.Config) error {
				if DisableQuoteCharacter.Get(c) && c.Has(QuoteCharacter) {
					return errors.New("remove 'quote-character' or 'disable-quote-character'")
				}
				return nil
			}, QuoteCharacter, DisableQuoteCharacter),
		},
		NewDecoder: NewDecoder,
		NewEncoder: NewEncoder,
		NewRecordScanner: func(ctx factory.FormatContext) (factory.RecordScanner, error) {
			return newRecordScanner(ctx.Options)
		},
	}
}

func init() { factory.MustRegisterFormat(Factory()) }

// unescapeChar turns Flink's backslash notation (\t, \n, \\, \u0001) into the
// character.
func unescapeChar(s string) string {
	switch s {
	case `\t`:
		return "\t"
	case `\n`:
		return "\n"
	case `\r`:
		return "\r"
	case `\\`:
		return `\`
	case `\'`:
		return `'`
	case `\"`:
		return `"`
	}
	if len(s) == 6 && strings.HasPrefix(s, `\u`) {
		var r rune
		if _, err := fmt.Sscanf(s[2:], "%04x", &r); err == nil {
			return string(r)
		}
	}
	return s
}

type config struct {
	delim      byte
	quote      int // -1: disabled
	escape     int // -1: none
	comments   bool
	ignore     bool
	arrayDelim string
	nullLit    string
	hasNull    bool
	sci        bool
}

func newConfig(o *option.Config) (config, error) {
	c := config{quote: -1, escape: -1}
	d := unescapeChar(FieldDelimiter.Get(o))
	if len(d) != 1 {
		return c, fmt.Errorf("csv: field delimiter %q must be a single ASCII character", d)
	}
	c.delim = d[0]
	if !DisableQuoteCharacter.Get(o) {
		q := unescapeChar(QuoteCharacter.Get(o))
		if len(q) != 1 {
			return c, fmt.Errorf("csv: quote character %q must be a single ASCII character", q)
		}
		c.quote = int(q[0])
	}
	if e, ok := EscapeCharacter.Lookup(o); ok {
		e = unescapeChar(e)
		if len(e) != 1 {
			return c, fmt.Errorf("csv: escape character %q must be a single ASCII character", e)
		}
		c.escape = int(e[0])
	}
	c.comments = AllowComments.Get(o)
	c.ignore = IgnoreParseErrors.Get(o)
	c.arrayDelim = unescapeChar(ArrayElementDelimiter.Get(o))
	c.nullLit, c.hasNull = NullLiteral.Lookup(o)
	c.sci = WriteBigDecimalInScientificNotation.Get(o)
	return c, nil
}

// checkFields rejects types that have no CSV form.
func checkFields(fields []types.Field) error {
	for _, f := range fields {
		if err := checkType(f.Name, f.Type, 0); err != nil {
			return err
		}
	}
	return nil
}

func checkType(path string, t types.Type, depth int) error {
	unsupported := func(reason string) error {
		return &factory.UnsupportedTypeError{Format: Identifier, Field: path, Type: t.String(), Reason: reason}
	}
	switch t.Kind {
	case types.KindMap, types.KindMultiset:
		return unsupported("CSV has no representation of MAP or MULTISET; use json, or flatten the column")
	case types.KindInvalid, types.KindNull:
		return unsupported("the type has no CSV representation")
	case types.KindArray:
		if depth > 0 {
			return unsupported("nested ARRAY or ROW elements are not supported in CSV")
		}
		return checkType(path, *t.Elem, depth+1)
	case types.KindRow:
		if depth > 0 {
			return unsupported("nested ARRAY or ROW elements are not supported in CSV")
		}
		for _, f := range t.Fields {
			if err := checkType(path+"."+f.Name, f.Type, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// NewDecoder returns a decoder for ctx.Fields with ctx.Options.
func NewDecoder(ctx factory.FormatContext) (factory.Decoder, error) {
	if err := checkFields(ctx.Fields); err != nil {
		return nil, err
	}
	c, err := newConfig(ctx.Options)
	if err != nil {
		return nil, err
	}
	d := &decoder{cfg: c, fields: ctx.Fields, need: len(ctx.Fields)}
	if factory.RowsFit(ctx.ReadRows, ctx.Fields) {
		d.rows = ctx.ReadRows
	}
	if len(ctx.ReadFields) == len(ctx.Fields) {
		d.read, d.need = ctx.ReadFields, 0
		for _, r := range ctx.ReadFields {
			if r {
				d.need++
			}
		}
	}
	return d, nil
}

// NewEncoder returns an encoder for ctx.Fields with ctx.Options.
func NewEncoder(ctx factory.FormatContext) (factory.Encoder, error) {
	if err := checkFields(ctx.Fields); err != nil {
		return nil, err
	}
	c, err := newConfig(ctx.Options)
	if err != nil {
		return nil, err
	}
	minSafe := max(int(c.delim), c.quote, '\n') + 1
	return &encoder{cfg: c, fields: ctx.Fields, minSafe: minSafe}, nil
}
