package state

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// gen draws logical types and values of them from a byte string, so that
// the fuzzer steers them; an exhausted string reads as zeros.
type gen struct{ data []byte }

func (g *gen) byte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

func (g *gen) u64() uint64 {
	var b [8]byte
	n := copy(b[:], g.data)
	g.data = g.data[n:]
	return binary.LittleEndian.Uint64(b[:])
}

func (g *gen) intn(n int) int { return int(g.byte()) % n }

// scalarKinds are the kinds genType draws at depth 0.
var scalarKinds = []types.Kind{
	types.KindBoolean, types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
	types.KindFloat, types.KindDouble, types.KindDecimal, types.KindChar, types.KindVarChar,
	types.KindBinary, types.KindVarBinary, types.KindDate, types.KindTime, types.KindTimestamp,
	types.KindTimestampLTZ, types.KindIntervalYearMonth, types.KindIntervalDayTime, types.KindNull,
}

func (g *gen) typ(depth int) types.Type {
	n := len(scalarKinds)
	if depth < 3 {
		n += 4
	}
	switch k := g.intn(n); {
	case k < len(scalarKinds):
		t := types.Type{Kind: scalarKinds[k]}
		switch t.Kind {
		case types.KindDecimal:
			t.Precision = 1 + g.intn(types.MaxDecimalPrecision)
			t.Scale = g.intn(t.Precision + 1)
		case types.KindTime, types.KindTimestamp, types.KindTimestampLTZ:
			t.Precision = g.intn(10)
		case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary:
			t.Length = types.MaxLength
		}
		return t
	case k == len(scalarKinds):
		return types.Array(g.typ(depth + 1))
	case k == len(scalarKinds)+1:
		return types.Map(g.typ(depth+1), g.typ(depth+1))
	case k == len(scalarKinds)+2:
		return types.Multiset(g.typ(depth + 1))
	default:
		fs := make([]types.Field, g.intn(4))
		for i := range fs {
			fs[i] = types.Field{Name: string(rune('a' + i)), Type: g.typ(depth + 1)}
		}
		return types.RowType(fs...)
	}
}

func (g *gen) value(t types.Type) types.Value {
	if t.Kind == types.KindNull || g.intn(8) == 0 {
		return types.Value{}
	}
	switch t.Kind {
	case types.KindBoolean:
		return types.Bool(g.byte()&1 == 1)
	case types.KindTinyInt:
		return types.Int64(int64(int8(g.u64())))
	case types.KindSmallInt:
		return types.Int64(int64(int16(g.u64())))
	case types.KindInt:
		return types.Int64(int64(int32(g.u64())))
	case types.KindBigInt, types.KindIntervalDayTime:
		return types.Int64(g.int64())
	case types.KindIntervalYearMonth:
		return types.Int64(int64(int32(g.u64())))
	case types.KindFloat:
		return types.Float64(float64(math.Float32frombits(uint32(g.u64()))))
	case types.KindDouble:
		return types.Float64(math.Float64frombits(g.u64()))
	case types.KindDecimal:
		digits := 1 + g.intn(t.Precision)
		u := new(big.Int)
		for range digits {
			u.Mul(u, big.NewInt(10)).Add(u, big.NewInt(int64(g.intn(10))))
		}
		if g.byte()&1 == 1 {
			u.Neg(u)
		}
		return types.DecimalValue(types.NewDecimalBig(u, t.Scale))
	case types.KindChar, types.KindVarChar:
		return types.Str(string(g.bytes()))
	case types.KindBinary, types.KindVarBinary:
		return types.BytesValue(g.bytes())
	case types.KindDate:
		return types.DateValue(int32(g.u64()))
	case types.KindTime:
		return types.TimeValue(int64(g.u64() % (86400 * 1e9)))
	case types.KindTimestamp, types.KindTimestampLTZ:
		ts := types.Timestamp{Millis: g.int64(), NanoOfMilli: int32(g.u64() % 1e6)}
		return types.TimestampValue(ts.Truncate(t.Precision))
	case types.KindArray:
		elems := make([]types.Value, g.intn(4))
		for i := range elems {
			elems[i] = g.value(*t.Elem)
		}
		return types.List(elems)
	case types.KindRow:
		fs := make([]types.Value, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = g.value(f.Type)
		}
		return types.List(fs)
	case types.KindMap, types.KindMultiset:
		m := &types.MapData{}
		vt := mapValueType(t)
		for range g.intn(4) {
			m.Keys = append(m.Keys, g.value(*t.Elem))
			if t.Kind == types.KindMultiset {
				m.Values = append(m.Values, types.Int64(int64(int32(g.u64()))))
			} else {
				m.Values = append(m.Values, g.value(vt))
			}
		}
		return types.MapValue(m)
	}
	panic("no generator for " + t.String())
}

