// Package raw is the raw format ('format' = 'raw'), as Flink's: a record's
// bytes are the value of the table's single physical column.
//
// Importing the package registers the format in factory.Default. The column
// may be STRING, VARCHAR or CHAR (bytes decoded with raw.charset), BINARY,
// VARBINARY or BYTES (bytes as they are), or, as in Flink, BOOLEAN, TINYINT,
// SMALLINT, INT, BIGINT, FLOAT or DOUBLE (fixed-width binary in
// raw.endianness). Any other type, or more than one column, is rejected
// with a *factory.UnsupportedTypeError when the decoder or encoder is
// created.
//
// Options, prefixed raw. (or key.raw., value.raw.):
//
//	charset     UTF-8       UTF-8, US-ASCII, ISO-8859-1, UTF-16BE, UTF-16LE
//	                        (case-insensitive)
//	endianness  big-endian  big-endian or little-endian, for numbers
//
// A NULL value has no bytes: Decode reads a nil record (a Kafka tombstone)
// as NULL, and Encode appends nothing for NULL; a connector that must tell
// NULL from an empty string checks the row's field itself (the Kafka sink
// writes a tombstone).
package raw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the format's name in 'format' = 'raw'.
const Identifier = "raw"

var charsets = []string{"UTF-8", "US-ASCII", "ISO-8859-1", "UTF-16BE", "UTF-16LE"}

// The format's options, declared without the raw. prefix.
var (
	Charset = option.Enum("charset", charsets...).Default("UTF-8").
		Description("Charset of a STRING column's bytes.")
	Endianness = option.Enum("endianness", "big-endian", "little-endian").Default("big-endian").
			Description("Byte order of numeric columns.")
)

// Factory returns the raw format's declaration.
func Factory() factory.FormatFactory {
	return factory.FormatFactory{
		Identifier:  Identifier,
		Description: "The record's bytes are the value of the table's single column.",
		Options:     []option.Option{Charset, Endianness},
		NewDecoder:  func(ctx factory.FormatContext) (factory.Decoder, error) { return newCodec(ctx) },
		NewEncoder:  func(ctx factory.FormatContext) (factory.Encoder, error) { return newCodec(ctx) },
	}
}

func init() { factory.MustRegisterFormat(Factory()) }

type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

type codec struct {
	field   types.Field
	charset string
	order   byteOrder
	width   int
}

func newCodec(ctx factory.FormatContext) (*codec, error) {
	if len(ctx.Fields) != 1 {
		names := make([]string, len(ctx.Fields))
		for i, f := range ctx.Fields {
			names[i] = f.Name
		}
		return nil, &factory.UnsupportedTypeError{Format: Identifier, Field: strings.Join(names, ", "), Type: "ROW",
			Reason: fmt.Sprintf("the raw format needs exactly one physical column, the table has %d", len(ctx.Fields))}
	}
	f := ctx.Fields[0]
	c := &codec{field: f, charset: Charset.Get(ctx.Options), order: binary.BigEndian}
	if Endianness.Get(ctx.Options) == "little-endian" {
		c.order = binary.LittleEndian
	}
	switch f.Type.Kind {
	case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary:
	case types.KindBoolean, types.KindTinyInt:
		c.width = 1
	case types.KindSmallInt:
		c.width = 2
	case types.KindInt, types.KindFloat:
		c.width = 4
	case types.KindBigInt, types.KindDouble:
		c.width = 8
	default:
		return nil, &factory.UnsupportedTypeError{Format: Identifier, Field: f.Name, Type: f.Type.String(),
			Reason: "raw supports one STRING, BYTES, BOOLEAN, integer, FLOAT or DOUBLE column"}
	}
	return c, nil
}

var errWidth = errors.New("wrong number of bytes for the column type")

