package txn

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
)

// TestCommitInProcessThenRaw: a transaction whose writer still holds its
// id is committed on the writer's own client; committing it again sends
// nothing; after the writer closed, a commit goes by raw EndTxn and
// succeeds, since the transaction already is committed.
func TestCommitInProcessThenRaw(t *testing.T) {
	f := newFake(t)
	s, d := f.sink()
	w := writer(t, s, 0, &acks{})
	cm := committer(t, s)
	write(t, w, "a")
	c, id := preCommit(t, w, 1)
	awaitPublished(t, s, id)
	if st, hasClient, _ := s.SlotState(id); st != "precommitted" || !hasClient {
		t.Fatalf("slot after PreCommit: %s (client %v), want precommitted with its client", st, hasClient)
	}
	commit(t, cm, c)
	commit(t, cm, c)
	if in, raw := d.inCommits.Load(), d.rawCommits.Load(); in != 1 || raw != 0 {
		t.Fatalf("two commits of a live slot's transaction sent %d in-process and %d raw EndTxn, want 1 and 0", in, raw)
	}
	if st, _, _ := s.SlotState(id); st != "committed" {
		t.Fatalf("slot after Commit: %s, want committed", st)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	commit(t, cm, c)
	if raw := d.rawCommits.Load(); raw != 1 {
		t.Fatalf("commit after the writer closed sent %d raw EndTxn, want 1", raw)
	}
	expectCommitted(t, f, "a")
}

// TestCommitInProcessNeverEndsAnUnseenTransaction: franz-go's
// EndTransaction commits only partitions its producer state has published;
// when records were acknowledged on a partition it has not published yet
// (the first produce to a topic on a new client races its metadata
// goroutine), it ends the transaction as empty — aborting it under
// transaction version 2, sending nothing below — and returns nil. The
// committer must not take that nil for a commit: it commits such a
// transaction by raw EndTxn, whose answer is definitive, and the records
// become visible.
func TestCommitInProcessNeverEndsAnUnseenTransaction(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode int32
	}{{"tv2-abort", unpublishedAbort}, {"tv1-noop", unpublishedNoop}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			s, d := f.sink()
			w := writer(t, s, 0, &acks{})
			cm := committer(t, s)
			write(t, w, "a")
			c, id := preCommit(t, w, 1)
			d.unpublished.Store(tc.mode)
			commit(t, cm, c)
			in, raw := d.inCommits.Load(), d.rawCommits.Load()
			st, hasClient, _ := s.SlotState(id)
			// The writer goes on; its next transaction commits in process.
			d.unpublished.Store(unpublishedNone)
			write(t, w, "b")
			c2, _ := preCommit(t, w, 2)
			commit(t, cm, c2)
			expectCommitted(t, f, "a", "b")
			if in != 0 || raw != 1 {
				t.Fatalf("commit sent %d in-process and %d raw EndTxn, want 0 and 1", in, raw)
			}
			if st != "committed" || hasClient {
				t.Fatalf("slot after the raw commit: %s (client %v), want committed without its client", st, hasClient)
			}
		})
	}
}

// TestAbortInProcessNeverSkipsAnUnseenTransaction: the same for Abort:
// below transaction version 2 franz-go would send nothing for a
// transaction it takes for empty, leaving it open (read_committed readers
// wait) until it times out; it is aborted by raw EndTxn instead.
func TestAbortInProcessNeverSkipsAnUnseenTransaction(t *testing.T) {
	f := newFake(t)
	s, d := f.sink()
	w := writer(t, s, 0, &acks{})
	cm := committer(t, s)
	write(t, w, "a")
	c, _ := preCommit(t, w, 1)
	d.unpublished.Store(unpublishedNoop)
	if err := cm.Abort(context.Background(), c); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	expectCommitted(t, f) // the sentinel is not held back by an open transaction
	if in, raw := d.inAborts.Load(), d.rawAborts.Load(); in != 0 || raw != 1 {
		t.Fatalf("abort sent %d in-process and %d raw EndTxn, want 0 and 1", in, raw)
	}
}

// TestCommitRetriesBusyCoordinator: a coordinator answering
// CONCURRENT_TRANSACTIONS is asked again; the commit then succeeds.
func TestCommitRetriesBusyCoordinator(t *testing.T) {
	f := newFake(t)
	s, d := f.sink()
	w := writer(t, s, 0, &acks{})
	cm := committer(t, s)
	write(t, w, "a")
	c, _ := preCommit(t, w, 1)
	w.Crash() // the raw path: no client of this process holds the id
	busy := 0
	f.c.ControlKey(kmsg.EndTxn.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if busy == 2 {
			return nil, nil, false
		}
		busy++
		f.c.KeepControl()
		resp := req.(*kmsg.EndTxnRequest).ResponseKind().(*kmsg.EndTxnResponse)
		resp.ErrorCode = kerr.ConcurrentTransactions.Code
		return resp, nil, true
	})
	commit(t, cm, c)
	if busy != 2 || d.rawCommits.Load() != 3 {
		t.Fatalf("coordinator refused %d times, %d raw EndTxn sent; want 2 refusals and 3 requests", busy, d.rawCommits.Load())
	}
	expectCommitted(t, f, "a")
}