// int64 draws mostly small numbers (the varint sizes) and sometimes any.
func (g *gen) int64() int64 {
	v := int64(g.u64())
	switch g.byte() % 4 {
	case 0:
		return v >> 56
	case 1:
		return v >> 40
	case 2:
		return v >> 20
	}
	return v
}

func (g *gen) bytes() []byte {
	n := g.intn(12)
	b := make([]byte, n)
	for i := range b {
		switch c := g.byte(); c % 4 {
		case 0:
			b[i] = 0 // the escaped byte
		case 1:
			b[i] = 0xff
		default:
			b[i] = c
		}
	}
	return b
}

// equalValues reports whether a and b are the same value of t. key asks for
// the key encoding's equality: -0 equals 0, every NaN is one value, and a
// MAP is a set of entries.
func equalValues(a, b types.Value, t types.Type, key bool) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() == b.IsNull()
	}
	switch t.Kind {
	case types.KindFloat, types.KindDouble:
		if key {
			x, y := a.Float64(), b.Float64()
			return x == y || (x != x && y != y)
		}
		return math.Float64bits(a.Float64()) == math.Float64bits(b.Float64())
	case types.KindDecimal:
		return a.Decimal().Cmp(b.Decimal()) == 0 && a.Decimal().Scale() == b.Decimal().Scale()
	case types.KindArray:
		la, lb := a.List(), b.List()
		if len(la) != len(lb) {
			return false
		}
		for i := range la {
			if !equalValues(la[i], lb[i], *t.Elem, key) {
				return false
			}
		}
		return true
	case types.KindRow:
		la, lb := a.List(), b.List()
		for i, f := range t.Fields {
			if !equalValues(la[i], lb[i], f.Type, key) {
				return false
			}
		}
		return true
	case types.KindMap, types.KindMultiset:
		ma, mb := a.Map(), b.Map()
		if ma.Len() != mb.Len() {
			return false
		}
		vt := mapValueType(t)
		if key { // as sets: compare the canonical encodings
			return bytes.Equal(AppendKeyValue(nil, a, t), AppendKeyValue(nil, b, t))
		}
		for i := range ma.Keys {
			if !equalValues(ma.Keys[i], mb.Keys[i], *t.Elem, key) || !equalValues(ma.Values[i], mb.Values[i], vt, key) {
				return false
			}
		}
		return true
	case types.KindTimestamp, types.KindTimestampLTZ:
		return a.Timestamp() == b.Timestamp()
	case types.KindBoolean:
		return a.Bool() == b.Bool()
	case types.KindDate:
		return a.Date() == b.Date()
	}
	return a.Int64() == b.Int64() && a.Str() == b.Str()
}

