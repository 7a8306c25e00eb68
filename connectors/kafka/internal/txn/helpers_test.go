package txn

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
	"github.com/streamsql/streamsql/types"
)

// The tests of this package drive the machinery against kfake, franz-go's
// in-process fake cluster: fast checks of the pool, the commit and abort
// paths and recovery. What a real broker does with these transactions
// (isolation, fencing, timeouts, both transaction versions) is tested in
// package kafka against the real brokers.

const (
	topic    = "out"
	waitLong = 20 * time.Second // catches hangs only
)

// fake is one kfake cluster with a topic of one partition.
type fake struct {
	t *testing.T
	c *kfake.Cluster
}

func newFake(t *testing.T, opts ...kfake.Opt) *fake {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(1, topic)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &fake{t: t, c: c}
}

// client returns a client of the cluster, closed when the test ends.
func (f *fake) client(opts ...kgo.Opt) *kgo.Client {
	f.t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(f.c.ListenAddrs()...)}, opts...)...)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(cl.Close)
	return cl
}

// committed produces a non-transactional sentinel and returns the values
// a read_committed consumer sees before it: every committed record, in
// order. An open transaction on the topic holds the sentinel back, and the
// test fails when it does not arrive.
func (f *fake) committed() []string {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	if err := f.client(kgo.DefaultProduceTopic(topic)).ProduceSync(ctx, kgo.StringRecord("sentinel")).FirstErr(); err != nil {
		f.t.Fatalf("producing the sentinel: %v", err)
	}
	cl := f.client(kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var got []string
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			f.t.Fatalf("the sentinel did not become visible to read_committed (a transaction is still open?); saw %q", got)
		}
		for _, r := range fs.Records() {
			if string(r.Value) == "sentinel" {
				return got
			}
			got = append(got, string(r.Value))
		}
	}
}

// state returns the broker's state of transactional id id.
func (f *fake) state(id string) string {
	f.t.Helper()
	d, err := kadm.NewClient(f.client()).DescribeTransactions(context.Background(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return d[id].State
}

// sink returns the machinery of a sink on f with prefix "p", a pool of 3
// ids and its Dialer counting what it is asked to do.
func (f *fake) sink(mod ...func(*Config)) (*Sink, *countingDialer) {
	addrs := f.c.ListenAddrs()
	d := &countingDialer{inner: KgoDialer{
		Opts: func() []kgo.Opt { return []kgo.Opt{kgo.SeedBrokers(addrs...)} },
		ProducerOpts: func(connector.TaskInfo) []kgo.Opt {
			return []kgo.Opt{kgo.SeedBrokers(addrs...), kgo.DefaultProduceTopic(topic)}
		},
	}}
	cfg := Config{Prefix: "p", MaxSlots: 3, Timeout: time.Minute, ClusterID: "fake",
		Logger: slog.New(slog.NewTextHandler(f.t.Output(), nil)), Dialer: d, Unhealthy: func() string { return "" }}
	for _, m := range mod {
		m(&cfg)
	}
	return NewSink(cfg), d
}

// countingDialer is a Dialer whose clients count the transaction ends
// sent through them: in process (EndTransaction on a writer's client) and
// raw (an EndTxn request from a client without a transactional id).
type countingDialer struct {
	inner         KgoDialer
	transactional atomic.Int64 // transactional clients made
	inCommits     atomic.Int64
	inAborts      atomic.Int64
	rawCommits    atomic.Int64
	rawAborts     atomic.Int64
	// unpublished, when not unpublishedNone, makes the transactional
	// clients act as a franz-go v1.22.3 client does while the partitions
	// of a topic it produced to for the first time are not yet published
	// in its producer state (its metadata goroutine partitions the waiting
	// records before it stores the partitions, and the records can be
	// acknowledged in between): PartitionLeader reports the partition not
	// loaded, and EndTransaction, which then sees no partition added to the
	// transaction, ends it as empty and returns nil — under transaction
	// version 2 by aborting it (unpublishedAbort), below it by sending
	// nothing (unpublishedNoop).
	unpublished atomic.Int32
}

const (
	unpublishedNone int32 = iota
	unpublishedAbort
	unpublishedNoop
)

type countingClient struct {
	*kgo.Client
	d *countingDialer
}

func (c countingClient) EndTransaction(ctx context.Context, commit kgo.TransactionEndTry) error {
	if commit == kgo.TryCommit {
		c.d.inCommits.Add(1)
	} else {
		c.d.inAborts.Add(1)
	}
	switch c.d.unpublished.Load() {
	case unpublishedAbort:
		commit = kgo.TryAbort
	case unpublishedNoop:
		return nil
	}
	return c.Client.EndTransaction(ctx, commit)
}

func (c countingClient) PartitionLeader(topic string, partition int32) (leader, leaderEpoch int32, err error) {
	if c.d.unpublished.Load() != unpublishedNone {
		return -1, -1, nil
	}
	return c.Client.PartitionLeader(topic, partition)
}

func (c countingClient) Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	if e, ok := req.(*kmsg.EndTxnRequest); ok {
		if e.Commit {
			c.d.rawCommits.Add(1)
		} else {
			c.d.rawAborts.Add(1)
		}
	}
	return c.Client.Request(ctx, req)
}

func (d *countingDialer) Client(v *kversion.Versions) (Client, error) {
	cl, err := d.inner.Client(v)
	if err != nil {
		return nil, err
	}
	return countingClient{cl.(*kgo.Client), d}, nil
}

func (d *countingDialer) Transactional(task connector.TaskInfo, id string, timeout time.Duration, v *kversion.Versions) (Client, error) {
	cl, err := d.inner.Transactional(task, id, timeout, v)
	if err != nil {
		return nil, err
	}
	d.transactional.Add(1)
	return countingClient{cl.(*kgo.Client), d}, nil
}

func (d *countingDialer) Admin(cl Client) Admin { return kadm.NewClient(cl.(countingClient).Client) }

// acks is an AckTracker: committables marked durable.
type acks struct {
	mu      sync.Mutex
	durable map[string]bool
}

func (a *acks) mark(cs ...connector.Committable) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.durable == nil {
		a.durable = map[string]bool{}
	}
	for _, c := range cs {
		a.durable[string(c)] = true
	}
}

