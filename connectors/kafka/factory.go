package kafka

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/internal/badrecord"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
)

// The connector identifiers.
const (
	// Identifier is the value of 'connector' for the Kafka connector.
	Identifier = "kafka"
	// UpsertIdentifier is the value of 'connector' for upsert-kafka.
	UpsertIdentifier = "upsert-kafka"
)

// The options of both connectors, with Flink's names and defaults. They
// are declared once and shared by the two declarations.
var (
	optTopic = option.List("topic").
			Description("Topic names, separated by ';'. A source reads them all; a sink writes to the topic, or, when several are listed, to the topic named by the writable 'topic' metadata column, which must be one of them.")
	optTopicPattern = option.String("topic-pattern").
			Description("Regular expression matched against whole topic names: a source reads every matching topic; a sink writes to the topic named by the 'topic' metadata column, which must match. Exactly one of 'topic' and 'topic-pattern' is set.")
	optServers = option.String("properties.bootstrap.servers").Required().
			Description("Comma-separated host:port list of Kafka brokers.")
	optGroupID = option.String("properties.group.id").
			Description("Consumer group of the source: the 'group-offsets' modes read its committed offsets, and checkpointed offsets are committed to it for lag tools. When absent and a group-offsets mode is used, 'KafkaSource-<table>' is used as in Flink.")
	optTxnTimeout = option.Long("properties.transaction.timeout.ms").
			Description("Transaction timeout of the exactly-once sink in milliseconds. Default: the brokers' transaction.max.timeout.ms, read at start (a deviation from Flink's one hour). It must exceed the checkpoint interval plus the min pause (else an error: transactions would expire in normal operation), and should exceed that plus the checkpoint timeout (else a warning: a slow checkpoint makes the job fail over).")
	optProperties = option.Prefix("properties.").
			Description("Kafka client properties with the Java client's names (properties.linger.ms, properties.isolation.level, ...), mapped onto franz-go; a property without an equivalent is an error. A sink's records fail when they waited properties.delivery.timeout.ms (default 120000, as the Java client; franz-go has none) with no acknowledgement arriving, so a broker outage fails the job over instead of blocking it. Sources fetch at most 256 KiB per partition and 512 KiB per request unless properties.max.partition.fetch.bytes / properties.fetch.max.bytes say otherwise (the Java client's 1 MiB / 50 MiB would hold many times more: franz-go keeps a fetch decompressed; raise properties.fetch.max.bytes for brokers many milliseconds away, as a reader fetches about once per round trip).")
	optValueFormat = factory.FormatOption("value.format").FallbackKeys("format").Required().
			Description("Format of the record value ('format' is a synonym). Its options are prefixed with the format name: json.* after 'format', value.json.* after 'value.format'.")
	optUpsertValueFormat = factory.FormatOption("value.format").Required().
				Description("Format of the record value; its options are value.<format>.*.")
	optKeyFormat = factory.FormatOption("key.format").
			Description("Format of the record key; its options are key.<format>.*. Requires 'key.fields'.")
	optUpsertKeyFormat = factory.FormatOption("key.format").Required().
				Description("Format of the record key, which holds the PRIMARY KEY columns; its options are key.<format>.*.")
	optKeyFields = option.List("key.fields").Default([]string{}).
			Description("Physical columns that form the record key, separated by ';', in key order. Requires 'key.format'.")
	optKeyFieldsPrefix = option.String("key.fields-prefix").
				Description("Prefix of the key columns' names in the table, stripped to give the names the key format sees (avoids clashes with value columns). Requires 'value.fields-include' = 'EXCEPT_KEY'.")
	optValueFieldsInclude = option.Enum("value.fields-include", "ALL", "EXCEPT_KEY").Default("ALL").
				Description("Whether the value holds every physical column (ALL) or every column except the key columns (EXCEPT_KEY).")
	optStartupMode = option.Enum("scan.startup.mode", startupNames...).
			Default("group-offsets").
			Description("Where the source starts when there is no checkpoint: the earliest or latest offset, the group's committed offsets (falling back to 'properties.auto.offset.reset'), the first record at a timestamp, or given offsets. Partitions a restored checkpoint (or, in 'group-offsets' mode, a group with offsets for the topic's other partitions) does not know start at the earliest offset.")
	optStartupSpecificOffsets = option.String("scan.startup.specific-offsets").
					Description("Start offsets in 'specific-offsets' mode: 'partition:0,offset:42;partition:1,offset:300' (a single topic). Unlisted partitions start at the earliest offset.")
	optStartupTimestamp = option.Long("scan.startup.timestamp-millis").
				Description("Start timestamp (milliseconds since the epoch) in 'timestamp' startup mode.")
	optBoundedMode = option.Enum("scan.bounded.mode", boundedNames...).
			Default("unbounded").
			Description("Where a bounded source ends: never (unbounded), at the latest offsets when it starts (the last stable offsets under read_committed), at the group's committed offsets, before a timestamp, or at given offsets.")
	optBoundedSpecificOffsets = option.String("scan.bounded.specific-offsets").
					Description("End offsets (exclusive) in 'specific-offsets' bounded mode, same syntax as 'scan.startup.specific-offsets'; unlisted partitions are not read.")
	optBoundedTimestamp = option.Long("scan.bounded.timestamp-millis").
				Description("End timestamp (milliseconds since the epoch) in 'timestamp' bounded mode.")
	optMissingTopic = option.Enum("scan.missing-topic", missingTopicFail, missingTopicWait).Default(missingTopicFail).
			Description("What a source does when a topic of 'topic' does not exist when the job starts: fail the job at once, naming the topic (a restart could not create it); or wait for it, warning once a minute and reading it from its start once it exists.")
	optDiscovery = option.Duration("scan.topic-partition-discovery.interval").Default(5 * time.Minute).
			Description("How often an unbounded source looks for new partitions (and new topics matching 'topic-pattern'), which start at their earliest offset; 0 disables it.")
	optBadRecordPolicy = badrecord.Option("What the source does with a record its formats cannot decode, and with a record whose row the job rejects for a NULL in a NOT NULL sink column (a row that goes to the sink straight from its record; a row out of an aggregation, join, window or deduplication is no single record's, and 'table.exec.sink.not-null-enforcer' decides): fail the job, naming topic, partition, offset and the format's reason (the default, as Flink); skip it, counted in streamsql_task_bad_records_skipped_total and logged with topic, partition and offset at most once per 10 s; or dead-letter it: write its key, value, headers and timestamp unchanged to 'scan.bad-record.dead-letter.topic', with streamsql.dead-letter.* headers saying where it came from and why. Dead letters are committed by the checkpoint that reads past their record: when the job's sink is an exactly-once Kafka sink on the same cluster, inside the sink's own transactions, atomically with that checkpoint's output and source offsets (with or without 'execution.checkpointing.dir', scale-out included); with another exactly-once sink, in Kafka transactions of their own committed and recovered with that checkpoint, which needs 'execution.checkpointing.dir' (either way each dead letter once in the topic, for read_committed consumers); else flushed at each checkpoint (at least once). A format's 'ignore-parse-errors' = 'true' is Flink's skip: it goes with 'skip' (or no policy), not with 'fail' or 'dead-letter'.",
		badrecord.Fail, badrecord.Skip, badrecord.DeadLetter)
	optDeadLetterTopic = option.String("scan.bad-record.dead-letter.topic").
				Description("Topic the dead letters of 'scan.bad-record.policy' = 'dead-letter' are written to, on the source's cluster with the source's 'properties.*' (security included); the topic must exist (checked when the job starts). Required with that policy, refused without it.")
	optScanParallelism = option.ScanParallelism.
				Description("Parallelism of the source; default: the job's.")
	optPartitioner = option.Enum("sink.partitioner", "default", "fixed", "round-robin").Default("default").
			Description("How records are spread over partitions: default (murmur2 hash of the key as the Java producer; records without a key stick to a partition), fixed (sink task i writes partition i mod n) or round-robin. Partitioner classes are not supported.")
	optSinkParallelism = option.SinkParallelism.
				Description("Parallelism of the sink; default: the upstream operator's.")
	optDelivery = option.Enum("sink.delivery-guarantee", "at-least-once", "exactly-once", "none").Default("at-least-once").
			DeprecatedKey("sink.semantic", map[string]string{"at_least_once": "at-least-once", "exactly_once": "exactly-once"}).
			Description("none: fire and forget; at-least-once: flush on every checkpoint; exactly-once: Kafka transactions committed when the checkpoint completes (consumers must read with isolation.level read_committed). 'sink.semantic' is its deprecated alias.")
	optTxnPrefix = option.String("sink.transactional-id-prefix").
			Description("Prefix of the exactly-once sink's transactional ids, unique among all jobs writing to the cluster. When absent a prefix is derived from the job name and the table (a deviation from Flink, which requires it), shown in EXPLAIN with a warning.")
	optNaming = option.Enum("sink.transaction-naming-strategy", "POOLING", "INCREMENTING").Default("POOLING").
			Description("POOLING reuses a bounded pool of transactional ids per sink task, each once its previous commit is durably acknowledged (the default here, a deviation from Flink's INCREMENTING); INCREMENTING takes a new id for every transaction.")
	optBufferRows = option.Int("sink.buffer-flush.max-rows").Default(0).
			Description("Rows the upsert sink buffers, keeping the latest per key, before writing; 0 disables buffering. Set together with 'sink.buffer-flush.interval'.")
	optBufferInterval = option.Duration("sink.buffer-flush.interval").Default(0).
				Description("Interval after which the upsert sink writes its buffer; 0 disables buffering. Set together with 'sink.buffer-flush.max-rows'.")
)

