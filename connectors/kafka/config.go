package kafka

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// deliveryGuarantee is the option 'sink.delivery-guarantee' (and its
// deprecated alias 'sink.semantic').
type deliveryGuarantee uint8

// Delivery guarantees.
const (
	// atLeastOnce flushes on every checkpoint (Flink's default).
	atLeastOnce deliveryGuarantee = iota
	// exactlyOnce writes in Kafka transactions committed when a checkpoint
	// completes.
	exactlyOnce
	// None is fire and forget: records may be lost.
	none
)

// parseDeliveryGuarantee parses the option's value (at-least-once,
// exactly-once, none; case-insensitive, '_' accepted for '-').
func parseDeliveryGuarantee(s string) (deliveryGuarantee, error) {
	switch strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-") {
	case "at-least-once":
		return atLeastOnce, nil
	case "exactly-once":
		return exactlyOnce, nil
	case "none":
		return none, nil
	}
	return 0, fmt.Errorf("unknown delivery guarantee %q: want at-least-once, exactly-once or none", s)
}

func (g deliveryGuarantee) String() string {
	switch g {
	case atLeastOnce:
		return "at-least-once"
	case exactlyOnce:
		return "exactly-once"
	case none:
		return "none"
	}
	return fmt.Sprintf("DeliveryGuarantee(%d)", uint8(g))
}

// namingStrategy is the option 'sink.transaction-naming-strategy'.
type namingStrategy uint8

// Naming strategies.
const (
	// pooling reuses a bounded pool of transactional ids per task
	// (streamsql's default; docs/exactly-once.md).
	pooling namingStrategy = iota
	// incrementing gives every transaction a new id (one per checkpoint).
	incrementing
)

// parseNamingStrategy parses POOLING or INCREMENTING (case-insensitive;
// Flink's DEFAULT means INCREMENTING).
func parseNamingStrategy(s string) (namingStrategy, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "POOLING":
		return pooling, nil
	case "INCREMENTING", "DEFAULT":
		return incrementing, nil
	}
	return 0, fmt.Errorf("unknown transaction naming strategy %q: want POOLING or INCREMENTING", s)
}

func (n namingStrategy) String() string {
	if n == incrementing {
		return "INCREMENTING"
	}
	return "POOLING"
}

// partitionerKind is the option 'sink.partitioner'.
type partitionerKind uint8

// Partitioners.
const (
	// partitionerDefault hashes the key with Kafka's murmur2, as the Java
	// producer does; records without a key go to a sticky partition.
	partitionerDefault partitionerKind = iota
	// partitionerFixed sends every record of sink task i to partition
	// i mod the number of partitions.
	partitionerFixed
	// partitionerRoundRobin spreads records over partitions in turn.
	partitionerRoundRobin
)

// parsePartitioner parses default, fixed or round-robin.
func parsePartitioner(s string) (partitionerKind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "default", "":
		return partitionerDefault, nil
	case "fixed":
		return partitionerFixed, nil
	case "round-robin":
		return partitionerRoundRobin, nil
	}
	return 0, fmt.Errorf("unsupported sink partitioner %q: want default, fixed or round-robin (partitioner classes are not supported)", s)
}

func (p partitionerKind) String() string {
	switch p {
	case partitionerFixed:
		return "fixed"
	case partitionerRoundRobin:
		return "round-robin"
	}
	return "default"
}

// recordEncoder turns a row into a Kafka record. Implementations append
// into rec.Key[:0] and rec.Value[:0] so that the writer's recycled records
// reuse their buffers; they may set rec.Topic (writable metadata 'topic';
// empty means the sink's topic), rec.Headers and rec.Timestamp. The writer
// resets every other field. Encode is called from one goroutine.
type recordEncoder interface {
	EncodeRecord(row *types.Row, rec *kgo.Record) error
}

// encoderFunc adapts a function to recordEncoder.
type encoderFunc func(row *types.Row, rec *kgo.Record) error

// EncodeRecord calls f.
func (f encoderFunc) EncodeRecord(row *types.Row, rec *kgo.Record) error { return f(row, rec) }

// ackTracker tells the exactly-once writer whether the commit of a
// committable has been acknowledged durably (recorded in a completed
// checkpoint or an fsynced commit log). A transactional id is reused only
// when the committable of its previous transaction is durably committed;
// otherwise a crash could make recovery re-commit that committable against
// the id's newer transaction. Under the runtime, writers use
// connector.TaskInfo.Commits (Durable at the committable's checkpoint id)
// instead; an ackTracker (sinkConfig.AckTracker or
// exactlyOnceSink.SetAckTracker) serves writers opened without it, as in
// tests and embedders' own drivers. It must be safe for concurrent use.
//
// ackTracker is an alias of an unnamed interface type so that a runtime
// can hand its tracker over through an interface of its own, without
// importing this package: any
// SetAckTracker(interface{ IsDurablyCommitted(connector.Committable) bool })
// method matches.
type ackTracker = interface {
	IsDurablyCommitted(c connector.Committable) bool
}

