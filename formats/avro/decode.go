package avro

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"unsafe"

	hamba "github.com/hamba/avro/v2"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// wire is the Avro type a decoding node reads from the record.
type wire uint8

const (
	wNull wire = iota
	wBool
	wInt
	wLong
	wFloat
	wDouble
	wBytes // also string
	wFixed
	wEnum
	wArray
	wMap
	wRecord
	wUnion
	wSkip // a writer field the table does not have
)

// unit says how an int or long with a logical type counts.
type unit uint8

const (
	unitNone unit = iota
	unitMillis
	unitMicros
)

// dnode decodes one writer-schema value into a column of type typ: the
// program is compiled once from the writer schema and the table's types
// (Avro schema resolution: fields matched by name, missing nullable
// columns NULL, extra writer fields skipped, numeric promotion), so that
// the record path reads straight into the row.
type dnode struct {
	wire     wire
	typ      types.Type
	path     string
	unit     unit
	size     int          // fixed size
	symbols  []string     // enum symbols
	branches []*dnode     // union branches
	elem     *dnode       // array items, map values
	fields   []*dnode     // record: one per writer field, in writer order
	target   []int        // record: the column each writer field fills, or -1
	width    int          // record: number of columns
	skip     hamba.Schema // wSkip: the writer schema to skip
}

// compileDecoder compiles the program reading writer (an Avro record
// schema) into columns fields, of which the job reads those read says
// (nil: all): the values of the others are skipped by their writer
// schema, and they are NULL.
func compileDecoder(format string, writer hamba.Schema, fields []types.Field, read *factory.RowRead) (*dnode, error) {
	c := compiler{format: format}
	return c.record(writer, "", fields, read)
}

type compiler struct{ format string }

func (c *compiler) mismatch(path string, w hamba.Schema, t types.Type) error {
	return &factory.UnsupportedTypeError{Format: c.format, Field: path, Type: t.String(),
		Reason: fmt.Sprintf("the writer's Avro type %s cannot be read as %s", shortSchema(w), t)}
}

func shortSchema(s hamba.Schema) string {
	if l := logical(s); l != "" {
		return string(s.Type()) + "/" + l
	}
	return string(s.Type())
}

func deref(s hamba.Schema) hamba.Schema {
	if r, ok := s.(*hamba.RefSchema); ok {
		return r.Schema()
	}
	return s
}

func logical(s hamba.Schema) string {
	if ls, ok := s.(hamba.LogicalTypeSchema); ok && ls.Logical() != nil {
		return string(ls.Logical().Type())
	}
	return ""
}

