package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// childEnv makes the test binary run the CLI with the arguments it holds
// (separated by \x1f) instead of the tests.
const childEnv = "STREAMSQL_CLI_CHILD_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(childEnv); ok {
		e := &env{stdout: os.Stdout, stderr: os.Stderr, reg: factory.Default}
		f, err := testkit.FaultsFromEnv()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if f != nil {
			e.testing.Faults = f
		}
		os.Exit(execute(strings.Split(args, "\x1f"), e))
	}
	os.Exit(testkit.RunWithStateHome(m))
}

// syncBuffer is a bytes.Buffer safe for a writer and a concurrent reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// background runs the CLI in process with a signal channel; stop sends
// SIGTERM and returns the exit code.
type background struct {
	stdout, stderr *syncBuffer
	sigs           chan os.Signal
	code           chan int
}

func startCLI(t *testing.T, args ...string) *background {
	t.Helper()
	b := &background{stdout: &syncBuffer{}, stderr: &syncBuffer{}, sigs: make(chan os.Signal, 2), code: make(chan int, 1)}
	e := &env{stdout: b.stdout, stderr: b.stderr, reg: factory.Default, signals: b.sigs, statusEvery: 100 * time.Millisecond,
		exit: func(int) { t.Error("second signal: exit at once called in process") }}
	go func() { b.code <- execute(args, e) }()
	t.Cleanup(func() {
		select {
		case <-b.code:
		default:
			b.sigs <- syscall.SIGTERM
			<-b.code
		}
	})
	return b
}

func (b *background) stop(t *testing.T) int {
	t.Helper()
	b.sigs <- syscall.SIGTERM
	select {
	case c := <-b.code:
		b.code <- c
		return c
	case <-time.After(2 * time.Minute):
		t.Fatalf("the job did not stop; stderr:\n%s", b.stderr.String())
		return -1
	}
}

var addrRE = regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)

func TestRunValuesBareSelect(t *testing.T) {
	job := writeJob(t, "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t(id, name);\n")
	code, stdout, stderr := cli("run", job)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if want := "op[id, name]\n+I[1, a]\n+I[2, b]\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	for _, want := range []string{`msg="job started" job=job`, `msg="job finished" job=job records_in=2 records_out=2`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestRunTwoBareQueries(t *testing.T) {
	job := writeJob(t, "SELECT * FROM (VALUES (1, 'a')) AS t(id, name);\nSELECT * FROM (VALUES (2.5)) AS u(x);\n")
	code, stdout, stderr := cli("run", job)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	// Rows of the two queries may interleave; the headers come first, and
	// every line says which query it belongs to.
	if !strings.HasPrefix(stdout, "1> op[id, name]\n2> op[x]\n") ||
		!strings.Contains(stdout, "\n1> +I[1, a]\n") || !strings.Contains(stdout, "\n2> +I[2.5]\n") || strings.Count(stdout, "\n") != 4 {
		t.Errorf("stdout %q", stdout)
	}
}

const seededJob = `CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen',
  'number-of-rows' = '5', 'seed' = '7', 'fields.name.length' = '4');
`

// seededRows are the rows of seededJob's source.
const seededRows = `+I[-7068421120336901191, 5cqi]
+I[-8620757384865842582, VhNQ]
+I[-8041855895743503270, FArt]
+I[-7868721183746623416, 1LXN]
+I[-3544704722734154906, lav4]
`

func TestRunDatagenBareSelectJSONLogs(t *testing.T) {
	job := writeJob(t, seededJob+"SELECT id, name AS label FROM src;\n")
	code, stdout, stderr := cli("run", "--log-format", "json", job)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if want := "op[id, label]\n" + seededRows; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	var msgs []string
	for line := range strings.Lines(stderr) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("stderr line %q is not JSON: %v", line, err)
		}
		msgs = append(msgs, fmt.Sprint(rec["msg"]))
		if rec["msg"] == "job finished" && rec["records_in"] != float64(5) {
			t.Errorf("job finished with %v records in, want 5", rec["records_in"])
		}
	}
	if !strings.Contains(strings.Join(msgs, "|"), "job started|") || msgs[len(msgs)-1] != "job finished" {
		t.Errorf("log messages %q", msgs)
	}
}

