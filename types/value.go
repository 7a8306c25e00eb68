package types

import (
	"math"
	"strconv"
	"unsafe"
)

// RowKind is the change kind of a row, as Flink's RowKind.
type RowKind uint8

// The row kinds. Insert is the zero value.
const (
	Insert       RowKind = iota // +I
	UpdateBefore                // -U
	UpdateAfter                 // +U
	Delete                      // -D
)

// String returns Flink's short string of the kind: +I, -U, +U or -D.
func (k RowKind) String() string {
	switch k {
	case Insert:
		return "+I"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return "RowKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseRowKind parses +I, -U, +U or -D.
func ParseRowKind(s string) (RowKind, bool) {
	switch s {
	case "+I":
		return Insert, true
	case "-U":
		return UpdateBefore, true
	case "+U":
		return UpdateAfter, true
	case "-D":
		return Delete, true
	}
	return 0, false
}

// Row is the one record type that flows through the runtime: a change kind
// and positional fields typed by the table schema.
type Row struct {
	Kind   RowKind
	Fields []Value
}

// NewRow returns an insert row of n NULL fields.
func NewRow(n int) Row { return Row{Fields: make([]Value, n)} }

// Clone returns a copy of r whose Fields slice is not shared. Nested lists
// and maps are shared: Values are treated as immutable once built.
func (r Row) Clone() Row {
	return Row{Kind: r.Kind, Fields: append([]Value(nil), r.Fields...)}
}

// MemSize returns an estimate of the memory r refers to, in bytes: its
// fields and what they hold (strings, bytes, nested rows, arrays, maps,
// wide decimals). Memory shared between rows counts in each. The runtime
// bounds the bytes in flight between tasks with it.
func (r Row) MemSize() int { return valuesMemSize(r.Fields) }

// valueSize is the size of one Value.
const valueSize = int(unsafe.Sizeof(Value{}))

func valuesMemSize(vs []Value) int {
	n := len(vs) * valueSize
	for i := range vs {
		n += len(vs[i].s)
		if vs[i].x != nil {
			n += xMemSize(vs[i].x)
		}
	}
	return n
}

// xMemSize returns what a Value's x refers to.
func xMemSize(x any) int {
	switch x := x.(type) {
	case *[]Value:
		return valuesMemSize(*x)
	case *MapData:
		return valuesMemSize(x.Keys) + valuesMemSize(x.Values)
	case *bigInt:
		return int(unsafe.Sizeof(*x)) + 8*len(x.Bits())
	}
	return 0
}

// tag says which representation a Value holds.
type tag uint8

const (
	tagNull tag = iota
	tagBool
	tagInt
	tagFloat
	tagDecimal
	tagString
	tagBytes
	tagDate
	tagTime
	tagTimestamp
	tagList
	tagMap
)

// Value is one field of a row. It is a small tagged union that holds scalars
// without allocating. The zero Value is SQL NULL. See the package comment for
// the representation of each logical type.
type Value struct {
	tag tag
	n   int32  // decimal scale; nano-of-millisecond of timestamps
	i   int64  // bool, integers, float bits, date, time, timestamp millis, compact decimal
	s   string // strings and bytes
	x   any    // *big.Int of a wide decimal, []Value, *MapData
}

// Bool returns a BOOLEAN value.
func Bool(b bool) Value {
	v := Value{tag: tagBool}
	if b {
		v.i = 1
	}
	return v
}

// Int64 returns an integer value (TINYINT, SMALLINT, INT or BIGINT).
func Int64(i int64) Value { return Value{tag: tagInt, i: i} }

// Float64 returns a FLOAT or DOUBLE value.
func Float64(f float64) Value { return Value{tag: tagFloat, i: int64(math.Float64bits(f))} }

// Str returns a CHAR, VARCHAR or STRING value.
func Str(s string) Value { return Value{tag: tagString, s: s} }

// BytesValue returns a BINARY, VARBINARY or BYTES value. It does not copy b:
// the caller must not modify b afterwards.
func BytesValue(b []byte) Value {
	return Value{tag: tagBytes, s: unsafe.String(unsafe.SliceData(b), len(b))}
}

// DateValue returns a DATE value: days since 1970-01-01.
func DateValue(days int32) Value { return Value{tag: tagDate, i: int64(days)} }

// TimeValue returns a TIME value: nanoseconds since midnight.
func TimeValue(nanos int64) Value { return Value{tag: tagTime, i: nanos} }

// TimestampValue returns a TIMESTAMP or TIMESTAMP_LTZ value.
func TimestampValue(ts Timestamp) Value {
	return Value{tag: tagTimestamp, i: ts.Millis, n: ts.NanoOfMilli}
}

// DecimalValue returns a DECIMAL value.
func DecimalValue(d Decimal) Value {
	v := Value{tag: tagDecimal, i: d.compact, n: d.scale}
	if d.big != nil {
		v.x = d.big
	}
	return v
}

// CompactDecimal returns the DECIMAL unscaled × 10^-scale whose unscaled
// value fits an int64: DecimalValue(NewDecimal(unscaled, scale)), cheap
// enough to inline on hot paths.
func CompactDecimal(unscaled int64, scale int) Value {
	return Value{tag: tagDecimal, i: unscaled, n: int32(scale)}
}

// List returns an ARRAY or ROW value. It does not copy elems.
func List(elems []Value) Value {
	h := new([]Value)
	*h = elems
	return ListIn(h)
}

// ListIn returns an ARRAY or ROW value whose elements are *h, the slice
// header kept where the caller put it: a decoder that reuses the memory of
// its nested values cuts the headers from memory it reuses too, so that a
// ROW costs no allocation (List allocates one for its header, as boxing a
// slice in an interface does). The caller must not change *h while the
// value is in use; like the elements, it is read, never copied.
func ListIn(h *[]Value) Value { return Value{tag: tagList, x: h} }

// String formats v's representation as fmt's %v did before lists held
// their slice header by pointer (ListIn): {tag scale integer string x},
// a list's x as its elements in brackets, a map's or a wide decimal's as
// an address. Test keys and failure messages made with %v thus show a
// list's elements, not the address of its header.
func (v Value) String() string { return string(v.appendRepr(nil)) }

func (v Value) appendRepr(b []byte) []byte {
	b = append(b, '{')
	b = strconv.AppendUint(b, uint64(v.tag), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(v.n), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, v.i, 10)
	b = append(b, ' ')
	b = append(b, v.s...)
	b = append(b, ' ')
	switch x := v.x.(type) {
	case nil:
		b = append(b, "<nil>"...)
	case *[]Value:
		b = append(b, '[')
		if x != nil {
			for i, e := range *x {
				if i > 0 {
					b = append(b, ' ')
				}
				b = e.appendRepr(b)
			}
		}
		b = append(b, ']')
	case *MapData:
		b = appendAddr(b, unsafe.Pointer(x))
	case *bigInt:
		b = appendAddr(b, unsafe.Pointer(x))
	}
	return append(b, '}')
}

func appendAddr(b []byte, p unsafe.Pointer) []byte {
	return strconv.AppendUint(append(b, "0x"...), uint64(uintptr(p)), 16)
}

// MapValue returns a MAP or MULTISET value.
func MapValue(m *MapData) Value { return Value{tag: tagMap, x: m} }

// IsNull reports whether v is SQL NULL.
func (v Value) IsNull() bool { return v.tag == tagNull }

// Bool returns the BOOLEAN held by v.
func (v Value) Bool() bool { return v.i != 0 }

// Int64 returns the integer held by v.
func (v Value) Int64() int64 { return v.i }

// Float64 returns the FLOAT or DOUBLE held by v.
func (v Value) Float64() float64 { return math.Float64frombits(uint64(v.i)) }

// Str returns the string held by v.
func (v Value) Str() string { return v.s }

// Bytes returns the bytes held by v. The result shares memory with v and must
// not be modified.
func (v Value) Bytes() []byte { return unsafe.Slice(unsafe.StringData(v.s), len(v.s)) }

// Date returns the DATE held by v: days since 1970-01-01.
func (v Value) Date() int32 { return int32(v.i) }

// Time returns the TIME held by v: nanoseconds since midnight.
func (v Value) Time() int64 { return v.i }

// Timestamp returns the TIMESTAMP or TIMESTAMP_LTZ held by v.
func (v Value) Timestamp() Timestamp { return Timestamp{Millis: v.i, NanoOfMilli: v.n} }

// Decimal returns the DECIMAL held by v.
func (v Value) Decimal() Decimal {
	d := Decimal{compact: v.i, scale: v.n}
	if v.x != nil {
		d.big = v.x.(*bigInt)
	}
	return d
}

// CompactDecimal returns the unscaled value and the scale of the DECIMAL
// held by v, and whether the unscaled value fits an int64 (else use
// Decimal).
func (v *Value) CompactDecimal() (unscaled int64, scale int, ok bool) {
	return v.i, int(v.n), v.x == nil
}

// List returns the ARRAY or ROW elements held by v.
func (v Value) List() []Value {
	if h, _ := v.x.(*[]Value); h != nil {
		return *h
	}
	return nil
}

// Map returns the MAP or MULTISET held by v.
func (v Value) Map() *MapData {
	m, _ := v.x.(*MapData)
	return m
}

// MapData holds a MAP or MULTISET as parallel key and value lists, in the
// order they were read. A MULTISET maps each element to its INT count.
type MapData struct {
	Keys   []Value
	Values []Value
}

// Len returns the number of entries.
func (m *MapData) Len() int { return len(m.Keys) }