func (c *compiler) record(w hamba.Schema, path string, fields []types.Field, read *factory.RowRead) (*dnode, error) {
	rs, ok := deref(w).(*hamba.RecordSchema)
	if !ok {
		return nil, c.mismatch(path, w, types.RowType(fields...))
	}
	n := &dnode{wire: wRecord, typ: types.RowType(fields...), path: path, width: len(fields)}
	seen := make([]bool, len(fields))
	for _, wf := range rs.Fields() {
		idx := -1
		for i, f := range fields {
			if f.Name == wf.Name() {
				idx = i
				break
			}
		}
		if idx < 0 {
			n.fields = append(n.fields, &dnode{wire: wSkip, skip: wf.Type()})
			n.target = append(n.target, -1)
			continue
		}
		seen[idx] = true
		fp := join(path, fields[idx].Name)
		if !read.Reads(idx) {
			// Not read: skipped by the writer's schema, NULL.
			n.fields = append(n.fields, &dnode{wire: wSkip, skip: wf.Type(), path: fp})
			n.target = append(n.target, -1)
			continue
		}
		child, err := c.value(wf.Type(), fp, fields[idx].Type, read.Row(idx))
		if err != nil {
			return nil, err
		}
		n.fields = append(n.fields, child)
		n.target = append(n.target, idx)
	}
	for i, f := range fields {
		if !seen[i] && f.Type.NotNull {
			return nil, &factory.UnsupportedTypeError{Format: c.format, Field: join(path, f.Name), Type: f.Type.String(),
				Reason: "the writer's schema has no such field and a NOT NULL column has no default"}
		}
	}
	return n, nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// value compiles the reading of a value of writer schema w into a column
// of type t; read narrows a ROW (nil: all of it).
func (c *compiler) value(w hamba.Schema, path string, t types.Type, read *factory.RowRead) (*dnode, error) {
	w = deref(w)
	n := &dnode{typ: t, path: path}
	k := t.Kind
	switch s := w.(type) {
	case *hamba.UnionSchema:
		n.wire = wUnion
		for _, b := range s.Types() {
			bn, err := c.value(b, path, t, read)
			if err != nil {
				return nil, err
			}
			n.branches = append(n.branches, bn)
		}
		return n, nil
	case *hamba.NullSchema:
		n.wire = wNull
		return n, nil
	case *hamba.RecordSchema:
		if k != types.KindRow {
			return nil, c.mismatch(path, w, t)
		}
		r, err := c.record(w, path, t.Fields, read)
		if err != nil {
			return nil, err
		}
		r.typ = t
		return r, nil
	case *hamba.ArraySchema:
		if k != types.KindArray {
			return nil, c.mismatch(path, w, t)
		}
		e, err := c.value(s.Items(), path, *t.Elem, nil)
		if err != nil {
			return nil, err
		}
		n.wire, n.elem = wArray, e
		return n, nil
	case *hamba.MapSchema:
		if (k != types.KindMap && k != types.KindMultiset) || !t.Elem.IsString() {
			return nil, c.mismatch(path, w, t)
		}
		vt := types.Int()
		if k == types.KindMap {
			vt = *t.Value
		}
		e, err := c.value(s.Values(), path, vt, nil)
		if err != nil {
			return nil, err
		}
		n.wire, n.elem = wMap, e
		return n, nil
	case *hamba.EnumSchema:
		if !t.IsString() {
			return nil, c.mismatch(path, w, t)
		}
		n.wire, n.symbols = wEnum, s.Symbols()
		return n, nil
	case *hamba.FixedSchema:
		if !t.IsBinary() && k != types.KindDecimal {
			return nil, c.mismatch(path, w, t)
		}
		n.wire, n.size = wFixed, s.Size()
		return n, nil
	}
	lt := logical(w)
	ok := false
	switch w.Type() {
	case hamba.Boolean:
		n.wire, ok = wBool, k == types.KindBoolean
	case hamba.Int, hamba.Long:
		n.wire = wInt
		if w.Type() == hamba.Long {
			n.wire = wLong
		}
		switch lt {
		case "time-millis", "timestamp-millis", "local-timestamp-millis":
			n.unit = unitMillis
		case "time-micros", "timestamp-micros", "local-timestamp-micros":
			n.unit = unitMicros
		}
		switch {
		case t.IsInteger(), k == types.KindFloat, k == types.KindDouble:
			ok = lt == ""
		case k == types.KindDate:
			ok = lt == "date"
		case k == types.KindTime:
			ok = lt == "time-millis" || lt == "time-micros"
		case t.IsTimestamp():
			ok = n.unit != unitNone && lt != "time-millis" && lt != "time-micros"
		}
		if ok && w.Type() == hamba.Long && (k == types.KindTinyInt || k == types.KindSmallInt || k == types.KindInt) {
			ok = false // Avro promotes int to long, never the reverse
		}
	case hamba.Float:
		n.wire, ok = wFloat, k == types.KindFloat || k == types.KindDouble
	case hamba.Double:
		n.wire, ok = wDouble, k == types.KindDouble
	case hamba.String, hamba.Bytes:
		n.wire = wBytes
		ok = t.IsString() || t.IsBinary() || (k == types.KindDecimal && lt == "decimal")
	}
	if !ok {
		return nil, c.mismatch(path, w, t)
	}
	return n, nil
}

// decodeState is the per-decoder scratch of one record.
type decodeState struct {
	r     *hamba.Reader
	arena []byte // strings and bytes of the record, one allocation per record
}

var errNotNull = errors.New("NULL for a NOT NULL column")

// blob reads a length-prefixed string or bytes into the record's arena.
func (s *decodeState) blob(n int64) ([]byte, error) {
	if n < 0 || n > int64(cap(s.arena)-len(s.arena)) {
		return nil, fmt.Errorf("invalid length %d (the record is shorter)", n)
	}
	start := len(s.arena)
	s.arena = s.arena[:start+int(n)]
	b := s.arena[start : start+int(n) : start+int(n)]
	s.r.Read(b)
	return b, s.r.Error
}

func (s *decodeState) read(n *dnode) (types.Value, error) {
	r := s.r
	switch n.wire {
	case wUnion:
		i := r.ReadLong()
		if r.Error != nil {
			return types.Value{}, r.Error
		}
		if i < 0 || i >= int64(len(n.branches)) {
			return types.Value{}, fmt.Errorf("union branch %d out of range (the union has %d)", i, len(n.branches))
		}
		return s.read(n.branches[i])
	case wNull:
		if n.typ.NotNull {
			return types.Value{}, errNotNull
		}
		return types.Value{}, nil
	case wBool:
		return types.Bool(r.ReadBool()), r.Error
	case wInt, wLong:
		var i int64
		if n.wire == wInt {
			i = int64(r.ReadInt())
		} else {
			i = r.ReadLong()
		}
		if r.Error != nil {
			return types.Value{}, r.Error
		}
		return fromInt(n, i)
	case wFloat:
		return types.Float64(float64(r.ReadFloat())), r.Error
	case wDouble:
		return types.Float64(r.ReadDouble()), r.Error
	case wBytes, wFixed:
		size := int64(n.size)
		if n.wire == wBytes {
			size = r.ReadLong()
			if r.Error != nil {
				return types.Value{}, r.Error
			}
		}
		b, err := s.blob(size)
		if err != nil {
			return types.Value{}, err
		}
		switch {
		case n.typ.IsString():
			return types.Str(unsafe.String(unsafe.SliceData(b), len(b))), nil
		case n.typ.Kind == types.KindDecimal:
			return decimal(b, n.typ)
		}
		return types.BytesValue(b), nil
	case wEnum:
		i := r.ReadInt()
		if r.Error != nil {
			return types.Value{}, r.Error
		}
		if i < 0 || int(i) >= len(n.symbols) {
			return types.Value{}, fmt.Errorf("enum index %d out of range", i)
		}
		return types.Str(n.symbols[i]), nil
	case wArray:
		var out []Value
		for {
			cnt, _ := r.ReadBlockHeader()
			if r.Error != nil {
				return types.Value{}, r.Error
			}
			if cnt == 0 {
				break
			}
			if cnt < 0 || cnt > int64(cap(s.arena)) {
				return types.Value{}, fmt.Errorf("invalid array block count %d", cnt)
			}
			if out == nil {
				out = make([]Value, 0, cnt)
			}
			for range cnt {
				v, err := s.read(n.elem)
				if err != nil {
					return types.Value{}, err
				}
				out = append(out, v)
			}
		}
		if out == nil {
			out = []Value{}
		}
		return types.List(out), nil
	case wMap:
		m := &types.MapData{}
		for {
			cnt, _ := r.ReadBlockHeader()
			if r.Error != nil {
				return types.Value{}, r.Error
			}
			if cnt == 0 {
				break
			}
			if cnt < 0 || cnt > int64(cap(s.arena)) {
				return types.Value{}, fmt.Errorf("invalid map block count %d", cnt)
			}
			for range cnt {
				kl := r.ReadLong()
				if r.Error != nil {
					return types.Value{}, r.Error
				}
				kb, err := s.blob(kl)
				if err != nil {
					return types.Value{}, err
				}
				v, err := s.read(n.elem)
				if err != nil {
					return types.Value{}, err
				}
				m.Keys = append(m.Keys, types.Str(unsafe.String(unsafe.SliceData(kb), len(kb))))
				m.Values = append(m.Values, v)
			}
		}
		return types.MapValue(m), nil
	case wRecord:
		vals := make([]Value, n.width)
		if err := s.fields(n, vals); err != nil {
			return types.Value{}, err
		}
		return types.List(vals), nil
	}
	return types.Value{}, fmt.Errorf("internal: unknown wire type %d", n.wire)
}

// Value is types.Value, named short for the decoder's slices.
type Value = types.Value

// fields reads the fields of record n into vals (NULL where the writer has
// no such field).
func (s *decodeState) fields(n *dnode, vals []Value) error {
	for i := range vals {
		vals[i] = types.Value{}
	}
	for i, f := range n.fields {
		if n.target[i] < 0 {
			s.skip(f.skip)
			if s.r.Error != nil {
				if f.path != "" {
					return &fieldErr{path: f.path, err: s.r.Error}
				}
				return s.r.Error
			}
			continue
		}
		v, err := s.read(f)
		if err != nil {
			var fe *fieldErr
			if errors.As(err, &fe) {
				return err
			}
			return &fieldErr{path: f.path, err: err}
		}
		vals[n.target[i]] = v
	}
	return nil
}

type fieldErr struct {
	path string
	err  error
}

func (e *fieldErr) Error() string { return e.err.Error() }
func (e *fieldErr) Unwrap() error { return e.err }

func fromInt(n *dnode, i int64) (types.Value, error) {
	t := n.typ
	switch t.Kind {
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		lo, hi := t.Kind.IntRange()
		if i < lo || i > hi {
			return types.Value{}, fmt.Errorf("%d is out of range for %s", i, t.Kind)
		}
		return types.Int64(i), nil
	case types.KindFloat:
		return types.Float64(float64(float32(i))), nil
	case types.KindDouble:
		return types.Float64(float64(i)), nil
	case types.KindDate:
		if i < math.MinInt32 || i > math.MaxInt32 {
			return types.Value{}, fmt.Errorf("date %d out of range", i)
		}
		return types.DateValue(int32(i)), nil
	case types.KindTime:
		if n.unit == unitMicros {
			return types.TimeValue(i * 1000), nil
		}
		return types.TimeValue(i * 1_000_000), nil
	default: // timestamps: milliseconds, also under timestamp-micros, as Flink 1.20 reads them
		return types.TimestampValue(types.Timestamp{Millis: i}), nil
	}
}

var errDecimalEmpty = errors.New("a decimal needs at least one byte")

// decimal reads a big-endian two's-complement unscaled value with the
// column's scale, as Flink's DecimalData.fromUnscaledBytes.
func decimal(b []byte, t types.Type) (types.Value, error) {
	if len(b) == 0 {
		return types.Value{}, errDecimalEmpty
	}
	var d types.Decimal
	if len(b) <= 8 {
		u := int64(int8(b[0]))
		for _, c := range b[1:] {
			u = u<<8 | int64(c)
		}
		d = types.NewDecimal(u, t.Scale)
	} else {
		u := new(big.Int).SetBytes(b)
		if b[0]&0x80 != 0 {
			u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(len(b)*8)))
		}
		d = types.NewDecimalBig(u, t.Scale)
	}
	if d.Precision() > t.Precision {
		return types.Value{}, fmt.Errorf("%s does not fit %s", d, t)
	}
	return types.DecimalValue(d), nil
}

