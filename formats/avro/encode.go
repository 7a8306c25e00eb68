package avro

import (
	"errors"
	"fmt"
	"math/big"

	hamba "github.com/hamba/avro/v2"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// enode writes one column of type typ as the schema DeriveSchema gives it.
type enode struct {
	typ    types.Type
	path   string
	elem   *enode   // array items, map values
	fields []*enode // row fields
}

func compileEncoder(fields []types.Field, path string) []*enode {
	out := make([]*enode, len(fields))
	for i, f := range fields {
		out[i] = compileEnc(f.Type, join(path, f.Name))
	}
	return out
}

func compileEnc(t types.Type, path string) *enode {
	n := &enode{typ: t, path: path}
	switch t.Kind {
	case types.KindArray:
		n.elem = compileEnc(*t.Elem, path)
	case types.KindMap:
		n.elem = compileEnc(*t.Value, path)
	case types.KindMultiset:
		n.elem = compileEnc(types.Int(), path)
	case types.KindRow:
		n.fields = compileEncoder(t.Fields, path)
	}
	return n
}

var errNullNotNull = errors.New("NULL for a NOT NULL column")

// rowEncoder encodes rows with hamba's Writer.
type rowEncoder struct {
	format string
	fields []*enode
	w      *hamba.Writer
}

func newRowEncoder(format string, fields []types.Field) *rowEncoder {
	return &rowEncoder{format: format, fields: compileEncoder(fields, ""), w: hamba.NewWriter(nil, 256)}
}

func (e *rowEncoder) encode(dst []byte, row types.Row) ([]byte, error) {
	if len(row.Fields) != len(e.fields) {
		return dst, &factory.EncodeError{Format: e.format, Err: fmt.Errorf("row has %d fields, the schema %d", len(row.Fields), len(e.fields))}
	}
	e.w.Reset(nil)
	for i, f := range e.fields {
		if err := e.value(f, row.Fields[i]); err != nil {
			return dst, &factory.EncodeError{Format: e.format, Field: f.path, Err: err}
		}
	}
	if e.w.Error != nil {
		return dst, &factory.EncodeError{Format: e.format, Err: e.w.Error}
	}
	return append(dst, e.w.Buffer()...), nil
}

func (e *rowEncoder) value(n *enode, v types.Value) error {
	w := e.w
	t := n.typ
	if !t.NotNull {
		if v.IsNull() {
			w.WriteLong(0) // the "null" branch
			return nil
		}
		w.WriteLong(1)
	} else if v.IsNull() {
		return errNullNotNull
	}
	switch t.Kind {
	case types.KindBoolean:
		w.WriteBool(v.Bool())
	case types.KindTinyInt, types.KindSmallInt, types.KindInt:
		w.WriteInt(int32(v.Int64()))
	case types.KindBigInt:
		w.WriteLong(v.Int64())
	case types.KindFloat:
		w.WriteFloat(float32(v.Float64()))
	case types.KindDouble:
		w.WriteDouble(v.Float64())
	case types.KindChar, types.KindVarChar:
		w.WriteString(v.Str())
	case types.KindBinary, types.KindVarBinary:
		w.WriteBytes(v.Bytes())
	case types.KindDecimal:
		e.decimal(v.Decimal())
	case types.KindDate:
		w.WriteInt(v.Date())
	case types.KindTime:
		w.WriteInt(int32(v.Time() / 1_000_000))
	case types.KindTimestamp, types.KindTimestampLTZ:
		// Milliseconds even for timestamp-micros (TIMESTAMP(4..6) with
		// timestamp_mapping.legacy = false): Flink 1.20 writes and reads
		// them so (see the golden files), and Flink must read our records.
		w.WriteLong(v.Timestamp().Millis)
	case types.KindArray:
		l := v.List()
		if len(l) > 0 {
			w.WriteBlockHeader(int64(len(l)), 0)
			for _, x := range l {
				if err := e.value(n.elem, x); err != nil {
					return err
				}
			}
		}
		w.WriteLong(0)
	case types.KindMap, types.KindMultiset:
		m := v.Map()
		if m != nil && m.Len() > 0 {
			w.WriteBlockHeader(int64(m.Len()), 0)
			for i, k := range m.Keys {
				if k.IsNull() {
					return errors.New("a NULL map key has no Avro encoding (map keys are strings)")
				}
				w.WriteString(k.Str())
				if err := e.value(n.elem, m.Values[i]); err != nil {
					return err
				}
			}
		}
		w.WriteLong(0)
	case types.KindRow:
		l := v.List()
		if len(l) != len(n.fields) {
			return fmt.Errorf("row value has %d fields, the type %d", len(l), len(n.fields))
		}
		for i, f := range n.fields {
			if err := e.value(f, l[i]); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("no Avro encoding for %s", t)
	}
	return nil
}

// decimal writes the unscaled value as big-endian two's complement in the
// fewest bytes, as Java's BigInteger.toByteArray (Flink's encoding).
func (e *rowEncoder) decimal(d types.Decimal) {
	if u, ok := d.UnscaledInt64(); ok {
		var buf [8]byte
		n := 8
		for i := 7; i >= 0; i-- {
			buf[i] = byte(u >> (8 * (7 - i)))
		}
		// Drop leading bytes that only repeat the sign.
		start := 0
		for start < n-1 {
			if (buf[start] == 0 && buf[start+1]&0x80 == 0) || (buf[start] == 0xff && buf[start+1]&0x80 != 0) {
				start++
				continue
			}
			break
		}
		e.w.WriteBytes(buf[start:])
		return
	}
	e.w.WriteBytes(twosComplement(d.Unscaled()))
}

func twosComplement(u *big.Int) []byte {
	if u.Sign() >= 0 {
		b := u.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -u - 1 in bits, inverted.
	m := new(big.Int).Neg(u)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}