func (a *acks) IsDurablyCommitted(c connector.Committable) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.durable[string(c)]
}

// valueEncoder writes field 0 as the value; rows whose value is "skip"
// produce no record.
type valueEncoder struct{}

func (valueEncoder) EncodeRecord(row *types.Row, rec *kgo.Record) error {
	if row.Fields[0].Str() == "skip" {
		return produce.ErrSkipRow
	}
	rec.Value = append(rec.Value, row.Fields[0].Str()...)
	return nil
}

func rows(values ...string) []types.Row {
	out := make([]types.Row, len(values))
	for i, v := range values {
		out[i] = types.Row{Fields: []types.Value{types.Str(v)}}
	}
	return out
}

func task(i int) connector.TaskInfo {
	return connector.TaskInfo{Job: "test", Table: "out", Index: i, Parallelism: 1}
}

// writer opens the writer of task i, closed when the test ends.
func writer(t *testing.T, s *Sink, i int, ack AckTracker) *Writer {
	t.Helper()
	w, err := s.NewWriter(context.Background(), task(i), ack, produce.New(context.Background(), valueEncoder{}, nil, nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func committer(t *testing.T, s *Sink) *Committer {
	t.Helper()
	cm, err := s.NewCommitter()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cm.Close() })
	return cm
}

func write(t *testing.T, w *Writer, values ...string) {
	t.Helper()
	if err := w.Write(context.Background(), rows(values...)); err != nil {
		t.Fatalf("Write(%q): %v", values, err)
	}
}

// preCommit pre-commits the open transaction and returns its committable
// and transactional id.
// awaitPublished waits until the client of slot id has published every
// partition its transaction's records were acknowledged on (slot.endable).
// franz-go stores a new topic's partitions in its producer state on its
// metadata goroutine, which on a loaded machine can lag the
// acknowledgements; until then the committer rightly ends the transaction
// by raw EndTxn instead. Tests that expect the in-process end wait for this
// first.
func awaitPublished(t *testing.T, s *Sink, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		published := false
		if sl := s.lookup(id); sl != nil {
			sl.mu.Lock()
			if sl.client != nil {
				_, published = sl.endable()
			}
			sl.mu.Unlock()
		}
		if published {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client of %s did not publish its transaction's partitions within 10 s", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func preCommit(t *testing.T, w *Writer, cp int64) (connector.Committable, string) {
	t.Helper()
	cs, err := w.PreCommit(context.Background(), cp)
	if err != nil || len(cs) != 1 {
		t.Fatalf("PreCommit(%d) = %d committables, %v; want 1", cp, len(cs), err)
	}
	c, err := DecodeCommittable(cs[0])
	if err != nil {
		t.Fatal(err)
	}
	if c.CheckpointID != cp {
		t.Fatalf("committable of checkpoint %d names checkpoint %d", cp, c.CheckpointID)
	}
	return cs[0], c.TransactionalID
}

func commit(t *testing.T, cm *Committer, cs ...connector.Committable) {
	t.Helper()
	for _, c := range cs {
		if err := cm.Commit(context.Background(), c); err != nil {
			t.Fatalf("Commit: %v", err)
		}
	}
}

func expectCommitted(t *testing.T, f *fake, want ...string) {
	t.Helper()
	if got := f.committed(); !slices.Equal(got, want) {
		t.Fatalf("read_committed saw %q, want %q", got, want)
	}
}