// compareValues orders a and b of type t as SQL does (NULL first, NaN above
// every number); ok is false for types without an order (MAP, MULTISET).
func compareValues(a, b types.Value, t types.Type) (c int, ok bool) {
	if a.IsNull() || b.IsNull() {
		switch {
		case a.IsNull() && b.IsNull():
			return 0, true
		case a.IsNull():
			return -1, true
		}
		return 1, true
	}
	switch t.Kind {
	case types.KindBoolean:
		return cmp.Compare(a.Int64(), b.Int64()), true
	case types.KindFloat, types.KindDouble:
		x, y := a.Float64(), b.Float64()
		switch {
		case x != x && y != y:
			return 0, true
		case x != x:
			return 1, true
		case y != y:
			return -1, true
		}
		return cmp.Compare(x, y), true
	case types.KindDecimal:
		return a.Decimal().Cmp(b.Decimal()), true
	case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary:
		return cmp.Compare(a.Str(), b.Str()), true
	case types.KindTimestamp, types.KindTimestampLTZ:
		return a.Timestamp().Compare(b.Timestamp()), true
	case types.KindDate:
		return cmp.Compare(a.Date(), b.Date()), true
	case types.KindArray:
		la, lb := a.List(), b.List()
		for i := range min(len(la), len(lb)) {
			if c, ok := compareValues(la[i], lb[i], *t.Elem); !ok || c != 0 {
				return c, ok
			}
		}
		return cmp.Compare(len(la), len(lb)), true
	case types.KindRow:
		la, lb := a.List(), b.List()
		for i, f := range t.Fields {
			if c, ok := compareValues(la[i], lb[i], f.Type); !ok || c != 0 {
				return c, ok
			}
		}
		return 0, true
	case types.KindMap, types.KindMultiset:
		return 0, false
	}
	return cmp.Compare(a.Int64(), b.Int64()), true
}

// checkCodec checks every property of the codec on v of type t: both
// round trips, canonical keys that decode strictly, and the encoded bytes
// surviving a change of the buffer they were decoded from.
func checkCodec(t *testing.T, typ types.Type, v types.Value) {
	t.Helper()
	key := AppendKeyValue([]byte{0xee}, v, typ)[1:]
	got, rest, err := ReadKeyValue(append(bytes.Clone(key), 0xab), typ)
	if err != nil {
		t.Fatalf("%s: ReadKeyValue(% x) of %v: %v", typ, key, v, err)
	}
	if !bytes.Equal(rest, []byte{0xab}) {
		t.Fatalf("%s: ReadKeyValue(% x) left % x", typ, key, rest)
	}
	if !equalValues(v, got, typ, true) {
		t.Fatalf("%s: key round trip of %#v gave %#v", typ, v, got)
	}
	if again := AppendKeyValue(nil, got, typ); !bytes.Equal(again, key) {
		t.Fatalf("%s: key of the decoded value % x differs from % x", typ, again, key)
	}
	// A RowReader reads the same key, twice over (as a key of two
	// columns), into strings of its own: overwriting the bytes they were
	// read from changes neither.
	var rr RowReader
	two := append(append(bytes.Clone(key), key...), 0xab)
	got2, rest, err := rr.ReadKey(two, []types.Type{typ, typ}, []types.Value{types.Int64(1)})
	if err != nil || !bytes.Equal(rest, []byte{0xab}) || len(got2) != 3 {
		t.Fatalf("%s: RowReader.ReadKey(% x): %v, rest % x, %d values", typ, two, err, rest, len(got2))
	}
	clear(two)
	for _, g := range got2[1:] {
		if !equalValues(v, g, typ, true) {
			t.Fatalf("%s: RowReader.ReadKey of %#v gave %#v", typ, v, g)
		}
	}
	buf := AppendValue([]byte{0xee}, v, typ)
	got, rest, err = ReadValue(buf[1:], typ)
	if err != nil {
		t.Fatalf("%s: ReadValue(% x) of %#v: %v", typ, buf[1:], v, err)
	}
	if len(rest) != 0 {
		t.Fatalf("%s: ReadValue left % x", typ, rest)
	}
	// Decoded values must not alias the buffer.
	for i := range buf {
		buf[i] = 0x5a
	}
	if !equalValues(v, got, typ, false) {
		t.Fatalf("%s: value round trip of %#v gave %#v", typ, v, got)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 256)
	for range 20000 {
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		g := &gen{data: data}
		typ := g.typ(0)
		checkCodec(t, typ, g.value(typ))
	}
}

