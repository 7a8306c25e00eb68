package factory

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/option"
)

// ChangelogMode is the set of row kinds a source produces or a sink
// accepts (Flink's getChangelogMode). A connector declares it in
// ConnectorFactory.SourceChangelog and SinkChangelog.
type ChangelogMode uint8

// The changelog modes.
const (
	// InsertOnly: only INSERT rows (Flink's append-only streams); the zero
	// value.
	InsertOnly ChangelogMode = iota
	// Upsert: INSERT, UPDATE_AFTER and DELETE rows keyed by the primary
	// key (upsert-kafka).
	Upsert
	// AllKinds: every row kind, UPDATE_BEFORE included (print).
	AllKinds
	// NoUpdateBefore: every row kind, but the sink has no use for
	// UPDATE_BEFORE rows, so the operators before it need not produce
	// them (Flink's blackhole asks for the changelog it is offered
	// without UPDATE_BEFORE).
	NoUpdateBefore
)

// String returns a short description.
func (m ChangelogMode) String() string {
	switch m {
	case Upsert:
		return "upsert (INSERT, UPDATE_AFTER, DELETE)"
	case AllKinds:
		return "all row kinds"
	case NoUpdateBefore:
		return "all row kinds, UPDATE_BEFORE not needed"
	}
	return "append-only (INSERT)"
}

// Accepts reports whether a sink of mode m accepts the rows of a source of
// mode src.
//
// An upsert sink accepts every row kind: it writes rows by key, so it
// ignores UPDATE_BEFORE rows (the UPDATE_AFTER row that follows replaces
// the key's value), as Flink's upsert sinks do with a changelog source.
func (m ChangelogMode) Accepts(src ChangelogMode) bool {
	return src == InsertOnly || m == AllKinds || m == Upsert || m == NoUpdateBefore
}

// Delivery is the delivery guarantee of a sink as configured (what
// TableInfo.Delivery declares); whether it holds after a crash also
// depends on the job's checkpoint settings (see the planner).
type Delivery string

// The delivery guarantees.
const (
	// DeliveryNone: records may be lost or duplicated.
	DeliveryNone Delivery = "none"
	// AtLeastOnce: records are flushed on every checkpoint; a restart may
	// write some again. A sink that declares nothing is taken as this.
	AtLeastOnce Delivery = "at-least-once"
	// ExactlyOnce: writes are committed with the checkpoint (two-phase
	// commit), so each record becomes visible once.
	ExactlyOnce Delivery = "exactly-once"
)

// JobContext is what a factory is told about the job a table belongs to:
// its name and checkpoint settings (as Flink's factory Context carries the
// job configuration). The zero value means "not known" (a table created
// outside a job).
type JobContext struct {
	// Name is the job's name (pipeline.name, else the file's base name).
	Name string
	// CheckpointInterval is execution.checkpointing.interval; 0 means
	// checkpointing is off (one final checkpoint when the job stops).
	CheckpointInterval time.Duration
	// CheckpointTimeout is execution.checkpointing.timeout.
	CheckpointTimeout time.Duration
	// MinPause is execution.checkpointing.min-pause.
	MinPause time.Duration
	// CheckpointMode is execution.checkpointing.mode: EXACTLY_ONCE or
	// AT_LEAST_ONCE. CheckpointModeSet tells whether the job set it.
	CheckpointMode    string
	CheckpointModeSet bool
	// CheckpointDir is execution.checkpointing.dir; "" keeps checkpoints
	// in memory (not durable: a restarted process starts over).
	CheckpointDir string
	// SettingsUncertain is set when a SET statement of the job did not
	// parse: the settings above may not be the job's, so checks that
	// compare an option with them should be skipped.
	SettingsUncertain bool
	// ScaleOut is pipeline.scale-out: the job runs as several cooperating
	// processes, each reading the source partitions a consumer group
	// assigns it (docs/scale-out.md). InstanceID is this process's
	// pipeline.instance-id (--instance-id), stable across its restarts;
	// it may be "" while a job is only validated or explained.
	ScaleOut   bool
	InstanceID string
	// Shared is what the tables of the job share; nil when the job is
	// not known.
	Shared *JobShared
	// S3 configures the S3 client of s3:// paths (the job's s3.*
	// settings), for connectors that read or write object storage. Its
	// secret prints as ******.
	S3 s3fs.Config
}

// JobShared holds what the tables of one job share: a connector keeps
// there, under keys of its own, what its sources and sinks in the job
// coordinate (a scaled-out job's Kafka sources and exactly-once sinks,
// for example). It lives as long as the job's plan. It is safe for
// concurrent use; the zero value is empty and ready.
type JobShared struct {
	mu     sync.Mutex
	values map[string]any
}

// Value returns the value under key, made by create the first time.
func (s *JobShared) Value(key string, create func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.values[key]; ok {
		return v
	}
	if s.values == nil {
		s.values = map[string]any{}
	}
	v := create()
	s.values[key] = v
	return v
}

// DurableCheckpoints reports whether checkpoints outlive the process
// (execution.checkpointing.dir is set).
func (j JobContext) DurableCheckpoints() bool { return j.CheckpointDir != "" }

