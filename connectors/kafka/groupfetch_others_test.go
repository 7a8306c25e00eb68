package kafka

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/runtime"
)

// TestGroupOffsetsOtherTasksTransaction: a group-offsets reader opens
// while an open transaction holds the group's offset of a partition it
// does not read, and starts at once at its own partition's committed
// offset; a reader of the partition the transaction holds waits for it
// and starts at the transaction's offset, never the stale one.
//
// The open transaction is what a restarted offsets-in-transaction job
// makes itself (TestChainedProjectionCrash failed on it in CI): the
// source's task 0 opens first and its exactly-once sink pre-commits the
// first checkpoint, whose transaction commits task 0's partitions'
// offsets; the checkpoint cannot complete, and the transaction stays
// open, until task 1 has opened and passed the barrier. Task 1's reader
// used to require stable offsets of the whole group, so the broker
// answered UNSTABLE_OFFSET_COMMIT for task 0's partitions (they had
// committed offsets from the earlier run) and the reader waited 60 s
// (groupFetchPatience) and failed the job. The transaction is left open
// here, as the waiting checkpoint leaves it, so the test is
// deterministic.
func TestGroupOffsetsOtherTasksTransaction(t *testing.T) {
	t.Parallel()
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			const committed, inTxn = 2, 5
			in, out := b.Topic(t, 3), b.Topic(t, 1)
			prod := b.Client(t, kgo.DefaultProduceTopic(in), kgo.RecordPartitioner(kgo.ManualPartitioner()))
			var recs []*kgo.Record
			for p := range int32(3) {
				for range 10 {
					recs = append(recs, &kgo.Record{Partition: p, Value: []byte("x")})
				}
			}
			ctx := context.Background()
			if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				t.Fatal(err)
			}
			// The earlier run's offsets, committed.
			group := kafkatest.UniqueName(t)
			var offs kadm.Offsets
			for p := range int32(3) {
				offs.Add(kadm.Offset{Topic: in, Partition: p, At: committed, LeaderEpoch: -1})
			}
			if resp, err := b.Admin(t).CommitOffsets(ctx, group, offs); err != nil || resp.Error() != nil {
				t.Fatalf("committing the group's offsets: %v %v", err, resp.Error())
			}
			// This run's first checkpoint's transaction, holding partition
			// 0's offset, open.
			txnID := kafkatest.UniqueName(t)
			tx := b.Client(t, kgo.TransactionalID(txnID), kgo.DefaultProduceTopic(out), kgo.TransactionTimeout(time.Minute))
			openOffsetsTxn(t, b, tx, txnID, group, in, 0, inTxn)

			cfg := srcConfig(b, in, "group.id", group, "isolation.level", "read_committed")
			cfg.StartupMode, cfg.BoundedMode = startGroupOffsets, unbounded
			src := mustNewSource(t, cfg)
			open := func(ctx context.Context, p int32) (int64, error) {
				r, err := src.open(ctx, []connector.SplitState{{ID: splitID(in, p)}})
				if err != nil {
					return 0, err
				}
				defer r.Close()
				return r.order[0].next, nil
			}
			// Generous: before the fix the reader waited 60 s.
			octx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			start := time.Now()
			next, err := open(octx, 1)
			if err != nil {
				t.Fatalf("the reader of partition 1 did not open while a transaction holds partition 0's offset (after %s): %v",
					time.Since(start).Round(time.Millisecond), err)
			}
			if next != committed {
				t.Fatalf("the reader of partition 1 starts at %d, want the committed %d", next, committed)
			}

			// Partition 0's reader must wait for the transaction: it is
			// committed while the reader waits, and the reader starts at
			// its offset.
			type result struct {
				next int64
				err  error
			}
			done := make(chan result, 1)
			go func() {
				next, err := open(octx, 0)
				done <- result{next, err}
			}()
			select {
			case r := <-done:
				t.Fatalf("the reader of partition 0 opened (at %d, %v) while a transaction holds its offset", r.next, r.err)
			case <-time.After(500 * time.Millisecond):
			}
			if err := tx.EndTransaction(ctx, kgo.TryCommit); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if r.err != nil || r.next != inTxn {
				t.Fatalf("the reader of partition 0 starts at %d (%v), want %d, the offset the transaction committed", r.next, r.err, inTxn)
			}
		})
	}
}

