package runtime_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// TestCheckpointDirDeletedIsTerminal: deleting the job's checkpoint folder
// while it runs fails the job at once (no restart) with an error that
// names the folder and says it disappeared, instead of restarting over
// "list checkpoints: no such file ... its file cannot be deleted".
func TestCheckpointDirDeletedIsTerminal(t *testing.T) {
	r := newRig(t)
	r.per = 1_000_000 // runs until the folder is gone
	j := r.job(t)
	folder := filepath.Join(r.dir, "checkpoints", "testjob")
	done := make(chan error, 1)
	go func() { done <- runJob(t, j, time.Minute) }()
	deadline := time.Now().Add(time.Minute)
	for j.Status().Checkpoints.Completed == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint completed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Moved away at once, then deleted: a plain RemoveAll races with the
	// job creating files in the folder.
	if err := os.Rename(folder, folder+".deleted"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(folder + ".deleted"); err != nil {
		t.Fatal(err)
	}
	err := <-done
	if !errors.Is(err, checkpoint.ErrDirGone) {
		t.Fatalf("job error %v; want checkpoint.ErrDirGone", err)
	}
	for _, w := range []string{folder + " no longer exists", "start it fresh"} {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("job error %q; want it to contain %q", err, w)
		}
	}
	if n := j.Status().Restarts; n != 0 {
		t.Fatalf("job restarted %d times; want it to fail without a restart", n)
	}
}
