package kafka

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/factory"
	_ "github.com/streamsql/streamsql/formats" // json, csv, raw
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// The Flink documentation's options of each connector (flink-sql.md §1 and
// §1b), which the declarations must all accept.
var (
	flinkKafkaOptions = []string{"topic", "topic-pattern", "properties.bootstrap.servers", "properties.group.id",
		"format", "key.format", "key.fields", "key.fields-prefix", "value.format", "value.fields-include",
		"scan.startup.mode", "scan.startup.specific-offsets", "scan.startup.timestamp-millis",
		"scan.bounded.mode", "scan.bounded.specific-offsets", "scan.bounded.timestamp-millis",
		"scan.topic-partition-discovery.interval", "scan.parallelism", "sink.partitioner", "sink.parallelism",
		"sink.delivery-guarantee", "sink.transactional-id-prefix", "sink.semantic", "sink.transaction-naming-strategy"}
	flinkUpsertOptions = []string{"topic", "topic-pattern", "properties.bootstrap.servers", "key.format",
		"key.fields-prefix", "value.format", "value.fields-include", "sink.parallelism", "sink.buffer-flush.interval",
		"sink.buffer-flush.max-rows", "scan.bounded.mode", "scan.bounded.specific-offsets", "scan.bounded.timestamp-millis",
		"sink.delivery-guarantee", "sink.transactional-id-prefix", "scan.parallelism", "sink.transaction-naming-strategy",
		"scan.topic-partition-discovery.interval"}
)

func TestFactoriesDeclareFlinkOptions(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want []string
	}{{Identifier, flinkKafkaOptions}, {UpsertIdentifier, flinkUpsertOptions}} {
		f, ok := factory.Default.Connector(tc.id)
		if !ok {
			t.Fatalf("connector %q is not registered", tc.id)
		}
		declared := map[string]bool{}
		for _, o := range f.Options {
			declared[o.Key()] = true
		}
		declared["format"], declared["sink.semantic"] = true, true // fallback and deprecated keys
		for _, k := range tc.want {
			if !declared[k] {
				t.Errorf("%s: option %q is not declared", tc.id, k)
			}
		}
	}
}

// kafkaTable is a valid source-and-sink table; tests change its options.
func kafkaTable(kv ...string) factory.Table {
	opts := map[string]string{
		"connector":                    "kafka",
		"topic":                        "t",
		"properties.bootstrap.servers": "localhost:9092",
		"format":                       "json",
		"scan.startup.mode":            "earliest-offset",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "<unset>" {
			delete(opts, kv[i])
		} else {
			opts[kv[i]] = kv[i+1]
		}
	}
	return factory.Table{Name: "cat.db.t", Options: opts, Schema: factory.Schema{Columns: []factory.Column{
		{Name: "id", Type: types.BigInt()},
		{Name: "name", Type: types.String()},
	}}}
}

func upsertTable(kv ...string) factory.Table {
	t := kafkaTable(append([]string{"connector", "upsert-kafka", "format", "<unset>", "scan.startup.mode", "<unset>",
		"key.format", "json", "value.format", "json"}, kv...)...)
	t.Schema.PrimaryKey = []string{"id"}
	return t
}

