package kafka

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// TestRuntimeLostCommitOthersCommitted: while the commits of checkpoint 1
// are held, the transactions of sink out_0 are fenced (a raw
// InitProducerId aborts them). The job must still commit sink out_1's
// transactions of that checkpoint, then fail naming each lost one of
// out_0. Each checkpoint has its own ids (INCREMENTING), so a committed
// id stays CompleteCommit.
func TestRuntimeLostCommitOthersCommitted(t *testing.T) {
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			j := rtJob{broker: b.Addr, job: kafkatest.UniqueName(t), dir: t.TempDir(), guarantee: "exactly-once", naming: "INCREMENTING",
				topics: [3]string{b.Topic(t, 3), b.Topic(t, 3), b.Topic(t, 2)}, per: 2000}
			f := (&testkit.Faults{}).On(runtime.CommitDelay, 1, testkit.Block, 0)
			spec, err := j.spec(f, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			job, err := runtime.NewJob(spec)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- job.Run(ctx) }()
			deadline := time.Now().Add(waitLong)
			for !f.Fired(runtime.CommitDelay) || job.Status().Checkpoints.Completed < 1 {
				if time.Now().After(deadline) {
					t.Fatal("no blocked commit")
				}
				time.Sleep(time.Millisecond)
			}
			store, err := checkpoint.OpenDir(filepath.Join(j.dir, "checkpoints"), j.job)
			if err != nil {
				t.Fatal(err)
			}
			md, err := store.Latest()
			if err != nil {
				t.Fatal(err)
			}
			var lost []checkpoint.Key
			var others []string
			cl := b.Client(t)
			for _, c := range md.Pending {
				if c.Checkpoint != 1 {
					continue
				}
				kc, err := txn.DecodeCommittable(c.Data)
				if err != nil {
					t.Fatal(err)
				}
				switch c.Sink {
				case "main/out_0":
					lost = append(lost, c.Key)
					if err := txn.InitProducerID(ctx, cl, kc.TransactionalID, time.Minute); err != nil {
						t.Fatalf("fence %s: %v", kc.TransactionalID, err)
					}
				case "main/out_1":
					others = append(others, kc.TransactionalID)
				}
			}
			if len(lost) == 0 || len(others) == 0 {
				t.Fatalf("checkpoint 1 lacks transactions of out_0 or out_1: %+v", md.Pending)
			}
			f.Release(runtime.CommitDelay)
			err = <-done
			var got []checkpoint.Key
			var many *runtime.CommitsLostError
			var one *runtime.CommitLostError
			switch {
			case errors.As(err, &many):
				for _, l := range many.Lost {
					got = append(got, l.Key)
				}
			case errors.As(err, &one):
				got = append(got, one.Key)
			}
			slices.SortFunc(got, checkpoint.Key.Compare)
			slices.SortFunc(lost, checkpoint.Key.Compare)
			if !slices.Equal(got, lost) {
				t.Fatalf("job error %v\nnames %v; want the fenced %v", err, got, lost)
			}
			// PrepareCommit is the commit decided, its markers still being
			// written: wait for CompleteCommit.
			adm := b.Admin(t)
			for _, id := range others {
				for deadline := time.Now().Add(waitLong); ; time.Sleep(20 * time.Millisecond) {
					described, err := adm.DescribeTransactions(context.Background(), id)
					if err != nil {
						t.Fatal(err)
					}
					d := described[id]
					if d.State == "CompleteCommit" {
						break
					}
					if d.State != "PrepareCommit" || time.Now().After(deadline) {
						t.Fatalf("out_1's transaction %s of checkpoint 1 is %q, want CompleteCommit", id, d.State)
					}
				}
			}
		})
	}
}

// TestRuntimeRestoreOlderCheckpoint restores a retained checkpoint whose
// pending transactions were committed long ago, their pooled ids reused
// by later transactions since (a newer epoch; a new producer id under
// transaction version 1). Re-committing them would be refused
// (PRODUCER_FENCED) and reported as lost; the restore must see that a
// newer checkpoint no longer lists them and skip them.
func TestRuntimeRestoreOlderCheckpoint(t *testing.T) {
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			j := rtJob{broker: b.Addr, job: kafkatest.UniqueName(t), dir: t.TempDir(), guarantee: "exactly-once",
				topics: [3]string{b.Topic(t, 3), b.Topic(t, 3), b.Topic(t, 2)}, per: 600}
			f := (&testkit.Faults{}).On(runtime.CommitDelay, 1, testkit.Block, 0)
			spec, err := j.spec(f, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			job, err := runtime.NewJob(spec)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- job.Run(ctx) }()
			deadline := time.Now().Add(waitLong)
			for !f.Fired(runtime.CommitDelay) || job.Status().Checkpoints.Completed < 2 {
				if time.Now().After(deadline) {
					t.Fatal("no blocked commit")
				}
				time.Sleep(time.Millisecond)
			}
			// Keep a copy of the latest checkpoint: it lists the held
			// transactions as pending.
			store, err := checkpoint.OpenDir(filepath.Join(j.dir, "checkpoints"), j.job)
			if err != nil {
				t.Fatal(err)
			}
			old, err := store.Latest()
			if err != nil || len(old.Pending) == 0 {
				t.Fatalf("latest checkpoint: %v, %+v", err, old)
			}
			side, err := checkpoint.OpenDir(t.TempDir(), j.job)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := side.Write(old); err != nil {
				t.Fatal(err)
			}
			f.Release(runtime.CommitDelay)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			// Restore the copy: every transaction it lists is committed,
			// and the job ran many checkpoints since on the same ids.
			spec, err = j.spec(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			spec.RestorePath = side.Path()
			job, err = runtime.NewJob(spec)
			if err != nil {
				t.Fatal(err)
			}
			if err := job.Run(ctx); err != nil {
				t.Fatalf("restoring checkpoint %d (its commits done long ago): %v", old.ID, err)
			}
		})
	}
}
