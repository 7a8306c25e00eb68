package kafka

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// forEachBroker runs fn as a parallel subtest on the transaction version 2
// broker and on the version 1 broker.
func forEachBroker(t *testing.T, fn func(t *testing.T, b kafkatest.Broker)) {
	t.Parallel()
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, b)
		})
	}
}

// TestExactlyOnceEndToEnd writes two checkpoints through the writer and the
// committer and checks, with independent consumers, the seed's second
// question: a read_uncommitted reader sees the records before the commit,
// a read_committed reader only after, and exactly once.
func TestExactlyOnceEndToEnd(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		ack := &memoryAckTracker{}
		run, err := startEOS(t, eosConfig(b, topic, kafkatest.UniqueName(t), ack))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		// The coordinator asks the writer about its pool from another
		// goroutine while the task writes (checked by the race detector).
		stop := make(chan struct{})
		polled := make(chan struct{})
		go func() {
			defer close(polled)
			for {
				select {
				case <-stop:
					return
				default:
					run.w.CheckpointReady()
					run.w.OldestUncommitted()
					time.Sleep(time.Millisecond)
				}
			}
		}()
		defer func() { close(stop); <-polled }()
		if cs, err := run.w.PreCommit(ctx, 1); err != nil || len(cs) != 0 {
			t.Fatalf("PreCommit with nothing written = %q, %v; want no committable", cs, err)
		}
		first := seq("a", 0, 100)
		mustWrite(t, run.w, rows(first...))
		c1 := mustPreCommit(t, run.w, 2)
		if got := mustDecode(t, c1); got.TransactionVersion != b.TransactionVersion || got.CheckpointID != 2 {
			t.Fatalf("committable %s: want transaction version %d, checkpoint 2", got, b.TransactionVersion)
		}
		expectValues(t, b, topic, false, first)
		expectNothingCommitted(t, b, topic)
		if err := run.cm.Commit(ctx, c1); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		expectValues(t, b, topic, true, first)
		// Committing again (a retried notification) succeeds.
		if err := run.cm.Commit(ctx, c1); err != nil {
			t.Fatalf("second Commit: %v", err)
		}
		ack.MarkDurable(c1)

		second := seq("b", 0, 50)
		mustWrite(t, run.w, rows(second...))
		c2 := mustPreCommit(t, run.w, 3)
		if err := run.cm.Commit(ctx, c2); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		expectValues(t, b, topic, true, append(slices.Clone(first), second...))
	})
}

// TestRecoverCommit: the writer pre-commits, then its process dies before
// the commit. A new process commits the transaction from the checkpoint's
// committable, exactly once, and again idempotently.
func TestRecoverCommit(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		prefix := kafkatest.UniqueName(t)
		ack := &memoryAckTracker{}
		run1, err := startEOS(t, eosConfig(b, topic, prefix, ack))
		if err != nil {
			t.Fatal(err)
		}
		want := seq("r", 0, 20)
		mustWrite(t, run1.w, rows(want...))
		c := mustPreCommit(t, run1.w, 7)
		run1.w.Crash()
		run1.cm.Close()
		expectNothingCommitted(t, b, topic)

		run2, err := startEOS(t, eosConfig(b, topic, prefix, ack), c)
		if err != nil {
			t.Fatalf("recovery: %v", err)
		}
		expectValues(t, b, topic, true, want)
		// Recovery may meet a committable an earlier recovery committed.
		if err := run2.cm.Recover(context.Background(), []connector.Committable{c}); err != nil {
			t.Fatalf("second recovery: %v", err)
		}
		// The restored id is not reused before its commit is durable: the
		// next transaction uses another slot.
		mustWrite(t, run2.w, rows("next"))
		next := mustPreCommit(t, run2.w, 8)
		if got := mustDecode(t, next); got.TransactionalID == mustDecode(t, c).TransactionalID {
			t.Fatalf("the new transaction reused %s before the restored commit was durably acknowledged", got.TransactionalID)
		}
		if err := run2.cm.Commit(context.Background(), next); err != nil {
			t.Fatal(err)
		}
		expectValues(t, b, topic, true, append(want, "next"))
	})
}

