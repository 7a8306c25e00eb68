package print_test

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connector/connectortest"
	"github.com/streamsql/streamsql/connectors/print"
	"github.com/streamsql/streamsql/types"
)

// stream stands for standard output: it keeps what was printed, and fails
// every write once broken.
type stream struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	broken bool
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken {
		return 0, errClosed
	}
	return s.buf.Write(p)
}

var errClosed = errors.New("standard output closed")

// rows parses the printed lines back, "+I[3, 3]" for (3, "3"). Task
// prefixes ("2> ") are dropped.
func (s *stream) rows(t testing.TB) []types.Row {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []types.Row
	for _, line := range strings.Split(strings.TrimSuffix(s.buf.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		if i := strings.Index(line, "> "); i >= 0 {
			line = line[i+2:]
		}
		body, ok := strings.CutPrefix(line, "+I[")
		body, ok2 := strings.CutSuffix(body, "]")
		id, name, ok3 := strings.Cut(body, ", ")
		n, err := strconv.ParseInt(id, 10, 64)
		if !ok || !ok2 || !ok3 || err != nil {
			t.Fatalf("unexpected printed line %q", line)
		}
		out = append(out, types.Row{Fields: []types.Value{types.Int64(n), types.Str(name)}})
	}
	return out
}

// TestConformance runs the connector conformance suite on the print sink,
// printing to a buffer that stands for standard output.
func TestConformance(t *testing.T) {
	connectortest.RunSink(t, connectortest.SinkHarness{
		New: func(testing.TB) connectortest.SinkFixture {
			out := &stream{}
			cols := []types.Type{types.BigInt(), types.String()}
			return connectortest.SinkFixture{
				NewSink:   func() (connector.Sink, error) { return print.NewTo(print.Config{}, cols, out), nil },
				Committed: func(t testing.TB, _ int) []types.Row { return out.rows(t) },
				Break: func(testing.TB) {
					out.mu.Lock()
					out.broken = true
					out.mu.Unlock()
				},
			}
		},
	})
}
