package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

func TestAtLeastOnceMode(t *testing.T) {
	r := newRig(t)
	r.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.Mode = jobconfig.AtLeastOnce }
	j := r.job(t)
	if err := runJob(t, j, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if j.Status().Checkpoints.Completed < 2 {
		t.Fatal("fewer than 2 checkpoints")
	}
	r.verify(t, r.full()) // no failure: no replay, so exactly once
}

// TestBarrierInterruptsBlockedRead: a reader that blocks in Read (here
// for an hour per batch) still lets checkpoints complete, because the
// runtime interrupts it to inject barriers.
func TestBarrierInterruptsBlockedRead(t *testing.T) {
	r := newRig(t)
	r.per, r.delay = 0, time.Hour
	j := r.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for j.Status().Checkpoints.Completed < 3 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	counts := r.verify(t, nil)[0]
	for p, n := range counts {
		if n != 0 {
			t.Fatalf("partition %d: %d rows from a reader that never finished a wait", p, n)
		}
	}
}

// stuckSink's writers never finish PreCommit.
type stuckSink struct{ testkit.FileSink }

func (s *stuckSink) Open(ctx context.Context, task connector.TaskInfo) (connector.Writer, error) {
	w, err := s.FileSink.Open(ctx, task)
	return stuckWriter{w}, err
}

type stuckWriter struct{ connector.Writer }

func (stuckWriter) PreCommit(ctx context.Context, _ int64) ([]connector.Committable, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestStopTimeout(t *testing.T) {
	r := newRig(t)
	r.per = 0
	ss := &stuckSink{testkit.FileSink{Dir: t.TempDir()}}
	r.tweak = func(s *runtime.JobSpec) {
		s.Pipelines[0].Sinks = []runtime.SinkSpec{{Name: "stuck", Sink: ss}}
		s.Config.StopTimeout = 50 * time.Millisecond
		s.Config.Checkpoint.Interval = 0
	}
	j := r.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for len(j.Status().Tasks) == 0 || j.Status().Tasks[0].RecordsOut == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "graceful stop timed out") {
			t.Fatalf("Run returned %v; want a stop timeout", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after the stop timeout")
	}
}

func TestRestorePathAndUnknownSink(t *testing.T) {
	r := newRig(t)
	r.per = 0
	j := r.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for j.Status().Checkpoints.Completed < 2 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Fabricate a checkpoint of the same job with a pending commit of a
	// sink the job does not have.
	md, err := checkpoint.LoadPath(filepath.Join(r.dir, "checkpoints", "testjob"), "testjob")
	if err != nil {
		t.Fatal(err)
	}
	md.ID += 100
	md.Pending = []checkpoint.Committable{{Key: checkpoint.Key{Sink: "main/gone", Run: "x", Checkpoint: 1}, Data: []byte("{}")}}
	other, err := checkpoint.OpenDir(filepath.Join(t.TempDir(), "elsewhere"), "testjob")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Write(md); err != nil {
		t.Fatal(err)
	}
	r.tweak = func(s *runtime.JobSpec) { s.RestorePath = other.Path() }
	err = runJob(t, r.job(t), 30*time.Second)
	if !errors.Is(err, runtime.ErrInvalidSpec) || !strings.Contains(err.Error(), "main/gone") {
		t.Fatalf("restoring pending commits of an unknown sink: %v", err)
	}
}

// TestRenamedSourceRefused: a checkpoint holding the positions of a source
// the job no longer has (a table renamed in the job file) is not restored
// silently, which would start the renamed source afresh and write its
// output again; with AllowNonRestoredState the positions are dropped.
func TestRenamedSourceRefused(t *testing.T) {
	r := newRig(t)
	r.per = 0
	j := r.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for j.Status().Checkpoints.Completed < 2 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r.tweak = func(s *runtime.JobSpec) {
		s.Pipelines[0].Sources[0].Name = "seq-renamed"
		s.Config.Restart.Strategy = jobconfig.RestartNone
	}
	err := runJob(t, r.job(t), 30*time.Second)
	if !errors.Is(err, runtime.ErrInvalidSpec) || !strings.Contains(err.Error(), `"main/seq"`) || !strings.Contains(err.Error(), `"main/seq-renamed"`) {
		t.Fatalf("restoring the positions of a source the job does not have: %v", err)
	}
	r.tweak = func(s *runtime.JobSpec) {
		s.Pipelines[0].Sources[0].Name = "seq-renamed"
		s.AllowNonRestoredState = true
		s.Config.Restart.Strategy = jobconfig.RestartNone
	}
	ctx, cancel = context.WithCancel(context.Background())
	j = r.job(t)
	go func() { done <- j.Run(ctx) }()
	for j.Status().Checkpoints.Completed < 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("with AllowNonRestoredState: %v", err)
	}
}

