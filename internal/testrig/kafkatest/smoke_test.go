package kafkatest

// Smoke tests of the real broker. Besides checking the test harness, they pin
// down the broker behaviour that streamsql's exactly-once design relies on
// (docs/exactly-once.md): what each isolation level shows of an
// open, committed or aborted transaction, and how a raw EndTxn sent by a
// fresh, non-transactional client answers in each case that recovery meets.

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

const waitLong = 60 * time.Second

func TestProduceConsume(t *testing.T) {
	t.Parallel()
	b := Require(t)
	topic := b.Topic(t, 1)
	cl := b.Client(t, kgo.DefaultProduceTopic(topic))
	ctx := context.Background()
	if err := cl.ProduceSync(ctx, kgo.StringRecord("hello")).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	got := b.Consume(t, topic, false, waitLong, func(r []*kgo.Record) bool { return len(r) >= 1 })
	if !slices.Equal(Values(got), []string{"hello"}) {
		t.Fatalf("consumed %q, want [hello]", Values(got))
	}
}

// openTxn produces values in a new transaction of a client with the given
// transactional id, flushes, and returns the client (still in the
// transaction) and the producer id and epoch taken from the records.
func openTxn(t *testing.T, b Broker, topic, txnID string, timeout time.Duration, values ...string) (*kgo.Client, int64, int16) {
	t.Helper()
	cl := b.Client(t, kgo.TransactionalID(txnID), kgo.TransactionTimeout(timeout), kgo.DefaultProduceTopic(topic))
	ctx := context.Background()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatalf("BeginTransaction: %v", err)
	}
	var recs []*kgo.Record
	for _, v := range values {
		r := kgo.StringRecord(v)
		recs = append(recs, r)
		cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				t.Errorf("produce %s: %v", v, err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	if t.Failed() {
		t.FailNow()
	}
	return cl, recs[0].ProducerID, recs[0].ProducerEpoch
}

// lso returns the last stable offset of partition 0 of topic.
func lso(t *testing.T, b Broker, topic string) int64 {
	t.Helper()
	offs, err := b.Admin(t).ListCommittedOffsets(context.Background(), topic)
	if err != nil {
		t.Fatalf("ListCommittedOffsets: %v", err)
	}
	o, ok := offs.Lookup(topic, 0)
	if !ok || o.Err != nil {
		t.Fatalf("ListCommittedOffsets %s/0: %v", topic, o.Err)
	}
	return o.Offset
}

// TestIsolationLevels is the seed's second question: what readers see of a
// transaction that is flushed but not committed, then committed; and of one
// that is aborted.
func TestIsolationLevels(t *testing.T) {
	t.Parallel()
	b := Require(t)
	topic := b.Topic(t, 1)
	ctx := context.Background()
	want := []string{"a", "b", "c"}

	cl, _, _ := openTxn(t, b, topic, UniqueName(t)+"-commit", time.Minute, want...)
	uncommitted := b.Consume(t, topic, false, waitLong, func(r []*kgo.Record) bool { return len(r) >= 3 })
	if !slices.Equal(Values(uncommitted), want) {
		t.Fatalf("read_uncommitted saw %q of the open transaction, want %q", Values(uncommitted), want)
	}
	if got := lso(t, b, topic); got != 0 {
		t.Fatalf("last stable offset is %d while the transaction is open, want 0", got)
	}
	// The LSO says read_committed cannot see anything; check that a
	// consumer indeed gets nothing while it polls for a while.
	if got := b.Consume(t, topic, true, 2*time.Second, func(r []*kgo.Record) bool { return len(r) > 0 }); len(got) != 0 {
		t.Fatalf("read_committed saw %q of an open transaction", Values(got))
	}
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatalf("commit: %v", err)
	}
	committed := b.Consume(t, topic, true, waitLong, func(r []*kgo.Record) bool { return len(r) >= 3 })
	if !slices.Equal(Values(committed), want) {
		t.Fatalf("read_committed saw %q after commit, want %q", Values(committed), want)
	}

	// A second transaction that aborts, then a committed sentinel record.
	cl2, _, _ := openTxn(t, b, topic, UniqueName(t)+"-abort", time.Minute, "x", "y", "z")
	if err := cl2.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatalf("abort: %v", err)
	}
	plain := b.Client(t, kgo.DefaultProduceTopic(topic))
	if err := plain.ProduceSync(ctx, kgo.StringRecord("sentinel")).FirstErr(); err != nil {
		t.Fatalf("produce sentinel: %v", err)
	}
	untilSentinel := func(r []*kgo.Record) bool { return len(r) > 0 && string(r[len(r)-1].Value) == "sentinel" }
	if got := Values(b.Consume(t, topic, true, waitLong, untilSentinel)); !slices.Equal(got, []string{"a", "b", "c", "sentinel"}) {
		t.Fatalf("read_committed saw %q, want the committed records and the sentinel only", got)
	}
	if got := Values(b.Consume(t, topic, false, waitLong, untilSentinel)); !slices.Equal(got, []string{"a", "b", "c", "x", "y", "z", "sentinel"}) {
		t.Fatalf("read_uncommitted saw %q, want the aborted records too", got)
	}
}

