package txn

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/streamsql/streamsql/connector"
)

// Client is the part of a *kgo.Client the machinery uses: raw requests
// (ApiVersions, EndTxn, InitProducerId, AddOffsetsToTxn, TxnOffsetCommit),
// producing, and the transaction calls and producer id of a transactional
// client.
type Client interface {
	// Request issues a request to the broker that handles it.
	Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error)
	// Produce buffers r; promise runs once r is acknowledged or failed.
	Produce(ctx context.Context, r *kgo.Record, promise func(*kgo.Record, error))
	// Flush waits until every buffered record is acknowledged or failed.
	Flush(ctx context.Context) error
	// BeginTransaction, AbortBufferedRecords and EndTransaction drive the
	// transaction of a transactional client.
	BeginTransaction() error
	AbortBufferedRecords(ctx context.Context) error
	EndTransaction(ctx context.Context, commit kgo.TransactionEndTry) error
	// PartitionLeader reports leader -1 for a partition the client's
	// producer state has not published (see slot.endable).
	PartitionLeader(topic string, partition int32) (leader, leaderEpoch int32, err error)
	// ProducerID returns the producer id and epoch of a transactional
	// client, initialising its id first when needed.
	ProducerID(ctx context.Context) (int64, int16, error)
	// Close closes the client; it sends nothing to a transaction
	// coordinator.
	Close()
}

// Admin is the part of a *kadm.Client the committer and the survivor use.
type Admin interface {
	DescribeTransactions(ctx context.Context, txnIDs ...string) (kadm.DescribedTransactions, error)
	ListTransactions(ctx context.Context, producerIDs []int64, filterStates []string) (kadm.ListedTransactions, error)
	DescribeProducers(ctx context.Context, s kadm.TopicsSet) (kadm.DescribedProducersTopics, error)
}

// Dialer makes the machinery's clients of the sink's cluster.
type Dialer interface {
	// Client returns a client without a transactional id, for metadata,
	// admin and raw transaction requests; versions, when not nil, caps the
	// request versions it uses.
	Client(versions *kversion.Versions) (Client, error)
	// Transactional returns the producing client of task for
	// transactional id id, with transaction timeout timeout, pinned to
	// versions.
	Transactional(task connector.TaskInfo, id string, timeout time.Duration, versions *kversion.Versions) (Client, error)
	// Admin returns the admin view of cl, a client Client returned.
	Admin(cl Client) Admin
}

// KgoDialer is the Dialer of franz-go clients. Opts returns the options
// of a client without a transactional id (seed brokers, security, hooks);
// ProducerOpts the options of task's producing clients.
type KgoDialer struct {
	Opts         func() []kgo.Opt
	ProducerOpts func(task connector.TaskInfo) []kgo.Opt
}

// Client implements Dialer.
func (d KgoDialer) Client(versions *kversion.Versions) (Client, error) {
	opts := d.Opts()
	if versions != nil {
		opts = append(opts, kgo.MaxVersions(versions))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka sink: creating a client: %w", err)
	}
	return cl, nil
}

// Transactional implements Dialer.
func (d KgoDialer) Transactional(task connector.TaskInfo, id string, timeout time.Duration, versions *kversion.Versions) (Client, error) {
	opts := append(d.ProducerOpts(task), kgo.TransactionalID(id), kgo.TransactionTimeout(timeout), kgo.MaxVersions(versions))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	return cl, nil
}

// Admin implements Dialer; cl must be a *kgo.Client.
func (KgoDialer) Admin(cl Client) Admin { return kadm.NewClient(cl.(*kgo.Client)) }
