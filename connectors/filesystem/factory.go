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
	optBadRecordPolicy = badrecord.Option("What the source does with a record its format cannot decode, and with a record whose row the job rejects for a NULL in a NOT NULL sink column: fail the job, naming the file, the record's line and byte offset and the format's reason (the default, as Flink); or skip it, counted in streamsql_task_bad_records_skipped_total and logged with file, line and byte offset at most once per 10 s. A restarted job resumes after the records it skipped. There is no 'dead-letter' here: the files stay where they are, and the file and line of a bad record say where to find it. A format's 'ignore-parse-errors' = 'true' is Flink's skip: it goes with 'skip' (or no policy), not with 'fail'.",
		badrecord.Fail, badrecord.Skip)
)

// notYet are Flink filesystem options that streamsql recognises but does
// not implement, with what to do instead. Setting one is an error that
// says so, rather than "unknown option".
var notYet = []factory.NotYet{
	{Key: "sink.partition-commit.trigger", Why: "files are committed when a checkpoint completes; partition commit triggers are not implemented"},
	{Key: "sink.partition-commit.delay", Why: "files are committed when a checkpoint completes; partition commit triggers are not implemented"},
	{Key: "sink.partition-commit.watermark-time-zone", Why: "partition commit triggers are not implemented"},
	{Key: "sink.partition-commit.policy.kind", Why: "partition commit policies (metastore, success-file, custom) are not implemented; readers see a partition's files as each checkpoint commits them"},
	{Key: "sink.partition-commit.policy.class", Why: "custom partition commit policies are not implemented"},
	{Key: "sink.partition-commit.success-file.name", Why: "success files are not written"},
	{Key: "partition.time-extractor.kind", Why: "partition time extraction is not implemented"},
	{Key: "partition.time-extractor.timestamp-pattern", Why: "partition time extraction is not implemented"},
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
			optDefaultPartition, optParallelism, optBadRecordPolicy}, unsupported...),
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
	}
	var err error
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
		return factory.TableInfo{Summary: summary, NoScaleOut: "every instance would read every file"}, nil
	}
	return factory.TableInfo{Delivery: factory.ExactlyOnce, Parallelism: optParallelism.Get(v.Config),
		NoScaleOut: "its exactly-once commits are recovered from checkpoint files, which a scaled-out job does not keep"}, nil
}