// rawEndTxn sends EndTxn for (txnID, pid, epoch) from a fresh client that has
// no transactional id, so that nothing initialises the id first. Under
// transaction version 2 it sends EndTxn v5, below that at most v4, as
// docs/exactly-once.md prescribes. It returns the broker's error code as an error.
func rawEndTxn(t *testing.T, b Broker, txnID string, pid int64, epoch int16, commit bool) error {
	t.Helper()
	opts := []kgo.Opt{}
	if b.TransactionVersion < 2 {
		v := kversion.Stable()
		v.SetMaxKeyVersion(kmsg.EndTxn.Int16(), 4)
		opts = append(opts, kgo.MaxVersions(v))
	}
	cl := b.Client(t, opts...)
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID = txnID
	req.ProducerID = pid
	req.ProducerEpoch = epoch
	req.Commit = commit
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatalf("EndTxn request: %v", err)
		}
		err = kerr.ErrorForCode(resp.ErrorCode)
		// The coordinator may still be completing an earlier transition.
		if errors.Is(err, kerr.ConcurrentTransactions) && ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		return err
	}
}

func TestRawEndTxnRecovery(t *testing.T) {
	t.Parallel()
	for _, b := range RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			wantTV := int16(2)
			if b.Name == "tv1" {
				wantTV = 1
			}
			if b.TransactionVersion != wantTV {
				t.Fatalf("broker %s reports transaction.version %d, want %d", b.Addr, b.TransactionVersion, wantTV)
			}
			t.Run("commits an abandoned transaction, twice", func(t *testing.T) { testRawCommit(t, b) })
			t.Run("fails after the id was re-initialised", func(t *testing.T) { testRawCommitAfterReinit(t, b) })
			t.Run("fails after the transaction timed out", func(t *testing.T) { testRawCommitAfterTimeout(t, b) })
		})
	}
}

func testRawCommit(t *testing.T, b Broker) {
	t.Parallel()
	topic := b.Topic(t, 1)
	txnID := UniqueName(t)
	cl, pid, epoch := openTxn(t, b, topic, txnID, time.Minute, "1", "2", "3")
	cl.Close() // the writer "crashes": Close sends nothing to the coordinator

	if err := rawEndTxn(t, b, txnID, pid, epoch, true); err != nil {
		t.Fatalf("raw EndTxn commit of an open transaction: %v", err)
	}
	got := b.Consume(t, topic, true, waitLong, func(r []*kgo.Record) bool { return len(r) >= 3 })
	if !slices.Equal(Values(got), []string{"1", "2", "3"}) {
		t.Fatalf("read_committed saw %q after the raw commit", Values(got))
	}
	// Recovery may commit what an earlier attempt already committed.
	if err := rawEndTxn(t, b, txnID, pid, epoch, true); err != nil {
		t.Fatalf("second raw EndTxn commit of a committed transaction: %v, want success", err)
	}
}

