package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/streamsql/streamsql/types"
)

// The codec: how state keys and values are encoded, one binary format for
// every logical type of package types. Operators encode what they keep with
// it (state holds bytes, never rows), the keyed exchange hashes the encoded
// key (KeyGroupOf), and backends store the bytes as they are.
//
// There are two encodings of a value:
//
//   - The key encoding (AppendKey, AppendKeyValue, ReadKey, ReadKeyValue)
//     is canonical — equal SQL values of a type give equal bytes (1.0 and
//     1.00 in a DECIMAL(p, 1) column, 0.0 and -0.0, every NaN) — and
//     order-preserving: bytes.Compare of two encodings orders them as SQL
//     orders the values (NULL first; strings and bytes by their bytes;
//     arrays and rows field by field), so that a MapTable's RangeKey
//     returns sub-keys in value order (MIN, MAX and window ends rely on
//     it). Each encoding is self-delimiting, so the encodings of several
//     columns concatenate into a composite key with the same properties.
//     MAP and MULTISET values have no order; their key encoding sorts the
//     entries so that it is canonical.
//   - The value encoding (AppendValue, ReadValue, AppendRow, ReadRow) is
//     compact (varints, length-prefixed strings) and exact: a decoded
//     value is the value encoded, -0.0 and NaN payloads included.
//
// Both encodings know the logical type from the caller, as Values do not
// carry it: a value is read with the type it was written with. Neither
// carries a version of its own (that would cost a byte per entry): a
// backend records CodecVersion in its snapshots.
//
// What is not kept: the digits of a TIMESTAMP(p) or TIMESTAMP_LTZ(p) below
// its precision when p <= 3 (the type has none below the millisecond; a
// value carrying some reads back without them), and in keys the digits of
// a DECIMAL beyond its type's scale (the value is rescaled to the scale,
// rounding half up). Decoded strings and bytes never alias the encoded
// bytes: state memory may be reused after the call that returned them.

// CodecVersion is the version of the key and value encodings. Backends
// write it into their snapshots; a change of the encodings bumps it and
// keeps reading the older versions.
const CodecVersion = 1

// ErrCorrupt is wrapped by the errors of decoding bytes that are not a
// valid encoding of the requested type (truncated or damaged state).
var ErrCorrupt = errors.New("corrupt encoded state")

// Key markers. A NULL is a single 0x00 in the key encoding; every non-NULL
// encoding starts with a byte above it.
const (
	keyNull    = 0x00
	keyPresent = 0x01 // before the payload of types whose payload may start with 0x00
	keyFalse   = 0x01
	keyTrue    = 0x02
	keyEnd     = 0x00 // ends an array or map: below keyPresent
)

// AppendKey appends the key encoding of the columns cols of row to dst and
// returns the extended slice. typs[i] is the type of column cols[i]. The
// result is what KeyGroupOf hashes and what a keyed operator's tables are
// keyed by.
func AppendKey(dst []byte, row []types.Value, cols []int, typs []types.Type) []byte {
	for i, c := range cols {
		dst = AppendKeyValue(dst, row[c], typs[i])
	}
	return dst
}

// AppendKeyValue appends the key encoding of v, of type t, to dst.
func AppendKeyValue(dst []byte, v types.Value, t types.Type) []byte {
	if v.IsNull() {
		return append(dst, keyNull)
	}
	switch t.Kind {
	case types.KindBoolean:
		if v.Bool() {
			return append(dst, keyTrue)
		}
		return append(dst, keyFalse)
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindTime, types.KindIntervalYearMonth, types.KindIntervalDayTime:
		return appendIntKey(dst, v.Int64())
	case types.KindDate:
		return appendIntKey(dst, int64(v.Date()))
	case types.KindFloat:
		f := float32(v.Float64())
		var u uint32
		switch {
		case f == 0:
			u = 0 // -0 is 0
		case f != f:
			u = 0x7fc00000 // every NaN is the one NaN, above +Inf
		default:
			u = math.Float32bits(f)
		}
		if u>>31 != 0 {
			u = ^u
		} else {
			u |= 1 << 31
		}
		return binary.BigEndian.AppendUint32(append(dst, keyPresent), u)
	case types.KindDouble:
		f := v.Float64()
		var u uint64
		switch {
		case f == 0:
			u = 0
		case f != f:
			u = 0x7ff8000000000000
		default:
			u = math.Float64bits(f)
		}
		if u>>63 != 0 {
			u = ^u
		} else {
			u |= 1 << 63
		}
		return binary.BigEndian.AppendUint64(append(dst, keyPresent), u)
	case types.KindDecimal:
		return appendDecimalKey(dst, v.Decimal(), t.Scale)
	case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary:
		return appendStringKey(dst, v.Str())
	case types.KindTimestamp, types.KindTimestampLTZ:
		ts := v.Timestamp()
		dst = appendIntKey(dst, ts.Millis)
		if t.Precision > 3 {
			dst = appendIntKey(dst, int64(ts.NanoOfMilli))
		}
		return dst
	case types.KindArray:
		dst = append(dst, keyPresent)
		for _, e := range v.List() {
			dst = AppendKeyValue(append(dst, keyPresent), e, *t.Elem)
		}
		return append(dst, keyEnd)
	case types.KindRow:
		dst = append(dst, keyPresent)
		l := v.List()
		for i, f := range t.Fields {
			var e types.Value
			if i < len(l) {
				e = l[i]
			}
			dst = AppendKeyValue(dst, e, f.Type)
		}
		return dst
	case types.KindMap, types.KindMultiset:
		return appendMapKey(dst, v.Map(), t)
	case types.KindNull:
		return append(dst, keyNull)
	}
	panic(fmt.Sprintf("state: no key encoding for type %s", t))
}

