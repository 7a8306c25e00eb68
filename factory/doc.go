// Package factory is the dynamic table factory: registries of connector and
// format factories, typed option declarations and the one validation path
// every factory uses. It is the public extension point for programs that
// embed streamsql; the built-in connectors and formats use it exactly as an
// embedder does.
//
// The types to learn first: [ConnectorFactory] (a connector's declaration:
// identifier, options, metadata, changelog modes, constructors), [option.Opt]
// (a typed option, declared once and read back with Get), [Registry] (where
// factories are registered; [Default] is the process-wide one) and
// [Validated] (a table's options checked once, handed to the factory).
//
// # Registries
//
// A [Registry] maps the 'connector' option to a [ConnectorFactory] and the
// 'format', 'key.format' and 'value.format' options to a [FormatFactory].
// Built-ins register into [Default] from init() with [MustRegisterConnector]
// and [MustRegisterFormat], which panic on an empty, malformed or duplicate
// declaration as database/sql.Register does; [Registry.RegisterConnector]
// and [Registry.RegisterFormat] return the error instead. [Registry.Clone]
// gives a test or an embedder a registry of its own; [Registry.Connectors]
// and [Registry.Formats] list identifiers sorted.
//
// # Declaring options
//
// Options are typed values built by constructors and refined by chained
// methods that return copies:
//
//	var (
//		Topic    = option.List("topic").Description("Topics, ';'-separated.")
//		Servers  = option.String("properties.bootstrap.servers").Required()
//		Props    = option.Prefix("properties.")
//		Mode     = option.Enum("scan.startup.mode", "earliest-offset", "latest-offset").Default("latest-offset")
//		Interval = option.Duration("scan.topic-partition-discovery.interval").Default(5 * time.Minute)
//		Delivery = option.Enum("sink.delivery-guarantee", "at-least-once", "exactly-once", "none").
//				Default("at-least-once").
//				DeprecatedKey("sink.semantic", nil)
//		Password = option.String("sasl.password").Sensitive()
//		Value    = factory.FormatOption("value.format").FallbackKeys("format")
//	)
//
// Types (package option's constructors): [option.String], [option.Int],
// [option.Long], [option.Float], [option.Bool], [option.Duration] (Flink
// syntax: "10s", "1 min", "500 ms"), [option.Size] (memory sizes: "64mb"),
// [option.Enum] (case-insensitive, read back in the declared spelling),
// [option.List] (';'-separated), [option.Map] ("k1:v1,k2:v2"),
// [option.Prefix] (pass-through keys such as properties.*) and this
// package's [FormatOption]. A connector reads validated values with Get
// (Topic.Get(ctx.Options)), never by parsing strings.
//
// Relationships between options are data, each with the reason shown to
// the user: [option.RequiredWhen], [option.Conflicts], [option.OneOf] and
// [option.Check].
//
// The declarations are package option's, which the job's settings use
// too (jobconfig.Options, planner.Settings). Options many connectors take
// are declared once there: option.SinkParallelism and
// option.ScanParallelism, which the planner reads from every validated
// table.
//
// Format options are namespaced as Flink does: with 'format'='json' the
// json format's options are written json.*, with 'key.format'='json'
// key.json.*, with 'value.format'='json' value.json.*. A format declares
// them without prefix.
//
// # Validation
//
// [Registry.Validate] checks a table's options once,
// eagerly, into a typed [option.Config]. Errors are typed so that callers classify
// them with errors.As, never by text:
//
//   - [option.MissingOptionsError]: required options absent;
//   - [option.UnsupportedOptionsError]: unknown keys, with the sorted list of
//     supported ones (deprecated keys marked) and the nearest key for typos;
//   - [option.InvalidValueError]: a value that does not parse as the option's type
//     or is outside its enum (the allowed values are listed);
//   - [option.ConflictError]: options that exclude each other, or an option and its
//     deprecated alias with different values;
//   - [option.RequirementError] and [option.RuleError]: conditional requirements and
//     custom checks;
//   - [UnknownFactoryError] and [CapabilityError]: an unknown connector or
//     format, or a sink-only connector used as a source (and the reverse).
//
// [Registry.NewSource] and [Registry.NewSink] create a source or sink from
// the [Validated] table without validating again (the planner validates
// at planning, OPTIONS and program hints applied, and builds from that);
// [Registry.CreateSource] and [Registry.CreateSink] validate and create in
// one call.
//
// Several problems are reported together (errors.Join), unknown keys first
// since a typo often explains a "missing" option. Everything is wrapped in a
// [TableError] that names the table and lists its options, with the values
// of sensitive options and secret-looking keys ([IsSensitiveKey]) shown as
// [Mask]. Deprecation warnings are returned as data ([Validated].Warnings),
// not logged.
//
// # Connector traits
//
// A [ConnectorFactory] also declares what the planner checks about its
// tables, as Flink's SupportsReadingMetadata, getChangelogMode and
// asSummaryString do: ReadableMetadata and WritableMetadata (key → type),
// SourceChangelog and SinkChangelog ([ChangelogMode]), RequiresPrimaryKey,
// Lookup (its sources are connector.LookupSources, which a lookup join may
// read), and an optional Describe hook. Describe is given the [Validated] table,
// whose Table.Job ([JobContext]) carries the job's name and checkpoint
// settings, and returns a [TableInfo]: a sink's [Delivery] guarantee,
// options it derives (a Kafka transactional-id prefix), EXPLAIN's summary
// lines, warnings with a [WarningKind], [Exclusive] resources no two sinks
// of a job may share, and the facts of the planner's cross-table checks
// (topics and servers, uncommitted reads, consumer-group positions a sink
// commits in its transactions). An *[OptionError] from Describe is shown
// at the option's value. The planner names no connector: an embedder's
// connector that declares the same gets the same checks.
//
// # Formats
//
// A format creates a [Decoder], which decodes a record's bytes into a
// caller-owned [types.Row] (reusing its Fields), and an [Encoder], which
// appends a row's encoding to a byte slice. Decode errors are
// [DecodeError] values naming the field and the byte offset; a decoder told
// to ignore parse errors returns an error wrapping [ErrSkipRecord] for a
// record to drop. Formats reject column types they cannot represent with an
// [UnsupportedTypeError] when the decoder or encoder is created.
//
// # Documentation
//
// [Registry.WriteMarkdown] renders every declaration as a configuration
// reference (options, types, defaults, deprecated and fallback keys,
// rules), so the docs cannot drift from the code.
package factory
