package job_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/types"
)

// pairs is a custom connector for the embedding tests: a bounded source
// of three rows (id BIGINT, name STRING), in the declared order or, with
// 'swap' = 'true', the wrong one. It logs through the logger its factory
// is given: when created and when its splits are listed.
func pairs() factory.ConnectorFactory {
	return factory.ConnectorFactory{
		Identifier:  "pairs",
		Description: "Three (id, name) rows.",
		Options:     []option.Option{swapOpt},
		NewSource: func(ctx factory.Context) (connector.Source, error) {
			ctx.Logger.Warn("pairs: source created")
			return &pairsSource{swap: swapOpt.Get(ctx.Options), log: ctx.Logger}, nil
		},
	}
}

var swapOpt = option.Bool("swap").Default(false).Description("Emit (name, id) instead of (id, name).")

type pairsSource struct {
	swap bool
	log  *slog.Logger
}

func (s *pairsSource) Bounded() bool { return true }

func (s *pairsSource) Splits(context.Context) ([]connector.Split, error) {
	s.log.Warn("pairs: splits listed")
	return []connector.Split{{ID: "only"}}, nil
}

func (s *pairsSource) Open(context.Context, connector.TaskInfo, []connector.SplitState) (connector.Reader, error) {
	return &pairsReader{s: s}, nil
}

type pairsReader struct {
	s    *pairsSource
	done bool
}

func (r *pairsReader) Read(context.Context) ([]types.Row, error) {
	if r.done {
		return nil, io.EOF
	}
	r.done = true
	var rows []types.Row
	for i, name := range []string{"a", "b", "c"} {
		f := []types.Value{types.Int64(int64(i)), types.Str(name)}
		if r.s.swap {
			f[0], f[1] = f[1], f[0]
		}
		rows = append(rows, types.Row{Fields: f})
	}
	return rows, nil
}

func (r *pairsReader) Snapshot(int64) ([]connector.SplitState, error) {
	state := "0"
	if r.done {
		state = "3"
	}
	return []connector.SplitState{{ID: "only", State: []byte(state)}}, nil
}

func (r *pairsReader) Close() error { return nil }

// syncWriter is a bytes.Buffer safe for concurrent writes.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func compilePairs(t *testing.T, swap bool, out io.Writer, log *slog.Logger) *job.Job {
	t.Helper()
	reg := job.NewRegistry()
	if err := reg.RegisterConnector(pairs()); err != nil {
		t.Fatal(err)
	}
	opt := ""
	if swap {
		opt = ", 'swap' = 'true'"
	}
	j, err := job.Compile(context.Background(), "pairs.sql", `CREATE TABLE p (id BIGINT, name STRING) WITH ('connector' = 'pairs'`+opt+`);
SELECT id, name FROM p;`, job.Options{Registry: reg, Output: out, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestCustomSourceRowsChecked (issue item 6): a custom source whose rows
// hold the table's columns in another order fails at its first batch,
// naming the column, instead of writing wrong values; one in order runs.
func TestCustomSourceRowsChecked(t *testing.T) {
	var out bytes.Buffer
	quietLog := slog.New(slog.DiscardHandler)
	if err := compilePairs(t, false, &out, quietLog).Run(context.Background()); err != nil || out.String() != "+I[0, a]\n+I[1, b]\n+I[2, c]\n" {
		t.Fatalf("rows in order: %v, printed %q", err, out.String())
	}
	out.Reset()
	err := compilePairs(t, true, &out, quietLog).Run(context.Background())
	if err == nil || !errors.Is(err, runtime.ErrInvalidSpec) ||
		!strings.Contains(err.Error(), "column 1 'id' is declared BIGINT, but the row holds a string there") {
		t.Fatalf("swapped rows: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("swapped rows were printed: %q", out.String())
	}
}

// TestConnectorLogsGoToTheEmbeddersLogger (issue item 6): a connector logs
// through the logger its factory is given, which is the embedder's
// (Options.Logger), never slog.Default; once the job runs, with the job's
// name, and its warnings are in the status.
func TestConnectorLogsGoToTheEmbeddersLogger(t *testing.T) {
	var def syncWriter
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&def, nil)))
	defer slog.SetDefault(prev)
	var mine syncWriter
	j := compilePairs(t, false, io.Discard, slog.New(slog.NewTextHandler(&mine, nil)))
	if err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if def.String() != "" {
		t.Errorf("slog.Default got the job's log:\n%s", def.String())
	}
	if !strings.Contains(mine.String(), `msg="pairs: source created"`) ||
		!strings.Contains(mine.String(), `msg="pairs: splits listed" job=pairs`) {
		t.Errorf("the embedder's logger lacks the connector's lines:\n%s", mine.String())
	}
	found := false
	for _, e := range j.Status().Recent {
		found = found || e.Message == "pairs: splits listed"
	}
	if !found {
		t.Errorf("the status lacks the connector's warning: %+v", j.Status().Recent)
	}
}

// TestQueryHeader (issue item 6): the header the CLI prints above a bare
// SELECT's rows is the embedder's too; several bare SELECTs label their
// header lines and rows by query number.
func TestQueryHeader(t *testing.T) {
	j := compilePairs(t, false, io.Discard, slog.New(slog.DiscardHandler))
	if h := j.QueryHeader(); h != "op[id, name]\n" {
		t.Errorf("QueryHeader = %q", h)
	}
	two, err := job.Compile(context.Background(), "two.sql", "SELECT * FROM (VALUES (1)) AS t(a);\nSELECT * FROM (VALUES ('x')) AS u(b);\n",
		job.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if h := two.QueryHeader(); h != "1> op[a]\n2> op[b]\n" {
		t.Errorf("QueryHeader of two queries = %q", h)
	}
}
