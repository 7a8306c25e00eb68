package json

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/text"
	"github.com/streamsql/streamsql/types"
)

// node is the compiled decoding and encoding plan of one field.
type node struct {
	name string
	path string // dotted path for errors
	typ  types.Type
	key  []byte // `"name":` for the encoder
	// match is `"name":` when name needs no escaping in JSON (else nil):
	// the decoder takes a key written exactly so, the usual case, as this
	// field without scanning and comparing it as a string.
	match []byte
	// matchLo and matchHi hold match's first 16 bytes as two
	// little-endian words, and maskLo and maskHi the bits of each that
	// belong to match (keyAt); matchShort is set when match has at most
	// 16 bytes.
	matchLo, matchHi, maskLo, maskHi uint64
	matchShort                       bool

	elem   *node // ARRAY and MULTISET element, MAP key
	val    *node // MAP value, MULTISET count
	fields []*node
	index  map[string]int
	// unread marks a field the job does not read (FormatContext.ReadFields
	// at the top level, ReadRows in a ROW): its value is skipped as JSON,
	// not converted, and the field is NULL.
	unread bool
	// ts is the minute of the last timestamp this TIMESTAMP or
	// TIMESTAMP_LTZ field read (the decoder owning the node is its only
	// user).
	ts text.TimestampMemo
}

// keyAt reports whether data holds n's match at pos: for a match of at
// most 16 bytes with 16 bytes of data left, by comparing two words.
func (n *node) keyAt(data []byte, pos int) bool {
	if n.matchShort && pos+16 <= len(data) {
		lo := binary.LittleEndian.Uint64(data[pos:])
		hi := binary.LittleEndian.Uint64(data[pos+8:])
		return lo&n.maskLo == n.matchLo && hi&n.maskHi == n.matchHi
	}
	return len(n.match) > 0 && bytes.HasPrefix(data[pos:], n.match)
}

func compile(name, path string, t types.Type) (*node, error) {
	n := &node{name: name, path: path, typ: t}
	n.key = appendString(nil, name)
	n.key = append(n.key, ':')
	if name != "" && !strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == '"' || r == '\\' }) {
		n.match = append(append(append([]byte{'"'}, name...), '"'), ':')
		if l := uint(len(n.match)); l <= 16 {
			var w [16]byte
			copy(w[:], n.match)
			n.matchLo, n.matchHi = binary.LittleEndian.Uint64(w[:]), binary.LittleEndian.Uint64(w[8:])
			// (A shift by 64 makes 0, and 0-1 every bit.)
			n.maskLo = 1<<(8*min(l, 8)) - 1
			if l > 8 {
				n.maskHi = 1<<(8*(l-8)) - 1
			}
			n.matchShort = true
		}
	}
	var err error
	switch t.Kind {
	case types.KindArray:
		n.elem, err = compile("", path, *t.Elem)
	case types.KindMultiset:
		if n.elem, err = compile("", path, *t.Elem); err == nil {
			n.val, err = compile("", path, types.Int().NotNullable())
		}
	case types.KindMap:
		if n.elem, err = compile("", path, *t.Elem); err == nil {
			n.val, err = compile("", path, *t.Value)
		}
	case types.KindRow:
		n.index = make(map[string]int, len(t.Fields))
		for i, f := range t.Fields {
			p := f.Name
			if path != "" {
				p = path + "." + f.Name
			}
			c, err := compile(f.Name, p, f.Type)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, c)
			n.index[f.Name] = i
		}
	case types.KindInvalid, types.KindNull:
		return nil, &factory.UnsupportedTypeError{Format: "json", Field: path, Type: t.String(), Reason: "the type has no JSON representation"}
	}
	if err != nil {
		return nil, err
	}
	if n.elem != nil && t.Kind != types.KindArray && n.elem.typ.Kind == types.KindRow {
		// Row-typed map keys cannot be written as JSON object keys.
		return nil, &factory.UnsupportedTypeError{Format: "json", Field: path, Type: t.String(), Reason: "map keys must be scalar"}
	}
	return n, nil
}

// convError is a value that is well-formed JSON but does not convert to
// the field's type: with ignore-parse-errors the field becomes NULL.
type convError struct{ msg string }

func (e *convError) Error() string { return e.msg }

func convErr(format string, args ...any) error { return &convError{msg: fmt.Sprintf(format, args...)} }

var (
	errSkipEmpty = fmt.Errorf("%w: the record is empty", factory.ErrSkipRecord)
	errSkipNull  = fmt.Errorf("%w: the record is JSON null", factory.ErrSkipRecord)
)