// Decode implements factory.Decoder.
func (c *codec) Decode(data []byte, row *types.Row) error {
	if cap(row.Fields) >= 1 {
		row.Fields = row.Fields[:1]
	} else {
		row.Fields = make([]types.Value, 1)
	}
	row.Kind = types.Insert
	row.Fields[0] = types.Value{}
	if data == nil {
		return nil
	}
	fail := func(off int, err error) error {
		return &factory.DecodeError{Format: Identifier, Field: c.field.Name, Offset: off, Err: err}
	}
	k := c.field.Type.Kind
	switch k {
	case types.KindBinary, types.KindVarBinary:
		row.Fields[0] = types.BytesValue(append([]byte(nil), data...))
		return nil
	case types.KindChar, types.KindVarChar:
		s, off, err := decodeString(c.charset, data)
		if err != nil {
			return fail(off, err)
		}
		row.Fields[0] = types.Str(s)
		return nil
	}
	if len(data) != c.width {
		return fail(0, fmt.Errorf("%w: %s needs %d, the record has %d", errWidth, k, c.width, len(data)))
	}
	var v types.Value
	switch k {
	case types.KindBoolean:
		v = types.Bool(data[0] != 0)
	case types.KindTinyInt:
		v = types.Int64(int64(int8(data[0])))
	case types.KindSmallInt:
		v = types.Int64(int64(int16(c.order.Uint16(data))))
	case types.KindInt:
		v = types.Int64(int64(int32(c.order.Uint32(data))))
	case types.KindBigInt:
		v = types.Int64(int64(c.order.Uint64(data)))
	case types.KindFloat:
		v = types.Float64(float64(math.Float32frombits(c.order.Uint32(data))))
	case types.KindDouble:
		v = types.Float64(math.Float64frombits(c.order.Uint64(data)))
	}
	row.Fields[0] = v
	return nil
}

// Encode implements factory.Encoder.
func (c *codec) Encode(dst []byte, row types.Row) ([]byte, error) {
	if len(row.Fields) != 1 {
		return dst, &factory.EncodeError{Format: Identifier, Field: c.field.Name, Err: fmt.Errorf("row has %d fields, raw writes one", len(row.Fields))}
	}
	v := row.Fields[0]
	if v.IsNull() {
		return dst, nil
	}
	switch c.field.Type.Kind {
	case types.KindBinary, types.KindVarBinary:
		return append(dst, v.Bytes()...), nil
	case types.KindChar, types.KindVarChar:
		out, err := encodeString(dst, c.charset, v.Str())
		if err != nil {
			return dst, &factory.EncodeError{Format: Identifier, Field: c.field.Name, Err: err}
		}
		return out, nil
	case types.KindBoolean:
		if v.Bool() {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case types.KindTinyInt:
		return append(dst, byte(v.Int64())), nil
	case types.KindSmallInt:
		return c.order.AppendUint16(dst, uint16(v.Int64())), nil
	case types.KindInt:
		return c.order.AppendUint32(dst, uint32(v.Int64())), nil
	case types.KindBigInt:
		return c.order.AppendUint64(dst, uint64(v.Int64())), nil
	case types.KindFloat:
		return c.order.AppendUint32(dst, math.Float32bits(float32(v.Float64()))), nil
	case types.KindDouble:
		return c.order.AppendUint64(dst, math.Float64bits(v.Float64())), nil
	}
	return dst, &factory.EncodeError{Format: Identifier, Field: c.field.Name, Err: fmt.Errorf("unsupported type %s", c.field.Type)}
}

func decodeString(charset string, b []byte) (string, int, error) {
	switch charset {
	case "UTF-8":
		if !utf8.Valid(b) {
			off := 0
			for off < len(b) {
				r, size := utf8.DecodeRune(b[off:])
				if r == utf8.RuneError && size <= 1 {
					break
				}
				off += size
			}
			return "", off, errors.New("invalid UTF-8")
		}
		return string(b), 0, nil
	case "US-ASCII":
		for i, c := range b {
			if c >= 0x80 {
				return "", i, errors.New("byte outside US-ASCII")
			}
		}
		return string(b), 0, nil
	case "ISO-8859-1":
		out := make([]rune, len(b))
		for i, c := range b {
			out[i] = rune(c)
		}
		return string(out), 0, nil
	default: // UTF-16BE, UTF-16LE
		if len(b)%2 != 0 {
			return "", len(b) - 1, errors.New("odd number of bytes in UTF-16")
		}
		var order binary.ByteOrder = binary.BigEndian
		if charset == "UTF-16LE" {
			order = binary.LittleEndian
		}
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = order.Uint16(b[2*i:])
		}
		return string(utf16.Decode(u)), 0, nil
	}
}

func encodeString(dst []byte, charset, s string) ([]byte, error) {
	switch charset {
	case "UTF-8":
		return append(dst, s...), nil
	case "US-ASCII", "ISO-8859-1":
		limit := rune(0x80)
		if charset == "ISO-8859-1" {
			limit = 0x100
		}
		for _, r := range s {
			if r >= limit {
				return dst, fmt.Errorf("character %q cannot be written in %s", r, charset)
			}
			dst = append(dst, byte(r))
		}
		return dst, nil
	default:
		var order byteOrder = binary.BigEndian
		if charset == "UTF-16LE" {
			order = binary.LittleEndian
		}
		for _, u := range utf16.Encode([]rune(s)) {
			dst = order.AppendUint16(dst, u)
		}
		return dst, nil
	}
}
