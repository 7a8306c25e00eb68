// Package flinkgolden reads the golden files that tools/flink-formats-gen
// writes with Flink's own serialization schemas: blocks of options followed
// by cases, each a row type, an input row (in a small value notation) and
// Flink's bytes, or an input and Flink's decoded row, skip or error.
package flinkgolden

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Block is a set of options and the cases produced with them.
type Block struct {
	// Options are table options (json.* or csv.*) as written.
	Options map[string]string
	Cases   []Case
}

// Case is one golden case.
type Case struct {
	Line  int
	Type  types.Type // a ROW type
	Row   *types.Row // the input row (serialize) or Flink's result (deserialize)
	Bytes []byte     // Flink's output (serialize)
	Input []byte     // the input (deserialize)
	Skip  bool       // Flink returned no row
	Error string     // Flink threw this
	// Rows are the rows a changelog format (debezium-json, ...) emitted
	// for Input, with their kinds ("crow <kind> <values>" lines).
	Rows []types.Row
	// Kind is the kind of Row for a changelog format's serialize case
	// (a "kind" line before the case); Insert otherwise.
	Kind types.RowKind
	// Project lists the indexes of Type's fields a projected decoder read
	// (a "project" line: Flink's ProjectableDecodingFormat); Row then
	// holds those fields in this order. nil: every field.
	Project []int
}

// Projected returns the row type Flink's decoder produced for c: Type, or
// the fields Project lists.
func (c Case) Projected() types.Type {
	if c.Project == nil {
		return c.Type
	}
	fs := make([]types.Field, len(c.Project))
	for i, p := range c.Project {
		fs[i] = c.Type.Fields[p]
	}
	return types.RowType(fs...)
}

// Read parses a golden file. Option values in csv files are base64 (they
// may be tabs or quotes); decodeOptions says so.
func Read(path string, decodeOptions bool) ([]Block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var blocks []Block
	var cur *Case
	nextKind := types.Insert
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		word, rest, _ := strings.Cut(l, " ")
		fail := func(err error) error { return fmt.Errorf("%s:%d: %w", path, line, err) }
		switch word {
		case "options":
			b := Block{Options: map[string]string{}}
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				if decodeOptions {
					d, err := base64.StdEncoding.DecodeString(v)
					if err != nil {
						return nil, fail(err)
					}
					v = string(d)
				}
				b.Options[k] = v
			}
			blocks = append(blocks, b)
		case "kind":
			k, ok := types.ParseRowKind(rest)
			if !ok {
				return nil, fail(fmt.Errorf("unknown row kind %q", rest))
			}
			nextKind = k
		case "case":
			t, err := ParseType(rest)
			if err != nil {
				return nil, fail(err)
			}
			if len(blocks) == 0 {
				return nil, fail(fmt.Errorf("case before options"))
			}
			bl := &blocks[len(blocks)-1]
			bl.Cases = append(bl.Cases, Case{Line: line, Type: t, Kind: nextKind})
			nextKind = types.Insert
			cur = &bl.Cases[len(bl.Cases)-1]
		case "crow":
			ks, spec, _ := strings.Cut(rest, " ")
			k, ok := types.ParseRowKind(ks)
			if !ok {
				return nil, fail(fmt.Errorf("unknown row kind %q", ks))
			}
			var sp any
			if err := json.Unmarshal([]byte(spec), &sp); err != nil {
				return nil, fail(err)
			}
			v, err := value(cur.Type, sp)
			if err != nil {
				return nil, fail(err)
			}
			cur.Rows = append(cur.Rows, types.Row{Kind: k, Fields: v.List()})
		case "project":
			for _, f := range strings.Fields(rest) {
				i, err := strconv.Atoi(f)
				if err != nil || i < 0 || i >= len(cur.Type.Fields) {
					return nil, fail(fmt.Errorf("bad field index %q", f))
				}
				cur.Project = append(cur.Project, i)
			}
		case "row":
			var spec any
			if err := json.Unmarshal([]byte(rest), &spec); err != nil {
				return nil, fail(err)
			}
			v, err := value(cur.Projected(), spec)
			if err != nil {
				return nil, fail(err)
			}
			cur.Row = &types.Row{Fields: v.List()}
		case "bytes", "input":
			b, err := base64.StdEncoding.DecodeString(rest)
			if err != nil {
				return nil, fail(err)
			}
			if word == "bytes" {
				cur.Bytes = b
			} else {
				cur.Input = b
			}
		case "skip":
			cur.Skip = true
		case "error":
			cur.Error = rest
		default:
			return nil, fail(fmt.Errorf("unknown line %q", word))
		}
	}
	return blocks, sc.Err()
}