type decoder struct {
	root        *node
	hasDecimal  bool // Flink then reads JSON floats as BigDecimal
	failMissing bool
	ignore      bool
	iso         bool
	s           scanner
	// arena holds the bytes of the strings this decoder handed out (see
	// keep): the free room of the current chunk.
	arena   []byte
	scratch []byte
	// rows, once RecycleValues was called, holds the memory the fields of
	// ROW values are cut from (see nested).
	rows *rowSlab
	// kept and keptHeads, while values are not recycled, are the free
	// parts of the chunks the fields and slice headers of ROW values are
	// cut from: chunks never reused (see nested).
	kept      []types.Value
	keptHeads [][]types.Value
	// anyOrder, set by tests only, sends every object through rowFrom.
	anyOrder bool
}

// rowSlab is the memory a decoder cuts the fields of ROW values from once
// its caller recycles values (factory.ValueRecycler): chunks kept from
// one batch to the next, each cut from the start again after
// RecycleValues. Without it every ROW's fields are a make of their own.
type rowSlab struct {
	chunks   [][]types.Value
	cur, off int // the chunk cut from next, and where in it
	// heads holds the slice headers of the ROW values (types.ListIn),
	// cut in the same way: a ROW then costs no allocation at all.
	heads            [][][]types.Value
	headCur, headOff int
}

// head returns a slice header holding fields, from the slab.
func (s *rowSlab) head(fields []types.Value) *[]types.Value {
	for s.headCur < rowChunks {
		if s.headCur == len(s.heads) {
			s.heads = append(s.heads, make([][]types.Value, headChunk))
		}
		if c := s.heads[s.headCur]; s.headOff < len(c) {
			h := &c[s.headOff]
			s.headOff++
			*h = fields
			return h
		}
		s.headCur, s.headOff = s.headCur+1, 0
	}
	h := new([]types.Value)
	*h = fields
	return h
}

// rowChunk is the number of values in a chunk of a rowSlab (24 KiB), and
// rowChunks the most chunks one keeps: past them (a batch of very many
// nested rows between two recycles) fields are allocated one by one, so a
// decoder never holds more than 1.9 MiB.
const (
	rowChunk  = 512
	rowChunks = 64
	// headChunk is the number of slice headers in a chunk of
	// rowSlab.heads (6 KiB).
	headChunk = 256
)

// cut returns n values of the slab, not cleared: the caller sets them all.
func (s *rowSlab) cut(n int) []types.Value {
	for s.cur < rowChunks {
		if s.cur == len(s.chunks) {
			s.chunks = append(s.chunks, make([]types.Value, rowChunk))
		}
		if c := s.chunks[s.cur]; s.off+n <= len(c) {
			out := c[s.off : s.off+n : s.off+n]
			s.off += n
			return out
		}
		s.cur, s.off = s.cur+1, 0
	}
	return make([]types.Value, n)
}

// RecycleValues implements factory.ValueRecycler: the ROW values of the
// rows decoded so far are dead, and the next ones reuse their memory.
func (d *decoder) RecycleValues() {
	if d.rows == nil {
		d.rows = &rowSlab{}
		return
	}
	d.rows.cur, d.rows.off = 0, 0
	d.rows.headCur, d.rows.headOff = 0, 0
}

// rowValue returns the ROW value of fields (from nested): its slice
// header is cut as its fields are, from the slab when values are
// recycled, else from a chunk never reused.
func (d *decoder) rowValue(fields []types.Value) types.Value {
	if d.rows != nil {
		return types.ListIn(d.rows.head(fields))
	}
	if len(d.keptHeads) == 0 {
		d.keptHeads = make([][]types.Value, keptChunk)
	}
	h := &d.keptHeads[0]
	d.keptHeads = d.keptHeads[1:]
	*h = fields
	return types.ListIn(h)
}

// nested returns the storage of a ROW value of n fields, which the
// caller sets every one of: from the slab when values are recycled, else
// from a chunk of keptChunk values that is only cut from, never reused
// (an allocation per several rows instead of one per row; as with the
// string arena, a ROW kept alive keeps its chunk, at most 3 KiB, alive).
func (d *decoder) nested(n int) []types.Value {
	if d.rows != nil && n <= rowChunk/4 {
		return d.rows.cut(n)
	}
	if n > keptChunk/4 {
		return make([]types.Value, n)
	}
	if len(d.kept) < n {
		d.kept = make([]types.Value, keptChunk)
	}
	out := d.kept[:n:n]
	d.kept = d.kept[n:]
	return out
}

// keptChunk is the number of values in a chunk nested cuts ROW fields
// from when values are not recycled (3 KiB), and of slice headers in one
// rowValue cuts their headers from (1.5 KiB).
const keptChunk = 64

