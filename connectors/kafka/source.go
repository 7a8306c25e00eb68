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
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// StartupMode is 'scan.startup.mode'.
type StartupMode uint8

// Startup modes.
const (
	// StartGroupOffsets starts at the offsets committed to
	// 'properties.group.id' (Flink's default); partitions without one
	// start as 'properties.auto.offset.reset' says, else fail.
	StartGroupOffsets StartupMode = iota
	// StartEarliest starts at each partition's log start.
	StartEarliest
	// StartLatest starts at each partition's end.
	StartLatest
	// StartTimestamp starts at the first record at or after
	// StartupTimestampMillis.
	StartTimestamp
	// StartSpecificOffsets starts at StartupSpecificOffsets; partitions
	// not listed start at the earliest offset.
	StartSpecificOffsets
)

// ParseStartupMode parses earliest-offset, latest-offset, group-offsets,
// timestamp or specific-offsets.
func ParseStartupMode(s string) (StartupMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "group-offsets":
		return StartGroupOffsets, nil
	case "earliest-offset":
		return StartEarliest, nil
	case "latest-offset":
		return StartLatest, nil
	case "timestamp":
		return StartTimestamp, nil
	case "specific-offsets":
		return StartSpecificOffsets, nil
	}
	return 0, fmt.Errorf("unknown scan.startup.mode %q: want earliest-offset, latest-offset, group-offsets, timestamp or specific-offsets", s)
}

var startupNames = []string{"group-offsets", "earliest-offset", "latest-offset", "timestamp", "specific-offsets"}

func (m StartupMode) String() string {
	if int(m) < len(startupNames) {
		return startupNames[m]
	}
	return "StartupMode(" + strconv.Itoa(int(m)) + ")"
}

// BoundedMode is 'scan.bounded.mode'.
type BoundedMode uint8

// Bounded modes.
const (
	// Unbounded reads forever.
	Unbounded BoundedMode = iota
	// BoundedLatest ends at each partition's end when the reader opens
	// (the last stable offset under read_committed).
	BoundedLatest
	// BoundedGroupOffsets ends at the group's committed offsets
	// (partitions without one end at their end when the reader opens).
	BoundedGroupOffsets
	// BoundedTimestamp ends before the first record at or after
	// BoundedTimestampMillis.
	BoundedTimestamp
	// BoundedSpecificOffsets ends at BoundedSpecificOffsets; partitions
	// not listed are not read.
	BoundedSpecificOffsets
)

// ParseBoundedMode parses unbounded, latest-offset, group-offsets,
// timestamp or specific-offsets.
func ParseBoundedMode(s string) (BoundedMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "unbounded":
		return Unbounded, nil
	case "latest-offset":
		return BoundedLatest, nil
	case "group-offsets":
		return BoundedGroupOffsets, nil
	case "timestamp":
		return BoundedTimestamp, nil
	case "specific-offsets":
		return BoundedSpecificOffsets, nil
	}
	return 0, fmt.Errorf("unknown scan.bounded.mode %q: want unbounded, latest-offset, group-offsets, timestamp or specific-offsets", s)
}

var boundedNames = []string{"unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets"}

func (m BoundedMode) String() string {
	if int(m) < len(boundedNames) {
		return boundedNames[m]
	}
	return "BoundedMode(" + strconv.Itoa(int(m)) + ")"
}

