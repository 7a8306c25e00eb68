package job_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/job/jobhttp"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
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

// TestHintIsValidatedAtCompile: hints are applied before the options are
// validated, so an unknown option given as a hint fails Compile (it used
// to pass Compile and fail Run), and the checks across tables see hints.
func TestHintIsValidatedAtCompile(t *testing.T) {
	_, err := job.Compile(context.Background(), "two.sql", twoInserts, job.Options{
		Pipelines: []string{"print"},
		Hints:     map[string]map[string]string{"b": {"no.such.option": "1"}},
		Logger:    quiet,
	})
	if err == nil || !errors.Is(err, planner.ErrInvalidTable) || !strings.Contains(err.Error(), "no.such.option") {
		t.Errorf("Compile = %v, want an invalid-table error naming the option", err)
	}
	const eos = `SET 'execution.checkpointing.dir' = '/var/lib/streamsql';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE a (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'a', 'properties.bootstrap.servers' = 'b:9092',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'p');
CREATE TABLE b WITH ('topic' = 'b', 'sink.transactional-id-prefix' = 'q') LIKE a;
INSERT INTO a SELECT * FROM src;
INSERT INTO b SELECT * FROM src;`
	_, err = job.Compile(context.Background(), "eos.sql", eos, job.Options{
		Hints:  map[string]map[string]string{"b": {"sink.transactional-id-prefix": "p"}},
		Logger: quiet,
	})
	if err == nil || !strings.Contains(err.Error(), "have the same transactional-id prefix 'p'") {
		t.Errorf("Compile with a hint giving two exactly-once sinks one prefix = %v, want the shared-prefix error", err)
	}
}