// arenaChunk is the size of the chunks keep cuts strings from, and
// arenaMax the longest string it puts in one: a longer one is a
// separate allocation.
const (
	arenaChunk = 4 << 10
	arenaMax   = arenaChunk / 4
)

// keep returns b's content as a string that does not alias b. Short
// strings are cut from a chunk shared with the decoder's other strings
// (saving an allocation per string or per record): a chunk is only
// appended to, never rewritten, and the decoder drops it when it is full,
// so a string stays valid and immutable for as long as it is referred to.
// The price is that a string kept alive (in a row held by a buffer, say)
// keeps its whole chunk, at most arenaChunk bytes, alive with it.
func (d *decoder) keep(b []byte) string {
	n := len(b)
	if n == 0 {
		return ""
	}
	if n > arenaMax {
		return string(b)
	}
	if cap(d.arena)-len(d.arena) < n {
		d.arena = make([]byte, 0, arenaChunk)
	}
	start := len(d.arena)
	d.arena = append(d.arena, b...)
	return text.UnsafeString(d.arena[start:len(d.arena):len(d.arena)])
}

// keepUnescaped is keep of the unescaped content of raw, a string's
// content with escapes (checked by scanner.str): unescaped straight into
// the arena, which it cannot outgrow (an escape is never shorter than
// what it stands for). ok is false for an invalid escape.
func (d *decoder) keepUnescaped(raw []byte) (string, bool) {
	if len(raw) > arenaMax {
		b, ok := unescape(d.scratch[:0], raw)
		d.scratch = b
		return string(b), ok
	}
	if cap(d.arena)-len(d.arena) < len(raw) {
		d.arena = make([]byte, 0, arenaChunk)
	}
	start := len(d.arena)
	b, ok := unescape(d.arena, raw)
	if !ok {
		// The bytes written past len(d.arena) belong to no string.
		return "", false
	}
	d.arena = b
	if len(b) == start {
		return "", true
	}
	return text.UnsafeString(b[start:len(b):len(b)]), true
}

// keepMin is the free room of the arena below which keepString starts a
// new chunk before a string rather than trying the rest of the current
// one (at most 1/32 of a chunk is left unused so).
const keepMin = arenaChunk / 32

// keepString scans the string whose opening quote is at the scanner's
// position and returns its content, unescaped, as keep and keepUnescaped
// do, in one pass: the bytes are copied into the arena, eight at a time,
// as they are scanned, and escapes are unescaped where they stand (the
// two-pass way scans the string to its end, then copies or unescapes it,
// stopping again at every backslash). Strings the one pass does not take
// — longer than the arena's free room or arenaMax, with a \u escape of a
// UTF-16 surrogate, or malformed — take the two-pass way from the start,
// which also makes the errors.
func (d *decoder) keepString() (string, error) {
	if v, ok := d.keepOnePass(); ok {
		return v, nil
	}
	s := &d.s
	start, end, esc, err := s.str()
	if err != nil {
		return "", err
	}
	if !esc {
		return d.keep(s.data[start:end]), nil
	}
	v, ok := d.keepUnescaped(s.data[start:end])
	if !ok {
		return "", &syntaxError{off: start, msg: "invalid escape in string"}
	}
	return v, nil
}

// keepOnePass is keepString's one pass. It reports false, having moved
// neither the scanner nor the arena, for a string it does not take.
func (d *decoder) keepOnePass() (string, bool) {
	s := &d.s
	data := s.data
	if cap(d.arena)-len(d.arena) < keepMin {
		d.arena = make([]byte, 0, arenaChunk)
	}
	a := d.arena[:cap(d.arena)]
	start := len(d.arena)
	// The string's bytes may fill a up to limit: a word is written
	// whole (the bytes past a quote or backslash in it are overwritten
	// next, or lie past the string's end and belong to no string).
	limit := min(len(a), start+arenaMax)
	i, w := s.pos+1, start
	for {
		if i+8 <= len(data) && w+8 <= limit {
			x := binary.LittleEndian.Uint64(data[i:])
			binary.LittleEndian.PutUint64(a[w:], x)
			if m := special8(x); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				i, w = i+k, w+k
			} else {
				i, w = i+8, w+8
				continue
			}
		} else {
			if i >= len(data) || w >= limit {
				return "", false
			}
			if c := data[i]; c != '"' && c != '\\' && c >= 0x20 {
				a[w] = c
				i, w = i+1, w+1
				continue
			}
		}
		switch data[i] {
		case '"':
			s.pos = i + 1
			d.arena = a[:w]
			if w == start {
				return "", true
			}
			return text.UnsafeString(a[start:w:w]), true
		case '\\':
			if i+1 >= len(data) {
				return "", false
			}
			c := data[i+1]
			switch c {
			case '"', '\\', '/':
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'u':
				r, ok := hex4(data[i+2:])
				if !ok || utf16.IsSurrogate(r) || w+utf8.UTFMax > limit {
					return "", false
				}
				w += utf8.EncodeRune(a[w:], r)
				i += 6
				continue
			default:
				return "", false
			}
			if w >= limit {
				return "", false
			}
			a[w] = c
			i, w = i+2, w+1
		default:
			return "", false
		}
	}
}

