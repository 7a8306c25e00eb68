package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/factory"
)

func writeJob(t *testing.T, text string) string {
	t.Helper()
	stateHome(t)
	path := filepath.Join(t.TempDir(), "job.sql")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func cli(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

const cleanJob = `SET 'execution.checkpointing.interval' = '5s'; SET 'execution.checkpointing.dir' = '/var/lib/streamsql';
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE out1 (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'out',
  'properties.bootstrap.servers' = '${BOOTSTRAP:-localhost:9092}', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO out1 SELECT id, UPPER(name) FROM src WHERE id > 0;
`

func TestVersionAndUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "streamsql ") {
		t.Fatalf("version: exit %d, output %q", code, out.String())
	}
	for _, args := range [][]string{
		{"bogus"}, {"validate"}, {"explain", "a.sql", "b.sql"}, {"validate", "--bogus", "a.sql"},
		{"explain", "--set", "novalue", "a.sql"}, {"version", "extra"},
	} {
		code, _, stderr := cli(args...)
		if code != 2 || !strings.Contains(stderr, "usage") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and a usage hint", args, code, stderr)
		}
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, c := range []string{"validate", "explain"} {
		code, stdout, _ := cli(c, "--help")
		if code != 0 || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "--set key=value") {
			t.Errorf("%s --help: exit %d, output %q", c, code, stdout)
		}
	}
}

func TestValidateClean(t *testing.T) {
	code, stdout, stderr := cli("validate", writeJob(t, cleanJob))
	if code != 0 || !strings.Contains(stdout, "OK (job job, 1 pipeline(s), 1 warning(s))") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The derived transactional-id prefix is warned about, with its position.
	if !strings.Contains(stderr, "job.sql:6:1: warning: sink 'out1' has no 'sink.transactional-id-prefix'; using 'job-out1'") {
		t.Errorf("stderr %q lacks the prefix warning", stderr)
	}
}

func TestValidateListsEveryError(t *testing.T) {
	job := `CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-secnd' = '1');
CREATE TABLE out1 (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT id FROM missing;
INSERT INTO out1 SELECT nope FROM src;
`
	code, stdout, stderr := cli("validate", writeJob(t, job))
	if code != 1 || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	for _, want := range []string{
		"job.sql:1:61: invalid options for table 'default_catalog.default_database.src'",
		"rows-per-secnd (did you mean 'rows-per-second'?)",
		"job.sql:3:33: table or view 'missing' does not exist",
		"job.sql: 2 error(s)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestValidateMissingFile(t *testing.T) {
	code, _, stderr := cli("validate", filepath.Join(t.TempDir(), "none.sql"))
	if code != 1 || !strings.Contains(stderr, "no such file") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestExplainWithSet(t *testing.T) {
	path := writeJob(t, cleanJob)
	code, stdout, stderr := cli("explain", "--set", "pipeline.name=orders-v2", "--set", "execution.checkpointing.interval = 1 min", path)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"Job: orders-v2",
		"Checkpointing: every 1 min, mode EXACTLY_ONCE",
		"transactional-id prefix: orders-v2-out1 (derived from job name and table)",
		"Filter: (`id` > CAST(0 AS BIGINT))",
		"name := UPPER(`name`)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("explain output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestEnvironmentVariables(t *testing.T) {
	t.Setenv("BOOTSTRAP", "broker:9999")
	code, stdout, _ := cli("explain", writeJob(t, cleanJob))
	if code != 0 || !strings.Contains(stdout, "'properties.bootstrap.servers'='broker:9999'") {
		t.Fatalf("exit %d, output %q", code, stdout)
	}
}

// TestParseAndPlanErrorsTogether checks that validate, explain and run
// report a file's parse errors and planning errors in one run, in file
// order, without the errors that only follow from a statement that did
// not parse (the INSERT into the table whose CREATE failed).
func TestParseAndPlanErrorsTogether(t *testing.T) {
	job := `CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE out1 (id BIGINT,) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT id FROM src;
INSERT INTO src2 SELECT id FROM src;
SELECT FROM src;
`
	path := writeJob(t, job)
	want := path + `:2:30: unexpected ')' after ',' in the column list of CREATE TABLE
  CREATE TABLE out1 (id BIGINT,) WITH ('connector' = 'blackhole');
                               ^

` + path + `:4:13: table or view 'src2' does not exist (did you mean src?)
  INSERT INTO src2 SELECT id FROM src;
              ^

` + path + `:5:8: expected an expression, found reserved word FROM
  SELECT FROM src;
         ^

` + path + `: 3 error(s)
`
	for _, cmd := range []string{"validate", "explain", "run"} {
		code, stdout, stderr := cli(cmd, path)
		if code != 1 || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q; want 1 and nothing", cmd, code, stdout)
		}
		if stderr != want {
			t.Errorf("%s: stderr\n%s\nwant\n%s", cmd, stderr, want)
		}
	}
}

// TestCLIIsAClientOfJob: the CLI plans, validates, explains and runs jobs
// through package job (and serves metrics through job/jobhttp, whose
// server Go's internal rule keeps to itself), never through the planner.
// It uses runtime only for the types job hands out (Status,
// CommitLostError) and the settings' declarations.
func TestCLIIsAClientOfJob(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list imports: %v", err)
	}
	out, err := exec.Command(gobin, "list", "-f", `{{join .Imports "\n"}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := strings.Fields(string(out))
	for _, want := range []string{"github.com/streamsql/streamsql/job", "github.com/streamsql/streamsql/job/jobhttp"} {
		if !strings.Contains(" "+strings.Join(imports, " ")+" ", " "+want+" ") {
			t.Errorf("the CLI does not import %s", want)
		}
	}
	for _, imp := range imports {
		switch {
		case strings.HasPrefix(imp, "github.com/streamsql/streamsql/planner"),
			imp == "github.com/streamsql/streamsql/ddl":
			t.Errorf("the CLI imports %s; it should go through package job", imp)
		}
	}
}

// stateHomes records the tests that have a state home of their own.
var stateHomes sync.Map

// stateHome gives test t, once, an XDG_STATE_HOME of its own and returns
// it: the jobs a test runs without execution.checkpointing.dir keep their
// checkpoints in the default folder under it, so tests whose jobs share a
// name ("job", from writeJob) do not restore each other's checkpoints.
// The child processes a test starts inherit it.
func stateHome(t *testing.T) string {
	t.Helper()
	if dir, ok := stateHomes.Load(t.Name()); ok {
		return dir.(string)
	}
	dir := t.TempDir()
	stateHomes.Store(t.Name(), dir)
	t.Setenv("XDG_STATE_HOME", dir)
	return dir
}

// TestHelpListsEveryConnectorAndThePage: the top-level --help lists every
// registered connector and format (a new user learns what 'connector' =
// ... takes without the docs), and run --help names the status page at /
// beside /status and /metrics.
func TestHelpListsEveryConnectorAndThePage(t *testing.T) {
	code, stdout, _ := cli("--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	names := append(factory.Default.Connectors(), factory.Default.Formats()...)
	if len(names) < 10 {
		t.Fatalf("only %d connectors and formats registered: %v", len(names), names)
	}
	for _, n := range names {
		if !strings.Contains(stdout, "\n  "+n+" ") {
			t.Errorf("streamsql --help does not list %q:\n%s", n, stdout)
		}
	}
	_, stdout, _ = cli("run", "--help")
	if !strings.Contains(stdout, "status page for people at /") || !strings.Contains(stdout, "/status") || !strings.Contains(stdout, "/metrics") {
		t.Errorf("run --help does not name the / page, /status and /metrics:\n%s", stdout)
	}
}
