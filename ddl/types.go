package ddl

import (
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/types"

	suggestpkg "github.com/streamsql/streamsql/internal/suggest"
)

// typeNames are the type keywords, for "did you mean" suggestions.
var typeNames = []string{"BOOLEAN", "TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "FLOAT",
	"REAL", "DOUBLE", "DECIMAL", "DEC", "NUMERIC", "CHAR", "CHARACTER", "VARCHAR", "STRING",
	"BINARY", "VARBINARY", "BYTES", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "ARRAY", "MAP",
	"MULTISET", "ROW", "INTERVAL"}

// ParseType parses a Flink type such as "DECIMAL(10, 2) NOT NULL" or
// "MAP<STRING, ARRAY<INT>>".
func ParseType(text string) (types.Type, error) {
	p := &parser{src: newSource("", text), toks: lex(text)}
	var t types.Type
	if !p.run(func() {
		t = p.typ()
		p.expectEOF()
	}) {
		return types.Type{}, p.err
	}
	return t, nil
}

// typ parses a type with its NOT NULL / NULL and postfix ARRAY / MULTISET
// suffixes.
func (p *parser) typ() types.Type {
	p.enter()
	defer p.leave()
	t := p.baseType()
	for {
		switch {
		case p.isKw("NOT") && p.isKwAt(1, "NULL"):
			p.next()
			p.next()
			t.NotNull = true
		case p.isKw("NULL") && !p.isKwAt(1, "ON"):
			// NULL ON EMPTY after JSON_VALUE's RETURNING type is a clause.
			p.next()
			t.NotNull = false
		case p.isKw("ARRAY"):
			p.next()
			t = types.Array(t)
		case p.isKw("MULTISET"):
			p.next()
			t = types.Multiset(t)
		default:
			return t
		}
	}
}

// intParam parses "(n)" when present, checking lo <= n <= hi.
func (p *parser) intParam(name string, def, lo, hi int, what string) int {
	if !p.acceptOp("(") {
		return def
	}
	n := p.intInRange(name, lo, hi, what)
	p.expectOp(")")
	return n
}

func (p *parser) intInRange(name string, lo, hi int, what string) int {
	t := p.peek()
	if t.kind != tNumber {
		p.failExpected("the " + what + " of " + name + " (an integer)")
	}
	p.next()
	n, err := strconv.Atoi(t.val)
	if err != nil || n < lo || n > hi {
		p.failTok(t, "%s %s must be between %d and %d, found %s", name, what, lo, hi, t.val)
	}
	return n
}

func (p *parser) baseType() types.Type {
	t := p.peek()
	if t.kind != tIdent {
		p.failExpected("a type")
	}
	name := strings.ToUpper(t.val)
	p.next()
	switch name {
	case "BOOLEAN":
		return types.Boolean()
	case "TINYINT":
		return types.TinyInt()
	case "SMALLINT":
		return types.SmallInt()
	case "INT", "INTEGER":
		return types.Int()
	case "BIGINT":
		return types.BigInt()
	case "FLOAT", "REAL":
		return types.Float()
	case "DOUBLE":
		p.acceptKw("PRECISION")
		return types.Double()
	case "DECIMAL", "DEC", "NUMERIC":
		prec, scale := types.DefaultDecimalPrecision, 0
		if p.acceptOp("(") {
			prec = p.intInRange(name, 1, types.MaxDecimalPrecision, "precision")
			if p.acceptOp(",") {
				scale = p.intInRange(name, 0, prec, "scale")
			}
			p.expectOp(")")
		}
		return types.DecimalType(prec, scale)
	case "CHAR", "CHARACTER":
		if p.acceptKw("VARYING") {
			return types.VarChar(p.intParam("VARCHAR", types.MaxLength, 1, types.MaxLength, "length"))
		}
		return types.Char(p.intParam("CHAR", 1, 1, types.MaxLength, "length"))
	case "VARCHAR":
		// Without a length, VARCHAR is STRING and VARBINARY is BYTES, as in
		// Flink SQL (its type system's default precision for both is the
		// maximum), while CHAR and BINARY default to length 1.
		return types.VarChar(p.intParam(name, types.MaxLength, 1, types.MaxLength, "length"))
	case "STRING":
		return types.String()
	case "BINARY":
		if p.acceptKw("VARYING") {
			return types.VarBinary(p.intParam("VARBINARY", types.MaxLength, 1, types.MaxLength, "length"))
		}
		return types.Binary(p.intParam(name, 1, 1, types.MaxLength, "length"))
	case "VARBINARY":
		return types.VarBinary(p.intParam(name, types.MaxLength, 1, types.MaxLength, "length"))
	case "BYTES":
		return types.Bytes()
	case "DATE":
		return types.Date()
	case "TIME":
		prec := p.intParam(name, 0, 0, types.MaxTimePrecision, "precision")
		if p.isKw("WITHOUT") {
			p.next()
			p.expectKw("TIME")
			p.expectKw("ZONE")
		} else if p.isKw("WITH") && p.isKwAt(1, "TIME") || p.isKw("WITH") && p.isKwAt(1, "LOCAL") {
			p.unsupported(p.peek(), "TIME WITH TIME ZONE")
		}
		return types.Time(prec)
	case "TIMESTAMP":
		prec := p.intParam(name, types.DefaultTimestampPrecision, 0, types.MaxTimePrecision, "precision")
		switch {
		case p.isKw("WITHOUT"):
			p.next()
			p.expectKw("TIME")
			p.expectKw("ZONE")
		case p.isKw("WITH") && p.isKwAt(1, "LOCAL"):
			p.next()
			p.next()
			p.expectKw("TIME")
			p.expectKw("ZONE")
			return types.TimestampLTZ(prec)
		case p.isKw("WITH") && p.isKwAt(1, "TIME"):
			p.unsupported(p.peek(), "TIMESTAMP WITH TIME ZONE (use TIMESTAMP_LTZ)")
		}
		return types.TimestampType(prec)
	case "TIMESTAMP_LTZ":
		return types.TimestampLTZ(p.intParam(name, types.DefaultTimestampPrecision, 0, types.MaxTimePrecision, "precision"))
	case "ARRAY", "MULTISET":
		p.expectOp("<")
		elem := p.typ()
		p.expectOp(">")
		if name == "ARRAY" {
			return types.Array(elem)
		}
		return types.Multiset(elem)
	case "MAP":
		p.expectOp("<")
		k := p.typ()
		p.expectOp(",")
		v := p.typ()
		p.expectOp(">")
		return types.Map(k, v)
	case "ROW":
		return p.rowType()
	case "INTERVAL":
		return p.intervalType()
	case "RAW", "STRUCTURED", "VARIANT", "DESCRIPTOR":
		p.unsupported(t, "the type "+name)
	case "NULL":
		return types.Null()
	}
	hint := ""
	if s := suggest(name, typeNames); s != "" {
		hint = " (did you mean " + s + "?)"
	}
	p.failTok(t, "unknown type '%s'%s", t.val, hint)
	return types.Type{}
}