// runChild runs the CLI in a child process (the test binary) and returns
// the command, ready to start, with its outputs.
func runChild(t *testing.T, extraEnv []string, args ...string) (*exec.Cmd, *syncBuffer, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
	cmd.Env = append(cmd.Env, extraEnv...)
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

func TestRunPrintTableInChild(t *testing.T) {
	// A print table writes to the process's standard output.
	job := writeJob(t, seededJob+`CREATE TABLE out1 (id BIGINT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'o');
INSERT INTO out1 SELECT * FROM src;
`)
	cmd, stdout, stderr := runChild(t, nil, "run", job)
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr)
	}
	want := strings.ReplaceAll("\n"+seededRows, "\n+I", "\no> +I")[1:]
	if stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
}

func TestRunExitCodes(t *testing.T) {
	failing := writeJob(t, seededJob+"SELECT CAST(name AS INT) AS n FROM src;\n")
	broken := writeJob(t, "SELECT nope FROM missing;\n")
	good := writeJob(t, "SELECT 1 AS one;\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", good}, 0, `msg="job finished"`},
		{[]string{"run", failing}, 1, `invalid cast: cannot cast \"5cqi\" to INT`},
		{[]string{"run", broken}, 1, "1 error(s)"},
		{[]string{"run", "--from-checkpoint", filepath.Join(t.TempDir(), "none"), good}, 1, `msg="job failed"`},
		{[]string{"run"}, 2, "run takes one job file"},
		{[]string{"run", good, good}, 2, "run takes one job file"},
		{[]string{"run", "--log-format", "xml", good}, 2, "want text or json"},
		{[]string{"run", "--memory-limit", "lots", good}, 2, `--memory-limit "lots"`},
		{[]string{"run", "--memory-limit", "0", good}, 2, "above zero"},
		{[]string{"run", "--memory-limit", "64mb", good}, 0, "memory_limit=67108864"},
		{[]string{"run", "--memory-limit", "off", good}, 0, `msg="job finished"`},
		{[]string{"run", "--set", "novalue", good}, 2, "want key=value"},
		{[]string{"run", "--bogus", good}, 2, "unknown flag"},
		{[]string{"run", "--config", filepath.Join(t.TempDir(), "none.yaml"), good}, 2, "no such file"},
	} {
		before := debug.SetMemoryLimit(-1)
		code, _, stderr := cli(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, want %d; stderr lacks %q?\n%s", c.args, code, c.code, c.want, stderr)
		}
		if after := debug.SetMemoryLimit(-1); after != before {
			t.Errorf("%q: the memory limit is %d after the run, want %d as before it", c.args, after, before)
		}
	}
}

func TestHelpDocumentsExitCodes(t *testing.T) {
	for _, c := range []string{"run", "validate", "explain"} {
		code, stdout, _ := cli(c, "--help")
		if code != 0 || !strings.Contains(stdout, "Exit codes") || !strings.Contains(stdout, "2  usage error") && !strings.Contains(stdout, "2 the command line") ||
			!strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "--config FILE") {
			t.Errorf("%s --help: exit %d, output:\n%s", c, code, stdout)
		}
	}
	_, stdout, _ := cli("--help")
	if !strings.Contains(stdout, "0  done") || !strings.Contains(stdout, "1  the job failed") {
		t.Errorf("streamsql --help lacks the exit codes:\n%s", stdout)
	}
}

// unboundedJob runs until stopped: generated rows into a blackhole.
const unboundedJob = `CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '200', 'seed' = '1');
CREATE TABLE sink1 (id BIGINT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO sink1 SELECT * FROM src;
`