// Rules shared by both connectors.
var (
	ruleTopic   = option.OneOf("a Kafka table reads or writes the topics 'topic' lists, or those 'topic-pattern' matches: exactly one of them", optTopic, optTopicPattern)
	rulePattern = option.Check("'topic-pattern' must be a valid regular expression", func(c *option.Config) error {
		if p, ok := optTopicPattern.Lookup(c); ok {
			_, err := regexp.Compile(p)
			return err
		}
		return nil
	}, optTopicPattern)
	ruleProperties = option.Check("every 'properties.*' key must be a Java client property that streamsql maps onto franz-go", func(c *option.Config) error {
		_, err := parseProperties(optProperties.Get(c))
		return err
	}, optProperties)
	ruleKeyPrefix = option.Check("a key prefix is not allowed when 'value.fields-include' is 'ALL': set it to 'EXCEPT_KEY' to avoid field overlaps", func(c *option.Config) error {
		if p, _ := optKeyFieldsPrefix.Lookup(c); p != "" && optValueFieldsInclude.Get(c) != "EXCEPT_KEY" {
			return errors.New("'key.fields-prefix' needs 'value.fields-include' = 'EXCEPT_KEY'")
		}
		return nil
	}, optKeyFieldsPrefix, optValueFieldsInclude)
	ruleBoundedSpecific = option.RequiredWhen(optBoundedSpecificOffsets, optBoundedMode, []string{"specific-offsets"},
		"'scan.bounded.specific-offsets' is required in 'specific-offsets' bounded mode but missing")
	ruleBoundedTimestamp = option.RequiredWhen(optBoundedTimestamp, optBoundedMode, []string{"timestamp"},
		"'scan.bounded.timestamp-millis' is required in 'timestamp' bounded mode but missing")
	ruleBoundedOffsets = option.Check("invalid 'scan.bounded.specific-offsets'", func(c *option.Config) error {
		return checkSpecificOffsets(c, optBoundedSpecificOffsets)
	}, optBoundedSpecificOffsets, optTopic, optTopicPattern)
)

