package ddl

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/streamsql/streamsql/internal/javatime"
	"github.com/streamsql/streamsql/types"
)

// Expressions are parsed by ddl's own recursive-descent parser rather than
// TiDB's. TiDB's parser rejects a dozen everyday Flink forms (CAST to
// BIGINT/INT/STRING/VARCHAR(n)/BOOLEAN/TIMESTAMP(p), TRY_CAST, IS [NOT]
// DISTINCT FROM, CEIL(x TO unit), m['k'], arr[1], a bare INTERVAL, Flink
// types inside CAST), gives MySQL meanings to others unless modes are set
// ("x" as a string, || as OR), and reports positions in the text it was
// given. Using it would mean rewriting the Flink forms into placeholder
// calls, mapping every position back through the rewrite, and then
// converting TiDB's AST into ddl's Expr tree anyway, because the planner
// must apply Flink's typing rules, not MySQL's. The grammar subset streamsql
// needs is small; parsing it directly yields Flink's semantics, the user's
// positions on every node, and messages written for Flink users, in less
// code than the rewrite-and-convert route.
//
// Precedence, loosest first: OR; AND; NOT; comparisons, IS, IN, BETWEEN,
// LIKE, SIMILAR TO (left-associative, one level); + and -; *, /, % and ||;
// unary - and +; subscripts [ ] and field access.

var niladic = map[string]bool{
	"CURRENT_TIMESTAMP": true, "CURRENT_DATE": true, "CURRENT_TIME": true, "LOCALTIMESTAMP": true,
	"LOCALTIME": true, "CURRENT_ROW_TIMESTAMP": true,
}

var timeUnits = map[string]bool{
	"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true, "HOUR": true,
	"MINUTE": true, "SECOND": true, "MILLISECOND": true, "MICROSECOND": true, "NANOSECOND": true,
	"DOW": true, "DOY": true, "EPOCH": true, "DECADE": true, "CENTURY": true, "MILLENNIUM": true,
	"ISODOW": true, "ISOYEAR": true,
}

func (p *parser) expr() Expr {
	p.enter()
	defer p.leave()
	return p.orExpr()
}

func (p *parser) binary(op BinaryOp, t token, l, r Expr) Expr {
	return &Binary{Pos: p.pos(t), Op: op, Left: l, Right: r}
}

func (p *parser) orExpr() Expr {
	e := p.andExpr()
	for p.isKw("OR") {
		t := p.next()
		e = p.binary(OpOr, t, e, p.andExpr())
	}
	return e
}

func (p *parser) andExpr() Expr {
	e := p.notExpr()
	for p.isKw("AND") {
		t := p.next()
		e = p.binary(OpAnd, t, e, p.notExpr())
	}
	return e
}

func (p *parser) notExpr() Expr {
	if p.isKw("NOT") {
		p.enter()
		defer p.leave()
		t := p.next()
		return &Unary{Pos: p.pos(t), Op: OpNot, Expr: p.notExpr()}
	}
	return p.predicate()
}

var comparisons = map[string]BinaryOp{"=": OpEq, "<>": OpNe, "!=": OpNe, "<": OpLt, "<=": OpLe, ">": OpGt, ">=": OpGe}

func (p *parser) predicate() Expr {
	e := p.additive()
	for {
		t := p.peek()
		if t.kind == tOp {
			op, ok := comparisons[t.val]
			if !ok {
				return e
			}
			p.next()
			if u := p.peek(); (isKw(u, "ANY") || isKw(u, "ALL") || isKw(u, "SOME")) && p.peekAt(1).kind == tOp && p.peekAt(1).val == "(" {
				p.next()
				e = &Quantified{Pos: p.pos(t), Op: op, Quantifier: strings.ToUpper(u.val), Left: e, Query: p.parenQuery(strings.ToUpper(u.val))}
				continue
			}
			e = p.binary(op, t, e, p.additive())
			continue
		}
		not := false
		if isKw(t, "NOT") {
			n := p.peekAt(1)
			if !(isKw(n, "IN") || isKw(n, "BETWEEN") || isKw(n, "LIKE") || isKw(n, "SIMILAR")) {
				return e
			}
			p.next()
			not = true
		}
		t = p.peek()
		switch {
		case isKw(t, "IS"):
			e = p.isPredicate(e)
		case isKw(t, "IN"):
			p.next()
			pos := p.pos(t)
			if p.isOp("(") && p.startsQueryAt(1) && !(p.peekAt(1).kind == tOp) {
				e = &InQuery{Pos: pos, Expr: e, Not: not, Query: p.parenQuery("IN")}
				continue
			}
			in := &In{Pos: pos, Expr: e, Not: not}
			p.expectOp("(")
			in.List = p.exprList(")")
			e = in
		case isKw(t, "BETWEEN"):
			p.next()
			b := &Between{Pos: p.pos(t), Expr: e, Not: not}
			if p.acceptKw("SYMMETRIC") {
				b.Symmetric = true
			} else {
				p.acceptKw("ASYMMETRIC")
			}
			b.Low = p.additive()
			p.expectKw("AND")
			b.High = p.additive()
			e = b
		case isKw(t, "LIKE"), isKw(t, "SIMILAR"):
			p.next()
			l := &Like{Pos: p.pos(t), Expr: e, Not: not}
			if isKw(t, "SIMILAR") {
				p.expectKw("TO")
				l.Similar = true
			}
			l.Pattern = p.additive()
			if p.acceptKw("ESCAPE") {
				l.Escape = p.additive()
			}
			e = l
		case isKw(t, "OVERLAPS"):
			// A reserved word in Flink's SQL: never an alias.
			p.fail(p.pos(t), ErrUnsupported, "OVERLAPS is not supported yet: compare the two periods' start and end points instead")
			return e
		default:
			return e
		}
	}
}

