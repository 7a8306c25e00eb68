package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// startupMode is 'scan.startup.mode'.
type startupMode uint8

// Startup modes.
const (
	// startGroupOffsets starts at the offsets committed to
	// 'properties.group.id' (Flink's default); partitions without one
	// start as 'properties.auto.offset.reset' says, else fail.
	startGroupOffsets startupMode = iota
	// startEarliest starts at each partition's log start.
	startEarliest
	// startLatest starts at each partition's end.
	startLatest
	// startTimestamp starts at the first record at or after
	// StartupTimestampMillis.
	startTimestamp
	// startSpecificOffsets starts at StartupSpecificOffsets; partitions
	// not listed start at the earliest offset.
	startSpecificOffsets
)

// startupNames are the values of 'scan.startup.mode', indexed by startupMode.
var startupNames = []string{"group-offsets", "earliest-offset", "latest-offset", "timestamp", "specific-offsets"}

func (m startupMode) String() string { return modeName(startupNames, m, "StartupMode") }

// boundedMode is 'scan.bounded.mode'.
type boundedMode uint8

// Bounded modes.
const (
	// Unbounded reads forever.
	unbounded boundedMode = iota
	// boundedLatest ends at each partition's end when the reader opens
	// (the last stable offset under read_committed).
	boundedLatest
	// boundedGroupOffsets ends at the group's committed offsets
	// (partitions without one end at their end when the reader opens).
	boundedGroupOffsets
	// boundedTimestamp ends before the first record at or after
	// BoundedTimestampMillis.
	boundedTimestamp
	// boundedSpecificOffsets ends at BoundedSpecificOffsets; partitions
	// not listed are not read.
	boundedSpecificOffsets
)

// boundedNames are the values of 'scan.bounded.mode', indexed by boundedMode.
var boundedNames = []string{"unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets"}

func (m boundedMode) String() string { return modeName(boundedNames, m, "BoundedMode") }

// parseMode returns the mode whose name (in names, indexed by mode) is s,
// in any case; key names the option in the error.
func parseMode[M ~uint8](names []string, key, s string) (M, error) {
	if i := slices.Index(names, strings.ToLower(strings.TrimSpace(s))); i >= 0 {
		return M(i), nil
	}
	return 0, fmt.Errorf("unknown %s %q: want %s", key, s, strings.Join(names, ", "))
}

// modeName returns m's name in names, or typ(m) for a value out of range.
func modeName[M ~uint8](names []string, m M, typ string) string {
	if int(m) < len(names) {
		return names[m]
	}
	return typ + "(" + strconv.Itoa(int(m)) + ")"
}

// parseSpecificOffsets parses Flink's 'partition:0,offset:42;partition:1,offset:300'.
func parseSpecificOffsets(s string) (map[int32]int64, error) {
	out := map[int32]int64{}
	for _, part := range strings.Split(s, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		p, o, ok := strings.Cut(part, ",")
		pv, okp := strings.CutPrefix(strings.TrimSpace(p), "partition:")
		ov, oko := strings.CutPrefix(strings.TrimSpace(o), "offset:")
		pn, err1 := strconv.ParseInt(pv, 10, 32)
		on, err2 := strconv.ParseInt(ov, 10, 64)
		if !ok || !okp || !oko || err1 != nil || err2 != nil || pn < 0 || on < 0 {
			return nil, fmt.Errorf("invalid specific offsets %q: want 'partition:0,offset:42;partition:1,offset:300'", s)
		}
		out[int32(pn)] = on
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("invalid specific offsets %q: no partition given", s)
	}
	return out, nil
}

// metadataKey names a readable metadata column of the Kafka source.
type metadataKey uint8

// Metadata keys, as Flink's.
const (
	metaTopic         metadataKey = iota // topic STRING NOT NULL
	metaPartition                        // partition INT NOT NULL
	metaOffset                           // offset BIGINT NOT NULL
	metaTimestamp                        // timestamp TIMESTAMP_LTZ(3) NOT NULL
	metaTimestampType                    // timestamp-type STRING NOT NULL
	metaHeaders                          // headers MAP<STRING, BYTES> NOT NULL
	metaLeaderEpoch                      // leader-epoch INT NULL
)

