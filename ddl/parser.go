package ddl

import (
	"fmt"
	"os"
	"strings"
)

// maxDepth bounds the nesting of expressions, types and queries so that
// hostile input cannot exhaust the stack.
const maxDepth = 200

// reserved are the keywords that cannot be used as unquoted identifiers
// (column names, aliases). It is smaller than Flink's list: a word is
// reserved here only where treating it as a name would make the grammar
// ambiguous.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`ALL AND AS BETWEEN BY CASE CAST CONSTRAINT CREATE CROSS
		DISTINCT DROP ELSE END EXCEPT EXISTS FALSE FETCH FOR FROM FULL GROUP HAVING IN INNER
		INSERT INTERSECT INTERVAL IS JOIN LEFT LIKE LIMIT MINUS NATURAL NOT NULL OFFSET ON OR
		ORDER OUTER OVER PARTITION PRIMARY QUALIFY RIGHT SELECT SET SIMILAR TABLE THEN TRUE
		UNION UNKNOWN USING VALUES WHEN WHERE WINDOW WITH LATERAL ESCAPE TRY_CAST`) {
		m[w] = true
	}
	return m
}()

// bailout is the panic value the parser uses to unwind after recording its
// first error; Parse recovers only this value.
type bailout struct{}

type parser struct {
	src   *source
	toks  []token
	i     int
	depth int
	err   *Error
	inSet bool // inside a statement set, for error recovery

	// What the parser has learnt of the current statement, for the
	// Failure that describes it if it does not parse.
	kind StatementKind
	name ObjectName
	key  string
	// keyed is set once a SET or RESET's key (possibly none) is read.
	keyed bool
	// nameEnd is the offset in the original text where the name or key
	// read ends.
	nameEnd int
}

// maxErrors bounds how many statement errors Parse reports.
const maxErrors = 10

// Parse parses the text of a job file named name (used in error messages)
// into statements, after replacing ${NAME} and ${NAME:-default} from cfg.
//
// Errors are *Error values wrapping ErrSyntax, ErrUnsupported or
// ErrUndefinedVariable. A statement with an error is skipped (up to its
// ';', or the END of its statement set) and parsing goes on, so that one
// run reports the first error of each failing statement: a single error is
// returned as an *Error, several as an ErrorList. A statement that uses an
// undefined variable fails with that error (unless it has a syntax error
// before it). No statements are returned when there is an error; ParseAll
// returns those that parsed too.
func Parse(name, text string, cfg Config) ([]Statement, error) {
	r := ParseAll(name, text, cfg)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return r.Statements, nil
}

// ErrorList is the error Parse returns when several statements fail: the
// first error of each, in source order (at most ten). errors.As with an
// *Error target finds the first one.
type ErrorList []*Error

// Error returns the errors' texts, one after the other.
func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// ParseFile reads and parses the job file at path, substituting ${NAME}
// from cfg.
func ParseFile(path string, cfg Config) ([]Statement, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ddl: %w", err)
	}
	return Parse(path, string(b), cfg)
}

// ParseExpr parses a single scalar expression, as written in a computed
// column or a WHERE clause. No ${NAME} substitution is done; name is used
// in error messages.
func ParseExpr(name, text string) (Expr, error) {
	src := newSource(name, text)
	p := &parser{src: src, toks: lex(text)}
	var e Expr
	if !p.run(func() {
		e = p.expr()
		p.expectEOF()
	}) {
		return nil, p.err
	}
	return e, nil
}

// run calls f and reports whether it finished without a parse error.
func (p *parser) run(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(bailout); !is {
				panic(r)
			}
			ok = false
		}
	}()
	f()
	return true
}

// ---- token helpers ----

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind == tIllegal {
		p.failTok(t, "%s", t.val)
	}
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) pos(t token) Pos { return p.src.pos(t.off) }

func isKw(t token, kw string) bool { return t.kind == tIdent && strings.EqualFold(t.val, kw) }

func (p *parser) isKw(kw string) bool { return isKw(p.peek(), kw) }

func (p *parser) isKwAt(n int, kw string) bool { return isKw(p.peekAt(n), kw) }

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tOp && t.val == op
}

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKw(kw string) token {
	if !p.isKw(kw) {
		p.failExpected(kw)
	}
	return p.next()
}

func (p *parser) expectOp(op string) token {
	if !p.isOp(op) {
		p.failExpected("'" + op + "'")
	}
	return p.next()
}

func (p *parser) expectEOF() {
	if p.peek().kind != tEOF {
		p.failExpected("end of input")
	}
}

// describe names a token for error messages.
func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return "string '" + truncate(t.val) + "'"
	case tNumber:
		return "number " + t.val
	case tQIdent:
		return "identifier `" + truncate(t.val) + "`"
	case tHintStart:
		return "hint '/*+'"
	case tHintEnd:
		return "'*/'"
	case tBinary:
		return "binary literal"
	}
	return "'" + truncate(t.val) + "'"
}

func truncate(s string) string {
	if len(s) > 40 {
		cut := 40
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		return s[:cut] + "..."
	}
	return s
}

// ---- errors ----

func (p *parser) fail(pos Pos, class error, format string, args ...any) {
	if p.err == nil {
		p.err = p.src.errorAt(pos, class, fmt.Sprintf(format, args...))
	}
	panic(bailout{})
}

func (p *parser) failTok(t token, format string, args ...any) {
	p.fail(p.pos(t), ErrSyntax, format, args...)
}

func (p *parser) failExpected(what string) {
	t := p.peek()
	if t.kind == tIllegal {
		p.failTok(t, "%s", t.val)
	}
	if t.kind == tEOF && p.i > 0 {
		// Point just after the last token rather than at the end of the
		// file, which is often on a later, empty line.
		p.fail(p.src.pos(p.toks[p.i-1].end), ErrSyntax, "expected %s, found %s", what, describe(t))
	}
	p.failTok(t, "expected %s, found %s", what, describe(t))
}

// unsupported fails with ErrUnsupported at t: "<what> is not supported yet".
func (p *parser) unsupported(t token, what string) {
	p.fail(p.pos(t), ErrUnsupported, "%s is not supported yet", what)
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.failTok(p.peek(), "nesting deeper than %d levels", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// ---- names and literals ----

// isIdent reports whether t can be an identifier (quoted, or unquoted and
// not reserved).
func isIdent(t token) bool {
	return t.kind == tQIdent || t.kind == tIdent && !reserved[strings.ToUpper(t.val)]
}

func (p *parser) ident() Ident {
	t := p.peek()
	if !isIdent(t) {
		if t.kind == tIdent {
			p.failTok(t, "expected an identifier, found reserved word %s (quote it as `%s` to use it as a name)", strings.ToUpper(t.val), t.val)
		}
		p.failExpected("an identifier")
	}
	p.next()
	return Ident{Pos: p.pos(t), Name: t.val}
}

func (p *parser) objectName() ObjectName {
	first := p.ident()
	n := ObjectName{Pos: first.Pos, Parts: []Ident{first}}
	for p.isOp(".") {
		dot := p.next()
		if len(n.Parts) == 3 {
			p.failTok(dot, "a name has at most three parts (catalog.database.object)")
		}
		n.Parts = append(n.Parts, p.ident())
	}
	return n
}

func (p *parser) identList() []Ident {
	p.expectOp("(")
	var ids []Ident
	seen := map[string]bool{}
	for {
		id := p.ident()
		if seen[id.Name] {
			p.fail(id.Pos, ErrSyntax, "duplicate column '%s' in the list", id.Name)
		}
		seen[id.Name] = true
		ids = append(ids, id)
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return ids
}

func (p *parser) stringLit(what string) (string, Pos) {
	t := p.peek()
	if t.kind != tString {
		p.failExpected(what)
	}
	p.next()
	return t.val, p.pos(t)
}

// options parses ( 'k' = 'v', ... ) and rejects duplicate keys.
func (p *parser) options(what string) []Option {
	p.expectOp("(")
	opts := []Option{}
	seen := map[string]Pos{}
	if p.acceptOp(")") {
		return opts
	}
	for {
		var o Option
		if isIdent(p.peek()) && p.peekAt(1).kind == tOp && (p.peekAt(1).val == "=" || p.peekAt(1).val == ".") {
			p.failTok(p.peek(), "%s keys must be string literals: write '%s'", what, p.peek().val)
		}
		o.Key, o.KeyPos = p.stringLit(what + " key (a string literal such as 'connector')")
		if first, dup := seen[o.Key]; dup {
			p.fail(o.KeyPos, ErrSyntax, "duplicate %s key '%s' (first set at line %d)", what, o.Key, first.Line)
		}
		seen[o.Key] = o.KeyPos
		p.expectOp("=")
		if t := p.peek(); t.kind == tNumber || t.kind == tIdent {
			p.failTok(t, "%s values must be string literals: write '%s'", what, t.val)
		}
		o.Value, o.ValuePos = p.stringLit(what + " value (a string literal)")
		opts = append(opts, o)
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return opts
}

// ---- file and statements ----

func (p *parser) file() *Result {
	r := &Result{}
	undefined := p.src.undefined
	// undefinedUpTo takes the references to undefined variables up to
	// offset end and returns the first.
	undefinedUpTo := func(end int) *Error {
		var first *Error
		for len(undefined) > 0 && undefined[0].off <= end {
			if first == nil {
				first = undefined[0].err
			}
			undefined = undefined[1:]
		}
		return first
	}
	// add records a failure and reports whether parsing must stop.
	add := func(f Failure) bool {
		r.Failures = append(r.Failures, f)
		return len(r.Failures) == maxErrors
	}
	for {
		for p.acceptOp(";") {
		}
		if p.peek().kind == tEOF {
			// References after the last statement.
			for i, u := range undefined {
				if add(Failure{Err: u.err}) {
					r.Truncated = i < len(undefined)-1
					break
				}
			}
			return r
		}
		p.kind, p.name, p.key, p.keyed, p.nameEnd = KindUnknown, ObjectName{}, "", false, 0
		var done Statement
		ok := p.run(func() {
			done = p.statement()
			if t := p.peek(); t.kind != tEOF && !p.isOp(";") {
				if t.kind == tIllegal {
					p.failTok(t, "%s", t.val)
				}
				// Point where the ';' is missing, after the statement.
				p.fail(p.src.pos(p.toks[p.i-1].end), ErrSyntax, "expected ';' after the statement, found %s", describe(t))
			}
		})
		f := Failure{Err: p.err, Kind: p.kind, Name: p.name, Key: p.key, KeyKnown: p.keyed}
		kept := ok
		if !ok {
			if done != nil && startsStatement(p.peek()) {
				// Only the ';' is missing: keep the statement and go on
				// with the next one.
				kept = true
			} else {
				p.skipStatement()
			}
		}
		// A statement with an undefined variable fails with that error,
		// unless a syntax error before the reference made it fail.
		if u := undefinedUpTo(p.peek().off); u != nil && (kept || u.Offset <= f.Err.Offset) {
			f.Err, kept = u, false
			if u.Offset < p.nameEnd {
				// The name or key read came (in part) from the variable.
				f.Name, f.Key, f.KeyKnown = ObjectName{}, "", false
			}
		}
		p.err, p.depth, p.inSet = nil, 0, false
		if kept {
			r.Statements = append(r.Statements, done)
			if ok && f.Err == nil {
				continue
			}
			f.Statement = done
		}
		if add(f) {
			for p.acceptOp(";") {
			}
			r.Truncated = p.peek().kind != tEOF || len(undefined) > 0
			return r
		}
	}
}

// setName records the name of the statement being parsed, just read.
func (p *parser) setName(n ObjectName) {
	p.name, p.nameEnd = n, p.src.origOffset(p.toks[p.i-1].end)
}

// setKey records the key of the SET or RESET being parsed, just read.
func (p *parser) setKey(k string) {
	p.key, p.keyed, p.nameEnd = k, true, p.src.origOffset(p.toks[p.i-1].end)
}

// skipStatement moves past the statement in which an error occurred: to its
// ';', or past the END of the statement set it was in.
func (p *parser) skipStatement() {
	p.err, p.depth = nil, 0
	if p.inSet {
		p.inSet = false
		for t := p.peek(); t.kind != tEOF && !isKw(t, "END"); t = p.peek() {
			p.i++
		}
	}
	for t := p.peek(); t.kind != tEOF && !(t.kind == tOp && t.val == ";"); t = p.peek() {
		p.i++
	}
}

// startsStatement reports whether t can begin a statement.
func startsStatement(t token) bool {
	if t.kind == tOp {
		return t.val == "("
	}
	switch strings.ToUpper(t.val) {
	case "SET", "RESET", "CREATE", "DROP", "USE", "REPLACE", "INSERT", "EXECUTE", "BEGIN", "EXPLAIN", "SELECT", "VALUES", "WITH":
		return t.kind == tIdent
	}
	return false
}

// statementKeywords lists, for error messages, what may start a statement.
const statementKeywords = "CREATE, DROP, USE, SET, RESET, INSERT, EXECUTE STATEMENT SET, BEGIN STATEMENT SET, EXPLAIN, SELECT or VALUES"

func (p *parser) statement() Statement {
	t := p.peek()
	if t.kind == tIllegal {
		p.next()
	}
	if t.kind == tOp && t.val == "(" {
		p.kind = KindQuery
		return p.queryStatement()
	}
	if t.kind != tIdent {
		p.failTok(t, "expected a statement (%s), found %s", statementKeywords, describe(t))
	}
	switch kw := strings.ToUpper(t.val); kw {
	case "SET":
		p.kind = KindSet
		return p.set()
	case "RESET":
		p.kind = KindReset
		return p.reset()
	case "CREATE":
		p.kind = KindCreate
		return p.create()
	case "DROP":
		p.kind = KindDrop
		return p.drop()
	case "INSERT":
		p.kind = KindInsert
		return p.insert()
	case "EXECUTE":
		if p.isKwAt(1, "STATEMENT") {
			p.kind = KindStatementSet
			return p.statementSet()
		}
		if p.isKwAt(1, "INSERT") {
			p.kind = KindInsert
			p.next()
			return p.insert()
		}
		p.unsupported(t, "EXECUTE "+strings.ToUpper(p.peekAt(1).val))
	case "BEGIN":
		p.kind = KindStatementSet
		return p.statementSet()
	case "EXPLAIN":
		p.kind = KindExplain
		return p.explain()
	case "SELECT", "VALUES", "WITH":
		p.kind = KindQuery
		return p.queryStatement()
	case "USE":
		return p.use()
	case "REPLACE":
		p.kind = KindCreateTable
		start := p.next()
		if !p.isKw("TABLE") {
			p.failExpected("TABLE after REPLACE")
		}
		return p.replaceTable(start, ReplaceExisting)
	case "ADD", "REMOVE":
		if p.isKwAt(1, "JAR") {
			return p.jar()
		}
		p.unsupported(t, "the "+kw+" statement")
	case "DESCRIBE", "DESC":
		p.kind = KindQuery
		start := p.next()
		p.acceptKw("EXTENDED")
		return &Describe{Pos: p.pos(start), Name: p.objectName()}
	case "SHOW":
		p.kind = KindQuery
		return p.show()
	case "ALTER":
		if p.isKwAt(1, "TABLE") {
			p.kind = KindCreateTable
			return p.alterTable()
		}
		if p.isKwAt(1, "VIEW") {
			p.kind = KindCreateView
			return p.alterView()
		}
		p.unsupported(t, "ALTER "+strings.ToUpper(p.peekAt(1).val))
	case "LOAD", "UNLOAD":
		if p.isKwAt(1, "MODULE") {
			return p.module()
		}
		p.unsupported(t, "the "+kw+" statement")
	case "CALL",
		"DELETE", "UPDATE", "TRUNCATE", "ANALYZE", "SAVEPOINT", "STOP", "COMPILE":
		p.unsupported(t, "the "+kw+" statement")
	case "END":
		p.failTok(t, "END without a statement set (BEGIN STATEMENT SET; or EXECUTE STATEMENT SET BEGIN)")
	}
	hint := ""
	if s := suggest(strings.ToUpper(t.val), []string{"CREATE", "DROP", "USE", "SET", "RESET", "INSERT", "EXECUTE", "BEGIN", "EXPLAIN", "SELECT", "VALUES"}); s != "" {
		hint = " (did you mean " + s + "?)"
	}
	p.failTok(t, "unknown statement %s%s; expected %s", describe(t), hint, statementKeywords)
	return nil
}

func (p *parser) set() Statement {
	start := p.next()
	s := &Set{Pos: p.pos(start)}
	if p.isOp(";") || p.peek().kind == tEOF {
		return s
	}
	if p.peek().kind == tString {
		s.Key, s.KeyPos = p.stringLit("a property key")
		p.setKey(s.Key)
		p.expectOp("=")
		s.Value, s.ValuePos = p.stringLit("a property value (a string literal such as '10s')")
		return s
	}
	// Flink 1.13 form: SET key = value, both free-form up to ';'. A value
	// that is one string literal is unquoted.
	s.Key, s.KeyPos = p.rawUntil("=", "a property key")
	p.expectOp("=")
	p.setKey(s.Key) // known to be the key only once the '=' is there
	if v := p.peek(); v.kind == tString && (p.peekAt(1).kind == tEOF || p.peekAt(1).kind == tOp && p.peekAt(1).val == ";") {
		p.next()
		s.Value, s.ValuePos = v.val, p.pos(v)
		return s
	}
	s.Value, s.ValuePos = p.rawUntil(";", "a property value")
	return s
}

// rawUntil returns the source text from the current token up to (not
// including) the operator stop, or the end of input, trimmed.
func (p *parser) rawUntil(stop, what string) (string, Pos) {
	first := p.peek()
	end := first.off
	for {
		t := p.peek()
		if t.kind == tEOF || t.kind == tOp && (t.val == stop || t.val == ";") {
			break
		}
		end = t.end
		p.i++
	}
	if end == first.off {
		p.failExpected(what)
	}
	return strings.TrimSpace(p.src.text[first.off:end]), p.pos(first)
}

func (p *parser) reset() Statement {
	start := p.next()
	r := &Reset{Pos: p.pos(start)}
	if p.isOp(";") || p.peek().kind == tEOF {
		return r
	}
	if p.peek().kind == tString {
		r.Key, r.KeyPos = p.stringLit("a property key")
	} else {
		r.Key, r.KeyPos = p.rawUntil(";", "a property key")
	}
	p.setKey(r.Key)
	return r
}

func (p *parser) create() Statement {
	start := p.next()
	if p.isKw("OR") {
		p.next()
		p.expectKw("REPLACE")
		if !p.isKw("TABLE") {
			p.unsupported(start, "CREATE OR REPLACE "+strings.ToUpper(p.peek().val))
		}
		p.kind = KindCreateTable
		return p.replaceTable(start, CreateOrReplace)
	}
	temporary := p.acceptKw("TEMPORARY")
	system := temporary && p.acceptKw("SYSTEM")
	t := p.peek()
	if system && !isKw(t, "FUNCTION") {
		p.failExpected("FUNCTION after CREATE TEMPORARY SYSTEM")
	}
	switch {
	case isKw(t, "FUNCTION"):
		return p.createFunction(start, temporary, system)
	case isKw(t, "TABLE"):
		p.kind = KindCreateTable
		return p.createTable(start, temporary)
	case isKw(t, "VIEW"):
		p.kind = KindCreateView
		return p.createView(start, temporary)
	case temporary && (isKw(t, "CATALOG") || isKw(t, "DATABASE")):
		p.failExpected("TABLE, VIEW or FUNCTION after CREATE TEMPORARY")
	case isKw(t, "CATALOG"):
		return p.createCatalog(start)
	case isKw(t, "DATABASE"):
		return p.createDatabase(start)
	case isKw(t, "MODEL"), isKw(t, "MATERIALIZED"):
		p.unsupported(start, "CREATE "+strings.ToUpper(t.val))
	}
	p.failExpected("TABLE or VIEW after CREATE")
	return nil
}

// createFunction parses the rest of CREATE [TEMPORARY [SYSTEM]] FUNCTION
// [IF NOT EXISTS] name AS 'class' [LANGUAGE lang] [USING JAR 'path', ...].
func (p *parser) createFunction(start token, temporary, system bool) Statement {
	p.next() // FUNCTION
	f := &CreateFunction{Pos: p.pos(start), Temporary: temporary, System: system}
	f.IfNotExists = p.ifNotExists()
	if system {
		// A system function's name has one part.
		f.Name = ObjectName{Pos: p.pos(p.peek())}
		f.Name.Parts = []Ident{p.ident()}
	} else {
		f.Name = p.objectName()
	}
	p.expectKw("AS")
	if t := p.peek(); t.kind == tIdent || t.kind == tQIdent {
		// Flink also takes the class name as a (dotted) identifier.
		f.ClassPos = p.pos(t)
		n := p.objectName()
		parts := make([]string, len(n.Parts))
		for i, id := range n.Parts {
			parts[i] = id.Name
		}
		f.Class = strings.Join(parts, ".")
	} else {
		f.Class, f.ClassPos = p.stringLit("the function's class name (a string literal)")
	}
	if p.acceptKw("LANGUAGE") {
		t := p.peek()
		if !isKw(t, "JAVA") && !isKw(t, "SCALA") && !isKw(t, "PYTHON") {
			p.failExpected("JAVA, SCALA or PYTHON after LANGUAGE")
		}
		p.next()
		f.Language = strings.ToUpper(t.val)
	}
	if p.acceptKw("USING") {
		for {
			p.expectKw("JAR")
			jar, _ := p.stringLit("the path of a JAR (a string literal)")
			f.Jars = append(f.Jars, jar)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	return f
}

func (p *parser) ifNotExists() bool {
	if p.isKw("IF") {
		p.next()
		p.expectKw("NOT")
		p.expectKw("EXISTS")
		return true
	}
	return false
}

// replaceTable parses the rest of [CREATE OR] REPLACE TABLE name ... AS
// query, from TABLE: a CREATE TABLE ... AS query that replaces the table.
func (p *parser) replaceTable(start token, mode ReplaceMode) Statement {
	if p.isKw("TABLE") && p.isKwAt(1, "IF") {
		p.failTok(p.peekAt(1), "%s TABLE takes no IF NOT EXISTS", mode)
	}
	ct := p.createTable(start, false).(*CreateTable)
	if ct.AsQuery == nil {
		p.fail(ct.Pos, ErrSyntax, "%s TABLE %s needs AS query (it replaces a table with the rows of a query)", mode, ct.Name)
	}
	ct.Replace = mode
	return ct
}

func (p *parser) createTable(start token, temporary bool) Statement {
	p.next() // TABLE
	ct := &CreateTable{Pos: p.pos(start), Temporary: temporary, src: p.src}
	ct.IfNotExists = p.ifNotExists()
	ct.Name = p.objectName()
	p.setName(ct.Name)
	if p.isOp("(") {
		p.tableElements(ct)
	}
	if p.acceptKw("COMMENT") {
		ct.Comment, _ = p.stringLit("a comment string")
	}
	if p.isKw("DISTRIBUTED") {
		p.unsupported(p.peek(), "DISTRIBUTED BY")
	}
	if t := p.peek(); isKw(t, "PARTITIONED") {
		p.next()
		p.expectKw("BY")
		ct.PartitionKeys = p.identList()
	}
	if p.acceptKw("WITH") {
		ct.Options = p.options("option")
	}
	if t := p.peek(); isKw(t, "LIKE") {
		p.next()
		ct.Like = &LikeClause{Pos: p.pos(t), Source: p.objectName()}
		if p.isOp("(") {
			ct.Like.Options = p.likeOptions()
		}
	}
	if t := p.peek(); isKw(t, "AS") {
		switch {
		case ct.Like != nil:
			p.failTok(t, "CREATE TABLE takes a LIKE clause or AS query, not both")
		}
		p.next()
		ct.AsPos = p.pos(p.peek())
		ct.AsQuery = p.query()
	}
	complete := len(ct.Columns) > 0 || ct.Options != nil || ct.Like != nil || ct.AsQuery != nil
	if t := p.peek(); t.kind != tEOF && !(t.kind == tOp && t.val == ";") && !(complete && t.kind == tIdent && startsStatement(t)) {
		// Before the keyword of another statement, only the ';' is
		// missing: the caller reports it and goes on with that statement.
		if !complete {
			p.failExpected("'(' starting the column list")
		}
		p.failExpected("';' after the statement")
	}
	if len(ct.Columns) == 0 && ct.Like == nil && ct.AsQuery == nil {
		p.fail(ct.Pos, ErrSyntax, "CREATE TABLE %s needs a column list, a LIKE clause or AS query", ct.Name)
	}
	for _, c := range ct.Columns {
		switch {
		case c.NameOnly && ct.AsQuery == nil:
			p.fail(c.TypePos, ErrSyntax, "expected the type of column '%s' (only CREATE TABLE ... AS query takes a list of the query's column names)", c.Name)
		case c.NameOnly != ct.Columns[0].NameOnly:
			p.fail(c.Pos, ErrSyntax, "the column list of CREATE TABLE ... AS query either names the query's columns (to order them) or defines columns with their types, not both")
		}
	}
	if ct.AsQuery != nil {
		return ct // the planner checks the columns against the query's
	}
	if err := ct.checkColumnRefs(); err != nil {
		p.err = err
		panic(bailout{})
	}
	return ct
}

// checkColumnRefs checks that the PRIMARY KEY, PARTITIONED BY and WATERMARK
// name declared columns, and makes primary key columns NOT NULL, as Flink
// does. With a LIKE clause, names that are not declared here may come from
// the source table, so only the declared ones are checked; MergeLike checks
// the merged schema.
func (ct *CreateTable) checkColumnRefs() *Error {
	byName := make(map[string]*Column, len(ct.Columns))
	for _, c := range ct.Columns {
		byName[c.Name] = c
	}
	missing := func(id Ident, what string) *Error {
		if ct.Like != nil {
			return nil
		}
		return ct.errorAt(id.Pos, fmt.Sprintf("%s column '%s' is not a column of %s%s", what, id.Name, ct.Name, didYouMean(id.Name, ct.Columns)))
	}
	if pk := ct.PrimaryKey; pk != nil {
		for _, id := range pk.Columns {
			c := byName[id.Name]
			switch {
			case c == nil:
				if err := missing(id, "PRIMARY KEY"); err != nil {
					return err
				}
			case c.Kind != PhysicalColumn:
				return ct.errorAt(id.Pos, fmt.Sprintf("PRIMARY KEY column '%s' is a %s column; a primary key must consist of physical columns", id.Name, c.Kind))
			default:
				c.Type.NotNull = true
			}
		}
	}
	for _, id := range ct.PartitionKeys {
		if byName[id.Name] == nil {
			if err := missing(id, "PARTITIONED BY"); err != nil {
				return err
			}
		}
	}
	if w := ct.Watermark; w != nil && byName[w.Column.Name] == nil {
		if err := missing(w.Column, "WATERMARK"); err != nil {
			return err
		}
	}
	return nil
}

func didYouMean(name string, cols []*Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	if s := suggest(name, names); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}

func (p *parser) tableElements(ct *CreateTable) {
	open := p.expectOp("(")
	seen := map[string]bool{}
	for {
		t := p.peek()
		switch {
		case isKw(t, "WATERMARK") && p.isKwAt(1, "FOR"):
			p.next()
			p.next()
			if ct.Watermark != nil {
				p.failTok(t, "a table can have only one WATERMARK (the first is at line %d)", ct.Watermark.Pos.Line)
			}
			w := &Watermark{Pos: p.pos(t), Column: p.ident()}
			if p.isOp(".") {
				p.unsupported(p.peek(), "WATERMARK on a nested field")
			}
			p.expectKw("AS")
			w.Expr = p.expr()
			ct.Watermark = w
		case isKw(t, "CONSTRAINT") || isKw(t, "PRIMARY") && p.isKwAt(1, "KEY"):
			pk := p.tableConstraint()
			if ct.PrimaryKey != nil {
				p.fail(pk.Pos, ErrSyntax, "a table can have only one PRIMARY KEY (the first is at line %d)", ct.PrimaryKey.Pos.Line)
			}
			ct.PrimaryKey = pk
		case isKw(t, "UNIQUE") || isKw(t, "FOREIGN") || isKw(t, "CHECK"):
			p.unsupported(t, strings.ToUpper(t.val)+" constraints")
		default:
			c := p.column(ct)
			if seen[c.Name] {
				p.fail(c.Pos, ErrSyntax, "duplicate column '%s'", c.Name)
			}
			seen[c.Name] = true
			ct.Columns = append(ct.Columns, c)
		}
		if !p.acceptOp(",") {
			break
		}
		if p.isOp(")") {
			p.failTok(p.peek(), "unexpected ')' after ',' in the column list of CREATE TABLE")
		}
	}
	if !p.isOp(")") {
		if p.peek().kind == tEOF {
			p.failTok(open, "unclosed '(' of the column list")
		}
		p.failExpected("',' or ')' in the column list")
	}
	p.next()
}

// tableConstraint parses [CONSTRAINT name] PRIMARY KEY (cols) NOT ENFORCED.
func (p *parser) tableConstraint() *PrimaryKey {
	t := p.peek()
	pk := &PrimaryKey{Pos: p.pos(t)}
	if p.acceptKw("CONSTRAINT") {
		pk.Name = p.ident().Name
		if u := p.peek(); isKw(u, "UNIQUE") || isKw(u, "FOREIGN") || isKw(u, "CHECK") {
			p.unsupported(u, strings.ToUpper(u.val)+" constraints")
		}
	}
	p.expectKw("PRIMARY")
	p.expectKw("KEY")
	pk.Columns = p.identList()
	p.notEnforced(pk.Pos)
	return pk
}

// notEnforced requires NOT ENFORCED after the PRIMARY KEY at pk.
func (p *parser) notEnforced(pk Pos) {
	t := p.peek()
	if isKw(t, "NOT") && p.isKwAt(1, "ENFORCED") {
		p.next()
		p.next()
		return
	}
	if isKw(t, "ENFORCED") {
		pk = p.pos(t)
	}
	p.fail(pk, ErrSyntax, "PRIMARY KEY must be declared NOT ENFORCED: streamsql, like Flink, does not own the data and cannot enforce the key")
}

func (p *parser) column(ct *CreateTable) *Column {
	name := p.ident()
	c := &Column{Pos: name.Pos, Name: name.Name}
	if p.isOp(",") || p.isOp(")") {
		// Only a CTAS allows it (createTable checks; TypePos is where
		// the type is missing).
		c.NameOnly, c.TypePos = true, p.pos(p.peek())
		return c
	}
	if p.acceptKw("AS") {
		c.Kind = ComputedColumn
		c.Expr = p.expr()
	} else {
		c.TypePos = p.pos(p.peek())
		c.Type = p.typ()
		if p.acceptKw("METADATA") {
			c.Kind = MetadataColumn
			if p.acceptKw("FROM") {
				c.MetadataKey, c.MetadataKeyPos = p.stringLit("a metadata key (a string literal such as 'timestamp')")
			}
			c.Virtual = p.acceptKw("VIRTUAL")
		}
		if t := p.peek(); isKw(t, "CONSTRAINT") || isKw(t, "PRIMARY") {
			pk := &PrimaryKey{Pos: p.pos(t)}
			if p.acceptKw("CONSTRAINT") {
				pk.Name = p.ident().Name
			}
			p.expectKw("PRIMARY")
			p.expectKw("KEY")
			p.notEnforced(pk.Pos)
			pk.Columns = []Ident{name}
			if ct.PrimaryKey != nil {
				p.fail(pk.Pos, ErrSyntax, "a table can have only one PRIMARY KEY (the first is at line %d)", ct.PrimaryKey.Pos.Line)
			}
			ct.PrimaryKey = pk
		}
	}
	if p.acceptKw("COMMENT") {
		c.Comment, _ = p.stringLit("a comment string")
	}
	return c
}

func (p *parser) likeOptions() []LikeOption {
	p.expectOp("(")
	var opts []LikeOption
	seen := map[LikeFeature]LikeStrategy{}
	for !p.isOp(")") {
		t := p.peek()
		var o LikeOption
		o.Pos = p.pos(t)
		switch {
		case isKw(t, "INCLUDING"):
			o.Strategy = LikeIncluding
		case isKw(t, "EXCLUDING"):
			o.Strategy = LikeExcluding
		case isKw(t, "OVERWRITING"):
			o.Strategy = LikeOverwriting
		default:
			p.failExpected("INCLUDING, EXCLUDING or OVERWRITING")
		}
		p.next()
		f := p.peek()
		found := false
		for i, n := range likeFeatureNames {
			if isKw(f, n) {
				o.Feature, found = LikeFeature(i), true
			}
		}
		if !found {
			if isKw(f, "DISTRIBUTION") {
				p.unsupported(f, "LIKE options for DISTRIBUTION")
			}
			p.failExpected("ALL, CONSTRAINTS, GENERATED, METADATA, OPTIONS, PARTITIONS or WATERMARKS")
		}
		p.next()
		if o.Strategy == LikeOverwriting && (o.Feature == LikeAll || o.Feature == LikeConstraints || o.Feature == LikePartitions) {
			p.fail(o.Pos, ErrSyntax, "OVERWRITING cannot be used with %s: use INCLUDING or EXCLUDING", o.Feature)
		}
		if _, dup := seen[o.Feature]; dup {
			p.fail(o.Pos, ErrSyntax, "LIKE option for %s given twice", o.Feature)
		}
		seen[o.Feature] = o.Strategy
		opts = append(opts, o)
	}
	p.next()
	return opts
}

func (p *parser) createView(start token, temporary bool) Statement {
	p.next() // VIEW
	v := &CreateView{Pos: p.pos(start), Temporary: temporary}
	v.IfNotExists = p.ifNotExists()
	v.Name = p.objectName()
	p.setName(v.Name)
	if p.isOp("(") {
		v.Columns = p.identList()
	}
	if p.acceptKw("COMMENT") {
		v.Comment, _ = p.stringLit("a comment string")
	}
	p.expectKw("AS")
	v.Query = p.query()
	return v
}

func (p *parser) drop() Statement {
	start := p.next()
	d := &Drop{Pos: p.pos(start)}
	d.Temporary = p.acceptKw("TEMPORARY")
	if d.Temporary && p.isKw("SYSTEM") && p.isKwAt(1, "FUNCTION") {
		p.next() // a temporary system function: one namespace here
	}
	t := p.peek()
	switch {
	case isKw(t, "FUNCTION"):
		d.Kind = DropFunction
	case isKw(t, "TABLE"):
		d.Kind = DropTable
	case isKw(t, "VIEW"):
		d.Kind = DropView
	case isKw(t, "DATABASE") && !d.Temporary:
		d.Kind = DropDatabase
	case isKw(t, "CATALOG") && !d.Temporary:
		d.Kind = DropCatalog
	case isKw(t, "CATALOG"), isKw(t, "DATABASE"), isKw(t, "SYSTEM"), isKw(t, "MODEL"):
		p.unsupported(start, "DROP "+strings.ToUpper(t.val))
	default:
		p.failExpected("TABLE, VIEW, FUNCTION, DATABASE or CATALOG after DROP")
	}
	p.next()
	if p.acceptKw("IF") {
		p.expectKw("EXISTS")
		d.IfExists = true
	}
	switch d.Kind {
	case DropCatalog:
		d.Name = p.namePartsUpTo(1, "a catalog's name has one part")
	case DropDatabase:
		d.Name = p.namePartsUpTo(2, "a database's name has at most two parts (catalog.database)")
		if p.acceptKw("CASCADE") {
			d.Cascade = true
		} else {
			p.acceptKw("RESTRICT")
		}
	default:
		d.Name = p.objectName()
		// Only a table's or view's name is a Failure's Name.
		p.setName(d.Name)
	}
	return d
}

// namePartsUpTo reads an object name of at most max parts; more is an
// error saying why.
func (p *parser) namePartsUpTo(max int, why string) ObjectName {
	first := p.ident()
	n := ObjectName{Pos: first.Pos, Parts: []Ident{first}}
	for p.isOp(".") {
		dot := p.next()
		if len(n.Parts) == max {
			p.failTok(dot, "%s", why)
		}
		n.Parts = append(n.Parts, p.ident())
	}
	return n
}

// createCatalog parses the rest of CREATE CATALOG [IF NOT EXISTS] name
// [COMMENT '...'] WITH (options).
func (p *parser) createCatalog(start token) Statement {
	p.next() // CATALOG
	c := &CreateCatalog{Pos: p.pos(start)}
	c.IfNotExists = p.ifNotExists()
	c.Name = p.namePartsUpTo(1, "a catalog's name has one part").Parts[0]
	if p.acceptKw("COMMENT") {
		c.Comment, _ = p.stringLit("a comment string")
	}
	p.expectKw("WITH")
	c.Options = p.options("option")
	return c
}

// createDatabase parses the rest of CREATE DATABASE [IF NOT EXISTS]
// [catalog.]name [COMMENT '...'] [WITH (options)].
func (p *parser) createDatabase(start token) Statement {
	p.next() // DATABASE
	d := &CreateDatabase{Pos: p.pos(start)}
	d.IfNotExists = p.ifNotExists()
	d.Name = p.namePartsUpTo(2, "a database's name has at most two parts (catalog.database)")
	if p.acceptKw("COMMENT") {
		d.Comment, _ = p.stringLit("a comment string")
	}
	if p.acceptKw("WITH") {
		d.Options = p.options("option")
	}
	return d
}

// module parses LOAD MODULE name [WITH (options)] and UNLOAD MODULE name.
func (p *parser) module() Statement {
	start := p.next()
	m := &Module{Pos: p.pos(start), Kind: LoadModule}
	if strings.EqualFold(start.val, "UNLOAD") {
		m.Kind = UnloadModule
	}
	p.next() // MODULE
	m.Names = []Ident{p.ident()}
	if m.Kind == LoadModule && p.acceptKw("WITH") {
		m.Options = p.options("option")
	}
	return m
}

// jar parses ADD JAR 'path' and REMOVE JAR 'path'.
func (p *parser) jar() Statement {
	start := p.next()
	j := &Jar{Pos: p.pos(start), Remove: strings.EqualFold(start.val, "REMOVE")}
	p.next() // JAR
	j.Path, _ = p.stringLit("the JAR's path (a string literal)")
	return j
}

// use parses USE CATALOG name and USE [catalog.]database; USE MODULES is
// not supported.
func (p *parser) use() Statement {
	start := p.next()
	u := &Use{Pos: p.pos(start)}
	if t := p.peek(); isKw(t, "MODULES") {
		p.next()
		m := &Module{Pos: u.Pos, Kind: UseModules, Names: []Ident{p.ident()}}
		for p.isOp(",") {
			p.next()
			m.Names = append(m.Names, p.ident())
		}
		return m
	}
	if t := p.peek(); isKw(t, "CATALOG") && (p.peekAt(1).kind == tIdent || p.peekAt(1).kind == tQIdent) {
		p.next()
		u.Catalog = true
		u.Name = p.namePartsUpTo(1, "a catalog's name has one part")
		return u
	}
	u.Name = p.namePartsUpTo(2, "a database's name has at most two parts (catalog.database)")
	return u
}

func (p *parser) insert() *Insert {
	start := p.expectKw("INSERT")
	if p.isKw("OVERWRITE") {
		p.unsupported(start, "INSERT OVERWRITE")
	}
	if !p.isKw("INTO") {
		p.failExpected("INTO after INSERT")
	}
	p.next()
	ins := &Insert{Pos: p.pos(start), Target: p.objectName()}
	if p.peek().kind == tHintStart {
		ins.Hints, ins.OtherHints = p.tableHints()
	}
	if p.acceptKw("PARTITION") {
		ins.Partition = p.partitionSpec()
	}
	if p.isOp("(") && !p.startsQueryAt(1) {
		ins.Columns = p.identList()
	}
	ins.Query = p.query()
	return ins
}

// partitionSpec parses the (column = literal, ...) of an INSERT's
// PARTITION.
func (p *parser) partitionSpec() []PartitionValue {
	p.expectOp("(")
	var out []PartitionValue
	for {
		pv := PartitionValue{Column: p.ident()}
		p.expectOp("=")
		pv.Value = p.expr()
		switch v := pv.Value.(type) {
		case *Literal:
		case *Unary:
			if l, ok := v.Expr.(*Literal); !ok || l.Kind != IntLit && l.Kind != DecimalLit && l.Kind != DoubleLit || v.Op == OpNot {
				p.fail(v.Position(), ErrSyntax, "a static partition value is a literal, such as '2019-08-30' or 10")
			}
		default:
			p.fail(pv.Value.Position(), ErrSyntax, "a static partition value is a literal, such as '2019-08-30' or 10")
		}
		out = append(out, pv)
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	p.expectOp(")")
	return out
}

// startsQueryAt reports whether the token n ahead starts a query.
func (p *parser) startsQueryAt(n int) bool {
	t := p.peekAt(n)
	return isKw(t, "SELECT") || isKw(t, "VALUES") || isKw(t, "WITH") || t.kind == tOp && t.val == "("
}

// tableHints parses the hint comment after a table name:
// /*+ OPTIONS('k' = 'v', ...) [, OPTIONS(...)] [, OTHER(...)] */. The
// entries of the OPTIONS hints are merged into opts (a key may be given
// once); the other hints are returned as they are.
func (p *parser) tableHints() (opts []Option, others []*Hint) {
	seen := map[string]bool{}
	for _, h := range p.hintComment(true) {
		if h.Name != "OPTIONS" {
			others = append(others, h)
			continue
		}
		for _, o := range h.Options {
			if seen[o.Key] {
				p.fail(o.KeyPos, ErrSyntax, "duplicate hint option key '%s'", o.Key)
			}
			seen[o.Key] = true
			opts = append(opts, o)
		}
	}
	return opts, others
}

// queryHints parses the hint comment after SELECT.
func (p *parser) queryHints() []*Hint { return p.hintComment(false) }

// hintComment parses /*+ hint [, hint ...] */. In a table hint comment
// (table set), OPTIONS takes only 'key' = 'value' entries, as Flink's
// dynamic table options do.
func (p *parser) hintComment(table bool) []*Hint {
	p.next() // /*+
	var hints []*Hint
	for {
		t := p.peek()
		if t.kind != tIdent && t.kind != tQIdent {
			p.failExpected("a hint name, such as OPTIONS")
		}
		h := &Hint{Pos: p.pos(t), Name: strings.ToUpper(t.val)}
		if t.kind == tQIdent {
			h.Name = t.val
		}
		p.next()
		switch {
		case table && h.Name == "OPTIONS":
			h.Options = p.options("hint option")
		case p.isOp("("):
			p.hintArgs(h)
		}
		hints = append(hints, h)
		if !p.acceptOp(",") {
			break
		}
	}
	if p.peek().kind != tHintEnd {
		p.failExpected("'*/' closing the hint")
	}
	p.next()
	return hints
}

// hintArgs parses a hint's options: () , (key = 'value', ...) with keys
// that are identifiers or string literals, or (a, b, ...), a list of
// identifiers and literals.
func (p *parser) hintArgs(h *Hint) {
	p.expectOp("(")
	if p.acceptOp(")") {
		return
	}
	if u := p.peekAt(1); u.kind == tOp && u.val == "=" {
		h.Options = []Option{}
		seen := map[string]Pos{}
		for {
			k := p.peek()
			if k.kind != tString && k.kind != tIdent && k.kind != tQIdent {
				p.failExpected("a hint option key")
			}
			p.next()
			o := Option{Key: k.val, KeyPos: p.pos(k)}
			if first, dup := seen[o.Key]; dup {
				p.fail(o.KeyPos, ErrSyntax, "duplicate option '%s' in hint %s (first set at line %d)", o.Key, h.Name, first.Line)
			}
			seen[o.Key] = o.KeyPos
			p.expectOp("=")
			o.Value, o.ValuePos = p.stringLit("a hint option value (a string literal)")
			h.Options = append(h.Options, o)
			if !p.acceptOp(",") {
				break
			}
		}
	} else {
		for {
			v := p.peek()
			if v.kind != tString && v.kind != tIdent && v.kind != tQIdent && v.kind != tNumber {
				p.failExpected("a name or literal in hint " + h.Name)
			}
			p.next()
			h.List = append(h.List, Ident{Pos: p.pos(v), Name: v.val})
			if !p.acceptOp(",") {
				break
			}
		}
	}
	p.expectOp(")")
}

func (p *parser) statementSet() Statement {
	start := p.next()
	set := &StatementSet{Pos: p.pos(start)}
	p.inSet = true
	older := isKw(start, "BEGIN")
	if older {
		// BEGIN STATEMENT SET; INSERT ...; ... END
		p.expectKw("STATEMENT")
		p.expectKw("SET")
		p.expectOp(";")
	} else {
		// [EXECUTE] STATEMENT SET BEGIN INSERT ...; ... END
		if isKw(start, "EXECUTE") {
			p.expectKw("STATEMENT")
		}
		p.expectKw("SET")
		p.expectKw("BEGIN")
	}
	for {
		for p.acceptOp(";") {
		}
		t := p.peek()
		if isKw(t, "END") {
			p.next()
			break
		}
		if t.kind == tEOF {
			p.fail(set.Pos, ErrSyntax, "statement set is not closed: missing END")
		}
		if !isKw(t, "INSERT") {
			if t.kind == tIdent {
				p.failTok(t, "a statement set may contain only INSERT statements, found %s", strings.ToUpper(t.val))
			}
			p.failExpected("INSERT or END in the statement set")
		}
		set.Inserts = append(set.Inserts, p.insert())
		if !p.isOp(";") {
			p.failExpected("';' after the INSERT in the statement set")
		}
	}
	if len(set.Inserts) == 0 {
		p.fail(set.Pos, ErrSyntax, "statement set has no INSERT statements")
	}
	p.inSet = false
	return set
}

var explainDetails = []string{"ESTIMATED_COST", "CHANGELOG_MODE", "PLAN_ADVICE", "JSON_EXECUTION_PLAN"}

func (p *parser) explain() Statement {
	start := p.next()
	e := &Explain{Pos: p.pos(start)}
	if p.acceptKw("PLAN") {
		p.expectKw("FOR")
	} else {
		for {
			t := p.peek()
			known := false
			for _, d := range explainDetails {
				if isKw(t, d) {
					known = true
				}
			}
			if !known {
				break
			}
			p.next()
			e.Details = append(e.Details, strings.ToUpper(t.val))
			if !p.acceptOp(",") {
				break
			}
		}
	}
	t := p.peek()
	switch {
	case isKw(t, "INSERT"):
		e.Statement = p.insert()
	case isKw(t, "EXECUTE") && p.isKwAt(1, "INSERT"):
		p.next()
		e.Statement = p.insert()
	case isKw(t, "EXECUTE") && p.isKwAt(1, "STATEMENT"), isKw(t, "STATEMENT"), isKw(t, "BEGIN"):
		e.Statement = p.statementSet()
	case isKw(t, "SELECT"), isKw(t, "VALUES"), isKw(t, "WITH"), t.kind == tOp && t.val == "(":
		e.Statement = p.queryStatement()
	case isKw(t, "CREATE"):
		p.unsupported(t, "EXPLAIN of CREATE statements")
	default:
		p.failExpected("INSERT, STATEMENT SET or a query after EXPLAIN")
	}
	return e
}

func (p *parser) queryStatement() Statement {
	t := p.peek()
	return &QueryStatement{Pos: p.pos(t), Query: p.query()}
}

// show parses a SHOW statement (see Show).
func (p *parser) show() Statement {
	start := p.next() // SHOW
	s := &Show{Pos: p.pos(start)}
	t := p.peek()
	from := func(required bool) {
		if p.acceptKw("FROM") || p.acceptKw("IN") {
			s.From = p.objectName()
		} else if required {
			p.failExpected("FROM or IN and a table after SHOW COLUMNS")
		}
	}
	like := true
	switch {
	case isKw(t, "TABLES"), isKw(t, "VIEWS"):
		p.next()
		s.What = ShowTables
		if isKw(t, "VIEWS") {
			s.What = ShowViews
		}
		from(false)
	case isKw(t, "DATABASES"):
		p.next()
		s.What = ShowDatabases
		from(false)
	case isKw(t, "CATALOGS"):
		p.next()
		s.What = ShowCatalogs
	case isKw(t, "CURRENT") && (p.isKwAt(1, "CATALOG") || p.isKwAt(1, "DATABASE")):
		p.next()
		s.What, like = ShowCurrentCatalog, false
		if isKw(p.next(), "DATABASE") {
			s.What = ShowCurrentDatabase
		}
	case isKw(t, "COLUMNS"):
		p.next()
		s.What = ShowColumns
		from(true)
	case isKw(t, "CREATE") && p.isKwAt(1, "TABLE"):
		p.next()
		p.next()
		s.What, s.From, like = ShowCreateTable, p.objectName(), false
	case isKw(t, "MODULES"):
		p.next()
		s.What, like = ShowModules, false
	case isKw(t, "FULL") && p.isKwAt(1, "MODULES"):
		p.next()
		p.next()
		s.What, like = ShowFullModules, false
	case isKw(t, "USER") && p.isKwAt(1, "FUNCTIONS"):
		p.next()
		p.next()
		s.What = ShowUserFunctions
	default:
		p.unsupported(t, "SHOW "+strings.ToUpper(t.val))
	}
	if !like {
		return s
	}
	not := p.isKw("NOT") && (p.isKwAt(1, "LIKE") || p.isKwAt(1, "ILIKE"))
	if not {
		p.next()
	}
	if l := p.peek(); isKw(l, "LIKE") || isKw(l, "ILIKE") {
		if isKw(l, "ILIKE") && s.What != ShowDatabases && s.What != ShowCatalogs {
			p.failTok(l, "SHOW TABLES, VIEWS, COLUMNS and USER FUNCTIONS take [NOT] LIKE; ILIKE is for SHOW DATABASES and CATALOGS (as in Flink)")
		}
		p.next()
		s.NotLike, s.ILike, s.LikePos = not, isKw(l, "ILIKE"), p.pos(l)
		s.Like, _ = p.stringLit("a pattern (a string literal such as 'orders%')")
	}
	return s
}

// alterTable parses ALTER TABLE (see AlterTable).
func (p *parser) alterTable() Statement {
	start := p.next() // ALTER
	p.next()          // TABLE
	a := &AlterTable{Pos: p.pos(start), src: p.src}
	if p.acceptKw("IF") {
		p.expectKw("EXISTS")
		a.IfExists = true
	}
	a.Name = p.objectName()
	p.setName(a.Name)
	t := p.peek()
	switch {
	case isKw(t, "RENAME") && p.isKwAt(1, "TO"):
		p.next()
		p.next()
		a.Kind, a.NewName = AlterRename, p.objectName()
	case isKw(t, "RENAME"):
		p.next()
		a.Kind, a.Column = AlterRenameColumn, p.ident()
		p.expectKw("TO")
		a.NewColumn = p.ident()
	case isKw(t, "SET"):
		p.next()
		a.Kind, a.Options = AlterSet, p.options("option")
	case isKw(t, "RESET"):
		p.next()
		a.Kind = AlterReset
		p.expectOp("(")
		for {
			k, pos := p.stringLit("an option key")
			a.Reset = append(a.Reset, Ident{Pos: pos, Name: k})
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	case isKw(t, "ADD"), isKw(t, "MODIFY"):
		p.next()
		a.Kind = AlterAdd
		if isKw(t, "MODIFY") {
			a.Kind = AlterModify
		}
		if p.acceptOp("(") {
			for {
				p.alterComponent(a)
				if !p.acceptOp(",") {
					break
				}
			}
			p.expectOp(")")
		} else {
			p.alterComponent(a)
		}
	case isKw(t, "DROP"):
		p.next()
		a.Kind = AlterDrop
		switch {
		case p.isKw("PRIMARY"):
			p.next()
			p.expectKw("KEY")
			a.DropPrimaryKey = true
		case p.isKw("WATERMARK"):
			p.next()
			a.DropWatermark = true
		case p.isOp("("):
			a.Drop = p.identList()
		default:
			a.Drop = []Ident{p.ident()}
		}
	default:
		p.failExpected("RENAME, SET, RESET, ADD, MODIFY or DROP after ALTER TABLE " + a.Name.String())
	}
	return a
}

// alterComponent parses one component of ALTER TABLE ADD or MODIFY: a
// column with its position, a PRIMARY KEY or a WATERMARK.
func (p *parser) alterComponent(a *AlterTable) {
	t := p.peek()
	switch {
	case isKw(t, "WATERMARK") && p.isKwAt(1, "FOR"):
		p.next()
		p.next()
		if a.Watermark != nil {
			p.failTok(t, "ALTER TABLE names the WATERMARK once")
		}
		w := &Watermark{Pos: p.pos(t), Column: p.ident()}
		p.expectKw("AS")
		w.Expr = p.expr()
		a.Watermark = w
	case isKw(t, "CONSTRAINT") || isKw(t, "PRIMARY") && p.isKwAt(1, "KEY"):
		pk := p.tableConstraint()
		if a.PrimaryKey != nil {
			p.fail(pk.Pos, ErrSyntax, "ALTER TABLE names the PRIMARY KEY once")
		}
		a.PrimaryKey = pk
	default:
		ct := &CreateTable{}
		c := p.column(ct)
		if c.NameOnly {
			p.fail(c.TypePos, ErrSyntax, "expected the type of column '%s'", c.Name)
		}
		if ct.PrimaryKey != nil {
			if a.PrimaryKey != nil {
				p.fail(ct.PrimaryKey.Pos, ErrSyntax, "ALTER TABLE names the PRIMARY KEY once")
			}
			a.PrimaryKey = ct.PrimaryKey
		}
		pos := ColumnPosition{Pos: p.pos(p.peek())}
		if p.acceptKw("FIRST") {
			pos.First = true
		} else if p.acceptKw("AFTER") {
			pos.After = p.ident()
		}
		a.Columns = append(a.Columns, c)
		a.Positions = append(a.Positions, pos)
	}
}

// alterView parses ALTER VIEW (see AlterView).
func (p *parser) alterView() Statement {
	start := p.next() // ALTER
	p.next()          // VIEW
	a := &AlterView{Pos: p.pos(start), Name: p.objectName()}
	p.setName(a.Name)
	switch {
	case p.isKw("RENAME"):
		p.next()
		p.expectKw("TO")
		a.NewName = p.objectName()
	case p.acceptKw("AS"):
		a.Query = p.query()
	default:
		p.failExpected("RENAME TO or AS query after ALTER VIEW " + a.Name.String())
	}
	return a
}