func (p *parser) rowType() types.Type {
	var closer string
	switch {
	case p.acceptOp("<>"):
		return types.RowType()
	case p.acceptOp("<"):
		closer = ">"
	case p.acceptOp("("):
		closer = ")"
	default:
		p.failExpected("'<' or '(' after ROW")
	}
	var fields []types.Field
	seen := map[string]bool{}
	if p.acceptOp(closer) {
		return types.RowType()
	}
	for {
		id := p.ident()
		if seen[id.Name] {
			p.fail(id.Pos, ErrSyntax, "duplicate ROW field '%s'", id.Name)
		}
		seen[id.Name] = true
		f := types.Field{Name: id.Name, Type: p.typ()}
		if p.peek().kind == tString {
			f.Description, _ = p.stringLit("a field description")
		}
		fields = append(fields, f)
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(closer)
	return types.RowType(fields...)
}

var intervalUnits = []string{"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"}

func (p *parser) intervalUnit() (string, Pos) {
	t := p.peek()
	for _, u := range intervalUnits {
		if isKw(t, u) || isKw(t, u+"S") {
			p.next()
			return u, p.pos(t)
		}
	}
	p.failExpected("an interval unit (YEAR, MONTH, DAY, HOUR, MINUTE or SECOND)")
	return "", Pos{}
}

// intervalType parses the qualifier after INTERVAL in a type. Flink's
// resolutions collapse into the two interval kinds of package types.
func (p *parser) intervalType() types.Type {
	from, _ := p.intervalUnit()
	p.intParam("INTERVAL "+from, 0, 0, 9, "precision")
	to := ""
	if p.acceptKw("TO") {
		to, _ = p.intervalUnit()
		p.intParam("INTERVAL "+to, 0, 0, 9, "precision")
	}
	p.checkIntervalQualifier(from, to)
	if from == "YEAR" || from == "MONTH" {
		return types.IntervalYearMonth()
	}
	return types.IntervalDayTime()
}

func unitIndex(u string) int {
	for i, v := range intervalUnits {
		if v == u {
			return i
		}
	}
	return -1
}

func (p *parser) checkIntervalQualifier(from, to string) {
	if to == "" {
		return
	}
	fi, ti := unitIndex(from), unitIndex(to)
	ym := func(i int) bool { return i <= 1 }
	if ti <= fi || ym(fi) != ym(ti) {
		p.failTok(p.toks[p.i-1], "invalid interval qualifier %s TO %s", from, to)
	}
}

// suggest returns the candidate closest to s by edit distance when it is
// close enough to be a likely typo, else "".
func suggest(s string, candidates []string) string {
	if len(s) <= 3 {
		return suggestpkg.Nearest(s, candidates, 1)
	}
	return suggestpkg.Nearest(s, candidates, 2)
}