// appendIntKey appends an order-preserving variable-length integer: one
// header byte that holds the sign and the number n of big-endian bytes that
// follow (0x80+n for v >= 0; 0x7f-n for v < 0, whose bytes are those of
// ^v complemented), with no leading zero byte. Values within ±2^(8n) take
// 1+n bytes; the header is within [0x77, 0x88], never keyNull.
func appendIntKey(dst []byte, v int64) []byte {
	if v >= 0 {
		u := uint64(v)
		n := (bits.Len64(u) + 7) >> 3
		dst = append(dst, 0x80+byte(n))
		for i := n - 1; i >= 0; i-- {
			dst = append(dst, byte(u>>(8*i)))
		}
		return dst
	}
	u := ^uint64(v) // -v-1 >= 0
	n := (bits.Len64(u) + 7) >> 3
	dst = append(dst, 0x7f-byte(n))
	c := ^u
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(c>>(8*i)))
	}
	return dst
}

func readIntKey(src []byte) (int64, []byte, error) {
	if len(src) == 0 {
		return 0, nil, errTruncated
	}
	h := src[0]
	src = src[1:]
	switch {
	case h >= 0x80 && h <= 0x88:
		n := int(h - 0x80)
		if len(src) < n {
			return 0, nil, errTruncated
		}
		if n > 0 && src[0] == 0 {
			return 0, nil, errNotCanonical
		}
		var u uint64
		for _, b := range src[:n] {
			u = u<<8 | uint64(b)
		}
		if u > math.MaxInt64 {
			return 0, nil, fmt.Errorf("%w: integer out of range", ErrCorrupt)
		}
		return int64(u), src[n:], nil
	case h >= 0x77 && h <= 0x7f:
		n := int(0x7f - h)
		if len(src) < n {
			return 0, nil, errTruncated
		}
		if n > 0 && src[0] == 0xff {
			return 0, nil, errNotCanonical
		}
		var u uint64
		for _, b := range src[:n] {
			u = u<<8 | uint64(^b)
		}
		if u > math.MaxInt64 {
			return 0, nil, fmt.Errorf("%w: integer out of range", ErrCorrupt)
		}
		return ^int64(u), src[n:], nil
	}
	return 0, nil, fmt.Errorf("%w: bad integer header %#x", ErrCorrupt, h)
}

// Decimal keys: a class byte (negative, zero, positive), then for a
// non-zero value the length of the magnitude of the unscaled integer (at
// the type's scale) and its big-endian bytes, both complemented for a
// negative value. A length below 0xff is one byte; a longer one is 0xff
// and four big-endian bytes.
const (
	decNeg  = 0x01
	decZero = 0x02
	decPos  = 0x03
)

