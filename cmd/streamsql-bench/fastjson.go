package main

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/valyala/fastjson"
)

// newFastJSONTransform returns the fastjson reference pipe's per-record
// work, the same as streamsql's job: decode the value into typed fields,
// keep amount > 100, encode id, user, amount, country and ts as JSON.
//
// Decoding uses github.com/valyala/fastjson: a reused Parser (no
// reflection, no allocation per record once warm), one pass over the
// object's members, and the typed accessors (Int64, Float64, StringBytes —
// which unescapes) for the five projected fields, so that the pipe does the
// work a typed decoder must do, not a byte copy of the fields. Encoding is
// appends with strconv and a JSON string escaper into the slab.
func newFastJSONTransform() transform {
	var (
		p   fastjson.Parser
		row fastRow
	)
	return func(s *slab, r *kgo.Record) ([]byte, bool, error) {
		v, err := p.ParseBytes(r.Value)
		if err != nil {
			return nil, false, fmt.Errorf("decoding JSON: %w", err)
		}
		if err := row.decode(v); err != nil {
			return nil, false, err
		}
		if !(row.amountOK && row.amount > filterAmount) {
			return nil, false, nil
		}
		return s.value(row.encode), true, nil
	}
}

// fastRow holds the projected fields of one record. user and country
// point into the parser's buffers and are valid until the next parse.
type fastRow struct {
	id, ts               int64
	amount               float64
	user, country        []byte
	idOK, tsOK, amountOK bool
	userOK, countryOK    bool
}

var errNotObject = errors.New("the value is not a JSON object")

// decode reads the projected fields from v in one pass over its members;
// a missing or null field is NULL, a field of the wrong type an error.
func (f *fastRow) decode(v *fastjson.Value) error {
	o, err := v.Object()
	if err != nil {
		return errNotObject
	}
	*f = fastRow{}
	var ferr error
	o.Visit(func(k []byte, v *fastjson.Value) {
		if ferr != nil {
			return
		}
		var err error
		switch string(k) {
		case "id", "user", "amount", "country", "ts":
			if v.Type() == fastjson.TypeNull {
				return
			}
		}
		switch string(k) {
		case "id":
			f.id, err = v.Int64()
			f.idOK = err == nil
		case "user":
			f.user, err = v.StringBytes()
			f.userOK = err == nil
		case "amount":
			f.amount, err = v.Float64()
			f.amountOK = err == nil
		case "country":
			f.country, err = v.StringBytes()
			f.countryOK = err == nil
		case "ts":
			f.ts, err = v.Int64()
			f.tsOK = err == nil
		}
		if err != nil {
			ferr = fmt.Errorf("field %q: %w", k, err)
		}
	})
	return ferr
}

// encode appends the projection {"id","user","amount","country","ts"} to b.
func (f *fastRow) encode(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendInt(b, f.id, f.idOK)
	b = append(b, `,"user":`...)
	b = appendString(b, f.user, f.userOK)
	b = append(b, `,"amount":`...)
	if f.amountOK {
		b = strconv.AppendFloat(b, f.amount, 'g', -1, 64)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"country":`...)
	b = appendString(b, f.country, f.countryOK)
	b = append(b, `,"ts":`...)
	b = appendInt(b, f.ts, f.tsOK)
	return append(b, '}')
}

func appendInt(b []byte, n int64, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, n, 10)
}

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD.
func appendString(b, s []byte, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