func TestValidation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		table   factory.Table
		errType any    // pointer to the typed error expected (errors.As)
		want    string // substring of the message
	}{
		{"missing topic", kafkaTable("topic", "<unset>"), new(*option.RequirementError), "'topic' or 'topic-pattern'"},
		{"topic and pattern", kafkaTable("topic-pattern", "t.*"), new(*option.ConflictError), "'topic' and 'topic-pattern'"},
		{"bad pattern", kafkaTable("topic", "<unset>", "topic-pattern", "t("), new(*option.RuleError), "regular expression"},
		{"missing servers", kafkaTable("properties.bootstrap.servers", "<unset>"), new(*option.MissingOptionsError), "properties.bootstrap.servers"},
		{"missing format", kafkaTable("format", "<unset>"), new(*option.MissingOptionsError), "value.format"},
		{"unknown format", kafkaTable("format", "protobuf"), new(*factory.UnknownFactoryError), "protobuf"},
		{"specific offsets required", kafkaTable("scan.startup.mode", "specific-offsets"), new(*option.RequirementError),
			"'scan.startup.specific-offsets' is required"},
		{"timestamp required", kafkaTable("scan.startup.mode", "timestamp"), new(*option.RequirementError), "'scan.startup.timestamp-millis'"},
		{"bounded specific offsets required", kafkaTable("scan.bounded.mode", "specific-offsets"), new(*option.RequirementError),
			"'scan.bounded.specific-offsets'"},
		{"bounded timestamp required", kafkaTable("scan.bounded.mode", "timestamp"), new(*option.RequirementError), "'scan.bounded.timestamp-millis'"},
		{"bad specific offsets", kafkaTable("scan.startup.mode", "specific-offsets", "scan.startup.specific-offsets", "partition:x"),
			new(*option.RuleError), "should follow the format"},
		{"specific offsets of two topics", kafkaTable("topic", "a;b", "scan.startup.mode", "specific-offsets",
			"scan.startup.specific-offsets", "partition:0,offset:1"), new(*option.RuleError), "single topic"},
		{"bad startup mode", kafkaTable("scan.startup.mode", "earliest"), new(*option.InvalidValueError), "scan.startup.mode"},
		{"semantic conflicts with delivery guarantee", kafkaTable("sink.semantic", "exactly-once", "sink.delivery-guarantee", "at-least-once"),
			new(*option.ConflictError), "sink.semantic"},
		{"bad semantic", kafkaTable("sink.semantic", "twice"), new(*option.InvalidValueError), "sink.semantic"},
		{"round-robin with key.fields", kafkaTable("sink.partitioner", "round-robin", "key.format", "json", "key.fields", "id"),
			new(*option.RuleError), "round-robin"},
		{"partitioner class", kafkaTable("sink.partitioner", "com.example.MyPartitioner"), new(*option.InvalidValueError), "sink.partitioner"},
		{"key.format without key.fields", kafkaTable("key.format", "json"), new(*option.RuleError), "'key.fields'"},
		{"key.fields without key.format", kafkaTable("key.fields", "id"), new(*option.RuleError), "'key.format'"},
		{"key prefix with ALL", kafkaTable("key.format", "json", "key.fields", "id", "key.fields-prefix", "k_"),
			new(*option.RuleError), "EXCEPT_KEY"},
		{"unknown property", kafkaTable("properties.frobnicate.ms", "5"), new(*PropertyError), "properties.frobnicate.ms"},
		{"security property without SASL", kafkaTable("properties.sasl.mechanism", "PLAIN"), new(*SecurityError), "properties.sasl.mechanism"},
		{"bad property value", kafkaTable("properties.linger.ms", "soon"), new(*PropertyError), "properties.linger.ms"},
		{"unknown option", kafkaTable("scan.startup.mod", "x"), new(*option.UnsupportedOptionsError), "scan.startup.mode"},
		{"bad format option", kafkaTable("json.ignore-parse-errors", "maybe"), new(*option.InvalidValueError), "json.ignore-parse-errors"},
		{"upsert key.fields", upsertTable("key.fields", "id"), new(*option.UnsupportedOptionsError), "key.fields"},
		{"upsert startup mode", upsertTable("scan.startup.mode", "latest-offset"), new(*option.UnsupportedOptionsError), "scan.startup.mode"},
		{"upsert without key format", upsertTable("key.format", "<unset>"), new(*option.MissingOptionsError), "key.format"},
		{"upsert format synonym", upsertTable("value.format", "<unset>", "format", "json"), new(*option.UnsupportedOptionsError), "format"},
		{"upsert buffer rows only", upsertTable("sink.buffer-flush.max-rows", "10"), new(*option.RuleError), "greater than zero together"},
		{"upsert buffer interval only", upsertTable("sink.buffer-flush.interval", "1s"), new(*option.RuleError), "greater than zero together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := factory.Default.Validate(tc.table)
			if err == nil {
				t.Fatal("validation passed")
			}
			if !errors.As(err, tc.errType) {
				t.Errorf("error is not a %T: %v", tc.errType, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not mention %q: %v", tc.want, err)
			}
			var te *factory.TableError
			if !errors.As(err, &te) {
				t.Errorf("error is not a *factory.TableError: %v", err)
			}
		})
	}
}

