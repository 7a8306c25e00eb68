package testkit

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/types"
)

func TestParseFaults(t *testing.T) {
	f, err := ParseFaults("after-pre-commit@3:fail, commit-delay:delay:1ms")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	info := runtime.FaultInfo{Checkpoint: 1}
	for i := 1; i <= 3; i++ {
		err := f.Hit(ctx, runtime.AfterPreCommit, info)
		if (i == 3) != errors.Is(err, ErrInjected) {
			t.Fatalf("hit %d: %v", i, err)
		}
	}
	if err := f.Hit(ctx, runtime.AfterPreCommit, info); err != nil {
		t.Fatalf("a rule fired twice: %v", err)
	}
	if err := f.Hit(ctx, runtime.CommitDelay, info); err != nil || !f.Fired(runtime.CommitDelay) {
		t.Fatalf("delay rule: %v", err)
	}
	for _, bad := range []string{"nowhere@1:fail", "after-commit@0", "after-commit:explode", "after-commit:kill:soon", "after-commit:block"} {
		if _, err := ParseFaults(bad); err == nil {
			t.Errorf("ParseFaults(%q) succeeded", bad)
		}
	}
}

func TestSeqSourceResumes(t *testing.T) {
	s := &SeqSource{Partitions: 2, PerPartition: 5, Batch: 3}
	ctx := context.Background()
	r, err := s.Open(ctx, connector.TaskInfo{}, []connector.SplitState{{ID: "p0"}, {ID: "p1", State: []byte("4")}})
	if err != nil {
		t.Fatal(err)
	}
	var got []types.Row
	for {
		rows, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rows...)
	}
	// p0: 0..4, p1: 4 only.
	if len(got) != 6 {
		t.Fatalf("%d rows, want 6", len(got))
	}
	st, _ := r.Snapshot(1)
	if string(st[0].State) != "5" || string(st[1].State) != "5" {
		t.Fatalf("snapshot %q %q", st[0].State, st[1].State)
	}
}

func TestFileSinkCommitIdempotentAndLost(t *testing.T) {
	ctx := context.Background()
	s := &FileSink{Dir: t.TempDir()}
	w, err := s.Open(ctx, connector.TaskInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, []types.Row{{Fields: []types.Value{types.Int64(0), types.Int64(0)}}}); err != nil {
		t.Fatal(err)
	}
	cs, err := w.PreCommit(ctx, 1)
	if err != nil || len(cs) != 1 {
		t.Fatalf("pre-commit: %v %v", cs, err)
	}
	if empty, _ := w.PreCommit(ctx, 2); len(empty) != 0 {
		t.Fatal("an empty transaction was pre-committed")
	}
	c, _ := s.Committer(ctx, "job")
	for range 2 {
		if err := c.Commit(ctx, cs[0]); err != nil {
			t.Fatalf("commit: %v", err)
		}
	}
	rows, err := ReadCommitted(s.Dir)
	if err != nil || len(rows) != 1 {
		t.Fatalf("committed %v %v", rows, err)
	}
	lost := connector.Committable(`{"tmp":"gone.tmp","final":"gone.data"}`)
	if err := c.Commit(ctx, lost); !errors.Is(err, connector.ErrCommitLost) {
		t.Fatalf("committing vanished work: %v", err)
	}
	if _, err := CheckExactlyOnce([][]int64{{0, 0}, {0, 0}}, 1, nil); err == nil {
		t.Fatal("a duplicate passed the check")
	}
	if _, err := CheckExactlyOnce([][]int64{{0, 1}}, 1, nil); err == nil {
		t.Fatal("a gap passed the check")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