func appendDecimalKey(dst []byte, d types.Decimal, scale int) []byte {
	if d.Scale() != scale {
		// Rescaling cannot overflow a precision this large; a value of the
		// column has the column's scale already, so this is rare.
		r, err := d.Rescale(math.MaxInt32, scale)
		if err == nil {
			d = r
		}
	}
	sign := d.Sign()
	if sign == 0 {
		return append(dst, decZero)
	}
	var buf [8]byte
	var mag []byte
	if u, ok := d.UnscaledInt64(); ok {
		a := uint64(u)
		if u < 0 {
			a = -a
		}
		binary.BigEndian.PutUint64(buf[:], a)
		mag = buf[(bits.LeadingZeros64(a) >> 3):]
	} else {
		b := d.Unscaled()
		mag = b.Abs(b).Bytes()
	}
	if sign > 0 {
		dst = append(dst, decPos)
	} else {
		dst = append(dst, decNeg)
	}
	body := len(dst)
	if len(mag) < 0xff {
		dst = append(dst, byte(len(mag)))
	} else {
		dst = binary.BigEndian.AppendUint32(append(dst, 0xff), uint32(len(mag)))
	}
	dst = append(dst, mag...)
	if sign < 0 {
		for i := body; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}

func readDecimalKey(src []byte, scale int) (types.Decimal, []byte, error) {
	if len(src) == 0 {
		return types.Decimal{}, nil, errTruncated
	}
	class := src[0]
	src = src[1:]
	if class == decZero {
		return types.NewDecimal(0, scale), src, nil
	}
	if class != decNeg && class != decPos {
		return types.Decimal{}, nil, fmt.Errorf("%w: bad decimal header %#x", ErrCorrupt, class)
	}
	var flip byte
	if class == decNeg {
		flip = 0xff
	}
	if len(src) == 0 {
		return types.Decimal{}, nil, errTruncated
	}
	n := int(src[0] ^ flip)
	src = src[1:]
	if n == 0xff {
		if len(src) < 4 {
			return types.Decimal{}, nil, errTruncated
		}
		l := binary.BigEndian.Uint32(src) ^ uint32(flip)*0x01010101
		if l < 0xff {
			return types.Decimal{}, nil, errNotCanonical
		}
		if uint64(l) > uint64(len(src)-4) {
			return types.Decimal{}, nil, errTruncated
		}
		n = int(l)
		src = src[4:]
	}
	if n == 0 || len(src) < n {
		if n == 0 {
			return types.Decimal{}, nil, errNotCanonical
		}
		return types.Decimal{}, nil, errTruncated
	}
	if src[0]^flip == 0 {
		return types.Decimal{}, nil, errNotCanonical
	}
	mag := src[:n]
	src = src[n:]
	if n <= 8 {
		var u uint64
		for _, b := range mag {
			u = u<<8 | uint64(b^flip)
		}
		if class == decPos && u <= math.MaxInt64 {
			return types.NewDecimal(int64(u), scale), src, nil
		}
		if class == decNeg && u <= 1<<63 {
			return types.NewDecimal(int64(-u), scale), src, nil
		}
	}
	m := make([]byte, n)
	for i, b := range mag {
		m[i] = b ^ flip
	}
	b := new(big.Int).SetBytes(m)
	if class == decNeg {
		b.Neg(b)
	}
	return types.NewDecimalBig(b, scale), src, nil
}

// appendStringKey appends 0x01, s with each 0x00 escaped as 0x00 0xff,
// and the terminator 0x00 0x01: byte order is kept, and a string sorts
// before every longer string it is a prefix of.
func appendStringKey(dst []byte, s string) []byte {
	dst = append(dst, keyPresent)
	for {
		i := indexZero(s)
		if i < 0 {
			dst = append(dst, s...)
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, 0xff)
		s = s[i+1:]
	}
	return append(dst, 0x00, 0x01)
}

func indexZero(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

func readStringKey(src []byte) (string, []byte, error) {
	if len(src) == 0 {
		return "", nil, errTruncated
	}
	if src[0] != keyPresent {
		return "", nil, fmt.Errorf("%w: bad string header %#x", ErrCorrupt, src[0])
	}
	src = src[1:]
	// Fast path: no escaped zero byte.
	i := bytes.IndexByte(src, 0)
	if i >= 0 && i+1 < len(src) && src[i+1] == 0x01 {
		return string(src[:i]), src[i+2:], nil
	}
	var out []byte
	for {
		i := bytes.IndexByte(src, 0)
		if i < 0 || i+1 >= len(src) {
			return "", nil, errTruncated
		}
		out = append(out, src[:i]...)
		switch src[i+1] {
		case 0x01:
			return string(out), src[i+2:], nil
		case 0xff:
			out = append(out, 0)
			src = src[i+2:]
		default:
			return "", nil, fmt.Errorf("%w: bad escape in string key", ErrCorrupt)
		}
	}
}

// appendMapKey encodes a MAP or MULTISET as the sorted list of its
// entries' key encodings (key then value), each after keyPresent, ended by
// keyEnd: entry order does not change the bytes.
func appendMapKey(dst []byte, m *types.MapData, t types.Type) []byte {
	dst = append(dst, keyPresent)
	if m == nil || m.Len() == 0 {
		return append(dst, keyEnd)
	}
	vt := mapValueType(t)
	var buf []byte
	ends := make([]int, m.Len())
	for i := range m.Keys {
		buf = AppendKeyValue(buf, m.Keys[i], *t.Elem)
		var val types.Value
		if i < len(m.Values) {
			val = m.Values[i]
		}
		buf = AppendKeyValue(buf, val, vt)
		ends[i] = len(buf)
	}
	entry := func(i int) []byte {
		s := 0
		if i > 0 {
			s = ends[i-1]
		}
		return buf[s:ends[i]]
	}
	order := make([]int, m.Len())
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(entry(a), entry(b)) })
	for _, i := range order {
		dst = append(append(dst, keyPresent), entry(i)...)
	}
	return append(dst, keyEnd)
}

// mapValueType returns the type of a MAP's values, or INT NOT NULL, the
// count of a MULTISET's elements.
func mapValueType(t types.Type) types.Type {
	if t.Kind == types.KindMultiset || t.Value == nil {
		return types.Int().NotNullable()
	}
	return *t.Value
}

