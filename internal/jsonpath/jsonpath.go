// Package jsonpath evaluates the SQL/JSON paths of Flink's JSON_VALUE,
// JSON_QUERY and JSON_EXISTS, in lax mode: [Parse] a path once, then
// [Path.Find] the raw JSON it selects in each document.
//
// Learn [Path] first. planner/expr builds the JSON functions on it.
package jsonpath

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidJSON is returned by [Path.Find] when the document is not
// valid JSON.
var ErrInvalidJSON = errors.New("invalid JSON")

// Path is a parsed SQL/JSON path. It is immutable and safe for concurrent
// use.
type Path struct{ steps []step }

type step struct {
	key   string
	index int // -1 for a key step
}

// Parse parses a SQL/JSON path: an optional mode ("lax" or "strict",
// both read as lax), then $ and steps .key, ."key", ['key'] or ["key"],
// and [n]. Its errors name the path.
func Parse(p string) (*Path, error) {
	s := strings.TrimSpace(p)
	for _, mode := range []string{"lax ", "strict "} {
		if strings.HasPrefix(strings.ToLower(s), mode) {
			s = strings.TrimSpace(s[len(mode):])
		}
	}
	if !strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("JSON path %q must start with $", p)
	}
	s = s[1:]
	var steps []step
	for len(s) > 0 {
		switch s[0] {
		case '.':
			s = s[1:]
			if strings.HasPrefix(s, `"`) {
				end := strings.IndexByte(s[1:], '"')
				if end < 0 {
					return nil, fmt.Errorf("JSON path %q: unterminated name", p)
				}
				steps = append(steps, step{key: s[1 : end+1], index: -1})
				s = s[end+2:]
				continue
			}
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			if end == 0 {
				return nil, fmt.Errorf("JSON path %q: empty name", p)
			}
			steps = append(steps, step{key: s[:end], index: -1})
			s = s[end:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, fmt.Errorf("JSON path %q: missing ]", p)
			}
			inner := strings.TrimSpace(s[1:end])
			s = s[end+1:]
			if len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[len(inner)-1] == inner[0] {
				steps = append(steps, step{key: inner[1 : len(inner)-1], index: -1})
				continue
			}
			n, err := strconv.Atoi(inner)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("JSON path %q: bad index %q", p, inner)
			}
			steps = append(steps, step{index: n})
		default:
			return nil, fmt.Errorf("JSON path %q: unexpected %q", p, s[0])
		}
	}
	return &Path{steps: steps}, nil
}

// Find returns the raw JSON at the path in doc (trimmed of spaces); found
// reports whether it exists (a missing key, an index past the end or a
// step into a value of the other kind is not found). err is
// [ErrInvalidJSON] when doc is not valid JSON.
func (p *Path) Find(doc string) (raw json.RawMessage, found bool, err error) {
	cur := json.RawMessage(doc)
	if !json.Valid(cur) {
		return nil, false, ErrInvalidJSON
	}
	for _, st := range p.steps {
		cur = bytes.TrimSpace(cur)
		if st.index < 0 {
			if len(cur) == 0 || cur[0] != '{' {
				return nil, false, nil
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(cur, &obj); err != nil {
				return nil, false, err
			}
			next, ok := obj[st.key]
			if !ok {
				return nil, false, nil
			}
			cur = next
			continue
		}
		if len(cur) == 0 || cur[0] != '[' {
			return nil, false, nil
		}
		var arr []json.RawMessage
		if err := json.Unmarshal(cur, &arr); err != nil {
			return nil, false, err
		}
		if st.index >= len(arr) {
			return nil, false, nil
		}
		cur = arr[st.index]
	}
	return bytes.TrimSpace(cur), true, nil
}
