package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// stableAndEnd returns the last stable offset (what read_committed readers
// may read up to) and the high watermark of partition 0 of topic.
func stableAndEnd(t *testing.T, adm *kadm.Client, topic string) (lso, hwm int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stable, err := adm.ListCommittedOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("ListCommittedOffsets: %v", err)
	}
	end, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("ListEndOffsets: %v", err)
	}
	s, _ := stable.Lookup(topic, 0)
	e, _ := end.Lookup(topic, 0)
	if s.Err != nil || e.Err != nil {
		t.Fatalf("offsets of %s: %v, %v", topic, s.Err, e.Err)
	}
	return s.Offset, e.Offset
}

// TestDeadLettersCommitWithOutput: dead letters written through the
// exactly-once writer (WriteDeadLetters) are in the transaction of the
// rows written beside them. Pre-committed, neither is visible to
// read_committed readers (the last stable offset of both topics stays
// before them while their records are on the broker); committed, both
// are; aborted (the writer closes with its transaction open), neither
// ever is. A dead-letter sink that writes to other bootstrap servers is
// refused, naming the topic.
func TestDeadLettersCommitWithOutput(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		ctx := context.Background()
		out, dlq := b.Topic(t, 1), b.Topic(t, 1)
		adm := b.Admin(t)
		run, err := startEOS(t, eosConfig(b, out, kafkatest.UniqueName(t), &memoryAckTracker{}))
		if err != nil {
			t.Fatal(err)
		}
		dl, err := newSink(sinkConfig{Topic: dlq, Properties: map[string]string{"bootstrap.servers": b.Addr}, Encoder: kvEncoder})
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, run.w, rows(seq("out-", 0, 5)...))
		if err := run.w.WriteDeadLetters(ctx, dl, rows(seq("dead-", 0, 3)...)); err != nil {
			t.Fatalf("WriteDeadLetters: %v", err)
		}
		mustWrite(t, run.w, rows(seq("out-", 5, 8)...))
		c := mustPreCommit(t, run.w, 1)
		for topic, n := range map[string]int64{out: 8, dlq: 3} {
			if lso, hwm := stableAndEnd(t, adm, topic); lso != 0 || hwm < n {
				t.Fatalf("pre-committed, topic %s: last stable offset %d and high watermark %d; want 0 and at least %d (records on the broker, none visible)", topic, lso, hwm, n)
			}
		}
		if err := run.cm.Commit(ctx, c); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		expectValues(t, b, out, true, seq("out-", 0, 8))
		expectValues(t, b, dlq, true, seq("dead-", 0, 3))

		// A second transaction, aborted by Close: neither its rows nor its
		// dead letters ever become visible.
		mustWrite(t, run.w, rows("lost-out"))
		if err := run.w.WriteDeadLetters(ctx, dl, rows("lost-dead")); err != nil {
			t.Fatalf("WriteDeadLetters: %v", err)
		}
		if err := run.w.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		produceSentinel(t, b, out)
		produceSentinel(t, b, dlq)
		expectValues(t, b, out, true, append(seq("out-", 0, 8), "sentinel"))
		expectValues(t, b, dlq, true, append(seq("dead-", 0, 3), "sentinel"))

		// Dead letters bound for other bootstrap servers are refused.
		other, err := newSink(sinkConfig{Topic: dlq, Properties: map[string]string{"bootstrap.servers": otherSpelling(b.Addr)}, Encoder: kvEncoder})
		if err != nil {
			t.Fatal(err)
		}
		run2, err := startEOS(t, eosConfig(b, out, kafkatest.UniqueName(t), &memoryAckTracker{}))
		if err != nil {
			t.Fatal(err)
		}
		err = run2.w.WriteDeadLetters(ctx, other, rows("x"))
		if err == nil || !strings.Contains(err.Error(), "topic '"+dlq+"'") || !strings.Contains(err.Error(), "cannot be written in its transactions") {
			t.Fatalf("WriteDeadLetters to other servers: %v; want a refusal naming the topic", err)
		}
	})
}