// ReadKey decodes the key encoding of len(typs) columns from src (as
// AppendKey wrote them), appends their values to dst and returns it with
// what follows them in src.
func ReadKey(src []byte, typs []types.Type, dst []types.Value) ([]types.Value, []byte, error) {
	for _, t := range typs {
		v, rest, err := ReadKeyValue(src, t)
		if err != nil {
			return dst, nil, err
		}
		dst = append(dst, v)
		src = rest
	}
	return dst, src, nil
}

// ReadKeyValue decodes one value of type t in the key encoding from src and
// returns it with the rest of src. Decoding is strict: bytes that
// AppendKeyValue cannot produce are an error wrapping ErrCorrupt.
func ReadKeyValue(src []byte, t types.Type) (types.Value, []byte, error) {
	if len(src) == 0 {
		return types.Value{}, nil, errTruncated
	}
	if src[0] == keyNull {
		return types.Value{}, src[1:], nil
	}
	switch t.Kind {
	case types.KindBoolean:
		switch src[0] {
		case keyFalse:
			return types.Bool(false), src[1:], nil
		case keyTrue:
			return types.Bool(true), src[1:], nil
		}
		return types.Value{}, nil, fmt.Errorf("%w: bad boolean %#x", ErrCorrupt, src[0])
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindIntervalYearMonth, types.KindIntervalDayTime:
		i, rest, err := readIntKey(src)
		return types.Int64(i), rest, err
	case types.KindTime:
		i, rest, err := readIntKey(src)
		return types.TimeValue(i), rest, err
	case types.KindDate:
		i, rest, err := readIntKey(src)
		if err == nil && int64(int32(i)) != i {
			err = fmt.Errorf("%w: DATE out of range", ErrCorrupt)
		}
		return types.DateValue(int32(i)), rest, err
	case types.KindFloat:
		if src[0] != keyPresent {
			return types.Value{}, nil, fmt.Errorf("%w: bad float header %#x", ErrCorrupt, src[0])
		}
		if len(src) < 5 {
			return types.Value{}, nil, errTruncated
		}
		u := binary.BigEndian.Uint32(src[1:])
		if u>>31 != 0 {
			u &^= 1 << 31
		} else {
			u = ^u
		}
		f := math.Float32frombits(u)
		if (f == 0 && u != 0) || (f != f && u != 0x7fc00000) {
			return types.Value{}, nil, errNotCanonical
		}
		return types.Float64(float64(f)), src[5:], nil
	case types.KindDouble:
		if src[0] != keyPresent {
			return types.Value{}, nil, fmt.Errorf("%w: bad double header %#x", ErrCorrupt, src[0])
		}
		if len(src) < 9 {
			return types.Value{}, nil, errTruncated
		}
		u := binary.BigEndian.Uint64(src[1:])
		if u>>63 != 0 {
			u &^= 1 << 63
		} else {
			u = ^u
		}
		f := math.Float64frombits(u)
		if (f == 0 && u != 0) || (f != f && u != 0x7ff8000000000000) {
			return types.Value{}, nil, errNotCanonical
		}
		return types.Float64(f), src[9:], nil
	case types.KindDecimal:
		d, rest, err := readDecimalKey(src, t.Scale)
		return types.DecimalValue(d), rest, err
	case types.KindChar, types.KindVarChar:
		s, rest, err := readStringKey(src)
		return types.Str(s), rest, err
	case types.KindBinary, types.KindVarBinary:
		s, rest, err := readStringKey(src)
		return types.BytesValue([]byte(s)), rest, err
	case types.KindTimestamp, types.KindTimestampLTZ:
		ms, rest, err := readIntKey(src)
		if err != nil {
			return types.Value{}, nil, err
		}
		var nanos int64
		if t.Precision > 3 {
			if nanos, rest, err = readIntKey(rest); err != nil {
				return types.Value{}, nil, err
			}
			if nanos < 0 || nanos > 999_999 {
				return types.Value{}, nil, fmt.Errorf("%w: nano-of-millisecond %d", ErrCorrupt, nanos)
			}
		}
		return types.TimestampValue(types.Timestamp{Millis: ms, NanoOfMilli: int32(nanos)}), rest, nil
	case types.KindArray:
		if src[0] != keyPresent {
			return types.Value{}, nil, fmt.Errorf("%w: bad array header %#x", ErrCorrupt, src[0])
		}
		src = src[1:]
		var elems []types.Value
		for {
			if len(src) == 0 {
				return types.Value{}, nil, errTruncated
			}
			if src[0] == keyEnd {
				if elems == nil {
					elems = []types.Value{}
				}
				return types.List(elems), src[1:], nil
			}
			if src[0] != keyPresent {
				return types.Value{}, nil, fmt.Errorf("%w: bad array element marker %#x", ErrCorrupt, src[0])
			}
			e, rest, err := ReadKeyValue(src[1:], *t.Elem)
			if err != nil {
				return types.Value{}, nil, err
			}
			elems = append(elems, e)
			src = rest
		}
	case types.KindRow:
		if src[0] != keyPresent {
			return types.Value{}, nil, fmt.Errorf("%w: bad row header %#x", ErrCorrupt, src[0])
		}
		src = src[1:]
		fields := make([]types.Value, len(t.Fields))
		for i, f := range t.Fields {
			v, rest, err := ReadKeyValue(src, f.Type)
			if err != nil {
				return types.Value{}, nil, err
			}
			fields[i] = v
			src = rest
		}
		return types.List(fields), src, nil
	case types.KindMap, types.KindMultiset:
		if src[0] != keyPresent {
			return types.Value{}, nil, fmt.Errorf("%w: bad map header %#x", ErrCorrupt, src[0])
		}
		src = src[1:]
		vt := mapValueType(t)
		m := &types.MapData{}
		var prev []byte
		for {
			if len(src) == 0 {
				return types.Value{}, nil, errTruncated
			}
			if src[0] == keyEnd {
				return types.MapValue(m), src[1:], nil
			}
			if src[0] != keyPresent {
				return types.Value{}, nil, fmt.Errorf("%w: bad map entry marker %#x", ErrCorrupt, src[0])
			}
			start := src[1:]
			k, rest, err := ReadKeyValue(start, *t.Elem)
			if err != nil {
				return types.Value{}, nil, err
			}
			v, rest, err := ReadKeyValue(rest, vt)
			if err != nil {
				return types.Value{}, nil, err
			}
			entry := start[:len(start)-len(rest)]
			if prev != nil && bytes.Compare(prev, entry) > 0 {
				return types.Value{}, nil, errNotCanonical
			}
			prev = entry
			m.Keys = append(m.Keys, k)
			m.Values = append(m.Values, v)
			src = rest
		}
	case types.KindNull:
		return types.Value{}, nil, fmt.Errorf("%w: non-NULL value of type NULL", ErrCorrupt)
	}
	return types.Value{}, nil, fmt.Errorf("state: no key encoding for type %s", t)
}