func TestCodecEdgeValues(t *testing.T) {
	big38, _ := new(big.Int).SetString("99999999999999999999999999999999999999", 10)
	huge := new(big.Int).Exp(big.NewInt(10), big.NewInt(700), nil) // a length that needs the long form
	cases := []struct {
		typ types.Type
		v   types.Value
	}{
		{types.BigInt(), types.Int64(math.MinInt64)},
		{types.BigInt(), types.Int64(math.MaxInt64)},
		{types.BigInt(), types.Int64(0)},
		{types.BigInt(), types.Int64(-1)},
		{types.BigInt(), types.Int64(-256)},
		{types.BigInt(), types.Int64(-257)},
		{types.Double(), types.Float64(math.Inf(-1))},
		{types.Double(), types.Float64(math.Inf(1))},
		{types.Double(), types.Float64(math.NaN())},
		{types.Double(), types.Float64(math.Copysign(0, -1))},
		{types.Float(), types.Float64(float64(math.SmallestNonzeroFloat32))},
		{types.DecimalType(38, 0), types.DecimalValue(types.NewDecimalBig(big38, 0))},
		{types.DecimalType(38, 0), types.DecimalValue(types.NewDecimalBig(new(big.Int).Neg(big38), 0))},
		{types.DecimalType(19, 0), types.DecimalValue(types.NewDecimal(math.MinInt64, 0))},
		{types.DecimalType(38, 2), types.DecimalValue(types.NewDecimalBig(huge, 2))},
		{types.DecimalType(38, 2), types.DecimalValue(types.NewDecimalBig(new(big.Int).Neg(huge), 2))},
		{types.String(), types.Str("")},
		{types.String(), types.Str("\x00\x00\xff\x00")},
		{types.Bytes(), types.BytesValue([]byte{})},
		{types.Date(), types.DateValue(math.MinInt32)},
		{types.TimestampType(9), types.TimestampValue(types.Timestamp{Millis: math.MinInt64, NanoOfMilli: 999_999})},
		{types.Array(types.Int()), types.List(nil)},
		{types.Array(types.Int()), types.List([]types.Value{{}, {}})},
		{types.RowType(), types.List(nil)},
		{types.Map(types.String(), types.Int()), types.MapValue(&types.MapData{})},
		{types.Null(), types.Value{}},
	}
	for _, c := range cases {
		checkCodec(t, c.typ, c.v)
	}
}

// TestKeyOrder checks that the key encoding orders values as SQL does, for
// random pairs of values of random orderable types, and values near each
// other (one type, many values) sorted both ways.
func TestKeyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 256)
	fill := func() *gen {
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		return &gen{data: data}
	}
	checked := 0
	for range 5000 {
		typ := fill().typ(0)
		vals := make([]types.Value, 20)
		for i := range vals {
			vals[i] = fill().value(typ)
		}
		for i := range vals {
			for j := range vals {
				want, ok := compareValues(vals[i], vals[j], typ)
				if !ok {
					continue
				}
				ki, kj := AppendKeyValue(nil, vals[i], typ), AppendKeyValue(nil, vals[j], typ)
				if got := bytes.Compare(ki, kj); got != want {
					t.Fatalf("%s: %#v vs %#v: SQL order %d, key order %d (% x vs % x)", typ, vals[i], vals[j], want, got, ki, kj)
				}
				checked++
			}
		}
	}
	if checked < 1_000_000 {
		t.Fatalf("only %d pairs compared", checked)
	}
}

