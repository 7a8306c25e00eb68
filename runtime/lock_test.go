package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// TestSecondProcessLocked: while a child process runs the job, a second
// run of the same job (same checkpoint folder) fails at once with an
// error naming the folder and the child's process id; once the child is
// SIGKILLed, the lock is free.
func TestSecondProcessLocked(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir, childPerEnv+"=0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()
	folder := filepath.Join(dir, "checkpoints", "testjob")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if files, _ := checkpointFiles(folder); len(files) > 0 {
			break
		}
		select {
		case err := <-exited:
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
		!strings.Contains(err.Error(), fmt.Sprintf("pid %d ", cmd.Process.Pid)) {
		t.Fatalf("second process of the job: %v; want ErrLocked naming %s and pid %d", err, folder, cmd.Process.Pid)
	}
	_ = cmd.Process.Kill()
	<-exited
	exited <- nil // for the deferred wait
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
