package kafka

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// sink is a Kafka table sink. newSink returns a *sink for at-least-once
// and none, and a *exactlyOnceSink (a connector.TwoPhaseSink) for
// exactly-once.
type sink struct {
	cfg      sinkConfig
	settings clientSettings

	startMu sync.Mutex
	started bool
	timeout time.Duration // resolved transaction timeout (exactly-once)
	cluster string        // the cluster id ("" when it could not be read)

	watch *brokerWatch // brokers the writers' clients cannot reach

	// limits are the largest records the topics accept, read once;
	// oversized counts the records 'sink.bad-record.policy' skipped or
	// set aside.
	limits    sizeLimits
	oversized atomic.Int64

	txn *txn.Sink // exactly-once: the transaction machinery, made after start
}

// sink is a connector.Sink (checked by the compiler).
var _ connector.Sink = (*sink)(nil)

// exactlyOnceSink is the exactly-once Kafka sink. Its writers and its
// committer share the registry of transactional ids of this process
// (txn.Sink).
type exactlyOnceSink struct {
	sink

	mu  sync.Mutex
	ack ackTracker

	// base and instance split the prefix <base>-<instance> of a sink of a
	// scaled-out job (set by the factory); base is "" otherwise.
	base, instance string
}

// exactlyOnceSink is a connector.TwoPhaseSink (checked by the compiler).
var _ connector.TwoPhaseSink = (*exactlyOnceSink)(nil)

// CommitLostError is returned (wrapping connector.ErrCommitLost) when the
// broker definitely aborted a pre-committed transaction, usually because
// its transaction timeout expired or its id was initialised again. Data of
// that checkpoint interval was lost; retrying cannot help. Its fields name
// the lost transaction (TransactionalID, ProducerID, Epoch,
// TransactionVersion, CheckpointID), the broker's answer (Cause) and what
// the broker says of the id now (State, CurrentProducerID, CurrentEpoch,
// TimeoutMillis; DescribeErr when it could not be described).
type CommitLostError = txn.CommitLostError

// ErrSlotsExhausted is returned by an exactly-once writer's Write when it
// needs a transactional id for a new transaction and every id of the
// task's pool holds a transaction whose commit is not done. Under the
// runtime it does not happen: the pool is at least
// connector.TaskInfo.MaxUncommitted ids.
var ErrSlotsExhausted = txn.ErrSlotsExhausted

// ErrDeliveryTimeout fails a writer's buffered records when they waited
// 'properties.delivery.timeout.ms' (default DefaultDeliveryTimeout) for an
// acknowledgement and none arrived: for example, the brokers cannot be
// reached.
var ErrDeliveryTimeout = produce.ErrDeliveryTimeout

// SetAckTracker gives the sink the runtime's tracker of durable commit
// acknowledgements. Call it before Committer and Open.
func (s *exactlyOnceSink) SetAckTracker(t ackTracker) {
	s.mu.Lock()
	s.ack = t
	s.mu.Unlock()
}

// commitsTracker is the runtime's connector.CommitTracker seen as an
// ackTracker: a committable is durably committed when every committable
// pre-committed at its checkpoint (or earlier) is, which the committable
// records.
type commitsTracker struct{ t connector.CommitTracker }

// IsDurablyCommitted implements ackTracker.
func (c commitsTracker) IsDurablyCommitted(b connector.Committable) bool {
	cm, err := txn.DecodeCommittable(b)
	return err == nil && cm.CheckpointID > 0 && c.t.Durable(cm.CheckpointID)
}

// tracker returns the ackTracker given by SetAckTracker (or
// sinkConfig.AckTracker) for writers opened without
// connector.TaskInfo.Commits, or an error saying it is missing.
func (s *exactlyOnceSink) tracker() (ackTracker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ack == nil {
		return nil, errors.New("kafka sink: exactly-once needs the runtime's tracker of durable commit acknowledgements (connector.TaskInfo.Commits, or SetAckTracker)")
	}
	return s.ack, nil
}

// newSink validates cfg (no broker is contacted) and returns the sink.
func newSink(cfg sinkConfig) (connector.Sink, error) {
	s, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if cfg.DeliveryGuarantee != exactlyOnce {
		return &sink{cfg: cfg, settings: s, watch: &brokerWatch{}}, nil
	}
	return &exactlyOnceSink{sink: sink{cfg: cfg, settings: s, watch: &brokerWatch{}}, ack: cfg.AckTracker}, nil
}