// lockedBuffer is a concurrency-safe log sink.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTransactionTimeoutGuards: pre-committed work that no checkpoint
// completes to commit is warned about at half the sink's transaction
// timeout, and the job fails over before it nears the timeout.
func TestTransactionTimeoutGuards(t *testing.T) {
	r := newRig(t)
	r.per, r.delay = 0, 0 // rows flow all the time: every pre-commit has work
	var logs lockedBuffer
	f := &testkit.Faults{}
	// The second checkpoint's pre-commit of one task hangs: checkpoints
	// after it cannot complete, and the work of the other task is
	// carried.
	f.On(runtime.BeforePreCommit, 4, testkit.Block, 0)
	r.faults = f
	r.fileSinks = []*testkit.FileSink{{Dir: t.TempDir(), Timeout: 300 * time.Millisecond}}
	r.tweak = func(s *runtime.JobSpec) {
		s.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		s.Config.Checkpoint.Timeout = 20 * time.Millisecond
		s.Config.Checkpoint.TolerableFailed = 1000
		s.Config.Restart.Strategy = jobconfig.RestartNone
	}
	j := r.job(t)
	err := runJob(t, j, 30*time.Second)
	f.Release(runtime.BeforePreCommit)
	if err == nil || !strings.Contains(err.Error(), "near the sink's transaction timeout") {
		t.Fatalf("Run returned %v; want a failover before the transaction timeout", err)
	}
	if !strings.Contains(logs.String(), "past half of the sink's transaction timeout") {
		t.Fatalf("no warning at half the transaction timeout; log:\n%s", logs.String())
	}
	r.verify(t, nil)
}

