package javafmt

import (
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/types"
)

// FormatRow returns row as Flink prints it (Row.toString of its external
// Java representation): the change kind, then the fields in brackets, for
// example "+I[1, foo, null]". colTypes gives the type of each field.
func FormatRow(row types.Row, colTypes []types.Type) string {
	var b strings.Builder
	AppendRow(&b, row.Kind, row.Fields, colTypes)
	return b.String()
}

// AppendRow writes kind and fields as FormatRow does.
func AppendRow(b *strings.Builder, kind types.RowKind, fields []types.Value, colTypes []types.Type) {
	b.WriteString(kind.String())
	b.WriteByte('[')
	for i, v := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		var t types.Type
		if i < len(colTypes) {
			t = colTypes[i]
		}
		AppendValue(b, v, t)
	}
	b.WriteByte(']')
}

// AppendValue writes v, of type t, the way Java's toString of Flink's
// default external class for t does: Double.toString for DOUBLE,
// BigDecimal.toString for DECIMAL, LocalDateTime for TIMESTAMP, Instant for
// TIMESTAMP_LTZ, signed bytes in brackets for BYTES, and so on. NULL is
// "null".
func AppendValue(b *strings.Builder, v types.Value, t types.Type) {
	if v.IsNull() {
		b.WriteString("null")
		return
	}
	switch t.Kind {
	case types.KindBoolean:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		b.WriteString(strconv.FormatInt(v.Int64(), 10))
	case types.KindFloat:
		b.WriteString(Float(v.Float64(), 32))
	case types.KindDouble:
		b.WriteString(Float(v.Float64(), 64))
	case types.KindDecimal:
		b.WriteString(BigDecimal(v.Decimal()))
	case types.KindChar, types.KindVarChar:
		b.WriteString(v.Str())
	case types.KindBinary, types.KindVarBinary:
		b.WriteByte('[')
		for i, c := range v.Bytes() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(int(int8(c))))
		}
		b.WriteByte(']')
	case types.KindDate:
		appendDate(b, time.Unix(int64(v.Date())*86400, 0).UTC())
	case types.KindTime:
		appendLocalTime(b, v.Time()/1e9, v.Time()%1e9, false)
	case types.KindTimestamp, types.KindTimestampLTZ:
		ts := v.Timestamp()
		tm := ts.Time()
		appendDate(b, tm)
		b.WriteByte('T')
		secOfDay := int64(tm.Hour()*3600 + tm.Minute()*60 + tm.Second())
		appendLocalTime(b, secOfDay, int64(tm.Nanosecond()), t.Kind == types.KindTimestampLTZ)
		if t.Kind == types.KindTimestampLTZ {
			b.WriteByte('Z')
		}
	case types.KindArray:
		var et types.Type
		if t.Elem != nil {
			et = *t.Elem
		}
		b.WriteByte('[')
		for i, e := range v.List() {
			if i > 0 {
				b.WriteString(", ")
			}
			AppendValue(b, e, et)
		}
		b.WriteByte(']')
	case types.KindMap, types.KindMultiset:
		var kt, vt types.Type
		if t.Elem != nil {
			kt = *t.Elem
		}
		if t.Value != nil {
			vt = *t.Value
		} else {
			vt = types.Int()
		}
		m := v.Map()
		b.WriteByte('{')
		if m != nil {
			for i := range m.Keys {
				if i > 0 {
					b.WriteString(", ")
				}
				AppendValue(b, m.Keys[i], kt)
				b.WriteByte('=')
				AppendValue(b, m.Values[i], vt)
			}
		}
		b.WriteByte('}')
	case types.KindRow:
		fts := make([]types.Type, len(t.Fields))
		for i, f := range t.Fields {
			fts[i] = f.Type
		}
		AppendRow(b, types.Insert, v.List(), fts)
	default:
		b.WriteString("?")
	}
}

func appendDate(b *strings.Builder, t time.Time) {
	y := t.Year()
	switch {
	case y > 9999:
		b.WriteByte('+')
		b.WriteString(strconv.Itoa(y))
	case y < 0:
		b.WriteString(strconv.Itoa(y))
	default:
		pad(b, int64(y), 4)
	}
	b.WriteByte('-')
	pad(b, int64(t.Month()), 2)
	b.WriteByte('-')
	pad(b, int64(t.Day()), 2)
}

// appendLocalTime writes a time of day as java.time.LocalTime.toString does
// (HH:mm, then :ss unless seconds and nanos are zero, then the fraction in
// groups of three digits). Instant.toString (instant true) always writes
// seconds.
func appendLocalTime(b *strings.Builder, secOfDay, nanos int64, instant bool) {
	pad(b, secOfDay/3600, 2)
	b.WriteByte(':')
	pad(b, secOfDay/60%60, 2)
	if secOfDay%60 == 0 && nanos == 0 && !instant {
		return
	}
	b.WriteByte(':')
	pad(b, secOfDay%60, 2)
	if nanos == 0 {
		return
	}
	b.WriteByte('.')
	switch {
	case nanos%1e6 == 0:
		pad(b, nanos/1e6, 3)
	case nanos%1e3 == 0:
		pad(b, nanos/1e3, 6)
	default:
		pad(b, nanos, 9)
	}
}

func pad(b *strings.Builder, n int64, width int) {
	s := strconv.FormatInt(n, 10)
	for i := len(s); i < width; i++ {
		b.WriteByte('0')
	}
	b.WriteString(s)
}