// Decode implements factory.Decoder.
func (d *decoder) Decode(data []byte, row *types.Row) error {
	n := len(d.root.fields)
	if cap(row.Fields) >= n {
		// Not cleared here: row sets every field, the missing ones to
		// NULL. (Clearing memory that holds pointers costs write
		// barriers while the GC runs, and the reader's rows are fresh.)
		row.Fields = row.Fields[:n]
	} else {
		row.Fields = make([]types.Value, n)
	}
	row.Kind = types.Insert
	d.s = scanner{data: data}
	err := d.record(row.Fields)
	d.s.data = nil
	if err == nil {
		return nil
	}
	clear(row.Fields) // no stale or partial values after a failure
	if errors.Is(err, factory.ErrSkipRecord) {
		return err
	}
	var se *syntaxError
	if errors.As(err, &se) {
		err = &factory.DecodeError{Format: "json", Offset: se.off, Err: errors.New(se.msg)}
	}
	if d.ignore {
		return fmt.Errorf("%w: %v", factory.ErrSkipRecord, err)
	}
	return err
}

func (d *decoder) record(out []types.Value) error {
	switch d.s.peek() {
	case 0:
		// As Flink: an empty or blank record is no row.
		return errSkipEmpty
	case 'n':
		if err := d.s.literal("null"); err != nil {
			return err
		}
		if d.s.peek() != 0 {
			return d.s.fail("data after the top-level value")
		}
		return errSkipNull
	case '{':
	default:
		return d.s.fail("a record must be a JSON object")
	}
	if err := d.row(d.root, out); err != nil {
		return err
	}
	if d.s.peek() != 0 {
		return d.s.fail("data after the top-level value")
	}
	return nil
}

// row decodes an object into out, setting every field of out.
//
// The usual object has the schema's fields in the schema's order, each
// key written plainly: row takes them so, in a loop that knows which
// field comes next, and hands the rest of an object that departs from
// that (a key out of order, escaped, unknown or missing; a field
// repeated) to rowFrom, which takes keys in any order.
func (d *decoder) row(n *node, out []types.Value) error {
	s := &d.s
	s.pos++ // '{'
	if len(n.fields) > 64 || d.anyOrder {
		return d.rowFrom(n, out, 0, 0)
	}
	var seen uint64
	for i, f := range n.fields {
		if s.peek() != '"' || !f.keyAt(s.data, s.pos) {
			return d.rowFrom(n, out, i, seen)
		}
		s.pos += len(f.match)
		if f.unread {
			// Not read: skipped like an unknown field, so its value is
			// only checked to be JSON; the field is NULL (written only
			// when it is not NULL already: see finishRow).
			if err := s.skip(); err != nil {
				return err
			}
			if !out[i].IsNull() {
				out[i] = types.Value{}
			}
		} else {
			s.ws()
			if ok, err := d.scalar(f, &out[i]); ok || err != nil {
				if err != nil {
					return err
				}
			} else if err := d.field(f, &out[i]); err != nil {
				return err
			}
		}
		seen |= 1 << uint(i)
		switch s.peek() {
		case ',':
			s.pos++
			continue
		case '}':
			s.pos++
			if i == len(n.fields)-1 {
				return nil // every field set
			}
			return d.finishRow(n, out, seen, nil)
		}
		return s.fail("expected ',' or '}' in object")
	}
	// Every field in order, and more keys after them.
	return d.rowFrom(n, out, len(n.fields), seen)
}