var metadataNames = []string{"topic", "partition", "offset", "timestamp", "timestamp-type", "headers", "leader-epoch"}

// parseMetadataKey parses a metadata key of 'METADATA FROM'.
func parseMetadataKey(s string) (metadataKey, error) {
	for i, n := range metadataNames {
		if n == s {
			return metadataKey(i), nil
		}
	}
	return 0, fmt.Errorf("unknown Kafka metadata key %q: want one of %s", s, strings.Join(metadataNames, ", "))
}

func (k metadataKey) String() string {
	if int(k) < len(metadataNames) {
		return metadataNames[k]
	}
	return "MetadataKey(" + strconv.Itoa(int(k)) + ")"
}

// MetadataType is the logical type of a metadata column.
func (k metadataKey) MetadataType() types.Type {
	switch k {
	case metaTopic, metaTimestampType:
		return types.String().NotNullable()
	case metaPartition:
		return types.Int().NotNullable()
	case metaOffset:
		return types.BigInt().NotNullable()
	case metaTimestamp:
		return types.TimestampLTZ(3).NotNullable()
	case metaHeaders:
		return types.Map(types.String(), types.Bytes()).NotNullable()
	default:
		return types.Int()
	}
}

// metadataColumn places metadata Key at row position Index.
type metadataColumn struct {
	Key   metadataKey
	Index int
}

// Decoder fills the physical fields of row from a record's key and value
// (either may be nil). Metadata positions are filled by the reader. It is
// called from one goroutine; row.Fields is zeroed (all NULL) on entry.
type decodeFunc func(key, value []byte, row *types.Row) error

// multiRowDecoder is a decoder whose records may hold more than one row (a
// Debezium UPDATE is an UPDATE_BEFORE and an UPDATE_AFTER row): Decode
// fills the first row as a Decoder does, Next the following ones of the
// same record, reporting false when there are no more.
type multiRowDecoder interface {
	Decode(key, value []byte, row *types.Row) error
	Next(row *types.Row) bool
}

// sourceConfig is a validated Kafka source. Field names follow Flink's
// options.
type sourceConfig struct {
	// Topics is 'topic' (a list); TopicPattern is 'topic-pattern'
	// (matched against whole topic names, resolved when the splits are
	// listed). One of them is required.
	Topics       []string
	TopicPattern *regexp.Regexp
	// Properties are the 'properties.*' options without the prefix.
	Properties map[string]string
	// StartupMode and its parameters.
	StartupMode            startupMode
	StartupSpecificOffsets map[int32]int64
	StartupTimestampMillis int64
	// BoundedMode and its parameters.
	BoundedMode            boundedMode
	BoundedSpecificOffsets map[int32]int64
	BoundedTimestampMillis int64
	// WaitForTopics is 'scan.missing-topic' = 'wait': a topic of Topics
	// that does not exist is waited for (with a warning a minute) instead
	// of failing the job.
	WaitForTopics bool
	// DiscoveryInterval is 'scan.topic-partition-discovery.interval':
	// how often unbounded readers look for new partitions; zero: never.
	DiscoveryInterval time.Duration
	// RowWidth is the number of fields of each row.
	RowWidth int
	// Metadata are the metadata columns to fill.
	Metadata []metadataColumn
	// Decoder decodes key and value; one of Decoder and NewDecoder is
	// required.
	Decoder decodeFunc
	// NewDecoder, when set, creates the decoder of each reader (the
	// formats' decoders are not safe for concurrent use). A decoder error
	// wrapping factory.ErrSkipRecord drops the record (reader.Skipped
	// counts them); any other fails the read, wrapped with the record's
	// topic, partition and offset.
	NewDecoder func() (decodeFunc, error)
	// newValueDecoder, when set, is NewDecoder's form for the formats of
	// the factory: it also returns what tells the decoder that the nested
	// values of the rows it decoded are dead (reader.RecycleNested), nil
	// when its formats cannot reuse them. It takes NewDecoder's place.
	newValueDecoder func() (decodeFunc, func(), error)
	// NewRowDecoder, when set, creates each reader's decoder as a
	// multiRowDecoder, whose records may hold several rows (change-event value
	// formats such as debezium-json); it takes the place of NewDecoder.
	NewRowDecoder func() (multiRowDecoder, error)
	// Logger receives warnings; nil means slog.Default().
	Logger *slog.Logger
	// BadRecordPolicy is 'scan.bad-record.policy': what a reader does with
	// a record its decoder fails on (an error not wrapping
	// factory.ErrSkipRecord), and with a record whose row the pipeline
	// rejects (connector.BadRowHandler). Table names the table in its
	// messages and dead letters.
	BadRecordPolicy badRecordPolicy
	Table           string
	// ObjectName is the table's name within its database, as
	// --reset-source takes it ("" : Table).
	ObjectName string
	// DeadLetterTopic is 'scan.bad-record.dead-letter.topic', required by
	// deadLetterBadRecords: where the source's dead-letter sink
	// (DeadLetterSink) writes, through the cluster of Properties.
	DeadLetterTopic string
	// ScaleOut makes the source a member of 'properties.group.id' under
	// the static instance id InstanceID (pipeline.scale-out): its splits
	// are the partitions the group assigns this process, read from the
	// group's committed offsets (else from the start startupMode gives:
	// latest for latest-offset, or for group-offsets with
	// 'properties.auto.offset.reset' = 'latest'; earliest otherwise).
	ScaleOut   bool
	InstanceID string
}

