package txn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
)

// Committer commits the exactly-once sink's transactions (phase 2),
// recovers them after a restart, and aborts transactions that earlier runs
// left open.
//
// A transaction whose slot is still owned by a writer of this process is
// committed on the slot's client (EndTransaction). Otherwise — after a
// restart, after the writer closed, or when the in-process commit's outcome
// is unconfirmed (after which the slot's client is only closed: any other
// call would re-initialise its producer id and fence the transaction) — it
// is committed by a raw EndTxn from a separate non-transactional client
// whose EndTxn version matches the transaction version recorded in the
// committable.
type Committer struct {
	sink *Sink
	// raw[0] sends EndTxn ≤ v4 (transaction versions 0 and 1), raw[1] v5.
	raw [2]Client
	adm Admin
	// early is the listing of open transactions taken while the sink
	// started (ListedEarly); nil once Recover took it or without one.
	early *OpenListing
}

// The connector capabilities Committer means to have (checked by the compiler).
var (
	_ connector.Committer            = (*Committer)(nil)
	_ connector.HealthReporter       = (*Committer)(nil)
	_ connector.TransactionTimeouter = (*Committer)(nil)
)

// NewCommitter returns the committer of the sink.
func (s *Sink) NewCommitter() (*Committer, error) {
	c := &Committer{sink: s}
	for i, tv := range []int16{1, 2} {
		cl, err := s.cfg.Dialer.Client(VersionsFor(tv))
		if err != nil {
			c.Close()
			return nil, err
		}
		c.raw[i] = cl
	}
	c.adm = s.cfg.Dialer.Admin(c.raw[1])
	return c, nil
}

// TransactionTimeout is the transaction timeout in use
// (connector.TransactionTimeouter): the broker aborts a transaction that
// long after it began, so the runtime fails over before pending work gets
// near it.
func (cm *Committer) TransactionTimeout() time.Duration { return cm.sink.cfg.Timeout }

func (cm *Committer) rawClient(tv int16) Client {
	if tv >= 2 {
		return cm.raw[1]
	}
	return cm.raw[0]
}

// ListedEarly hands the committer a listing of the cluster's open
// transactions taken while its sink started (ListOpen). Recover uses it
// when no commit is pending, in place of a listing of its own; with
// pending commits it lists after committing them, as without it. The
// committer stops the listing.
func (cm *Committer) ListedEarly(l *OpenListing) {
	if cm.early != nil {
		cm.early.Stop()
	}
	cm.early = l
}

// Commit commits c. Committing a committed transaction succeeds. An error
// wrapping connector.ErrCommitLost (a *CommitLostError) means the broker
// aborted it; other errors are worth retrying.
func (cm *Committer) Commit(ctx context.Context, b connector.Committable) error {
	c, err := DecodeCommittable(b)
	if err != nil {
		return err
	}
	if sl := cm.sink.lookup(c.TransactionalID); sl != nil {
		if done := sl.commitInProcess(ctx, c, cm.sink.cfg.Logger); done {
			return nil
		}
	}
	err = retry(ctx, 10, func() error {
		return rawEndTxn(ctx, cm.rawClient(c.TransactionVersion), c.TransactionalID, c.ProducerID, c.Epoch, true)
	})
	switch {
	case err == nil:
		if sl := cm.sink.lookup(c.TransactionalID); sl != nil {
			sl.markCommitted(c)
		}
		return nil
	case isLost(err):
		return cm.lost(ctx, c, err)
	}
	return fmt.Errorf("kafka sink: committing %s: %w", c, err)
}

// commitInProcess commits c on the slot's own client when the slot still
// holds c's transaction. It reports whether c is now known committed; when
// it is not, the caller commits by raw EndTxn.
func (sl *slot) commitInProcess(ctx context.Context, c Committable, log *slog.Logger) bool {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.lastC.ProducerID != c.ProducerID || sl.lastC.Epoch != c.Epoch || sl.lastC.TransactionalID != c.TransactionalID {
		return false
	}
	switch sl.state {
	case slotCommitted:
		return true
	case slotPrecommitted:
		if sl.client == nil {
			return false
		}
		if tp, ok := sl.endable(); !ok {
			log.Info("kafka sink: committing by raw EndTxn: the transaction's client has not yet published a partition it wrote, so its EndTransaction would end the transaction as empty",
				"transaction", c.String(), "topic", tp.Topic, "partition", tp.Partition)
			sl.client.Close()
			sl.client = nil
			return false
		}
		if err := sl.client.EndTransaction(ctx, kgo.TryCommit); err == nil {
			sl.state = slotCommitted
			return true
		}
		// Unconfirmed or refused: nothing more may be sent from this
		// client. Close sends nothing.
		sl.client.Close()
		sl.client = nil
	}
	return false
}