func (p *parser) isPredicate(e Expr) Expr {
	t := p.next() // IS
	not := p.acceptKw("NOT")
	u := p.peek()
	switch {
	case isKw(u, "DISTINCT"):
		p.next()
		p.expectKw("FROM")
		op := OpIsDistinctFrom
		if not {
			op = OpIsNotDistinctFrom
		}
		return p.binary(op, t, e, p.additive())
	case isKw(u, "NULL"), isKw(u, "TRUE"), isKw(u, "FALSE"), isKw(u, "UNKNOWN"):
		p.next()
		return &Is{Pos: p.pos(t), Expr: e, Not: not, What: strings.ToUpper(u.val)}
	case isKw(u, "JSON"):
		p.next()
		kind := "VALUE"
		if w := p.peek(); isKw(w, "VALUE") || isKw(w, "SCALAR") || isKw(w, "ARRAY") || isKw(w, "OBJECT") {
			p.next()
			kind = strings.ToUpper(w.val)
		}
		var out Expr = &Call{Pos: p.pos(t), Name: "IS JSON " + kind, Args: []Expr{e}}
		if not {
			out = &Unary{Pos: p.pos(t), Op: OpNot, Expr: out}
		}
		return out
	}
	p.failExpected("NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS")
	return nil
}

func (p *parser) additive() Expr {
	e := p.multiplicative()
	for {
		t := p.peek()
		if t.kind != tOp || t.val != "+" && t.val != "-" {
			return e
		}
		p.next()
		e = p.binary(BinaryOp(t.val), t, e, p.multiplicative())
	}
}

func (p *parser) multiplicative() Expr {
	e := p.unary()
	for {
		t := p.peek()
		if t.kind != tOp || t.val != "*" && t.val != "/" && t.val != "%" && t.val != "||" {
			return e
		}
		p.next()
		e = p.binary(BinaryOp(t.val), t, e, p.unary())
	}
}

func (p *parser) unary() Expr {
	t := p.peek()
	if t.kind == tOp && (t.val == "-" || t.val == "+") {
		p.enter()
		defer p.leave()
		p.next()
		inner := p.unary()
		// Fold the sign into numeric literals so that -5 is a literal of
		// type INT, as in Flink.
		if lit, ok := inner.(*Literal); ok && t.val == "-" {
			if neg, ok := negateLiteral(lit); ok {
				neg.Pos = p.pos(t)
				return neg
			}
		}
		op := OpNeg
		if t.val == "+" {
			op = OpPlus
		}
		return &Unary{Pos: p.pos(t), Op: op, Expr: inner}
	}
	return p.postfix(p.primary())
}