// Defaults.
const (
	// DefaultMaxTransactionSlots is the least size of a sink task's pool of
	// transactional ids (open, pre-committed, or committed but not yet
	// durably acknowledged); a writer opened by the runtime sizes its pool
	// from connector.TaskInfo.MaxUncommitted when that is larger.
	DefaultMaxTransactionSlots = 8
	// DefaultDeliveryTimeout bounds how long a writer's produced records
	// may wait with no acknowledgement arriving, retries included, unless
	// 'properties.delivery.timeout.ms' says otherwise (the Java client's
	// default; franz-go has none). During a broker outage a writer's
	// records then fail after it, and the job fails over, instead of
	// waiting for ever.
	DefaultDeliveryTimeout = 2 * time.Minute
	// DefaultMaxBufferedRecords is franz-go's bound on the records a writer
	// buffers before Write blocks.
	DefaultMaxBufferedRecords = 50_000
	// DefaultTransactionTimeout is used when the broker's
	// transaction.max.timeout.ms cannot be read (Kafka's default).
	DefaultTransactionTimeout = 15 * time.Minute
)

// sinkConfig is a validated Kafka sink. Field names follow Flink's options.
type sinkConfig struct {
	// Topic is 'topic' when it names one topic: where records without a
	// topic of their own (the writable 'topic' metadata column) go.
	Topic string
	// AllowedTopics is 'topic' when it lists several topics, and
	// TopicPattern is 'topic-pattern' (matched against the whole name):
	// when either is set, a record's own topic must be allowed by it.
	AllowedTopics []string
	TopicPattern  *regexp.Regexp
	// Properties are the 'properties.*' options without the prefix, with
	// the Java client's names (bootstrap.servers is required).
	Properties map[string]string
	// DeliveryGuarantee is 'sink.delivery-guarantee'.
	DeliveryGuarantee deliveryGuarantee
	// TransactionalIDPrefix is 'sink.transactional-id-prefix' (required for
	// exactly-once; the factory derives a default when it is absent).
	TransactionalIDPrefix string
	// TransactionNamingStrategy is 'sink.transaction-naming-strategy'.
	TransactionNamingStrategy namingStrategy
	// TransactionTimeout is 'properties.transaction.timeout.ms'. Zero means
	// the value of that property, or when absent the broker's
	// transaction.max.timeout.ms read at start.
	TransactionTimeout time.Duration
	// Partitioner is 'sink.partitioner'.
	Partitioner partitionerKind
	// MaxTransactionSlots is the least size of a task's pool of
	// transactional ids (zero: DefaultMaxTransactionSlots); the pool is
	// connector.TaskInfo.MaxUncommitted when that is larger. When every id
	// holds a transaction whose commit is not done,
	// txn.Writer.CheckpointReady reports false and Write fails with
	// ErrSlotsExhausted; ids committed but not yet durably acknowledged
	// make the pool take one more id instead (see ErrSlotsExhausted).
	MaxTransactionSlots int
	// MaxBufferedRecords bounds the records a writer buffers before Write
	// blocks (zero: DefaultMaxBufferedRecords, franz-go's default).
	MaxBufferedRecords int
	// Encoder turns rows into records; one of Encoder and NewEncoder is
	// required.
	Encoder recordEncoder
	// NewEncoder, when set, creates the encoder of each writer (the
	// formats' encoders are not safe for concurrent use).
	NewEncoder func() (recordEncoder, error)
	// BufferFlushMaxRows and BufferFlushInterval are upsert-kafka's
	// 'sink.buffer-flush.max-rows' and 'sink.buffer-flush.interval': when
	// both are positive each writer is wrapped in an upsertBuffer keyed by
	// the keyFunc that NewKeyFunc creates.
	BufferFlushMaxRows  int
	BufferFlushInterval time.Duration
	NewKeyFunc          func() (keyFunc, error)
	// DeriveTransactionalIDPrefix, when TransactionalIDPrefix is empty
	// under exactly-once, derives the prefix from the job name and Table
	// (defaultTransactionalIDPrefix) when the committer or a writer is
	// created — the factory does not know the job name.
	DeriveTransactionalIDPrefix bool
	// Table is the sink table's name within its database
	// (factory.Context.ObjectName), from which a prefix is derived.
	Table string
	// Metadata are the writable metadata columns (topic, headers,
	// timestamp) the writer copies from each row into its record after the
	// encoder ran. A NULL timestamp means the time of producing.
	Metadata []metadataColumn
	// AckTracker serves exactly-once writers opened without
	// connector.TaskInfo.Commits (set it here or through
	// exactlyOnceSink.SetAckTracker before they are opened).
	AckTracker ackTracker
	// Logger receives warnings; nil means slog.Default().
	Logger *slog.Logger
	// BadRecordPolicy is 'sink.bad-record.policy' ("" is fail): what a
	// writer does with a record too large for its topic (oversize.go);
	// DeadLetterTopic is 'sink.bad-record.dead-letter.topic'.
	BadRecordPolicy string
	DeadLetterTopic string
}

