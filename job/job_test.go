package job_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/runtime"
)

const twoInserts = `
CREATE TABLE a (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '100');
CREATE TABLE b (n BIGINT) WITH ('connector' = 'datagen',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '2');
CREATE TABLE sink (n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT n FROM a;
SELECT n FROM b;
`

func TestPipelinesHintsAndRunOnce(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	j, err := job.Compile(ctx, "two.sql", twoInserts, job.Options{
		Output:    &out,
		Pipelines: []string{"print"},
		Hints:     map[string]map[string]string{"b": {"fields.n.end": "3"}},
		Logger:    quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := j.Pipelines(); len(got) != 2 || got[0] != "sink" || got[1] != "print" {
		t.Fatalf("Pipelines() = %q, want [sink print]", got)
	}
	if st := j.Status(); st.State != runtime.StateCreated || st.Job != "two" {
		t.Fatalf("status before Run = %+v", st)
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if want := "+I[1]\n+I[2]\n+I[3]\n"; out.String() != want {
		t.Fatalf("printed %q, want %q (the hint raises the sequence's end to 3)", out.String(), want)
	}
	st := j.Status()
	if st.State != runtime.StateFinished {
		t.Fatalf("state after Run = %s", st.State)
	}
	for _, task := range st.Tasks {
		if task.Name == "a" || task.Name == "sink" {
			t.Fatalf("task %q of the pipeline left out ran: %+v", task.Name, st.Tasks)
		}
	}
	if err := j.Run(ctx); !errors.Is(err, job.ErrAlreadyRun) {
		t.Fatalf("second Run = %v, want ErrAlreadyRun", err)
	}
}

func TestUnknownNames(t *testing.T) {
	ctx := context.Background()
	for name, opts := range map[string]job.Options{
		"pipeline": {Pipelines: []string{"nope"}},
		"hint":     {Hints: map[string]map[string]string{"nope": {"x": "y"}}},
	} {
		if _, err := job.Compile(ctx, "two.sql", twoInserts, opts); !errors.Is(err, job.ErrUnknownPipeline) {
			t.Errorf("%s: Compile = %v, want ErrUnknownPipeline", name, err)
		}
	}
}

func TestHintIsValidatedAtRun(t *testing.T) {
	j, err := job.Compile(context.Background(), "two.sql", twoInserts, job.Options{
		Pipelines: []string{"print"},
		Hints:     map[string]map[string]string{"b": {"no.such.option": "1"}},
		Logger:    quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background()); err == nil {
		t.Fatal("Run accepted an unknown option given as a hint")
	}
}

func TestSetWinsOverTheFile(t *testing.T) {
	j, err := job.Compile(context.Background(), "set.sql", "SET 'execution.checkpointing.interval' = '5s';\n"+twoInserts,
		job.Options{Set: map[string]string{"execution.checkpointing.interval": "250ms", "pipeline.name": "renamed"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := j.Plan().Runtime.Checkpoint.Interval; got != 250*time.Millisecond {
		t.Errorf("checkpoint interval = %v, want 250ms from Options.Set", got)
	}
	if j.Name() != "renamed" {
		t.Errorf("job name = %q, want renamed (pipeline.name from Options.Set)", j.Name())
	}
}

// TestCompileReportsParseAndPlanErrors checks that job.Compile returns a
// file's parse and planning errors together, each classifiable.
func TestCompileReportsParseAndPlanErrors(t *testing.T) {
	text := "CREATE TABLE sink (n BIGINT) WITH ('connector' = 'blackhole');\n" +
		"CREATE TABLE bad (n BIGINT,) WITH ('connector' = 'datagen');\n" +
		"INSERT INTO sink SELECT n FROM bad;\n" +
		"INSERT INTO sink SELECT 'x';\n"
	_, err := job.Compile(context.Background(), "j.sql", text, job.Options{Logger: quiet})
	if !errors.Is(err, ddl.ErrSyntax) || !errors.Is(err, planner.ErrType) {
		t.Fatalf("err = %v; want a syntax error and a type error", err)
	}
	if errs := planner.Errors(err); len(errs) != 2 {
		t.Errorf("%d errors, want 2 (no 'bad does not exist'):\n%v", len(errs), err)
	}
}
