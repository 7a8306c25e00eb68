package filesystem

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/internal/badrecord"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the value of the 'connector' option that selects the
// filesystem connector.
const Identifier = "filesystem"

// The connector's options, with Flink's names, defaults and meaning.
var (
	optPath = option.String("path").Required().
		Description("The path of a directory, as a plain path or a file:// URI, or s3://bucket/prefix for S3-compatible object storage (the client is configured by the job's s3.* settings; docs/s3.md).")
	optFormat = factory.FormatOption("format").Required().
			Description("The format of the files: json, csv or raw. A json or raw record is one line; a csv record may span lines when a quoted field contains line breaks. The format's own options are written with its prefix (json.*, csv.*, raw.*).")
	optFileSize = option.Size("sink.rolling-policy.file-size").Default(DefaultFileSize).
			Description("The maximum part file size before rolling.")
	optRolloverInterval = option.Duration("sink.rolling-policy.rollover-interval").Default(DefaultRolloverInterval).
				Description("The maximum time a part file can stay open before rolling. How often this is checked is set by sink.rolling-policy.check-interval. Files are also rolled at every checkpoint.")
	optCheckInterval = option.Duration("sink.rolling-policy.check-interval").Default(DefaultCheckInterval).
				Description("The interval at which the sink checks whether a part file has been open longer than sink.rolling-policy.rollover-interval.")
	optDefaultPartition = option.String("partition.default-name").Default(DefaultPartitionDefaultName).
				Description("The directory value of a partition column that is NULL or the empty string.")
	optParallelism = option.SinkParallelism.
			Description("The parallelism of the sink. By default, the parallelism of the upstream operator.")
	optBadRecordPolicy = badrecord.Option("What the source does with a record its format cannot decode, and with a record whose row the job rejects for a NULL in a NOT NULL sink column (a row that goes to the sink straight from its record; a row out of an aggregation, join, window or deduplication is no single record's, and 'table.exec.sink.not-null-enforcer' decides): fail the job, naming the file, the record's line and byte offset and the format's reason (the default, as Flink); or skip it, counted in streamsql_task_bad_records_skipped_total and logged with file, line and byte offset at most once per 10 s. A restarted job resumes after the records it skipped. There is no 'dead-letter' here: the files stay where they are, and the file and line of a bad record say where to find it. A format's 'ignore-parse-errors' = 'true' is Flink's skip: it goes with 'skip' (or no policy), not with 'fail'.",
		badrecord.Fail, badrecord.Skip)

	// Partition commit (partcommit.go), as Flink's options.
	optCommitTrigger = option.Enum("sink.partition-commit.trigger", triggerProcessTime, triggerPartitionTime).Default(triggerProcessTime).
				Description("When a partition is committed (its success file written), for a partitioned table with a 'sink.partition-commit.policy.kind': process-time, once the clock passes the time the partition was first written plus the delay; partition-time, once the watermark passes the time in the partition's values plus the delay; the watermark is the least over the sink's tasks at a checkpoint, so a partition-time trigger needs a source with a WATERMARK (without one no partition is committed before the end of the input). A partition is committed only after every file written into it up to then is committed, and every pending partition is committed when the input ends.")
	optCommitDelay = option.Duration("sink.partition-commit.delay").Default(0).
			Description("How long after its trigger time a partition is committed: '1 h' for hourly partitions, '1 d' for daily ones. 0 commits a partition at the first checkpoint that commits files into it.")
	optWatermarkZone = option.String("sink.partition-commit.watermark-time-zone").Default("UTC").
				Description("The time zone in which a partition's time is compared with the watermark (partition-time): UTC for watermarks of TIMESTAMP columns, the session time zone for TIMESTAMP_LTZ ones; a region such as 'America/Los_Angeles' or an offset such as 'GMT-08:00'.")
	optCommitPolicy = option.String("sink.partition-commit.policy.kind").
			Description("How a partition is committed, for a partitioned table: 'success-file' writes an empty file named by 'sink.partition-commit.success-file.name' into the partition's directory. Unset: partitions are not committed (files still are, at each checkpoint). Flink's 'metastore' needs a Hive table and 'custom' a Java class; neither is supported.")
	optSuccessFileName = option.String("sink.partition-commit.success-file.name").Default(DefaultSuccessFileName).
				Description("The name of the success file of the success-file policy.")
	optExtractorKind = option.Enum("partition.time-extractor.kind", "default", "custom").Default("default").
				Description("How a partition's time is read from its values (partition-time trigger): 'default', by 'partition.time-extractor.timestamp-pattern' and -formatter. 'custom' (a Java class) is not supported.")
	optTimestampPattern = option.String("partition.time-extractor.timestamp-pattern").
				Description("How the partition's values make its time, with $column for a column's value, such as '$dt $hm:00' or '$year-$month-$day $hour:00:00'. Unset: the first partition column's value.")
	optTimestampFormatter = option.String("partition.time-extractor.timestamp-formatter").
				Description("The Java date-time pattern that reads the time the timestamp pattern makes, such as 'yyyyMMdd HH'. Unset: yyyy-MM-dd[ HH:mm:ss[.fraction]], with one-digit fields accepted and out-of-range ones rolled over, as Flink's default.")
)

