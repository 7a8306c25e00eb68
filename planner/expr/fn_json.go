package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/internal/jsonpath"
	"github.com/streamsql/streamsql/types"
)

// JSON functions with Flink's defaults: JSON_VALUE returns the scalar at
// the path as STRING (NULL ON EMPTY, NULL ON ERROR), JSON_QUERY returns the
// object or array at the path as JSON text (WITHOUT ARRAY WRAPPER, NULL ON
// EMPTY, NULL ON ERROR), JSON_EXISTS tests the path (FALSE ON ERROR). Paths
// are SQL/JSON paths in lax mode: $, .key, ."key", ['key'], [n]; a leading
// "lax" or "strict" keyword is accepted.

func checkJSONValue(c *Call) (types.Type, error) {
	if _, err := checkStrings(types.String())(c); err != nil {
		return types.Type{}, err
	}
	if r := c.Returning; r.Kind != types.KindInvalid {
		switch r.Kind {
		case types.KindVarChar, types.KindChar, types.KindBoolean, types.KindInt, types.KindDouble:
			return r.Nullable(), nil
		}
		// Flink 1.20 fails to generate code for the other types.
		return types.Type{}, &ArgumentError{Function: c.Name, Given: argTypes(c), Expected: "RETURNING STRING, BOOLEAN, INT or DOUBLE"}
	}
	return types.String(), nil
}

// buildJSONValue extracts the scalar as a string or, with RETURNING
// BOOLEAN/INT/DOUBLE, as that type. As in Flink, the JSON value must already
// be of that kind (true/false; an integer that fits INT; a number with a
// fraction or exponent): anything else fails the evaluation (Flink throws
// ClassCastException) rather than being converted.
func buildJSONValue(b *builder, c *Call, a []evalFn) (evalFn, error) {
	fn, err := buildJSON(jsonValue)(b, c, a)
	if err != nil {
		return nil, err
	}
	r := c.Returning
	switch r.Kind {
	case types.KindInvalid, types.KindVarChar, types.KindChar:
		if r.Kind == types.KindInvalid {
			return fn, nil
		}
		return b.castEval(fn, types.String(), r, false)
	}
	raw := buildJSON(jsonRaw)
	rawFn, err := raw(b, c, a)
	if err != nil {
		return nil, err
	}
	mismatch := func(s string) error {
		return fmt.Errorf("%w: JSON value %s is not of type %s", ErrInvalidArgument, s, r.Nullable())
	}
	return strict1(rawFn, func(v types.Value) (types.Value, error) {
		s := v.Str()
		switch r.Kind {
		case types.KindBoolean:
			if s == "true" || s == "false" {
				return types.Bool(s == "true"), nil
			}
		case types.KindInt:
			if n, err := strconv.ParseInt(s, 10, 32); err == nil {
				return types.Int64(n), nil
			}
		case types.KindDouble:
			if strings.ContainsAny(s, ".eE") && !strings.HasPrefix(s, `"`) {
				if f, err := strconv.ParseFloat(s, 64); err == nil {
					return types.Float64(f), nil
				}
			}
		}
		return types.Value{}, mismatch(s)
	}), nil
}

// parseJSONPath parses a JSON path; errors wrap ErrInvalidArgument.
func parseJSONPath(p string) (*jsonpath.Path, error) {
	path, err := jsonpath.Parse(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	return path, nil
}

type jsonKind int

const (
	jsonValue jsonKind = iota
	jsonQuery
	jsonExists
	jsonRaw // the scalar's JSON text, for JSON_VALUE ... RETURNING
)

func buildJSON(kind jsonKind) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		var constPath *jsonpath.Path
		if isConstant(c.Args[1]) {
			v, err := a[1](nil)
			if err != nil {
				return nil, err
			}
			if v.IsNull() {
				return constFn(types.Value{}), nil
			}
			if constPath, err = parseJSONPath(v.Str()); err != nil {
				return nil, err
			}
		}
		return strict2(a[0], a[1], func(doc, path types.Value) (types.Value, error) {
			steps := constPath
			if steps == nil {
				var err error
				if steps, err = parseJSONPath(path.Str()); err != nil {
					return types.Value{}, err
				}
			}
			raw, found, err := steps.Find(doc.Str())
			switch kind {
			case jsonExists:
				// A JSON null at the path counts as absent, as in Flink.
				return types.Bool(err == nil && found && string(raw) != "null"), nil
			case jsonRaw:
				if err != nil || !found || len(raw) == 0 || raw[0] == '{' || raw[0] == '[' || string(raw) == "null" {
					return types.Value{}, nil
				}
				return types.Str(string(raw)), nil
			case jsonValue:
				if err != nil || !found || len(raw) == 0 || raw[0] == '{' || raw[0] == '[' || string(raw) == "null" {
					return types.Value{}, nil
				}
				if raw[0] == '"' {
					var s string
					if json.Unmarshal(raw, &s) != nil {
						return types.Value{}, nil
					}
					return types.Str(s), nil
				}
				if raw[0] != 't' && raw[0] != 'f' {
					return types.Str(jacksonNumber(string(raw))), nil
				}
				return types.Str(string(raw)), nil
			default:
				if err != nil || !found || len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
					return types.Value{}, nil
				}
				out, err := compactJSON(raw)
				if err != nil {
					return types.Value{}, nil
				}
				return types.Str(out), nil
			}
		}), nil
	}
}

// jacksonNumber prints a JSON number as Flink's JSON functions do (Jackson
// reads fractions and exponents as doubles): 2.50 is 2.5, 1e2 is 100.0;
// integers keep their text.
func jacksonNumber(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return javafmt.Float(f, 64)
}

// compactJSON re-serializes a JSON value without spaces, keeping the order
// of object members and printing numbers as jacksonNumber does.
func compactJSON(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		obj bool
		n   int
	}
	var stack []frame
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			sb.WriteRune(rune(d))
			if len(stack) > 0 {
				stack[len(stack)-1].n++
			}
			continue
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.obj && top.n%2 == 0 { // a member name
				if top.n > 0 {
					sb.WriteByte(',')
				}
				if err := enc.Encode(tok); err != nil {
					return "", err
				}
				trimNewline(&sb)
				sb.WriteByte(':')
				top.n++
				continue
			}
			if !top.obj && top.n > 0 {
				sb.WriteByte(',')
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			sb.WriteRune(rune(v))
			stack = append(stack, frame{obj: v == '{'})
			continue
		case json.Number:
			sb.WriteString(jacksonNumber(v.String()))
		case nil:
			sb.WriteString("null")
		default:
			if err := enc.Encode(v); err != nil {
				return "", err
			}
			trimNewline(&sb)
		}
		if len(stack) > 0 {
			stack[len(stack)-1].n++
		}
	}
	return sb.String(), nil
}

func trimNewline(sb *strings.Builder) {
	s := sb.String()
	if strings.HasSuffix(s, "\n") {
		sb.Reset()
		sb.WriteString(s[:len(s)-1])
	}
}
