package txn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/streamsql/streamsql/connector"
)

// transactionVersion asks the cluster (through cl) for its finalized
// transaction.version feature level; 0 when it is not finalized (Kafka 3.x).
func transactionVersion(ctx context.Context, cl Client) (int16, error) {
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		return 0, fmt.Errorf("reading the cluster's transaction.version (ApiVersions): %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return 0, fmt.Errorf("reading the cluster's transaction.version (ApiVersions): %w", err)
	}
	for _, f := range resp.FinalizedFeatures {
		if f.Name == "transaction.version" {
			return f.MaxVersionLevel, nil
		}
	}
	return 0, nil
}

// VersionsFor returns the request versions a client pinned to
// transaction version tv may use (with kgo.MaxVersions): below 2, EndTxn and
// TxnOffsetCommit are capped at v4 so that neither a transactional client
// (which would switch to KIP-890 part 2 when it notices the cluster
// supports it) nor a raw request uses v5, which the coordinators read as
// transaction version 2. At 2, TxnOffsetCommit is capped at v5: v6 names
// topics by id only (KIP-1319), and the sink's raw TxnOffsetCommit names
// them.
func VersionsFor(tv int16) *kversion.Versions {
	v := kversion.Stable()
	if tv < 2 {
		v.SetMaxKeyVersion(kmsg.EndTxn.Int16(), 4)
		v.SetMaxKeyVersion(kmsg.TxnOffsetCommit.Int16(), 4)
	} else if max, ok := v.LookupMaxKeyVersion(kmsg.TxnOffsetCommit.Int16()); ok && max > 5 {
		v.SetMaxKeyVersion(kmsg.TxnOffsetCommit.Int16(), 5)
	}
	return v
}

// Committable is what the exactly-once sink stores in a checkpoint for one
// pre-committed transaction. Its JSON form is the connector.Committable:
//
//	{"transactionalId":"orders-0-3","producerId":1234,"epoch":5,"transactionVersion":2,"checkpointId":17}
//
// transactionVersion says which EndTxn version commits it (≤4 below 2, 5 at
// 2); checkpointId is informational (error messages).
type Committable struct {
	TransactionalID    string `json:"transactionalId"`
	ProducerID         int64  `json:"producerId"`
	Epoch              int16  `json:"epoch"`
	TransactionVersion int16  `json:"transactionVersion"`
	CheckpointID       int64  `json:"checkpointId"`
}

// Encode returns c's JSON form.
func (c Committable) Encode() connector.Committable {
	b, _ := json.Marshal(c) // cannot fail: plain fields
	return b
}

// DecodeCommittable parses a committable of the exactly-once sink.
func DecodeCommittable(b connector.Committable) (Committable, error) {
	var c Committable
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("kafka sink: malformed committable %q: %w", string(b), err)
	}
	if c.TransactionalID == "" || c.ProducerID < 0 || c.Epoch < 0 {
		return c, fmt.Errorf("kafka sink: malformed committable %q: missing transactional id, producer id or epoch", string(b))
	}
	return c, nil
}

func (c Committable) String() string {
	return fmt.Sprintf("transactional id %q (producer id %d, epoch %d, transaction version %d, checkpoint %d)",
		c.TransactionalID, c.ProducerID, c.Epoch, c.TransactionVersion, c.CheckpointID)
}

// CommitLostError is returned (wrapping connector.ErrCommitLost) when the
// broker definitely aborted a pre-committed transaction, usually because
// its transaction timeout expired or its id was initialised again. Data of
// that checkpoint interval was lost; retrying cannot help.
type CommitLostError struct {
	// TransactionalID, ProducerID, Epoch and TransactionVersion identify
	// the lost transaction; CheckpointID is the checkpoint that
	// pre-committed it.
	TransactionalID    string
	ProducerID         int64
	Epoch              int16
	TransactionVersion int16
	CheckpointID       int64
	// Cause is the broker's answer to EndTxn (for example
	// kerr.ProducerFenced or kerr.InvalidTxnState).
	Cause error
	// State, CurrentProducerID, CurrentEpoch and TimeoutMillis describe the
	// transactional id now (kadm DescribeTransactions); State is empty when
	// it could not be described, and DescribeErr says why.
	State             string
	CurrentProducerID int64
	CurrentEpoch      int16
	TimeoutMillis     int32
	DescribeErr       error
}