// endable reports whether EndTransaction on the slot's client would end
// the slot's transaction for what it is, and else names a partition it
// would miss. franz-go's EndTransaction (v1.22.3) counts a transaction as
// non-empty only through the partitions its producer state has published
// (those PartitionLeader finds); finding none it "ends" the transaction
// and returns nil — by aborting it under transaction version 2, by sending
// nothing below. The records of a topic a client produces to for the first
// time are partitioned, sent and can be acknowledged before its metadata
// goroutine publishes the topic's partitions, so a transaction whose
// records were all acknowledged can be taken for empty. Such a transaction
// is ended by raw EndTxn instead, whose answer is definitive. sl.mu must
// be held.
func (sl *slot) endable() (produce.TopicPartition, bool) {
	for _, tp := range sl.acked {
		if leader, _, _ := sl.client.PartitionLeader(tp.Topic, tp.Partition); leader < 0 {
			return tp, false
		}
	}
	return produce.TopicPartition{}, true
}

func (sl *slot) markCommitted(c Committable) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.state == slotPrecommitted && sl.lastC == c {
		sl.state = slotCommitted
	}
}

// lost describes the transactional id and returns the *CommitLostError.
func (cm *Committer) lost(ctx context.Context, c Committable, cause error) error {
	e := &CommitLostError{TransactionalID: c.TransactionalID, ProducerID: c.ProducerID, Epoch: c.Epoch,
		TransactionVersion: c.TransactionVersion, CheckpointID: c.CheckpointID, Cause: cause}
	described, err := cm.adm.DescribeTransactions(ctx, c.TransactionalID)
	if err == nil {
		d, ok := described[c.TransactionalID]
		switch {
		case !ok:
			err = errors.New("the broker did not describe it")
		case d.Err != nil:
			err = d.Err
		default:
			e.State, e.CurrentProducerID, e.CurrentEpoch, e.TimeoutMillis = d.State, d.ProducerID, d.ProducerEpoch, d.TimeoutMillis
		}
	}
	e.DescribeErr = err
	return e
}

// Abort aborts c. Aborting an aborted, fenced or unknown transaction
// succeeds; so does aborting a committed one, which cannot be undone (a
// warning says so).
func (cm *Committer) Abort(ctx context.Context, b connector.Committable) error {
	c, err := DecodeCommittable(b)
	if err != nil {
		return err
	}
	if sl := cm.sink.lookup(c.TransactionalID); sl != nil && sl.abortInProcess(ctx, c) {
		return nil
	}
	err = retry(ctx, 10, func() error {
		return rawEndTxn(ctx, cm.rawClient(c.TransactionVersion), c.TransactionalID, c.ProducerID, c.Epoch, false)
	})
	switch {
	case err == nil:
		return nil
	case isLost(err):
		cm.sink.cfg.Logger.Warn("kafka sink: aborting a transaction that is already complete (aborted, or committed: then its records stay)",
			"transaction", c.String(), "answer", err)
		return nil
	}
	return fmt.Errorf("kafka sink: aborting %s: %w", c, err)
}

func (sl *slot) abortInProcess(ctx context.Context, c Committable) bool {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.state != slotPrecommitted || sl.client == nil || sl.lastC != c {
		return false
	}
	if _, ok := sl.endable(); !ok {
		// Below transaction version 2 the client would send nothing and
		// leave the transaction open until it times out.
		sl.client.Close()
		sl.client = nil
		return false
	}
	if err := sl.client.EndTransaction(ctx, kgo.TryAbort); err == nil {
		sl.state, sl.last, sl.lastC = slotIdle, nil, Committable{}
		return true
	}
	sl.client.Close()
	sl.client = nil
	return false
}