func TestSIGTERMStopsWithFinalCheckpoint(t *testing.T) {
	dir := t.TempDir()
	// No periodic checkpoint (1 h): a checkpoint file can only be the
	// final one.
	job := writeJob(t, unboundedJob)
	cmd, _, stderr := runChild(t, nil, "run", "--set", "execution.checkpointing.interval=1h",
		"--set", "execution.checkpointing.dir="+dir, "--job-name", "sigjob", job)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the job to start", func() bool { return strings.Contains(stderr.String(), `msg="job started"`) })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v; stderr:\n%s", err, stderr)
	}
	if !strings.Contains(stderr.String(), "stopping gracefully") || !strings.Contains(stderr.String(), `msg="job stopped"`) {
		t.Errorf("stderr:\n%s", stderr)
	}
	files, err := filepath.Glob(filepath.Join(dir, "sigjob", "chk-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no checkpoint written under %s (%v)", dir, err)
	}
	var ids []int64
	for _, f := range files {
		md, err := checkpoint.Load(f, "sigjob")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, md.ID)
		if len(md.Sources) == 0 {
			t.Errorf("checkpoint %s has no source positions", f)
		}
	}
	t.Logf("checkpoints %v", ids)
}

func TestSecondSignalStopsAtOnce(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, unboundedJob)
	// The final checkpoint's pre-commit is delayed by ten minutes: only the
	// second signal can end the process in time.
	cmd, _, stderr := runChild(t, []string{testkit.FaultsEnv + "=before-pre-commit@1:delay:10m"}, "run",
		"--set", "execution.checkpointing.interval=1h", "--set", "execution.checkpointing.dir="+dir, job)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the job to start", func() bool { return strings.Contains(stderr.String(), `msg="job started"`) })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the graceful stop", func() bool { return strings.Contains(stderr.String(), "stopping gracefully") })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want exit status 1; stderr:\n%s", err, stderr)
	}
	if !strings.Contains(stderr.String(), "stopping at once") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "job", "chk-*")); len(files) != 0 {
		t.Errorf("checkpoint files %v: the final checkpoint should not have completed", files)
	}
}

func TestStatusLogsAndTerminalLine(t *testing.T) {
	job := writeJob(t, unboundedJob)
	b := startCLI(t, "run", "--set", "execution.checkpointing.interval=100ms", job)
	waitFor(t, "status and checkpoint logs", func() bool {
		s := b.stderr.String()
		return strings.Contains(s, `msg=status state=RUNNING`) && strings.Contains(s, `msg="checkpoint completed"`)
	})
	if code := b.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}

	// Terminal mode: the status line, redrawn with carriage returns.
	var stderr syncBuffer
	sigs := make(chan os.Signal, 1)
	done := make(chan int, 1)
	e := &env{stdout: io.Discard, stderr: &stderr, reg: factory.Default, signals: sigs, terminal: 1}
	go func() { done <- execute([]string{"run", "--set", "execution.checkpointing.interval=100ms", job}, e) }()
	waitFor(t, "a status line", func() bool {
		s := stderr.String()
		return strings.Contains(s, "\r\033[KRUNNING  in ") && strings.Contains(s, "/s  checkpoint ")
	})
	sigs <- syscall.SIGTERM
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestStatusLineProgress(t *testing.T) {
	job := writeJob(t, seededJob+"SELECT * FROM src;\n")
	plan, err := (&jobFlags{}).compile(context.Background(), &env{stderr: io.Discard}, job)
	if err != nil {
		t.Fatal(err)
	}
	if n := totalRows(plan); n != 5 {
		t.Fatalf("totalRows %d, want 5", n)
	}
	now := time.Unix(1000, 0)
	st := runtime.Status{State: runtime.StateRunning, PendingCommits: 2, OldestPendingCommitAge: 3 * time.Second,
		Checkpoints: runtime.CheckpointStatus{LastID: 4, LastCompleted: now.Add(-5 * time.Second)}}
	got := statusLine(st, now, 1500, 1499.6, 50, 100)
	if want := "RUNNING  in 1500/s  out 1500/s  checkpoint 4 (5s ago)  pending commits 2 (oldest 3s)  [##########..........]  50%"; got != want {
		t.Errorf("status line %q, want %q", got, want)
	}
	if got := statusLine(runtime.Status{State: runtime.StateRunning}, now, 0, 0, 7, 0); got != "RUNNING  in 0/s  out 0/s  no checkpoint yet" {
		t.Errorf("status line of an unbounded job without checkpoints: %q", got)
	}
	// Unknown totals (an unbounded source) give no progress.
	plan, err = (&jobFlags{}).compile(context.Background(), &env{stderr: io.Discard}, writeJob(t, unboundedJob))
	if err != nil {
		t.Fatal(err)
	}
	if n := totalRows(plan); n != 0 {
		t.Errorf("totalRows of an unbounded job %d", n)
	}
}

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("pipeline:\n  name: from-config\nexecution.checkpointing:\n  interval: 7s\n  timeout: 3 min\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const query = "SELECT 1 AS one;\n"
	for _, c := range []struct {
		file string
		args []string
		want []string
	}{
		{query, nil, []string{"Job: from-config", "every 7 s", "timeout 3 min"}},
		{"SET 'pipeline.name' = 'from-file';\nSET 'execution.checkpointing.interval' = '9s';\n" + query, nil,
			[]string{"Job: from-file", "every 9 s", "timeout 3 min"}},
		{"SET 'pipeline.name' = 'from-file';\n" + query, []string{"--set", "pipeline.name=from-flag"},
			[]string{"Job: from-flag", "every 7 s"}},
		// A RESET in the job file gives the config file's value back.
		{"SET 'pipeline.name' = 'x';\nRESET 'pipeline.name';\n" + query, nil, []string{"Job: from-config"}},
	} {
		args := append([]string{"explain", "--config", cfg}, c.args...)
		code, stdout, stderr := cli(append(args, writeJob(t, c.file))...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%q with %q: explain lacks %q:\n%s", c.file, c.args, w, stdout)
			}
		}
	}
	// run and validate read it too.
	code, stdout, _ := cli("validate", "--config", cfg, writeJob(t, query))
	if code != 0 || !strings.Contains(stdout, "(job from-config,") {
		t.Errorf("validate: exit %d, %q", code, stdout)
	}
	code, _, stderr := cli("run", "--config", cfg, writeJob(t, query))
	if code != 0 || !strings.Contains(stderr, "job=from-config") || !strings.Contains(stderr, "checkpoint_interval=7s") {
		t.Errorf("run: exit %d, %q", code, stderr)
	}
}

