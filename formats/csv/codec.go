package csv

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/text"
	"github.com/streamsql/streamsql/types"
)

// span is one field of a record: its bounds in the record and, when it had
// quotes or escapes, the bounds of its unescaped content in the decoder's
// scratch buffer.
type span struct {
	start, end int // in the record
	us, ue     int // in scratch, when rewritten
	quoted     bool
	rewritten  bool
}

type decoder struct {
	cfg      config
	fields   []types.Field
	read     []bool             // FormatContext.ReadFields: nil, or false for a field not converted
	rows     []*factory.RowRead // FormatContext.ReadRows: nil, or what is read of ROW fields
	need     int                // the fields a record must have: all, or the number read
	spans    []span
	scratch  []byte // unescaped contents of rewritten fields
	str      string // copy of the record, made on first use
	hasStr   bool
	arena    string // copy of scratch, made on first use
	hasArena bool
	data     []byte
}

// Decode implements factory.Decoder.
func (d *decoder) Decode(data []byte, row *types.Row) error {
	n := len(d.fields)
	if cap(row.Fields) >= n {
		row.Fields = row.Fields[:n]
		clear(row.Fields)
	} else {
		row.Fields = make([]types.Value, n)
	}
	row.Kind = types.Insert
	d.data, d.str, d.hasStr, d.arena, d.hasArena = data, "", false, "", false
	defer func() { d.data = nil }()

	// One record per message; tolerate a trailing line break.
	if len(data) > 0 && data[len(data)-1] == '\n' {
		data = data[:len(data)-1]
		if len(data) > 0 && data[len(data)-1] == '\r' {
			data = data[:len(data)-1]
		}
	}
	if d.cfg.comments && len(data) > 0 && data[0] == '#' {
		return fmt.Errorf("%w: the record is a comment", factory.ErrSkipRecord)
	}
	if err := d.split(data); err != nil {
		return d.recordErr(err)
	}
	if len(d.spans) > n {
		return d.recordErr(&factory.DecodeError{Format: Identifier, Offset: d.spans[n].start,
			Err: fmt.Errorf("too many fields: expected %d, found %d", n, len(d.spans))})
	}
	// As Flink: a record with fewer fields than the row fails, and under a
	// projection one with fewer fields than are read (Flink's projected
	// decoder compares the record's field count with the projected
	// row's).
	if len(d.spans) < d.need && !d.cfg.ignore {
		return &factory.DecodeError{Format: Identifier, Offset: len(data),
			Err: fmt.Errorf("row length mismatch: expected %d fields, found %d", n, len(d.spans))}
	}
	for i, sp := range d.spans {
		if i < len(d.read) && !d.read[i] {
			continue // not read: NULL, its text is not converted
		}
		if d.cfg.hasNull && !sp.quoted && string(data[sp.start:sp.end]) == d.cfg.nullLit {
			continue // the null literal as written, before unescaping
		}
		var rr *factory.RowRead
		if i < len(d.rows) {
			rr = d.rows[i]
		}
		v, err := d.value(d.fields[i].Type, sp, d.text(sp), rr)
		if err != nil {
			if d.cfg.ignore {
				continue
			}
			return &factory.DecodeError{Format: Identifier, Field: d.fields[i].Name, Offset: sp.start, Err: err}
		}
		row.Fields[i] = v
	}
	return nil
}

func (d *decoder) recordErr(err error) error {
	if d.cfg.ignore {
		return fmt.Errorf("%w: %v", factory.ErrSkipRecord, err)
	}
	return err
}