// negateLiteral returns -lit for numeric literals.
func negateLiteral(lit *Literal) (*Literal, bool) {
	out := *lit
	if t, ok := strings.CutPrefix(lit.Text, "-"); ok {
		out.Text = t
	} else {
		out.Text = "-" + lit.Text
	}
	switch lit.Kind {
	case IntLit:
		v := lit.Value.Int64()
		if v == math.MinInt64 {
			d, err := types.ParseDecimal(out.Text)
			if err != nil {
				return nil, false
			}
			out.Kind, out.Type, out.Value = DecimalLit, types.DecimalType(19, 0).NotNullable(), types.DecimalValue(d)
			return &out, true
		}
		v = -v
		out.Value = types.Int64(v)
		out.Type = types.BigInt().NotNullable()
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			out.Type = types.Int().NotNullable()
		}
		return &out, true
	case DecimalLit:
		d, err := types.ParseDecimal(out.Text)
		if err != nil {
			return nil, false
		}
		out.Value = types.DecimalValue(d)
		if lit.Type.Scale == 0 && d.Cmp(types.NewDecimal(math.MinInt64, 0)) == 0 {
			out.Kind, out.Type, out.Value = IntLit, types.BigInt().NotNullable(), types.Int64(math.MinInt64)
		}
		if d.Sign() == 0 {
			out.Text = lit.Text // -0.0 is 0.0
		}
		return &out, true
	case DoubleLit:
		out.Value = types.Float64(-lit.Value.Float64())
		return &out, true
	}
	return nil, false
}

func (p *parser) postfix(e Expr) Expr {
	for {
		t := p.peek()
		switch {
		case t.kind == tOp && t.val == "[":
			p.next()
			idx := p.expr()
			p.expectOp("]")
			e = &Subscript{Pos: p.pos(t), Expr: e, Index: idx}
		case t.kind == tOp && t.val == ".":
			p.next()
			f := p.ident()
			if ref, ok := e.(*ColumnRef); ok {
				ref.Parts = append(ref.Parts, f.Name)
				continue
			}
			e = &FieldAccess{Pos: f.Pos, Expr: e, Field: f.Name}
		default:
			return e
		}
	}
}