// Rules of the bad-record policy, shared by both connectors.
var (
	ruleDeadLetterTopic = option.RequiredWhen(optDeadLetterTopic, optBadRecordPolicy, []string{"dead-letter"},
		"'scan.bad-record.dead-letter.topic' is required when 'scan.bad-record.policy' is 'dead-letter': it names the topic the dead letters go to")
	ruleDeadLetterOnly = option.Check("'scan.bad-record.dead-letter.topic' is only used by 'scan.bad-record.policy' = 'dead-letter'", func(c *option.Config) error {
		if c.Has(optDeadLetterTopic) && optBadRecordPolicy.Get(c) != "dead-letter" {
			return fmt.Errorf("'scan.bad-record.policy' is '%s': set it to 'dead-letter', or remove 'scan.bad-record.dead-letter.topic'", optBadRecordPolicy.Get(c))
		}
		return nil
	}, optDeadLetterTopic, optBadRecordPolicy)
	ruleIgnoreParseErrors = badrecord.IgnoreParseErrorsRule(optBadRecordPolicy, func(c *option.Config) []*factory.Format {
		return []*factory.Format{optKeyFormat.Get(c), optValueFormat.Get(c), optUpsertKeyFormat.Get(c), optUpsertValueFormat.Get(c)}
	}, optDeadLetterTopic)
)

