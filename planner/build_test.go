package planner_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/print"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/types"
)

// printTo returns build options whose bare queries print to w, as package
// job wires them.
func printTo(w io.Writer) job.BuildOptions {
	return job.BuildOptions{QuerySink: func(_ int, fields []types.Field) (connector.Sink, error) {
		colTypes := make([]types.Type, len(fields))
		for i, f := range fields {
			colTypes[i] = f.Type
		}
		return print.NewTo(print.Config{}, colTypes, w), nil
	}}
}

// TestBuildQueryNeedsASink: the planner knows no connector, so a bare
// query without BuildOptions.QuerySink is an error, not a default sink.
func TestBuildQueryNeedsASink(t *testing.T) {
	p := compile(t, `SELECT 1 AS one;`)
	if _, err := job.Build(context.Background(), p, job.BuildOptions{}); !errors.Is(err, job.ErrNoQuerySink) {
		t.Fatalf("Build: %v, want ErrNoQuerySink", err)
	}
}

// TestPipelineNamesAreBuildsNames: the names PipelineNames lists are those
// of the pipelines Build creates (suffixed when two INSERTs write one
// table; none for EXPLAIN).
func TestPipelineNamesAreBuildsNames(t *testing.T) {
	p := compile(t, `EXPLAIN SELECT 1;
SELECT 1 AS one;
SELECT 2 AS two;`)
	pipes, err := job.Build(context.Background(), p, printTo(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	var built []string
	for _, pp := range pipes {
		built = append(built, pp.Name)
	}
	if got := p.PipelineNames(); !slices.Equal(got, built) || !slices.Equal(got, []string{"print", "print-2"}) {
		t.Errorf("PipelineNames %q, Build's names %q; want [print print-2] for both", got, built)
	}
}

// TestBuildUnionOfValues builds a bare query over a UNION ALL of two VALUES
// clauses: two sources, each applying its own flow's transform, into the
// printing sink.
func TestBuildUnionOfValues(t *testing.T) {
	p := compile(t, `SELECT a + 1 AS n, b FROM (VALUES (1, 'x'), (2, 'y')) AS t (a, b) WHERE a > 1
UNION ALL
SELECT 10, UPPER('z');`)
	var printed bytes.Buffer
	ctx := context.Background()
	pipes, err := job.Build(ctx, p, printTo(&printed))
	if err != nil {
		t.Fatal(err)
	}
	if len(pipes) != 1 || len(pipes[0].Sources) != 2 || pipes[0].Transform != nil || pipes[0].Name != "print" {
		t.Fatalf("pipelines %+v; want one with two transforming sources", pipes)
	}
	if pipes[0].Sources[0].Name != "VALUES" || pipes[0].Sources[1].Name != "VALUES#2" {
		t.Errorf("source names %q, %q", pipes[0].Sources[0].Name, pipes[0].Sources[1].Name)
	}
	w, err := pipes[0].Sinks[0].Sink.Open(ctx, connector.TaskInfo{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range pipes[0].Sources {
		splits, _ := s.Source.Splits(ctx)
		states := make([]connector.SplitState, len(splits))
		for i, sp := range splits {
			states[i].ID = sp.ID
		}
		r, err := s.Source.Open(ctx, connector.TaskInfo{Parallelism: 1}, states)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rows, err := r.Read(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			var out []types.Row
			for _, row := range rows {
				if out, err = s.Transform(row, out); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Write(ctx, out); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, want := printed.String(), "+I[3, y]\n+I[10, Z]\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// TestBuildSkipsExplain leaves EXPLAIN statements out of the job; a file
// with nothing else has no job to build.
func TestBuildSkipsExplain(t *testing.T) {
	p := compile(t, `EXPLAIN SELECT 1;`)
	if _, err := job.Build(context.Background(), p, printTo(io.Discard)); !errors.Is(err, planner.ErrNoJob) {
		t.Fatalf("Build: %v, want ErrNoJob", err)
	}
}

// TestRuntimeSpecRuns plans a job, turns it into the runtime's job
// description and runs it to the end: VALUES through a filter and
// projection into the printing sink.
func TestRuntimeSpecRuns(t *testing.T) {
	p := compile(t, `SET 'pipeline.name' = 'values-job';
SELECT id * 10, UPPER(name) FROM (VALUES (1, 'a'), (2, 'b'), (3, CAST(NULL AS STRING))) AS t (id, name) WHERE id <> 2;`)
	var printed bytes.Buffer
	ctx := context.Background()
	spec, err := job.RuntimeSpec(ctx, p, printTo(&printed))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Name != "values-job" || len(spec.Pipelines) != 1 || spec.Pipelines[0].Transform == nil {
		t.Fatalf("spec %+v", spec)
	}
	spec.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	job, err := runtime.NewJob(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := printed.String(), "+I[10, A]\n+I[30, null]\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// TestRunDatagenToFiles runs a job end to end with the real connectors:
// datagen's sequence through a filter and projection into json files,
// committed by the final checkpoint.
func TestRunDatagenToFiles(t *testing.T) {
	dir := t.TempDir()
	p, err := planner.Compile(context.Background(), "job.sql", `
SET 'execution.checkpointing.dir' = '`+filepath.Join(dir, "checkpoints")+`';
CREATE TABLE seq (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10', 'fields.name.length' = '3');
CREATE TABLE out1 (id BIGINT, big BOOLEAN) WITH ('connector' = 'filesystem', 'path' = '`+filepath.Join(dir, "out")+`', 'format' = 'json');
INSERT INTO out1 SELECT id * 100, id > 5 FROM seq WHERE MOD(id, 2) = 0;`, planner.Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := job.RuntimeSpec(context.Background(), p, job.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	job, err := runtime.NewJob(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var lines []string
	err = filepath.WalkDir(filepath.Join(dir, "out"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines = append(lines, strings.Fields(string(data))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	want := []string{`{"id":1000,"big":true}`, `{"id":200,"big":false}`, `{"id":400,"big":false}`, `{"id":600,"big":true}`, `{"id":800,"big":true}`}
	if !slices.Equal(lines, want) {
		t.Errorf("files hold %q, want %q", lines, want)
	}
}