// notYet are Flink filesystem options that streamsql recognises but does
// not implement, with what to do instead. Setting one is an error that
// says so, rather than "unknown option".
var notYet = []factory.NotYet{
	{Key: "sink.partition-commit.policy.class", Why: "custom partition commit policies are not supported; 'sink.partition-commit.policy.kind' = 'success-file' is"},
	{Key: "sink.partition-commit.policy.class.parameters", Why: "custom partition commit policies are not supported; 'sink.partition-commit.policy.kind' = 'success-file' is"},
	{Key: "partition.time-extractor.class", Why: "custom partition time extractors are not supported; the default one ('partition.time-extractor.timestamp-pattern' and -formatter) is"},
	{Key: "auto-compaction", Why: "file compaction is not implemented; use sink.rolling-policy.* to size files"},
	{Key: "compaction.file-size", Why: "file compaction is not implemented; use sink.rolling-policy.* to size files"},
	{Key: "sink.rolling-policy.inactivity-interval", Why: "only sink.rolling-policy.file-size, rollover-interval and check-interval are implemented"},
	{Key: "source.monitor-interval", Why: "the source reads the files present at start and is bounded; continuous monitoring is not implemented"},
	{Key: "source.path.regex-pattern", Why: "the source reads every file under path that is not hidden"},
}

func init() {
	factory.MustRegisterConnector(Factory())
}

