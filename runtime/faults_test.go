package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// TestFailurePointsInProcess makes the job fail at each failure point (3
// times each, at different hits), lets the restart strategy restart it
// within the process, and checks that the committed output of both sinks
// is the input exactly once, in order per partition.
func TestFailurePointsInProcess(t *testing.T) {
	points := []runtime.FaultPoint{runtime.BeforePreCommit, runtime.AfterPreCommit, runtime.AfterCheckpointWritten,
		runtime.BetweenSinkCommits, runtime.AfterCommit, runtime.DuringRecovery}
	for _, p := range points {
		for at := 1; at <= 3; at++ {
			t.Run(fmt.Sprintf("%s@%d", p, at), func(t *testing.T) {
				r := newRig(t)
				r.sinks = 2
				f := &testkit.Faults{}
				if p == runtime.DuringRecovery {
					// Recovery with pending commits needs a failure
					// after a checkpoint was written.
					f.On(runtime.AfterCheckpointWritten, at, testkit.Fail, 0)
					f.On(p, 1, testkit.Fail, 0)
				} else {
					f.On(p, at, testkit.Fail, 0)
				}
				r.faults = f
				j := r.job(t)
				if err := runJob(t, j, 30*time.Second); err != nil {
					t.Fatal(err)
				}
				if !f.Fired(p) {
					t.Fatalf("failure point %s was not reached", p)
				}
				if got := j.Status().Restarts; got < 1 {
					t.Fatalf("restarts = %d, want >= 1", got)
				}
				r.verify(t, r.full())
			})
		}
	}
}

// TestCommitDelayed holds back the commits of a completed checkpoint while
// the job goes on: checkpoints complete with the commit pending until the
// lag bound stops triggering; after the release everything is committed
// exactly once.
func TestCommitDelayed(t *testing.T) {
	for at := 1; at <= 3; at++ {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			r := newRig(t)
			r.per = 100000 // unbounded enough; the test stops it
			f := (&testkit.Faults{}).On(runtime.CommitDelay, at, testkit.Block, 0)
			r.faults = f
			j := r.job(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- j.Run(ctx) }()
			deadline := time.Now().Add(20 * time.Second)
			for !j.Status().TriggeringPaused {
				if time.Now().After(deadline) {
					cancel()
					<-done
					t.Fatal("triggering never paused while a commit was held back")
				}
				time.Sleep(2 * time.Millisecond)
			}
			st := j.Status()
			if st.PendingCommits == 0 || st.OldestPendingCommitAge <= 0 {
				t.Errorf("status while paused: %d pending commits, oldest %s", st.PendingCommits, st.OldestPendingCommitAge)
			}
			f.Release(runtime.CommitDelay)
			for j.Status().TriggeringPaused {
				if time.Now().After(deadline) {
					t.Fatal("triggering did not resume after the commits were released")
				}
				time.Sleep(2 * time.Millisecond)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if j.Status().Restarts != 0 {
				t.Fatalf("job restarted")
			}
			r.verify(t, nil)
		})
	}
}

// TestCommitRetried makes commits fail transiently: the runtime retries
// them in the process, without restarting the job.
func TestCommitRetried(t *testing.T) {
	r := newRig(t)
	r.fileSinks = []*testkit.FileSink{{Dir: t.TempDir(), FailCommits: 3}}
	j := r.job(t)
	if err := runJob(t, j, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if j.Status().Restarts != 0 {
		t.Fatal("job restarted on a transient commit failure")
	}
	r.verify(t, r.full())
}

// lostSink wraps a FileSink whose committer reports every commit lost.
type lostSink struct{ *testkit.FileSink }

func (s lostSink) Committer(ctx context.Context, job string) (connector.Committer, error) {
	c, err := s.FileSink.Committer(ctx, job)
	return lostCommitter{c}, err
}

type lostCommitter struct{ connector.Committer }

func (lostCommitter) Commit(context.Context, connector.Committable) error {
	return fmt.Errorf("the other side aborted it: %w", connector.ErrCommitLost)
}

func TestCommitLostFailsJob(t *testing.T) {
	r := newRig(t)
	fs := &testkit.FileSink{Dir: t.TempDir()}
	r.tweak = func(s *runtime.JobSpec) {
		s.Pipelines[0].Sinks = []runtime.SinkSpec{{Name: "lossy", Sink: lostSink{fs}}}
	}
	j := r.job(t)
	err := runJob(t, j, 30*time.Second)
	var cl *runtime.CommitLostError
	if !errors.As(err, &cl) || !errors.Is(err, connector.ErrCommitLost) {
		t.Fatalf("error %v is not a CommitLostError wrapping ErrCommitLost", err)
	}
	if cl.Sink != "main/lossy" || cl.Checkpoint <= 0 || cl.Key.Sink != "main/lossy" || len(cl.Committable) == 0 {
		t.Fatalf("error does not name checkpoint, sink and committable: %+v", cl)
	}
	if j.Status().Restarts != 0 {
		t.Fatal("job restarted after a lost commit")
	}
}

// TestFailedCheckpointCarried makes checkpoints time out (a sink task is
// held past the timeout before pre-committing): the job keeps running, and
// the late pre-committed work is committed with a later checkpoint.
func TestFailedCheckpointCarried(t *testing.T) {
	r := newRig(t)
	f := (&testkit.Faults{}).On(runtime.BeforePreCommit, 2, testkit.Delay, 150*time.Millisecond)
	r.faults = f
	r.tweak = func(s *runtime.JobSpec) {
		s.Config.Checkpoint.Timeout = 40 * time.Millisecond
		s.Config.Checkpoint.TolerableFailed = 100
	}
	j := r.job(t)
	if err := runJob(t, j, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	st := j.Status()
	if st.Checkpoints.Failed == 0 {
		t.Fatal("no checkpoint failed")
	}
	if st.Restarts != 0 {
		t.Fatal("job restarted")
	}
	r.verify(t, r.full())
}

func TestTolerableFailedExceeded(t *testing.T) {
	r := newRig(t)
	r.faults = (&testkit.Faults{}).On(runtime.BeforePreCommit, 2, testkit.Delay, 150*time.Millisecond)
	r.tweak = func(s *runtime.JobSpec) {
		s.Config.Checkpoint.Timeout = 40 * time.Millisecond
		s.Config.Restart.Strategy = jobconfig.RestartNone
	}
	err := runJob(t, r.job(t), 30*time.Second)
	if err == nil {
		t.Fatal("job did not fail although a checkpoint expired and none is tolerated")
	}
}