// rowFrom decodes the rest of an object into out, keys in any order:
// from its start when next is 0, else after the comma that follows the
// fields row took, the first next of the schema's (those seenSmall marks
// set; unread ones set to NULL already).
func (d *decoder) rowFrom(n *node, out []types.Value, next int, seenSmall uint64) error {
	var seenBig []bool
	if len(n.fields) > 64 {
		seenBig = make([]bool, len(n.fields))
	}
	s := &d.s
	if next == 0 && s.peek() == '}' {
		s.pos++
	} else {
		for {
			if s.peek() != '"' {
				return s.fail("expected a field name")
			}
			idx := -1
			if next < len(n.fields) && n.fields[next].keyAt(s.data, s.pos) {
				// The next field in schema order, written plainly.
				idx = next
				s.pos += len(n.fields[next].match)
			} else {
				ks, ke, esc, err := s.str()
				if err != nil {
					return err
				}
				keyb := s.data[ks:ke]
				if esc {
					var ok bool
					d.scratch, ok = unescape(d.scratch[:0], keyb)
					if !ok {
						return &syntaxError{off: ks, msg: "invalid escape in field name"}
					}
					keyb = d.scratch
				}
				if next < len(n.fields) && n.fields[next].name == string(keyb) {
					idx = next
				} else if i, ok := n.index[string(keyb)]; ok {
					idx = i
				}
				if err := s.expect(':'); err != nil {
					return err
				}
			}
			if idx >= 0 && n.fields[idx].unread {
				// Not read: skipped like an unknown field, so its value is
				// only checked to be JSON; the field stays NULL below.
				next = idx + 1
				idx = -1
			}
			if idx < 0 {
				if err := s.skip(); err != nil {
					return err
				}
			} else {
				next = idx + 1
				if seenBig != nil {
					seenBig[idx] = true
				} else {
					seenSmall |= 1 << uint(idx)
				}
				f := n.fields[idx]
				s.ws()
				if ok, err := d.scalar(f, &out[idx]); ok || err != nil {
					if err != nil {
						return err
					}
				} else if err := d.field(f, &out[idx]); err != nil {
					return err
				}
			}
			switch s.peek() {
			case ',':
				s.pos++
				continue
			case '}':
				s.pos++
			default:
				return s.fail("expected ',' or '}' in object")
			}
			break
		}
	}
	return d.finishRow(n, out, seenSmall, seenBig)
}

// field decodes the value of a read field at the scanner's position into
// out, making a value of the wrong kind a DecodeError naming the field
// (or, with ignore-parse-errors, NULL).
func (d *decoder) field(f *node, out *types.Value) error {
	s := &d.s
	start := s.pos
	v, err := d.value(f)
	if err != nil {
		var ce *convError
		var de *factory.DecodeError
		if errors.As(err, &de) || !errors.As(err, &ce) {
			return err
		}
		// Well-formed JSON of the wrong kind, or malformed?
		s.pos = start
		if err := s.skip(); err != nil {
			return err
		}
		if !d.ignore {
			return &factory.DecodeError{Format: "json", Field: f.path, Offset: start, Err: err}
		}
		v = types.Value{}
	}
	*out = v
	return nil
}

// scalar decodes the usual values at the scanner's position straight
// into out (sparing the copy of a returned Value and field's error
// handling): null into any field, a string into a CHAR or VARCHAR, an
// object into a ROW, a timestamp string without escapes into a
// TIMESTAMP or TIMESTAMP_LTZ, a plain integer into an integer column, a
// plain decimal number into a DOUBLE, true or false into a BOOLEAN. It
// reports false, having consumed nothing, for anything else, which field
// then decodes (and makes the conversion errors).
func (d *decoder) scalar(f *node, out *types.Value) (bool, error) {
	s := &d.s
	if s.pos >= len(s.data) {
		return false, nil
	}
	c := s.data[s.pos]
	if c == 'n' {
		// NULL of any type (person and auction of a bid event).
		if err := s.literal("null"); err != nil {
			return false, err
		}
		if !out.IsNull() {
			*out = types.Value{} // see finishRow: a write costs barriers
		}
		return true, nil
	}
	switch k := f.typ.Kind; {
	case k == types.KindVarChar || k == types.KindChar:
		if c != '"' {
			return false, nil
		}
		v, err := d.keepString()
		if err != nil {
			return false, err
		}
		*out = types.Str(v)
		return true, nil
	case k == types.KindRow:
		if c != '{' {
			return false, nil
		}
		// As value does, without the copies of a returned Value: row's
		// errors are syntax errors or DecodeErrors naming the field.
		fields := d.nested(len(f.fields))
		if err := d.row(f, fields); err != nil {
			return false, err
		}
		*out = d.rowValue(fields)
		return true, nil
	case k == types.KindTimestamp || k == types.KindTimestampLTZ:
		if c != '"' {
			return false, nil
		}
		if k == types.KindTimestamp {
			// The minute of the last one, read from the record without
			// scanning the string first (its content has no escape then).
			sep := byte(' ')
			if d.iso {
				sep = 'T'
			}
			if ts, n, ok := f.ts.Quoted(s.data[s.pos:], sep); ok {
				s.pos += n
				*out = types.TimestampValue(ts)
				return true, nil
			}
		}
		pos := s.pos
		start, end, esc, err := s.str()
		if err != nil {
			return false, err
		}
		if !esc {
			sep := byte(' ')
			if d.iso {
				sep = 'T'
			}
			if ts, err := f.ts.Parse(s.data[start:end], sep, k == types.KindTimestampLTZ); err == nil {
				*out = types.TimestampValue(ts)
				return true, nil
			}
		}
		// Escaped, or not a timestamp: fromText makes the error.
		s.pos = pos
		return false, nil
	case k >= types.KindTinyInt && k <= types.KindBigInt:
		if c != '-' && (c < '0' || c > '9') {
			return false, nil
		}
		lo, hi := k.IntRange()
		v, ok := s.plainInt(lo, hi)
		if ok {
			*out = types.Int64(v)
		}
		return ok, nil
	case k == types.KindBoolean:
		rest := s.data[s.pos:]
		if c == 't' && len(rest) >= 4 && string(rest[:4]) == "true" {
			s.pos += 4
			*out = types.Bool(true)
			return true, nil
		}
		if c == 'f' && len(rest) >= 5 && string(rest[:5]) == "false" {
			s.pos += 5
			*out = types.Bool(false)
			return true, nil
		}
		return false, nil
	case k == types.KindDouble:
		if c != '-' && (c < '0' || c > '9') {
			return false, nil
		}
		v, ok := s.plainFloat()
		if ok {
			*out = types.Float64(v)
		}
		return ok, nil
	}
	return false, nil
}

