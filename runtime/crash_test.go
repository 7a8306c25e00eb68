package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// Child processes (internal/testrig/crashtest): the test binary re-executes
// itself as the child role "job" (jobChild), which runs the rig's job in
// the directory childDirEnv names with the faults of testkit.FaultsEnv and
// exits 0 when the job finished.
const (
	childDirEnv = "STREAMSQL_RUNTIME_CHILD_DIR"
	childPerEnv = "STREAMSQL_RUNTIME_CHILD_PER"
	// childRetentionEnv, when set, is the child's checkpoint retention
	// (jobconfig.Retention as a number); the rig's default otherwise.
	childRetentionEnv = "STREAMSQL_RUNTIME_CHILD_RETENTION"
	// childChainedEnv, when set, gives each of the child's two sinks a
	// pipeline of its own (rig.split), so that their tasks run chained
	// with the source tasks, and the child writes to <dir>/tasks how many
	// of its tasks its status showed chained ("chained/all").
	childChainedEnv = "STREAMSQL_RUNTIME_CHILD_CHAINED"
)

// childRoles are the roles of this package's child processes.
var childRoles = map[string]func() int{"job": jobChild, "count": countChild, "window": windowChild}

// childSpec is the child process that runs the rig's job in dir.
func childSpec(dir string, per int64, env ...string) crashtest.Spec {
	return crashtest.Spec{Role: "job", Env: append([]string{childDirEnv + "=" + dir, childPerEnv + "=" + strconv.FormatInt(per, 10)}, env...)}
}

func childRig(dir string, per int64) *rig {
	return &rig{dir: dir, partitions: 4, per: per, srcPar: 2, sinkPar: 2, sinks: 2,
		interval: 10 * time.Millisecond, delay: 200 * time.Microsecond, batch: 8}
}

func childRigChained(dir string, per int64) *rig {
	r := childRig(dir, per)
	r.split = true
	return r
}