// Open returns the writer of one sink task.
func (s *sink) Open(ctx context.Context, task connector.TaskInfo) (connector.Writer, error) {
	w, err := newPlainWriter(ctx, s, task)
	if err != nil {
		return nil, err
	}
	return s.buffered(ctx, w)
}

// buffered wraps w in an upsertBuffer when sink buffer flushing is on;
// ctx is the writer's (Open's).
func (s *sink) buffered(ctx context.Context, w connector.Writer) (connector.Writer, error) {
	if s.cfg.BufferFlushMaxRows <= 0 && s.cfg.BufferFlushInterval <= 0 {
		return w, nil
	}
	key, err := s.cfg.NewKeyFunc()
	if err == nil {
		var b *upsertBuffer
		if b, err = newUpsertBuffer(ctx, w, key, s.cfg.BufferFlushMaxRows, s.cfg.BufferFlushInterval); err == nil {
			return b, nil
		}
	}
	_ = w.Close()
	return nil, fmt.Errorf("kafka sink: %w", err)
}

// resolvePrefix derives the transactional-id prefix from the job name when
// the options did not set it. It runs before anything reads the prefix.
func (s *sink) resolvePrefix(job string) error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.cfg.TransactionalIDPrefix != "" {
		return nil
	}
	if job == "" {
		return errors.New("kafka sink: exactly-once without 'sink.transactional-id-prefix' needs the job name to derive one")
	}
	s.cfg.TransactionalIDPrefix = defaultTransactionalIDPrefix(job, s.cfg.Table)
	s.cfg.Logger.Warn("kafka sink: " + transactionalIDPrefixWarning(s.cfg.TransactionalIDPrefix))
	return nil
}

// TransactionalIDPrefix returns the prefix in use ("" while a derived one
// is not yet known: it is derived when the committer or a writer is
// created).
func (s *sink) TransactionalIDPrefix() string {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	return s.cfg.TransactionalIDPrefix
}

// Open returns the exactly-once writer of one sink task.
func (s *exactlyOnceSink) Open(ctx context.Context, task connector.TaskInfo) (connector.Writer, error) {
	var ack ackTracker = commitsTracker{task.Commits}
	if task.Commits == nil {
		var err error
		if ack, err = s.tracker(); err != nil {
			return nil, err
		}
	}
	if err := s.resolvePrefix(task.Job); err != nil {
		return nil, err
	}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	enc, err := s.cfg.encoder()
	if err != nil {
		return nil, err
	}
	w, err := s.machinery().NewWriter(ctx, task, ack, s.newProducer(ctx, enc, task.Logger))
	if err != nil {
		return nil, err
	}
	w.Warm(ctx)
	return s.buffered(ctx, w)
}

// Committer returns the committer of the sink.
func (s *exactlyOnceSink) Committer(ctx context.Context, job string) (connector.Committer, error) {
	if err := s.resolvePrefix(job); err != nil {
		return nil, err
	}
	// Recovery with nothing pending (a fresh start) needs only the list
	// of open transactions: take it while start checks the connection
	// and reads the brokers' settings.
	early := txn.ListOpen(ctx, txn.KgoDialer{Opts: s.clientOpts})
	if err := s.start(ctx); err != nil {
		early.Stop()
		return nil, err
	}
	cm, err := s.machinery().NewCommitter()
	if err != nil {
		early.Stop()
		return nil, err
	}
	cm.ListedEarly(early)
	return cm, nil
}

// machinery returns the transaction machinery of the sink, made once,
// after the prefix and the transaction timeout are resolved.
func (s *exactlyOnceSink) machinery() *txn.Sink {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.txn == nil {
		s.txn = txn.NewSink(txn.Config{
			Prefix:       s.cfg.TransactionalIDPrefix,
			Incrementing: s.cfg.TransactionNamingStrategy == incrementing,
			MaxSlots:     s.cfg.MaxTransactionSlots,
			Timeout:      s.timeout,
			ClusterID:    s.cluster,
			Logger:       s.cfg.Logger,
			Dialer:       txn.KgoDialer{Opts: s.clientOpts, ProducerOpts: s.producerOpts},
			Unhealthy:    s.watch.unhealthy,
			DeadLetters:  s.deadLetterProducer,
		})
	}
	return s.txn
}