// ParseSpecificOffsets parses Flink's 'partition:0,offset:42;partition:1,offset:300'.
func ParseSpecificOffsets(s string) (map[int32]int64, error) {
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

// MetadataKey names a readable metadata column of the Kafka source.
type MetadataKey uint8

// Metadata keys, as Flink's.
const (
	MetaTopic         MetadataKey = iota // topic STRING NOT NULL
	MetaPartition                        // partition INT NOT NULL
	MetaOffset                           // offset BIGINT NOT NULL
	MetaTimestamp                        // timestamp TIMESTAMP_LTZ(3) NOT NULL
	MetaTimestampType                    // timestamp-type STRING NOT NULL
	MetaHeaders                          // headers MAP<STRING, BYTES> NOT NULL
	MetaLeaderEpoch                      // leader-epoch INT NULL
)

var metadataNames = []string{"topic", "partition", "offset", "timestamp", "timestamp-type", "headers", "leader-epoch"}

// ParseMetadataKey parses a metadata key of 'METADATA FROM'.
func ParseMetadataKey(s string) (MetadataKey, error) {
	for i, n := range metadataNames {
		if n == s {
			return MetadataKey(i), nil
		}
	}
	return 0, fmt.Errorf("unknown Kafka metadata key %q: want one of %s", s, strings.Join(metadataNames, ", "))
}

func (k MetadataKey) String() string {
	if int(k) < len(metadataNames) {
		return metadataNames[k]
	}
	return "MetadataKey(" + strconv.Itoa(int(k)) + ")"
}

// MetadataType is the logical type of a metadata column.
func (k MetadataKey) MetadataType() types.Type {
	switch k {
	case MetaTopic, MetaTimestampType:
		return types.String().NotNullable()
	case MetaPartition:
		return types.Int().NotNullable()
	case MetaOffset:
		return types.BigInt().NotNullable()
	case MetaTimestamp:
		return types.TimestampLTZ(3).NotNullable()
	case MetaHeaders:
		return types.Map(types.String(), types.Bytes()).NotNullable()
	default:
		return types.Int()
	}
}

// MetadataColumn places metadata Key at row position Index.
type MetadataColumn struct {
	Key   MetadataKey
	Index int
}

// Decoder fills the physical fields of row from a record's key and value
// (either may be nil). Metadata positions are filled by the reader. It is
// called from one goroutine; row.Fields is zeroed (all NULL) on entry.
type Decoder func(key, value []byte, row *types.Row) error

// RowDecoder is a decoder whose records may hold more than one row (a
// Debezium UPDATE is an UPDATE_BEFORE and an UPDATE_AFTER row): Decode
// fills the first row as a Decoder does, Next the following ones of the
// same record, reporting false when there are no more.
type RowDecoder interface {
	Decode(key, value []byte, row *types.Row) error
	Next(row *types.Row) bool
}

// SourceConfig is a validated Kafka source. Field names follow Flink's
// options.
type SourceConfig struct {
	// Topics is 'topic' (a list); TopicPattern is 'topic-pattern'
	// (matched against whole topic names, resolved when the splits are
	// listed). One of them is required.
	Topics       []string
	TopicPattern *regexp.Regexp
	// Properties are the 'properties.*' options without the prefix.
	Properties map[string]string
	// StartupMode and its parameters.
	StartupMode            StartupMode
	StartupSpecificOffsets map[int32]int64
	StartupTimestampMillis int64
	// BoundedMode and its parameters.
	BoundedMode            BoundedMode
	BoundedSpecificOffsets map[int32]int64
	BoundedTimestampMillis int64
	// DiscoveryInterval is 'scan.topic-partition-discovery.interval':
	// how often unbounded readers look for new partitions; zero: never.
	DiscoveryInterval time.Duration
	// RowWidth is the number of fields of each row.
	RowWidth int
	// Metadata are the metadata columns to fill.
	Metadata []MetadataColumn
	// Decoder decodes key and value; one of Decoder and NewDecoder is
	// required.
	Decoder Decoder
	// NewDecoder, when set, creates the decoder of each reader (the
	// formats' decoders are not safe for concurrent use). A decoder error
	// wrapping factory.ErrSkipRecord drops the record (Reader.Skipped
	// counts them); any other fails the read, wrapped with the record's
	// topic, partition and offset.
	NewDecoder func() (Decoder, error)
	// NewRowDecoder, when set, creates each reader's decoder as a
	// RowDecoder, whose records may hold several rows (change-event value
	// formats such as debezium-json); it takes the place of NewDecoder.
	NewRowDecoder func() (RowDecoder, error)
	// Logger receives warnings; nil means slog.Default().
	Logger *slog.Logger
	// ScaleOut makes the source a member of 'properties.group.id' under
	// the static instance id InstanceID (pipeline.scale-out): its splits
	// are the partitions the group assigns this process, read from the
	// group's committed offsets (else from the start StartupMode gives:
	// latest for latest-offset, or for group-offsets with
	// 'properties.auto.offset.reset' = 'latest'; earliest otherwise).
	ScaleOut   bool
	InstanceID string
}

// Source is the Kafka table source: one split per partition, read with
// direct assignment (no consumer-group membership: the checkpoint's offsets
// are the truth).
type Source struct {
	cfg      SourceConfig
	settings clientSettings

	mu     sync.Mutex
	listed map[string]bool // split ids of the run (Splits)
	member *member         // the group membership (ScaleOut), from the first Splits on
}

// NewSource validates cfg without contacting a broker.
func NewSource(cfg SourceConfig) (*Source, error) {
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
	case cfg.StartupMode == StartSpecificOffsets && len(cfg.StartupSpecificOffsets) == 0:
		return nil, errors.New("kafka source: 'scan.startup.specific-offsets' is required in 'specific-offsets' startup mode but missing")
	case cfg.BoundedMode == BoundedSpecificOffsets && len(cfg.BoundedSpecificOffsets) == 0:
		return nil, errors.New("kafka source: 'scan.bounded.specific-offsets' is required in 'specific-offsets' bounded mode but missing")
	case (cfg.StartupMode == StartSpecificOffsets || cfg.BoundedMode == BoundedSpecificOffsets) && len(cfg.Topics) != 1:
		return nil, errors.New("kafka source: specific offsets need a single topic")
	case (cfg.StartupMode == StartGroupOffsets || cfg.BoundedMode == BoundedGroupOffsets) && s.groupID == "":
		return nil, errors.New("kafka source: 'group-offsets' needs 'properties.group.id'")
	case cfg.ScaleOut && (s.groupID == "" || cfg.InstanceID == "" || cfg.TopicPattern != nil || cfg.BoundedMode != Unbounded):
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
	return &Source{cfg: cfg, settings: s}, nil
}

// Bounded reports whether readers end (scan.bounded.mode is not
// unbounded).
func (s *Source) Bounded() bool { return s.cfg.BoundedMode != Unbounded }

func (s *Source) newClient(extra ...kgo.Opt) (*kgo.Client, error) {
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
func (s *Source) Splits(ctx context.Context) ([]connector.Split, error) {
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
func (s *Source) listedSplits() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listed
}

// list returns the current splits.
func (s *Source) list(ctx context.Context) ([]connector.Split, error) {
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
	if err := CheckConnection(ctx, cl, ac); err != nil {
		return nil, fmt.Errorf("kafka source: %w", err)
	}
	md, err := kadm.NewClient(cl).ListTopics(ctx, s.cfg.Topics...)
	if err != nil {
		return nil, fmt.Errorf("kafka source: listing partitions: %w", DescribeAuthError(err, ac))
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
func (s *Source) groupSplits(ctx context.Context) ([]connector.Split, error) {
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
func (s *Source) groupMember() *member {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.member
}

// ScaledSource is a Kafka source of a scaled-out job
// (SourceConfig.ScaleOut): a connector.Reassigning whose splits are the
// partitions its consumer group assigns this process.
type ScaledSource struct{ *Source }

// Reassigned returns a channel closed when the consumer group changes the
// partitions assigned to this process (connector.Reassigning).
func (s ScaledSource) Reassigned() <-chan struct{} {
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
func (s ScaledSource) Released(last bool) {
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
func (s *Source) Assignment() []string {
	if m := s.groupMember(); m != nil {
		return m.ownedIDs()
	}
	return nil
}