func TestConfigErrors(t *testing.T) {
	job := writeJob(t, "SELECT 1 AS one;\n")
	for _, c := range []struct{ yaml, want string }{
		{"execution.checkpointing.intervl: 5s\n", "'execution.checkpointing.intervl': unknown option; did you mean 'execution.checkpointing.interval'?"},
		{"execution:\n  checkpointing:\n    mode: EXACTLY_TWICE\n", "'execution.checkpointing.mode': 'EXACTLY_TWICE': must be one of"},
		{"pipeline.nam: x\n", "did you mean 'pipeline.name'?"},
		{"restart-strategy.type: [a, b]\n", "want a single value"},
		{"- a\n", "want a mapping"},
		{"a: [\n", "not valid YAML"},
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"run", "validate", "explain"} {
			code, stdout, stderr := cli(cmd, "--config", path, job)
			if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stdout, "+I[") {
				t.Errorf("%s with %q: exit %d, stderr %q; want exit 2 and %q", cmd, c.yaml, code, stderr, c.want)
			}
		}
	}
	// An empty file is no options.
	path := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli("validate", "--config", path, job); code != 0 {
		t.Errorf("empty config: exit %d, %s", code, stderr)
	}
}

func TestHTTPEndpoints(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	job := writeJob(t, unboundedJob)
	b := startCLI(t, "run", "--http", "127.0.0.1:0", "--set", "execution.checkpointing.interval=100ms", "--job-name", "web", job)
	var addr string
	waitFor(t, "the HTTP address", func() bool {
		m := addrRE.FindStringSubmatch(b.stderr.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(body)
	}
	waitFor(t, "records and a checkpoint in /status", func() bool {
		// The fields of /status this test reads, decoded on their own so the
		// check does not lean on the server's type.
		var st struct {
			Job   string `json:"job"`
			State string `json:"state"`
			Tasks []struct {
				RecordsIn int64 `json:"records_in"`
			} `json:"tasks"`
			Checkpoints struct {
				Completed int64 `json:"completed"`
			} `json:"checkpoints"`
		}
		code, body := get("/status")
		if code != 200 {
			t.Fatalf("/status: %d %s", code, body)
		}
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatalf("/status: %v: %s", err, body)
		}
		if st.Job != "web" {
			t.Fatalf("/status: %+v", st)
		}
		if st.State == "CREATED" && len(st.Tasks) == 0 {
			return false // the server answers before the job's first run starts
		}
		if len(st.Tasks) != 2 {
			t.Fatalf("/status: %+v", st)
		}
		return st.State == "RUNNING" && st.Tasks[0].RecordsIn > 0 && st.Checkpoints.Completed > 0
	})
	code, body := get("/metrics")
	for _, want := range []string{
		`streamsql_task_records_in_total{index="0",job="web",kind="source",name="sink1/src"}`,
		`streamsql_checkpoints_completed_total{job="web"}`,
		`streamsql_job_state{job="web",state="RUNNING"} 1`,
		`streamsql_pending_commits{job="web"} 0`,
		"# TYPE streamsql_task_records_in_total counter",
	} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code := b.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Errorf("the HTTP server still answers after the run")
	}
}