// deadLetterProducer returns the record path of a source's dead letters in
// this sink's transactions (txn.Config.DeadLetters): dl is the source's
// dead-letter sink (source.DeadLetterSink), never opened in this mode;
// its encoder makes the records, which go to its topic. dl must write to
// the sink's cluster (the same bootstrap servers), with which the planner
// chose this mode; the sink's own client, credentials and partitioner
// write them.
func (s *exactlyOnceSink) deadLetterProducer(ctx context.Context, dl connector.Sink) (*produce.Producer, error) {
	var d *sink
	switch x := dl.(type) {
	case *sink:
		d = x
	case *exactlyOnceSink:
		d = &x.sink
	default:
		return nil, fmt.Errorf("kafka sink: cannot write dead letters of a %T in its transactions", dl)
	}
	if a, b := factory.SystemID("kafka cluster", d.settings.seeds), factory.SystemID("kafka cluster", s.settings.seeds); a != b {
		return nil, fmt.Errorf("kafka sink: the dead letters go to topic '%s' of %s, not of the sink's %s: they cannot be written in its transactions", d.cfg.Topic, a, b)
	}
	enc, err := d.cfg.encoder()
	if err != nil {
		return nil, err
	}
	topic := d.cfg.Topic
	to := encoderFunc(func(row *types.Row, rec *kgo.Record) error {
		if err := enc.EncodeRecord(row, rec); err != nil {
			return err
		}
		rec.Topic = topic
		return nil
	})
	return produce.New(ctx, to, nil, nil, s.deliveryTimeout()), nil
}

// TransactionTimeout is the transaction timeout in use, known once a writer
// or the committer was created.
func (s *sink) TransactionTimeout() time.Duration {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	return s.timeout
}

// clusterID returns the cluster id read by start ("" before, or when it
// could not be read).
func (s *sink) clusterID() string {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	return s.cluster
}

// start resolves the transaction timeout against the broker, once.
func (s *sink) start(ctx context.Context) error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.started {
		return nil
	}
	cl, err := s.newClient()
	if err != nil {
		return err
	}
	defer cl.Close()
	ac := s.settings.auth
	ac.Topic, ac.Operation = s.cfg.Topic, OpProduce
	// A bad password, certificate or missing ACL fails here at once, with
	// an explanation, instead of after the client's retries run out.
	if err := checkConnection(ctx, cl, ac); err != nil {
		return fmt.Errorf("kafka sink: %w", err)
	}
	// A source on the same cluster may have its offsets committed in this
	// sink's transactions (txn.Writer.AcceptsGroupPositions).
	if id, err := clusterID(ctx, kadm.NewClient(cl)); err == nil {
		s.cluster = id
	} else {
		s.cfg.Logger.Warn("kafka sink: cannot read the cluster id; source offsets are not committed in this sink's transactions",
			"topic", s.cfg.Topic, "error", err)
	}
	max, err := brokerMaxTransactionTimeout(ctx, kadm.NewClient(cl))
	switch {
	case err != nil && s.cfg.TransactionTimeout != 0:
		// The broker's maximum is unknown: the configured timeout stands
		// (the broker refuses a larger one when a transaction starts).
		s.timeout = s.cfg.TransactionTimeout
		s.cfg.Logger.Warn("kafka sink: cannot read the broker's transaction.max.timeout.ms to check the transaction timeout against it",
			"topic", s.cfg.Topic, "transaction_timeout", s.timeout, "error", err)
	case err != nil:
		s.timeout = DefaultTransactionTimeout
		s.cfg.Logger.Warn("kafka sink: cannot read the broker's transaction.max.timeout.ms; assuming Kafka's default",
			"topic", s.cfg.Topic, "assumed", s.timeout, "error", err)
	case s.cfg.TransactionTimeout == 0:
		s.timeout = max
	case s.cfg.TransactionTimeout > max:
		return &TimeoutError{Configured: s.cfg.TransactionTimeout, BrokerMax: max}
	default:
		s.timeout = s.cfg.TransactionTimeout
	}
	s.started = true
	return nil
}