// TestKeyCanonical checks that equal SQL values of different forms encode
// to the same key.
func TestKeyCanonical(t *testing.T) {
	same := func(typ types.Type, a, b types.Value) {
		t.Helper()
		ka, kb := AppendKeyValue(nil, a, typ), AppendKeyValue(nil, b, typ)
		if !bytes.Equal(ka, kb) {
			t.Errorf("%s: %#v and %#v encode to % x and % x", typ, a, b, ka, kb)
		}
	}
	same(types.Double(), types.Float64(0), types.Float64(math.Copysign(0, -1)))
	same(types.Double(), types.Float64(math.NaN()), types.Float64(math.Float64frombits(0xfff0000000000001)))
	same(types.Float(), types.Float64(0), types.Float64(math.Copysign(0, -1)))
	same(types.DecimalType(10, 2), types.DecimalValue(types.NewDecimal(1, 0)), types.DecimalValue(types.NewDecimal(100, 2)))
	same(types.DecimalType(10, 2), types.DecimalValue(types.NewDecimal(1235, 3)), types.DecimalValue(types.NewDecimal(124, 2))) // rounded half up
	same(types.TimestampType(3), types.TimestampValue(types.Timestamp{Millis: 5, NanoOfMilli: 7}), types.TimestampValue(types.Timestamp{Millis: 5}))
	m := types.Map(types.String(), types.Int())
	same(m,
		types.MapValue(&types.MapData{Keys: []types.Value{types.Str("a"), types.Str("b")}, Values: []types.Value{types.Int64(1), types.Int64(2)}}),
		types.MapValue(&types.MapData{Keys: []types.Value{types.Str("b"), types.Str("a")}, Values: []types.Value{types.Int64(2), types.Int64(1)}}))
	// The integer kinds share one encoding, so an INT and a BIGINT join key agree.
	same(types.Int(), types.Int64(70000), types.Int64(70000))
	if a, b := AppendKeyValue(nil, types.Int64(70000), types.Int()), AppendKeyValue(nil, types.Int64(70000), types.BigInt()); !bytes.Equal(a, b) {
		t.Errorf("INT and BIGINT keys differ: % x, % x", a, b)
	}
}

func TestAppendKeyColumns(t *testing.T) {
	row := []types.Value{types.Str("x"), types.Int64(7), {}, types.Bool(true)}
	typs := []types.Type{types.Boolean(), types.BigInt(), types.String()}
	key := AppendKey(nil, row, []int{3, 1, 2}, typs)
	got, rest, err := ReadKey(key, typs, nil)
	if err != nil || len(rest) != 0 {
		t.Fatalf("ReadKey: %v, rest % x", err, rest)
	}
	if !got[0].Bool() || got[1].Int64() != 7 || !got[2].IsNull() {
		t.Fatalf("ReadKey gave %#v", got)
	}
	if want := []byte{keyTrue, 0x81, 7, keyNull}; !bytes.Equal(key, want) {
		t.Fatalf("key % x, want % x", key, want)
	}
}

func TestRowRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var rr RowReader
	data := make([]byte, 512)
	for range 5000 {
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		g := &gen{data: data}
		typs := make([]types.Type, g.intn(20))
		row := make([]types.Value, len(typs))
		for i := range typs {
			typs[i] = g.typ(1)
			row[i] = g.value(typs[i])
		}
		buf := AppendRow(nil, row, typs)
		got, rest, err := ReadRow(append(buf, 0xab), typs, []types.Value{types.Int64(1)})
		if err != nil || !bytes.Equal(rest, []byte{0xab}) {
			t.Fatalf("ReadRow: %v, rest % x", err, rest)
		}
		got = got[1:]
		for i := range typs {
			if !equalValues(row[i], got[i], typs[i], false) {
				t.Fatalf("field %d (%s): %#v read back as %#v", i, typs[i], row[i], got[i])
			}
			f, err := ReadRowField(buf, typs, i)
			if err != nil || !equalValues(row[i], f, typs[i], false) {
				t.Fatalf("ReadRowField %d (%s): %#v read back as %#v, %v", i, typs[i], row[i], f, err)
			}
		}
		if _, err := ReadRowField(buf, typs, len(typs)); err == nil {
			t.Fatalf("ReadRowField past the last field: no error")
		}
		// A RowReader's strings are its own: overwriting what they were
		// read from changes none of them.
		enc := bytes.Clone(buf)
		got, rest, err = rr.ReadRow(enc, typs, nil)
		if err != nil || len(rest) != 0 {
			t.Fatalf("RowReader.ReadRow: %v, rest % x", err, rest)
		}
		clear(enc)
		for i := range typs {
			if !equalValues(row[i], got[i], typs[i], false) {
				t.Fatalf("RowReader: field %d (%s): %#v read back as %#v", i, typs[i], row[i], got[i])
			}
		}
	}
}

