package types

import (
	"math"
	"strconv"
	"strings"
)

// Kind identifies a logical type's root, as Flink's LogicalTypeRoot does.
type Kind uint8

// The logical type kinds. STRING is VARCHAR with MaxLength and BYTES is
// VARBINARY with MaxLength, as in Flink.
const (
	KindInvalid Kind = iota
	KindBoolean
	KindTinyInt
	KindSmallInt
	KindInt
	KindBigInt
	KindFloat
	KindDouble
	KindDecimal
	KindChar
	KindVarChar
	KindBinary
	KindVarBinary
	KindDate
	KindTime
	KindTimestamp    // TIMESTAMP(p) [WITHOUT TIME ZONE]
	KindTimestampLTZ // TIMESTAMP_LTZ(p), TIMESTAMP(p) WITH LOCAL TIME ZONE
	KindArray
	KindMap
	KindMultiset
	KindRow
	KindNull // the type of an untyped NULL literal
	// KindIntervalYearMonth is INTERVAL YEAR TO MONTH (and its coarser
	// forms INTERVAL YEAR, INTERVAL MONTH): a number of months.
	KindIntervalYearMonth
	// KindIntervalDayTime is INTERVAL DAY TO SECOND (and its coarser
	// forms such as INTERVAL SECOND): a number of milliseconds.
	KindIntervalDayTime
)

var kindNames = [...]string{
	KindInvalid:      "INVALID",
	KindBoolean:      "BOOLEAN",
	KindTinyInt:      "TINYINT",
	KindSmallInt:     "SMALLINT",
	KindInt:          "INT",
	KindBigInt:       "BIGINT",
	KindFloat:        "FLOAT",
	KindDouble:       "DOUBLE",
	KindDecimal:      "DECIMAL",
	KindChar:         "CHAR",
	KindVarChar:      "VARCHAR",
	KindBinary:       "BINARY",
	KindVarBinary:    "VARBINARY",
	KindDate:         "DATE",
	KindTime:         "TIME",
	KindTimestamp:    "TIMESTAMP",
	KindTimestampLTZ: "TIMESTAMP_LTZ",
	KindArray:        "ARRAY",
	KindMap:          "MAP",
	KindMultiset:     "MULTISET",
	KindRow:          "ROW",
	KindNull:         "NULL",

	KindIntervalYearMonth: "INTERVAL YEAR TO MONTH",
	KindIntervalDayTime:   "INTERVAL DAY TO SECOND",
}