// TimeoutError is returned at start when the configured transaction
// timeout exceeds the broker's transaction.max.timeout.ms.
type TimeoutError struct {
	Configured, BrokerMax time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("kafka sink: 'properties.transaction.timeout.ms' (%d) exceeds the broker's transaction.max.timeout.ms (%d): "+
		"lower 'properties.transaction.timeout.ms' to at most %d, or raise transaction.max.timeout.ms on the brokers",
		e.Configured.Milliseconds(), e.BrokerMax.Milliseconds(), e.BrokerMax.Milliseconds())
}

// Unwrap returns connector.ErrUnrecoverable: the broker refuses the timeout
// on every attempt, so the runtime fails the job instead of restarting it.
func (e *TimeoutError) Unwrap() error { return connector.ErrUnrecoverable }

// brokerMaxTransactionTimeout reads transaction.max.timeout.ms of every
// broker and returns the smallest.
func brokerMaxTransactionTimeout(ctx context.Context, adm *kadm.Client) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	brokers, err := adm.ListBrokers(ctx)
	if err != nil {
		return 0, err
	}
	rcs, err := adm.DescribeBrokerConfigs(ctx, brokers.NodeIDs()...)
	if err != nil {
		return 0, err
	}
	var out time.Duration
	for _, rc := range rcs {
		if rc.Err != nil {
			return 0, fmt.Errorf("broker %s: %w", rc.Name, rc.Err)
		}
		for _, c := range rc.Configs {
			if c.Key != "transaction.max.timeout.ms" || c.Value == nil {
				continue
			}
			ms, err := strconv.ParseInt(*c.Value, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("broker %s: transaction.max.timeout.ms = %q: %w", rc.Name, *c.Value, err)
			}
			if d := time.Duration(ms) * time.Millisecond; out == 0 || d < out {
				out = d
			}
		}
	}
	if out == 0 {
		return 0, errors.New("no broker reported transaction.max.timeout.ms")
	}
	return out, nil
}

// newClient returns a plain client of the sink's cluster (no producer
// options): for metadata, admin requests and raw transaction requests.
// deliveryTimeout is properties.delivery.timeout.ms, else
// DefaultDeliveryTimeout.
func (s *sink) deliveryTimeout() time.Duration {
	if s.settings.deliveryTimeout > 0 {
		return s.settings.deliveryTimeout
	}
	return DefaultDeliveryTimeout
}

func (s *sink) newClient(extra ...kgo.Opt) (*kgo.Client, error) {
	cl, err := kgo.NewClient(append(s.clientOpts(), extra...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka sink: creating a client: %w", err)
	}
	return cl, nil
}

// clientOpts are the options of a client without producer options.
func (s *sink) clientOpts() []kgo.Opt {
	opts := append([]kgo.Opt{kgo.SeedBrokers(s.settings.seeds...)}, s.settings.common...)
	if s.watch != nil {
		opts = append(opts, kgo.WithHooks(s.watch))
	}
	return opts
}

// producerOpts are the options of a producing client of task.
func (s *sink) producerOpts(task connector.TaskInfo) []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(s.settings.seeds...), kgo.DefaultProduceTopic(s.cfg.Topic),
		kgo.RecordPartitioner(newPartitioner(s.cfg.Partitioner, task.Index))}
	if s.watch != nil {
		opts = append(opts, kgo.WithHooks(s.watch))
	}
	if s.cfg.MaxBufferedRecords > 0 {
		opts = append(opts, kgo.MaxBufferedRecords(s.cfg.MaxBufferedRecords))
	}
	opts = append(opts, s.settings.common...)
	return append(opts, s.settings.producer...)
}

// memoryAckTracker is an in-memory ackTracker for tests and for programs
// that record durable acknowledgements themselves. It is safe for
// concurrent use.
type memoryAckTracker struct {
	mu      sync.Mutex
	durable map[string]bool
}

// MarkDurable records that the commit of c is durably acknowledged.
func (t *memoryAckTracker) MarkDurable(c connector.Committable) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.durable == nil {
		t.durable = map[string]bool{}
	}
	t.durable[string(c)] = true
}

// IsDurablyCommitted implements ackTracker.
func (t *memoryAckTracker) IsDurablyCommitted(c connector.Committable) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.durable[string(c)]
}
