package csv

import (
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
)

// ErrUnterminatedQuote is wrapped by the error of a record whose quoted
// field is never closed.
var ErrUnterminatedQuote = errors.New("unterminated quoted field")

// RecordScanner finds where csv records end in a stream of text, for
// readers of files in which one record may span lines: a line break inside
// a quoted field, or escaped with the escape character, belongs to the
// field. It follows the decoder's reading of the options: a field is quoted
// when it starts with the quote character (quote-character, unless
// disable-quote-character); inside quotes a doubled quote character is one
// quote, and the escape character (escape-character) takes the next byte
// literally, inside quotes and outside; with allow-comments a record that
// starts with '#' is a comment and ends at the first line break. Any other
// line feed ends the record.
//
// A scanner holds the state of one record: feed it the record's bytes in
// order, in chunks of any size, with Feed; start each record with Reset.
// It does not allocate.
type RecordScanner struct {
	delim    byte
	quote    int // -1: disabled
	escape   int // -1: none
	comments bool

	st      scanState
	started bool // some byte of the record was fed
	cr      bool // the last byte was an unescaped '\r' outside quotes
	fed     int  // bytes fed before the current chunk
	quoteAt int  // offset in the record of the last opening quote
}

type scanState uint8

const (
	fieldStart  scanState = iota // at the start of a field
	unquoted                     // inside an unquoted field (or after a closing quote)
	quoted                       // inside a quoted field
	quoteInside                  // after a quote character inside a quoted field
	escUnquoted                  // after an escape character outside quotes
	escQuoted                    // after an escape character inside quotes
	comment                      // in a comment record
)

// newRecordScanner returns a scanner for the csv format options o (the
// options given to NewDecoder).
func newRecordScanner(o *option.Config) (*RecordScanner, error) {
	c, err := newConfig(o)
	if err != nil {
		return nil, err
	}
	return &RecordScanner{delim: c.delim, quote: c.quote, escape: c.escape, comments: c.comments}, nil
}

// Reset starts a new record.
func (s *RecordScanner) Reset() {
	s.st, s.started, s.cr, s.fed, s.quoteAt = fieldStart, false, false, 0, 0
}

// Feed scans the next bytes of the record. It returns the number of bytes
// of b that belong to the record and whether the record ended there: the
// byte at n-1 is then the line feed that ends it. When end is false, all of
// b belongs to the record, which continues in the next bytes.
func (s *RecordScanner) Feed(b []byte) (n int, end bool) {
	if len(b) == 0 {
		return 0, false
	}
	if !s.started {
		s.started = true
		if s.comments && b[0] == '#' {
			s.st = comment
		}
	}
	for i, c := range b {
		switch s.st {
		case comment:
			if c == '\n' {
				return i + 1, true
			}
		case fieldStart, unquoted:
			switch {
			case c == '\n':
				return i + 1, true
			case s.escape >= 0 && int(c) == s.escape:
				s.st = escUnquoted
			case s.st == fieldStart && s.quote >= 0 && int(c) == s.quote:
				s.st = quoted
				s.quoteAt = s.fed + i
			case c == s.delim:
				s.st = fieldStart
			default:
				s.st = unquoted
			}
			s.cr = c == '\r' && s.st != escUnquoted
			continue
		case escUnquoted:
			s.st = unquoted
		case quoted:
			// As the decoder: the escape character is checked first.
			switch {
			case s.escape >= 0 && int(c) == s.escape:
				s.st = escQuoted
			case int(c) == s.quote:
				s.st = quoteInside
			}
		case escQuoted:
			s.st = quoted
		case quoteInside:
			switch {
			case int(c) == s.quote:
				s.st = quoted // a doubled quote
			case c == '\n':
				return i + 1, true
			case s.escape >= 0 && int(c) == s.escape:
				s.st = escUnquoted
			case c == s.delim:
				s.st = fieldStart
			default:
				s.st = unquoted // bad: the decoder reports it
			}
			s.cr = c == '\r'
			continue
		}
		s.cr = false
	}
	s.fed += len(b)
	return len(b), false
}

// Terminator returns the length of the line break that ended the record
// (after Feed reported its end): 2 for "\r\n" outside quotes, else 1.
func (s *RecordScanner) Terminator() int {
	if s.cr {
		return 2
	}
	return 1
}

// QuoteOffset returns the offset in the record of the quote character
// that opened the last quoted field.
func (s *RecordScanner) QuoteOffset() int { return s.quoteAt }

// Open reports whether the record fed so far is inside a quoted field: at
// the end of the input, an unterminated quote.
func (s *RecordScanner) Open() bool {
	return s.st == quoted || s.st == escQuoted
}

// Unterminated returns nil unless the record fed so far is inside a quoted
// field (Open), and then a *factory.DecodeError at the opening quote
// wrapping ErrUnterminatedQuote.
func (s *RecordScanner) Unterminated() error {
	if !s.Open() {
		return nil
	}
	return &factory.DecodeError{Format: Identifier, Offset: s.quoteAt,
		Err: fmt.Errorf("%w: the quoted field reaches the end of the input", ErrUnterminatedQuote)}
}
