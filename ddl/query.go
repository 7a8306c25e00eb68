package ddl

import (
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Queries are parsed into the full tree of Flink's streaming query forms
// (see ast_query.go): WITH, set operations, ORDER BY/LIMIT/OFFSET/FETCH,
// SELECT [DISTINCT] with query hints, FROM with joins, table functions
// (window TVFs among them), LATERAL, UNNEST and FOR SYSTEM_TIME AS OF,
// GROUP BY with grouping sets, HAVING and WINDOW. The parser checks only
// syntax and the rules that need no catalog; which forms streamsql can
// run is the planner's decision, made at each node's position. What is
// still rejected here is what Flink's own grammar does not offer as a
// streaming query (WITH RECURSIVE, QUALIFY) and
// MATCH_RECOGNIZE, which is out of scope.

func (p *parser) query() Query {
	p.enter()
	defer p.leave()
	if t := p.peek(); isKw(t, "WITH") {
		return p.with()
	}
	return p.orderLimit(p.setExpr())
}

// with parses WITH name [(cols)] AS (query), ... body.
func (p *parser) with() Query {
	t := p.next()
	if r := p.peek(); isKw(r, "RECURSIVE") {
		p.unsupported(r, "WITH RECURSIVE")
	}
	w := &With{Pos: p.pos(t)}
	seen := map[string]bool{}
	for {
		name := p.ident()
		if seen[name.Name] {
			p.fail(name.Pos, ErrSyntax, "duplicate name '%s' in WITH", name.Name)
		}
		seen[name.Name] = true
		c := &CTE{Pos: name.Pos, Name: name}
		if p.isOp("(") {
			c.Columns = p.identList()
		}
		p.expectKw("AS")
		if !p.isOp("(") {
			p.failExpected("'(' before the query of " + name.Name)
		}
		p.next()
		c.Query = p.query()
		p.expectOp(")")
		w.CTEs = append(w.CTEs, c)
		if !p.acceptOp(",") {
			break
		}
	}
	if !p.startsQueryAt(0) {
		p.failExpected("a query after WITH ... AS (...)")
	}
	if p.isKw("WITH") {
		p.failTok(p.peek(), "a second WITH: list all common table expressions in one WITH, separated by commas")
	}
	w.Body = p.orderLimit(p.setExpr())
	return w
}

// setExpr parses queries joined by UNION and EXCEPT (MINUS), whose
// operands are INTERSECT chains: INTERSECT binds tighter, as in SQL.
func (p *parser) setExpr() Query {
	q := p.intersectExpr()
	for {
		t := p.peek()
		var kind SetOpKind
		switch {
		case isKw(t, "UNION"):
			kind = Union
		case isKw(t, "EXCEPT"), isKw(t, "MINUS"):
			kind = Except
		default:
			return q
		}
		p.next()
		all := p.setQuantifier()
		q = &SetOp{Pos: p.pos(t), Kind: kind, All: all, Left: q, Right: p.intersectExpr()}
	}
}

func (p *parser) intersectExpr() Query {
	q := p.queryTerm()
	for p.isKw("INTERSECT") {
		t := p.next()
		all := p.setQuantifier()
		q = &SetOp{Pos: p.pos(t), Kind: Intersect, All: all, Left: q, Right: p.queryTerm()}
	}
	return q
}

// setQuantifier parses the optional ALL or DISTINCT after a set operator
// and reports whether it was ALL.
func (p *parser) setQuantifier() bool {
	if p.acceptKw("ALL") {
		return true
	}
	p.acceptKw("DISTINCT")
	return false
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
		p.failTok(t, "WITH must start the query (or a query in parentheses)")
	}
	p.failExpected("SELECT, VALUES or '(' starting a query")
	return nil
}