// Role says whether a table is described as a source or as a sink.
type Role uint8

// The roles of a table.
const (
	AsSource Role = iota + 1
	AsSink
)

// String returns "source" or "sink".
func (r Role) String() string {
	if r == AsSink {
		return "sink"
	}
	return "source"
}

// WarningKind classifies a warning for programs (tests, tools), which
// should match on it rather than on the text.
type WarningKind string

// The warning kinds of factories and connectors. The planner adds its own
// (see planner.Warning).
const (
	// WarnDeprecatedOption: an option was written with a deprecated key.
	WarnDeprecatedOption WarningKind = "deprecated-option"
	// WarnDerivedOption: an option the user did not set was derived (a
	// Kafka transactional-id prefix from the job and table names).
	WarnDerivedOption WarningKind = "derived-option"
	// WarnDeliveryMismatch: the job's checkpointing mode promises more
	// than a sink delivers.
	WarnDeliveryMismatch WarningKind = "delivery-mismatch"
	// WarnTransactionTimeout: a transaction timeout shorter than a slow
	// checkpoint may take.
	WarnTransactionTimeout WarningKind = "transaction-timeout"
	// WarnUncommittedRead: a source reads uncommitted records of a
	// resource an exactly-once sink of the job writes.
	WarnUncommittedRead WarningKind = "uncommitted-read"
)

// TableWarning is a warning a connector's Describe returns.
type TableWarning struct {
	// Kind classifies the warning.
	Kind WarningKind
	// Key is the option the warning is about, if any (where it is shown).
	Key string
	// Message is the text shown to the user.
	Message string
}

// Exclusive is a resource a table claims for itself within a job: two
// tables (or two INSERTs into one table) claiming the same Key are an
// error, such as two exactly-once Kafka sinks with one transactional-id
// prefix. The planner builds its message from the fields:
//
//	<Owner> sinks 'a' (line 3) and 'b' have the same <What>: <Conflict>; <Fix>
//	<Owner> table 'a' is written by two INSERTs (lines 3 and 5), whose sinks would share the <What>: <Conflict>; <FixSameTable>
type Exclusive struct {
	// Key identifies the resource; equal keys conflict.
	Key string
	// Owner describes the tables that claim it ("exactly-once Kafka").
	Owner string
	// What names the resource ("transactional-id prefix 'p'").
	What string
	// Conflict says what goes wrong when two share it.
	Conflict string
	// Fix says what to do about two tables; FixSameTable about two
	// INSERTs into one table.
	Fix, FixSameTable string
}

// PositionStore names where a source keeps its read positions outside
// the job's checkpoints, such as a Kafka consumer group: a source that
// starts from it resumes there when no checkpoint is restored.
type PositionStore struct {
	// System identifies the external system and instance ("kafka
	// cluster <bootstrap servers>"); a sink whose CommitsPositionsOf is
	// the same System can commit the positions in its transaction.
	System string
	// Group is the name of the positions within the system (a Kafka
	// consumer group).
	Group string
}