// Rules of the kafka connector only.
var (
	ruleStartupSpecific = option.RequiredWhen(optStartupSpecificOffsets, optStartupMode, []string{"specific-offsets"},
		"'scan.startup.specific-offsets' is required in 'specific-offsets' startup mode but missing")
	ruleStartupTimestamp = option.RequiredWhen(optStartupTimestamp, optStartupMode, []string{"timestamp"},
		"'scan.startup.timestamp-millis' is required in 'timestamp' startup mode but missing")
	ruleStartupOffsets = option.Check("invalid 'scan.startup.specific-offsets'", func(c *option.Config) error {
		return checkSpecificOffsets(c, optStartupSpecificOffsets)
	}, optStartupSpecificOffsets, optTopic, optTopicPattern)
	// ruleScanParallelism and ruleSinkParallelism reject a parallelism
	// below 1, as the other connectors do.
	ruleScanParallelism = option.AtLeastOne(optScanParallelism, nil)
	ruleSinkParallelism = option.AtLeastOne(optSinkParallelism, nil)
	ruleRoundRobin      = option.Check("currently the 'round-robin' partitioner only works when option 'key.fields' is not specified", func(c *option.Config) error {
		if optPartitioner.Get(c) == "round-robin" && len(optKeyFields.Get(c)) > 0 {
			return errors.New("'sink.partitioner' = 'round-robin' with 'key.fields'")
		}
		return nil
	}, optPartitioner, optKeyFields)
	ruleKeyFormat = option.Check("'key.format' and 'key.fields' go together", func(c *option.Config) error {
		hasFormat, hasFields := c.Has(optKeyFormat), len(optKeyFields.Get(c)) > 0
		switch {
		case hasFormat && !hasFields:
			return errors.New("a key format 'key.format' requires the declaration of one or more key fields using 'key.fields'")
		case hasFields && !hasFormat:
			return errors.New("the option 'key.fields' can only be declared if a key format is defined using 'key.format'")
		}
		return nil
	}, optKeyFormat, optKeyFields)
)

// ruleBuffer is upsert-kafka's buffer rule.
var ruleBuffer = option.Check("'sink.buffer-flush.max-rows' and 'sink.buffer-flush.interval' must be set to be greater than zero together to enable sink buffer flushing",
	func(c *option.Config) error {
		rows, interval := optBufferRows.Get(c), optBufferInterval.Get(c)
		if rows < 0 || interval < 0 || (rows > 0) != (interval > 0) {
			return fmt.Errorf("'sink.buffer-flush.max-rows' = %d, 'sink.buffer-flush.interval' = %s", rows, option.FormatDuration(interval))
		}
		return nil
	}, optBufferRows, optBufferInterval)