// source is the Kafka table source: one split per partition, read with
// direct assignment (no consumer-group membership: the checkpoint's offsets
// are the truth).
type source struct {
	cfg      sourceConfig
	settings clientSettings

	mu     sync.Mutex
	listed map[string]bool // split ids of the run (Splits)
	member *member         // the group membership (ScaleOut), from the first Splits on
	job    *scaleJob       // the scaled-out job's tables (ScaleOut, set by the factory)
}

// The connector capabilities source means to have (checked by the compiler).
var (
	_ connector.Source           = (*source)(nil)
	_ connector.DeadLetterSource = (*source)(nil)
)

// newSource validates cfg without contacting a broker.
func newSource(cfg sourceConfig) (*source, error) {
	s, err := parseProperties(cfg.Properties)
	if err != nil {
		return nil, err
	}
	switch {
	case len(cfg.Topics) == 0 && cfg.TopicPattern == nil:
		return nil, errors.New("kafka source: either 'topic' or 'topic-pattern' must be set")
	case len(cfg.Topics) > 0 && cfg.TopicPattern != nil:
		return nil, errors.New("kafka source: options 'topic' and 'topic-pattern' shouldn't be set together")
	case cfg.Decoder == nil && cfg.NewDecoder == nil && cfg.NewRowDecoder == nil:
		return nil, errors.New("kafka source: no decoder")
	case cfg.BadRecordPolicy > deadLetterBadRecords:
		return nil, fmt.Errorf("kafka source: unknown bad-record policy %v", cfg.BadRecordPolicy)
	case cfg.BadRecordPolicy == deadLetterBadRecords && cfg.DeadLetterTopic == "":
		return nil, errors.New("kafka source: 'scan.bad-record.policy' = 'dead-letter' needs 'scan.bad-record.dead-letter.topic'")
	case cfg.StartupMode == startSpecificOffsets && len(cfg.StartupSpecificOffsets) == 0:
		return nil, errors.New("kafka source: 'scan.startup.specific-offsets' is required in 'specific-offsets' startup mode but missing")
	case cfg.BoundedMode == boundedSpecificOffsets && len(cfg.BoundedSpecificOffsets) == 0:
		return nil, errors.New("kafka source: 'scan.bounded.specific-offsets' is required in 'specific-offsets' bounded mode but missing")
	case (cfg.StartupMode == startSpecificOffsets || cfg.BoundedMode == boundedSpecificOffsets) && len(cfg.Topics) != 1:
		return nil, errors.New("kafka source: specific offsets need a single topic")
	case (cfg.StartupMode == startGroupOffsets || cfg.BoundedMode == boundedGroupOffsets) && s.groupID == "":
		return nil, errors.New("kafka source: 'group-offsets' needs 'properties.group.id'")
	case cfg.ScaleOut && (s.groupID == "" || cfg.InstanceID == "" || cfg.TopicPattern != nil || cfg.BoundedMode != unbounded):
		return nil, errors.New("kafka source: a scaled-out source needs 'properties.group.id', an instance id and named topics, and must be unbounded")
	}
	for _, m := range cfg.Metadata {
		if m.Index < 0 || m.Index >= cfg.RowWidth {
			return nil, fmt.Errorf("kafka source: metadata %s at position %d outside a row of %d fields", m.Key, m.Index, cfg.RowWidth)
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &source{cfg: cfg, settings: s}, nil
}

// Bounded reports whether readers end (scan.bounded.mode is not
// unbounded).
func (s *source) Bounded() bool { return s.cfg.BoundedMode != unbounded }

func (s *source) newClient(extra ...kgo.Opt) (*kgo.Client, error) {
	opts := append([]kgo.Opt{kgo.SeedBrokers(s.settings.seeds...)}, s.settings.common...)
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka source: creating a client: %w", err)
	}
	return cl, nil
}

// Splits lists one split per partition of the topics, with IDs
// "<topic>:<partition>". The runtime calls it once per run; readers
// discover partitions that appear later (see Open).
func (s *source) Splits(ctx context.Context) ([]connector.Split, error) {
	if err := s.checkDeadLetterTopic(ctx); err != nil {
		return nil, err
	}
	if s.cfg.ScaleOut {
		return s.groupSplits(ctx)
	}
	out, err := s.list(ctx)
	if err != nil {
		return nil, err
	}
	listed := make(map[string]bool, len(out))
	for _, sp := range out {
		listed[sp.ID] = true
	}
	s.mu.Lock()
	s.listed = listed
	s.mu.Unlock()
	return out, nil
}

// listedSplits returns the split ids of the last Splits call (nil before
// one): the splits the runtime assigned in this run.
func (s *source) listedSplits() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listed
}

