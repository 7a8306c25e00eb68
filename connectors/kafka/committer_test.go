package kafka

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestCommitAfterUnconfirmedAndClose: a commit whose in-process outcome is
// unknown (here: its context is already done) leaves only the raw EndTxn
// path; so does a writer that closed. Both commit exactly once.
func TestCommitAfterUnconfirmedAndClose(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		ack := &memoryAckTracker{}
		run, err := startEOS(t, eosConfig(b, topic, kafkatest.UniqueName(t), ack))
		if err != nil {
			t.Fatal(err)
		}
		if !run.w.OldestUncommitted().IsZero() {
			t.Fatalf("OldestUncommitted before any write is not zero")
		}
		mustWrite(t, run.w, rows("u1", "u2"))
		c1 := mustPreCommit(t, run.w, 1)
		if run.w.OldestUncommitted().IsZero() {
			t.Fatalf("OldestUncommitted with a pre-committed transaction is zero")
		}
		done, cancel := context.WithCancel(context.Background())
		cancel()
		if err := run.cm.Commit(done, c1); err == nil {
			t.Fatalf("Commit with a done context succeeded")
		}
		id := mustDecode(t, c1).TransactionalID
		if _, hasClient, ok := run.sink.machinery().SlotState(id); !ok || hasClient {
			t.Fatalf("after an unconfirmed commit the slot's client must be closed and dropped")
		}
		if err := run.cm.Commit(context.Background(), c1); err != nil {
			t.Fatalf("retried Commit: %v", err)
		}
		if state, _, _ := run.sink.machinery().SlotState(id); state != "committed" {
			t.Fatalf("slot state %s after the raw commit, want committed", state)
		}
		if !run.w.OldestUncommitted().IsZero() {
			t.Fatalf("OldestUncommitted after the commit is not zero")
		}

		mustWrite(t, run.w, rows("u3"))
		c2 := mustPreCommit(t, run.w, 2)
		if err := run.w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := run.cm.Commit(context.Background(), c2); err != nil {
			t.Fatalf("Commit after the writer closed: %v", err)
		}
		expectValues(t, b, topic, true, []string{"u1", "u2", "u3"})
	})
}

// TestAbort aborts a pre-committed transaction in-process and one whose
// writer is gone; aborting again succeeds.
func TestAbort(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		ack := &memoryAckTracker{}
		run, err := startEOS(t, eosConfig(b, topic, kafkatest.UniqueName(t), ack))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		mustWrite(t, run.w, rows("a1"))
		c1 := mustPreCommit(t, run.w, 1)
		if err := run.cm.Abort(ctx, c1); err != nil {
			t.Fatalf("in-process Abort: %v", err)
		}
		mustWrite(t, run.w, rows("a2"))
		c2 := mustPreCommit(t, run.w, 2)
		run.w.Crash()
		for i := 0; i < 2; i++ {
			if err := run.cm.Abort(ctx, c2); err != nil {
				t.Fatalf("raw Abort #%d: %v", i+1, err)
			}
		}
		produceSentinel(t, b, topic)
		expectValues(t, b, topic, true, []string{"sentinel"})
	})
}

// TestIncrementingNames: INCREMENTING gives every transaction a new id.
func TestIncrementingNames(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	ack := &memoryAckTracker{}
	prefix := kafkatest.UniqueName(t)
	cfg := eosConfig(b, topic, prefix, ack)
	cfg.TransactionNamingStrategy = incrementing
	run, err := startEOS(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := int64(1); i <= 4; i++ {
		mustWrite(t, run.w, rows("i"+string(rune('0'+i))))
		c := mustPreCommit(t, run.w, i)
		if err := run.cm.Commit(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		ack.MarkDurable(c)
		ids = append(ids, mustDecode(t, c).TransactionalID)
	}
	for i, id := range ids {
		if want := txn.ID(prefix, 0, i); id != want {
			t.Fatalf("transaction %d on %s, want %s", i, id, want)
		}
	}
	if run.w.Slots() > 2 {
		t.Fatalf("%d slots kept after their commits became durable", run.w.Slots())
	}
	expectValues(t, b, topic, true, []string{"i1", "i2", "i3", "i4"})

	// A restart continues after the restored checkpoint's ids.
	mustWrite(t, run.w, rows("i5"))
	c5 := mustPreCommit(t, run.w, 5)
	run.w.Crash()
	run2, err := startEOS(t, cfg, c5)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, run2.w, rows("i6"))
	if got, want := mustDecode(t, mustPreCommit(t, run2.w, 6)).TransactionalID, txn.ID(prefix, 0, 5); got != want {
		t.Fatalf("first transaction after the restart on %s, want %s", got, want)
	}
}

// TestLingeringAbortScope: recovery aborts open transactions of the prefix
// from any task (an earlier run's parallelism may differ) but leaves a
// longer prefix that merely starts with it alone.
func TestLingeringAbortScope(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	other := b.Topic(t, 1)
	prefix := kafkatest.UniqueName(t)
	ctx := context.Background()
	open := func(id, topic string) *kgo.Client {
		cl := b.Client(t, kgo.TransactionalID(id), kgo.DefaultProduceTopic(topic))
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, kgo.StringRecord(id)).FirstErr(); err != nil {
			t.Fatal(err)
		}
		return cl
	}
	ours := txn.ID(prefix, 3, 9)
	foreign := txn.ID(prefix+"-x", 0, 0)
	open(ours, topic).Close()
	foreignCl := open(foreign, other)
	if _, err := startEOS(t, eosConfig(b, topic, prefix, &memoryAckTracker{})); err != nil {
		t.Fatal(err)
	}
	d, err := b.Admin(t).DescribeTransactions(ctx, ours, foreign)
	if err != nil {
		t.Fatal(err)
	}
	if d[ours].State == "Ongoing" {
		t.Fatalf("open transaction %s of the prefix was not aborted", ours)
	}
	if d[foreign].State != "Ongoing" {
		t.Fatalf("transaction %s of another prefix was touched: %s", foreign, d[foreign].State)
	}
	if err := foreignCl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	produceSentinel(t, b, topic)
	expectValues(t, b, topic, true, []string{"sentinel"})
}

