package exactlyonce

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// roleSQL is the child role that runs a job file.
const roleSQL = "sql"

// The child's environment: the job file, the job's name and the settings
// that win over the file's (key=value lines).
const (
	envFile = "EO_JOB_FILE"
	envName = "EO_JOB_NAME"
	envSet  = "EO_JOB_SET"
)

// childTimeout bounds one child's run: a hung job fails its test instead
// of hanging it.
const childTimeout = 3 * time.Minute

// sqlChild compiles and runs the job file of the environment with the
// faults of testkit.FaultsEnv; it exits 0 when the job finished and 3 when
// it failed, saying why on standard error.
func sqlChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "sql child:", err); return 3 }
	text, err := os.ReadFile(os.Getenv(envFile))
	if err != nil {
		return fail(err)
	}
	set := map[string]string{}
	for line := range strings.SplitSeq(os.Getenv(envSet), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			set[k] = v
		}
	}
	f, err := testkit.FaultsFromEnv()
	if err != nil {
		return fail(err)
	}
	var faults runtime.FaultInjector
	if f != nil {
		faults = f
	}
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	j, err := job.Compile(ctx, filepath.Base(os.Getenv(envFile)), string(text), job.Options{JobName: os.Getenv(envName), Set: set,
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Testing: job.Testing{Faults: faults}})
	if err != nil {
		return fail(err)
	}
	if err := j.Run(ctx); err != nil {
		return fail(err)
	}
	return 0
}

// jobFile is a job file a child runs, with its settings.
type jobFile struct {
	// name is the job's name; dir holds the file and the checkpoints.
	name, dir string
	// text is the job file.
	text string
	// set are settings over the file's.
	set map[string]string
}

// env returns the child's environment for a run with the given faults.
func (j jobFile) env(t *testing.T, faults string) []string {
	t.Helper()
	path := filepath.Join(j.dir, "job.sql")
	if err := os.WriteFile(path, []byte(j.text), 0o644); err != nil {
		t.Fatal(err)
	}
	var set []string
	for k, v := range j.set {
		set = append(set, k+"="+v)
	}
	return []string{envFile + "=" + path, envName + "=" + j.name, envSet + "=" + strings.Join(set, "\n"),
		testkit.FaultsEnv + "=" + faults}
}

// run runs the job in a child with the fault rules faults (testkit's
// syntax; "" for none), SIGKILLs it killAfter after its start when
// killAfter is positive, and reports whether it died of SIGKILL (a fault
// rule's or the timer's). A child that fails otherwise fails the test.
func (j jobFile) run(t *testing.T, faults string, killAfter time.Duration) (killed bool) {
	t.Helper()
	killed, _, err := crashtest.Exec(t, crashtest.Spec{Role: roleSQL, Env: j.env(t, faults)}, killAfter)
	if err != nil {
		t.Fatalf("faults %q: %v", faults, err)
	}
	return killed
}

// finish runs the job to its end without faults: it must finish.
func (j jobFile) finish(t *testing.T) {
	t.Helper()
	if j.run(t, "", 0) {
		t.Fatal("the job was killed without a fault")
	}
}

// soak reports whether STREAMSQL_SOAK=1 asks for the long runs.
func soak() bool { return os.Getenv("STREAMSQL_SOAK") == "1" }