const secret = "hunter2-Sup3rS3cret"

func TestSecretsNeverShown(t *testing.T) {
	t.Setenv("SECRET", secret)
	dir := t.TempDir()
	job := writeJob(t, `SET 'execution.checkpointing.interval' = '100ms';
CREATE TABLE secure (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't',
  'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json',
  'properties.security.protocol' = 'SASL_SSL', 'properties.sasl.mechanism' = 'SCRAM-SHA-512',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="${SECRET}";');
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100', 'seed' = '3');
EXPLAIN INSERT INTO secure SELECT id FROM src;
SELECT id FROM src;
`)
	var outputs []string
	for _, c := range []string{"validate", "explain"} {
		code, stdout, stderr := cli(c, job)
		if code != 0 {
			t.Fatalf("%s: exit %d, %s", c, code, stderr)
		}
		outputs = append(outputs, stdout, stderr)
	}
	b := startCLI(t, "run", "--http", "127.0.0.1:0", "--set", "execution.checkpointing.dir="+dir, job)
	var addr string
	waitFor(t, "the HTTP address and a checkpoint", func() bool {
		m := addrRE.FindStringSubmatch(b.stderr.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil && strings.Contains(b.stderr.String(), "checkpoint completed")
	})
	for _, p := range []string{"/status", "/metrics"} {
		resp, err := http.Get("http://" + addr + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		outputs = append(outputs, string(body))
	}
	if code := b.stop(t); code != 0 {
		t.Fatalf("exit %d: %s", code, b.stderr)
	}
	outputs = append(outputs, b.stdout.String(), b.stderr.String())
	if !strings.Contains(b.stdout.String(), "op[id]\n+I[") {
		t.Errorf("the bare query printed %q", b.stdout.String()[:min(100, len(b.stdout.String()))])
	}
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		n++
		outputs = append(outputs, string(data))
		return err
	})
	if err != nil || n == 0 {
		t.Fatalf("checkpoint files: %d, %v", n, err)
	}
	for i, o := range outputs {
		if strings.Contains(o, secret) {
			t.Errorf("output %d shows the secret:\n%s", i, o)
		}
	}
}

func TestEmbeddedTopicsOnlyForTheEmbeddedBroker(t *testing.T) {
	job := writeJob(t, `CREATE TABLE a (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'ta;tb',
  'properties.bootstrap.servers' = '127.0.0.1:1234', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
CREATE TABLE b (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'elsewhere',
  'properties.bootstrap.servers' = 'broker:9092', 'format' = 'json');
INSERT INTO b SELECT * FROM a;
`)
	plan, err := (&jobFlags{}).compile(context.Background(), &env{stderr: io.Discard}, job)
	if err != nil {
		t.Fatal(err)
	}
	if got := embeddedTopics(plan, "127.0.0.1:1234"); strings.Join(got, ",") != "ta,tb" {
		t.Errorf("topics %q, want ta, tb", got)
	}
}
