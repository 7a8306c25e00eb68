package ddl

// StatementKind is the kind of a statement, as far as the parser could
// tell before an error (see Failure).
type StatementKind uint8

// The statement kinds. KindUnknown is a statement whose first word is not
// one streamsql knows (a misspelling, or USE, ALTER, SHOW, ...), and
// KindCreate one that starts with CREATE but is not, or not yet known to
// be, a CREATE TABLE or CREATE VIEW (CREATE CATALOG, CREATE FUNCTION, or
// an error before TABLE or VIEW).
const (
	KindUnknown StatementKind = iota
	KindSet
	KindReset
	KindCreate
	KindCreateTable
	KindCreateView
	KindDrop
	KindInsert
	KindStatementSet
	KindExplain
	KindQuery
)

var kindNames = [...]string{"unknown statement", "SET", "RESET", "CREATE", "CREATE TABLE", "CREATE VIEW",
	"DROP", "INSERT", "STATEMENT SET", "EXPLAIN", "query"}

// String returns the kind as SQL keywords ("CREATE TABLE"), or "unknown
// statement" and "query".
func (k StatementKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown statement"
}

// Failure describes a statement that did not parse: its error, and what
// the parser had read of it when the error occurred, so that a caller
// that goes on with the other statements can tell which of its own errors
// are only consequences of this one (an INSERT into a table whose CREATE
// TABLE failed).
type Failure struct {
	// Err is the statement's error: its first syntax error, or the
	// undefined variable it uses.
	Err *Error
	// Kind is the statement's kind, as far as the parser got.
	Kind StatementKind
	// Name is the table or view a CREATE TABLE, CREATE VIEW or DROP names,
	// when the parser read the whole name before the error and no part of
	// it came from an undefined variable; otherwise Name.Parts is empty.
	Name ObjectName
	// Key is the property key of a SET or RESET; KeyKnown is set when
	// the parser read it before the error.
	Key      string
	KeyKnown bool
	// Statement is set when the statement itself parsed completely and
	// only the ';' after it is missing: it is then also in
	// Result.Statements, and nothing of it was lost.
	Statement Statement
}

// Result is what ParseAll read of a job file.
type Result struct {
	// Statements are the statements that parsed, in source order.
	Statements []Statement
	// Failures are the statements that did not, in source order: at most
	// ten.
	Failures []Failure
	// Truncated is set when parsing stopped before the end of the text: at
	// the tenth failing statement, or at a malformed ${ reference (which
	// stops everything). Nothing after the last failure was read.
	Truncated bool
}

// ParseAll parses a job file like Parse but keeps going after errors: it
// returns the statements that parsed together with a Failure for each
// statement that did not, so that a caller can check the good statements
// and report every error of the file in one run. A failing statement is
// skipped up to its ';' (or the END of its statement set); parsing stops
// at the tenth failure. A statement that uses an undefined variable fails
// with that error (unless it has a syntax error before the reference),
// even if it parses; a reference outside any statement is a failure of
// its own. A malformed ${ reference is reported as the only failure, with
// no statements and Truncated set.
func ParseAll(name, text string, cfg Config) *Result {
	src := newSource(name, text)
	src.isSecret = cfg.Sensitive
	if err := src.substitute(cfg); err != nil {
		return &Result{Failures: []Failure{{Err: err}}, Truncated: true}
	}
	p := &parser{src: src, toks: lex(src.text)}
	return p.file()
}

// Err returns the error Parse would return for the same text: nil, the
// *Error of the one failure, or an ErrorList of all of them.
func (r *Result) Err() error {
	switch len(r.Failures) {
	case 0:
		return nil
	case 1:
		return r.Failures[0].Err
	}
	l := make(ErrorList, len(r.Failures))
	for i, f := range r.Failures {
		l[i] = f.Err
	}
	return l
}