// split finds the fields of data.
func (d *decoder) split(data []byte) error {
	d.spans = d.spans[:0]
	d.scratch = d.scratch[:0]
	q, esc := d.cfg.quote, d.cfg.escape
	i := 0
	for {
		sp := span{start: i}
		if q >= 0 && i < len(data) && int(data[i]) == q {
			sp.quoted, sp.rewritten = true, true
			sp.us = len(d.scratch)
			i++
			closed := false
			for i < len(data) && !closed {
				c := data[i]
				switch {
				case esc >= 0 && int(c) == esc && i+1 < len(data):
					d.scratch = append(d.scratch, data[i+1])
					i += 2
				case int(c) == q:
					if i+1 < len(data) && int(data[i+1]) == q {
						d.scratch = append(d.scratch, c)
						i += 2
						continue
					}
					i++
					closed = true
				default:
					d.scratch = append(d.scratch, c)
					i++
				}
			}
			if !closed {
				return &factory.DecodeError{Format: Identifier, Offset: sp.start, Err: ErrUnterminatedQuote}
			}
			if i < len(data) && data[i] != d.cfg.delim {
				return &factory.DecodeError{Format: Identifier, Offset: i, Err: errors.New("unexpected character after a closing quote")}
			}
			sp.ue = len(d.scratch)
			sp.end = i
		} else {
			for i < len(data) && data[i] != d.cfg.delim {
				if esc >= 0 && int(data[i]) == esc && i+1 < len(data) {
					if !sp.rewritten {
						sp.rewritten = true
						sp.us = len(d.scratch)
						d.scratch = append(d.scratch, data[sp.start:i]...)
					}
					d.scratch = append(d.scratch, data[i+1])
					i += 2
					continue
				}
				if sp.rewritten {
					d.scratch = append(d.scratch, data[i])
				}
				i++
			}
			sp.end = i
			if sp.rewritten {
				sp.ue = len(d.scratch)
			}
		}
		d.spans = append(d.spans, sp)
		if i >= len(data) {
			return nil
		}
		i++ // delimiter
	}
}

// text returns the field's content for transient use.
func (d *decoder) text(sp span) []byte {
	if sp.rewritten {
		return d.scratch[sp.us:sp.ue]
	}
	return d.data[sp.start:sp.end]
}

// string returns the field's content b as a string that does not alias the
// input: a slice of one copy of the record (or of the unescaped contents),
// made on first use.
func (d *decoder) string(sp span, b []byte) string {
	if sp.us < 0 {
		return string(b) // an element of an ARRAY or ROW field
	}
	if sp.rewritten {
		if !d.hasArena {
			d.arena = string(d.scratch)
			d.hasArena = true
		}
		return d.arena[sp.us:sp.ue]
	}
	if !d.hasStr {
		d.str = string(d.data)
		d.hasStr = true
	}
	return d.str[sp.start:sp.end]
}

// value converts a field's text to a value of type t; rr narrows a ROW
// (nil: all of it): its unread fields are NULL, their text not converted.
func (d *decoder) value(t types.Type, sp span, b []byte, rr *factory.RowRead) (types.Value, error) {
	if d.cfg.hasNull && string(b) == d.cfg.nullLit {
		return types.Value{}, nil
	}
	switch t.Kind {
	case types.KindChar, types.KindVarChar:
		return types.Str(d.string(sp, b)), nil
	case types.KindArray, types.KindRow:
		var parts []string
		if len(b) > 0 {
			parts = strings.Split(string(b), d.cfg.arrayDelim)
		}
		if t.Kind == types.KindRow && len(parts) != len(t.Fields) {
			return types.Value{}, fmt.Errorf("ROW has %d fields, found %d", len(t.Fields), len(parts))
		}
		out := make([]types.Value, len(parts))
		for i, p := range parts {
			et := types.Type{}
			var sub *factory.RowRead
			if t.Kind == types.KindArray {
				et = *t.Elem
			} else {
				if !rr.Reads(i) {
					continue // not read: NULL, not converted
				}
				et, sub = t.Fields[i].Type, rr.Row(i)
			}
			v, err := d.value(et, span{us: -1}, []byte(p), sub)
			if err != nil {
				if d.cfg.ignore {
					continue // as Flink: a bad element becomes NULL
				}
				return types.Value{}, fmt.Errorf("element %d: %w", i+1, err)
			}
			out[i] = v
		}
		return types.List(out), nil
	}
	return scalar(t, b)
}