// checkSpecificOffsets parses a specific-offsets option when it is set and
// checks that the table reads a single topic.
func checkSpecificOffsets(c *option.Config, o option.Opt[string]) error {
	v, ok := o.Lookup(c)
	if !ok {
		return nil
	}
	if _, err := parseSpecificOffsets(v); err != nil {
		return fmt.Errorf("'%s' should follow the format 'partition:0,offset:42;partition:1,offset:300', but is '%s'", o.Key(), v)
	}
	if c.Has(optTopicPattern) || len(optTopic.Get(c)) != 1 {
		return errors.New("currently Kafka source only supports specific offset for single topic")
	}
	return nil
}

// Factory returns the declaration of the 'kafka' connector, registered in
// factory.Default by this package's init.
func Factory() factory.ConnectorFactory {
	return factory.ConnectorFactory{
		Identifier: Identifier,
		Description: "Reads from and writes to Apache Kafka topics, with the delivery guarantees none, at-least-once and exactly-once " +
			"(transactions committed when a checkpoint completes).",
		Options: []option.Option{optTopic, optTopicPattern, optServers, optGroupID, optTxnTimeout, optProperties,
			optValueFormat, optKeyFormat, optKeyFields, optKeyFieldsPrefix, optValueFieldsInclude,
			optStartupMode, optStartupSpecificOffsets, optStartupTimestamp,
			optBoundedMode, optBoundedSpecificOffsets, optBoundedTimestamp, optDiscovery, optMissingTopic, optScanParallelism,
			optBadRecordPolicy, optDeadLetterTopic, optSinkBadRecordPolicy, optSinkDeadLetterTopic,
			optPartitioner, optSinkParallelism, optDelivery, optTxnPrefix, optNaming},
		Rules: []option.Rule{ruleTopic, rulePattern, ruleProperties, ruleKeyFormat, ruleKeyPrefix, ruleRoundRobin,
			ruleStartupSpecific, ruleStartupTimestamp, ruleStartupOffsets,
			ruleBoundedSpecific, ruleBoundedTimestamp, ruleBoundedOffsets, ruleScanParallelism, ruleSinkParallelism,
			ruleDeadLetterTopic, ruleDeadLetterOnly, ruleIgnoreParseErrors, ruleSinkDeadLetterTopic, ruleSinkDeadLetterOnly},
		ReadableMetadata:    readableMetadata(),
		ValueFormatMetadata: true,
		WritableMetadata:    writableMetadata(),
		Describe:            describe(false),
		NewSource:           func(ctx factory.Context) (connector.Source, error) { return newTableSource(ctx, false) },
		NewSink:             func(ctx factory.Context) (connector.Sink, error) { return newTableSink(ctx, false) },
	}
}