func TestSetWinsOverTheFile(t *testing.T) {
	j, err := job.Compile(context.Background(), "set.sql", "SET 'execution.checkpointing.interval' = '5s';\n"+twoInserts,
		job.Options{Set: map[string]string{"execution.checkpointing.interval": "250ms", "pipeline.name": "renamed"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := j.Config().Checkpoint.Interval; got != 250*time.Millisecond {
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
	if errs := job.Errors(err); len(errs) != 2 {
		t.Errorf("%d errors, want 2 (no 'bad does not exist'):\n%v", len(errs), err)
	}
}

// TestDefaultsBelowTheFile: Options.Defaults (the CLI's --config) apply
// to keys the file does not set, lose to the file's SET, come back after a
// RESET of the key, and Options.Set wins over all.
func TestDefaultsBelowTheFile(t *testing.T) {
	text := "SET 'execution.checkpointing.interval' = '5s';\n" +
		"SET 'execution.checkpointing.timeout' = '2 min';\n" +
		"RESET 'execution.checkpointing.timeout';\n" + twoInserts
	j, err := job.Compile(context.Background(), "defaults.sql", text, job.Options{
		Defaults: map[string]string{
			"execution.checkpointing.interval":                   "7s",
			"execution.checkpointing.timeout":                    "3 min",
			"execution.checkpointing.min-pause":                  "1s",
			"execution.checkpointing.max-concurrent-checkpoints": "1",
			"pipeline.name": "from-defaults",
		},
		Set: map[string]string{"execution.checkpointing.min-pause": "2s"},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := j.Config().Checkpoint
	if c.Interval != 5*time.Second {
		t.Errorf("interval %v, want 5s (the file's SET over Defaults)", c.Interval)
	}
	if c.Timeout != 3*time.Minute {
		t.Errorf("timeout %v, want 3m (RESET goes back to Defaults)", c.Timeout)
	}
	if c.MinPause != 2*time.Second {
		t.Errorf("min pause %v, want 2s (Set over Defaults)", c.MinPause)
	}
	if j.Name() != "from-defaults" {
		t.Errorf("job name %q, want from-defaults (a Default the file does not set)", j.Name())
	}
}

// TestDescribe: the read-only description of a job's pipelines, and that
// changing it changes nothing in the job.
func TestDescribe(t *testing.T) {
	j, err := job.Compile(context.Background(), "two.sql", twoInserts+
		"INSERT INTO sink SELECT * FROM (VALUES (1), (2), (3)) AS t (n);\n", job.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := j.Describe()
	if len(d) != 3 {
		t.Fatalf("%d pipelines, want 3: %+v", len(d), d)
	}
	if p := d[0]; p.Name != "sink" || p.Query || p.Sink.Connector != "blackhole" || len(p.Sources) != 1 ||
		p.Sources[0].Name != "a" || p.Sources[0].Connector != "datagen" || p.Sources[0].Options["number-of-rows"] != "100" {
		t.Errorf("pipeline 0: %+v", p)
	}
	if p := d[1]; p.Name != "print" || !p.Query || p.Sink.Name != "print" || p.Sink.Connector != "" || p.Sink.Options != nil || len(p.Columns) != 1 || p.Columns[0].Name != "n" ||
		p.Columns[0].Type.Kind != types.KindBigInt {
		t.Errorf("pipeline 1 (the bare SELECT): %+v", p)
	}
	if p := d[2]; p.Name != "sink-2" || p.Sources[0].Connector != "values" || p.Sources[0].Rows != 3 {
		t.Errorf("pipeline 2 (VALUES): %+v", p)
	}
	d[0].Sources[0].Options["number-of-rows"] = "1"
	if got := j.Describe()[0].Sources[0].Options["number-of-rows"]; got != "100" {
		t.Errorf("changing a description changed the job: number-of-rows %q", got)
	}
	if got := j.Pipelines(); strings.Join(got, ",") != "sink,print,sink-2" {
		t.Errorf("Pipelines %q, want the described names", got)
	}
}

// TestRestoreFromReachesTheRuntime: Options.RestoreFrom names the
// checkpoint of the first run; one that does not exist fails the run (not
// its start), naming the path.
func TestRestoreFromReachesTheRuntime(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "chk-00000000000000000042.json")
	j, err := job.Compile(context.Background(), "two.sql", twoInserts,
		job.Options{RestoreFrom: missing, Output: io.Discard, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	err = j.Run(context.Background())
	var se *job.StartError
	if err == nil || errors.As(err, &se) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Run = %v, want a run failure naming %s", err, missing)
	}
}

// TestRestoreFromResumes runs a bounded job with its checkpoints in one
// folder, then the same job with another folder restored from the first
// one's checkpoint: its checkpoints go on after the restored one's id (a
// fresh start would begin at 1).
func TestRestoreFromResumes(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	run := func(dir, restore string) *job.Job {
		t.Helper()
		j, err := job.Compile(context.Background(), "orders.sql", twoInserts, job.Options{
			Set: map[string]string{"execution.checkpointing.dir": dir,
				"execution.checkpointing.externalized-checkpoint-retention": "RETAIN_ON_CANCELLATION"},
			RestoreFrom: restore, Output: io.Discard, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return j
	}
	last := run(first, "").Status().Checkpoints.LastID
	if last == 0 {
		t.Fatal("the first run completed no checkpoint")
	}
	if got := run(second, filepath.Join(first, "orders")).Status().Checkpoints.LastID; got <= last {
		t.Errorf("restored job's last checkpoint %d, want after the restored %d", got, last)
	}
	if _, err := os.Stat(filepath.Join(second, "orders")); err != nil {
		t.Errorf("the restored job writes to its own checkpoint folder: %v", err)
	}
}

// TestTestingFaults: the fault injector of Options.Testing is consulted
// at the runtime's failure points; an injected failure with no restarts
// fails the job with the injected error.
func TestTestingFaults(t *testing.T) {
	faults := (&testkit.Faults{}).On(runtime.BeforePreCommit, 1, testkit.Fail, 0)
	j, err := job.Compile(context.Background(), "two.sql", "SET 'restart-strategy.type' = 'none';\n"+twoInserts,
		job.Options{Output: io.Discard, Logger: quiet, Testing: job.Testing{Faults: faults}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background()); !errors.Is(err, testkit.ErrInjected) {
		t.Fatalf("Run = %v, want the injected failure", err)
	}
	if !faults.Fired(runtime.BeforePreCommit) {
		t.Error("the fault did not fire")
	}
}

// TestHandlerServesTheJob: jobhttp's handler serves a job's status before
// it runs and its metrics after.
func TestHandlerServesTheJob(t *testing.T) {
	j, err := job.Compile(context.Background(), "two.sql", twoInserts, job.Options{Output: io.Discard, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(jobhttp.Handler(j))
	defer srv.Close()
	get := func(path string) string {
		t.Helper()
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s\n%s", path, resp.Status, b)
		}
		return string(b)
	}
	if got := get("/status"); !strings.Contains(got, `"CREATED"`) || !strings.Contains(got, `"two"`) {
		t.Errorf("/status before Run: %s", got)
	}
	if err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := get("/status"); !strings.Contains(got, `"FINISHED"`) {
		t.Errorf("/status after Run: %s", got)
	}
	if got := get("/metrics"); !strings.Contains(got, "streamsql_") {
		t.Errorf("/metrics after Run lacks streamsql_ metrics:\n%s", got)
	}
	if got := get("/healthz"); strings.TrimSpace(got) != "ok" {
		t.Errorf("/healthz: %q", got)
	}
}

// TestImportsNoConnector: package job and the planner leave the choice of
// connectors to the program. Neither depends on a connector (job only on
// print, for bare SELECTs) nor on the Kafka client.
func TestImportsNoConnector(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list imports: %v", err)
	}
	for pkg, allowed := range map[string][]string{
		"github.com/streamsql/streamsql/job":     {"github.com/streamsql/streamsql/connectors/print"},
		"github.com/streamsql/streamsql/planner": nil,
	} {
		out, err := exec.Command(gobin, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/streamsql/streamsql/connectors/") && !slices.Contains(allowed, dep) ||
				strings.HasPrefix(dep, "github.com/twmb/franz-go") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}

// TestWarningKinds: warnings carry a machine-readable kind (one of job's
// constants for the built-in checks) and the place they are about.
func TestWarningKinds(t *testing.T) {
	j, err := job.Compile(context.Background(), "warn.sql", `SET 'execution.checkpointing.unaligned.enabled' = 'true';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE out1 (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'format' = 'json',
  'properties.bootstrap.servers' = 'localhost:9092', 'sink.semantic' = 'exactly-once');
INSERT INTO out1 SELECT id FROM src;
SET 'execution.checkpointing.dir' = '/var/lib/streamsql';
`, job.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[job.WarningKind]job.Warning{}
	for _, w := range j.Warnings() {
		got[w.Kind] = w
	}
	for kind, line := range map[job.WarningKind]int{
		job.WarnIgnoredSetting:   1,
		job.WarnDeprecatedOption: 4,
		job.WarnDerivedOption:    5,
		job.WarnCommitOnStop:     5,
	} {
		w, ok := got[kind]
		if !ok {
			t.Errorf("no warning of kind %q in %v", kind, j.Warnings())
			continue
		}
		if w.Line != line || w.Message == "" {
			t.Errorf("%s warning at line %d (%q), want line %d", kind, w.Line, w.Message, line)
		}
	}
}

// TestFlinkTuningSettingsSayWhatHappens: Flink's distinct-split switch is
// accepted, and when on, a warning (EXPLAIN's Warnings) at the SET says
// what streamsql does instead; mini-batch is honoured: EXPLAIN says how
// the GROUP BY folds its input. Off, they say nothing. Mini-batch without
// a positive allow-latency or size is refused, as Flink refuses it.
func TestFlinkTuningSettingsSayWhatHappens(t *testing.T) {
	text := `SET 'table.exec.mini-batch.enabled' = '%s';
SET 'table.exec.mini-batch.allow-latency' = '2 s';
SET 'table.exec.mini-batch.size' = '%s';
SET 'table.optimizer.distinct-agg.split.enabled' = '%s';
CREATE TABLE src (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out1 (k BIGINT, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out1 SELECT k, COUNT(DISTINCT v) FROM src GROUP BY k;
`
	for _, on := range []string{"true", "false"} {
		j, err := job.Compile(context.Background(), "tuning.sql", fmt.Sprintf(text, on, "5000", on), job.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]string{}
		for _, w := range j.Warnings() {
			if w.Kind == job.WarnIgnoredSetting {
				got[w.Line] = w.Message
			}
		}
		var explain strings.Builder
		if err := j.Explain(&explain); err != nil {
			t.Fatal(err)
		}
		folds := strings.Contains(explain.String(), "mini-batch: each key's rows in up to 5000 rows of an input batch make one change")
		if on == "false" {
			if len(got) > 0 || folds {
				t.Errorf("settings off: warnings %v, folds %v; want none", got, folds)
			}
			continue
		}
		if !strings.Contains(got[4], "does not split a DISTINCT aggregate") || len(got) != 1 {
			t.Errorf("warnings %v, want one at line 4 saying it does not split a DISTINCT aggregate", got)
		}
		if !folds {
			t.Errorf("EXPLAIN does not say the GROUP BY folds mini-batches:\n%s", explain.String())
		}
	}
	for _, size := range []string{"0", "-1"} {
		_, err := job.Compile(context.Background(), "tuning.sql", fmt.Sprintf(text, "true", size, "false"), job.Options{})
		if err == nil || !strings.Contains(err.Error(), "3:") || !strings.Contains(err.Error(), "'table.exec.mini-batch.size' must be greater than 0") {
			t.Errorf("size %s: %v, want an error at line 3 saying the size must be positive", size, err)
		}
	}
}

// TestSettingKeysAndCheck: SettingKeys lists the runtime's and the
// planner's keys with deprecated and ignored names; CheckSettings reports a
// bad value as a *SettingError naming key and value.
func TestSettingKeysAndCheck(t *testing.T) {
	keys := job.SettingKeys()
	if !slices.IsSorted(keys) || len(slices.Compact(slices.Clone(keys))) != len(keys) {
		t.Errorf("SettingKeys not sorted or has duplicates: %q", keys)
	}
	for _, k := range []string{"pipeline.name", "table.local-time-zone", "execution.checkpointing.interval",
		"state.checkpoints.dir", "execution.checkpointing.incremental"} {
		if !slices.Contains(keys, k) {
			t.Errorf("SettingKeys lacks %s", k)
		}
	}
	if err := job.CheckSettings(map[string]string{"execution.checkpointing.interval": "5s"}); err != nil {
		t.Errorf("CheckSettings of a good value: %v", err)
	}
	err := job.CheckSettings(map[string]string{"execution.checkpointing.interval": "soon"})
	var se *job.SettingError
	var ce *jobconfig.ConfigError
	if !errors.As(err, &se) || se.Key != "execution.checkpointing.interval" || se.Value != "soon" || se.Reason == "" ||
		!errors.As(err, &ce) {
		t.Fatalf("CheckSettings = %v (%#v), want a *SettingError of the interval wrapping the runtime's error", err, se)
	}
}