// validate checks cfg without a broker and returns the parsed properties.
func (cfg *sinkConfig) validate() (clientSettings, error) {
	s, err := parseProperties(cfg.Properties)
	if err != nil {
		return s, err
	}
	if cfg.Topic == "" && len(cfg.AllowedTopics) == 0 && cfg.TopicPattern == nil {
		return s, errors.New("kafka sink: option 'topic' or 'topic-pattern' is required")
	}
	if cfg.Encoder == nil && cfg.NewEncoder == nil {
		return s, errors.New("kafka sink: no record encoder")
	}
	if cfg.BadRecordPolicy == sinkBadDeadLetter && cfg.DeadLetterTopic == "" {
		return s, errOversizeDeadLetter
	}
	if (cfg.BufferFlushMaxRows > 0 || cfg.BufferFlushInterval > 0) && cfg.NewKeyFunc == nil {
		return s, errors.New("kafka sink: sink buffer flushing needs the key of each row")
	}
	if cfg.TransactionTimeout == 0 {
		cfg.TransactionTimeout = s.transactionTimeout
	} else if s.transactionTimeout != 0 && s.transactionTimeout != cfg.TransactionTimeout {
		return s, &PropertyError{Key: "transaction.timeout.ms", Value: cfg.Properties["transaction.timeout.ms"],
			Reason: fmt.Sprintf("conflicts with the configured transaction timeout %v", cfg.TransactionTimeout)}
	}
	for _, m := range cfg.Metadata {
		if m.Key != metaTopic && m.Key != metaHeaders && m.Key != metaTimestamp {
			return s, fmt.Errorf("kafka sink: metadata %q is read-only: declare the column VIRTUAL", m.Key)
		}
		if m.Index < 0 {
			return s, fmt.Errorf("kafka sink: metadata %s at position %d", m.Key, m.Index)
		}
	}
	if cfg.MaxTransactionSlots == 0 {
		cfg.MaxTransactionSlots = DefaultMaxTransactionSlots
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.DeliveryGuarantee == exactlyOnce {
		if cfg.TransactionalIDPrefix == "" && !cfg.DeriveTransactionalIDPrefix {
			return s, errors.New("kafka sink: exactly-once needs 'sink.transactional-id-prefix'")
		}
		if cfg.MaxTransactionSlots < 2 {
			return s, fmt.Errorf("kafka sink: at least 2 transaction slots are needed, got %d", cfg.MaxTransactionSlots)
		}
		if s.idempotence != nil && !*s.idempotence {
			return s, &PropertyError{Key: "enable.idempotence", Reason: "exactly-once needs idempotent writes (and acks=all)"}
		}
	}
	return s, nil
}

// topicCheck returns the per-record check of a record's own topic, or nil
// when every record may go anywhere it says.
func (cfg *sinkConfig) topicCheck() func(*kgo.Record) error {
	if cfg.Topic != "" && len(cfg.AllowedTopics) == 0 && cfg.TopicPattern == nil {
		return nil
	}
	allowed := make(map[string]bool, len(cfg.AllowedTopics))
	for _, t := range cfg.AllowedTopics {
		allowed[t] = true
	}
	pattern := anchored(cfg.TopicPattern)
	def := cfg.Topic
	return func(r *kgo.Record) error {
		switch {
		case r.Topic == "" && def == "":
			return errors.New("the row has no topic: fill the 'topic' metadata column")
		case r.Topic == "", r.Topic == def, allowed[r.Topic]:
			return nil
		case pattern != nil && pattern.MatchString(r.Topic):
			return nil
		}
		return fmt.Errorf("the row's topic %q is not allowed by option 'topic' or 'topic-pattern'", r.Topic)
	}
}

// anchored returns re matching whole strings only, as Java's
// Matcher.matches() (nil for nil).
func anchored(re *regexp.Regexp) *regexp.Regexp {
	if re == nil {
		return nil
	}
	full, err := regexp.Compile(`^(?:` + re.String() + `)$`)
	if err != nil { // cannot happen: re compiled
		return re
	}
	return full
}

// validateTransactionTimeout checks, without a broker, that a transaction
// timeout leaves room for the job's checkpoints (the job's name is not
// used). A transaction is open from its first write until the checkpoint
// after the next barrier completes, so it must outlast one checkpoint
// interval plus the min pause that may delay the next barrier: a timeout
// not above execution.checkpointing.interval + min-pause is an error (the
// broker would abort transactions in normal operation). Above that but
// not above interval + min-pause + execution.checkpointing.timeout, only a slow
// checkpoint outlives the transaction, which the sink notices before it
// commits (the job fails over and replays from the last checkpoint): the
// warning says so, and the job runs, as Flink accepts
// 'properties.transaction.timeout.ms' = '600000' with a 10 s interval. A
// zero timeout (the broker's maximum, read at start) or a job without
// checkpointing is not checked.
func validateTransactionTimeout(timeout time.Duration, job factory.JobContext) (warning string, err error) {
	warning, err = checkTransactionTimeout(timeout, job)
	prefix := fmt.Sprintf("kafka sink: 'properties.transaction.timeout.ms' (%d ms) ", timeout.Milliseconds())
	if err != nil {
		return "", fmt.Errorf("%s%w", prefix, err)
	}
	if warning != "" {
		warning = prefix + warning
	}
	return warning, nil
}

// checkTransactionTimeout is validateTransactionTimeout with messages that
// continue "'properties.transaction.timeout.ms' = '...' of table 't' ".
func checkTransactionTimeout(timeout time.Duration, job factory.JobContext) (warning string, err error) {
	if timeout <= 0 || job.CheckpointInterval <= 0 {
		return "", nil
	}
	f := option.FormatDuration
	if one := job.CheckpointInterval + job.MinPause; timeout <= one {
		return "", fmt.Errorf("must be above checkpoint interval + min pause (%s + %s = %d ms): the broker would abort the transaction of a checkpoint interval before the checkpoint commits it, and its records would be lost; raise it (up to the broker's transaction.max.timeout.ms) or lower execution.checkpointing.interval and execution.checkpointing.min-pause",
			f(job.CheckpointInterval), f(job.MinPause), one.Milliseconds())
	}
	if slow := job.CheckpointInterval + job.MinPause + job.CheckpointTimeout; timeout <= slow {
		return fmt.Sprintf("is not above checkpoint interval + min pause + checkpoint timeout (%s + %s + %s = %d ms): a checkpoint slower than %s outlives its transactions, which the broker then aborts, and the job fails over to the last completed checkpoint; raise it (up to the broker's transaction.max.timeout.ms) or lower execution.checkpointing.timeout",
			f(job.CheckpointInterval), f(job.MinPause), f(job.CheckpointTimeout), slow.Milliseconds(), f(timeout-job.CheckpointInterval-job.MinPause)), nil
	}
	return "", nil
}

// encoder returns the record encoder of a new writer.
func (cfg *sinkConfig) encoder() (recordEncoder, error) {
	if cfg.NewEncoder == nil {
		return cfg.Encoder, nil
	}
	enc, err := cfg.NewEncoder()
	if err != nil {
		return nil, fmt.Errorf("kafka sink: %w", err)
	}
	return enc, nil
}

// defaultTransactionalIDPrefix is the transactional-id prefix of an
// exactly-once sink without 'sink.transactional-id-prefix' (a deliberate
// deviation from Flink 1.14+, which requires the option, so that job files
// written for Flink 1.12/1.13 run unchanged): the job name and the sink
// table's name within its database. It must be unique among every job writing to the
// cluster — two writers sharing transactional ids fence each other — so
// EXPLAIN shows it with a warning. table is the table's name within its
// database (orders, not default_catalog.default_database.orders): this is
// the one rule, used by the planner (through the factories' Describe) and
// by a sink created without a prefix alike, and it must not change, or a
// restored job would no longer find its transactions.
func defaultTransactionalIDPrefix(job, table string) string {
	return job + "-" + table
}

// transactionalIDPrefixWarning is the warning shown with a derived
// transactional-id prefix.
func transactionalIDPrefixWarning(prefix string) string {
	return fmt.Sprintf("'sink.transactional-id-prefix' is not set: using '%s' (job name and table); "+
		"it must be unique among all jobs writing to the Kafka cluster, or their transactions fence each other — set the option explicitly", prefix)
}