// skip reads past a value of writer schema w that the table lacks or the
// job does not read, checking it as reading it would: string and bytes
// lengths and block counts not negative and within the record, union
// branches and enum symbols in range, booleans 0 or 1. So a record
// malformed in a value skipped fails as one malformed in a value read.
func (s *decodeState) skip(w hamba.Schema) {
	r := s.r
	limit := int64(cap(s.arena))
	switch w := deref(w).(type) {
	case *hamba.RecordSchema:
		for _, f := range w.Fields() {
			if r.Error != nil {
				return
			}
			s.skip(f.Type())
		}
	case *hamba.UnionSchema:
		i := r.ReadLong()
		if r.Error == nil && (i < 0 || i >= int64(len(w.Types()))) {
			r.ReportError("skip", fmt.Sprintf("union branch %d out of range (the union has %d)", i, len(w.Types())))
			return
		}
		if r.Error == nil {
			s.skip(w.Types()[i])
		}
	case *hamba.ArraySchema, *hamba.MapSchema:
		for r.Error == nil {
			// Item by item even when the block has its size in bytes
			// (which is not checked), as reading does: its items are
			// checked as read ones.
			cnt, _ := r.ReadBlockHeader()
			if cnt == 0 || r.Error != nil {
				return
			}
			if cnt < 0 || cnt > limit {
				r.ReportError("skip", fmt.Sprintf("invalid block count %d", cnt))
				return
			}
			for range cnt {
				if r.Error != nil {
					return
				}
				if m, ok := w.(*hamba.MapSchema); ok {
					s.skipBlob()
					s.skip(m.Values())
				} else {
					s.skip(w.(*hamba.ArraySchema).Items())
				}
			}
		}
	case *hamba.FixedSchema:
		r.SkipNBytes(w.Size())
	case *hamba.EnumSchema:
		i := r.ReadInt()
		if r.Error == nil && (i < 0 || int(i) >= len(w.Symbols())) {
			r.ReportError("skip", fmt.Sprintf("enum index %d out of range", i))
		}
	default:
		switch w.Type() {
		case hamba.Boolean:
			r.ReadBool()
		case hamba.Int:
			r.SkipInt()
		case hamba.Long:
			r.SkipLong()
		case hamba.Float:
			r.SkipFloat()
		case hamba.Double:
			r.SkipDouble()
		case hamba.String, hamba.Bytes:
			s.skipBlob()
		}
	}
}