// TestAbortThenCommitIsLost: an aborted transaction cannot be committed:
// Commit says so with a *CommitLostError wrapping connector.ErrCommitLost
// that names the transaction. Aborting it again, or aborting a
// transaction the cluster never knew, succeeds.
func TestAbortThenCommitIsLost(t *testing.T) {
	f := newFake(t)
	s, d := f.sink()
	w := writer(t, s, 0, &acks{})
	cm := committer(t, s)
	ctx := context.Background()
	write(t, w, "a")
	c, id := preCommit(t, w, 7)
	awaitPublished(t, s, id)
	if err := cm.Abort(ctx, c); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	if d.inAborts.Load() != 1 {
		t.Fatalf("the abort of a live slot's transaction was not sent on its own client")
	}
	err := cm.Commit(ctx, c)
	var lost *CommitLostError
	if !errors.As(err, &lost) || !errors.Is(err, connector.ErrCommitLost) {
		t.Fatalf("Commit of an aborted transaction: %v; want a *CommitLostError wrapping connector.ErrCommitLost", err)
	}
	if lost.TransactionalID != id || lost.CheckpointID != 7 || lost.State == "" || lost.Cause == nil ||
		!strings.Contains(err.Error(), "checkpoint 7") {
		t.Fatalf("CommitLostError lacks the id, checkpoint, cause or state: %+v", lost)
	}
	for i := range 2 {
		if err := cm.Abort(ctx, c); err != nil {
			t.Fatalf("Abort #%d of an aborted transaction: %v", i+2, err)
		}
	}
	unknown := Committable{TransactionalID: "p-5-0", ProducerID: 424242, Epoch: 3, TransactionVersion: 2, CheckpointID: 1}.Encode()
	if err := cm.Abort(ctx, unknown); err != nil {
		t.Fatalf("Abort of a transaction the cluster never knew: %v", err)
	}
	// The slot is free again: the next transaction reuses the id.
	write(t, w, "b")
	c2, id2 := preCommit(t, w, 8)
	if id2 != id {
		t.Fatalf("transaction after the abort on %s, want %s reused", id2, id)
	}
	commit(t, cm, c2)
	expectCommitted(t, f, "b")
}

// TestCommitLostAfterFencing: a pre-committed transaction whose id is
// initialised again (another process took the id) is aborted by the
// coordinator; Commit reports it lost and describes the id as it is now.
func TestCommitLostAfterFencing(t *testing.T) {
	f := newFake(t)
	s, _ := f.sink()
	w := writer(t, s, 0, &acks{})
	cm := committer(t, s)
	ctx := context.Background()
	write(t, w, "a")
	c, id := preCommit(t, w, 1)
	w.Crash()
	if err := InitProducerID(ctx, f.client(), id, time.Minute); err != nil {
		t.Fatal(err)
	}
	err := cm.Commit(ctx, c)
	var lost *CommitLostError
	if !errors.As(err, &lost) {
		t.Fatalf("Commit after the id was initialised again: %v; want *CommitLostError", err)
	}
	pc, _ := DecodeCommittable(c)
	if lost.CurrentEpoch <= pc.Epoch || lost.DescribeErr != nil {
		t.Fatalf("CommitLostError describes epoch %d (describe error %v); want the id's newer epoch, above %d", lost.CurrentEpoch, lost.DescribeErr, pc.Epoch)
	}
	expectCommitted(t, f)
}

// TestRecoverTwice: a restart commits the restored committables by raw
// EndTxn (their writer is gone) and aborts what earlier runs left open;
// recovering the same committables again succeeds and commits nothing
// twice. Restored ids are not reused before their commits are durable.
func TestRecoverTwice(t *testing.T) {
	f := newFake(t)
	ctx := context.Background()

	// Run 1 pre-commits on task 0, leaves a transaction open on task 1,
	// and dies.
	s1, _ := f.sink()
	w1 := writer(t, s1, 0, &acks{})
	write(t, w1, "a", "b")
	c1, id1 := preCommit(t, w1, 1)
	open := writer(t, s1, 1, &acks{})
	write(t, open, "lingering")
	openID, cl := open.OpenTransaction()
	if err := cl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	w1.Crash()
	open.Crash()
	if st := f.state(openID); st != "Ongoing" {
		t.Fatalf("run 1's open transaction is %s, want Ongoing", st)
	}

	// Run 2 recovers, twice.
	s2, d2 := f.sink()
	cm := committer(t, s2)
	for i := range 2 {
		if err := cm.Recover(ctx, []connector.Committable{c1}); err != nil {
			t.Fatalf("Recover #%d: %v", i+1, err)
		}
	}
	if d2.rawCommits.Load() != 2 {
		t.Fatalf("two recoveries sent %d raw commits, want 2", d2.rawCommits.Load())
	}
	if st := f.state(openID); st == "Ongoing" {
		t.Fatalf("recovery left run 1's open transaction on %s open", openID)
	}
	ack := &acks{}
	w2 := writer(t, s2, 0, ack)
	write(t, w2, "c")
	c2, id2 := preCommit(t, w2, 2)
	if id2 == id1 {
		t.Fatalf("restored id %s reused before its commit is durable", id1)
	}
	ack.mark(c1)
	commit(t, cm, c2)
	write(t, w2, "d")
	c3, id3 := preCommit(t, w2, 3)
	if id3 != id1 {
		t.Fatalf("transaction after the restored commit became durable on %s, want %s", id3, id1)
	}
	commit(t, cm, c3)
	expectCommitted(t, f, "a", "b", "c", "d")
}

