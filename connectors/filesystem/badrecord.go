package filesystem

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/internal/badrecord"
	"github.com/streamsql/streamsql/factory"
)

// The reasons a record is bad, in log messages (as Kafka's).
const (
	reasonDecode   = "decode"   // the format could not decode it
	reasonRejected = "rejected" // the pipeline rejected a row of it
)

// badRecords applies a reader's 'scan.bad-record.policy'. Only the
// reader's goroutine calls its methods, except skipped (BadRecords).
type badRecords struct {
	policy  badrecord.Policy
	table   string
	st      *store // the source's files, to count lines for messages
	log     *slog.Logger
	limit   badrecord.Log
	skipped atomic.Int64
}

// decodeFailed handles a record of file at byte offset off that the
// format could not decode: the error that fails the job under
// badrecord.Fail, else nil (the record is skipped). Only a
// *factory.DecodeError says the record's bytes are bad; any other error
// fails the job under every policy.
func (b *badRecords) decodeFailed(file string, off int64, err error) error {
	derr := &DecodeError{File: file, Offset: off, Line: lineAt(b.st, file, off), Err: err}
	if !errors.As(err, new(*factory.DecodeError)) {
		return derr
	}
	if b.policy == badrecord.Fail {
		return &connector.BadRecordError{Record: fmt.Sprintf("file %s byte offset %d", file, off),
			Policy: fmt.Sprintf("table '%s' has 'scan.bad-record.policy' = 'fail' (the default): a record that does not decode "+
				"fails the job, and every restart meets it again; 'skip' counts and logs such records and goes on", b.table),
			Err: derr}
	}
	b.skip(file, off, reasonDecode, derr)
	return nil
}

// rejected handles a record of file at byte offset off whose row the
// pipeline rejected with err; false under badrecord.Fail (the runtime
// goes on as without a policy).
func (b *badRecords) rejected(file string, off int64, err error) bool {
	if b.policy == badrecord.Fail {
		return false
	}
	b.skip(file, off, reasonRejected, fmt.Errorf("%w (row from %s)", err, position(b.st, file, off)))
	return true
}

// skip counts a skipped record and logs it at a bounded rate.
func (b *badRecords) skip(file string, off int64, reason string, err error) {
	b.skipped.Add(1)
	ok, unshown := b.limit.Allow(time.Now())
	if !ok {
		return
	}
	b.log.Warn(fmt.Sprintf("filesystem source: skipped a record (table '%s', '%s' = '%s')", b.table, badrecord.Key, b.policy),
		"file", file, "line", lineAt(b.st, file, off), "offset", off, "reason", reason, "error", err.Error(),
		"not_logged_since_last_message", unshown)
}

// close logs how many skipped records were not logged since the last
// message, if any: a bounded read often ends within the log interval.
func (b *badRecords) close() {
	if n := b.limit.Flush(); n > 0 {
		b.log.Warn(fmt.Sprintf("filesystem source: skipped records not logged before the reader ended (table '%s', '%s' = '%s')", b.table, badrecord.Key, b.policy),
			"not_logged_since_last_message", n)
	}
}

// position describes where the record at byte offset off of file starts:
// "file F line N (byte offset O)", without the line when it cannot be
// counted.
func position(st *store, file string, off int64) string {
	if line := lineAt(st, file, off); line > 0 {
		return fmt.Sprintf("file %s line %d (byte offset %d)", file, line, off)
	}
	return fmt.Sprintf("file %s byte offset %d", file, off)
}

// lineAt returns the 1-based number of the line at byte offset off of file
// (relative to the store): one more than the line feeds before it; 0 when
// the file cannot be read that far. It reads the file from its start,
// which is for error messages and rate-bounded logs only.
func lineAt(st *store, file string, off int64) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := st.open(ctx, file, 0)
	if err != nil {
		return 0
	}
	defer f.Close()
	br := bufio.NewReaderSize(io.LimitReader(f, off), 64<<10)
	var lines, read int64
	for {
		chunk, err := br.ReadSlice('\n')
		read += int64(len(chunk))
		lines += int64(bytes.Count(chunk, []byte{'\n'}))
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
	}
	if read < off {
		return 0
	}
	return lines + 1
}

// DecodeError is returned by a reader when a record of a file does not
// decode: it names the file (relative to path), the byte offset of the
// record's start and its line, and wraps the format's error (usually a
// *factory.DecodeError, whose offset is within the record). The reader
// first returns the rows before that record, and its checkpoint state stays
// at the record's start.
type DecodeError struct {
	File   string
	Offset int64
	// Line is the 1-based line the record starts on; 0 when unknown.
	Line int64
	Err  error
}

func (e *DecodeError) Error() string {
	line := ""
	if e.Line > 0 {
		line = " (line " + strconv.FormatInt(e.Line, 10) + ")"
	}
	return fmt.Sprintf("filesystem source: file %s, record at byte offset %d%s: %v", e.File, e.Offset, line, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }
