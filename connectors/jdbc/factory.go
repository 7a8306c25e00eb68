package jdbc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the value of the 'connector' option that selects the jdbc
// connector.
const Identifier = "jdbc"

// The delivery guarantees of 'sink.delivery-guarantee'.
const (
	AtLeastOnce = "at-least-once"
	ExactlyOnce = "exactly-once"
)

// The connector's options, with Flink's names, defaults and meaning.
var (
	optURL = option.String("url").Required().Sensitive().
		Description("The database's JDBC URL: jdbc:postgresql://host[:port]/database, jdbc:mysql://host[:port]/database or jdbc:mariadb://host[:port]/database. Parameters after '?' are limited to those the Go drivers understand (PostgreSQL: sslmode, sslrootcert, sslcert, sslkey, connect_timeout, application_name, options, search_path; MySQL/MariaDB: tls, timeout, readTimeout, writeTimeout, charset, collation).")
	optTable = option.String("table-name").Required().
			Description("The name of the table in the database, optionally qualified by its schema (schema.table).")
	optDriver = option.String("driver").
			Description("The class name of the JDBC driver. Accepted for compatibility and checked against the url (org.postgresql.Driver; com.mysql.cj.jdbc.Driver, com.mysql.jdbc.Driver or org.mariadb.jdbc.Driver); streamsql uses the Go drivers pgx and go-sql-driver/mysql.")
	optUser     = option.String("username").Description("The database user.")
	optPassword = option.String("password").Sensitive().Description("The database user's password.")
	optMaxRows  = option.Int("sink.buffer-flush.max-rows").Default(100).
			Description("The most rows buffered before a flush (one batched statement); 0 disables the row limit.")
	optInterval = option.Duration("sink.buffer-flush.interval").Default(time.Second).
			Description("The interval of flushes of buffered rows; 0 disables timed flushes. Rows are also flushed at every checkpoint.")
	optMaxRetries = option.Int("sink.max-retries").Default(3).
			Description("The most retries of a failed flush (at-least-once; an exactly-once sink fails the checkpoint instead, and the job restarts from the last one).")
	optParallelism = option.SinkParallelism.
			Description("The parallelism of the sink. By default, the parallelism of the upstream operator.")
	optRetryTimeout = option.Duration("connection.max-retry-timeout").Default(time.Minute).
			Description("The longest time spent retrying to connect at start.")
	optDelivery = option.Enum("sink.delivery-guarantee", AtLeastOnce, ExactlyOnce).Default(AtLeastOnce).
			Description("at-least-once: rows are flushed at every checkpoint and may be written again after a restart (idempotent with a PRIMARY KEY: upserts). exactly-once: each task's rows go into one database transaction per checkpoint, prepared at the checkpoint (PostgreSQL PREPARE TRANSACTION, MySQL/MariaDB XA PREPARE) and committed once the checkpoint completes; PostgreSQL needs max_prepared_transactions > 0.")
	optPartColumn = option.String("scan.partition.column").
			Description("The numeric, date or timestamp column by which the scan is split into scan.partition.num parallel ranges between scan.partition.lower-bound and scan.partition.upper-bound (integer bounds).")
	optPartNum   = option.Int("scan.partition.num").Description("The number of partitions of the scan.")
	optPartLower = option.Long("scan.partition.lower-bound").Description("The smallest value of the first partition.")
	optPartUpper = option.Long("scan.partition.upper-bound").Description("The largest value of the last partition.")
	optFetchSize = option.Int("scan.fetch-size").Default(0).
			Description("The number of rows returned to the job per read (0: the connector's default of 1000). The Go drivers stream results, so this does not bound the driver's own buffering.")
	optAutoCommit = option.Bool("scan.auto-commit").Default(true).
			Description("Accepted for compatibility: each split is read with one query in its own implicit transaction.")
)

// notYet are Flink jdbc options that streamsql recognises but does not
// implement. Setting one is an error that says so.
var notYet = []factory.NotYet{
	{Key: "lookup.cache.max-rows", Why: "use 'lookup.cache' = 'PARTIAL' with 'lookup.partial-cache.max-rows'"},
	{Key: "lookup.cache.ttl", Why: "use 'lookup.cache' = 'PARTIAL' with 'lookup.partial-cache.expire-after-write'"},
	{Key: "lookup.cache.caching-missing-key", Why: "use 'lookup.cache' = 'PARTIAL' with 'lookup.partial-cache.cache-missing-key'"},
	{Key: "lookup.full-cache.reload-strategy", Why: "the FULL lookup cache is not implemented; use 'PARTIAL'"},
	{Key: "compatible-mode", Why: "only PostgreSQL and MySQL/MariaDB are supported"},
	{Key: "connection.properties", Why: "pass driver settings as url parameters"},
	{Key: "sink.semantic", Why: "use 'sink.delivery-guarantee'"},
}

func init() {
	factory.MustRegisterConnector(Factory())
}

// Factory returns the jdbc connector's declaration, as registered in
// factory.Default.
func Factory() factory.ConnectorFactory {
	unsupported, unsupportedRules := factory.NotSupportedYet(ErrConfig, notYet)
	partOpts := []option.Option{optPartColumn, optPartNum, optPartLower, optPartUpper}
	return factory.ConnectorFactory{
		Identifier: Identifier,
		Description: "Writes rows to a PostgreSQL or MySQL/MariaDB table (upserts by the PRIMARY KEY, or appends without one), " +
			"at-least-once or exactly-once through the database's prepared transactions, and reads a table with a bounded, " +
			"optionally partitioned scan.",
		Options: append([]option.Option{optURL, optTable, optDriver, optUser, optPassword, optMaxRows, optInterval,
			optMaxRetries, optParallelism, optRetryTimeout, optDelivery, optPartColumn, optPartNum, optPartLower,
			optPartUpper, optFetchSize, optAutoCommit}, append(option.LookupOptions(), unsupported...)...),
		Rules: append(unsupportedRules,
			option.Check("url must be a jdbc:postgresql, jdbc:mysql or jdbc:mariadb URL naming a database", func(c *option.Config) error {
				_, err := ParseURL(optURL.Get(c))
				return err
			}, optURL),
			option.Check("driver must match the url's database", func(c *option.Config) error {
				cls, ok := optDriver.Lookup(c)
				if !ok {
					return nil
				}
				db, err := ParseURL(optURL.Get(c))
				if err != nil {
					return nil // reported by the url's rule
				}
				return CheckDriver(db, cls)
			}, optDriver, optURL),
			option.Check("scan.partition.column, .num, .lower-bound and .upper-bound must be set together", func(c *option.Config) error {
				set := 0
				for _, o := range partOpts {
					if c.Has(o) {
						set++
					}
				}
				if set != 0 && set != len(partOpts) {
					return fmt.Errorf("%w: set all four scan.partition options or none", ErrConfig)
				}
				return nil
			}, partOpts...),
			option.Check("scan.partition.num must be at least 1 and scan.partition.lower-bound at most scan.partition.upper-bound", func(c *option.Config) error {
				if n, ok := optPartNum.Lookup(c); ok && n < 1 {
					return fmt.Errorf("%w: scan.partition.num is %d", ErrConfig, n)
				}
				lo, ok1 := optPartLower.Lookup(c)
				hi, ok2 := optPartUpper.Lookup(c)
				if ok1 && ok2 && lo > hi {
					return fmt.Errorf("%w: lower bound %d > upper bound %d", ErrConfig, lo, hi)
				}
				return nil
			}, optPartNum, optPartLower, optPartUpper),
			option.Check("sink.buffer-flush.max-rows, sink.max-retries and scan.fetch-size must not be negative; sink.parallelism must be at least 1", func(c *option.Config) error {
				if optMaxRows.Get(c) < 0 || optMaxRetries.Get(c) < 0 || optFetchSize.Get(c) < 0 || optInterval.Get(c) < 0 {
					return fmt.Errorf("%w: a negative value", ErrConfig)
				}
				if p, ok := optParallelism.Lookup(c); ok && p < 1 {
					return fmt.Errorf("%w: sink.parallelism is %d", ErrConfig, p)
				}
				return nil
			}, optMaxRows, optMaxRetries, optFetchSize, optInterval, optParallelism),
			option.Check("the lookup cache options must be consistent", func(c *option.Config) error {
				if option.LookupMaxRetries.Get(c) < 0 {
					return fmt.Errorf("%w: lookup.max-retries is negative", ErrConfig)
				}
				_, err := option.LookupCacheOf(c)
				return err
			}, option.LookupCache, option.LookupMaxRows, option.LookupExpireAfterWrite, option.LookupExpireAfterAccess, option.LookupMaxRetries),
		),
		Lookup:           true,
		ReadableMetadata: map[string]types.Type{},
		WritableMetadata: map[string]types.Type{},
		SinkChangelog:    factory.Upsert,
		Describe:         describe,
		NewSource: func(ctx factory.Context) (connector.Source, error) {
			cfg, err := config(ctx)
			if err != nil {
				return nil, err
			}
			return NewSource(cfg)
		},
		NewSink: func(ctx factory.Context) (connector.Sink, error) {
			cfg, err := config(ctx)
			if err != nil {
				return nil, err
			}
			return NewSink(cfg)
		},
	}
}

// Config is a jdbc table's configuration: its validated options and
// schema.
type Config struct {
	// Table is the catalog name of the Flink table (for messages and the
	// prepared transactions' ids).
	Table string
	// DB is the database of the url.
	DB Database
	// TableName is 'table-name'.
	TableName       string
	User, Password  string
	Fields          []types.Field
	PrimaryKey      []string
	MaxRows         int
	Interval        time.Duration
	MaxRetries      int
	RetryTimeout    time.Duration
	ExactlyOnce     bool
	PartitionColumn string
	PartitionNum    int
	PartitionLower  int64
	PartitionUpper  int64
	FetchSize       int
}

