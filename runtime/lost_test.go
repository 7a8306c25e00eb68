package runtime_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// pendingTmp returns the pending file name of a testkit.FileSink
// committable.
func pendingTmp(t *testing.T, c checkpoint.Committable) string {
	t.Helper()
	var fc struct{ Tmp string }
	if err := json.Unmarshal(c.Data, &fc); err != nil || fc.Tmp == "" {
		t.Fatalf("committable %s: %q %v", c.Key, c.Data, err)
	}
	return fc.Tmp
}

// lostKeys returns the keys of the lost commits in err.
func lostKeys(err error) []checkpoint.Key {
	var keys []checkpoint.Key
	var many *runtime.CommitsLostError
	var one *runtime.CommitLostError
	switch {
	case errors.As(err, &many):
		for _, l := range many.Lost {
			keys = append(keys, l.Key)
		}
	case errors.As(err, &one):
		keys = append(keys, one.Key)
	}
	slices.SortFunc(keys, checkpoint.Key.Compare)
	return keys
}

func pendingKeys(md *checkpoint.Metadata) []checkpoint.Key {
	var keys []checkpoint.Key
	for _, c := range md.Pending {
		keys = append(keys, c.Key)
	}
	slices.SortFunc(keys, checkpoint.Key.Compare)
	return keys
}

// TestLostCommitOthersCommitted: when a commit of checkpoint 1 is lost
// (both of sink a's, here), every other committable — sink b's of
// checkpoint 1 and those of the checkpoints completed while the commit
// was held — is still committed and its acknowledgement recorded; then
// the job fails naming every lost commit, which the latest checkpoint
// still lists as pending (and nothing else).
func TestLostCommitOthersCommitted(t *testing.T) {
	r := newRig(t)
	r.sinks = 2
	r.per = 0
	f := (&testkit.Faults{}).On(runtime.CommitDelay, 1, testkit.Block, 0)
	r.faults = f
	r.tweak = func(s *runtime.JobSpec) { s.Config.Restart.Strategy = jobconfig.RestartNone }
	j := r.job(t)
	done := make(chan error, 1)
	go func() { done <- runJob(t, j, time.Minute) }()
	deadline := time.Now().Add(30 * time.Second)
	for !f.Fired(runtime.CommitDelay) || j.Status().Checkpoints.Completed < 3 {
		if time.Now().After(deadline) {
			t.Fatal("no blocked commit after three checkpoints")
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
	var lost, others []checkpoint.Committable
	for _, c := range md.Pending {
		if c.Checkpoint == 1 && c.Sink == "main/out-a" {
			lost = append(lost, c)
			if err := os.Remove(filepath.Join(r.fileSinks[0].Dir, "pending", pendingTmp(t, c))); err != nil {
				t.Fatal(err)
			}
		} else {
			others = append(others, c)
		}
	}
	if len(lost) == 0 || !slices.ContainsFunc(others, func(c checkpoint.Committable) bool { return c.Checkpoint == 1 }) {
		t.Fatalf("checkpoint 1 lacks committables of both sinks: %v", pendingKeys(md))
	}
	f.Release(runtime.CommitDelay)
	err = <-done
	want := pendingKeys(&checkpoint.Metadata{Pending: lost})
	if got := lostKeys(err); !slices.Equal(got, want) {
		t.Fatalf("job error %v\nnames lost commits %v; want %v", err, got, want)
	}
	if len(lost) > 1 && !strings.Contains(err.Error(), "commits lost") {
		t.Fatalf("error does not say several commits are lost: %v", err)
	}
	for _, c := range others {
		var fc struct{ Tmp, Final string }
		_ = json.Unmarshal(c.Data, &fc)
		dir := r.fileSinks[0].Dir
		if c.Sink == "main/out-b" {
			dir = r.fileSinks[1].Dir
		}
		if _, err := os.Stat(filepath.Join(dir, "committed", fc.Final)); err != nil {
			t.Errorf("%s was not committed: %v", c.Key, err)
		}
	}
	after, err := store.Latest()
	if err != nil {
		t.Fatal(err)
	}
	if got := pendingKeys(after); !slices.Equal(got, want) {
		t.Fatalf("latest checkpoint %d lists pending %v; want only the lost %v", after.ID, got, want)
	}
}

// TestLostCommitsDuringRecovery: recovery that finds lost commits in two
// sinks commits every other pending committable, records that, and fails
// naming both lost ones.
func TestLostCommitsDuringRecovery(t *testing.T) {
	r := newRig(t)
	r.sinks = 2
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
	if err != nil {
		t.Fatal(err)
	}
	// Lose the first uncommitted committable of each sink; keep the rest.
	var lost, kept []checkpoint.Committable
	for _, c := range md.Pending {
		dir := r.fileSinks[0].Dir
		if c.Sink == "main/out-b" {
			dir = r.fileSinks[1].Dir
		}
		p := filepath.Join(dir, "pending", pendingTmp(t, c))
		if _, err := os.Stat(p); err != nil {
			continue // committed before the failure
		}
		if !slices.ContainsFunc(lost, func(l checkpoint.Committable) bool { return l.Sink == c.Sink }) {
			lost = append(lost, c)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		kept = append(kept, c)
	}
	if len(lost) != 2 || len(kept) == 0 {
		t.Fatalf("want uncommitted work of both sinks and more; lost %d, kept %d of %v", len(lost), len(kept), pendingKeys(md))
	}
	r.faults = nil
	err = runJob(t, r.job(t), 30*time.Second)
	want := pendingKeys(&checkpoint.Metadata{Pending: lost})
	if got := lostKeys(err); !slices.Equal(got, want) {
		t.Fatalf("recovery error %v\nnames %v; want %v", err, got, want)
	}
	for _, c := range kept {
		var fc struct{ Tmp, Final string }
		_ = json.Unmarshal(c.Data, &fc)
		dir := r.fileSinks[0].Dir
		if c.Sink == "main/out-b" {
			dir = r.fileSinks[1].Dir
		}
		if _, err := os.Stat(filepath.Join(dir, "committed", fc.Final)); err != nil {
			t.Errorf("%s was not committed by recovery: %v", c.Key, err)
		}
	}
	after, err := store.Latest()
	if err != nil {
		t.Fatal(err)
	}
	if got := pendingKeys(after); !slices.Equal(got, want) {
		t.Fatalf("latest checkpoint lists pending %v; want only the lost %v", got, want)
	}
}