// finishRow sets the fields row did not see to NULL and checks
// fail-on-missing-field.
func (d *decoder) finishRow(n *node, out []types.Value, seenSmall uint64, seenBig []bool) error {
	s := &d.s
	// Fields the object lacks are NULL (out may hold an earlier row).
	if seenBig != nil {
		for i, seen := range seenBig {
			if !seen {
				out[i] = types.Value{}
			}
		}
	} else if missing := ^seenSmall & (1<<uint(len(n.fields)) - 1); missing != 0 {
		for ; missing != 0; missing &= missing - 1 {
			// Written only when not NULL already (a fresh or recycled
			// row's are): a write costs write barriers while the GC runs.
			// A NULL is the zero Value (no constructor makes another), so
			// the tag alone says so, without comparing every word.
			if i := bits.TrailingZeros64(missing); !out[i].IsNull() {
				out[i] = types.Value{}
			}
		}
	}
	if d.failMissing {
		for i, f := range n.fields {
			if f.unread {
				continue
			}
			seen := false
			if seenBig != nil {
				seen = seenBig[i]
			} else {
				seen = seenSmall&(1<<uint(i)) != 0
			}
			if !seen {
				return &factory.DecodeError{Format: "json", Field: f.path, Offset: s.pos,
					Err: errors.New("field is missing and json.fail-on-missing-field is true")}
			}
		}
	}
	return nil
}

// strBytes scans a string token and returns its content for transient use.
func (d *decoder) strBytes() ([]byte, error) {
	start, end, esc, err := d.s.str()
	if err != nil {
		return nil, err
	}
	if !esc {
		return d.s.data[start:end], nil
	}
	var ok bool
	d.scratch, ok = unescape(d.scratch[:0], d.s.data[start:end])
	if !ok {
		return nil, &syntaxError{off: start, msg: "invalid escape in string"}
	}
	return d.scratch, nil
}

// element decodes an array element or map value. With ignore-parse-errors
// an element of the wrong kind becomes NULL, as in Flink; the array or map
// itself is kept.
func (d *decoder) element(n *node) (types.Value, error) {
	d.s.ws()
	start := d.s.pos
	v, err := d.value(n)
	if err == nil || !d.ignore {
		return v, err
	}
	var ce *convError
	if !errors.As(err, &ce) {
		return v, err
	}
	d.s.pos = start
	if err := d.s.skip(); err != nil {
		return types.Value{}, err
	}
	return types.Value{}, nil
}