// TestDelayedCommits: commit notifications stop for many checkpoint
// intervals. The writer keeps accepting rows, reports that checkpoints must
// wait once its pool is full, never reuses an id whose commit is not
// acknowledged, and the output is exact once commits resume.
func TestDelayedCommits(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		ack := &memoryAckTracker{}
		cfg := eosConfig(b, topic, kafkatest.UniqueName(t), ack)
		cfg.MaxTransactionSlots = 3
		run, err := startEOS(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var want []string
		var pending []connector.Committable
		ids := map[string]bool{}
		held := 0
		for cp := int64(1); cp <= 10; cp++ {
			vals := seq("d"+strconv.Itoa(int(cp))+"-", 0, 5)
			mustWrite(t, run.w, rows(vals...))
			want = append(want, vals...)
			if ok, _ := run.w.CheckpointReady(); !ok {
				held++ // the coordinator does not trigger this checkpoint
				continue
			}
			c := mustPreCommit(t, run.w, cp)
			id := mustDecode(t, c).TransactionalID
			if ids[id] {
				t.Fatalf("id %s reused while its commit was not acknowledged", id)
			}
			ids[id] = true
			pending = append(pending, c)
		}
		if held == 0 || len(pending) != 2 {
			t.Fatalf("%d checkpoints held back, %d pre-committed: want the pool (3) to fill and checkpoints to wait", held, len(pending))
		}
		// Commits resume; the next checkpoint makes their acks durable.
		for _, c := range pending {
			if err := run.cm.Commit(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		if ok, why := run.w.CheckpointReady(); !ok {
			t.Fatalf("CheckpointReady after the commits: %s", why)
		}
		last := mustPreCommit(t, run.w, 11)
		for _, c := range pending {
			ack.MarkDurable(c)
		}
		if err := run.cm.Commit(ctx, last); err != nil {
			t.Fatal(err)
		}
		expectValues(t, b, topic, true, want)
	})
}

// TestRecoverForeignPrefix: a restored committable of another prefix (the
// option was changed between runs) is refused with a message saying so,
// before anything is committed or aborted.
func TestRecoverForeignPrefix(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	c := txn.Committable{TransactionalID: "old-prefix-0-0", ProducerID: 1, Epoch: 0, TransactionVersion: 2, CheckpointID: 3}.Encode()
	_, err := startEOS(t, eosConfig(b, "unused", kafkatest.UniqueName(t), &memoryAckTracker{}), c)
	if err == nil || !strings.Contains(err.Error(), "sink.transactional-id-prefix") {
		t.Fatalf("recovery with another prefix's committable: %v", err)
	}
}

// listTxnHook counts the ListTransactions round trips of a sink's clients.
type listTxnHook struct{ n atomic.Int64 }

func (h *listTxnHook) OnBrokerE2E(_ kgo.BrokerMetadata, key int16, e2e kgo.BrokerE2E) {
	if key == kmsg.ListTransactions.Int16() && e2e.Err() == nil {
		h.n.Add(1)
	}
}

// TestFreshRecoveryListsWhileSinkStarts: on a fresh start (nothing
// pending) the committer lists the open transactions while the sink
// starts, before recovery is asked for, and recovery aborts the lingering
// transaction of the prefix from that listing without listing again.
func TestFreshRecoveryListsWhileSinkStarts(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	prefix := kafkatest.UniqueName(t)
	ctx := context.Background()
	lingering := txn.ID(prefix, 1, 4)
	cl := b.Client(t, kgo.TransactionalID(lingering), kgo.DefaultProduceTopic(topic))
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, kgo.StringRecord("lingering")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl.Close()

	s, err := newSink(eosConfig(b, topic, prefix, &memoryAckTracker{}))
	if err != nil {
		t.Fatal(err)
	}
	es := s.(*exactlyOnceSink)
	hook := &listTxnHook{}
	es.settings.common = append(es.settings.common, kgo.WithHooks(hook))
	c, err := es.Committer(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for deadline := time.Now().Add(waitLong); hook.n.Load() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no ListTransactions within %v of creating the committer, before recovery", waitLong)
		}
	}
	before := hook.n.Load()
	if err := c.Recover(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := hook.n.Load(); n != before {
		t.Errorf("recovery listed the open transactions again (%d ListTransactions, %d before it)", n, before)
	}
	d, err := b.Admin(t).DescribeTransactions(ctx, lingering)
	if err != nil {
		t.Fatal(err)
	}
	if st := d[lingering].State; st == "Ongoing" {
		t.Fatalf("recovery did not abort the lingering transaction %s of the prefix", lingering)
	}
	produceSentinel(t, b, topic)
	expectValues(t, b, topic, true, []string{"sentinel"})
}