// TableInfo is what a connector's Describe says about one table as a
// source or a sink, given its validated options and the job: the facts
// the planner's generic checks and EXPLAIN need.
type TableInfo struct {
	// Delivery is a sink's configured delivery guarantee; "" means
	// AtLeastOnce.
	Delivery Delivery
	// DerivedOptions are options the connector fills in when the user did
	// not set them (a Kafka transactional-id prefix derived from the job
	// and table). The planner adds them to the table's options, so that
	// the factory creating the sink gets them and EXPLAIN shows them.
	DerivedOptions map[string]string
	// Summary are EXPLAIN's lines about the table (topics, startup mode,
	// ...), in order (Flink's asSummaryString), shown after its connector.
	Summary []KeyValue
	// DeliverySummary are a sink's EXPLAIN lines about how it keeps its
	// guarantee (transactional-id prefix, transaction timeout), shown
	// after the guarantee.
	DeliverySummary []KeyValue
	// Parallelism is the parallelism the table asks for (scan.parallelism
	// of a source, sink.parallelism of a sink); 0 means the job's default.
	// It is descriptive: the planner reads the shared declarations
	// option.ScanParallelism and option.SinkParallelism from the validated
	// options of every table.
	Parallelism int
	// Warnings are findings about the table that do not stop the job.
	Warnings []TableWarning
	// Exclusive are resources the table claims within the job.
	Exclusive []Exclusive
	// Servers are the addresses of the external system the table reads
	// or writes (Kafka bootstrap servers), if any.
	Servers []string
	// Topics are the named streams the table reads (source) or writes
	// (sink), if any.
	Topics []string
	// ReadsUncommitted, for a source, says that it sees writes of other
	// writers before they are committed; UncommittedHow says how (" with
	// isolation level read_uncommitted") and UncommittedFix what to set.
	ReadsUncommitted bool
	UncommittedHow   string
	UncommittedFix   string
	// ResumesFrom, for a source, is where it starts when no checkpoint is
	// restored, when that is a store a sink transaction can commit to
	// (a Kafka consumer group); nil otherwise.
	ResumesFrom *PositionStore
	// CommitsPositionsOf, for an exactly-once sink, names the system
	// (PositionStore.System) whose source positions the sink can commit
	// inside its transaction, so that the positions and the output are
	// committed together; "" when it cannot.
	CommitsPositionsOf string
	// PositionsFix, for a sink with CommitsPositionsOf, says what a job
	// must do for the sink to commit its sources' positions (which
	// sources, with which options), completing "set
	// execution.checkpointing.dir, or ...".
	PositionsFix string
	// DeadLetters, for a source that sets bad records aside
	// (connector.DeadLetterSource), says where they go ("topic 'x'"); ""
	// when it does not. DeadLettersOption is the option that asks for it,
	// for messages. The planner refuses a job in which the dead letters
	// cannot keep the guarantee of the pipeline's sink, and EXPLAIN says
	// which they have.
	DeadLetters, DeadLettersOption string
	// RejectsRows, for a source, says that a row its reader's first
	// operator rejects (a filter or projection that fails on it) goes by a
	// policy of the table — skipped, or set aside as a dead letter —
	// rather than failing the job (connector.BadRowHandler). That needs
	// the operator in the reader's task: the planner does not share such a
	// scan between readers (whose operators then run after an exchange).
	RejectsRows bool
	// DeadLettersSystem names the system the dead letters are written to
	// (as PositionStore.System). When an exactly-once sink's
	// CommitsPositionsOf is the same system, the sink writes the dead
	// letters inside its own transactions (connector.DeadLetterWriter),
	// with the output and the source positions of their checkpoint.
	DeadLettersSystem string
	// NeedsWatermarks, for a sink, says that it acts on event time (its
	// writer is a connector.WatermarkWriter, as the filesystem sink with
	// the partition-time commit trigger): the planner has the sources of
	// its pipelines that declare a WATERMARK generate watermarks, as it
	// does for an event-time window.
	NeedsWatermarks bool
	// BoundedRows, for a source, is the number of rows it reads when that
	// is known before it starts (datagen's number-of-rows); 0 otherwise.
	BoundedRows int64
	// ScaleOut says, for EXPLAIN, what the table does when the job runs
	// scaled out (pipeline.scale-out): "reads the partitions the group
	// assigns this instance". NoScaleOut says why the table cannot take
	// part instead; the planner refuses the job with it. A table that
	// sets neither cannot take part either (its connector does not say
	// how).
	ScaleOut, NoScaleOut string
}

// Describe returns the TableInfo of a validated table in role, from its
// connector's Describe hook; a connector without one is described by
// nothing but its declared fields (at-least-once, no summary).
func (v *Validated) Describe(role Role) (TableInfo, error) {
	if v == nil || v.Factory == nil || v.Factory.Describe == nil {
		return TableInfo{}, nil
	}
	return v.Factory.Describe(v, role)
}

// OptionError is an error of a connector's Describe about the value of
// one option: the planner shows it at that value.
type OptionError struct {
	// Key is the option's key.
	Key string
	// Message is the whole message shown to the user.
	Message string
}

func (e *OptionError) Error() string { return e.Message }

// SystemID returns a stable identifier of an external system from its
// name and address list: the addresses trimmed, sorted and deduplicated,
// so that "b:1,a:1" and "a:1, b:1" name the same cluster.
func SystemID(system string, addresses []string) string {
	a := make([]string, 0, len(addresses))
	for _, s := range addresses {
		if s = strings.TrimSpace(s); s != "" {
			a = append(a, s)
		}
	}
	slices.Sort(a)
	return system + " " + strings.Join(slices.Compact(a), ",")
}

// notYetConnectors and notYetFormats are Flink connectors and formats
// streamsql does not have yet: naming one is "not supported yet" rather
// than unknown (UnknownFactoryError.NotYet). They are constant.
var (
	notYetConnectors = setOf("elasticsearch-6", "elasticsearch-7", "opensearch", "hbase-1.4",
		"hbase-2.2", "kinesis", "firehose", "mongodb", "pulsar", "rabbitmq",
		"dynamodb", "hive", "mysql-cdc", "postgres-cdc", "values")
	notYetFormats = setOf("debezium-avro-confluent",
		"ogg-json", "parquet", "orc",
		"protobuf", "debezium-protobuf")
)

func setOf(ids ...string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// Formats returns the format options of the table as written (the key
// used, such as 'format' for 'value.format', and the value), sorted by
// key: what EXPLAIN shows of its formats.
func (v *Validated) Formats() []KeyValue {
	if v == nil || v.Factory == nil || v.Config == nil {
		return nil
	}
	var out []KeyValue
	for _, o := range v.Factory.Options {
		if o.Info().Type != option.TypeFormat || !v.Config.Has(o) {
			continue
		}
		key := v.Config.KeyUsed(o)
		out = append(out, KeyValue{Key: key, Value: v.Table.Options[key]})
	}
	slices.SortFunc(out, func(a, b KeyValue) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// ConnectorKey is the option naming a table's connector ('connector').
const ConnectorKey = "connector"