// orderLimit parses the ORDER BY, LIMIT, OFFSET and FETCH clauses after q
// and wraps q in an *OrderBy when there are any.
func (p *parser) orderLimit(q Query) Query {
	first := p.peek()
	ob := &OrderBy{Pos: p.pos(first), Query: q}
	if isKw(first, "ORDER") && p.isKwAt(1, "BY") {
		p.next()
		p.next()
		ob.Items = p.orderItems()
	}
	switch t := p.peek(); {
	case isKw(t, "LIMIT"):
		p.limit(ob)
		if p.isKw("OFFSET") {
			p.offset(ob)
		}
	case isKw(t, "OFFSET"):
		p.offset(ob)
		switch {
		case p.isKw("FETCH"):
			p.fetch(ob)
		case p.isKw("LIMIT"):
			p.limit(ob)
		}
	case isKw(t, "FETCH"):
		p.fetch(ob)
	}
	if ob.Items == nil && ob.Offset == nil && ob.Fetch == nil {
		return q
	}
	return ob
}

func (p *parser) limit(ob *OrderBy) {
	t := p.next()
	ob.FetchPos, ob.Limit = p.pos(t), true
	ob.Fetch = p.additive()
}

// offset parses OFFSET n [ROW|ROWS].
func (p *parser) offset(ob *OrderBy) {
	t := p.next()
	ob.OffsetPos = p.pos(t)
	ob.Offset = p.additive()
	if !p.acceptKw("ROWS") {
		p.acceptKw("ROW")
	}
}

// fetch parses FETCH FIRST|NEXT [n] ROW|ROWS ONLY.
func (p *parser) fetch(ob *OrderBy) {
	t := p.next()
	ob.FetchPos = p.pos(t)
	if !p.acceptKw("FIRST") && !p.acceptKw("NEXT") {
		p.failExpected("FIRST or NEXT after FETCH")
	}
	if u := p.peek(); isKw(u, "ROW") || isKw(u, "ROWS") {
		ob.Fetch = &Literal{Pos: p.pos(u), Kind: IntLit, Type: types.Int().NotNullable(), Value: types.Int64(1), Text: "1"}
	} else {
		ob.Fetch = p.additive()
	}
	if !p.acceptKw("ROWS") && !p.acceptKw("ROW") {
		p.failExpected("ROWS after the count of FETCH")
	}
	p.expectKw("ONLY")
}

// orderItems parses order items separated by commas.
func (p *parser) orderItems() []OrderItem {
	var items []OrderItem
	for {
		items = append(items, p.orderItem())
		if !p.acceptOp(",") {
			return items
		}
	}
}