// UpsertFactory returns the declaration of the 'upsert-kafka' connector,
// registered in factory.Default by this package's init.
func UpsertFactory() factory.ConnectorFactory {
	return factory.ConnectorFactory{
		Identifier: UpsertIdentifier,
		Description: "Reads a Kafka topic as a changelog keyed by the PRIMARY KEY (a value is an upsert, a tombstone a delete) and " +
			"writes a changelog as upserts and tombstones.",
		Options: []option.Option{optTopic, optTopicPattern, optServers, optGroupID, optTxnTimeout, optProperties,
			optUpsertValueFormat, optUpsertKeyFormat, optKeyFieldsPrefix, optValueFieldsInclude,
			optBoundedMode, optBoundedSpecificOffsets, optBoundedTimestamp, optDiscovery, optMissingTopic, optScanParallelism,
			optBadRecordPolicy, optDeadLetterTopic, optSinkBadRecordPolicy, optSinkDeadLetterTopic,
			optSinkParallelism, optDelivery, optTxnPrefix, optNaming, optBufferRows, optBufferInterval},
		Rules: []option.Rule{ruleTopic, rulePattern, ruleProperties, ruleKeyPrefix,
			ruleBoundedSpecific, ruleBoundedTimestamp, ruleBoundedOffsets, ruleBuffer, ruleScanParallelism, ruleSinkParallelism,
			ruleDeadLetterTopic, ruleDeadLetterOnly, ruleIgnoreParseErrors, ruleSinkDeadLetterTopic, ruleSinkDeadLetterOnly},
		ReadableMetadata:    readableMetadata(),
		ValueFormatMetadata: true,
		WritableMetadata:    writableMetadata(),
		SourceChangelog:     factory.Upsert,
		SinkChangelog:       factory.Upsert,
		RequiresPrimaryKey:  true,
		Describe:            describe(true),
		NewSource:           func(ctx factory.Context) (connector.Source, error) { return newTableSource(ctx, true) },
		NewSink:             func(ctx factory.Context) (connector.Sink, error) { return newTableSink(ctx, true) },
	}
}

func init() {
	factory.MustRegisterConnector(Factory())
	factory.MustRegisterConnector(UpsertFactory())
}

// withTopic returns a copy of f that knows the table's topic when there is
// exactly one (avro-confluent's default subject is <topic>-key or
// <topic>-value, as in Flink).
func withTopic(f *factory.Format, c *option.Config) *factory.Format {
	if f == nil || c.Has(optTopicPattern) || len(optTopic.Get(c)) != 1 {
		return f
	}
	g := *f
	g.Topic = optTopic.Get(c)[0]
	return &g
}

// errNoTopicColumn is a sink without one topic that cannot tell where each
// row goes.
var errNoTopicColumn = errors.New("a sink with 'topic-pattern' or several topics needs a writable 'topic' metadata column naming each row's topic")

// tableLayout checks the schema against the options and returns the
// row ↔ record mapping.
func tableLayout(ctx factory.Context, upsert bool) (*layout, error) {
	c := ctx.Options
	spec := layoutSpec{
		valueFormat: withTopic(optValueFormat.Get(c), c),
		keyFormat:   withTopic(optKeyFormat.Get(c), c),
		keyFields:   optKeyFields.Get(c),
		keyPrefix:   optKeyFieldsPrefix.Get(c),
		exceptKey:   optValueFieldsInclude.Get(c) == "EXCEPT_KEY",
		upsert:      upsert,
	}
	if upsert {
		if len(ctx.Schema.PrimaryKey) == 0 {
			return nil, errors.New("'upsert-kafka' tables require to define a PRIMARY KEY constraint: " +
				"the PRIMARY KEY specifies which columns are read from or written to the Kafka message key")
		}
		spec.keyFields = ctx.Schema.PrimaryKey
	} else if len(ctx.Schema.PrimaryKey) > 0 && (spec.valueFormat == nil || spec.valueFormat.Factory.Changelog == factory.InsertOnly) {
		// A changelog format (debezium-json, ...) carries the rows' updates
		// and deletes; its PRIMARY KEY says which rows they are (a
		// versioned table of a temporal join needs one). Flink refuses the
		// key only with an insert-only format.
		return nil, fmt.Errorf("the Kafka table '%s' with '%s' format doesn't support defining PRIMARY KEY constraint on the table, "+
			"because it can't guarantee the semantic of primary key: use the 'upsert-kafka' connector", ctx.Table, spec.valueFormat.Identifier())
	}
	return newLayout(ctx, spec)
}

