package ddl

import "strings"

// Queries cover what the planner supports today: SELECT with a single FROM
// source (table, view or subquery, with an OPTIONS hint) and WHERE, UNION
// ALL, and VALUES. Every other clause (GROUP BY, HAVING, JOIN, ORDER BY,
// LIMIT, WINDOW, DISTINCT, window table functions, CTEs, ...) is recognised
// and rejected here with ErrUnsupported, naming the construct and its
// position, so the planner never sees a query it cannot run.

func (p *parser) query() Query {
	p.enter()
	defer p.leave()
	if t := p.peek(); isKw(t, "WITH") {
		p.unsupported(t, "WITH (common table expressions)")
	}
	q := p.queryTerm()
	for {
		t := p.peek()
		switch {
		case isKw(t, "UNION"):
			p.next()
			if !p.acceptKw("ALL") {
				if u := p.peek(); isKw(u, "DISTINCT") {
					p.unsupported(u, "UNION DISTINCT")
				}
				p.unsupported(t, "UNION without ALL (it removes duplicates)")
			}
			q = &Union{Pos: p.pos(t), Left: q, Right: p.queryTerm()}
		case isKw(t, "INTERSECT"), isKw(t, "EXCEPT"), isKw(t, "MINUS"):
			p.unsupported(t, strings.ToUpper(t.val))
		case isKw(t, "ORDER") && p.isKwAt(1, "BY"):
			p.unsupported(t, "ORDER BY")
		case isKw(t, "LIMIT"):
			p.unsupported(t, "LIMIT")
		case isKw(t, "OFFSET"), isKw(t, "FETCH"):
			p.unsupported(t, strings.ToUpper(t.val))
		default:
			return q
		}
	}
}

func (p *parser) queryTerm() Query {
	t := p.peek()
	switch {
	case isKw(t, "SELECT"):
		return p.selectQuery()
	case isKw(t, "VALUES"):
		return p.values()
	case t.kind == tOp && t.val == "(":
		p.next()
		q := p.query()
		p.expectOp(")")
		return q
	case isKw(t, "TABLE"):
		p.unsupported(t, "TABLE as a query")
	case isKw(t, "WITH"):
		p.unsupported(t, "WITH (common table expressions)")
	}
	p.failExpected("SELECT, VALUES or '(' starting a query")
	return nil
}

func (p *parser) values() Query {
	t := p.next()
	v := &Values{Pos: p.pos(t)}
	for {
		if p.acceptOp("(") {
			v.Rows = append(v.Rows, p.exprList(")"))
		} else {
			// VALUES 1, 2: single-column rows.
			v.Rows = append(v.Rows, []Expr{p.expr()})
		}
		if len(v.Rows[len(v.Rows)-1]) != len(v.Rows[0]) {
			p.fail(v.Rows[len(v.Rows)-1][0].Position(), ErrSyntax, "VALUES rows must all have %d columns, this one has %d",
				len(v.Rows[0]), len(v.Rows[len(v.Rows)-1]))
		}
		if !p.acceptOp(",") {
			return v
		}
	}
}

func (p *parser) selectQuery() Query {
	t := p.next()
	s := &Select{Pos: p.pos(t)}
	if h := p.peek(); h.kind == tHintStart {
		p.unsupported(h, "query hints after SELECT")
	}
	if d := p.peek(); isKw(d, "DISTINCT") {
		p.unsupported(d, "SELECT DISTINCT")
	}
	p.acceptKw("ALL")
	for {
		s.Items = append(s.Items, p.selectItem())
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKw("FROM") {
		s.From = p.tableRef()
		if t := p.peek(); t.kind == tOp && t.val == "," {
			p.unsupported(t, "joins (a comma-separated FROM list)")
		}
		p.rejectJoin()
	}
	if p.acceptKw("WHERE") {
		s.Where = p.expr()
	}
	switch t := p.peek(); {
	case isKw(t, "GROUP") && p.isKwAt(1, "BY"):
		p.unsupported(t, "GROUP BY")
	case isKw(t, "HAVING"):
		p.unsupported(t, "HAVING")
	case isKw(t, "WINDOW"):
		p.unsupported(t, "WINDOW clauses")
	case isKw(t, "QUALIFY"):
		p.unsupported(t, "QUALIFY")
	}
	return s
}

func (p *parser) rejectJoin() {
	t := p.peek()
	for _, kw := range []string{"JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL"} {
		if isKw(t, kw) {
			p.unsupported(t, "JOIN")
		}
	}
	if isKw(t, "FOR") && p.isKwAt(1, "SYSTEM_TIME") {
		p.unsupported(t, "FOR SYSTEM_TIME AS OF (temporal joins)")
	}
	if isKw(t, "MATCH_RECOGNIZE") {
		p.unsupported(t, "MATCH_RECOGNIZE")
	}
}

func (p *parser) selectItem() SelectItem {
	t := p.peek()
	it := SelectItem{Pos: p.pos(t)}
	if t.kind == tOp && t.val == "*" {
		p.next()
		it.Star = true
		return it
	}
	// qualifier.* : a dotted identifier path ending in .*
	if isIdent(t) {
		n := 0
		for isIdent(p.peekAt(n)) && p.peekAt(n+1).kind == tOp && p.peekAt(n+1).val == "." {
			n += 2
			if u := p.peekAt(n); u.kind == tOp && u.val == "*" {
				for k := 0; k < n; k += 2 {
					it.StarQualifier = append(it.StarQualifier, p.peekAt(k).val)
				}
				p.i += n + 1
				it.Star = true
				return it
			}
		}
	}
	it.Expr = p.expr()
	if p.acceptKw("AS") {
		id := p.ident()
		it.Alias, it.AliasPos = id.Name, id.Pos
	} else if a := p.peek(); isIdent(a) && !isKw(a, "FROM") {
		id := p.ident()
		it.Alias, it.AliasPos = id.Name, id.Pos
	}
	return it
}

func (p *parser) tableRef() TableRef {
	t := p.peek()
	switch {
	case t.kind == tOp && t.val == "(":
		p.next()
		if !p.startsQueryAt(0) {
			p.failExpected("a query in parentheses")
		}
		sq := &Subquery{Pos: p.pos(t), Query: p.query()}
		p.expectOp(")")
		sq.Alias, sq.ColumnAliases = p.alias()
		return sq
	case isKw(t, "TABLE") && p.peekAt(1).kind == tOp && p.peekAt(1).val == "(":
		p.unsupported(t, "table functions (TABLE(...), such as window TVFs TUMBLE, HOP, CUMULATE)")
	case isKw(t, "LATERAL"):
		p.unsupported(t, "LATERAL")
	case isKw(t, "UNNEST"):
		p.unsupported(t, "UNNEST")
	}
	tn := &TableName{Pos: p.pos(t), Name: p.objectName()}
	if p.isOp("(") {
		p.unsupported(p.peek(), "table functions in FROM")
	}
	if p.peek().kind == tHintStart {
		tn.Hints = p.tableHints()
	}
	p.rejectJoin()
	tn.Alias, tn.ColumnAliases = p.alias()
	return tn
}

// alias parses [AS] alias [(columns)] after a FROM source.
func (p *parser) alias() (string, []Ident) {
	var name string
	switch t := p.peek(); {
	case isKw(t, "AS"):
		p.next()
		name = p.ident().Name
	case isIdent(t) && !isKw(t, "MATCH_RECOGNIZE"):
		name = p.ident().Name
	default:
		return "", nil
	}
	if p.isOp("(") {
		return name, p.identList()
	}
	return name, nil
}