// jobChild runs the rig's job in the child: 0 when it finished, 2 for a
// bad environment, 3 when the job failed.
func jobChild() int {
	dir := os.Getenv(childDirEnv)
	per, err := strconv.ParseInt(os.Getenv(childPerEnv), 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: bad", childPerEnv, err)
		return 2
	}
	f, err := testkit.FaultsFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	r := childRig(dir, per)
	if os.Getenv(childChainedEnv) != "" {
		r = childRigChained(dir, per)
	}
	if f != nil {
		r.faults = f
	}
	spec := r.spec()
	spec.Config.Restart.Strategy = jobconfig.RestartNone
	if v := os.Getenv(childRetentionEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child: bad", childRetentionEnv, err)
			return 2
		}
		spec.Config.Checkpoint.Retention = jobconfig.Retention(n)
	}
	j, err := runtime.NewJob(spec)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		err = j.Run(ctx)
		cancel()
	}
	if err == nil && os.Getenv(childChainedEnv) != "" {
		// The status keeps the last run's tasks after Run returns; a run
		// that restored a checkpoint taken after the sources ended (the
		// previous child was killed as it finished) ran none.
		if chained, all := chainedTasks(j); all > 0 {
			err = os.WriteFile(filepath.Join(dir, "tasks"), fmt.Appendf(nil, "%d/%d", chained, all), 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	return 0
}

// runChild runs the job in a child process, SIGKILLing it after killAfter
// when that is positive, with env (KEY=VALUE) added to its environment. It
// reports whether the child died of SIGKILL; any other failure fails t.
func runChild(t *testing.T, dir string, per int64, faults string, killAfter time.Duration, env ...string) (killed bool) {
	t.Helper()
	return crashtest.Run(t, childSpec(dir, per, append([]string{testkit.FaultsEnv + "=" + faults}, env...)...), killAfter)
}

// finishChild runs the job without faults until it finishes.
func finishChild(t *testing.T, dir string, per int64) {
	t.Helper()
	if runChild(t, dir, per, "", 0) {
		t.Fatal("child killed without a fault")
	}
}

// TestFailurePointsSIGKILL kills a child process at each failure point (3
// times each, at different hits), restarts it, and checks that the
// committed output equals the input exactly once, in order per partition.
func TestFailurePointsSIGKILL(t *testing.T) {
	const per = 800
	for _, p := range statelessFaultPoints() {
		for at := 1; at <= 3; at++ {
			t.Run(fmt.Sprintf("%s@%d", p, at), func(t *testing.T) {
				dir := t.TempDir()
				rule := fmt.Sprintf("%s@%d:kill", p, at)
				switch p {
				case runtime.DuringRecovery:
					if !runChild(t, dir, per, fmt.Sprintf("%s@%d:kill", runtime.AfterCheckpointWritten, at), 0) {
						t.Fatal("child was not killed after a checkpoint was written")
					}
					rule = fmt.Sprintf("%s@1:kill", p)
				case runtime.CommitDelay:
					// Hold the commit back for several intervals, then die.
					rule = fmt.Sprintf("%s@%d:kill:60ms", p, at)
				}
				if !runChild(t, dir, per, rule, 0) {
					t.Fatalf("child was not killed at %s", rule)
				}
				finishChild(t, dir, per)
				r := childRig(dir, per)
				r.spec()
				r.verify(t, r.full())
			})
		}
	}
}

// TestRandomSIGKILL kills the child at random times (the seed is logged),
// restarts it each time, and checks the output. It fails when no kill
// happened, which would prove nothing. STREAMSQL_SOAK=1 makes it a soak
// test of at least 100 kills.
func TestRandomSIGKILL(t *testing.T) {
	kills, per := 6, int64(2000)
	if os.Getenv("STREAMSQL_SOAK") == "1" {
		kills, per = 100, 200000
	}
	dir := t.TempDir()
	rng := crashtest.Rand(t, 1)
	got := 0
	runs := 0
	for got < kills {
		runs++
		if runChild(t, dir, per, "", time.Duration(10+rng.IntN(190))*time.Millisecond) {
			got++
			continue
		}
		break // the job finished before the kill
	}
	finishChild(t, dir, per)
	r := childRig(dir, per)
	r.spec()
	r.verify(t, r.full())
	t.Logf("%d SIGKILLs in %d runs; output exactly once", got, runs)
	if got == 0 {
		t.Fatal("the job finished before the first kill: no SIGKILL was tested")
	}
	if os.Getenv("STREAMSQL_SOAK") == "1" && got < kills {
		t.Fatalf("only %d kills before the job finished", got)
	}
}

// TestChainedFailurePointsSIGKILL is TestFailurePointsSIGKILL with each sink
// in a pipeline of its own, whose tasks run chained with the source tasks
// (the child's status says so after its last run): killed at each failure point (twice each, at
// different hits) and at random times, restarted, the committed output is
// the input exactly once, in order per partition.
func TestChainedFailurePointsSIGKILL(t *testing.T) {
	const per = 800
	one := childChainedEnv + "=1"
	check := func(t *testing.T, dir string, finish bool) {
		t.Helper()
		if finish && runChild(t, dir, per, "", 0, one) {
			t.Fatal("child killed without a fault")
		}
		tasks, err := os.ReadFile(filepath.Join(dir, "tasks"))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			t.Log("the last run had no task to run: the kill came after the final checkpoint")
		case err != nil || string(tasks) != "8/8":
			t.Fatalf("chained/all tasks of the last run: %q (%v), want 8/8", tasks, err)
		}
		r := childRigChained(dir, per)
		r.spec()
		r.verify(t, r.full())
	}
	for _, p := range statelessFaultPoints() {
		for at := 1; at <= 2; at++ {
			t.Run(fmt.Sprintf("%s@%d", p, at), func(t *testing.T) {
				dir := t.TempDir()
				rule := fmt.Sprintf("%s@%d:kill", p, at)
				switch p {
				case runtime.DuringRecovery:
					if !runChild(t, dir, per, fmt.Sprintf("%s@%d:kill", runtime.AfterCheckpointWritten, at), 0, one) {
						t.Fatal("child was not killed after a checkpoint was written")
					}
					rule = fmt.Sprintf("%s@1:kill", p)
				case runtime.CommitDelay:
					rule = fmt.Sprintf("%s@%d:kill:60ms", p, at)
				}
				if !runChild(t, dir, per, rule, 0, one) {
					t.Fatalf("child was not killed at %s", rule)
				}
				check(t, dir, true)
			})
		}
	}
	t.Run("random", func(t *testing.T) {
		dir := t.TempDir()
		rng := crashtest.Rand(t, 2)
		kills, finished := 0, false
		for kills < 4 && !finished {
			if runChild(t, dir, per, "", time.Duration(10+rng.IntN(190))*time.Millisecond, one) {
				kills++
			} else {
				finished = true // before the kill
			}
		}
		check(t, dir, !finished)
		t.Logf("%d SIGKILLs; output exactly once", kills)
		if kills == 0 {
			t.Fatal("the job finished before the first kill: no SIGKILL was tested")
		}
	})
}