// String returns the SQL name of the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// IntRange returns the smallest and largest value of an integer kind
// (TINYINT, SMALLINT, INT, BIGINT); other kinds get BIGINT's range.
func (k Kind) IntRange() (lo, hi int64) {
	switch k {
	case KindTinyInt:
		return math.MinInt8, math.MaxInt8
	case KindSmallInt:
		return math.MinInt16, math.MaxInt16
	case KindInt:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// Limits of Flink's type parameters.
const (
	// MaxLength is the largest CHAR/VARCHAR/BINARY/VARBINARY length;
	// STRING is VARCHAR(MaxLength) and BYTES is VARBINARY(MaxLength).
	MaxLength = 2147483647
	// MaxDecimalPrecision is the largest DECIMAL precision.
	MaxDecimalPrecision = 38
	// MaxTimePrecision is the largest fractional-second precision of TIME
	// and TIMESTAMP types.
	MaxTimePrecision = 9
	// DefaultTimestampPrecision is the precision of TIMESTAMP without (p).
	DefaultTimestampPrecision = 6
	// DefaultDecimalPrecision is the precision of DECIMAL without (p, s).
	DefaultDecimalPrecision = 10
)

// Field is a named field of a ROW type.
type Field struct {
	Name        string
	Type        Type
	Description string // optional, from ROW<a INT 'comment'>
}

// Type is a logical type. Types are values; compare them with Equal.
type Type struct {
	Kind Kind
	// NotNull is true for a type declared NOT NULL. The zero value is
	// nullable, as SQL types are by default.
	NotNull bool
	// Length of CHAR, VARCHAR, BINARY and VARBINARY.
	Length int
	// Precision of DECIMAL, TIME, TIMESTAMP and TIMESTAMP_LTZ.
	Precision int
	// Scale of DECIMAL.
	Scale int
	// Elem is the element type of ARRAY and MULTISET, the key type of MAP.
	Elem *Type
	// Value is the value type of MAP.
	Value *Type
	// Fields of ROW.
	Fields []Field
}

// The constructors below return each logical type, nullable; use
// NotNullable for the NOT NULL variant. DecimalType, TimestampType and
// RowType carry a suffix because Decimal, Timestamp and Row name the values.

// Boolean returns BOOLEAN.
func Boolean() Type { return Type{Kind: KindBoolean} }

// TinyInt returns TINYINT.
func TinyInt() Type { return Type{Kind: KindTinyInt} }

// SmallInt returns SMALLINT.
func SmallInt() Type { return Type{Kind: KindSmallInt} }

// Int returns INT.
func Int() Type { return Type{Kind: KindInt} }

// BigInt returns BIGINT.
func BigInt() Type { return Type{Kind: KindBigInt} }

// Float returns FLOAT (4-byte).
func Float() Type { return Type{Kind: KindFloat} }

// Double returns DOUBLE (8-byte).
func Double() Type { return Type{Kind: KindDouble} }

// DecimalType returns DECIMAL(precision, scale).
func DecimalType(precision, scale int) Type {
	return Type{Kind: KindDecimal, Precision: precision, Scale: scale}
}

// Char returns CHAR(n).
func Char(n int) Type { return Type{Kind: KindChar, Length: n} }

// VarChar returns VARCHAR(n).
func VarChar(n int) Type { return Type{Kind: KindVarChar, Length: n} }

// String returns STRING, that is VARCHAR(MaxLength).
func String() Type { return VarChar(MaxLength) }

// Binary returns BINARY(n).
func Binary(n int) Type { return Type{Kind: KindBinary, Length: n} }

// VarBinary returns VARBINARY(n).
func VarBinary(n int) Type { return Type{Kind: KindVarBinary, Length: n} }

// Bytes returns BYTES, that is VARBINARY(MaxLength).
func Bytes() Type { return VarBinary(MaxLength) }

// Date returns DATE.
func Date() Type { return Type{Kind: KindDate} }

// Time returns TIME(p).
func Time(p int) Type { return Type{Kind: KindTime, Precision: p} }

// TimestampType returns TIMESTAMP(p) WITHOUT TIME ZONE.
func TimestampType(p int) Type { return Type{Kind: KindTimestamp, Precision: p} }

// TimestampLTZ returns TIMESTAMP_LTZ(p), also written
// TIMESTAMP(p) WITH LOCAL TIME ZONE.
func TimestampLTZ(p int) Type { return Type{Kind: KindTimestampLTZ, Precision: p} }

// Array returns ARRAY<elem>.
func Array(elem Type) Type { return Type{Kind: KindArray, Elem: &elem} }

// Multiset returns MULTISET<elem>.
func Multiset(elem Type) Type { return Type{Kind: KindMultiset, Elem: &elem} }

// Map returns MAP<key, value>.
func Map(key, value Type) Type { return Type{Kind: KindMap, Elem: &key, Value: &value} }

// RowType returns ROW<fields...>.
func RowType(fields ...Field) Type { return Type{Kind: KindRow, Fields: fields} }

// Null returns the type of an untyped NULL literal.
func Null() Type { return Type{Kind: KindNull} }

// IntervalYearMonth returns INTERVAL YEAR TO MONTH, the type of year-month
// interval literals such as INTERVAL '1' YEAR. Its values are months
// (Value.Int64).
func IntervalYearMonth() Type { return Type{Kind: KindIntervalYearMonth} }

// IntervalDayTime returns INTERVAL DAY TO SECOND(3), the type of day-time
// interval literals such as INTERVAL '5' SECOND. Its values are
// milliseconds (Value.Int64).
func IntervalDayTime() Type { return Type{Kind: KindIntervalDayTime, Precision: 3} }

// NotNullable returns t declared NOT NULL.
func (t Type) NotNullable() Type { t.NotNull = true; return t }

// Nullable returns t without NOT NULL.
func (t Type) Nullable() Type { t.NotNull = false; return t }

// IsString reports whether t is CHAR or VARCHAR.
func (t Type) IsString() bool { return t.Kind == KindChar || t.Kind == KindVarChar }

// IsBinary reports whether t is BINARY or VARBINARY.
func (t Type) IsBinary() bool { return t.Kind == KindBinary || t.Kind == KindVarBinary }

// IsInteger reports whether t is TINYINT, SMALLINT, INT or BIGINT.
func (t Type) IsInteger() bool { return t.Kind >= KindTinyInt && t.Kind <= KindBigInt }

// IsNumeric reports whether t is an exact or approximate number.
func (t Type) IsNumeric() bool { return t.Kind >= KindTinyInt && t.Kind <= KindDecimal }

// IsTimestamp reports whether t is TIMESTAMP or TIMESTAMP_LTZ.
func (t Type) IsTimestamp() bool { return t.Kind == KindTimestamp || t.Kind == KindTimestampLTZ }

// Equal reports whether t and u are the same type, nullability included.
func (t Type) Equal(u Type) bool {
	if t.Kind != u.Kind || t.NotNull != u.NotNull || t.Length != u.Length ||
		t.Precision != u.Precision || t.Scale != u.Scale || len(t.Fields) != len(u.Fields) {
		return false
	}
	if (t.Elem == nil) != (u.Elem == nil) || (t.Value == nil) != (u.Value == nil) {
		return false
	}
	if t.Elem != nil && !t.Elem.Equal(*u.Elem) {
		return false
	}
	if t.Value != nil && !t.Value.Equal(*u.Value) {
		return false
	}
	for i := range t.Fields {
		if t.Fields[i].Name != u.Fields[i].Name || !t.Fields[i].Type.Equal(u.Fields[i].Type) {
			return false
		}
	}
	return true
}

// String returns Flink's summary string of the type, for example
// "STRING NOT NULL", "DECIMAL(10, 2)", "TIMESTAMP_LTZ(3)" or
// "ROW<`id` BIGINT, `name` STRING>".
func (t Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Type) write(b *strings.Builder) {
	switch t.Kind {
	case KindChar, KindBinary:
		b.WriteString(t.Kind.String())
		writeParams(b, t.Length)
	case KindVarChar:
		if t.Length == MaxLength {
			b.WriteString("STRING")
		} else {
			b.WriteString("VARCHAR")
			writeParams(b, t.Length)
		}
	case KindVarBinary:
		if t.Length == MaxLength {
			b.WriteString("BYTES")
		} else {
			b.WriteString("VARBINARY")
			writeParams(b, t.Length)
		}
	case KindDecimal:
		b.WriteString("DECIMAL")
		writeParams(b, t.Precision, t.Scale)
	case KindTime, KindTimestamp, KindTimestampLTZ:
		b.WriteString(t.Kind.String())
		writeParams(b, t.Precision)
	case KindIntervalDayTime:
		b.WriteString("INTERVAL DAY TO SECOND")
		writeParams(b, t.Precision)
	case KindArray, KindMultiset:
		b.WriteString(t.Kind.String())
		b.WriteByte('<')
		t.Elem.write(b)
		b.WriteByte('>')
	case KindMap:
		b.WriteString("MAP<")
		t.Elem.write(b)
		b.WriteString(", ")
		t.Value.write(b)
		b.WriteByte('>')
	case KindRow:
		b.WriteString("ROW<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteIdent(f.Name))
			b.WriteByte(' ')
			f.Type.write(b)
			if f.Description != "" {
				b.WriteString(" '")
				b.WriteString(strings.ReplaceAll(f.Description, "'", "''"))
				b.WriteByte('\'')
			}
		}
		b.WriteByte('>')
	default:
		b.WriteString(t.Kind.String())
	}
	if t.NotNull {
		b.WriteString(" NOT NULL")
	}
}

func writeParams(b *strings.Builder, ps ...int) {
	b.WriteByte('(')
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(p))
	}
	b.WriteByte(')')
}

// QuoteIdent quotes an identifier with back-quotes, as Flink prints field
// names: `name`, with embedded back-quotes doubled.
func QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