// skipBlob reads past a length-prefixed string or bytes.
func (s *decodeState) skipBlob() {
	n := s.r.ReadLong()
	if s.r.Error != nil {
		return
	}
	if n < 0 || n > int64(cap(s.arena)) {
		s.r.ReportError("skip", fmt.Sprintf("invalid length %d (the record is shorter)", n))
		return
	}
	s.r.SkipNBytes(int(n))
}

// rowDecoder decodes records written with one writer schema into rows.
type rowDecoder struct {
	format string
	prog   *dnode
	st     decodeState
}

func newRowDecoder(format string, prog *dnode) *rowDecoder {
	return &rowDecoder{format: format, prog: prog, st: decodeState{r: hamba.NewReader(nil, 0, hamba.WithReaderConfig(readerConfig))}}
}

// readerConfig lifts hamba's 1 MiB string limit: lengths are checked
// against the record instead (decodeState.blob).
var readerConfig = hamba.Config{MaxByteSliceSize: math.MaxInt32}.Freeze()

// decode decodes data into row.
func (d *rowDecoder) decode(data []byte, row *types.Row) error {
	d.st.r.Reset(data)
	d.st.r.Error = nil
	d.st.arena = make([]byte, 0, len(data))
	if cap(row.Fields) >= d.prog.width {
		row.Fields = row.Fields[:d.prog.width]
	} else {
		row.Fields = make([]types.Value, d.prog.width)
	}
	row.Kind = types.Insert
	if err := d.st.fields(d.prog, row.Fields); err != nil {
		de := &factory.DecodeError{Format: d.format, Err: err}
		var fe *fieldErr
		if errors.As(err, &fe) {
			de.Field, de.Err = fe.path, fe.err
		}
		if errors.Is(de.Err, io.EOF) {
			de.Offset = len(data)
			de.Err = fmt.Errorf("the record ends early (%d bytes): %w", len(data), io.ErrUnexpectedEOF)
		}
		return de
	}
	return nil
}
