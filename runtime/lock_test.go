package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// TestSecondProcessLocked: while a child process runs the job, a second
// run of the same job (same checkpoint folder) fails at once with an
// error naming the folder and the child's process id; once the child is
// SIGKILLed, the lock is free.
func TestSecondProcessLocked(t *testing.T) {
	dir := t.TempDir()
	child := crashtest.Start(t, childSpec(dir, 0))
	folder := filepath.Join(dir, "checkpoints", "testjob")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if files, _ := checkpointFiles(folder); len(files) > 0 {
			break
		}
		select {
		case <-child.Done():
			_, err := child.Wait()
			t.Fatalf("child ended: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the child wrote no checkpoint")
		}
		time.Sleep(5 * time.Millisecond)
	}
	r := childRig(dir, 0)
	err := runJob(t, r.job(t), 30*time.Second)
	if !errors.Is(err, checkpoint.ErrLocked) || !strings.Contains(err.Error(), folder) ||
		!strings.Contains(err.Error(), fmt.Sprintf("pid %d ", child.Pid())) {
		t.Fatalf("second process of the job: %v; want ErrLocked naming %s and pid %d", err, folder, child.Pid())
	}
	child.Kill()
	j := r.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for j.Status().Checkpoints.Completed < 1 {
		select {
		case err := <-done:
			cancel()
			t.Fatalf("after the child's death: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("after the child's death: %v", err)
	}
}