// Recover commits the pending committables of the restored checkpoint by
// raw EndTxn — before anything initialises their ids — and then aborts the
// transactions of this sink's prefix that earlier runs left open. A
// transaction the broker aborted fails recovery with *CommitLostError
// (several are joined); nothing else is touched then. With nothing
// pending, the open transactions are those of the listing ListedEarly
// handed over, when it has one that succeeded.
func (cm *Committer) Recover(ctx context.Context, pending []connector.Committable) error {
	early := cm.early
	cm.early = nil
	if early != nil {
		defer early.Stop()
		if len(pending) > 0 {
			early = nil
		}
	}
	restored := make(map[producerEpoch]bool, len(pending))
	var lost []error
	for _, b := range pending {
		c, err := DecodeCommittable(b)
		if err != nil {
			return err
		}
		if _, _, ok := ParseID(cm.sink.cfg.Prefix, c.TransactionalID); !ok {
			return fmt.Errorf("kafka sink: restored %s does not belong to transactional id prefix %q: "+
				"was 'sink.transactional-id-prefix' changed? Restore with the prefix the checkpoint was written with",
				c, cm.sink.cfg.Prefix)
		}
		cm.sink.reserve(c.TransactionalID, b)
		restored[producerEpoch{c.ProducerID, c.Epoch}] = true
		err = retry(ctx, 0, func() error {
			return rawEndTxn(ctx, cm.rawClient(c.TransactionVersion), c.TransactionalID, c.ProducerID, c.Epoch, true)
		})
		switch {
		case err == nil:
			cm.sink.cfg.Logger.Info("kafka sink: recovered and committed a pre-committed transaction", "transaction", c.String())
		case isLost(err):
			lost = append(lost, cm.lost(ctx, c, err))
		default:
			return fmt.Errorf("kafka sink: recovering %s: %w", c, err)
		}
	}
	if len(lost) > 0 {
		return errors.Join(lost...)
	}
	return cm.abortLingering(ctx, restored, early)
}

type producerEpoch struct {
	pid   int64
	epoch int16
}

// abortLingering aborts every open transaction whose id has this sink's
// prefix and whose (producer id, epoch) is not a restored committable —
// compared by (producer id, epoch), not by id, because a pooled id may hold
// a newer transaction — by initialising its id. The open transactions are
// those of early when it is not nil and succeeded, else listed now.
func (cm *Committer) abortLingering(ctx context.Context, restored map[producerEpoch]bool, early *OpenListing) error {
	prefix := cm.sink.cfg.Prefix
	var listed kadm.ListedTransactions
	var err error
	taken := false
	if early != nil {
		listed, err = early.wait(ctx)
		taken = err == nil
	}
	if !taken {
		listed, err = cm.adm.ListTransactions(ctx, nil, []string{"Ongoing"})
	}
	if err != nil {
		return fmt.Errorf("kafka sink: listing open transactions to abort those left by earlier runs: %w", err)
	}
	var ids []string
	for id := range listed {
		if _, _, ok := ParseID(prefix, id); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	described, err := cm.adm.DescribeTransactions(ctx, ids...)
	if err != nil {
		return fmt.Errorf("kafka sink: describing open transactions of prefix %q: %w", prefix, err)
	}
	for _, d := range described.Sorted() {
		if d.Err != nil {
			return fmt.Errorf("kafka sink: describing transaction %q: %w", d.TxnID, d.Err)
		}
		if d.State != "Ongoing" {
			continue
		}
		if restored[producerEpoch{d.ProducerID, d.ProducerEpoch}] {
			continue
		}
		if err := InitProducerID(ctx, cm.raw[1], d.TxnID, cm.sink.cfg.Timeout); err != nil {
			return fmt.Errorf("kafka sink: aborting transaction %q (producer id %d, epoch %d) left open by an earlier run: %w",
				d.TxnID, d.ProducerID, d.ProducerEpoch, err)
		}
		cm.sink.cfg.Logger.Info("kafka sink: aborted a transaction left open by an earlier run",
			"transactional_id", d.TxnID, "producer_id", d.ProducerID, "epoch", d.ProducerEpoch)
	}
	return nil
}

// Close closes the committer's clients and stops an early listing Recover
// did not take.
func (cm *Committer) Close() error {
	if cm.early != nil {
		cm.early.Stop()
		cm.early = nil
	}
	for _, cl := range cm.raw {
		if cl != nil {
			cl.Close()
		}
	}
	return nil
}

// Unhealthy names the brokers that the sink's clients, the committer's and
// the writers', cannot reach (connector.HealthReporter); "" when there are
// none. It is safe to call from any goroutine.
func (cm *Committer) Unhealthy() string { return cm.sink.cfg.Unhealthy() }