// list returns the current splits.
func (s *source) list(ctx context.Context) ([]connector.Split, error) {
	cl, err := s.newClient()
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ac := s.settings.auth
	ac.Operation = OpConsume
	if len(s.cfg.Topics) == 1 {
		ac.Topic = s.cfg.Topics[0]
	}
	// A bad password, certificate or missing ACL fails here at once, with
	// an explanation, instead of after the client's retries run out.
	if err := checkConnection(ctx, cl, ac); err != nil {
		return nil, fmt.Errorf("kafka source: %w", err)
	}
	md, err := s.listTopics(ctx, kadm.NewClient(cl), ac)
	if err != nil {
		return nil, err
	}
	topics := s.cfg.Topics
	if s.cfg.TopicPattern != nil {
		re := anchored(s.cfg.TopicPattern)
		for _, t := range md.Names() {
			if re.MatchString(t) {
				topics = append(topics, t)
			}
		}
		slices.Sort(topics)
	}
	var out []connector.Split
	for _, topic := range topics {
		td, ok := md[topic]
		if !ok || td.Err != nil {
			return nil, fmt.Errorf("kafka source: topic %q: %v", topic, td.Err)
		}
		for _, p := range td.Partitions.Numbers() {
			out = append(out, connector.Split{ID: splitID(topic, p)})
		}
	}
	return out, nil
}

// The values of 'scan.missing-topic'.
const (
	missingTopicFail = "fail"
	missingTopicWait = "wait"
)

// missingTopicWarnEvery is how often a source waiting for a topic
// ('scan.missing-topic' = 'wait') says so.
const missingTopicWarnEvery = time.Minute