var (
	errTruncated    = fmt.Errorf("%w: truncated", ErrCorrupt)
	errNotCanonical = fmt.Errorf("%w: not the canonical encoding", ErrCorrupt)
)

// AppendValue appends the value encoding of v, of type t, to dst: a byte
// saying whether v is NULL, then the value (see AppendRow for a row of
// values with one bit each).
func AppendValue(dst []byte, v types.Value, t types.Type) []byte {
	if v.IsNull() {
		return append(dst, 0)
	}
	return appendValueBody(append(dst, 1), v, t)
}

// appendValueBody appends a non-NULL value without the NULL byte.
func appendValueBody(dst []byte, v types.Value, t types.Type) []byte {
	switch t.Kind {
	case types.KindBoolean:
		if v.Bool() {
			return append(dst, 1)
		}
		return append(dst, 0)
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindTime, types.KindIntervalYearMonth, types.KindIntervalDayTime:
		return binary.AppendVarint(dst, v.Int64())
	case types.KindDate:
		return binary.AppendVarint(dst, int64(v.Date()))
	case types.KindFloat:
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(v.Float64())))
	case types.KindDouble:
		return binary.LittleEndian.AppendUint64(dst, uint64(v.Int64()))
	case types.KindDecimal:
		d := v.Decimal()
		zs := uint64(int64(d.Scale())<<1 ^ int64(d.Scale())>>63) // zigzag
		if u, ok := d.UnscaledInt64(); ok {
			return binary.AppendVarint(binary.AppendUvarint(dst, zs<<1), u)
		}
		b := d.Unscaled()
		dst = binary.AppendUvarint(dst, zs<<1|1)
		if b.Sign() < 0 {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
		mag := b.Abs(b).Bytes()
		return append(binary.AppendUvarint(dst, uint64(len(mag))), mag...)
	case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary:
		s := v.Str()
		return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
	case types.KindTimestamp, types.KindTimestampLTZ:
		ts := v.Timestamp()
		dst = binary.AppendVarint(dst, ts.Millis)
		if t.Precision > 3 {
			dst = binary.AppendUvarint(dst, uint64(ts.NanoOfMilli))
		}
		return dst
	case types.KindArray:
		l := v.List()
		dst = binary.AppendUvarint(dst, uint64(len(l)))
		for _, e := range l {
			dst = AppendValue(dst, e, *t.Elem)
		}
		return dst
	case types.KindRow:
		l := v.List()
		for i, f := range t.Fields {
			var e types.Value
			if i < len(l) {
				e = l[i]
			}
			dst = AppendValue(dst, e, f.Type)
		}
		return dst
	case types.KindMap, types.KindMultiset:
		m := v.Map()
		if m == nil {
			return append(dst, 0)
		}
		vt := mapValueType(t)
		dst = binary.AppendUvarint(dst, uint64(m.Len()))
		for i := range m.Keys {
			var val types.Value
			if i < len(m.Values) {
				val = m.Values[i]
			}
			dst = AppendValue(AppendValue(dst, m.Keys[i], *t.Elem), val, vt)
		}
		return dst
	case types.KindNull:
		return dst // a non-NULL value of the NULL type cannot be built
	}
	panic(fmt.Sprintf("state: no value encoding for type %s", t))
}