func TestValidationAccepts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table factory.Table
	}{
		{"defaults", kafkaTable()},
		{"value.format", kafkaTable("format", "<unset>", "value.format", "csv", "value.csv.field-delimiter", ";")},
		{"key and value", kafkaTable("key.format", "raw", "key.fields", "k_id", "key.fields-prefix", "k_",
			"value.fields-include", "EXCEPT_KEY", "key.raw.endianness", "little-endian")},
		{"pattern", kafkaTable("topic", "<unset>", "topic-pattern", "orders-.*")},
		{"specific offsets", kafkaTable("scan.startup.mode", "specific-offsets", "scan.startup.specific-offsets", "partition:0,offset:42;partition:1,offset:300",
			"scan.bounded.mode", "specific-offsets", "scan.bounded.specific-offsets", "partition:0,offset:50")},
		{"timestamps", kafkaTable("scan.startup.mode", "timestamp", "scan.startup.timestamp-millis", "1700000000000",
			"scan.bounded.mode", "timestamp", "scan.bounded.timestamp-millis", "1800000000000")},
		{"sink options", kafkaTable("sink.partitioner", "fixed", "sink.parallelism", "3", "sink.delivery-guarantee", "exactly-once",
			"sink.transactional-id-prefix", "p", "sink.transaction-naming-strategy", "incrementing",
			"properties.transaction.timeout.ms", "900000", "properties.linger.ms", "5", "scan.parallelism", "2",
			"scan.topic-partition-discovery.interval", "1 min")},
		{"same semantic twice", kafkaTable("sink.semantic", "EXACTLY_ONCE", "sink.delivery-guarantee", "exactly-once")},
		{"upsert", upsertTable("sink.buffer-flush.max-rows", "100", "sink.buffer-flush.interval", "1s", "value.fields-include", "EXCEPT_KEY")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := factory.Default.Validate(tc.table); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSemanticAlias(t *testing.T) {
	v, err := factory.Default.Validate(kafkaTable("sink.semantic", "exactly-once"))
	if err != nil {
		t.Fatal(err)
	}
	if got := optDelivery.Get(v.Config); got != "exactly-once" {
		t.Errorf("sink.delivery-guarantee = %q, want exactly-once", got)
	}
	if len(v.Warnings) != 1 || v.Warnings[0].Key != "sink.semantic" || v.Warnings[0].Replacement != "sink.delivery-guarantee" {
		t.Errorf("warnings = %+v, want one deprecation warning for sink.semantic", v.Warnings)
	}
	// Without a prefix, exactly-once derives one from the job and the table.
	prefix, derived, ok := transactionalIDPrefix(v, "job1")
	if !ok || !derived || prefix != "job1-cat.db.t" {
		t.Errorf("TransactionalIDPrefix = %q, %v, %v; want job1-cat.db.t, derived", prefix, derived, ok)
	}
	sink, _, err := factory.Default.CreateSink(context.Background(), kafkaTable("sink.semantic", "exactly-once"))
	if err != nil {
		t.Fatal(err)
	}
	ts, isTxn := sink.(*exactlyOnceSink)
	if !isTxn {
		t.Fatalf("sink is %T, want *TransactionalSink", sink)
	}
	if err := ts.resolvePrefix("job1"); err != nil || ts.TransactionalIDPrefix() != "job1-cat.db.t" {
		t.Errorf("resolved prefix %q (%v), want job1-cat.db.t", ts.TransactionalIDPrefix(), err)
	}

	v, err = factory.Default.Validate(kafkaTable("sink.delivery-guarantee", "exactly-once", "sink.transactional-id-prefix", "mine"))
	if err != nil {
		t.Fatal(err)
	}
	if prefix, derived, ok := transactionalIDPrefix(v, "job1"); !ok || derived || prefix != "mine" {
		t.Errorf("TransactionalIDPrefix = %q, %v, %v; want mine, not derived", prefix, derived, ok)
	}
	v, err = factory.Default.Validate(kafkaTable())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := transactionalIDPrefix(v, "job1"); ok {
		t.Error("an at-least-once sink has a transactional-id prefix")
	}
	if scan, sink := parallelism(v); scan != 0 || sink != 0 {
		t.Errorf("parallelism %d/%d without the options, want 0/0", scan, sink)
	}
	v, err = factory.Default.Validate(kafkaTable("scan.parallelism", "3", "sink.parallelism", "5"))
	if err != nil {
		t.Fatal(err)
	}
	if scan, sink := parallelism(v); scan != 3 || sink != 5 {
		t.Errorf("parallelism %d/%d, want 3/5", scan, sink)
	}
}

// TestCreateChecksSchema covers the rules that need the table's schema,
// applied when the source or sink is created.
func TestCreateChecksSchema(t *testing.T) {
	ctx := context.Background()
	noPK := upsertTable()
	noPK.Schema.PrimaryKey = nil
	withPK := kafkaTable()
	withPK.Schema.PrimaryKey = []string{"id"}
	badKey := kafkaTable("key.format", "json", "key.fields", "nope")
	unprefixed := kafkaTable("key.format", "json", "key.fields", "id", "key.fields-prefix", "k_", "value.fields-include", "EXCEPT_KEY")
	readOnlyMeta := kafkaTable()
	readOnlyMeta.Schema.Columns = append(readOnlyMeta.Schema.Columns, factory.Column{Name: "offset", Type: types.BigInt(), Kind: factory.Metadata})
	unknownMeta := kafkaTable()
	unknownMeta.Schema.Columns = append(unknownMeta.Schema.Columns, factory.Column{Name: "m", Type: types.BigInt(), Kind: factory.Metadata, MetadataKey: "value.source.ts"})
	badMetaType := kafkaTable()
	badMetaType.Schema.Columns = append(badMetaType.Schema.Columns, factory.Column{Name: "offset", Type: types.String(), Kind: factory.Metadata, Virtual: true})
	patternSink := kafkaTable("topic", "<unset>", "topic-pattern", "t.*")
	// A changelog format's table may have a PRIMARY KEY (a versioned
	// table of a temporal join); an insert-only format's may not.
	cdcPK := kafkaTable("format", "debezium-json")
	cdcPK.Schema.PrimaryKey = []string{"id"}
	if _, _, err := factory.Default.CreateSource(ctx, cdcPK); err != nil {
		t.Errorf("kafka with debezium-json and a primary key: %v", err)
	}
	badType := kafkaTable("format", "raw")
	for _, tc := range []struct {
		name   string
		table  factory.Table
		source bool
		want   string
	}{
		{"upsert without primary key (sink)", noPK, false, "PRIMARY KEY"},
		{"upsert without primary key (source)", noPK, true, "PRIMARY KEY"},
		{"kafka with primary key", withPK, false, "upsert-kafka"},
		{"unknown key field", badKey, true, "'nope'"},
		{"key field without prefix", unprefixed, false, "prefixed with 'k_'"},
		{"read-only metadata in a sink", readOnlyMeta, false, "VIRTUAL"},
		{"unknown metadata key", unknownMeta, true, "value.source.ts"},
		{"metadata column of the wrong type", badMetaType, true, "cannot hold Kafka metadata 'offset'"},
		{"pattern sink without topic column", patternSink, false, "'topic' metadata column"},
		{"raw format over two columns", badType, true, "raw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.source {
				var src any
				src, _, err = factory.Default.CreateSource(ctx, tc.table)
				if err == nil {
					// Format type checks run when a reader creates its decoder.
					_, err = src.(*source).cfg.NewDecoder()
				}
			} else {
				_, _, err = factory.Default.CreateSink(ctx, tc.table)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestCreateSourceOptions(t *testing.T) {
	ctx := context.Background()
	tbl := kafkaTable("scan.startup.mode", "<unset>", "scan.bounded.mode", "specific-offsets", "scan.bounded.specific-offsets", "partition:1,offset:7",
		"properties.isolation.level", "read_committed")
	src, _, err := factory.Default.CreateSource(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	cfg := src.(*source).cfg
	if cfg.StartupMode != startGroupOffsets || cfg.BoundedMode != boundedSpecificOffsets || cfg.BoundedSpecificOffsets[1] != 7 {
		t.Errorf("modes %v %v %v", cfg.StartupMode, cfg.BoundedMode, cfg.BoundedSpecificOffsets)
	}
	if cfg.Properties["group.id"] != "KafkaSource-cat.db.t" {
		t.Errorf("group.id = %q, want Flink's generated KafkaSource-<table>", cfg.Properties["group.id"])
	}
	if cfg.DiscoveryInterval != 5*time.Minute {
		t.Errorf("discovery interval %v, want Flink's default 5 min", cfg.DiscoveryInterval)
	}
	if !src.(*source).settings.readCommitted {
		t.Error("isolation.level read_committed not honoured")
	}
	// The validated options are not modified by the source's defaults.
	if _, ok := tbl.Options["properties.group.id"]; ok {
		t.Error("the table's options were modified")
	}
	up, _, err := factory.Default.CreateSource(ctx, upsertTable())
	if err != nil {
		t.Fatal(err)
	}
	if got := up.(*source).cfg.StartupMode; got != startEarliest {
		t.Errorf("upsert-kafka starts at %v, want earliest-offset", got)
	}
}

func TestCreateSinkOptions(t *testing.T) {
	ctx := context.Background()
	snk, _, err := factory.Default.CreateSink(ctx, kafkaTable("sink.delivery-guarantee", "exactly-once", "sink.transactional-id-prefix", "p1",
		"sink.transaction-naming-strategy", "INCREMENTING", "sink.partitioner", "round-robin", "properties.transaction.timeout.ms", "60000"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := snk.(*exactlyOnceSink).cfg
	if cfg.TransactionalIDPrefix != "p1" || cfg.TransactionNamingStrategy != incrementing || cfg.Partitioner != partitionerRoundRobin ||
		cfg.TransactionTimeout != time.Minute || cfg.Topic != "t" {
		t.Errorf("config %+v", cfg)
	}
	snk, _, err = factory.Default.CreateSink(ctx, upsertTable("sink.buffer-flush.max-rows", "5", "sink.buffer-flush.interval", "2s"))
	if err != nil {
		t.Fatal(err)
	}
	pc := snk.(*sink).cfg
	if pc.BufferFlushMaxRows != 5 || pc.BufferFlushInterval != 2*time.Second || pc.NewKeyFunc == nil || pc.DeliveryGuarantee != atLeastOnce {
		t.Errorf("upsert config %+v", pc)
	}
}

// TestParallelismAtLeastOne: scan.parallelism and sink.parallelism below
// 1 are rejected with a RuleError naming the option (they used to be
// accepted and ignored), as by the other connectors' shared rule.
func TestParallelismAtLeastOne(t *testing.T) {
	for _, key := range []string{"scan.parallelism", "sink.parallelism"} {
		for _, v := range []string{"0", "-2"} {
			_, err := factory.Default.Validate(kafkaTable(key, v))
			var re *option.RuleError
			if !errors.As(err, &re) || len(re.Keys) != 1 || re.Keys[0] != key || !strings.Contains(err.Error(), key+" must be at least 1") {
				t.Errorf("%s = %s: %v, want a RuleError for %s", key, v, err, key)
			}
		}
	}
}