func (p *parser) exprList(closer string) []Expr {
	var list []Expr
	for {
		list = append(list, p.expr())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(closer)
	return list
}

func (p *parser) primary() Expr {
	t := p.peek()
	switch t.kind {
	case tNumber:
		p.next()
		return p.numberLit(t)
	case tString:
		p.next()
		return &Literal{Pos: p.pos(t), Kind: StringLit, Type: types.Char(utf8.RuneCountInString(t.val)).NotNullable(),
			Value: types.Str(t.val), Text: t.val}
	case tBinary:
		p.next()
		b, err := hex.DecodeString(t.val)
		if err != nil {
			p.failTok(t, "invalid binary literal X'%s': it must be an even number of hex digits", truncate(t.val))
		}
		return &Literal{Pos: p.pos(t), Kind: BinaryLit, Type: types.Binary(len(b)).NotNullable(),
			Value: types.BytesValue(b), Text: t.val}
	case tQIdent:
		p.next()
		return &ColumnRef{Pos: p.pos(t), Parts: []string{t.val}}
	case tOp:
		switch t.val {
		case "(":
			return p.parenExpr()
		case "?":
			p.unsupported(t, "query parameters (?)")
		case "*":
			p.failTok(t, "'*' is allowed only as a whole SELECT item or in COUNT(*)")
		}
		p.failExpected("an expression")
	case tIdent:
		return p.identExpr(t)
	}
	p.failExpected("an expression")
	return nil
}

// parenQuery parses (query) after the keyword or operator what.
func (p *parser) parenQuery(what string) Query {
	if !p.isOp("(") {
		p.failExpected("'(' and a query after " + what)
	}
	p.next()
	if !p.startsQueryAt(0) {
		p.failExpected("a query (SELECT ...) after " + what + " (")
	}
	q := p.query()
	p.expectOp(")")
	return q
}

func (p *parser) parenExpr() Expr {
	if p.startsQueryAt(1) && !(p.peekAt(1).kind == tOp) {
		open := p.peek()
		return &ScalarSubquery{Pos: p.pos(open), Query: p.parenQuery("(")}
	}
	open := p.next()
	e := p.expr()
	if p.isOp(",") {
		p.next()
		args := append([]Expr{e}, p.exprList(")")...)
		return &Call{Pos: p.pos(open), Name: "ROW", Args: args}
	}
	p.expectOp(")")
	return e
}

func (p *parser) identExpr(t token) Expr {
	name := strings.ToUpper(t.val)
	next := p.peekAt(1)
	nextIsParen := next.kind == tOp && next.val == "("
	switch name {
	case "NULL":
		p.next()
		return &Literal{Pos: p.pos(t), Kind: NullLit, Type: types.Null(), Text: "NULL"}
	case "TRUE", "FALSE":
		p.next()
		return &Literal{Pos: p.pos(t), Kind: BoolLit, Type: types.Boolean().NotNullable(),
			Value: types.Bool(name == "TRUE"), Text: name}
	case "UNKNOWN":
		p.next()
		return &Literal{Pos: p.pos(t), Kind: NullLit, Type: types.Boolean(), Text: name}
	case "DATE", "TIME", "TIMESTAMP":
		if next.kind == tString {
			return p.dateTimeLit(name)
		}
	case "INTERVAL":
		return p.intervalLit()
	case "CASE":
		return p.caseExpr()
	case "CAST", "TRY_CAST":
		if nextIsParen {
			return p.cast(name == "TRY_CAST")
		}
	case "EXISTS":
		p.next()
		return &Exists{Pos: p.pos(t), Query: p.parenQuery("EXISTS")}
	case "ARRAY", "MAP":
		if next.kind == tOp && next.val == "[" {
			p.next()
			p.next()
			c := &Call{Pos: p.pos(t), Name: name}
			if !p.acceptOp("]") {
				c.Args = p.exprList("]")
			}
			return c
		}
		if nextIsParen {
			p.unsupported(t, name+" constructed from a query")
		}
	case "MULTISET":
		if (next.kind == tOp && next.val == "[") || nextIsParen {
			p.unsupported(t, "the MULTISET value constructor")
		}
	case "SELECT", "VALUES", "WITH":
		p.failTok(t, "a query used as a value must be in parentheses: (%s ...)", name)
	}
	if nextIsParen && t.kind == tIdent && !(reserved[name] && !callableReserved[name]) {
		return p.call(t, name)
	}
	if niladic[name] && !nextIsParen {
		p.next()
		return &Call{Pos: p.pos(t), Name: name, NoParens: true}
	}
	if !isIdent(t) {
		p.failTok(t, "expected an expression, found reserved word %s", name)
	}
	p.next()
	return &ColumnRef{Pos: p.pos(t), Parts: []string{t.val}}
}

// callableReserved are reserved words that are also function names.
var callableReserved = map[string]bool{"LEFT": true, "RIGHT": true}

func (p *parser) symbol(what string, ok func(string) bool) *Symbol {
	t := p.peek()
	if t.kind != tIdent || !ok(strings.ToUpper(t.val)) {
		p.failExpected(what)
	}
	p.next()
	return &Symbol{Pos: p.pos(t), Name: strings.ToUpper(t.val)}
}

func isTimeUnit(s string) bool { return timeUnits[s] }

func (p *parser) timeUnit() *Symbol {
	return p.symbol("a time unit (YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, ...)", func(s string) bool {
		return isTimeUnit(s) || strings.HasPrefix(s, "SQL_TSI_") && isTimeUnit(strings.TrimPrefix(s, "SQL_TSI_"))
	})
}

func (p *parser) call(t token, name string) Expr {
	p.next() // name
	p.next() // (
	c := &Call{Pos: p.pos(t), Name: name}
	switch name {
	case "EXTRACT":
		u := p.timeUnit()
		p.expectKw("FROM")
		c.Args = []Expr{u, p.expr()}
		p.expectOp(")")
	case "CEIL", "CEILING", "FLOOR":
		if name == "CEILING" {
			c.Name = "CEIL"
		}
		c.Args = []Expr{p.expr()}
		if p.acceptKw("TO") {
			c.Args = append(c.Args, p.timeUnit())
		}
		p.expectOp(")")
	case "TIMESTAMPADD", "TIMESTAMPDIFF":
		u := p.timeUnit()
		p.expectOp(",")
		c.Args = append([]Expr{u}, p.exprList(")")...)
	case "POSITION":
		a := p.additive()
		if p.acceptKw("IN") {
			c.Args = []Expr{a, p.expr()}
			if p.acceptKw("FROM") {
				c.Args = append(c.Args, p.expr())
			}
			p.expectOp(")")
		} else {
			p.expectOp(",")
			c.Args = append([]Expr{a}, p.exprList(")")...)
		}
	case "SUBSTRING", "SUBSTR":
		s := p.expr()
		if p.acceptKw("FROM") {
			c.Args = []Expr{s, p.expr()}
			if p.acceptKw("FOR") {
				c.Args = append(c.Args, p.expr())
			}
			p.expectOp(")")
		} else {
			p.expectOp(",")
			c.Args = append([]Expr{s}, p.exprList(")")...)
		}
	case "OVERLAY":
		s := p.expr()
		p.expectKw("PLACING")
		r := p.expr()
		p.expectKw("FROM")
		c.Args = []Expr{s, r, p.expr()}
		if p.acceptKw("FOR") {
			c.Args = append(c.Args, p.expr())
		}
		p.expectOp(")")
	case "TRIM":
		p.trimArgs(c)
	case "JSON_VALUE", "JSON_QUERY", "JSON_EXISTS":
		p.jsonPathArgs(c)
	case "JSON_OBJECT", "JSON_OBJECTAGG":
		p.jsonObjectArgs(c)
	case "JSON_ARRAY":
		p.jsonArrayArgs(c)
	case "JSON_ARRAYAGG":
		if !p.isOp(")") {
			c.Args = []Expr{p.expr()}
		}
		if t := p.peek(); p.jsonOnNull(c) && c.OnNull == "NULL" {
			p.fail(p.pos(t), ErrUnsupported, "NULL ON NULL in JSON_ARRAYAGG is not supported yet (ABSENT ON NULL, Flink's default, is)")
		}
		p.expectOp(")")
	default:
		switch {
		case p.isOp(")"):
			p.next()
		case p.isOp("*"):
			star := p.next()
			if name != "COUNT" {
				p.failTok(star, "'*' is allowed only in COUNT(*)")
			}
			c.Star = true
			p.expectOp(")")
		case p.isKw("DISTINCT"):
			d := p.next()
			c.Distinct, c.DistinctPos = true, p.pos(d)
			c.Args = p.callArgs(name)
		default:
			p.acceptKw("ALL")
			c.Args = p.callArgs(name)
		}
	}
	return p.callSuffixes(c)
}

// callSuffixes parses what may follow a call's ')': WITHIN GROUP (ORDER
// BY ...), FILTER (WHERE cond) and OVER window, in that order.
func (p *parser) callSuffixes(c *Call) Expr {
	if u := p.peek(); isKw(u, "WITHIN") && p.isKwAt(1, "GROUP") {
		p.next()
		p.next()
		c.WithinGroupPos = p.pos(u)
		p.expectOp("(")
		p.expectKw("ORDER")
		p.expectKw("BY")
		c.WithinGroup = p.orderItems()
		p.expectOp(")")
	}
	if u := p.peek(); isKw(u, "FILTER") && p.peekAt(1).kind == tOp && p.peekAt(1).val == "(" {
		p.next()
		p.next()
		c.FilterPos = p.pos(u)
		p.expectKw("WHERE")
		c.Filter = p.expr()
		p.expectOp(")")
	}
	u := p.peek()
	if !isKw(u, "OVER") {
		return c
	}
	p.next()
	o := &Over{Pos: p.pos(u), Call: c}
	if w := p.peek(); isIdent(w) {
		p.next()
		o.Window = &WindowSpec{Pos: p.pos(w), Ref: w.val, RefPos: p.pos(w)}
		return o
	}
	if !p.isOp("(") {
		p.failExpected("a window in parentheses or a window name after OVER")
	}
	o.Window = p.windowSpec()
	return o
}

// callArgs parses the comma-separated arguments of a plain call up to its
// ')'. Keyword clauses inside the parentheses (JSON_VALUE(... RETURNING
// INT), JSON_OBJECT(KEY ... VALUE ...), ... ON ERROR) are reported as not
// supported yet rather than as a missing ')'.
func (p *parser) callArgs(name string) []Expr {
	var args []Expr
	for {
		if t := p.peek(); isKw(t, "KEY") && p.peekAt(1).kind != tOp {
			p.unsupported(t, "KEY clauses in "+name+"(...)")
		}
		args = append(args, p.expr())
		if p.acceptOp(",") {
			continue
		}
		if t := p.peek(); t.kind == tIdent && callClauseWords[strings.ToUpper(t.val)] {
			p.unsupported(t, strings.ToUpper(t.val)+" clauses in "+name+"(...)")
		}
		if !p.isOp(")") {
			p.failExpected("',' or ')' in the arguments of " + name)
		}
		p.next()
		return args
	}
}

// jsonObjectArgs parses the members of JSON_OBJECT or JSON_OBJECTAGG
// after the '(': [KEY] key VALUE value (or key : value), separated by
// commas, then an optional NULL ON NULL or ABSENT ON NULL, up to the ')'.
func (p *parser) jsonObjectArgs(c *Call) {
	for !p.isOp(")") && !p.jsonOnNull(c) {
		if len(c.Args) > 0 {
			p.expectOp(",")
		}
		if t := p.peek(); isKw(t, "KEY") && !(p.peekAt(1).kind == tOp && p.peekAt(1).val != "(") && !p.isKwAt(1, "VALUE") {
			p.next()
		}
		c.Args = append(c.Args, p.expr())
		if !p.acceptOp(":") {
			if !p.isKw("VALUE") {
				p.failExpected("VALUE after the key in " + c.Name)
			}
			p.next()
		}
		c.Args = append(c.Args, p.expr())
		if p.isKw("FORMAT") {
			p.unsupported(p.peek(), "FORMAT JSON in "+c.Name)
		}
	}
	p.expectOp(")")
}

// jsonArrayArgs parses the elements of JSON_ARRAY after the '(', then an
// optional NULL ON NULL or ABSENT ON NULL, up to the ')'.
func (p *parser) jsonArrayArgs(c *Call) {
	for !p.isOp(")") && !p.jsonOnNull(c) {
		if len(c.Args) > 0 {
			p.expectOp(",")
		}
		c.Args = append(c.Args, p.expr())
		if p.isKw("FORMAT") {
			p.unsupported(p.peek(), "FORMAT JSON in "+c.Name)
		}
	}
	p.expectOp(")")
}

// jsonOnNull consumes NULL ON NULL or ABSENT ON NULL, recording it on c,
// and reports whether it did; the clause must end the arguments.
func (p *parser) jsonOnNull(c *Call) bool {
	t := p.peek()
	if !(isKw(t, "NULL") || isKw(t, "ABSENT")) || !p.isKwAt(1, "ON") {
		return false
	}
	p.next()
	p.next()
	p.expectKw("NULL")
	c.OnNull = strings.ToUpper(t.val)
	if !p.isOp(")") {
		p.failExpected("')' after " + c.OnNull + " ON NULL in " + c.Name)
	}
	return true
}

// jsonPathArgs parses the arguments of JSON_VALUE, JSON_QUERY and
// JSON_EXISTS after the '(': the document, the path and the clauses Flink
// takes after them, up to the ')'. RETURNING is kept on the call; a
// behaviour clause that names what Flink does by default (NULL ON EMPTY,
// NULL ON ERROR, WITHOUT ARRAY WRAPPER, FALSE ON ERROR) is accepted, and any
// other is reported as not supported yet at its position.
func (p *parser) jsonPathArgs(c *Call) {
	c.Args = []Expr{p.expr()}
	p.expectOp(",")
	c.Args = append(c.Args, p.expr())
	if c.Name != "JSON_EXISTS" && p.isKw("RETURNING") {
		p.next()
		c.ReturningPos = p.pos(p.peek())
		c.Returning = p.typ()
	}
	if t := p.peek(); c.Name == "JSON_QUERY" && (isKw(t, "WITHOUT") || isKw(t, "WITH")) {
		p.next()
		if isKw(t, "WITH") {
			p.fail(p.pos(t), ErrUnsupported, "WITH ... ARRAY WRAPPER in JSON_QUERY is not supported yet (WITHOUT ARRAY WRAPPER, Flink's default, is)")
		}
		p.acceptKw("ARRAY")
		p.expectKw("WRAPPER")
	}
	def := "NULL"
	if c.Name == "JSON_EXISTS" {
		def = "FALSE"
	}
	for !p.isOp(")") {
		t := p.peek()
		word := strings.ToUpper(t.val)
		switch {
		case t.kind != tIdent:
			p.failExpected("')' or an ON EMPTY / ON ERROR clause in " + c.Name)
		case word == "DEFAULT":
			p.next()
			p.expr()
		case word == "EMPTY":
			p.next()
			if p.acceptKw("ARRAY") {
				word = "EMPTY ARRAY"
			} else {
				p.expectKw("OBJECT")
				word = "EMPTY OBJECT"
			}
		case word == "NULL" || word == "ERROR" || word == "TRUE" || word == "FALSE" || word == "UNKNOWN":
			p.next()
		default:
			p.failExpected("')' or an ON EMPTY / ON ERROR clause in " + c.Name)
		}
		p.expectKw("ON")
		on := "ERROR"
		if c.Name != "JSON_EXISTS" && p.isKw("EMPTY") {
			on = "EMPTY"
		}
		p.expectKw(on)
		if word != def {
			p.fail(p.pos(t), ErrUnsupported, "%s ON %s in %s is not supported yet (%s ON %s, Flink's default, is)", word, on, c.Name, def, on)
		}
	}
	p.expectOp(")")
}

// callClauseWords start the keyword clauses of JSON and other special
// functions that are not supported yet.
var callClauseWords = map[string]bool{"RETURNING": true, "NULL": true, "ABSENT": true, "DEFAULT": true,
	"ERROR": true, "EMPTY": true, "VALUE": true, "ON": true, "WITH": true, "WITHOUT": true,
	"FORMAT": true, "SEPARATOR": true, "ORDER": true}

// trimArgs parses TRIM([[BOTH|LEADING|TRAILING] [chars] FROM] s).
func (p *parser) trimArgs(c *Call) {
	mode := &Symbol{Pos: c.Pos, Name: "BOTH"}
	explicitMode := false
	if t := p.peek(); isKw(t, "BOTH") || isKw(t, "LEADING") || isKw(t, "TRAILING") {
		p.next()
		mode = &Symbol{Pos: p.pos(t), Name: strings.ToUpper(t.val)}
		explicitMode = true
	}
	var chars Expr = &Literal{Pos: c.Pos, Kind: StringLit, Type: types.Char(1).NotNullable(), Value: types.Str(" "), Text: " "}
	if p.acceptKw("FROM") {
		c.Args = []Expr{mode, chars, p.expr()}
		p.expectOp(")")
		return
	}
	first := p.expr()
	if p.acceptKw("FROM") {
		c.Args = []Expr{mode, first, p.expr()}
	} else {
		if explicitMode {
			p.failExpected("FROM in TRIM")
		}
		c.Args = []Expr{mode, chars, first}
	}
	p.expectOp(")")
}

func (p *parser) cast(try bool) Expr {
	t := p.next()
	p.next() // (
	c := &Cast{Pos: p.pos(t), Try: try, Expr: p.expr()}
	p.expectKw("AS")
	c.TypePos = p.pos(p.peek())
	c.Type = p.typ()
	p.expectOp(")")
	return c
}

func (p *parser) caseExpr() Expr {
	t := p.next()
	c := &Case{Pos: p.pos(t)}
	if p.isKw("END") || p.isKw("ELSE") {
		p.failExpected("WHEN in CASE")
	}
	if !p.isKw("WHEN") {
		c.Operand = p.expr()
	}
	for p.isKw("WHEN") {
		w := p.next()
		cond := p.expr()
		p.expectKw("THEN")
		c.Whens = append(c.Whens, When{Pos: p.pos(w), Cond: cond, Result: p.expr()})
	}
	if len(c.Whens) == 0 {
		p.failExpected("WHEN in CASE")
	}
	if p.acceptKw("ELSE") {
		c.Else = p.expr()
	}
	p.expectKw("END")
	return c
}

func (p *parser) numberLit(t token) Expr {
	pos := p.pos(t)
	s := t.val
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) {
			p.failTok(t, "number %s is out of the range of DOUBLE", s)
		}
		return &Literal{Pos: pos, Kind: DoubleLit, Type: types.Double().NotNullable(), Value: types.Float64(f), Text: s}
	}
	if !strings.Contains(s, ".") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			typ := types.BigInt().NotNullable()
			if i <= math.MaxInt32 {
				typ = types.Int().NotNullable()
			}
			return &Literal{Pos: pos, Kind: IntLit, Type: typ, Value: types.Int64(i), Text: s}
		}
	}
	d, err := types.ParseDecimal(s)
	if err != nil {
		p.failTok(t, "invalid number %s", s)
	}
	prec := max(d.Precision(), d.Scale())
	if prec > types.MaxDecimalPrecision {
		p.failTok(t, "number %s has more than %d digits, the maximum DECIMAL precision", truncate(s), types.MaxDecimalPrecision)
	}
	return &Literal{Pos: pos, Kind: DecimalLit, Type: types.DecimalType(prec, d.Scale()).NotNullable(),
		Value: types.DecimalValue(d), Text: s}
}

