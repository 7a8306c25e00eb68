package runtime_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// TestFallbackAfterLostCommit: with the default num-retained (1), a lost
// commit of checkpoint 3 leaves a fallback — a retained checkpoint none
// of whose pending commits is outstanding — and restoring it from the
// command line's way (RestorePath) works, also when the restored run fails
// before it writes anything and restarts in the process: the restart
// resumes from the restored checkpoint, not from the one with the lost
// commit. Sink a, whose commit was lost, ends exactly once.
func TestFallbackAfterLostCommit(t *testing.T) {
	r := newRig(t)
	r.sinks = 2
	r.per = 400
	f := (&testkit.Faults{}).On(runtime.CommitDelay, 3, testkit.Block, 0)
	r.faults = f
	r.tweak = func(s *runtime.JobSpec) {
		s.Config.Restart.Strategy = jobconfig.RestartNone
		s.Config.Checkpoint.NumRetained = 1
	}
	j := r.job(t)
	done := make(chan error, 1)
	go func() { done <- runJob(t, j, time.Minute) }()
	deadline := time.Now().Add(30 * time.Second)
	for !f.Fired(runtime.CommitDelay) {
		if time.Now().After(deadline) {
			t.Fatal("commit of checkpoint 3 not reached")
		}
		time.Sleep(time.Millisecond)
	}
	store, err := checkpoint.OpenDir(filepath.Join(r.dir, "checkpoints"), "testjob")
	if err != nil {
		t.Fatal(err)
	}
	md, err := store.Latest()
	if err != nil {
		t.Fatal(err)
	}
	// Lose sink a's uncommitted work of the newest checkpoint.
	lostCkpt := int64(0)
	var lost []checkpoint.Committable
	for _, c := range md.Pending {
		if _, err := os.Stat(filepath.Join(r.fileSinks[0].Dir, "pending", pendingTmp(t, c))); c.Sink != "main/out-a" || err != nil {
			continue
		}
		if c.Checkpoint > lostCkpt {
			lostCkpt, lost = c.Checkpoint, nil
		}
		if c.Checkpoint == lostCkpt {
			lost = append(lost, c)
		}
	}
	if lostCkpt < 2 {
		t.Fatalf("no uncommitted work of sink a after checkpoint 1: %v", pendingKeys(md))
	}
	for _, c := range lost {
		if err := os.Remove(filepath.Join(r.fileSinks[0].Dir, "pending", pendingTmp(t, c))); err != nil {
			t.Fatal(err)
		}
	}
	f.Release(runtime.CommitDelay)
	if err := <-done; !errors.Is(err, connector.ErrCommitLost) {
		t.Fatalf("job error %v; want a lost commit", err)
	}
	refs, err := store.List()
	if err != nil {
		t.Fatal(err)
	}
	fb, ok := checkpoint.Fallback(refs, store.Read)
	if !ok || fb.ID >= lostCkpt {
		t.Fatalf("no fallback before checkpoint %d among %v", lostCkpt, refs)
	}
	// Restore the fallback; the first restored run fails before any
	// checkpoint, and the restart must resume from the fallback too.
	r.faults = (&testkit.Faults{}).On(runtime.BeforePreCommit, 1, testkit.Fail, 0)
	r.tweak = func(s *runtime.JobSpec) { s.RestorePath = fb.Path }
	j = r.job(t)
	if err := runJob(t, j, time.Minute); err != nil {
		t.Fatalf("restoring the fallback %s: %v", fb, err)
	}
	if j.Status().Restarts == 0 {
		t.Fatal("the restored run did not restart")
	}
	rows, err := testkit.ReadCommitted(r.fileSinks[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	// Sink a's later checkpoints were committed although checkpoint 3's
	// commit was lost: replaying from the fallback duplicates them, and
	// loses nothing.
	if _, err := testkit.CheckAtLeastOnce(rows, r.full()); err != nil {
		t.Fatalf("sink a after restoring the fallback: %v", err)
	}
}

// TestCheckpointIDsCountByOne: acknowledgement records are revisions of
// their checkpoint, so the ids a user sees count 1, 2, 3 (only failed
// checkpoints leave gaps).
func TestCheckpointIDsCountByOne(t *testing.T) {
	r := newRig(t)
	j := r.job(t)
	if err := runJob(t, j, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	st := j.Status().Checkpoints
	if st.Completed < 3 || st.LastID != int64(st.Completed+st.Failed) {
		t.Fatalf("last checkpoint id %d after %d completed and %d failed checkpoints", st.LastID, st.Completed, st.Failed)
	}
}

// checkpointFiles lists the checkpoint files of a job's folder (not its
// lock file).
func checkpointFiles(dir string) ([]os.DirEntry, error) {
	ents, err := os.ReadDir(dir)
	return slices.DeleteFunc(ents, func(e os.DirEntry) bool { return !strings.HasPrefix(e.Name(), "chk-") }), err
}