// ReadValue decodes one value of type t in the value encoding from src and
// returns it with the rest of src.
func ReadValue(src []byte, t types.Type) (types.Value, []byte, error) {
	if len(src) == 0 {
		return types.Value{}, nil, errTruncated
	}
	switch src[0] {
	case 0:
		return types.Value{}, src[1:], nil
	case 1:
		return readValueBody(src[1:], t)
	}
	return types.Value{}, nil, fmt.Errorf("%w: bad NULL marker %#x", ErrCorrupt, src[0])
}

func readValueBody(src []byte, t types.Type) (types.Value, []byte, error) {
	switch t.Kind {
	case types.KindBoolean:
		if len(src) == 0 {
			return types.Value{}, nil, errTruncated
		}
		if src[0] > 1 {
			return types.Value{}, nil, fmt.Errorf("%w: bad boolean %#x", ErrCorrupt, src[0])
		}
		return types.Bool(src[0] == 1), src[1:], nil
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindIntervalYearMonth, types.KindIntervalDayTime:
		i, rest, err := readVarint(src)
		return types.Int64(i), rest, err
	case types.KindTime:
		i, rest, err := readVarint(src)
		return types.TimeValue(i), rest, err
	case types.KindDate:
		i, rest, err := readVarint(src)
		if err == nil && int64(int32(i)) != i {
			err = fmt.Errorf("%w: DATE out of range", ErrCorrupt)
		}
		return types.DateValue(int32(i)), rest, err
	case types.KindFloat:
		if len(src) < 4 {
			return types.Value{}, nil, errTruncated
		}
		return types.Float64(float64(math.Float32frombits(binary.LittleEndian.Uint32(src)))), src[4:], nil
	case types.KindDouble:
		if len(src) < 8 {
			return types.Value{}, nil, errTruncated
		}
		return types.Float64(math.Float64frombits(binary.LittleEndian.Uint64(src))), src[8:], nil
	case types.KindDecimal:
		h, rest, err := readUvarint(src)
		if err != nil {
			return types.Value{}, nil, err
		}
		zs := h >> 1
		scale := int64(zs>>1) ^ -int64(zs&1)
		if scale < -maxDecimalScale || scale > maxDecimalScale {
			return types.Value{}, nil, fmt.Errorf("%w: decimal scale %d", ErrCorrupt, scale)
		}
		if h&1 == 0 {
			u, rest, err := readVarint(rest)
			return types.DecimalValue(types.NewDecimal(u, int(scale))), rest, err
		}
		if len(rest) == 0 {
			return types.Value{}, nil, errTruncated
		}
		neg := rest[0]
		if neg > 1 {
			return types.Value{}, nil, fmt.Errorf("%w: bad decimal sign %#x", ErrCorrupt, neg)
		}
		n, rest, err := readUvarint(rest[1:])
		if err != nil {
			return types.Value{}, nil, err
		}
		if n > uint64(len(rest)) {
			return types.Value{}, nil, errTruncated
		}
		b := new(big.Int).SetBytes(rest[:n])
		if neg == 1 {
			b.Neg(b)
		}
		return types.DecimalValue(types.NewDecimalBig(b, int(scale))), rest[n:], nil
	case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary:
		n, rest, err := readUvarint(src)
		if err != nil {
			return types.Value{}, nil, err
		}
		if n > uint64(len(rest)) {
			return types.Value{}, nil, errTruncated
		}
		if t.IsBinary() {
			return types.BytesValue(bytes.Clone(rest[:n:n])), rest[n:], nil
		}
		return types.Str(string(rest[:n])), rest[n:], nil
	case types.KindTimestamp, types.KindTimestampLTZ:
		ms, rest, err := readVarint(src)
		if err != nil {
			return types.Value{}, nil, err
		}
		var nanos uint64
		if t.Precision > 3 {
			if nanos, rest, err = readUvarint(rest); err != nil {
				return types.Value{}, nil, err
			}
			if nanos > 999_999 {
				return types.Value{}, nil, fmt.Errorf("%w: nano-of-millisecond %d", ErrCorrupt, nanos)
			}
		}
		return types.TimestampValue(types.Timestamp{Millis: ms, NanoOfMilli: int32(nanos)}), rest, nil
	case types.KindArray:
		n, rest, err := readUvarint(src)
		if err != nil {
			return types.Value{}, nil, err
		}
		if n > uint64(len(rest)) { // every element takes a byte at least
			return types.Value{}, nil, errTruncated
		}
		elems := make([]types.Value, n)
		for i := range elems {
			if elems[i], rest, err = ReadValue(rest, *t.Elem); err != nil {
				return types.Value{}, nil, err
			}
		}
		return types.List(elems), rest, nil
	case types.KindRow:
		fields := make([]types.Value, len(t.Fields))
		rest := src
		for i, f := range t.Fields {
			var err error
			if fields[i], rest, err = ReadValue(rest, f.Type); err != nil {
				return types.Value{}, nil, err
			}
		}
		return types.List(fields), rest, nil
	case types.KindMap, types.KindMultiset:
		n, rest, err := readUvarint(src)
		if err != nil {
			return types.Value{}, nil, err
		}
		if n > uint64(len(rest))/2 { // every entry takes two bytes at least
			return types.Value{}, nil, errTruncated
		}
		vt := mapValueType(t)
		m := &types.MapData{Keys: make([]types.Value, n), Values: make([]types.Value, n)}
		for i := range m.Keys {
			if m.Keys[i], rest, err = ReadValue(rest, *t.Elem); err != nil {
				return types.Value{}, nil, err
			}
			if m.Values[i], rest, err = ReadValue(rest, vt); err != nil {
				return types.Value{}, nil, err
			}
		}
		return types.MapValue(m), rest, nil
	case types.KindNull:
		return types.Value{}, nil, fmt.Errorf("%w: non-NULL value of type NULL", ErrCorrupt)
	}
	return types.Value{}, nil, fmt.Errorf("state: no value encoding for type %s", t)
}