// Factory returns the filesystem connector's declaration, as registered in
// factory.Default.
func Factory() factory.ConnectorFactory {
	unsupported, unsupportedRules := factory.NotSupportedYet(ErrConfig, notYet)
	return factory.ConnectorFactory{
		Identifier: Identifier,
		Description: "Reads the files under a directory (bounded) and writes files with exactly-once two-phase commit: " +
			"in-progress files are hidden and renamed into place when a checkpoint completes, so readers only see complete files.",
		Options: append([]option.Option{optPath, optFormat, optFileSize, optRolloverInterval, optCheckInterval,
			optDefaultPartition, optParallelism, optBadRecordPolicy, optCommitTrigger, optCommitDelay, optWatermarkZone,
			optCommitPolicy, optSuccessFileName, optExtractorKind, optTimestampPattern, optTimestampFormatter}, unsupported...),
		Rules: append(unsupportedRules,
			option.Check("sink.rolling-policy.file-size must be positive", func(c *option.Config) error {
				return positiveValue(int64(optFileSize.Get(c)))
			}, optFileSize),
			option.Check("sink.rolling-policy.rollover-interval must be positive", func(c *option.Config) error {
				return positiveValue(int64(optRolloverInterval.Get(c)))
			}, optRolloverInterval),
			option.Check("sink.rolling-policy.check-interval must be positive", func(c *option.Config) error {
				return positiveValue(int64(optCheckInterval.Get(c)))
			}, optCheckInterval),
			option.Check("partition.default-name must not be empty nor contain '/'", func(c *option.Config) error {
				if v := optDefaultPartition.Get(c); v == "" || strings.ContainsRune(v, '/') {
					return fmt.Errorf("%w: got %q", ErrConfig, v)
				}
				return nil
			}, optDefaultPartition),
			option.AtLeastOne(optParallelism, ErrConfig),
			badrecord.IgnoreParseErrorsRule(optBadRecordPolicy, func(c *option.Config) []*factory.Format {
				return []*factory.Format{optFormat.Get(c)}
			}),
			option.Check("path must be a local directory or an s3:// URI", func(c *option.Config) error {
				return CheckPath(optPath.Get(c))
			}, optPath),
			option.Check("sink.partition-commit.policy.kind must list supported policies", func(c *option.Config) error {
				_, err := parsePolicies(optCommitPolicy.Get(c))
				return err
			}, optCommitPolicy),
			option.Check("sink.partition-commit.delay must not be negative", func(c *option.Config) error {
				if d := optCommitDelay.Get(c); d < 0 {
					return fmt.Errorf("%w: got %s", ErrConfig, d)
				}
				return nil
			}, optCommitDelay),
			option.Check("sink.partition-commit.watermark-time-zone must be a time zone", func(c *option.Config) error {
				if _, err := parseZone(optWatermarkZone.Get(c)); err != nil {
					return fmt.Errorf("%w: %v", ErrConfig, err)
				}
				return nil
			}, optWatermarkZone),
			option.Check("sink.partition-commit.success-file.name must be a file name", func(c *option.Config) error {
				if v := optSuccessFileName.Get(c); v == "" || strings.ContainsAny(v, "/\\") || v == "." || v == ".." {
					return fmt.Errorf("%w: got %q", ErrConfig, v)
				}
				return nil
			}, optSuccessFileName),
			option.Check("partition.time-extractor.timestamp-formatter must be a Java date-time pattern", func(c *option.Config) error {
				_, err := newTimeExtractor(nil, "", optTimestampFormatter.Get(c))
				return err
			}, optTimestampFormatter),
			option.Check("partition.time-extractor.kind 'custom' is not supported", func(c *option.Config) error {
				if optExtractorKind.Get(c) == "custom" {
					return fmt.Errorf("%w: 'partition.time-extractor.kind' = 'custom' needs a Java class; use 'default' with 'partition.time-extractor.timestamp-pattern'", ErrConfig)
				}
				return nil
			}, optExtractorKind),
		),
		ReadableMetadata: map[string]types.Type{},
		WritableMetadata: map[string]types.Type{},
		Describe:         describe,
		NewSource: func(ctx factory.Context) (connector.Source, error) {
			cfg, columns, err := config(ctx)
			if err != nil {
				return nil, err
			}
			return NewSource(cfg, columns, optFormat.Get(ctx.Options))
		},
		NewSink: func(ctx factory.Context) (connector.Sink, error) {
			cfg, columns, err := config(ctx)
			if err != nil {
				return nil, err
			}
			return NewSink(cfg, columns, optFormat.Get(ctx.Options))
		},
	}
}

func positiveValue(v int64) error {
	if v <= 0 {
		return fmt.Errorf("%w: got %d", ErrConfig, v)
	}
	return nil
}