// newTableSource creates the source of a validated kafka or upsert-kafka
// table.
func newTableSource(ctx factory.Context, upsert bool) (connector.Source, error) {
	l, err := tableLayout(ctx, upsert)
	if err != nil {
		return nil, err
	}
	c := ctx.Options
	cfg := sourceConfig{
		Topics:            optTopic.Get(c),
		Properties:        maps.Clone(optProperties.Get(c)),
		DiscoveryInterval: optDiscovery.Get(c),
		WaitForTopics:     optMissingTopic.Get(c) == missingTopicWait,
		RowWidth:          l.srcWidth,
		Metadata:          l.srcMeta,
		ScaleOut:          ctx.Job.ScaleOut,
		InstanceID:        ctx.Job.InstanceID,
		Table:             ctx.Table,
		ObjectName:        ctx.ObjectName,
		Logger:            ctx.Logger,
	}
	if cfg.BadRecordPolicy, err = parseBadRecordPolicy(optBadRecordPolicy.Get(c)); err != nil {
		return nil, err
	}
	cfg.DeadLetterTopic = optDeadLetterTopic.Get(c)
	if l.multiRow() {
		cfg.NewRowDecoder = func() (multiRowDecoder, error) { return l.newRowDecoder() }
	} else {
		cfg.NewDecoder = l.newDecoder
		cfg.newValueDecoder = l.newValueDecoder
	}
	if p, ok := optTopicPattern.Lookup(c); ok {
		if cfg.TopicPattern, err = regexp.Compile(p); err != nil {
			return nil, fmt.Errorf("option 'topic-pattern': %w", err)
		}
	}
	if upsert {
		cfg.StartupMode = startEarliest // upsert-kafka always reads the whole changelog
	} else if cfg.StartupMode, err = parseMode[startupMode](startupNames, "scan.startup.mode", optStartupMode.Get(c)); err != nil {
		return nil, err
	}
	if cfg.BoundedMode, err = parseMode[boundedMode](boundedNames, "scan.bounded.mode", optBoundedMode.Get(c)); err != nil {
		return nil, err
	}
	if v, ok := optStartupSpecificOffsets.Lookup(c); ok && !upsert {
		if cfg.StartupSpecificOffsets, err = parseSpecificOffsets(v); err != nil {
			return nil, err
		}
	}
	if v, ok := optBoundedSpecificOffsets.Lookup(c); ok {
		if cfg.BoundedSpecificOffsets, err = parseSpecificOffsets(v); err != nil {
			return nil, err
		}
	}
	cfg.StartupTimestampMillis = optStartupTimestamp.Get(c)
	cfg.BoundedTimestampMillis = optBoundedTimestamp.Get(c)
	if (cfg.StartupMode == startGroupOffsets || cfg.BoundedMode == boundedGroupOffsets) && cfg.Properties["group.id"] == "" {
		cfg.Properties["group.id"] = "KafkaSource-" + ctx.Table
	}
	s, err := newSource(cfg)
	if err != nil || !cfg.ScaleOut {
		return s, err
	}
	if j := scaleJobOf(ctx.Job.Shared); j != nil {
		j.addSource(s)
	}
	return scaledSource{s}, nil
}

