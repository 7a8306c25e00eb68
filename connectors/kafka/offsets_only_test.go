package kafka

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestTxnOffsetsOnlyTransaction pre-commits source offsets with no row
// written (a WHERE that drops every row): they go in a transaction of
// their own, which reaches the group only when it commits — in process, or
// by a fresh process's recovery after a crash — and never when a crash
// leaves it open. Unmoved offsets (an idle source) open no transaction,
// and the slot of an offsets-only transaction carries rows afterwards.
func TestTxnOffsetsOnlyTransaction(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic, in := b.Topic(t, 1), b.Topic(t, 2)
		group := kafkatest.UniqueName(t)
		prefix := kafkatest.UniqueName(t)
		ctx := context.Background()
		ack := &memoryAckTracker{}
		run, err := startEOS(t, eosConfig(b, topic, prefix, ack))
		if err != nil {
			t.Fatal(err)
		}
		pos := func(o0, o1 int64) []connector.GroupPositions {
			return []connector.GroupPositions{{Cluster: run.sink.clusterID(), Group: group, Generation: -1,
				Offsets: []connector.PartitionOffset{{Topic: in, Partition: 0, Offset: o0}, {Topic: in, Partition: 1, Offset: o1}}}}
		}
		preCommit := func(w interface {
			PreCommitWithPositions(context.Context, int64, []connector.GroupPositions) ([]connector.Committable, error)
		}, cp int64, p []connector.GroupPositions, want int) []connector.Committable {
			t.Helper()
			cs, err := w.PreCommitWithPositions(ctx, cp, p)
			if err != nil || len(cs) != want {
				t.Fatalf("checkpoint %d: PreCommitWithPositions = %d committables, %v; want %d", cp, len(cs), err, want)
			}
			return cs
		}
		// Checkpoint 1: offsets only, committed in process.
		cs := preCommit(run.w, 1, pos(10, 20), 1)
		expectGroup(t, b, group, in, -1, -1) // not before the commit
		if err := run.cm.Commit(ctx, cs[0]); err != nil {
			t.Fatal(err)
		}
		ack.MarkDurable(cs[0])
		expectGroup(t, b, group, in, 10, 20)
		// Checkpoint 2: nothing moved, no transaction.
		preCommit(run.w, 2, pos(10, 20), 0)
		// Checkpoint 3: rows and offsets on the reused slot.
		mustWrite(t, run.w, rows(seq("a-", 0, 5)...))
		cs = preCommit(run.w, 3, pos(15, 25), 1)
		if err := run.cm.Commit(ctx, cs[0]); err != nil {
			t.Fatal(err)
		}
		ack.MarkDurable(cs[0])
		expectGroup(t, b, group, in, 15, 25)
		// Checkpoint 4: offsets only, pre-committed, then the process dies;
		// a new process recovers (commits) it by raw EndTxn.
		cs = preCommit(run.w, 4, pos(30, 40), 1)
		run.w.Crash()
		run2, err := startEOS(t, eosConfig(b, topic, prefix, &memoryAckTracker{}), cs[0])
		if err != nil {
			t.Fatalf("recovery: %v", err)
		}
		expectGroup(t, b, group, in, 30, 40)
		// Checkpoint 5: offsets only, left open by a crash before it was
		// recorded; the next start aborts it and the group keeps 30/40.
		preCommit(run2.w, 5, pos(50, 60), 1)
		run2.w.Crash()
		if _, err := startEOS(t, eosConfig(b, topic, prefix, &memoryAckTracker{})); err != nil {
			t.Fatal(err)
		}
		expectGroup(t, b, group, in, 30, 40)
		expectValues(t, b, topic, true, seq("a-", 0, 5))
	})
}

// TestTxnOffsetsOnlyFenced: when the group fences offsets that would go
// in a transaction of their own (a member whose generation the group no
// longer has), the pre-commit fails, nothing is handed out, the
// transaction is aborted at once — no transaction stays open to hold
// read_committed readers and the group's stable offset fetches back until
// its timeout — and the group keeps its offsets.
func TestTxnOffsetsOnlyFenced(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic, in := b.Topic(t, 1), b.Topic(t, 2)
		group := kafkatest.UniqueName(t)
		prefix := kafkatest.UniqueName(t)
		ctx, cancel := context.WithTimeout(context.Background(), waitLong)
		defer cancel()
		member := b.Client(t, kgo.ConsumerGroup(group), kgo.ConsumeTopics(in))
		adm := b.Admin(t)
		for {
			pctx, pcancel := context.WithTimeout(ctx, 200*time.Millisecond)
			member.PollFetches(pctx)
			pcancel()
			if gs, err := adm.DescribeGroups(ctx, group); err == nil && gs[group].State == "Stable" && len(gs[group].Members) == 1 {
				break
			}
			if ctx.Err() != nil {
				t.Fatal("the consumer group did not become stable")
			}
		}
		run, err := startEOS(t, eosConfig(b, topic, prefix, &memoryAckTracker{}))
		if err != nil {
			t.Fatal(err)
		}
		pos := []connector.GroupPositions{{Cluster: run.sink.clusterID(), Group: group, Generation: 999, MemberID: "gone",
			Offsets: []connector.PartitionOffset{{Topic: in, Partition: 0, Offset: 10}, {Topic: in, Partition: 1, Offset: 20}}}}
		cs, err := run.w.PreCommitWithPositions(ctx, 1, pos)
		if err == nil || len(cs) != 0 || errors.Is(err, connector.ErrGroupPositions) {
			t.Fatalf("PreCommitWithPositions = %d committables, %v; want none and a fatal error", len(cs), err)
		}
		t.Logf("fenced: %v", err)
		id := txn.ID(prefix, 0, 0)
		d, err := adm.DescribeTransactions(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if st := d[id].State; st == "Ongoing" {
			t.Fatalf("transaction %s is %s after the refusal, want it ended", id, st)
		}
		member.Close()
		expectGroup(t, b, group, in, -1, -1)
	})
}