// listTopics describes the source's topics. A topic of 'topic' that does
// not exist fails at once with connector.ErrUnrecoverable, naming it
// (restarting would meet the same absence, for ever), or, under
// 'scan.missing-topic' = 'wait', is waited for with a warning a minute.
func (s *source) listTopics(ctx context.Context, adm *kadm.Client, ac AuthContext) (kadm.TopicDetails, error) {
	var warned time.Time
	for {
		md, err := adm.ListTopics(ctx, s.cfg.Topics...)
		if err != nil {
			return nil, fmt.Errorf("kafka source: listing partitions: %w", describeAuthError(err, ac))
		}
		var missing []string
		for _, topic := range s.cfg.Topics {
			if td, ok := md[topic]; !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
				missing = append(missing, topic)
			}
		}
		if len(missing) == 0 {
			return md, nil
		}
		where := strings.Join(s.settings.seeds, ",")
		if !s.cfg.WaitForTopics {
			return nil, fmt.Errorf("%w: kafka source (table '%s'): topic '%s' does not exist on the cluster at %s: create it, "+
				"or correct 'topic'; with 'scan.missing-topic' = 'wait' the source waits for it instead",
				connector.ErrUnrecoverable, s.cfg.Table, strings.Join(missing, "', '"), where)
		}
		if now := time.Now(); now.Sub(warned) >= missingTopicWarnEvery {
			warned = now
			s.cfg.Logger.Warn(fmt.Sprintf("kafka source (table '%s'): waiting for topic '%s', which does not exist on the cluster at %s ('scan.missing-topic' = 'wait')",
				s.cfg.Table, strings.Join(missing, "', '"), where))
		}
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

func splitID(topic string, p int32) string { return topic + ":" + strconv.Itoa(int(p)) }

func parseSplitID(id string) (string, int32, error) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 {
		return "", 0, fmt.Errorf("kafka source: bad split id %q", id)
	}
	p, err := strconv.ParseInt(id[i+1:], 10, 32)
	if err != nil {
		return "", 0, fmt.Errorf("kafka source: bad split id %q", id)
	}
	return id[:i], int32(p), nil
}

// groupSplits joins the group at the first call (after checking the
// connection as list does) and returns the partitions it assigns this
// process.
func (s *source) groupSplits(ctx context.Context) ([]connector.Split, error) {
	s.mu.Lock()
	m := s.member
	s.mu.Unlock()
	if m == nil {
		if _, err := s.list(ctx); err != nil {
			return nil, err
		}
		var err error
		if m, err = s.join(); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.member = m
		s.mu.Unlock()
	}
	out, err := m.splits(ctx)
	if err != nil {
		return nil, fmt.Errorf("kafka source: waiting for consumer group %q to assign partitions: %w", s.settings.groupID, err)
	}
	if s.job != nil && len(out) > 0 {
		// The group may have given this instance partitions of one that
		// left: end what it left open before the readers fetch offsets.
		sctx, cancel := context.WithTimeout(ctx, survivorTimeout)
		s.job.survive(sctx, s.cfg.Logger)
		cancel()
	}
	listed := make(map[string]bool, len(out))
	for _, sp := range out {
		listed[sp.ID] = true
	}
	s.mu.Lock()
	s.listed = listed
	s.mu.Unlock()
	return out, nil
}

// groupMember returns the membership (nil when not scaled out or before
// the first Splits).
func (s *source) groupMember() *member {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.member
}

// scaledSource is a Kafka source of a scaled-out job
// (sourceConfig.ScaleOut): a connector.Reassigning whose splits are the
// partitions its consumer group assigns this process.
type scaledSource struct{ *source }

// The connector capabilities scaledSource means to have (checked by the compiler).
var (
	_ connector.Reassigning      = (*scaledSource)(nil)
	_ connector.DeadLetterSource = (*scaledSource)(nil)
)

// Reassigned returns a channel closed when the consumer group changes the
// partitions assigned to this process (connector.Reassigning).
func (s scaledSource) Reassigned() <-chan struct{} {
	if m := s.groupMember(); m != nil {
		return m.reassigned()
	}
	closed := make(chan struct{}) // no Splits call yet: splits are not known
	close(closed)
	return closed
}

// Released ends the run over the last assignment
// (connector.Reassigning): a revocation waiting for it goes on. With last
// set the source leaves the job: its membership client is closed.
func (s scaledSource) Released(last bool) {
	m := s.groupMember()
	if m == nil {
		return
	}
	if !last {
		m.released()
		return
	}
	s.mu.Lock()
	s.member = nil
	s.mu.Unlock()
	m.close()
}

// Assignment returns the split ids of the partitions the consumer group
// assigns this process now; nil when the source is not scaled out.
func (s *source) Assignment() []string {
	if m := s.groupMember(); m != nil {
		return m.ownedIDs()
	}
	return nil
}