// fracDigits returns the digits after the last '.' of s, if any.
func fracDigits(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return ""
}

func (p *parser) dateTimeLit(kind string) Expr {
	kt := p.next()
	st := p.next()
	pos := p.pos(kt)
	v := strings.TrimSpace(st.val)
	bad := func(format string) {
		p.failTok(st, "invalid %s literal '%s': expected '%s'", kind, truncate(st.val), format)
	}
	switch kind {
	case "DATE":
		days, ok := javatime.ParseDate(v, javatime.LiteralDate)
		if !ok {
			bad("yyyy-mm-dd")
		}
		return &Literal{Pos: pos, Kind: DateLit, Type: types.Date().NotNullable(), Value: types.DateValue(int32(days)), Text: st.val}
	case "TIME":
		frac := fracDigits(v)
		if len(frac) > 9 || !strings.Contains(v, ":") {
			bad("hh:mm:ss[.fffffffff]")
		}
		d, err := time.Parse("15:04:05.999999999", v)
		if err != nil {
			bad("hh:mm:ss[.fffffffff]")
		}
		nanos := int64(d.Hour())*3600e9 + int64(d.Minute())*60e9 + int64(d.Second())*1e9 + int64(d.Nanosecond())
		return &Literal{Pos: pos, Kind: TimeLit, Type: types.Time(len(frac)).NotNullable(), Value: types.TimeValue(nanos), Text: st.val}
	}
	frac := ""
	if i := strings.IndexAny(v, " T"); i >= 0 {
		frac = fracDigits(v[i:])
	}
	if len(frac) > 9 {
		bad("yyyy-mm-dd hh:mm:ss[.fffffffff]")
	}
	ts, err := time.Parse("2006-01-02 15:04:05.999999999", strings.Replace(v, "T", " ", 1))
	if err != nil {
		bad("yyyy-mm-dd hh:mm:ss[.fffffffff]")
	}
	return &Literal{Pos: pos, Kind: TimestampLit, Type: types.TimestampType(len(frac)).NotNullable(),
		Value: types.TimestampValue(types.TimestampFromTime(ts)), Text: st.val}
}