// maxDecimalScale bounds the scale of a decoded DECIMAL: a column's scale
// is at most 38 and exact intermediate results stay far below this, while
// a damaged scale of millions would make any use of the value compute a
// huge power of ten.
const maxDecimalScale = 4096

func readVarint(src []byte) (int64, []byte, error) {
	v, n := binary.Varint(src)
	if n <= 0 {
		if n == 0 {
			return 0, nil, errTruncated
		}
		return 0, nil, fmt.Errorf("%w: varint overflows 64 bits", ErrCorrupt)
	}
	return v, src[n:], nil
}

func readUvarint(src []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(src)
	if n <= 0 {
		if n == 0 {
			return 0, nil, errTruncated
		}
		return 0, nil, fmt.Errorf("%w: varint overflows 64 bits", ErrCorrupt)
	}
	return v, src[n:], nil
}

// AppendRow appends the value encoding of a row of len(typs) values to dst:
// a bitmap of the NULL fields (a bit per field, least significant first),
// then each non-NULL field without a NULL byte. It is what an operator
// stores for an accumulator (a COUNT and a SUM: 1 byte of bitmap and two
// varints) or a kept row.
func AppendRow(dst []byte, row []types.Value, typs []types.Type) []byte {
	start := len(dst)
	for range (len(typs) + 7) / 8 {
		dst = append(dst, 0)
	}
	for i, t := range typs {
		if row[i].IsNull() {
			dst[start+i/8] |= 1 << (i % 8)
			continue
		}
		dst = appendValueBody(dst, row[i], t)
	}
	return dst
}

// ReadRow decodes a row of len(typs) values written by AppendRow from src,
// appends them to dst and returns it with the rest of src.
func ReadRow(src []byte, typs []types.Type, dst []types.Value) ([]types.Value, []byte, error) {
	nb := (len(typs) + 7) / 8
	if len(src) < nb {
		return dst, nil, errTruncated
	}
	nulls := src[:nb]
	src = src[nb:]
	if r := len(typs) % 8; r != 0 && nulls[nb-1]>>r != 0 {
		return dst, nil, fmt.Errorf("%w: NULL bits past the last field", ErrCorrupt)
	}
	for i, t := range typs {
		if nulls[i/8]&(1<<(i%8)) != 0 {
			dst = append(dst, types.Value{})
			continue
		}
		v, rest, err := readValueBody(src, t)
		if err != nil {
			return dst, nil, err
		}
		dst = append(dst, v)
		src = rest
	}
	return dst, src, nil
}