// scalar converts a field's text to a scalar value as Flink's csv reader
// does.
func scalar(t types.Type, b []byte) (types.Value, error) {
	k := t.Kind
	switch k {
	case types.KindChar, types.KindVarChar:
		return types.Str(string(b)), nil
	case types.KindBoolean:
		return types.Bool(strings.EqualFold(strings.TrimSpace(text.UnsafeString(b)), "true")), nil
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		lo, hi := k.IntRange()
		v, err := text.ParseInt(trim(b), lo, hi)
		if err != nil {
			return types.Value{}, fmt.Errorf("'%s' is not a valid %s: %w", b, k, err)
		}
		return types.Int64(v), nil
	case types.KindFloat, types.KindDouble:
		bits := 64
		if k == types.KindFloat {
			bits = 32
		}
		f, err := strconv.ParseFloat(text.UnsafeString(trim(b)), bits)
		if err != nil {
			return types.Value{}, fmt.Errorf("'%s' is not a valid %s", b, k)
		}
		return types.Float64(f), nil
	case types.KindDecimal:
		v, err := text.ParseDecimal(trim(b), t.Precision, t.Scale)
		if err != nil {
			return types.Value{}, fmt.Errorf("'%s' does not fit %s", b, t)
		}
		return types.DecimalValue(v), nil
	case types.KindBinary, types.KindVarBinary:
		out := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
		n, err := base64.StdEncoding.Decode(out, b)
		if err != nil {
			return types.Value{}, fmt.Errorf("invalid base64: %w", err)
		}
		return types.BytesValue(out[:n]), nil
	case types.KindDate:
		days, err := text.ParseDate(b)
		if err != nil {
			return types.Value{}, fmt.Errorf("'%s' is not a date (yyyy-MM-dd)", b)
		}
		return types.DateValue(int32(days)), nil
	case types.KindTime:
		ns, err := text.ParseTime(b)
		if err != nil {
			return types.Value{}, fmt.Errorf("'%s' is not a time (HH:mm:ss[.fraction])", b)
		}
		return types.TimeValue(ns), nil
	case types.KindTimestamp, types.KindTimestampLTZ:
		ltz := k == types.KindTimestampLTZ
		ts, err := text.ParseTimestamp(b, ' ', ltz)
		if err != nil {
			p := "yyyy-MM-dd HH:mm:ss[.fraction]"
			if ltz {
				p += "Z"
			}
			return types.Value{}, fmt.Errorf("'%s' is not a %s (%s)", b, k, p)
		}
		return types.TimestampValue(ts), nil
	}
	return types.Value{}, fmt.Errorf("unsupported type %s", t)
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

type encoder struct {
	cfg     config
	fields  []types.Field
	minSafe int
	scratch []byte
	// ts remembers the text of the last timestamp's second.
	ts text.TimestampText
}

// Encode implements factory.Encoder.
func (e *encoder) Encode(dst []byte, row types.Row) ([]byte, error) {
	if len(row.Fields) != len(e.fields) {
		return dst, &factory.EncodeError{Format: Identifier, Err: fmt.Errorf("row has %d fields, the format expects %d", len(row.Fields), len(e.fields))}
	}
	for i, f := range e.fields {
		if i > 0 {
			dst = append(dst, e.cfg.delim)
		}
		v := row.Fields[i]
		if v.IsNull() {
			dst = append(dst, e.cfg.nullLit...)
			continue
		}
		switch f.Type.Kind {
		case types.KindBoolean, types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
			types.KindFloat, types.KindDouble:
			// Jackson never quotes numeric and boolean columns.
			dst = e.scalar(dst, f.Type, v)
			continue
		case types.KindChar, types.KindVarChar:
			// The text is the value's own bytes: no copy into scratch.
			dst = e.field(dst, v.Bytes())
			continue
		}
		e.scratch = e.scratch[:0]
		var err error
		if e.scratch, err = e.text(e.scratch, f.Type, v); err != nil {
			return dst, &factory.EncodeError{Format: Identifier, Field: f.Name, Err: err}
		}
		dst = e.field(dst, e.scratch)
	}
	return dst, nil
}

func (e *encoder) text(dst []byte, t types.Type, v types.Value) ([]byte, error) {
	switch t.Kind {
	case types.KindArray, types.KindRow:
		for i, x := range v.List() {
			if i > 0 {
				dst = append(dst, e.cfg.arrayDelim...)
			}
			et := types.Type{}
			if t.Kind == types.KindArray {
				et = *t.Elem
			} else {
				et = t.Fields[i].Type
			}
			if x.IsNull() {
				dst = append(dst, e.cfg.nullLit...)
				continue
			}
			dst = e.scalar(dst, et, x)
		}
		return dst, nil
	case types.KindDecimal:
		d := v.Decimal()
		if d.Scale() != t.Scale {
			var err error
			if d, err = d.Rescale(t.Precision, t.Scale); err != nil {
				return dst, err
			}
			v = types.DecimalValue(d)
		}
	}
	return e.scalar(dst, t, v), nil
}

func (e *encoder) scalar(dst []byte, t types.Type, v types.Value) []byte {
	switch t.Kind {
	case types.KindBoolean:
		return strconv.AppendBool(dst, v.Bool())
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return strconv.AppendInt(dst, v.Int64(), 10)
	case types.KindFloat:
		return text.AppendJavaDouble(dst, v.Float64(), 32)
	case types.KindDouble:
		return text.AppendJavaDouble(dst, v.Float64(), 64)
	case types.KindDecimal:
		return text.AppendDecimal(dst, text.StripTrailingZeros(v.Decimal()), !e.cfg.sci)
	case types.KindChar, types.KindVarChar:
		return append(dst, v.Str()...)
	case types.KindBinary, types.KindVarBinary:
		return base64.StdEncoding.AppendEncode(dst, v.Bytes())
	case types.KindDate:
		return text.AppendDate(dst, int64(v.Date()))
	case types.KindTime:
		return text.AppendTime(dst, v.Time(), true)
	case types.KindTimestamp, types.KindTimestampLTZ:
		return e.ts.Append(dst, v.Timestamp(), ' ', t.Kind == types.KindTimestampLTZ)
	}
	return dst
}

// maxQuoteCheck is Jackson's CsvEncoder.MAX_QUOTE_CHECK: longer values are
// always quoted.
const maxQuoteCheck = 24

// field appends a non-numeric field's text, quoted as Jackson would.
func (e *encoder) field(dst, s []byte) []byte {
	q := e.cfg.quote
	if q < 0 || !e.needsQuotes(s) {
		return append(dst, s...)
	}
	dst = append(dst, byte(q))
	// The runs between the characters written twice (the quote and the
	// escape character) are appended whole.
	for {
		i := e.doubled(s)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, s[i])
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, byte(q))
}