// intervalLit parses INTERVAL [-]'text' unit [TO unit] (also INTERVAL 5
// SECOND) and computes its value.
func (p *parser) intervalLit() Expr {
	it := p.next()
	lit := &IntervalLit{Pos: p.pos(it)}
	sign := int64(1)
	if p.isOp("-") || p.isOp("+") {
		if p.next().val == "-" {
			sign = -1
		}
	}
	vt := p.peek()
	if vt.kind != tString && vt.kind != tNumber {
		p.failExpected("the interval value, a string such as '5'")
	}
	p.next()
	lit.Text = vt.val
	lit.From, _ = p.intervalUnit()
	if p.acceptOp("(") {
		p.intInRange("INTERVAL "+lit.From, 0, 9, "precision")
		p.expectOp(")")
	}
	if p.acceptKw("TO") {
		lit.To, _ = p.intervalUnit()
		if p.acceptOp("(") {
			p.intInRange("INTERVAL "+lit.To, 0, 9, "precision")
			p.expectOp(")")
		}
	}
	p.checkIntervalQualifier(lit.From, lit.To)
	text := strings.TrimSpace(vt.val)
	if strings.HasPrefix(text, "-") {
		sign = -sign
		text = strings.TrimSpace(text[1:])
	} else if strings.HasPrefix(text, "+") {
		text = strings.TrimSpace(text[1:])
	}
	months, millis, ok := intervalValue(text, lit.From, lit.To)
	if !ok {
		p.failTok(vt, "invalid interval '%s' for %s", truncate(vt.val), qualifierText(lit.From, lit.To))
	}
	if lit.From == "YEAR" || lit.From == "MONTH" {
		lit.Type = types.IntervalYearMonth().NotNullable()
		lit.Months = sign * months
	} else {
		lit.Type = types.IntervalDayTime().NotNullable()
		lit.Millis = sign * millis
	}
	return lit
}

