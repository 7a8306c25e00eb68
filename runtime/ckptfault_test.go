package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// faultyStore is a checkpoint folder whose disk fails: the n-th write of
// a checkpoint (not of a revision) fails as on a full disk (before
// anything is written) or after the file is in place (the directory
// fsync fails), as listed in fail.
type faultyStore struct {
	*checkpoint.Dir
	mu        sync.Mutex
	fail      map[int]string // write number -> "enospc" or "after-rename"
	writes    int
	failedID  int64
	violation string
}

func (s *faultyStore) Write(md *checkpoint.Metadata) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if md.Revision == 0 && md.ID <= s.failedID {
		s.failedID = 0 // a new run (after a fail-over) reuses the id
	}
	if s.failedID != 0 && s.violation == "" {
		refs, _ := s.List()
		for _, r := range refs {
			if r.ID == s.failedID {
				s.violation = fmt.Sprintf("the file of failed checkpoint %d is still there: %s", s.failedID, r.Path)
			}
		}
	}
	if md.Revision > 0 {
		return s.Dir.Write(md)
	}
	s.writes++
	switch s.fail[s.writes] {
	case "enospc":
		s.failedID = md.ID
		return 0, fmt.Errorf("write checkpoint: %w", syscall.ENOSPC)
	case "after-rename":
		s.failedID = md.ID
		if _, err := s.Dir.Write(md); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("fsync checkpoint directory: %w", syscall.EIO)
	}
	return s.Dir.Write(md)
}

// TestCheckpointWriteFails: a checkpoint write that fails (a full disk;
// a directory fsync failing after the rename) fails the checkpoint and
// loses nothing: within tolerable-failed-checkpoints the job goes on and
// commits the failed checkpoint's work with the next one, leaving no file
// of the failed checkpoint behind; beyond it the job fails over. Either
// way the output is exactly once.
func TestCheckpointWriteFails(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tolerable int
		fail      map[int]string
	}{
		{"tolerated", 5, map[int]string{2: "enospc", 4: "after-rename"}},
		{"fail-over", 0, map[int]string{2: "enospc"}},
		{"fail-over-after-rename", 0, map[int]string{3: "after-rename"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			r.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.TolerableFailed = tc.tolerable }
			j := r.job(t)
			d, err := checkpoint.OpenDir(filepath.Join(r.dir, "checkpoints"), "testjob")
			if err != nil {
				t.Fatal(err)
			}
			fs := &faultyStore{Dir: d, fail: tc.fail}
			j.SetStorage(fs)
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			r.verify(t, r.full())
			st := j.Status()
			if st.Checkpoints.Failed == 0 {
				t.Fatal("no checkpoint failed")
			}
			if restarted := st.Restarts > 0; restarted != (tc.tolerable == 0) {
				t.Fatalf("%d restarts with tolerable-failed-checkpoints %d", st.Restarts, tc.tolerable)
			}
			if fs.violation != "" {
				t.Fatal(fs.violation)
			}
		})
	}
}

// plainSink is a sink without two-phase commit (at-least-once).
type plainSink struct{}

func (plainSink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return plainWriter{}, nil
}

type plainWriter struct{}

func (plainWriter) Write(context.Context, []types.Row) error { return nil }
func (plainWriter) PreCommit(context.Context, int64) ([]connector.Committable, error) {
	return nil, nil
}
func (plainWriter) Close() error { return nil }

// TestCorruptLatestCheckpoint truncates the newest checkpoint file. With
// two-phase sinks the job refuses to start, naming the corrupt file and
// the previous intact checkpoint (its commits may have run: falling back
// by itself could write an interval twice); restoring the previous one
// explicitly works. Without two-phase sinks the previous checkpoint is
// restored with a warning naming the file.
func TestCorruptLatestCheckpoint(t *testing.T) {
	for _, twoPhase := range []bool{true, false} {
		t.Run(fmt.Sprintf("two-phase=%v", twoPhase), func(t *testing.T) {
			r := newRig(t)
			r.per = 0
			var logs lockedBuffer
			r.tweak = func(s *runtime.JobSpec) {
				s.Config.Checkpoint.NumRetained = 2
				s.Config.Restart.Strategy = jobconfig.RestartNone
				s.Logger = slog.New(slog.NewTextHandler(&logs, nil))
				if !twoPhase {
					s.Pipelines[0].Sinks = []runtime.SinkSpec{{Name: "plain", Sink: plainSink{}}}
				}
			}
			runUntil := func(j *runtime.Job, checkpoints int64) error {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				done := make(chan error, 1)
				go func() { done <- j.Run(ctx) }()
				deadline := time.Now().Add(30 * time.Second)
				for j.Status().Checkpoints.Completed < checkpoints {
					select {
					case err := <-done:
						return err
					case <-time.After(time.Millisecond):
					}
					if time.Now().After(deadline) {
						t.Fatal("no checkpoints")
					}
				}
				cancel()
				return <-done
			}
			if err := runUntil(r.job(t), 3); err != nil {
				t.Fatal(err)
			}
			store, err := checkpoint.OpenDir(filepath.Join(r.dir, "checkpoints"), "testjob")
			if err != nil {
				t.Fatal(err)
			}
			refs, err := store.List()
			if err != nil || len(refs) < 2 {
				t.Fatalf("retained %v: %v", refs, err)
			}
			newest, prev := refs[len(refs)-1], refs[len(refs)-2]
			data, err := os.ReadFile(newest.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(newest.Path, data[:len(data)/2], 0o644); err != nil {
				t.Fatal(err)
			}
			err = runUntil(r.job(t), 1)
			if twoPhase {
				if !errors.Is(err, checkpoint.ErrCorrupt) || !strings.Contains(err.Error(), newest.Path) || !strings.Contains(err.Error(), prev.Path) {
					t.Fatalf("restoring a truncated checkpoint: %v; want ErrCorrupt naming %s and the previous %s", err, newest.Path, prev.Path)
				}
				r.tweak2(func(s *runtime.JobSpec) { s.RestorePath = prev.Path })
				if err := runUntil(r.job(t), 1); err != nil {
					t.Fatalf("restoring the previous checkpoint explicitly: %v", err)
				}
				// Nothing lost: each partition's rows cover 0..max (the
				// interval after the previous checkpoint came twice).
				for _, fs := range r.fileSinks {
					rows, err := testkit.ReadCommitted(fs.Dir)
					if err != nil {
						t.Fatal(err)
					}
					seen := map[[2]int64]bool{}
					top := map[int64]int64{}
					for _, row := range rows {
						seen[[2]int64{row[0], row[1]}] = true
						top[row[0]] = max(top[row[0]], row[1])
					}
					for p, m := range top {
						for q := range m {
							if !seen[[2]int64{p, q}] {
								t.Fatalf("sink %s: partition %d: seq %d lost", fs.Dir, p, q)
							}
						}
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("restoring past a truncated checkpoint without two-phase sinks: %v", err)
			}
			if !strings.Contains(logs.String(), newest.Path) || !strings.Contains(logs.String(), prev.Path) {
				t.Fatalf("no warning naming the corrupt %s and the restored %s:\n%s", newest.Path, prev.Path, logs.String())
			}
		})
	}
}

// tweak2 adds f to the rig's tweak.
func (r *rig) tweak2(f func(*runtime.JobSpec)) {
	prev := r.tweak
	r.tweak = func(s *runtime.JobSpec) {
		if prev != nil {
			prev(s)
		}
		f(s)
	}
}