func (e *CommitLostError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kafka sink: the transaction of checkpoint %d was aborted by the broker and cannot be committed: "+
		"transactional id %q, producer id %d, epoch %d (transaction version %d): EndTxn answered %v; ",
		e.CheckpointID, e.TransactionalID, e.ProducerID, e.Epoch, e.TransactionVersion, e.Cause)
	if e.State != "" {
		fmt.Fprintf(&b, "the id is now in state %s with producer id %d, epoch %d, transaction timeout %d ms; ",
			e.State, e.CurrentProducerID, e.CurrentEpoch, e.TimeoutMillis)
	} else if e.DescribeErr != nil {
		fmt.Fprintf(&b, "describing the id failed: %v; ", e.DescribeErr)
	}
	b.WriteString("the records written in that checkpoint interval are lost (usually the transaction timeout " +
		"expired before the commit: raise 'properties.transaction.timeout.ms' and the broker's transaction.max.timeout.ms). " +
		"Restarting from the same checkpoint would fail again. Either resume from the previous retained checkpoint " +
		"(that interval is replayed: nothing is lost, sinks whose commit succeeded may get duplicates), " +
		"or acknowledge the loss explicitly and continue from the latest checkpoint")
	return b.String()
}

// Unwrap returns connector.ErrCommitLost and the broker's error.
func (e *CommitLostError) Unwrap() []error { return []error{connector.ErrCommitLost, e.Cause} }

// lostErrors are EndTxn answers that mean the transaction will never commit.
var lostErrors = []error{kerr.InvalidTxnState, kerr.ProducerFenced, kerr.InvalidProducerIDMapping, kerr.InvalidProducerEpoch, kerr.TransactionalIDNotFound}

func isLost(err error) bool {
	for _, l := range lostErrors {
		if errors.Is(err, l) {
			return true
		}
	}
	return false
}

// isRetryable says whether a transaction coordinator answer is worth
// retrying: the coordinator is busy, moving or loading.
func isRetryable(err error) bool {
	return errors.Is(err, kerr.ConcurrentTransactions) || errors.Is(err, kerr.CoordinatorLoadInProgress) ||
		errors.Is(err, kerr.CoordinatorNotAvailable) || errors.Is(err, kerr.NotCoordinator) ||
		errors.Is(err, kerr.RequestTimedOut)
}

// rawEndTxn sends one EndTxn for (id, pid, epoch) from cl, a client without
// a transactional id (so that nothing initialises the id first). It returns
// the broker's answer as an error (nil: committed or aborted, also when it
// already was), or the transport error.
func rawEndTxn(ctx context.Context, cl Client, id string, pid int64, epoch int16, commit bool) error {
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID = id
	req.ProducerID = pid
	req.ProducerEpoch = epoch
	req.Commit = commit
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	return kerr.ErrorForCode(resp.ErrorCode)
}