func qualifierText(from, to string) string {
	if to == "" {
		return from
	}
	return from + " TO " + to
}

// intervalValue converts the text of an interval literal with qualifier
// from [TO to] to months or milliseconds.
func intervalValue(text, from, to string) (months, millis int64, ok bool) {
	// The fields the text must contain, and their separators.
	units := intervalUnits[unitIndex(from) : unitIndex(from)+1]
	if to != "" {
		units = intervalUnits[unitIndex(from) : unitIndex(to)+1]
	}
	var parts []string
	rest := text
	for i, u := range units {
		if i == len(units)-1 {
			parts = append(parts, rest)
			break
		}
		sep := ":"
		switch {
		case u == "YEAR":
			sep = "-"
		case u == "DAY":
			sep = " "
		}
		a, b, found := strings.Cut(rest, sep)
		if !found {
			return 0, 0, false
		}
		parts = append(parts, a)
		rest = strings.TrimLeft(b, " ")
	}
	const maxField = 1 << 40
	for i, u := range units {
		s := parts[i]
		if u == "SECOND" {
			whole, frac, _ := strings.Cut(s, ".")
			n, err := strconv.ParseInt(whole, 10, 64)
			if err != nil || n < 0 || n > maxField || len(frac) > 9 {
				return 0, 0, false
			}
			ms := int64(0)
			if frac != "" {
				f, err := strconv.ParseInt((frac + "000")[:3], 10, 64)
				if err != nil || strings.Trim(frac, "0123456789") != "" {
					return 0, 0, false
				}
				ms = f
			}
			millis += n*1000 + ms
			continue
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > maxField {
			return 0, 0, false
		}
		switch u {
		case "YEAR":
			months += n * 12
		case "MONTH":
			months += n
		case "DAY":
			millis += n * 86400000
		case "HOUR":
			millis += n * 3600000
		case "MINUTE":
			millis += n * 60000
		}
	}
	return months, millis, true
}