// ReadRowField decodes field i of a row written by AppendRow (of
// len(typs) values) from src, without decoding the fields before it: a
// string or binary field is skipped, not copied. An operator that needs
// one column of a kept row (a deduplication's time) reads it so.
func ReadRowField(src []byte, typs []types.Type, i int) (types.Value, error) {
	if i < 0 || i >= len(typs) {
		return types.Value{}, fmt.Errorf("state: no field %d in a row of %d", i, len(typs))
	}
	nb := (len(typs) + 7) / 8
	if len(src) < nb {
		return types.Value{}, errTruncated
	}
	nulls := src[:nb]
	src = src[nb:]
	if r := len(typs) % 8; r != 0 && nulls[nb-1]>>r != 0 {
		return types.Value{}, fmt.Errorf("%w: NULL bits past the last field", ErrCorrupt)
	}
	for j, t := range typs[:i+1] {
		if nulls[j/8]&(1<<(j%8)) != 0 {
			if j == i {
				return types.Value{}, nil
			}
			continue
		}
		if j < i {
			switch t.Kind {
			case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary:
				n, rest, err := readUvarint(src)
				if err != nil {
					return types.Value{}, err
				}
				if n > uint64(len(rest)) {
					return types.Value{}, errTruncated
				}
				src = rest[n:]
				continue
			}
		}
		v, rest, err := readValueBody(src, t)
		if err != nil {
			return types.Value{}, err
		}
		if j == i {
			return v, nil
		}
		src = rest
	}
	panic("unreachable")
}

// RowReader decodes rows written by AppendRow as ReadRow does, but cuts
// the strings of CHAR and VARCHAR fields from 4 KiB chunks of its own
// instead of allocating each: a chunk is only appended to, never
// rewritten, so a string stays valid and immutable for as long as it is
// referred to, and a string kept alive keeps its chunk (at most 4 KiB)
// alive with it. An operator that emits many rows of its state (a Top-N
// emitting the rows each new row pushes down a rank) uses one.
type RowReader struct {
	arena []byte
}

// rowReaderChunk is the size of a RowReader's chunks, and
// rowReaderMax the longest string it cuts from one.
const (
	rowReaderChunk = 4 << 10
	rowReaderMax   = rowReaderChunk / 4
)

// ReadRow is ReadRow with the reader's string chunks.
func (rr *RowReader) ReadRow(src []byte, typs []types.Type, dst []types.Value) ([]types.Value, []byte, error) {
	nb := (len(typs) + 7) / 8
	if len(src) < nb {
		return dst, nil, errTruncated
	}
	nulls := src[:nb]
	src = src[nb:]
	if r := len(typs) % 8; r != 0 && nulls[nb-1]>>r != 0 {
		return dst, nil, fmt.Errorf("%w: NULL bits past the last field", ErrCorrupt)
	}
	for i, t := range typs {
		if nulls[i/8]&(1<<(i%8)) != 0 {
			dst = append(dst, types.Value{})
			continue
		}
		if t.Kind == types.KindChar || t.Kind == types.KindVarChar {
			n, rest, err := readUvarint(src)
			if err != nil {
				return dst, nil, err
			}
			if n > uint64(len(rest)) {
				return dst, nil, errTruncated
			}
			dst = append(dst, types.Str(rr.keep(rest[:n])))
			src = rest[n:]
			continue
		}
		v, rest, err := readValueBody(src, t)
		if err != nil {
			return dst, nil, err
		}
		dst = append(dst, v)
		src = rest
	}
	return dst, src, nil
}

// ReadKey is ReadKey with the reader's string chunks: a CHAR or VARCHAR
// key without an escaped zero byte (the common case) is cut from them;
// every other value is decoded as ReadKeyValue does, with its checks. A
// regular join decodes the matched rows of a side that keeps a count per
// distinct row so (the row is the sub-key), for every row of the other
// side that probes them.
func (rr *RowReader) ReadKey(src []byte, typs []types.Type, dst []types.Value) ([]types.Value, []byte, error) {
	for _, t := range typs {
		if (t.Kind == types.KindChar || t.Kind == types.KindVarChar) && len(src) > 0 && src[0] == keyPresent {
			s := src[1:]
			if i := bytes.IndexByte(s, 0); i >= 0 && i+1 < len(s) && s[i+1] == 0x01 {
				dst = append(dst, types.Str(rr.keep(s[:i])))
				src = s[i+2:]
				continue
			}
		}
		v, rest, err := ReadKeyValue(src, t)
		if err != nil {
			return dst, nil, err
		}
		dst = append(dst, v)
		src = rest
	}
	return dst, src, nil
}

// reserve returns an empty slice of capacity n cut from the current
// chunk, for a string to be written into (nil when n is too long).
func (rr *RowReader) reserve(n int) []byte {
	if n > rowReaderMax {
		return nil
	}
	if cap(rr.arena)-len(rr.arena) < n {
		rr.arena = make([]byte, 0, rowReaderChunk)
	}
	start := len(rr.arena)
	rr.arena = rr.arena[:start+n]
	return rr.arena[start : start : start+n]
}

// keep returns b's content as a string cut from the current chunk (a
// string of its own when b is long).
func (rr *RowReader) keep(b []byte) string {
	n := len(b)
	if n == 0 {
		return ""
	}
	if n > rowReaderMax {
		return string(b)
	}
	if cap(rr.arena)-len(rr.arena) < n {
		rr.arena = make([]byte, 0, rowReaderChunk)
	}
	start := len(rr.arena)
	rr.arena = append(rr.arena, b...)
	return unsafe.String(&rr.arena[start], n)
}