// value converts the value notation of the generator (Gen.spec) to a Value.
func value(t types.Type, spec any) (types.Value, error) {
	if spec == nil {
		return types.Value{}, nil
	}
	s, _ := spec.(string)
	switch t.Kind {
	case types.KindBoolean:
		b, ok := spec.(bool)
		if !ok {
			return types.Value{}, fmt.Errorf("boolean %v", spec)
		}
		return types.Bool(b), nil
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		n, err := strconv.ParseInt(s, 10, 64)
		return types.Int64(n), err
	case types.KindDate:
		n, err := strconv.ParseInt(s, 10, 32)
		return types.DateValue(int32(n)), err
	case types.KindTime:
		n, err := strconv.ParseInt(s, 10, 64)
		return types.TimeValue(n * 1e6), err
	case types.KindFloat:
		n, err := strconv.ParseUint(strings.TrimPrefix(s, "f"), 16, 32)
		return types.Float64(float64(math.Float32frombits(uint32(n)))), err
	case types.KindDouble:
		n, err := strconv.ParseUint(strings.TrimPrefix(s, "d"), 16, 64)
		return types.Float64(math.Float64frombits(n)), err
	case types.KindDecimal:
		u, sc, _ := strings.Cut(s, "e")
		bi, ok := new(big.Int).SetString(u, 10)
		scale, err := strconv.Atoi(sc)
		if !ok || err != nil {
			return types.Value{}, fmt.Errorf("decimal %q", s)
		}
		return types.DecimalValue(types.NewDecimalBig(bi, scale)), nil
	case types.KindChar, types.KindVarChar:
		b, err := base64.StdEncoding.DecodeString(s)
		return types.Str(string(b)), err
	case types.KindBinary, types.KindVarBinary:
		b, err := base64.StdEncoding.DecodeString(s)
		return types.BytesValue(b), err
	case types.KindTimestamp, types.KindTimestampLTZ:
		ms, ns, _ := strings.Cut(s, ":")
		m, err1 := strconv.ParseInt(ms, 10, 64)
		n, err2 := strconv.ParseInt(ns, 10, 32)
		if err1 != nil || err2 != nil {
			return types.Value{}, fmt.Errorf("timestamp %q", s)
		}
		return types.TimestampValue(types.Timestamp{Millis: m, NanoOfMilli: int32(n)}), nil
	case types.KindArray, types.KindRow:
		l, ok := spec.([]any)
		if !ok {
			return types.Value{}, fmt.Errorf("list %v", spec)
		}
		out := make([]types.Value, len(l))
		for i, x := range l {
			et := types.Type{}
			if t.Kind == types.KindArray {
				et = *t.Elem
			} else {
				et = t.Fields[i].Type
			}
			v, err := value(et, x)
			if err != nil {
				return types.Value{}, err
			}
			out[i] = v
		}
		return types.List(out), nil
	case types.KindMap, types.KindMultiset:
		l, ok := spec.([]any)
		if !ok {
			return types.Value{}, fmt.Errorf("map %v", spec)
		}
		vt := types.Int()
		if t.Value != nil {
			vt = *t.Value
		}
		m := &types.MapData{}
		for _, x := range l {
			kv := x.([]any)
			k, err := value(*t.Elem, kv[0])
			if err != nil {
				return types.Value{}, err
			}
			v, err := value(vt, kv[1])
			if err != nil {
				return types.Value{}, err
			}
			m.Keys = append(m.Keys, k)
			m.Values = append(m.Values, v)
		}
		return types.MapValue(m), nil
	}
	return types.Value{}, fmt.Errorf("no notation for %s", t)
}