// doubled returns the index of the first quote or escape character of s,
// or -1.
func (e *encoder) doubled(s []byte) int {
	i := bytes.IndexByte(s, byte(e.cfg.quote))
	if esc := e.cfg.escape; esc >= 0 && esc != e.cfg.quote {
		t := s
		if i >= 0 {
			t = s[:i]
		}
		if j := bytes.IndexByte(t, byte(esc)); j >= 0 {
			return j
		}
	}
	return i
}

func (e *encoder) needsQuotes(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	if len(s) > maxQuoteCheck && utf16Longer(s, maxQuoteCheck) {
		return true
	}
	for _, c := range s {
		if int(c) < e.minSafe || int(c) == e.cfg.quote || (e.cfg.escape >= 0 && int(c) == e.cfg.escape) {
			return true
		}
	}
	return false
}

// utf16Longer reports whether s is longer than n UTF-16 code units (Java's
// String.length), counting no further than needed: a code unit takes at
// most three bytes of UTF-8 (a four-byte character is two units; a byte
// that is not UTF-8 decodes as one), so more than 3n bytes are always
// longer.
func utf16Longer(s []byte, n int) bool {
	if len(s) > 3*n {
		return true
	}
	units := 0
	for len(s) > 0 {
		if c := s[0]; c < utf8.RuneSelf {
			s = s[1:]
			units++
		} else {
			r, size := utf8.DecodeRune(s)
			s = s[size:]
			if r > 0xFFFF {
				units += 2
			} else {
				units++
			}
		}
		if units > n {
			return true
		}
	}
	return false
}
