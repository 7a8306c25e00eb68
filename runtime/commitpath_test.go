package runtime_test

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// pruneGate is a checkpoint folder whose first Prune after the job's first
// checkpoint is written holds until that checkpoint's commit has happened
// (the fault injector below closes committed), or until wait passes.
type pruneGate struct {
	*checkpoint.Dir
	wait      time.Duration
	first     atomic.Int64 // id of the first checkpoint written, 0 until then
	committed chan struct{}
	once      sync.Once
	gated     atomic.Bool // the first Prune after it was reached
	timedOut  atomic.Bool // ... and the commit did not happen while it waited
}

func (s *pruneGate) Write(md *checkpoint.Metadata) (int64, error) {
	n, err := s.Dir.Write(md)
	if err == nil && md.Revision == 0 {
		s.first.CompareAndSwap(0, md.ID)
	}
	return n, err
}

func (s *pruneGate) Prune(retain int) error {
	if s.first.Load() != 0 && s.gated.CompareAndSwap(false, true) {
		select {
		case <-s.committed:
		case <-time.After(s.wait):
			s.timedOut.Store(true)
		}
	}
	return s.Dir.Prune(retain)
}

// Hit closes committed when the first checkpoint's work is committed.
func (s *pruneGate) Hit(_ context.Context, p runtime.FaultPoint, info runtime.FaultInfo) error {
	if p == runtime.AfterCommit && info.Checkpoint == s.first.Load() {
		s.once.Do(func() { close(s.committed) })
	}
	return nil
}

// TestCommitDoesNotWaitForPrune: once a checkpoint is durable its commits
// start; deleting old checkpoint files (a directory listing, reading the
// newest checkpoints to find the fallback, unlinks) is not on their path,
// which is an exactly-once sink's end-to-end latency. The folder holds its
// first Prune after the first checkpoint until that checkpoint's commit has
// happened: when the commit waited for the Prune, the hold runs out (10 s,
// far beyond the milliseconds the commit takes) and the test fails. The
// output stays exactly once.
func TestCommitDoesNotWaitForPrune(t *testing.T) {
	r := newRig(t)
	r.srcPar, r.sinkPar = 1, 1
	gate := &pruneGate{wait: 10 * time.Second, committed: make(chan struct{})}
	r.faults = gate
	j := r.job(t)
	d, err := checkpoint.OpenDir(filepath.Join(r.dir, "checkpoints"), "testjob")
	if err != nil {
		t.Fatal(err)
	}
	gate.Dir = d
	j.SetStorage(gate)
	if err := runJob(t, j, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	r.verify(t, r.full())
	if !gate.gated.Load() {
		t.Fatal("no checkpoint was pruned after the first one was written")
	}
	if gate.timedOut.Load() {
		t.Fatalf("the commit of checkpoint %d waited for the deletion of old checkpoints", gate.first.Load())
	}
}
