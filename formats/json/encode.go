package json

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/text"
	"github.com/streamsql/streamsql/types"
)

// Map null-key modes (json.map-null-key.mode).
const (
	nullKeyFail    = "FAIL"
	nullKeyDrop    = "DROP"
	nullKeyLiteral = "LITERAL"
)

type encoder struct {
	root         *node
	ignoreNull   bool
	plainDecimal bool
	iso          bool
	nullKeyMode  string
	nullLiteral  string
}

// Encode implements factory.Encoder.
func (e *encoder) Encode(dst []byte, row types.Row) ([]byte, error) {
	if len(row.Fields) != len(e.root.fields) {
		return dst, &factory.EncodeError{Format: "json", Err: fmt.Errorf("row has %d fields, the format expects %d", len(row.Fields), len(e.root.fields))}
	}
	return e.row(dst, e.root, row.Fields)
}

func (e *encoder) row(dst []byte, n *node, vals []types.Value) ([]byte, error) {
	if len(vals) != len(n.fields) {
		return dst, &factory.EncodeError{Format: "json", Field: n.path, Err: fmt.Errorf("row value has %d fields, its type has %d", len(vals), len(n.fields))}
	}
	dst = append(dst, '{')
	first := true
	for i, f := range n.fields {
		v := &vals[i]
		if v.IsNull() && e.ignoreNull {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, f.key...)
		// The commonest kinds inline, without value's call and copy of v.
		if !v.IsNull() {
			switch f.typ.Kind {
			case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
				dst = strconv.AppendInt(dst, v.Int64(), 10)
				continue
			case types.KindChar, types.KindVarChar:
				dst = appendString(dst, v.Str())
				continue
			}
		}
		var err error
		if dst, err = e.value(dst, f, *v); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func (e *encoder) value(dst []byte, n *node, v types.Value) ([]byte, error) {
	if v.IsNull() {
		return append(dst, "null"...), nil
	}
	switch n.typ.Kind {
	case types.KindBoolean:
		return strconv.AppendBool(dst, v.Bool()), nil
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return strconv.AppendInt(dst, v.Int64(), 10), nil
	case types.KindFloat, types.KindDouble:
		f := v.Float64()
		bits := 64
		if n.typ.Kind == types.KindFloat {
			bits = 32
		}
		if f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
			// Jackson writes NaN and infinities as strings.
			dst = append(dst, '"')
			dst = text.AppendJavaDouble(dst, f, bits)
			return append(dst, '"'), nil
		}
		return text.AppendJavaDouble(dst, f, bits), nil
	case types.KindDecimal:
		d := v.Decimal()
		if d.Scale() != n.typ.Scale {
			var err error
			if d, err = d.Rescale(n.typ.Precision, n.typ.Scale); err != nil {
				return dst, &factory.EncodeError{Format: "json", Field: n.path, Err: err}
			}
		}
		// Jackson's decimal nodes strip trailing zeros (1.50 is written 1.5).
		return text.AppendDecimal(dst, text.StripTrailingZeros(d), e.plainDecimal), nil
	case types.KindChar, types.KindVarChar:
		return appendString(dst, v.Str()), nil
	case types.KindBinary, types.KindVarBinary:
		b := v.Bytes()
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, b)
		return append(dst, '"'), nil
	case types.KindDate:
		dst = append(dst, '"')
		dst = text.AppendDate(dst, int64(v.Date()))
		return append(dst, '"'), nil
	case types.KindTime:
		// Flink writes TIME as HH:mm:ss: it keeps whole seconds only.
		dst = append(dst, '"')
		dst = text.AppendTime(dst, v.Time(), false)
		return append(dst, '"'), nil
	case types.KindTimestamp, types.KindTimestampLTZ:
		sep := byte(' ')
		if e.iso {
			sep = 'T'
		}
		dst = append(dst, '"')
		dst = text.AppendTimestamp(dst, v.Timestamp(), sep, n.typ.Kind == types.KindTimestampLTZ)
		return append(dst, '"'), nil
	case types.KindArray:
		dst = append(dst, '[')
		for i, x := range v.List() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = e.value(dst, n.elem, x); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case types.KindMap, types.KindMultiset:
		return e.mapValue(dst, n, v.Map())
	case types.KindRow:
		return e.row(dst, n, v.List())
	}
	return dst, &factory.EncodeError{Format: "json", Field: n.path, Err: fmt.Errorf("unsupported type %s", n.typ)}
}

var errNullKey = errors.New("map key is null and json.map-null-key.mode is FAIL (set it to DROP or LITERAL)")

func (e *encoder) mapValue(dst []byte, n *node, m *types.MapData) ([]byte, error) {
	dst = append(dst, '{')
	if m == nil {
		return append(dst, '}'), nil
	}
	first := true
	for i, k := range m.Keys {
		if k.IsNull() {
			switch e.nullKeyMode {
			case nullKeyDrop:
				continue
			case nullKeyLiteral:
			default:
				return dst, &factory.EncodeError{Format: "json", Field: n.path, Err: errNullKey}
			}
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		switch {
		case k.IsNull():
			dst = appendString(dst, e.nullLiteral)
		case n.elem.typ.IsString():
			dst = appendString(dst, k.Str())
		default:
			// A non-string key is written as the text of its JSON value.
			start := len(dst)
			var err error
			if dst, err = e.value(dst, n.elem, k); err != nil {
				return dst, err
			}
			if dst[start] != '"' {
				tmp := append([]byte(nil), dst[start:]...)
				dst = append(dst[:start], '"')
				dst = append(dst, tmp...)
				dst = append(dst, '"')
			}
		}
		dst = append(dst, ':')
		var val types.Value
		if i < len(m.Values) {
			val = m.Values[i]
		}
		var err error
		if dst, err = e.value(dst, n.val, val); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

const hexDigits = "0123456789ABCDEF"

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// appendString appends s as a JSON string the way Jackson escapes it: ",
// \ and control characters only (\b \t \n \f \r by name, others as
// \u00XX); everything else, non-ASCII included, is written as is.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	// Skip eight bytes at a time while none needs a look.
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !plain8(s[i : i+8]) {
			break
		}
	}
	start := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0xF0 {
			// Jackson (before 2.18) writes characters outside the BMP as
			// escaped UTF-16 surrogate pairs.
			r, size := utf8.DecodeRuneInString(s[i:])
			if size == 4 {
				dst = append(dst, s[start:i]...)
				r1, r2 := utf16.EncodeRune(r)
				dst = appendU(appendU(dst, r1), r2)
				i += size - 1
				start = i + 1
			}
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plain8 reports whether the eight bytes of s (len 8) are ASCII, not
// control characters and neither '"' nor '\\': appendString copies them as
// they are.
func plain8(s string) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	if w&hi != 0 {
		return false
	}
	// With every high bit clear, (x - lo) & ^x & hi is not zero exactly
	// when a byte of x is zero, and (w - 0x20*lo) & ^w & hi exactly when
	// a byte of w is below 0x20.
	q, b := w^(lo*'"'), w^(lo*'\\')
	return (w-lo*0x20)&^w&hi == 0 && (q-lo)&^q&hi == 0 && (b-lo)&^b&hi == 0
}