// openOffsetsTxn begins a transaction on tx, writes a record and commits
// offset at of topic's partition p to group in it, and leaves it open.
func openOffsetsTxn(t *testing.T, b kafkatest.Broker, tx *kgo.Client, txnID, group, topic string, p int32, at int64) {
	t.Helper()
	ctx := context.Background()
	if err := tx.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := tx.ProduceSync(ctx, &kgo.Record{Value: []byte("y")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	pid, epoch, err := tx.ProducerID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b.TransactionVersion < 2 {
		// Below version 2 the group joins the transaction explicitly.
		add := kmsg.NewPtrAddOffsetsToTxnRequest()
		add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = txnID, pid, epoch, group
		resp, err := add.RequestWith(ctx, tx)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err != nil {
			t.Fatalf("AddOffsetsToTxn: %v", err)
		}
	}
	txnOffsetCommit(t, tx, txnID, group, topic, pid, epoch, []int32{p}, at)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = tx.AbortBufferedRecords(ctx)
		_ = tx.EndTransaction(ctx, kgo.TryAbort) // a no-op once committed
	})
}

// TestCopyRestartSourceTaskOpensLate restarts a copy job that keeps its
// source's offsets in the sink's transactions (no checkpoint directory),
// with its source's task 1 opening late: after task 0's sink pre-committed
// a checkpoint, or after a second — the order in which
// TestChainedProjectionCrash's restarted job failed in CI when task 1
// happened to open last (task 1's reader waited for task 0's transaction
// until groupFetchPatience ended and the job failed). The runtime now
// triggers no checkpoint before every task is open, so no sink may
// pre-commit before task 1 opens; and the run must copy the rows written
// since the first run, each once. (The reader's own part of the fix is
// TestGroupOffsetsOtherTasksTransaction's.)
func TestCopyRestartSourceTaskOpensLate(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		const per = 150
		j := newCopyJob(t, b, "exactly-once", per)
		logs := lockedBuffer{mu: new(sync.Mutex), b: new(bytes.Buffer)}
		run := func(round int, faults runtime.FaultInjector, wrap func(connector.Source) connector.Source) {
			t.Helper()
			spec, err := j.spec(faults, slog.New(slog.NewTextHandler(&logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			if wrap != nil {
				src := &spec.Pipelines[0].Sources[0]
				src.Source = wrap(src.Source)
			}
			job, err := runtime.NewJob(spec)
			if err != nil {
				t.Fatal(err)
			}
			if err := job.Run(context.Background()); err != nil {
				t.Fatalf("round %d: %v\nthe job's log:\n%s", round, err, logs.b.String())
			}
		}
		// The first run copies everything and commits the group's
		// offsets of every partition.
		run(0, nil, nil)
		// More input, then the restart with task 1 opening late.
		cl := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(j.in))
		var recs []*kgo.Record
		for s := int64(per); s < 2*per; s++ {
			for p := range int64(copyPartitions) {
				recs = append(recs, &kgo.Record{Partition: int32(p), Key: fmt.Appendf(nil, `{"p":%d}`, p),
					Value: fmt.Appendf(nil, `{"p":%d,"seq":%d}`, p, s)})
			}
		}
		if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		j.per = 2 * per
		pre := &firstPreCommit{done: make(chan struct{})}
		late := lateTask1{after: pre.done, lateBy: time.Second, early: new(atomic.Bool)}
		run(1, pre, func(s connector.Source) connector.Source { late.Source = s; return late })
		if late.early.Load() {
			t.Fatal("a sink pre-committed a checkpoint before source task 1 had opened")
		}
		if o := j.outcome(t); o != (copyOutcome{}) {
			t.Fatalf("after the restart: %d lost, %d duplicated, %d out of order; want 0", o.lost, o.duplicated, o.disordered)
		}
		j.groupAtEnd(t)
	})
}

// firstPreCommit closes done when a sink task's first pre-commit
// returned.
type firstPreCommit struct {
	once sync.Once
	done chan struct{}
}

func (f *firstPreCommit) Hit(_ context.Context, p runtime.FaultPoint, _ runtime.FaultInfo) error {
	if p == runtime.AfterPreCommit {
		f.once.Do(func() { close(f.done) })
	}
	return nil
}

// lateTask1 opens the readers of task 1 only once after is closed or
// lateBy has passed, whichever comes first; early records that after
// came first.
type lateTask1 struct {
	connector.Source
	after  <-chan struct{}
	lateBy time.Duration
	early  *atomic.Bool
}

func (s lateTask1) Open(ctx context.Context, task connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	if task.Index == 1 {
		select {
		case <-s.after:
			s.early.Store(true)
		case <-time.After(s.lateBy):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.Source.Open(ctx, task, splits)
}