// wantLost checks the answer recovery must read as "the broker aborted it":
// a failure with the given error, as observed on Apache Kafka 4.1.
func wantLost(t *testing.T, err, want error, b Broker, when string) {
	t.Helper()
	if err == nil {
		t.Fatalf("raw EndTxn commit %s succeeded, want %v", when, want)
	}
	if !errors.Is(err, want) {
		t.Fatalf("raw EndTxn commit %s on transaction version %d: %v, want %v", when, b.TransactionVersion, err, want)
	}
	t.Logf("transaction version %d, commit %s: %v", b.TransactionVersion, when, err)
}

func testRawCommitAfterReinit(t *testing.T, b Broker) {
	t.Parallel()
	topic := b.Topic(t, 1)
	txnID := UniqueName(t)
	cl, pid, epoch := openTxn(t, b, topic, txnID, time.Minute, "1", "2", "3")
	cl.Close()

	// Another writer initialises the same transactional id: the coordinator
	// bumps the epoch and aborts the open transaction.
	init := kmsg.NewPtrInitProducerIDRequest()
	init.TransactionalID = &txnID
	init.TransactionTimeoutMillis = 60000
	init.ProducerID = -1
	init.ProducerEpoch = -1
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		resp, err := init.RequestWith(ctx, b.Client(t))
		if err != nil {
			t.Fatalf("InitProducerId: %v", err)
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			if errors.Is(err, kerr.ConcurrentTransactions) && ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			t.Fatalf("InitProducerId: %v", err)
		}
		break
	}
	// Both transaction versions: the request's epoch is older than the
	// one InitProducerId gave the id.
	wantLost(t, rawEndTxn(t, b, txnID, pid, epoch, true), kerr.ProducerFenced, b, "after InitProducerId")
	plain := b.Client(t, kgo.DefaultProduceTopic(topic))
	if err := plain.ProduceSync(context.Background(), kgo.StringRecord("sentinel")).FirstErr(); err != nil {
		t.Fatalf("produce sentinel: %v", err)
	}
	got := b.Consume(t, topic, true, waitLong, func(r []*kgo.Record) bool { return len(r) > 0 })
	if !slices.Equal(Values(got), []string{"sentinel"}) {
		t.Fatalf("read_committed saw %q, want only the sentinel: the fenced transaction must be aborted", Values(got))
	}
}

func testRawCommitAfterTimeout(t *testing.T, b Broker) {
	t.Parallel()
	topic := b.Topic(t, 1)
	txnID := UniqueName(t)
	cl, pid, epoch := openTxn(t, b, topic, txnID, 5*time.Second, "1", "2", "3")
	cl.Close()

	// The coordinator aborts transactions older than their timeout on its
	// periodic scan (transaction.abort.timed.out.transaction.cleanup.interval.ms,
	// set to 1s on the test brokers). Wait until it has.
	adm := b.Admin(t)
	deadline := time.Now().Add(waitLong)
	for {
		described, err := adm.DescribeTransactions(context.Background(), txnID)
		if err != nil {
			t.Fatalf("DescribeTransactions: %v", err)
		}
		d, ok := described[txnID]
		if !ok {
			t.Fatalf("DescribeTransactions did not describe %s", txnID)
		}
		if d.State != "Ongoing" && d.State != "PrepareAbort" {
			t.Logf("transaction %s is %s after its timeout", txnID, d.State)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction %s still %s %s after its 5s timeout", txnID, d.State, waitLong)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Version 1: the timeout fenced the epoch. Version 2: the request's
	// epoch is the one just below the abort's, which the coordinator reads
	// as a retry — of a commit against a completed abort.
	want := kerr.ProducerFenced
	if b.TransactionVersion >= 2 {
		want = kerr.InvalidTxnState
	}
	wantLost(t, rawEndTxn(t, b, txnID, pid, epoch, true), want, b, "after the transaction timed out")
	if got := lso(t, b, topic); got == 0 {
		t.Fatalf("last stable offset still 0 after the timed-out transaction was aborted")
	}
}
