package planner

import (
	"errors"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/internal/suggest"
	"github.com/streamsql/streamsql/planner/expr"
)

// The classes of planning errors. Every *Error wraps exactly one of them
// (or ddl.ErrUnsupported), so callers classify with errors.Is and read the
// position with errors.As.
var (
	// ErrUnknownName is wrapped when a table, view or column is not found.
	ErrUnknownName = errors.New("unknown name")
	// ErrDuplicateName is wrapped when a table, view or column is defined
	// twice.
	ErrDuplicateName = errors.New("duplicate name")
	// ErrType is wrapped when an expression does not type-check or an
	// INSERT's query does not match its sink.
	ErrType = errors.New("type error")
	// ErrInvalidTable is wrapped when a table's options do not validate,
	// or a table is used in a way its connector does not allow (a
	// read-only metadata column written, an unknown metadata key, an
	// updating source into an append-only sink). The factory's typed
	// error, when there is one, is wrapped too.
	ErrInvalidTable = errors.New("invalid table")
	// ErrInvalidCatalog is wrapped when a CREATE CATALOG's options do not
	// validate, or a DROP DATABASE or DROP CATALOG would drop what is in
	// use (the current database, a database that holds tables, without
	// CASCADE).
	ErrInvalidCatalog = errors.New("invalid catalog")
	// ErrInvalidSetting is wrapped when a SET option has a bad value or two
	// settings contradict each other.
	ErrInvalidSetting = errors.New("invalid setting")
	// ErrNoJob is returned when a file has nothing to run (no INSERT and no
	// query).
	ErrNoJob = errors.New("the job file has no INSERT statement or query to run")
)

// Error is a planning error at a position in the user's file. Its Error
// method gives "file:line:col: message" followed by the source line and a
// caret, the same shape as a *ddl.Error.
type Error struct {
	File    string
	Pos     ddl.Pos
	Message string
	// Excerpt is the source line the error points into, with the values of
	// sensitive options masked.
	Excerpt string
	// ExcerptColumn is where Pos.Column is in Excerpt when masking moved
	// it; 0 means Pos.Column.
	ExcerptColumn int
	// Err is the class (ErrUnknownName, ErrType, ..., or
	// ddl.ErrUnsupported).
	Err error
	// Cause is the underlying typed error, if any (a *factory.TableError,
	// an *expr.ArgumentError, ...).
	Cause error

	// unknownObject is set on "table or view does not exist" errors, and
	// duplicateObject on "already exists" ones, so that the planner can
	// leave them out when they only follow from a statement that did not
	// parse.
	unknownObject   *Identifier
	duplicateObject *Identifier
}

// Error returns the message with its position, source line and caret.
func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		if e.File != "" {
			return e.File + ": " + e.Message
		}
		return e.Message
	}
	d := ddl.Error{File: e.File, Line: e.Pos.Line, Column: e.Pos.Column, Offset: e.Pos.Offset,
		Message: e.Message, Excerpt: e.Excerpt, ExcerptColumn: e.ExcerptColumn}
	return d.Error()
}

// Unwrap returns the class and the cause.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

// ErrorList is several errors found in one file, in file order. Each is a
// *ddl.Error or an *Error.
type ErrorList []error

// Error joins the errors, one per paragraph.
func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n\n")
}

// Unwrap returns the errors.
func (l ErrorList) Unwrap() []error { return l }

// Errors returns the individual errors of err: the elements of an
// ErrorList or a ddl.ErrorList, or err itself.
func Errors(err error) []error {
	var pl ErrorList
	if errors.As(err, &pl) {
		return pl
	}
	var dl ddl.ErrorList
	if errors.As(err, &dl) {
		out := make([]error, len(dl))
		for i, e := range dl {
			out[i] = e
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// file is the text of the job file, for excerpts in errors.
type file struct {
	name  string
	lines []string
	// funcs are the Go functions calls may name (Options.Functions, and
	// the names CREATE FUNCTION gives them), by upper-case name.
	funcs map[string]*expr.Function
}

func newFile(name, text string) *file {
	text = strings.TrimPrefix(text, "\uFEFF")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return &file{name: name, lines: lines}
}

func (f *file) errorAt(pos ddl.Pos, class error, cause error, msg string) *Error {
	e := &Error{Pos: pos, Message: msg, Err: class, Cause: cause}
	if f != nil {
		e.File = f.name
		if pos.Line >= 1 && pos.Line <= len(f.lines) {
			e.Excerpt = f.lines[pos.Line-1]
		}
	}
	return e
}

// didYouMean returns " (did you mean X?)" or "".
func didYouMean(name string, candidates []string) string {
	if s := suggest.TypoFold(name, candidates); s != "" && s != name {
		return " (did you mean " + s + "?)"
	}
	return ""
}