// ParseType parses Flink's summary string of a logical type, as
// LogicalType.asSummaryString prints it (the subset the generator uses).
func ParseType(s string) (types.Type, error) {
	p := &typeParser{s: s}
	t, err := p.typ()
	if err != nil {
		return t, err
	}
	if p.pos != len(p.s) {
		return t, fmt.Errorf("trailing text in type %q", s)
	}
	return t, nil
}

type typeParser struct {
	s   string
	pos int
}

func (p *typeParser) ws() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *typeParser) word() string {
	p.ws()
	start := p.pos
	for p.pos < len(p.s) && (p.s[p.pos] == '_' || (p.s[p.pos] >= 'A' && p.s[p.pos] <= 'Z')) {
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *typeParser) eat(c byte) bool {
	p.ws()
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *typeParser) ints() []int {
	var out []int
	if !p.eat('(') {
		return nil
	}
	for {
		p.ws()
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		n, _ := strconv.Atoi(p.s[start:p.pos])
		out = append(out, n)
		if p.eat(')') {
			return out
		}
		p.eat(',')
	}
}

func (p *typeParser) typ() (types.Type, error) {
	w := p.word()
	var t types.Type
	switch w {
	case "BOOLEAN":
		t = types.Boolean()
	case "TINYINT":
		t = types.TinyInt()
	case "SMALLINT":
		t = types.SmallInt()
	case "INT":
		t = types.Int()
	case "BIGINT":
		t = types.BigInt()
	case "FLOAT":
		t = types.Float()
	case "DOUBLE":
		t = types.Double()
	case "STRING":
		t = types.String()
	case "BYTES":
		t = types.Bytes()
	case "DATE":
		t = types.Date()
	case "DECIMAL":
		a := p.ints()
		t = types.DecimalType(a[0], a[1])
	case "CHAR", "VARCHAR", "BINARY", "VARBINARY":
		n := p.ints()[0]
		t = map[string]func(int) types.Type{"CHAR": types.Char, "VARCHAR": types.VarChar, "BINARY": types.Binary, "VARBINARY": types.VarBinary}[w](n)
	case "TIME", "TIMESTAMP", "TIMESTAMP_LTZ":
		n := p.ints()[0]
		t = map[string]func(int) types.Type{"TIME": types.Time, "TIMESTAMP": types.TimestampType, "TIMESTAMP_LTZ": types.TimestampLTZ}[w](n)
	case "ARRAY", "MULTISET":
		if !p.eat('<') {
			return t, fmt.Errorf("expected < after %s", w)
		}
		e, err := p.typ()
		if err != nil {
			return t, err
		}
		if !p.eat('>') {
			return t, fmt.Errorf("expected > in %s", w)
		}
		if w == "ARRAY" {
			t = types.Array(e)
		} else {
			t = types.Multiset(e)
		}
	case "MAP":
		p.eat('<')
		k, err := p.typ()
		if err != nil {
			return t, err
		}
		p.eat(',')
		v, err := p.typ()
		if err != nil {
			return t, err
		}
		if !p.eat('>') {
			return t, fmt.Errorf("expected > in MAP")
		}
		t = types.Map(k, v)
	case "ROW":
		p.eat('<')
		var fields []types.Field
		for {
			if !p.eat('`') {
				return t, fmt.Errorf("expected a quoted field name at %d", p.pos)
			}
			end := strings.IndexByte(p.s[p.pos:], '`')
			name := p.s[p.pos : p.pos+end]
			p.pos += end + 1
			ft, err := p.typ()
			if err != nil {
				return t, err
			}
			fields = append(fields, types.Field{Name: name, Type: ft})
			if p.eat('>') {
				break
			}
			if !p.eat(',') {
				return t, fmt.Errorf("expected , or > in ROW at %d", p.pos)
			}
		}
		t = types.RowType(fields...)
	default:
		return t, fmt.Errorf("unknown type %q at %d", w, p.pos)
	}
	p.ws()
	if strings.HasPrefix(p.s[p.pos:], "NOT NULL") {
		p.pos += len("NOT NULL")
		t = t.NotNullable()
	}
	return t, nil
}