// TestPartitionAndPipelines runs two pipelines, one routing rows by key
// to three sink tasks, and checks both outputs.
func TestPartitionAndPipelines(t *testing.T) {
	r := newRig(t)
	r.sinkPar = 3
	second := &testkit.FileSink{Dir: filepath.Join(t.TempDir(), "second")}
	r.tweak = func(s *runtime.JobSpec) {
		s.Pipelines[0].Partition = func(row types.Row, n int) int { return int(row.Fields[0].Int64()) % n }
		s.Pipelines[0].Transform = func(in types.Row, out []types.Row) ([]types.Row, error) {
			return append(out, in), nil
		}
		s.Pipelines = append(s.Pipelines, runtime.Pipeline{Name: "copy",
			Sources: []runtime.SourceSpec{{Name: "seq", Source: &testkit.SeqSource{Partitions: 2, PerPartition: 50}}},
			Sinks:   []runtime.SinkSpec{{Name: "out", Sink: second}}})
	}
	j := r.job(t)
	if err := runJob(t, j, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	r.verify(t, r.full())
	rows, err := testkit.ReadCommitted(second.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testkit.CheckExactlyOnce(rows, 2, []int64{50, 50}); err != nil {
		t.Fatal(err)
	}
	var bytesOut int64
	for _, ts := range j.Status().Tasks {
		bytesOut += ts.BytesOut
	}
	if bytesOut == 0 {
		t.Fatal("no bytes counted by the writers")
	}
}

func TestTransformError(t *testing.T) {
	r := newRig(t)
	boom := errors.New("division by zero")
	r.tweak = func(s *runtime.JobSpec) {
		s.Config.Restart.Strategy = jobconfig.RestartNone
		s.Pipelines[0].Transform = func(in types.Row, out []types.Row) ([]types.Row, error) {
			if in.Fields[1].Int64() == 100 {
				return out, boom
			}
			return append(out, in), nil
		}
	}
	if err := runJob(t, r.job(t), 30*time.Second); !errors.Is(err, boom) {
		t.Fatalf("Run returned %v; want the transform's error", err)
	}
}

func TestRetention(t *testing.T) {
	for _, tc := range []struct {
		ret       jobconfig.Retention
		bounded   bool
		wantFiles bool
	}{
		{jobconfig.NoExternalizedCheckpoints, true, false},
		{jobconfig.NoExternalizedCheckpoints, false, true},
		{jobconfig.DeleteOnCancellation, false, false},
		{jobconfig.DeleteOnCancellation, true, false},
		{jobconfig.RetainOnCancellation, true, true},
	} {
		t.Run(fmt.Sprintf("%s/bounded=%v", tc.ret, tc.bounded), func(t *testing.T) {
			r := newRig(t)
			if !tc.bounded {
				r.per = 0
			}
			r.tweak = func(s *runtime.JobSpec) {
				s.Config.Checkpoint.Retention = tc.ret
				s.Config.Checkpoint.NumRetained = 2
			}
			j := r.job(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- j.Run(ctx) }()
			if !tc.bounded {
				for j.Status().Checkpoints.Completed < 3 {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			cancel()
			ents, err := checkpointFiles(filepath.Join(r.dir, "checkpoints", "testjob"))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(ents) > 0; got != tc.wantFiles {
				t.Fatalf("%d checkpoint files left; want files: %v", len(ents), tc.wantFiles)
			}
			if len(ents) > 2 {
				t.Fatalf("%d checkpoints retained; num-retained is 2", len(ents))
			}
			// A bounded finish that deletes the checkpoints leaves the
			// finished record; a stop, or a finish that keeps them, not.
			_, err = os.Stat(filepath.Join(r.dir, "checkpoints", "testjob", checkpoint.FinishedFileName))
			if got, want := err == nil, tc.bounded && !tc.wantFiles; got != want {
				t.Fatalf("finished record present: %v (%v); want %v", got, err, want)
			}
		})
	}
}

func TestMinPauseAndConcurrency(t *testing.T) {
	// A min-pause longer than the job leaves the first periodic
	// checkpoint and the final one.
	r := newRig(t)
	r.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.MinPause = time.Hour }
	j := r.job(t)
	if err := runJob(t, j, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if n := j.Status().Checkpoints.Completed; n != 2 {
		t.Fatalf("%d checkpoints completed with a min-pause of an hour; want the first and the final one", n)
	}
	r.verify(t, r.full())

	// Several checkpoints in flight at once, one of them slow.
	r = newRig(t)
	r.faults = (&testkit.Faults{}).On(runtime.BeforePreCommit, 3, testkit.Delay, 50*time.Millisecond)
	r.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.MaxConcurrent = 3 }
	j = r.job(t)
	if err := runJob(t, j, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	r.verify(t, r.full())
}

func TestTransformPanic(t *testing.T) {
	r := newRig(t)
	r.tweak = func(s *runtime.JobSpec) {
		s.Config.Restart.Strategy = jobconfig.RestartNone
		s.Pipelines[0].Transform = func(in types.Row, out []types.Row) ([]types.Row, error) {
			_ = in.Fields[7] // out of range
			return out, nil
		}
	}
	err := runJob(t, r.job(t), 30*time.Second)
	var pe *runtime.PanicError
	if !errors.As(err, &pe) || !strings.Contains(pe.Task, "main/seq") {
		t.Fatalf("Run returned %v; want a PanicError naming the source task", err)
	}
}

// TestCommitLostDuringRecovery: a pending committable whose work vanished
// (as a broker-aborted transaction) fails recovery with an error naming
// it; dropping it from the checkpoint lets the job go on.
func TestCommitLostDuringRecovery(t *testing.T) {
	r := newRig(t)
	r.sinkPar = 1
	r.faults = (&testkit.Faults{}).On(runtime.AfterCheckpointWritten, 2, testkit.Fail, 0)
	r.tweak = func(s *runtime.JobSpec) { s.Config.Restart.Strategy = jobconfig.RestartNone }
	if err := runJob(t, r.job(t), 30*time.Second); !errors.Is(err, testkit.ErrInjected) {
		t.Fatalf("first run: %v", err)
	}
	store, err := checkpoint.OpenDir(filepath.Join(r.dir, "checkpoints"), "testjob")
	if err != nil {
		t.Fatal(err)
	}
	md, err := store.Latest()
	if err != nil || len(md.Pending) == 0 {
		t.Fatalf("no pending commits in the latest checkpoint: %v", err)
	}
	// Lose the first pending committable that is not committed yet.
	var lost checkpoint.Committable
	pending, _ := testkit.PendingFiles(r.fileSinks[0].Dir)
	for _, c := range md.Pending {
		for _, p := range pending {
			if lost.Data == nil && strings.Contains(string(c.Data), p) {
				lost = c
				if err := os.Remove(filepath.Join(r.fileSinks[0].Dir, "pending", p)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if lost.Data == nil {
		t.Fatal("no uncommitted pending committable")
	}
	r.faults = nil
	err = runJob(t, r.job(t), 30*time.Second)
	var cl *runtime.CommitLostError
	if !errors.As(err, &cl) || cl.Key != lost.Key || cl.Checkpoint != md.ID {
		t.Fatalf("recovery error %v; want a CommitLostError for %s in checkpoint %d", err, lost.Key, md.ID)
	}
	if _, err := checkpoint.DropPending(store, lost.Key); err != nil {
		t.Fatal(err)
	}
	if err := runJob(t, r.job(t), 30*time.Second); err != nil {
		t.Fatalf("after dropping the lost committable: %v", err)
	}
}

// TestAckRecordSupersedes: acknowledgement records replace the checkpoint
// they copy, so they do not eat into num-retained, and the latest file
// has no pending commits once the commits are done.
func TestAckRecordSupersedes(t *testing.T) {
	r := newRig(t)
	r.per = 0
	r.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.NumRetained = 3 }
	j := r.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for j.Status().Checkpoints.Completed < 6 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.dir, "checkpoints", "testjob")
	ents, err := checkpointFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 3 {
		t.Fatalf("%d checkpoint files; want num-retained = 3", len(ents))
	}
	// No retained file is superseded by another: a revision replaces
	// the older revisions of its checkpoint.
	ids := map[int64]bool{}
	for _, e := range ents {
		md, err := checkpoint.Load(filepath.Join(dir, e.Name()), "testjob")
		if err != nil {
			t.Fatal(err)
		}
		if ids[md.ID] {
			t.Fatalf("two revisions of checkpoint %d retained", md.ID)
		}
		ids[md.ID] = true
	}
}

// TestAcksDurableWithoutNextCheckpoint: after the first checkpoint's
// commits, an acknowledgement record makes them durable although no other
// checkpoint is taken (min-pause of an hour).
func TestAcksDurableWithoutNextCheckpoint(t *testing.T) {
	r := newRig(t)
	r.per, r.interval = 0, 100*time.Millisecond // rows before the first checkpoint
	r.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.MinPause = time.Hour }
	j := r.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	store, err := checkpoint.OpenDir(filepath.Join(r.dir, "checkpoints"), "testjob")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		md, err := store.Latest() // may race with the deletion of a superseded file
		if err == nil && md != nil && md.Revision != 0 {
			if md.ID != 1 || len(md.Pending) != 0 || j.Status().Checkpoints.Completed != 1 {
				t.Fatalf("record of checkpoint %d with %d pending after %d checkpoints", md.ID, len(md.Pending), j.Status().Checkpoints.Completed)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no acknowledgement record written")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r.verify(t, nil)
}

// TestAtLeastOnceWithFailures: without alignment a failure may replay
// rows, but none is lost.
func TestAtLeastOnceWithFailures(t *testing.T) {
	for _, p := range []runtime.FaultPoint{runtime.AfterPreCommit, runtime.AfterCheckpointWritten, runtime.AfterCommit} {
		t.Run(string(p), func(t *testing.T) {
			r := newRig(t)
			f := (&testkit.Faults{}).On(p, 2, testkit.Fail, 0)
			r.faults = f
			r.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.Mode = jobconfig.AtLeastOnce }
			if err := runJob(t, r.job(t), 30*time.Second); err != nil {
				t.Fatal(err)
			}
			if !f.Fired(p) {
				t.Fatalf("%s not reached", p)
			}
			rows, err := testkit.ReadCommitted(r.fileSinks[0].Dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := testkit.CheckAtLeastOnce(rows, r.full()); err != nil {
				t.Fatal(err)
			}
		})
	}
}