// retry calls fn until it returns nil or an error for which retryable is
// false, backing off between attempts, for at most attempts calls (0: until
// ctx is done).
func retry(ctx context.Context, attempts int, fn func() error) error {
	backoff := 50 * time.Millisecond
	for i := 1; ; i++ {
		err := fn()
		if err == nil || !isRetryable(err) || (attempts > 0 && i >= attempts) {
			return err
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (last answer: %v)", ctx.Err(), err)
		case <-t.C:
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// InitProducerID initialises transactional id with a raw InitProducerId:
// the coordinator bumps its epoch and aborts any transaction open on it.
func InitProducerID(ctx context.Context, cl Client, id string, timeout time.Duration) error {
	return retry(ctx, 0, func() error {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.TransactionalID = &id
		req.TransactionTimeoutMillis = int32(timeout.Milliseconds())
		req.ProducerID = -1
		req.ProducerEpoch = -1
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return err
		}
		return kerr.ErrorForCode(resp.ErrorCode)
	})
}

// commitOffsetsInTxn commits p's offsets inside the open transaction of
// (id, pid, epoch) on cl, its transactional client (after Flush: nothing
// else is in flight). Below transaction version 2 the group is first added
// to the transaction with AddOffsetsToTxn; at 2, TxnOffsetCommit v5 adds it
// (KIP-890). Offsets so committed are part of the transaction: EndTxn
// commits or aborts them with the records, whichever client sends it.
func commitOffsetsInTxn(ctx context.Context, cl Client, id string, tv int16, pid int64, epoch int16, p connector.GroupPositions) error {
	if tv < 2 {
		err := retry(ctx, 10, func() error {
			req := kmsg.NewPtrAddOffsetsToTxnRequest()
			req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Group = id, pid, epoch, p.Group
			resp, err := req.RequestWith(ctx, cl)
			if err != nil {
				return err
			}
			return kerr.ErrorForCode(resp.ErrorCode)
		})
		if err != nil {
			return fmt.Errorf("AddOffsetsToTxn: %w", err)
		}
	}
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = id, p.Group, pid, epoch
	req.Generation, req.MemberID = p.Generation, p.MemberID
	if p.InstanceID != "" {
		req.InstanceID = &p.InstanceID
	}
	topics := map[string]int{}
	for _, o := range p.Offsets {
		i, ok := topics[o.Topic]
		if !ok {
			i = len(req.Topics)
			topics[o.Topic] = i
			t := kmsg.NewTxnOffsetCommitRequestTopic()
			t.Topic = o.Topic
			req.Topics = append(req.Topics, t)
		}
		rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset, rp.LeaderEpoch = o.Partition, o.Offset, -1
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
	}
	err := retry(ctx, 10, func() error {
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return err
		}
		for _, t := range resp.Topics {
			for _, rp := range t.Partitions {
				if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
					return fmt.Errorf("topic %s partition %d: %w", t.Topic, rp.Partition, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("TxnOffsetCommit: %w", err)
	}
	return nil
}

// groupRefusals are TxnOffsetCommit answers about the group, not the
// transaction: the transaction can still commit, without the offsets.
var groupRefusals = []error{kerr.UnknownMemberID, kerr.IllegalGeneration, kerr.FencedInstanceID, kerr.RebalanceInProgress,
	kerr.GroupAuthorizationFailed, kerr.InvalidGroupID, kerr.GroupIDNotFound, kerr.TopicAuthorizationFailed,
	kerr.UnknownTopicOrPartition, kerr.OffsetMetadataTooLarge, kerr.InvalidCommitOffsetSize}

func isGroupRefusal(err error) bool {
	for _, g := range groupRefusals {
		if errors.Is(err, g) {
			return true
		}
	}
	return false
}

// ID is <prefix>-<task>-<slot>.
func ID(prefix string, task, slot int) string {
	return prefix + "-" + strconv.Itoa(task) + "-" + strconv.Itoa(slot)
}

// ParseID returns the task and slot of id when id is one of prefix's ids
// (exactly <prefix>-<digits>-<digits>).
func ParseID(prefix, id string) (task, slot int, ok bool) {
	rest, found := strings.CutPrefix(id, prefix+"-")
	if !found {
		return 0, 0, false
	}
	t, s, found := strings.Cut(rest, "-")
	if !found {
		return 0, 0, false
	}
	ti, err1 := strconv.Atoi(t)
	si, err2 := strconv.Atoi(s)
	if err1 != nil || err2 != nil || ti < 0 || si < 0 || strconv.Itoa(ti) != t || strconv.Itoa(si) != s {
		return 0, 0, false
	}
	return ti, si, true
}
