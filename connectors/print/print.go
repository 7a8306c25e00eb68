// Package print is the print connector: a sink that writes every row to
// standard output (or standard error) in Flink's shape, "+I[1, foo]", with
// an optional identifier prefix. It is meant for looking at results, not for
// production output: it commits nothing and keeps no state. Importing the
// package registers it in factory.Default as 'print'.
//
//	CREATE TABLE out (id BIGINT, name STRING)
//	WITH ('connector' = 'print', 'print-identifier' = 'orders')
//
// # Options
//
//   - print-identifier (String, default none): a prefix of every line,
//     followed by "> " ("orders> +I[1, foo]").
//   - standard-error (Boolean, default false): print to standard error
//     instead of standard output.
//   - sink.parallelism (Integer, default: the upstream operator's): the
//     number of sink tasks. With more than one task each line carries the
//     task's number, 1-based, as in Flink: "orders:2> +I[1, foo]", or
//     "2> +I[1, foo]" without an identifier.
//
// Each line is the row kind (+I, -U, +U, -D) and the physical columns in
// brackets, each printed as Flink prints it: Java's toString of the
// column's external type (see javafmt.FormatRow).
package print

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/types"
)

// Config is the print sink's validated configuration, named after Flink's
// options.
type Config struct {
	// Identifier is print-identifier: a prefix of every line.
	Identifier string
	// StandardError is standard-error: print to stderr instead of stdout.
	StandardError bool
}

// Sink prints rows. It implements connector.Sink.
type Sink struct {
	cfg         Config
	colTypes    []types.Type
	out         *lockedWriter
	parallelism int
}

// Sink is a connector.Sink (checked by the compiler).
var _ connector.Sink = (*Sink)(nil)

// lockedWriter serialises writes of several tasks so that lines never
// interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) write(p []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(p)
	return err
}

// New returns a print sink for rows whose fields have colTypes.
func New(cfg Config, colTypes []types.Type) *Sink {
	var w io.Writer = os.Stdout
	if cfg.StandardError {
		w = os.Stderr
	}
	return NewTo(cfg, colTypes, w)
}

// NewTo returns a print sink that writes to w instead of a standard stream.
func NewTo(cfg Config, colTypes []types.Type, w io.Writer) *Sink {
	return &Sink{cfg: cfg, colTypes: colTypes, out: &lockedWriter{w: w}}
}

// Open returns the writer of one task. With several tasks each line carries
// the task's number (1-based) after the identifier, as in Flink:
// "id:2> +I[...]", or "2> +I[...]" without an identifier.
func (s *Sink) Open(_ context.Context, task connector.TaskInfo) (connector.Writer, error) {
	prefix := s.cfg.Identifier
	if task.Parallelism > 1 {
		if prefix != "" {
			prefix += ":"
		}
		prefix += strconv.Itoa(task.Index + 1)
	}
	if prefix != "" {
		prefix += "> "
	}
	return &writer{sink: s, prefix: prefix}, nil
}

type writer struct {
	sink   *Sink
	prefix string
	buf    strings.Builder
}

// writer is a connector.Writer (checked by the compiler).
var _ connector.Writer = (*writer)(nil)

// Write prints rows, one line each, in one write to the stream.
func (w *writer) Write(_ context.Context, rows []types.Row) error {
	w.buf.Reset()
	for _, r := range rows {
		w.buf.WriteString(w.prefix)
		javafmt.AppendRow(&w.buf, r.Kind, r.Fields, w.sink.colTypes)
		w.buf.WriteByte('\n')
	}
	return w.sink.out.write([]byte(w.buf.String()))
}

// ForgetsRows reports that the writer keeps no row past Write
// (connector.RowForgetter): it prints each batch at once.
func (*writer) ForgetsRows() bool { return true }

// PreCommit has nothing to flush: every Write reached the stream.
func (w *writer) PreCommit(context.Context, int64) ([]connector.Committable, error) {
	return nil, nil
}

// Close does nothing.
func (w *writer) Close() error { return nil }