// orderItem parses expr [ASC|DESC] [NULLS FIRST|LAST].
func (p *parser) orderItem() OrderItem {
	t := p.peek()
	it := OrderItem{Pos: p.pos(t), Expr: p.expr()}
	if p.acceptKw("DESC") {
		it.Desc = true
	} else {
		p.acceptKw("ASC")
	}
	if p.isKw("NULLS") {
		p.next()
		switch {
		case p.acceptKw("FIRST"):
			it.Nulls = NullsFirst
		case p.acceptKw("LAST"):
			it.Nulls = NullsLast
		default:
			p.failExpected("FIRST or LAST after NULLS")
		}
	}
	return it
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
		s.Hints = p.queryHints()
	}
	if d := p.peek(); isKw(d, "DISTINCT") {
		p.next()
		s.Distinct, s.DistinctPos = true, p.pos(d)
	} else {
		p.acceptKw("ALL")
	}
	for {
		s.Items = append(s.Items, p.selectItem())
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKw("FROM") {
		s.From = p.fromClause()
	}
	if p.acceptKw("WHERE") {
		s.Where = p.expr()
	}
	if t := p.peek(); isKw(t, "GROUP") && p.isKwAt(1, "BY") {
		p.next()
		p.next()
		s.GroupBy = &GroupBy{Pos: p.pos(t)}
		for {
			s.GroupBy.Items = append(s.GroupBy.Items, p.groupItem())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if t := p.peek(); isKw(t, "HAVING") {
		p.next()
		s.HavingPos = p.pos(t)
		s.Having = p.expr()
	}
	if t := p.peek(); isKw(t, "WINDOW") {
		p.next()
		s.WindowPos = p.pos(t)
		seen := map[string]bool{}
		for {
			name := p.ident()
			if seen[name.Name] {
				p.fail(name.Pos, ErrSyntax, "duplicate window name '%s'", name.Name)
			}
			seen[name.Name] = true
			p.expectKw("AS")
			s.Windows = append(s.Windows, &NamedWindow{Pos: name.Pos, Name: name, Spec: p.windowSpec()})
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if t := p.peek(); isKw(t, "QUALIFY") {
		p.unsupported(t, "QUALIFY")
	}
	return s
}

// groupItem parses one element of GROUP BY, GROUPING SETS, ROLLUP or CUBE.
func (p *parser) groupItem() GroupItem {
	p.enter()
	defer p.leave()
	t := p.peek()
	pos := p.pos(t)
	switch {
	case isKw(t, "GROUPING") && p.isKwAt(1, "SETS"):
		p.next()
		p.next()
		p.expectOp("(")
		g := GroupItem{Pos: pos, Kind: GroupingSets}
		for {
			g.Items = append(g.Items, p.groupItem())
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		return g
	case (isKw(t, "ROLLUP") || isKw(t, "CUBE")) && p.peekAt(1).kind == tOp && p.peekAt(1).val == "(":
		kind := Rollup
		if isKw(t, "CUBE") {
			kind = Cube
		}
		p.next()
		p.next()
		g := GroupItem{Pos: pos, Kind: kind}
		for {
			it := p.groupItem()
			if it.Kind != GroupExpr && it.Kind != GroupList {
				p.fail(it.Pos, ErrSyntax, "%s takes expressions and parenthesised lists of expressions, not %s", kind, it.Kind)
			}
			g.Items = append(g.Items, it)
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		return g
	case t.kind == tOp && t.val == "(" && p.peekAt(1).kind == tOp && p.peekAt(1).val == ")":
		p.next()
		p.next()
		return GroupItem{Pos: pos, Kind: GroupList}
	}
	e := p.expr()
	// (a, b) is a grouping set of a and b, not a ROW value; the expression
	// parser made it a ROW call at the '('.
	if c, ok := e.(*Call); ok && t.kind == tOp && t.val == "(" && c.Name == "ROW" && c.Pos == pos {
		g := GroupItem{Pos: pos, Kind: GroupList}
		for _, a := range c.Args {
			g.Items = append(g.Items, GroupItem{Pos: a.Position(), Kind: GroupExpr, Expr: a})
		}
		return g
	}
	return GroupItem{Pos: e.Position(), Kind: GroupExpr, Expr: e}
}

// windowSpec parses ([base] [PARTITION BY ...] [ORDER BY ...] [frame]).
func (p *parser) windowSpec() *WindowSpec {
	p.enter()
	defer p.leave()
	open := p.expectOp("(")
	w := &WindowSpec{Pos: p.pos(open)}
	if t := p.peek(); isIdent(t) && !isKw(t, "ROWS") && !isKw(t, "RANGE") {
		p.next()
		w.Ref, w.RefPos = t.val, p.pos(t)
	}
	if p.isKw("PARTITION") {
		p.next()
		p.expectKw("BY")
		for {
			w.PartitionBy = append(w.PartitionBy, p.expr())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.isKw("ORDER") {
		p.next()
		p.expectKw("BY")
		w.OrderBy = p.orderItems()
	}
	if t := p.peek(); isKw(t, "ROWS") || isKw(t, "RANGE") {
		p.next()
		f := &Frame{Pos: p.pos(t)}
		if isKw(t, "RANGE") {
			f.Unit = FrameRange
		}
		if p.acceptKw("BETWEEN") {
			f.Start = p.frameBound()
			p.expectKw("AND")
			f.End = p.frameBound()
		} else {
			f.Start = p.frameBound()
			f.End = FrameBound{Pos: f.Start.Pos, Kind: CurrentRow}
		}
		w.Frame = f
	}
	if !p.isOp(")") {
		p.failExpected("PARTITION BY, ORDER BY, ROWS, RANGE or ')' in the window")
	}
	p.next()
	return w
}

// frameBound parses UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW or
// offset PRECEDING|FOLLOWING.
func (p *parser) frameBound() FrameBound {
	t := p.peek()
	b := FrameBound{Pos: p.pos(t)}
	switch {
	case isKw(t, "UNBOUNDED"):
		p.next()
		switch {
		case p.acceptKw("PRECEDING"):
			b.Kind = UnboundedPreceding
		case p.acceptKw("FOLLOWING"):
			b.Kind = UnboundedFollowing
		default:
			p.failExpected("PRECEDING or FOLLOWING after UNBOUNDED")
		}
		return b
	case isKw(t, "CURRENT") && p.isKwAt(1, "ROW"):
		p.next()
		p.next()
		b.Kind = CurrentRow
		return b
	}
	b.Offset = p.additive()
	switch {
	case p.acceptKw("PRECEDING"):
		b.Kind = Preceding
	case p.acceptKw("FOLLOWING"):
		b.Kind = Following
	default:
		p.failExpected("PRECEDING or FOLLOWING after the frame offset")
	}
	return b
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

// fromClause parses a FROM list: table references joined by commas and
// JOIN operators, nested to the left.
func (p *parser) fromClause() TableRef {
	left := p.tableRef()
	for {
		t := p.peek()
		if t.kind == tOp && t.val == "," {
			p.next()
			left = &Join{Pos: p.pos(t), Kind: JoinComma, Left: left, Right: p.tableRef()}
			continue
		}
		natural := p.acceptKw("NATURAL")
		kind, ok := p.joinOperator()
		if !ok {
			if natural {
				p.failExpected("JOIN after NATURAL")
			}
			return left
		}
		if natural && kind == JoinCross {
			p.fail(p.pos(t), ErrSyntax, "NATURAL CROSS JOIN is not a join: write NATURAL JOIN or CROSS JOIN")
		}
		j := &Join{Pos: p.pos(t), Kind: kind, Natural: natural, Left: left, Right: p.tableRef()}
		switch u := p.peek(); {
		case natural:
			if isKw(u, "ON") || isKw(u, "USING") {
				p.failTok(u, "a NATURAL join takes no %s clause: it joins on the columns both inputs name", strings.ToUpper(u.val))
			}
		case isKw(u, "ON"):
			if kind == JoinCross {
				p.failTok(u, "CROSS JOIN takes no ON condition; write JOIN ... ON")
			}
			p.next()
			j.On = p.expr()
		case isKw(u, "USING"):
			if kind == JoinCross {
				p.failTok(u, "CROSS JOIN takes no USING clause; write JOIN ... USING")
			}
			p.next()
			j.Using = p.identList()
		default:
			if kind != JoinCross {
				p.failExpected("ON or USING after " + kind.String() + " " + describeRef(j.Right))
			}
		}
		left = j
	}
}

// describeRef names a FROM item for error messages.
func describeRef(r TableRef) string {
	switch r := r.(type) {
	case *TableName:
		return r.Name.String()
	case *Subquery:
		return "(subquery)"
	case *TableFunc:
		return "TABLE(" + r.Name.String() + "(...))"
	case *Unnest:
		return "UNNEST(...)"
	}
	return "(...)"
}

// joinOperator parses the keywords of a join operator up to JOIN and
// returns its kind; ok is false, and nothing is read, when the next token
// does not start one.
func (p *parser) joinOperator() (kind JoinKind, ok bool) {
	t := p.peek()
	n := 1 // keywords before JOIN
	switch {
	case isKw(t, "JOIN"):
		kind, n = JoinInner, 0
	case isKw(t, "INNER"):
		kind = JoinInner
	case isKw(t, "CROSS"):
		kind = JoinCross
	case isKw(t, "LEFT"), isKw(t, "RIGHT"), isKw(t, "FULL"):
		kind = map[string]JoinKind{"LEFT": JoinLeft, "RIGHT": JoinRight, "FULL": JoinFull}[strings.ToUpper(t.val)]
		if p.isKwAt(1, "OUTER") {
			n = 2
		}
	default:
		return 0, false
	}
	p.i += n
	p.expectKw("JOIN")
	return kind, true
}

func (p *parser) tableRef() TableRef {
	p.enter()
	defer p.leave()
	t := p.peek()
	switch {
	case isKw(t, "LATERAL"):
		p.next()
		switch {
		case p.isKw("TABLE") && p.peekAt(1).kind == tOp && p.peekAt(1).val == "(":
			return p.tableFunc(t, true)
		case p.isOp("(") && p.startsQueryAt(1):
			return p.subquery(t, true)
		}
		p.failExpected("TABLE(...) or a query in parentheses after LATERAL")
	case t.kind == tOp && t.val == "(":
		if p.startsQueryAt(1) {
			return p.subquery(t, false)
		}
		// A parenthesised join: FROM (a JOIN b ON ...) JOIN c ON ...
		p.next()
		j := p.fromClause()
		p.expectOp(")")
		if _, ok := j.(*Join); !ok {
			p.fail(j.Position(), ErrSyntax, "only a query or a join may be put in parentheses in FROM")
		}
		return j
	case isKw(t, "TABLE") && p.peekAt(1).kind == tOp && p.peekAt(1).val == "(":
		return p.tableFunc(t, false)
	case isKw(t, "UNNEST") && p.peekAt(1).kind == tOp && p.peekAt(1).val == "(":
		p.next()
		p.next()
		u := &Unnest{Pos: p.pos(t), Exprs: p.exprList(")")}
		if p.isKw("WITH") && p.isKwAt(1, "ORDINALITY") {
			p.next()
			p.next()
			u.WithOrdinality = true
		}
		u.Alias, u.ColumnAliases = p.alias()
		return u
	}
	tn := &TableName{Pos: p.pos(t), Name: p.objectName()}
	if p.isOp("(") {
		p.unsupported(p.peek(), "table functions in FROM without TABLE(...)")
	}
	if p.peek().kind == tHintStart {
		tn.Hints, tn.OtherHints = p.tableHints()
	}
	if f := p.peek(); isKw(f, "FOR") && p.isKwAt(1, "SYSTEM_TIME") {
		p.next()
		p.next()
		p.expectKw("AS")
		p.expectKw("OF")
		tn.SystemTimePos = p.pos(f)
		tn.SystemTime = p.expr()
	}
	p.rejectMatchRecognize()
	tn.Alias, tn.ColumnAliases = p.alias()
	return tn
}

func (p *parser) rejectMatchRecognize() {
	if t := p.peek(); isKw(t, "MATCH_RECOGNIZE") {
		p.unsupported(t, "MATCH_RECOGNIZE")
	}
}

// subquery parses [LATERAL] (query) [[AS] alias [(columns)]]; start is
// LATERAL or the '('.
func (p *parser) subquery(start token, lateral bool) TableRef {
	p.expectOp("(")
	sq := &Subquery{Pos: p.pos(start), Lateral: lateral, Query: p.query()}
	p.expectOp(")")
	p.rejectMatchRecognize()
	sq.Alias, sq.ColumnAliases = p.alias()
	return sq
}

// tableFunc parses [LATERAL] TABLE(name(args)) [[AS] alias [(columns)]];
// start is LATERAL or TABLE.
func (p *parser) tableFunc(start token, lateral bool) TableRef {
	p.expectKw("TABLE")
	p.expectOp("(")
	tf := &TableFunc{Pos: p.pos(start), Lateral: lateral, Name: p.functionName()}
	if !p.isOp("(") {
		p.failExpected("'(' after the table function's name")
	}
	p.next()
	if !p.acceptOp(")") {
		for {
			tf.Args = append(tf.Args, p.funcArg())
			if p.acceptOp(",") {
				continue
			}
			if !p.isOp(")") {
				p.failExpected("',' or ')' in the arguments of " + tf.Name.String())
			}
			p.next()
			break
		}
	}
	p.expectOp(")")
	tf.Alias, tf.ColumnAliases = p.alias()
	return tf
}

// functionName parses a possibly qualified function name; unquoted parts
// are upper-cased, as scalar call names are.
func (p *parser) functionName() ObjectName {
	start := p.i
	n := p.objectName()
	for i := range n.Parts {
		if p.toks[start+2*i].kind == tIdent {
			n.Parts[i].Name = strings.ToUpper(n.Parts[i].Name)
		}
	}
	return n
}

// funcArg parses one table function argument: [name =>] value, where the
// value is TABLE name, a query in parentheses (each with PARTITION BY and
// ORDER BY), DESCRIPTOR(cols) or an expression.
func (p *parser) funcArg() FuncArg {
	p.enter()
	defer p.leave()
	t := p.peek()
	a := FuncArg{Pos: p.pos(t)}
	if (t.kind == tIdent || t.kind == tQIdent) && p.peekAt(1).kind == tOp && p.peekAt(1).val == "=>" {
		p.next()
		p.next()
		a.Name = Ident{Pos: p.pos(t), Name: t.val}
		t = p.peek()
	}
	switch {
	case isKw(t, "TABLE"):
		p.next()
		if p.isOp("(") {
			p.failTok(p.peek(), "TABLE takes a table or view name; pass a query as (SELECT ...) without TABLE, as Flink does")
		}
		ta := &TableArg{Pos: p.pos(t), Name: p.objectName()}
		p.tableArgTail(ta)
		a.Table = ta
	case t.kind == tOp && t.val == "(" && p.startsQueryAt(1) && !(p.peekAt(1).kind == tOp):
		p.next()
		ta := &TableArg{Pos: p.pos(t), Query: p.query()}
		p.expectOp(")")
		p.tableArgTail(ta)
		a.Table = ta
	case isKw(t, "DESCRIPTOR") && p.peekAt(1).kind == tOp && p.peekAt(1).val == "(":
		p.next()
		a.Descriptor = &Descriptor{Pos: p.pos(t), Columns: p.identList()}
	default:
		a.Expr = p.expr()
	}
	return a
}

// tableArgTail parses the PARTITION BY and ORDER BY of a table argument:
// a single column, or a parenthesised list.
func (p *parser) tableArgTail(ta *TableArg) {
	if t := p.peek(); isKw(t, "PARTITION") {
		p.next()
		p.expectKw("BY")
		ta.PartitionPos = p.pos(t)
		var list []Expr
		if p.acceptOp("(") {
			list = p.exprList(")")
		} else {
			list = []Expr{p.expr()}
		}
		for _, e := range list {
			if _, ok := e.(*ColumnRef); !ok {
				p.fail(e.Position(), ErrSyntax, "PARTITION BY of a table argument takes column names")
			}
		}
		ta.PartitionBy = list
	}
	if t := p.peek(); isKw(t, "ORDER") && p.isKwAt(1, "BY") {
		p.next()
		p.next()
		ta.OrderPos = p.pos(t)
		if p.acceptOp("(") {
			ta.OrderBy = p.orderItems()
			p.expectOp(")")
		} else {
			ta.OrderBy = []OrderItem{p.orderItem()}
		}
	}
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