// config turns validated options and the schema into a Config.
func config(ctx factory.Context) (Config, []types.Field, error) {
	o := ctx.Options
	columns := ctx.Schema.PhysicalFields()
	cfg := Config{
		Path:                 optPath.Get(o),
		S3:                   ctx.Job.S3,
		Table:                ctx.Table,
		FileSize:             int64(optFileSize.Get(o)),
		RolloverInterval:     optRolloverInterval.Get(o),
		CheckInterval:        optCheckInterval.Get(o),
		Parallelism:          optParallelism.Get(o),
		DefaultPartitionName: optDefaultPartition.Get(o),
		Commit: PartitionCommit{Trigger: optCommitTrigger.Get(o), Delay: optCommitDelay.Get(o),
			SuccessFileName:  optSuccessFileName.Get(o),
			TimestampPattern: optTimestampPattern.Get(o), TimestampFormatter: optTimestampFormatter.Get(o)},
	}
	var err error
	if cfg.Commit.SuccessFile, err = parsePolicies(optCommitPolicy.Get(o)); err != nil {
		return cfg, nil, err
	}
	if cfg.Commit.WatermarkZone, err = parseZone(optWatermarkZone.Get(o)); err != nil {
		return cfg, nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if cfg.BadRecordPolicy, err = badrecord.Parse(optBadRecordPolicy.Get(o), badrecord.Fail, badrecord.Skip); err != nil {
		return cfg, nil, fmt.Errorf("%w: table '%s': %w", ErrConfig, ctx.Table, err)
	}
	if f := optFormat.Get(o); f != nil {
		if id := f.Identifier(); id == "avro" || id == "avro-confluent" {
			// Flink writes Avro container files here; records one per line
			// would be neither.
			return cfg, nil, fmt.Errorf("%w: format '%s' (Avro container files) is not supported yet by the filesystem connector", ErrConfig, id)
		}
		cfg.Extension = "." + f.Identifier()
	}
	for _, name := range ctx.Schema.PartitionKeys {
		i := slices.IndexFunc(columns, func(c types.Field) bool { return c.Name == name })
		if i < 0 {
			names := make([]string, len(columns))
			for j, c := range columns {
				names[j] = c.Name
			}
			return cfg, nil, fmt.Errorf("%w: PARTITIONED BY column %s is not a physical column (physical columns: %s)",
				ErrConfig, name, strings.Join(names, ", "))
		}
		cfg.PartitionKeys = append(cfg.PartitionKeys, i)
	}
	return cfg, columns, nil
}

// describe says that the source is bounded and that the sink is
// exactly-once. The sink claims no exclusive resource: its pending files
// are tagged with the job and the sink's id in the job, so two sinks (two
// INSERTs into one table too) that write one path recover only their own.
func describe(v *factory.Validated, role factory.Role) (factory.TableInfo, error) {
	// Create the source or sink as a check (it touches no file), so that
	// validate and explain report what only creating it checks (a format
	// the connector cannot keep in files, columns the format cannot hold:
	// raw takes exactly one), not only the run.
	cfg, columns, err := config(factory.Context{Table: v.Table.Name, ObjectName: v.Table.Object(),
		Schema: v.Table.Schema, Options: v.Config, Job: v.Table.Job})
	if err == nil && role == factory.AsSource {
		_, err = NewSource(cfg, columns, optFormat.Get(v.Config))
	} else if err == nil {
		_, err = NewSink(cfg, columns, optFormat.Get(v.Config))
	}
	if err != nil {
		return factory.TableInfo{}, err
	}
	if role == factory.AsSource {
		summary := []factory.KeyValue{{Key: "bounded", Value: "yes (the files present at start)"}}
		if cfg.BadRecordPolicy == badrecord.Skip {
			summary = append(summary, factory.KeyValue{Key: "bad records", Value: "skipped, counted and logged (scan.bad-record.policy = skip)"})
		}
		return factory.TableInfo{Summary: summary, NoScaleOut: "every instance would read every file", RejectsRows: cfg.BadRecordPolicy == badrecord.Skip}, nil
	}
	var summary []factory.KeyValue
	if c := cfg.Commit; c.active(cfg.PartitionKeys) {
		when := c.Trigger
		if c.Delay > 0 {
			when += " + " + option.FormatDuration(c.Delay)
		}
		summary = append(summary, factory.KeyValue{Key: "partition commit", Value: fmt.Sprintf("a %s file once %s has passed, and at the end of the input", c.SuccessFileName, when)})
	}
	needsWM := cfg.Commit.active(cfg.PartitionKeys) && cfg.Commit.Trigger == triggerPartitionTime
	return factory.TableInfo{Delivery: factory.ExactlyOnce, Parallelism: optParallelism.Get(v.Config), Summary: summary, NeedsWatermarks: needsWM,
		NoScaleOut: "its exactly-once commits are recovered from checkpoint files, which a scaled-out job does not keep"}, nil
}