func (d *decoder) value(n *node) (types.Value, error) {
	s := &d.s
	c := s.peek()
	if c == 'n' {
		return types.Value{}, s.literal("null")
	}
	if c == 0 {
		return types.Value{}, s.fail(errUnexpectedEnd.Error())
	}
	k := n.typ.Kind
	switch k {
	case types.KindChar, types.KindVarChar:
		if c == '"' {
			v, err := d.keepString()
			if err != nil {
				return types.Value{}, err
			}
			return types.Str(v), nil
		}
		// Flink keeps the JSON text of a non-string value, as Jackson
		// re-serializes it (compact, numbers normalized).
		out, err := d.canonical(nil, 0)
		if err != nil {
			return types.Value{}, err
		}
		return types.Str(d.keep(out)), nil
	case types.KindBoolean:
		switch c {
		case 't':
			return types.Bool(true), s.literal("true")
		case 'f':
			return types.Bool(false), s.literal("false")
		case '"':
			b, err := d.strBytes()
			if err != nil {
				return types.Value{}, err
			}
			return d.fromText(n, b)
		}
	case types.KindArray:
		if c != '[' {
			break
		}
		s.pos++
		var elems []types.Value
		if s.peek() == ']' {
			s.pos++
			return types.List([]types.Value{}), nil
		}
		for {
			v, err := d.element(n.elem)
			if err != nil {
				return types.Value{}, err
			}
			elems = append(elems, v)
			switch s.peek() {
			case ',':
				s.pos++
				continue
			case ']':
				s.pos++
				return types.List(elems), nil
			}
			return types.Value{}, s.fail("expected ',' or ']' in array")
		}
	case types.KindMap, types.KindMultiset:
		if c != '{' {
			break
		}
		return d.mapValue(n)
	case types.KindRow:
		if c != '{' {
			break
		}
		out := d.nested(len(n.fields))
		if err := d.row(n, out); err != nil {
			return types.Value{}, err
		}
		return d.rowValue(out), nil
	default:
		if c == '"' {
			b, err := d.strBytes()
			if err != nil {
				return types.Value{}, err
			}
			return d.fromText(n, b)
		}
		if c == '-' || (c >= '0' && c <= '9') {
			if k >= types.KindTinyInt && k <= types.KindBigInt {
				lo, hi := k.IntRange()
				if v, ok := s.plainInt(lo, hi); ok {
					return types.Int64(v), nil
				}
			}
			start, end, err := s.number()
			if err != nil {
				return types.Value{}, err
			}
			return d.number(n, s.data[start:end])
		}
	}
	return types.Value{}, convErr("expected %s, found %s", expected(k), found(c))
}

func expected(k types.Kind) string {
	switch k {
	case types.KindBoolean:
		return "a boolean"
	case types.KindArray:
		return "an array"
	case types.KindMap, types.KindMultiset, types.KindRow:
		return "an object"
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt, types.KindFloat, types.KindDouble, types.KindDecimal:
		return "a number"
	}
	return "a string"
}