// TestAccumulatorSize pins the size of a COUNT and SUM accumulator over
// BIGINT and of a BIGINT key: they decide the heap state per key.
func TestAccumulatorSize(t *testing.T) {
	typs := []types.Type{types.BigInt().NotNullable(), types.BigInt()}
	acc := AppendRow(nil, []types.Value{types.Int64(3), types.Int64(12345)}, typs)
	if len(acc) != 5 { // bitmap, varint(3), varint(12345) of 3 bytes
		t.Fatalf("accumulator takes %d bytes: % x", len(acc), acc)
	}
	if k := AppendKeyValue(nil, types.Int64(1_000_000), types.BigInt()); len(k) != 4 {
		t.Fatalf("BIGINT key 1e6 takes %d bytes: % x", len(k), k)
	}
}

func TestReadRejectsDamage(t *testing.T) {
	typ := types.RowType(types.Field{Name: "a", Type: types.String()}, types.Field{Name: "b", Type: types.BigInt()})
	v := types.List([]types.Value{types.Str("hello"), types.Int64(-5)})
	key := AppendKeyValue(nil, v, typ)
	for i := range key {
		if _, _, err := ReadKeyValue(key[:i], typ); err == nil {
			t.Errorf("ReadKeyValue of %d of %d bytes succeeded", i, len(key))
		}
	}
	val := AppendValue(nil, v, typ)
	for i := range val {
		if _, _, err := ReadValue(val[:i], typ); err == nil {
			t.Errorf("ReadValue of %d of %d bytes succeeded", i, len(val))
		}
	}
	if _, _, err := ReadKeyValue([]byte{0x81, 0x00}, types.BigInt()); err == nil {
		t.Errorf("a non-canonical integer key decoded")
	}
}

// FuzzCodec derives a type and a value from the input and checks both
// encodings' round trips and the key's canonical form.
func FuzzCodec(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{4, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 3})
	f.Add([]byte{7, 37, 5, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1})
	f.Add([]byte{9, 1, 11, 0, 0, 4, 0, 8, 0xff})
	f.Add([]byte{20, 21, 8, 1, 3, 0, 1, 0, 2, 0x41})
	f.Add([]byte{22, 3, 1, 9, 0x10, 0x20, 14, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{data: data}
		typ := g.typ(0)
		checkCodec(t, typ, g.value(typ))
	})
}

// FuzzReadKey decodes arbitrary bytes as a key of a derived type: it must
// never panic, and what it accepts must be canonical (re-encoding gives
// the same bytes).
func FuzzReadKey(f *testing.F) {
	f.Add([]byte{4}, []byte{0x81, 7})
	f.Add([]byte{7, 37, 5}, []byte{decNeg, 0xfe, 0xfe})
	f.Add([]byte{9}, []byte{1, 'a', 0, 0xff, 0, 1})
	f.Add([]byte{19}, []byte{1, 1, 0x81, 1, 1, 0, 0})
	f.Add([]byte{20, 21, 8}, []byte{1, 1, 0x81, 1, 0x80, 0})
	f.Fuzz(func(t *testing.T, typeData, key []byte) {
		typ := (&gen{data: typeData}).typ(0)
		v, rest, err := ReadKeyValue(key, typ)
		if err != nil {
			return
		}
		used := key[:len(key)-len(rest)]
		if again := AppendKeyValue(nil, v, typ); !bytes.Equal(again, used) {
			t.Fatalf("%s: accepted % x, which re-encodes as % x", typ, used, again)
		}
	})
}

// FuzzReadValue decodes arbitrary bytes as a value of a derived type: it
// must never panic, and what it accepts must survive a round trip.
func FuzzReadValue(f *testing.F) {
	f.Add([]byte{4}, []byte{1, 14})
	f.Add([]byte{7, 37, 5}, []byte{1, 11, 0, 1, 0xff})
	f.Add([]byte{20, 21, 8}, []byte{1, 1, 1, 0, 1, 2})
	f.Fuzz(func(t *testing.T, typeData, val []byte) {
		typ := (&gen{data: typeData}).typ(0)
		v, _, err := ReadValue(val, typ)
		if err != nil {
			return
		}
		got, _, err := ReadValue(AppendValue(nil, v, typ), typ)
		if err != nil {
			t.Fatalf("%s: re-reading %#v: %v", typ, v, err)
		}
		if !equalValues(v, got, typ, false) {
			t.Fatalf("%s: %#v read back as %#v", typ, v, got)
		}
	})
}