// newTableSink creates the sink of a validated kafka or upsert-kafka
// table.
func newTableSink(ctx factory.Context, upsert bool) (connector.Sink, error) {
	l, err := tableLayout(ctx, upsert)
	if err != nil {
		return nil, err
	}
	c := ctx.Options
	base := "" // the prefix of every instance of a scaled-out job
	cfg := sinkConfig{
		Properties:                  optProperties.Get(c),
		Metadata:                    l.sinkMeta,
		NewEncoder:                  l.newEncoder,
		TransactionalIDPrefix:       optTxnPrefix.Get(c),
		DeriveTransactionalIDPrefix: true,
		Table:                       ctx.ObjectName,
		BadRecordPolicy:             optSinkBadRecordPolicy.Get(c),
		Logger:                      ctx.Logger,
		DeadLetterTopic:             optSinkDeadLetterTopic.Get(c),
	}
	if cfg.Table == "" {
		cfg.Table = ctx.Table
	}
	if ctx.Job.ScaleOut && ctx.Job.InstanceID != "" {
		// Each instance has its own transactional ids, stable across its
		// restarts, so that instances never fence each other.
		if cfg.TransactionalIDPrefix == "" && ctx.Job.Name != "" {
			cfg.TransactionalIDPrefix = defaultTransactionalIDPrefix(ctx.Job.Name, cfg.Table)
		}
		base = cfg.TransactionalIDPrefix
		if cfg.TransactionalIDPrefix != "" {
			cfg.TransactionalIDPrefix += "-" + ctx.Job.InstanceID
		}
	}
	topics := optTopic.Get(c)
	if len(topics) == 1 {
		cfg.Topic = topics[0]
	} else {
		cfg.AllowedTopics = topics
	}
	if p, ok := optTopicPattern.Lookup(c); ok {
		if cfg.TopicPattern, err = regexp.Compile(p); err != nil {
			return nil, fmt.Errorf("option 'topic-pattern': %w", err)
		}
	}
	if cfg.Topic == "" && !hasMeta(l.sinkMeta, metaTopic) {
		return nil, errNoTopicColumn
	}
	if cfg.DeliveryGuarantee, err = parseDeliveryGuarantee(optDelivery.Get(c)); err != nil {
		return nil, err
	}
	if cfg.TransactionNamingStrategy, err = parseNamingStrategy(optNaming.Get(c)); err != nil {
		return nil, err
	}
	if !upsert {
		if cfg.Partitioner, err = parsePartitioner(optPartitioner.Get(c)); err != nil {
			return nil, err
		}
	} else if rows, interval := optBufferRows.Get(c), optBufferInterval.Get(c); rows > 0 && interval > 0 {
		cfg.BufferFlushMaxRows, cfg.BufferFlushInterval, cfg.NewKeyFunc = rows, interval, l.newKeyFunc
	}
	snk, err := newSink(cfg)
	if ts, ok := snk.(*exactlyOnceSink); ok && base != "" {
		if j := scaleJobOf(ctx.Job.Shared); j != nil {
			ts.base, ts.instance = base, ctx.Job.InstanceID
			j.addSink(ts)
		}
	}
	return snk, err
}

func hasMeta(meta []metadataColumn, k metadataKey) bool {
	for _, m := range meta {
		if m.Key == k {
			return true
		}
	}
	return false
}

// TransactionalIDPrefix returns the effective transactional-id prefix of a
// validated kafka or upsert-kafka table used as an exactly-once sink in
// job: the option's value, or when it is absent the one derived by
// defaultTransactionalIDPrefix from job and the table's object name
// (derived is then true). ok is false when the table is not an
// exactly-once Kafka sink. The factories' Describe hook uses it: the
// planner passes a derived prefix to the sink in its options and rejects
// two sinks of a job with the same prefix.
func transactionalIDPrefix(v *factory.Validated, job string) (prefix string, derived, ok bool) {
	if v == nil || v.Factory == nil || (v.Factory.Identifier != Identifier && v.Factory.Identifier != UpsertIdentifier) {
		return "", false, false
	}
	if optDelivery.Get(v.Config) != "exactly-once" {
		return "", false, false
	}
	if p, _ := optTxnPrefix.Lookup(v.Config); p != "" {
		return p, false, true
	}
	return defaultTransactionalIDPrefix(job, v.Table.Object()), true, true
}

// Parallelism returns 'scan.parallelism' and 'sink.parallelism' of a
// validated kafka or upsert-kafka table; 0 means not set (the job's
// default applies). The options are the shared declarations
// option.ScanParallelism and option.SinkParallelism, which the planner
// reads the same way for every connector.
func parallelism(v *factory.Validated) (scan, sink int) {
	if v == nil || v.Factory == nil || (v.Factory.Identifier != Identifier && v.Factory.Identifier != UpsertIdentifier) {
		return 0, 0
	}
	return optScanParallelism.Get(v.Config), optSinkParallelism.Get(v.Config)
}