// TestRecoverForeignPrefix: a restored committable of another prefix
// fails recovery, naming the option, before anything is committed.
func TestRecoverForeignPrefix(t *testing.T) {
	f := newFake(t)
	s, d := f.sink()
	cm := committer(t, s)
	c := Committable{TransactionalID: "other-0-0", ProducerID: 1, Epoch: 0, TransactionVersion: 2, CheckpointID: 3}.Encode()
	err := cm.Recover(context.Background(), []connector.Committable{c})
	if err == nil || !strings.Contains(err.Error(), "sink.transactional-id-prefix") || !strings.Contains(err.Error(), `prefix "p"`) {
		t.Fatalf("recovery with another prefix's committable: %v", err)
	}
	if d.rawCommits.Load() != 0 {
		t.Fatalf("a foreign committable was committed")
	}
}

// TestOffsetsCommitWithTransaction: group positions pre-committed with a
// transaction reach the group when it commits, and never when it aborts.
func TestOffsetsCommitWithTransaction(t *testing.T) {
	f := newFake(t)
	s, _ := f.sink()
	w := writer(t, s, 0, &acks{})
	cm := committer(t, s)
	ctx := context.Background()
	positions := func(group string, offset int64) []connector.GroupPositions {
		return []connector.GroupPositions{{Cluster: "fake", Group: group, Generation: -1,
			Offsets: []connector.PartitionOffset{{Topic: topic, Partition: 0, Offset: offset}}}}
	}
	if !w.AcceptsGroupPositions(positions("g", 0)[0]) {
		t.Fatalf("the writer refuses positions of its own cluster")
	}
	write(t, w, "a")
	cs, err := w.PreCommitWithPositions(ctx, 1, positions("aborted", 5))
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Abort(ctx, cs[0]); err != nil {
		t.Fatal(err)
	}
	write(t, w, "b")
	cs, err = w.PreCommitWithPositions(ctx, 2, positions("committed", 7))
	if err != nil {
		t.Fatal(err)
	}
	commit(t, cm, cs[0])
	adm := kadm.NewClient(f.client())
	for group, want := range map[string]int64{"aborted": -1, "committed": 7} {
		got, err := adm.FetchOffsets(ctx, group)
		if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
			t.Fatal(err)
		}
		o, ok := got.Lookup(topic, 0)
		if (want < 0 && ok && o.At >= 0) || (want >= 0 && (!ok || o.At != want)) {
			t.Fatalf("group %s has offset %+v (found %v), want %d", group, o, ok, want)
		}
	}
	expectCommitted(t, f, "b")
}

// TestProduceFailureIsNotPreCommitted: a record the broker refuses fails
// the pre-commit (no committable of a transaction missing records), the
// writer stays failed, and Close aborts the transaction so that readers
// are not held back.
func TestProduceFailureIsNotPreCommitted(t *testing.T) {
	f := newFake(t)
	s, _ := f.sink()
	w, err := s.NewWriter(context.Background(), task(0), &acks{}, produce.New(context.Background(), valueEncoder{}, nil, nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	// "a" is written in the open transaction; "b" is refused.
	write(t, w, "a")
	openID, cl := w.OpenTransaction()
	if err := cl.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := f.state(openID); st != "Ongoing" {
		t.Fatalf("the transaction on %s is %s, want Ongoing", openID, st)
	}
	var refuse atomic.Bool
	refuse.Store(true)
	f.c.ControlKey(kmsg.Produce.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if !refuse.Load() {
			return nil, nil, false
		}
		f.c.KeepControl()
		resp := req.(*kmsg.ProduceRequest).ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range req.(*kmsg.ProduceRequest).Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.InvalidRecord.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	write(t, w, "b")
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	cs, err := w.PreCommit(ctx, 1)
	if err == nil || len(cs) != 0 || !errors.Is(err, kerr.InvalidRecord) || !strings.Contains(err.Error(), "is not pre-committed") {
		t.Fatalf("PreCommit after a refused record = %d committables, %v; want the refusal and no committable", len(cs), err)
	}
	if err2 := w.Write(context.Background(), rows("c")); err2 == nil {
		t.Fatalf("Write after a failed pre-commit succeeded")
	}
	_ = w.Close()
	refuse.Store(false)
	if st := f.state(openID); st == "Ongoing" {
		t.Fatalf("Close left the failed transaction on %s open", openID)
	}
	expectCommitted(t, f)
}
