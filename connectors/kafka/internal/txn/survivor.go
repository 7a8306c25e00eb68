package txn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

// offsetsTopic is the topic of the group coordinators' logs: a
// transaction that committed group offsets has one of its partitions.
const offsetsTopic = "__consumer_offsets"

// Survivors describes the instances of a scaled-out job for
// ResolveAbandoned: each instance has its own transactional ids,
// <Base>-<instance>-<task>-<slot> (the sink's prefix is <Base>-<Self>).
type Survivors struct {
	// Base is the prefix shared by the job's instances.
	Base string
	// Self is this instance.
	Self string
	// Live returns the instances that are members of the job's consumer
	// groups now (their group.instance.id).
	Live func(ctx context.Context) (map[string]bool, error)
	// Writes reports whether the sink writes topic.
	Writes func(topic string) bool
	// Others are the bases of the job's other sinks: an id of one of them
	// may also read as one of Base (bases "orders" and "orders-eu").
	Others []string
}

// ResolveAbandoned ends the transactions that instances of a scaled-out
// job left open when they went away: ids of s.Base of an instance other
// than s.Self that is not a member of the job's groups any more, so that
// read_committed readers of the sink's topics and the group's stable
// offset fetches do not wait for the broker's transaction timeout. A
// transaction that holds group offsets (a partition of __consumer_offsets:
// the writer commits them after its records are flushed) was
// pre-committed: it is committed, records and offsets together, as its
// instance's checkpoint would have — when the group coordinator holds its
// offsets (offsetsStored). Any other is aborted: its input is read again
// from the group's offsets.
//
// It is safe against live instances. It lists and describes the
// transactions before it asks who is alive, and ends each one by a raw
// EndTxn with the producer id and epoch it described: an instance joins a
// group before it writes, and a restarted instance bumps its epoch before
// its first transaction, so a newer transaction of the same id is fenced
// off (the broker refuses the EndTxn; that is not an error here). A paused
// instance that the group dropped finds its transaction ended when it
// resumes: committed (its own commit then succeeds as a retry) or aborted
// (its writes and offset commits fail and its run starts again). Survivors
// racing over one transaction do the same to it; the later EndTxn is a
// retry or refused. A transaction that writes topics other than the
// sink's is left alone (another job's ids that happen to extend Base).
//
// It returns how many transactions it ended.
func (s *Sink) ResolveAbandoned(ctx context.Context, sv Survivors) (int, error) {
	cl, err := s.cfg.Dialer.Client(nil)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	adm := s.cfg.Dialer.Admin(cl)
	listed, err := adm.ListTransactions(ctx, nil, []string{"Ongoing"})
	if err != nil {
		return 0, fmt.Errorf("listing open transactions: %w", err)
	}
	owner := map[string]string{}
	var ids []string
	for id := range listed {
		if inst, ok := instanceOf(sv.Base, id); ok && inst != sv.Self && !slices.ContainsFunc(sv.Others, func(b string) bool {
			_, theirs := instanceOf(b, id)
			return theirs && len(b) > len(sv.Base)
		}) {
			owner[id] = inst
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	described, err := adm.DescribeTransactions(ctx, ids...)
	if err != nil {
		return 0, fmt.Errorf("describing open transactions: %w", err)
	}
	// Who is alive is asked after the transactions were described: an
	// instance that joins later writes only later transactions.
	live, err := sv.Live(ctx)
	if err != nil {
		return 0, fmt.Errorf("describing the job's consumer groups: %w", err)
	}
	tv, err := transactionVersion(ctx, cl)
	if err != nil {
		return 0, err
	}
	raw, err := s.cfg.Dialer.Client(VersionsFor(tv))
	if err != nil {
		return 0, err
	}
	defer raw.Close()
	ended := 0
	var errs []error
	for _, d := range described.Sorted() {
		inst := owner[d.TxnID]
		if d.Err != nil || d.State != "Ongoing" || live[inst] {
			continue
		}
		commit, foreign := false, ""
		for t := range d.Topics {
			switch {
			case t == offsetsTopic:
				commit = true
			case !sv.Writes(t):
				foreign = t
			}
		}
		if foreign != "" {
			s.cfg.Logger.Warn("kafka sink: an open transaction whose id looks like one of another instance of this job writes a topic this sink does not; leaving it to its owner or the broker's timeout",
				"transactional_id", d.TxnID, "topic", foreign)
			continue
		}
		if commit {
			stored, err := offsetsStored(ctx, adm, d)
			if err != nil {
				errs = append(errs, fmt.Errorf("transaction %q (producer id %d) of instance %q: %w", d.TxnID, d.ProducerID, inst, err))
				continue
			}
			if !stored {
				s.cfg.Logger.Info("kafka sink: an open transaction left by an instance that is no longer a member of the job's consumer groups added group offsets but the group coordinator holds none of them; aborting it",
					"instance", inst, "transactional_id", d.TxnID, "producer_id", d.ProducerID)
				commit = false
			}
		}
		err := retry(ctx, 10, func() error { return rawEndTxn(ctx, raw, d.TxnID, d.ProducerID, d.ProducerEpoch, commit) })
		what := "aborted"
		if commit {
			what = "committed (it was pre-committed with its group offsets)"
		}
		switch {
		case err == nil:
			ended++
			s.cfg.Logger.Info("kafka sink: ended a transaction left open by an instance that is no longer a member of the job's consumer groups: "+what,
				"instance", inst, "transactional_id", d.TxnID, "producer_id", d.ProducerID, "epoch", d.ProducerEpoch)
		case isLost(err):
			// Ended meanwhile by its instance, the broker or another
			// survivor, or a newer transaction holds the id.
		default:
			errs = append(errs, fmt.Errorf("ending transaction %q (producer id %d, epoch %d) of instance %q: %w", d.TxnID, d.ProducerID, d.ProducerEpoch, inst, err))
		}
	}
	return ended, errors.Join(errs...)
}

// offsetsStored reports whether every __consumer_offsets partition of
// d, an open transaction, holds its offsets: the partition's log has an
// open transaction of d's producer id (DescribeProducers: a current
// transaction start offset). Below transaction version 2 the writer adds
// the group with AddOffsetsToTxn before it sends TxnOffsetCommit, so the
// transaction lists the partition before the coordinator has written any
// offset to it — an instance killed between the two, or whose
// TxnOffsetCommit the group refused (a rebalance), left a transaction
// that committed would publish its records without the offsets of the
// input they came from, which the next owner then reads again.
func offsetsStored(ctx context.Context, adm Admin, d kadm.DescribedTransaction) (bool, error) {
	parts := d.Topics[offsetsTopic]
	if len(parts) == 0 {
		return false, nil
	}
	described, err := adm.DescribeProducers(ctx, kadm.TopicsSet{offsetsTopic: parts})
	if err != nil {
		return false, fmt.Errorf("describing the producers of %s: %w", offsetsTopic, err)
	}
	for p := range parts {
		dp, ok := described[offsetsTopic].Partitions[p]
		if !ok {
			return false, fmt.Errorf("describing the producers of %s partition %d: no answer", offsetsTopic, p)
		}
		if dp.Err != nil {
			return false, fmt.Errorf("describing the producers of %s partition %d: %w", offsetsTopic, p, dp.Err)
		}
		if pr, ok := dp.ActiveProducers[d.ProducerID]; !ok || pr.CurrentTxnStartOffset < 0 {
			return false, nil
		}
	}
	return true, nil
}

// instanceOf returns the instance of id when id is <base>-<instance>-<task>-<slot>.
func instanceOf(base, id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, base+"-")
	if !ok {
		return "", false
	}
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 {
		return "", false
	}
	j := strings.LastIndexByte(rest[:i], '-')
	if j <= 0 {
		return "", false
	}
	inst := rest[:j]
	if _, _, ok := ParseID(base+"-"+inst, id); !ok {
		return "", false
	}
	return inst, true
}
