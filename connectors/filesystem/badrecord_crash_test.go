package filesystem_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// The bad-record crash test runs a filesystem → filesystem SQL job whose
// source has 'scan.bad-record.policy' = 'skip' in a child process (this
// test binary, re-executed as the role "bad-record" with badChildEnv
// naming its directory),
// SIGKILLs it at failure points of the checkpoint protocol and at random
// moments, restarts it until it finishes, and checks that the committed
// files hold every good record exactly once and nothing of the skipped
// ones: a restarted source resumes from its checkpointed byte offsets,
// past the records it skipped.
const badChildEnv = "STREAMSQL_FS_BADRECORD_DIR"

func badChildSQL(dir string) string {
	return `SET 'execution.checkpointing.interval' = '10ms';
` + badRecordSQL(filepath.Join(dir, "in"), filepath.Join(dir, "out"), "skip", "")
}

// badChild runs the job with the faults of testkit.FaultsEnv; it exits 0
// when the job finished.
func badChild(dir string) int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "bad-record child:", err); return 3 }
	opts := job.Options{Registry: job.NewRegistry(), JobName: "fsbad",
		Set:    map[string]string{"restart-strategy.type": "none", "execution.checkpointing.dir": filepath.Join(dir, "ckpt")},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))}
	faults, err := testkit.FaultsFromEnv()
	if err != nil {
		return fail(err)
	}
	if faults != nil {
		opts.Testing.Faults = faults
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := job.Compile(ctx, "bad.sql", badChildSQL(dir), opts)
	if err != nil {
		return fail(err)
	}
	if err := j.Run(ctx); err != nil {
		return fail(err)
	}
	return 0
}

// badRig runs the bad-record job in child processes over one directory.
type badRig struct {
	dir  string
	good []string // the good records, sorted
}

// newBadRig writes files input files of n records each (makeBadInput).
func newBadRig(t *testing.T, files, n int) badRig {
	r := badRig{dir: t.TempDir()}
	in := makeBadInput(n)
	for i := range files {
		writeFile(t, filepath.Join(r.dir, "in", fmt.Sprintf("d%d", i)), "part.json", in.text)
		r.good = append(r.good, in.good...)
	}
	slices.Sort(r.good)
	return r
}

// run runs the child with faults, SIGKILLed after killAfter when it is
// positive, and reports whether it died of SIGKILL.
func (r badRig) run(t *testing.T, faults string, killAfter time.Duration) (killed bool) {
	t.Helper()
	return crashtest.Run(t, crashtest.Spec{Role: "bad-record", Env: []string{badChildEnv + "=" + r.dir, testkit.FaultsEnv + "=" + faults}}, killAfter)
}

// finish runs the job until it ends and checks the committed output.
func (r badRig) finish(t *testing.T) {
	t.Helper()
	if r.run(t, "", 0) {
		t.Fatal("child killed without a fault")
	}
	got := committedLines(t, filepath.Join(r.dir, "out"))
	if slices.Equal(got, r.good) {
		return
	}
	seen := map[string]int{}
	for _, g := range got {
		seen[g]++
	}
	var missing, dup, other []string
	for _, w := range r.good {
		switch seen[w] {
		case 0:
			missing = append(missing, w)
		case 1:
		default:
			dup = append(dup, w)
		}
		delete(seen, w)
	}
	for g := range seen {
		other = append(other, g)
	}
	first := func(s []string) []string { return s[:min(3, len(s))] }
	t.Fatalf("output has %d lines, want %d good records once each: %d missing (%q...), %d twice (%q...), %d not good (%q...)",
		len(got), len(r.good), len(missing), first(missing), len(dup), first(dup), len(other), first(other))
}

// TestBadRecordSkipCrash SIGKILLs the skip job at failure points of the
// checkpoint protocol and at random moments, restarts it until it
// finishes, and checks every good record is committed once and no bad
// one. STREAMSQL_SOAK=1 kills it 100 times over more records.
func TestBadRecordSkipCrash(t *testing.T) {
	for _, p := range []runtime.FaultPoint{runtime.BeforePreCommit, runtime.AfterPreCommit,
		runtime.AfterCheckpointWritten, runtime.AfterCommit} {
		t.Run(string(p), func(t *testing.T) {
			r := newBadRig(t, 2, 3000)
			rule := fmt.Sprintf("%s@1:kill", p)
			if !r.run(t, rule, 0) {
				t.Fatalf("child was not killed at %s", rule)
			}
			r.finish(t)
		})
	}
	t.Run("random", func(t *testing.T) {
		kills, files, n := 5, 4, 5000
		if os.Getenv("STREAMSQL_SOAK") == "1" {
			kills, files, n = 100, 8, 50000
		}
		r := newBadRig(t, files, n)
		rng := crashtest.Rand(t, 2)
		got, runs := killRandomly(t, kills, func() bool {
			return r.run(t, "", time.Duration(30+rng.IntN(200))*time.Millisecond)
		})
		r.finish(t)
		t.Logf("%d SIGKILLs in %d runs; every good record committed once, no bad one", got, runs)
		if os.Getenv("STREAMSQL_SOAK") == "1" && got < kills {
			t.Fatalf("only %d kills before the job finished", got)
		}
	})
}
