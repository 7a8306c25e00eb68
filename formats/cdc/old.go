package cdc

import (
	stdjson "encoding/json"
	"errors"
)

// Canal's and Maxwell's "old" lists the fields an UPDATE changed. Flink
// decides per physical field f whether "old" lists it with Jackson's
// JsonNode.findValue(name of f) on the whole "old" value, which searches
// object keys at every depth: a key inside a nested ROW, a MAP or an ARRAY
// of ROWs, in any row of Canal's "old" array, counts too (the golden rows
// under testdata/flink show it). oldKeys does the same search over the
// record's bytes, without maps or reflection per record.

// maxOldDepth bounds the nesting oldKeys follows; the envelope's json
// decoder has read the record before, so deeper input is not expected.
const maxOldDepth = 1000

var errOldSyntax = errors.New("malformed JSON")

// oldKeys sets listed[i] for every name names[i] that is a key anywhere in
// the value of the record's top-level "old" field (the last one, if the
// key repeats, as Jackson's tree keeps it). index maps a name to its
// position in names.
func oldKeys(raw []byte, index map[string]int, listed []bool) error {
	clear(listed)
	s := oldScanner{data: raw}
	if s.next() != '{' {
		return errOldSyntax
	}
	s.pos++
	old := -1
	if s.next() == '}' {
		return nil
	}
	for {
		key, escaped, err := s.str()
		if err != nil {
			return err
		}
		if s.next() != ':' {
			return errOldSyntax
		}
		s.pos++
		if !escaped && string(key) == "old" || escaped && unescaped(key) == "old" {
			old = s.pos
		}
		if err := s.walk(0, nil, nil); err != nil {
			return err
		}
		switch s.next() {
		case ',':
			s.pos++
		case '}':
			if old < 0 {
				return nil
			}
			s.pos = old
			return s.walk(0, index, listed)
		default:
			return errOldSyntax
		}
	}
}

type oldScanner struct {
	data []byte
	pos  int
}

// next skips white space and returns the next byte (0 at the end).
func (s *oldScanner) next() byte {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

// str reads a string and returns its raw content (between the quotes) and
// whether it holds escapes.
func (s *oldScanner) str() ([]byte, bool, error) {
	if s.next() != '"' {
		return nil, false, errOldSyntax
	}
	s.pos++
	start, escaped := s.pos, false
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			escaped = true
			s.pos += 2
		case '"':
			s.pos++
			return s.data[start : s.pos-1], escaped, nil
		default:
			s.pos++
		}
	}
	return nil, false, errOldSyntax
}

// unescaped is the text of a raw string content with escapes (rare in
// field names, so it may allocate).
func unescaped(raw []byte) string {
	var v string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	if stdjson.Unmarshal(q, &v) != nil {
		return ""
	}
	return v
}

// walk skips one value; with listed, it marks the names of index that are
// keys of objects inside the value.
func (s *oldScanner) walk(depth int, index map[string]int, listed []bool) error {
	if depth > maxOldDepth {
		return errOldSyntax
	}
	switch s.next() {
	case '{':
		s.pos++
		if s.next() == '}' {
			s.pos++
			return nil
		}
		for {
			key, escaped, err := s.str()
			if err != nil {
				return err
			}
			if listed != nil {
				var i int
				var ok bool
				if escaped {
					i, ok = index[unescaped(key)]
				} else {
					i, ok = index[string(key)]
				}
				if ok {
					listed[i] = true
				}
			}
			if s.next() != ':' {
				return errOldSyntax
			}
			s.pos++
			if err := s.walk(depth+1, index, listed); err != nil {
				return err
			}
			switch s.next() {
			case ',':
				s.pos++
			case '}':
				s.pos++
				return nil
			default:
				return errOldSyntax
			}
		}
	case '[':
		s.pos++
		if s.next() == ']' {
			s.pos++
			return nil
		}
		for {
			if err := s.walk(depth+1, index, listed); err != nil {
				return err
			}
			switch s.next() {
			case ',':
				s.pos++
			case ']':
				s.pos++
				return nil
			default:
				return errOldSyntax
			}
		}
	case '"':
		_, _, err := s.str()
		return err
	case 0:
		return errOldSyntax
	default:
		// A number or a literal: up to the next delimiter. The envelope's
		// json decoder has checked its syntax.
		start := s.pos
		for s.pos < len(s.data) && !delimiter(s.data[s.pos]) {
			s.pos++
		}
		if s.pos == start {
			return errOldSyntax
		}
		return nil
	}
}

func delimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
