package txn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
)

// TestSlotReusedOnlyAfterDurableAck: a pooled id whose last transaction is
// committed is not reused until that commit is durably acknowledged (a
// crash before could make recovery commit the old committable against the
// id's newer transaction); once it is, the lowest id is reused.
func TestSlotReusedOnlyAfterDurableAck(t *testing.T) {
	f := newFake(t)
	s, _ := f.sink()
	ack := &acks{}
	w := writer(t, s, 0, ack)
	cm := committer(t, s)

	write(t, w, "a")
	c1, id1 := preCommit(t, w, 1)
	commit(t, cm, c1)
	write(t, w, "b")
	c2, id2 := preCommit(t, w, 2)
	if id1 != "p-0-0" || id2 != "p-0-1" {
		t.Fatalf("transactions on %s then %s; want p-0-0, then p-0-1 while p-0-0's commit is not durable", id1, id2)
	}
	ack.mark(c1)
	commit(t, cm, c2)
	write(t, w, "c")
	c3, id3 := preCommit(t, w, 3)
	if id3 != "p-0-0" {
		t.Fatalf("third transaction on %s; want p-0-0 reused once its commit is durable", id3)
	}
	commit(t, cm, c3)
	if n := w.Slots(); n != 2 {
		t.Fatalf("the pool holds %d ids, want 2", n)
	}
	expectCommitted(t, f, "a", "b", "c")
}

// TestPoolExhausted: with every id of the pool holding a transaction whose
// commit is not done, CheckpointReady says to wait and Write fails with
// ErrSlotsExhausted; a commit that is done but not durable lets the pool
// take one more id instead of waiting.
func TestPoolExhausted(t *testing.T) {
	f := newFake(t)
	s, _ := f.sink(func(c *Config) { c.MaxSlots = 2 })
	w := writer(t, s, 0, &acks{})
	cm := committer(t, s)

	write(t, w, "a")
	c1, _ := preCommit(t, w, 1)
	write(t, w, "b")
	c2, _ := preCommit(t, w, 2)
	if ok, why := w.CheckpointReady(); ok || !strings.Contains(why, "all 2 transactional ids wait") {
		t.Fatalf("CheckpointReady with both ids pre-committed = %v, %q; want false naming the 2 ids", ok, why)
	}
	err := w.Write(context.Background(), rows("c"))
	if !errors.Is(err, ErrSlotsExhausted) || !strings.Contains(err.Error(), `prefix "p"`) {
		t.Fatalf("Write with every id uncommitted: %v; want ErrSlotsExhausted naming the prefix", err)
	}

	// A new writer (the failed one is sticky), same situation, but c1's
	// commit is done: one id beyond the pool.
	w2 := writer(t, s, 1, &acks{})
	write(t, w2, "d")
	d1, _ := preCommit(t, w2, 1)
	write(t, w2, "e")
	d2, _ := preCommit(t, w2, 2)
	commit(t, cm, d1)
	if ok, why := w2.CheckpointReady(); !ok {
		t.Fatalf("CheckpointReady after a commit: %s", why)
	}
	write(t, w2, "f")
	d3, id := preCommit(t, w2, 3)
	if id != "p-1-2" {
		t.Fatalf("transaction beyond the pool on %s, want p-1-2", id)
	}
	commit(t, cm, c1, c2, d2, d3)
	expectCommitted(t, f, "a", "b", "d", "e", "f")
}

// TestIncrementingNeverReuses: INCREMENTING gives every transaction the
// next id and drops ids whose commit is durable.
func TestIncrementingNeverReuses(t *testing.T) {
	f := newFake(t)
	s, _ := f.sink(func(c *Config) { c.Incrementing = true })
	ack := &acks{}
	w := writer(t, s, 0, ack)
	cm := committer(t, s)
	for i, want := range []string{"p-0-0", "p-0-1", "p-0-2", "p-0-3"} {
		write(t, w, want)
		c, id := preCommit(t, w, int64(i+1))
		if id != want {
			t.Fatalf("transaction %d on %s, want %s", i, id, want)
		}
		commit(t, cm, c)
		ack.mark(c)
	}
	if n := w.Slots(); n > 1 {
		t.Fatalf("%d ids kept after their commits became durable, want at most 1", n)
	}
	expectCommitted(t, f, "p-0-0", "p-0-1", "p-0-2", "p-0-3")
}