// TestRecoverAfterTimeout: the broker aborted the pre-committed transaction
// (its timeout expired) before recovery. Recovery fails loudly with
// ErrCommitLost, naming the id and its state.
func TestRecoverAfterTimeout(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		prefix := kafkatest.UniqueName(t)
		ack := &memoryAckTracker{}
		// Long enough that a loaded machine still pre-commits within 4/5
		// of it (PreCommit refuses older transactions), short enough that
		// the broker aborts the transaction soon after.
		cfg := eosConfig(b, topic, prefix, ack, withProps("transaction.timeout.ms", "10000"))
		run1, err := startEOS(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, run1.w, rows("lost-1", "lost-2"))
		c := mustPreCommit(t, run1.w, 4)
		run1.w.Crash()
		run1.cm.Close()
		id := mustDecode(t, c).TransactionalID
		waitNotOngoing(t, b, id)

		_, err = startEOS(t, cfg, c)
		if !errors.Is(err, connector.ErrCommitLost) {
			t.Fatalf("recovery after the timeout: %v, want ErrCommitLost", err)
		}
		var lost *CommitLostError
		if !errors.As(err, &lost) {
			t.Fatalf("recovery error %T is not a *CommitLostError", err)
		}
		if lost.TransactionalID != id || lost.State == "" || lost.CheckpointID != 4 {
			t.Fatalf("CommitLostError lacks the id, state or checkpoint: %+v", lost)
		}
		for _, s := range []string{id, "checkpoint 4", "previous retained checkpoint", "acknowledge the loss"} {
			if !strings.Contains(err.Error(), s) {
				t.Fatalf("message %q does not mention %q", err, s)
			}
		}
		t.Logf("transaction version %d: %v", b.TransactionVersion, err)
	})
}

func waitNotOngoing(t *testing.T, b kafkatest.Broker, id string) {
	t.Helper()
	adm := b.Admin(t)
	deadline := time.Now().Add(waitLong)
	for {
		d, err := adm.DescribeTransactions(context.Background(), id)
		if err != nil {
			t.Fatalf("DescribeTransactions: %v", err)
		}
		if s := d[id].State; s != "Ongoing" && s != "PrepareAbort" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction %s still open after %v", id, waitLong)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestLingeringAbort: a run pre-commits checkpoint 5, opens the next
// transaction (records written, never pre-committed) on another id, and is
// killed. The restart commits the restored transaction and aborts the
// lingering one, so the last stable offset advances and a read_committed
// reader gets past it.
func TestLingeringAbort(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		prefix := kafkatest.UniqueName(t)
		ack := &memoryAckTracker{}
		cfg := eosConfig(b, topic, prefix, ack)
		run1, err := startEOS(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		kept := seq("k", 0, 10)
		mustWrite(t, run1.w, rows(kept...))
		c := mustPreCommit(t, run1.w, 5)
		mustWrite(t, run1.w, rows(seq("x", 0, 10)...))
		if err := openClient(run1.w).Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		lingering := openID(run1.w)
		run1.w.Crash()
		run1.cm.Close()

		run2, err := startEOS(t, cfg, c)
		if err != nil {
			t.Fatalf("recovery: %v", err)
		}
		d, err := b.Admin(t).DescribeTransactions(context.Background(), lingering)
		if err != nil {
			t.Fatal(err)
		}
		if s := d[lingering].State; s == "Ongoing" {
			t.Fatalf("lingering transaction %s is still %s after recovery", lingering, s)
		}
		produceSentinel(t, b, topic)
		// read_committed gets past the aborted transaction to the sentinel:
		// the restored transaction is committed, the lingering one is not.
		expectValues(t, b, topic, true, append(kept, "sentinel"))
		_ = run2
	})
}

// TestSlotReuse: a slot is reused only when its previous commit is durably
// acknowledged; with every slot waiting, the writer says checkpoints must
// wait and Write fails rather than reuse an id.
func TestSlotReuse(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		ack := &memoryAckTracker{}
		cfg := eosConfig(b, topic, kafkatest.UniqueName(t), ack)
		cfg.MaxTransactionSlots = 2
		run, err := startEOS(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		mustWrite(t, run.w, rows("1"))
		c1 := mustPreCommit(t, run.w, 1)
		mustWrite(t, run.w, rows("2"))
		c2 := mustPreCommit(t, run.w, 2)
		d1, d2 := mustDecode(t, c1), mustDecode(t, c2)
		if d1.TransactionalID == d2.TransactionalID {
			t.Fatalf("two pre-committed transactions share id %s", d1.TransactionalID)
		}
		// Both slots hold uncommitted transactions.
		if ok, why := run.w.CheckpointReady(); ok {
			t.Fatalf("CheckpointReady with every slot uncommitted = true")
		} else if why == "" {
			t.Fatalf("CheckpointReady gives no reason")
		}
		if err := run.w.Write(ctx, rows("3")); !errors.Is(err, ErrSlotsExhausted) {
			t.Fatalf("Write with every slot uncommitted: %v, want ErrSlotsExhausted", err)
		}
	})
}