func config(ctx factory.Context) (Config, error) {
	o := ctx.Options
	db, err := ParseURL(optURL.Get(o))
	if err != nil {
		return Config{}, err
	}
	return Config{
		Table:           ctx.Table,
		DB:              db,
		TableName:       optTable.Get(o),
		User:            optUser.Get(o),
		Password:        optPassword.Get(o),
		Fields:          ctx.Schema.PhysicalFields(),
		PrimaryKey:      ctx.Schema.PrimaryKey,
		MaxRows:         optMaxRows.Get(o),
		Interval:        optInterval.Get(o),
		MaxRetries:      optMaxRetries.Get(o),
		RetryTimeout:    optRetryTimeout.Get(o),
		ExactlyOnce:     optDelivery.Get(o) == ExactlyOnce,
		PartitionColumn: optPartColumn.Get(o),
		PartitionNum:    optPartNum.Get(o),
		PartitionLower:  optPartLower.Get(o),
		PartitionUpper:  optPartUpper.Get(o),
		FetchSize:       optFetchSize.Get(o),
	}, nil
}

// GIDPrefix returns the prefix of the prepared transactions' ids of an
// exactly-once sink: "ssql" and a hash of the job's and the table's names,
// so that it is short enough for MySQL's 64-byte XA ids, the same in every
// run of the job, and different for another job or table. Recovery rolls
// back only prepared transactions with this prefix.
func GIDPrefix(job, table string) string {
	h := sha256.Sum256([]byte(job + "\x00" + table))
	return "ssql" + hex.EncodeToString(h[:8])
}

func describe(v *factory.Validated, role factory.Role) (factory.TableInfo, error) {
	c := v.Config
	db, err := ParseURL(optURL.Get(c))
	if err != nil {
		return factory.TableInfo{}, err
	}
	// The source and sink check the options against the schema (a
	// scan.partition.column the table lacks) without connecting: check
	// here too, so that validate and explain report it, not only the run.
	cfg, err := config(factory.Context{Table: v.Table.Name, ObjectName: v.Table.Object(),
		Schema: v.Table.Schema, Options: c, Job: v.Table.Job})
	if err == nil && role == factory.AsSource {
		_, err = NewSource(cfg)
	} else if err == nil {
		_, err = NewSink(cfg)
	}
	if err != nil {
		return factory.TableInfo{}, err
	}
	summary := []factory.KeyValue{
		{Key: "database", Value: db.Dialect.Product + " " + db.Addr() + "/" + db.Name},
		{Key: "table", Value: optTable.Get(c)},
	}
	info := factory.TableInfo{Servers: []string{db.Addr()}}
	if role == factory.AsSource {
		scan := "one query (1 split)"
		if col, ok := optPartColumn.Lookup(c); ok {
			scan = fmt.Sprintf("%d splits by %s in [%d, %d]", optPartNum.Get(c), col, optPartLower.Get(c), optPartUpper.Get(c))
		}
		info.Summary = append(summary, factory.KeyValue{Key: "bounded", Value: "yes: " + scan})
		return info, nil
	}
	mode := "append (no PRIMARY KEY)"
	if pk := v.Table.Schema.PrimaryKey; len(pk) > 0 {
		mode = fmt.Sprintf("upsert by PRIMARY KEY (%s); DELETE rows delete", joinNames(pk))
	}
	info.Summary = append(summary, factory.KeyValue{Key: "writes", Value: mode})
	info.Parallelism = optParallelism.Get(c)
	if optDelivery.Get(c) != ExactlyOnce {
		info.Delivery = factory.AtLeastOnce
		return info, nil
	}
	info.Delivery = factory.ExactlyOnce
	prefix := GIDPrefix(v.Table.Job.Name, v.Table.Name)
	how := "PREPARE TRANSACTION / COMMIT PREPARED"
	if db.Dialect != postgres {
		how = "XA PREPARE / XA COMMIT"
	}
	info.DeliverySummary = []factory.KeyValue{
		{Key: "prepared transactions", Value: how},
		{Key: "transaction id prefix", Value: prefix + " (from the job's and the table's names)"},
	}
	info.Exclusive = []factory.Exclusive{{
		Key:          "jdbc prepared-transaction prefix " + prefix,
		Owner:        "exactly-once jdbc",
		What:         fmt.Sprintf("prepared-transaction id prefix '%s'", prefix),
		Conflict:     "each would roll back the other's prepared transactions at recovery",
		Fix:          "give the tables distinct names",
		FixSameTable: "combine the queries with UNION ALL",
	}}
	return info, nil
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}