// TestSkippedRowsOpenNoTransaction: rows the encoder skips begin no
// transaction, so PreCommit has nothing to hand out (committing an empty
// transaction fails on the broker) and no client is made.
func TestSkippedRowsOpenNoTransaction(t *testing.T) {
	f := newFake(t)
	s, d := f.sink()
	w := writer(t, s, 0, &acks{})
	write(t, w, "skip", "skip")
	if id, _ := w.OpenTransaction(); id != "" {
		t.Fatalf("skipped rows opened a transaction on %s", id)
	}
	cs, err := w.PreCommit(context.Background(), 1)
	if err != nil || len(cs) != 0 {
		t.Fatalf("PreCommit after skipped rows = %q, %v; want nothing", cs, err)
	}
	if n := d.transactional.Load(); n != 0 {
		t.Fatalf("%d transactional clients made for skipped rows", n)
	}
	write(t, w, "skip", "x", "skip")
	if id, _ := w.OpenTransaction(); id != "p-0-0" {
		t.Fatalf("the first encoded row opened a transaction on %q, want p-0-0", id)
	}
	c, _ := preCommit(t, w, 2)
	commit(t, committer(t, s), c)
	expectCommitted(t, f, "x")
}

// TestTransactionVersions: the writer pins each client to the cluster's
// transaction.version and records it in the committable. Below 2 every
// transaction on a reused id starts on a new client (a fresh
// InitProducerId: successive transactions of one producer would otherwise
// share an epoch, FLINK-8132); at 2 the client is kept (EndTxn v5 bumps
// the epoch itself). Both commit, in process and by raw EndTxn.
func TestTransactionVersions(t *testing.T) {
	for _, tc := range []struct {
		tv      int16
		clients int64
	}{{1, 2}, {2, 1}} {
		t.Run(fmt.Sprintf("tv%d", tc.tv), func(t *testing.T) {
			f := newFake(t)
			if tc.tv < 2 {
				up := kadm.FeatureUpdate{Feature: "transaction.version", MaxVersionLevel: tc.tv, UpgradeType: 2}
				res, err := kadm.NewClient(f.client()).UpdateFeatures(context.Background(), false, up)
				if err == nil {
					err = res.Error()
				}
				if err != nil {
					t.Fatalf("setting transaction.version %d: %v", tc.tv, err)
				}
			}
			s, d := f.sink()
			ack := &acks{}
			w := writer(t, s, 0, ack)
			cm := committer(t, s)
			write(t, w, "a")
			c1, id1 := preCommit(t, w, 1)
			if c, _ := DecodeCommittable(c1); c.TransactionVersion != tc.tv {
				t.Fatalf("committable records transaction version %d, want %d", c.TransactionVersion, tc.tv)
			}
			commit(t, cm, c1)
			ack.mark(c1)
			write(t, w, "b")
			c2, id2 := preCommit(t, w, 2)
			if id2 != id1 {
				t.Fatalf("second transaction on %s, want %s reused", id2, id1)
			}
			if n := d.transactional.Load(); n != tc.clients {
				t.Fatalf("two transactions on one id made %d clients, want %d", n, tc.clients)
			}
			w.Crash()
			commit(t, cm, c2) // raw EndTxn of the committable's version
			if d.rawCommits.Load() != 1 {
				t.Fatalf("the commit after the crash was not sent raw")
			}
			expectCommitted(t, f, "a", "b")
		})
	}
}