func TestSlotReuseAfterDurableAck(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		ack := &memoryAckTracker{}
		cfg := eosConfig(b, topic, kafkatest.UniqueName(t), ack)
		cfg.MaxTransactionSlots = 2
		run, err := startEOS(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		mustWrite(t, run.w, rows("1"))
		// The slot's client is pinned to the cluster's transaction version.
		v, _ := openClient(run.w).OptValue(kgo.MaxVersions).(*kversion.Versions)
		if v == nil {
			t.Fatal("the slot's client has no MaxVersions")
		}
		if max, _ := v.LookupMaxKeyVersion(kmsg.EndTxn.Int16()); (b.TransactionVersion < 2) != (max == 4) {
			t.Fatalf("slot client on transaction version %d may send EndTxn v%d", b.TransactionVersion, max)
		}
		c1 := mustPreCommit(t, run.w, 1)
		if err := run.cm.Commit(ctx, c1); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, run.w, rows("2"))
		c2 := mustPreCommit(t, run.w, 2)
		// c1 is committed but not durable: a checkpoint may start (it will
		// make the acknowledgement durable). The next Write does not wait
		// for it (only a later checkpoint, queued behind the Write, could
		// end that wait) and does not reuse c1's id: it takes one more id.
		if ok, why := run.w.CheckpointReady(); !ok {
			t.Fatalf("CheckpointReady = false (%s) with a committed slot", why)
		}
		mustWrite(t, run.w, rows("3"))
		c3 := mustPreCommit(t, run.w, 3)
		d1, d2, d3 := mustDecode(t, c1), mustDecode(t, c2), mustDecode(t, c3)
		if d3.TransactionalID == d1.TransactionalID || d3.TransactionalID == d2.TransactionalID {
			t.Fatalf("third transaction on %s, reusing an id whose commit is not durable or not done (%s, %s)", d3.TransactionalID, d1.TransactionalID, d2.TransactionalID)
		}
		// Once c1's acknowledgement is durable its id is reused, on a new
		// epoch.
		ack.MarkDurable(c1)
		mustWrite(t, run.w, rows("4"))
		c4 := mustPreCommit(t, run.w, 4)
		d4 := mustDecode(t, c4)
		if d4.TransactionalID != d1.TransactionalID {
			t.Fatalf("fourth transaction on %s, want the reused %s", d4.TransactionalID, d1.TransactionalID)
		}
		if d4.ProducerID == d1.ProducerID && d4.Epoch <= d1.Epoch {
			t.Fatalf("reused id %s kept producer id %d epoch %d (was %d): want a new epoch", d4.TransactionalID, d4.ProducerID, d4.Epoch, d1.Epoch)
		}
		for _, c := range []connector.Committable{c2, c3, c4} {
			if err := run.cm.Commit(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		expectValues(t, b, topic, true, []string{"1", "2", "3", "4"})
	})
}

// TestPreCommitFailsOnProduceFailure: a record the broker rejects fails the
// pre-commit; no committable is returned and nothing becomes visible. (The
// sink measures records against the topic's limit before producing them,
// 'sink.bad-record.policy'; with lz4 it leaves that to the broker, which is
// what this test needs.)
func TestPreCommitFailsOnProduceFailure(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.TopicWithConfig(t, 1, map[string]string{"max.message.bytes": "200"})
		run, err := startEOS(t, eosConfig(b, topic, kafkatest.UniqueName(t), &memoryAckTracker{}, withProps("compression.type", "lz4")))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, run.w, rows("ok", incompressible(2000)))
		cs, err := run.w.PreCommit(context.Background(), 1)
		if err == nil || len(cs) != 0 {
			t.Fatalf("PreCommit after a rejected record = %q, %v; want an error and no committable", cs, err)
		}
		t.Logf("PreCommit: %v", err)
		if err := run.w.Write(context.Background(), rows("more")); err == nil {
			t.Fatalf("Write after a failed pre-commit succeeded")
		}
		run.w.Close()
		produceSentinel(t, b, topic)
		expectValues(t, b, topic, true, []string{"sentinel"})
	})
}

// TestTransactionTimeout checks the default (the broker's maximum) and a
// configured timeout above the broker's maximum.
func TestTransactionTimeout(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	s, err := newSink(eosConfig(b, topic, kafkatest.UniqueName(t), &memoryAckTracker{}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.(*exactlyOnceSink).Committer(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if got := s.(*exactlyOnceSink).TransactionTimeout(); got != 15*time.Minute {
		t.Fatalf("default transaction timeout %v, want the broker's transaction.max.timeout.ms (15m)", got)
	}
	if got := c.(*txn.Committer).TransactionTimeout(); got != 15*time.Minute {
		t.Fatalf("the committer reports the transaction timeout %v, want 15m", got)
	}

	s, err = newSink(eosConfig(b, topic, kafkatest.UniqueName(t), &memoryAckTracker{}, withProps("transaction.timeout.ms", "3600000")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Open(context.Background(), task(0))
	var te *TimeoutError
	if !errors.As(err, &te) || te.BrokerMax != 15*time.Minute {
		t.Fatalf("Open with a timeout above the broker's maximum: %v, want *TimeoutError", err)
	}
	if !strings.Contains(err.Error(), "properties.transaction.timeout.ms") || !strings.Contains(err.Error(), "900000") {
		t.Fatalf("message %q does not name the option and the broker's maximum", err)
	}
}

// incompressible returns n pseudo-random letters (compression must not
// shrink them below a small max.message.bytes).
func incompressible(n int) string {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = 'a' + byte(x%26)
	}
	return string(b)
}
