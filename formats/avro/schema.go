package avro

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// Namespace and RecordName name the record Flink derives from a table
// (AvroSchemaConverter): nested ROW fields are records named
// record_<field>, record_<field>_<nested field>, ... in the same namespace.
const (
	Namespace  = "org.apache.flink.avro.generated"
	RecordName = "record"
)

// DeriveSchema returns the Avro schema (JSON text) that Flink derives for a
// table whose columns are fields: a record named RecordName whose nullable
// fields are unions ["null", T] with default null. The text is the one
// Flink's Schema.toString() prints (compared in TestFlinkSchemaGolden). legacyTimestamps is
// avro.timestamp_mapping.legacy: true maps TIMESTAMP to timestamp-millis /
// timestamp-micros and rejects TIMESTAMP_LTZ; false maps TIMESTAMP to
// local-timestamp-* and TIMESTAMP_LTZ to timestamp-*.
func DeriveSchema(format string, fields []types.Field, legacyTimestamps bool) (string, error) {
	var b strings.Builder
	d := deriver{format: format, legacy: legacyTimestamps, b: &b}
	if err := d.record(RecordName, "", fields); err != nil {
		return "", err
	}
	return b.String(), nil
}

type deriver struct {
	format string
	legacy bool
	b      *strings.Builder
}

func (d *deriver) unsupported(path string, t types.Type, reason string) error {
	return &factory.UnsupportedTypeError{Format: d.format, Field: path, Type: t.String(), Reason: reason}
}

// validName reports whether s is a valid Avro name ([A-Za-z_][A-Za-z0-9_]*).
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func (d *deriver) record(name, path string, fields []types.Field) error {
	b := d.b
	b.WriteString(`{"type":"record","name":`)
	b.WriteString(strconv.Quote(name))
	if path == "" {
		b.WriteString(`,"namespace":` + strconv.Quote(Namespace))
	}
	b.WriteString(`,"fields":[`)
	for i, f := range fields {
		fp := f.Name
		if path != "" {
			fp = path + "." + f.Name
		}
		if !validName(f.Name) {
			return d.unsupported(fp, f.Type, "an Avro field name must match [A-Za-z_][A-Za-z0-9_]*")
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":`)
		b.WriteString(strconv.Quote(f.Name))
		b.WriteString(`,"type":`)
		if err := d.typ(name+"_"+f.Name, fp, f.Type); err != nil {
			return err
		}
		if !f.Type.NotNull {
			b.WriteString(`,"default":null`)
		}
		b.WriteByte('}')
	}
	b.WriteString("]}")
	return nil
}

func (d *deriver) typ(name, path string, t types.Type) error {
	b := d.b
	if !t.NotNull && t.Kind != types.KindNull {
		b.WriteString(`["null",`)
		defer b.WriteByte(']')
	}
	switch t.Kind {
	case types.KindNull:
		b.WriteString(`"null"`)
	case types.KindBoolean:
		b.WriteString(`"boolean"`)
	case types.KindTinyInt, types.KindSmallInt, types.KindInt:
		b.WriteString(`"int"`)
	case types.KindBigInt:
		b.WriteString(`"long"`)
	case types.KindFloat:
		b.WriteString(`"float"`)
	case types.KindDouble:
		b.WriteString(`"double"`)
	case types.KindChar, types.KindVarChar:
		b.WriteString(`"string"`)
	case types.KindBinary, types.KindVarBinary:
		b.WriteString(`"bytes"`)
	case types.KindDecimal:
		fmt.Fprintf(b, `{"type":"bytes","logicalType":"decimal","precision":%d,"scale":%d}`, t.Precision, t.Scale)
	case types.KindDate:
		b.WriteString(`{"type":"int","logicalType":"date"}`)
	case types.KindTime:
		if t.Precision > 3 {
			return d.unsupported(path, t, "Avro's time-millis holds at most TIME(3), as in Flink")
		}
		b.WriteString(`{"type":"int","logicalType":"time-millis"}`)
	case types.KindTimestamp, types.KindTimestampLTZ:
		unit, err := d.timestampUnit(path, t)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, `{"type":"long","logicalType":%q}`, unit)
	case types.KindArray:
		b.WriteString(`{"type":"array","items":`)
		if err := d.typ(name, path, *t.Elem); err != nil {
			return err
		}
		b.WriteByte('}')
	case types.KindMap, types.KindMultiset:
		if !t.Elem.IsString() {
			return d.unsupported(path, t, "Avro map keys are strings: the key type must be CHAR, VARCHAR or STRING")
		}
		b.WriteString(`{"type":"map","values":`)
		vt := types.Int() // MULTISET counts: a nullable int, as in Flink
		if t.Kind == types.KindMap {
			vt = *t.Value
		}
		if err := d.typ(name, path, vt); err != nil {
			return err
		}
		b.WriteByte('}')
	case types.KindRow:
		return d.record(name, path, t.Fields)
	default:
		return d.unsupported(path, t, "no Avro type for it (as in Flink)")
	}
	return nil
}

// timestampUnit returns the logical type Flink uses for a TIMESTAMP or
// TIMESTAMP_LTZ column.
func (d *deriver) timestampUnit(path string, t types.Type) (string, error) {
	if t.Kind == types.KindTimestampLTZ && d.legacy {
		return "", d.unsupported(path, t, "with avro.timestamp_mapping.legacy = true (the default) Flink has no Avro type for TIMESTAMP_LTZ; set it to false")
	}
	prefix := ""
	if t.Kind == types.KindTimestamp && !d.legacy {
		prefix = "local-"
	}
	switch {
	case t.Precision <= 3:
		return prefix + "timestamp-millis", nil
	case t.Precision <= 6 && d.legacy:
		return "", d.unsupported(path, t, "with avro.timestamp_mapping.legacy = true (the default) Flink maps TIMESTAMP to timestamp-millis only (precision at most 3); set it to false for timestamp-micros")
	case t.Precision <= 6:
		return prefix + "timestamp-micros", nil
	}
	return "", d.unsupported(path, t, "Avro timestamps hold at most microseconds (precision 6), as in Flink")
}