func found(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

func (d *decoder) number(n *node, b []byte) (types.Value, error) {
	switch k := n.typ.Kind; k {
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		lo, hi := k.IntRange()
		v, err := text.ParseInt(b, lo, hi)
		if err != nil {
			return types.Value{}, convErr("%s is not a valid %s: %v", b, k, err)
		}
		return types.Int64(v), nil
	case types.KindFloat, types.KindDouble:
		var f float64
		var err error
		if k == types.KindFloat {
			f, err = strconv.ParseFloat(text.UnsafeString(b), 32)
		} else {
			f, err = text.ParseFloat64(b)
		}
		if err != nil {
			return types.Value{}, convErr("%s is not a valid %s", b, k)
		}
		return types.Float64(f), nil
	case types.KindDecimal:
		v, err := text.ParseDecimal(b, n.typ.Precision, n.typ.Scale)
		if err != nil {
			return types.Value{}, convErr("%s does not fit %s", b, n.typ)
		}
		return types.DecimalValue(v), nil
	}
	return types.Value{}, convErr("expected %s, found a number", expected(n.typ.Kind))
}

// fromText converts a string's content to a scalar, as Flink does for
// quoted numbers, booleans, dates, times, timestamps and base64 bytes.
func (d *decoder) fromText(n *node, b []byte) (types.Value, error) {
	k := n.typ.Kind
	switch k {
	case types.KindBoolean:
		// Boolean.parseBoolean: anything but "true" is false.
		return types.Bool(strings.EqualFold(strings.TrimSpace(text.UnsafeString(b)), "true")), nil
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindFloat, types.KindDouble, types.KindDecimal:
		return d.number(n, trimSpace(b))
	case types.KindChar, types.KindVarChar:
		return types.Str(d.keep(b)), nil
	case types.KindBinary, types.KindVarBinary:
		out := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
		m, err := base64.StdEncoding.Decode(out, b)
		if err != nil {
			return types.Value{}, convErr("invalid base64: %v", err)
		}
		return types.BytesValue(out[:m]), nil
	case types.KindDate:
		days, err := text.ParseDate(b)
		if err != nil {
			return types.Value{}, convErr("'%s' is not a date (yyyy-MM-dd)", b)
		}
		return types.DateValue(int32(days)), nil
	case types.KindTime:
		ns, err := text.ParseTime(b)
		if err != nil {
			return types.Value{}, convErr("'%s' is not a time (HH:mm:ss[.fraction])", b)
		}
		return types.TimeValue(ns), nil
	case types.KindTimestamp, types.KindTimestampLTZ:
		sep := byte(' ')
		if d.iso {
			sep = 'T'
		}
		ltz := k == types.KindTimestampLTZ
		ts, err := text.ParseTimestamp(b, sep, ltz)
		if err != nil {
			return types.Value{}, convErr("'%s' is not a %s in the %s format (%s)", b, k, d.standard(), timestampPattern(sep, ltz))
		}
		return types.TimestampValue(ts), nil
	}
	return types.Value{}, convErr("expected %s, found a string", expected(k))
}

func (d *decoder) standard() string {
	if d.iso {
		return "ISO-8601"
	}
	return "SQL"
}

func timestampPattern(sep byte, ltz bool) string {
	p := "yyyy-MM-dd" + string(sep) + "HH:mm:ss[.fraction]"
	if ltz {
		p += "Z"
	}
	return p
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func (d *decoder) mapValue(n *node) (types.Value, error) {
	s := &d.s
	s.pos++ // '{'
	m := &types.MapData{}
	if s.peek() == '}' {
		s.pos++
		return types.MapValue(m), nil
	}
	for {
		if s.peek() != '"' {
			return types.Value{}, s.fail("expected a map key")
		}
		ks, ke, esc, err := s.str()
		if err != nil {
			return types.Value{}, err
		}
		var key types.Value
		if n.elem.typ.IsString() {
			if esc {
				v, ok := d.keepUnescaped(s.data[ks:ke])
				if !ok {
					return types.Value{}, &syntaxError{off: ks, msg: "invalid escape in map key"}
				}
				key = types.Str(v)
			} else {
				key = types.Str(d.keep(s.data[ks:ke]))
			}
		} else {
			kb := s.data[ks:ke]
			if esc {
				var ok bool
				if kb, ok = unescape(nil, kb); !ok {
					return types.Value{}, &syntaxError{off: ks, msg: "invalid escape in map key"}
				}
			}
			if key, err = d.fromText(n.elem, kb); err != nil {
				return types.Value{}, err
			}
		}
		if err := s.expect(':'); err != nil {
			return types.Value{}, err
		}
		v, err := d.element(n.val)
		if err != nil {
			return types.Value{}, err
		}
		m.Keys = append(m.Keys, key)
		m.Values = append(m.Values, v)
		switch s.peek() {
		case ',':
			s.pos++
			continue
		case '}':
			s.pos++
			return types.MapValue(m), nil
		}
		return types.Value{}, s.fail("expected ',' or '}' in object")
	}
}

// canonical appends the value at the scanner's position as Jackson writes
// a parsed tree: no whitespace, strings re-escaped, floating-point numbers
// as Java doubles (or, when the schema has a DECIMAL column, as Jackson's
// normalized BigDecimal).
func (d *decoder) canonical(dst []byte, depth int) ([]byte, error) {
	s := &d.s
	if depth > 1000 {
		return dst, s.fail("JSON nested too deeply")
	}
	switch c := s.peek(); c {
	case '{', '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.pos++
		dst = append(dst, c)
		if s.peek() == closer {
			s.pos++
			return append(dst, closer), nil
		}
		for {
			if c == '{' {
				if s.peek() != '"' {
					return dst, s.fail("expected a field name")
				}
				b, err := d.strBytes()
				if err != nil {
					return dst, err
				}
				dst = appendString(dst, string(b))
				if err := s.expect(':'); err != nil {
					return dst, err
				}
				dst = append(dst, ':')
			}
			var err error
			if dst, err = d.canonical(dst, depth+1); err != nil {
				return dst, err
			}
			switch s.peek() {
			case ',':
				s.pos++
				dst = append(dst, ',')
				continue
			case closer:
				s.pos++
				return append(dst, closer), nil
			}
			return dst, s.fail("expected ',' or '" + string(closer) + "'")
		}
	case '"':
		b, err := d.strBytes()
		if err != nil {
			return dst, err
		}
		return appendString(dst, string(b)), nil
	case 't', 'f', 'n':
		start := s.pos
		if err := s.skip(); err != nil {
			return dst, err
		}
		return append(dst, s.data[start:s.pos]...), nil
	}
	start, end, err := s.number()
	if err != nil {
		return dst, err
	}
	num := s.data[start:end]
	isFloat := false
	for _, c := range num {
		if c == '.' || c == 'e' || c == 'E' {
			isFloat = true
		}
	}
	if !isFloat {
		return append(dst, num...), nil
	}
	if d.hasDecimal {
		if v, err := types.ParseDecimal(string(num)); err == nil {
			return text.AppendDecimal(dst, text.StripTrailingZeros(v), false), nil
		}
	}
	f, _ := strconv.ParseFloat(string(num), 64)
	return text.AppendJavaDouble(dst, f, 64), nil
}
