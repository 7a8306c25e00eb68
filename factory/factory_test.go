package factory

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Test declarations, shaped like the Kafka connector's.
var (
	optTopic        = option.List("topic").Description("Topics to read or write.")
	optTopicPattern = option.String("topic-pattern")
	optServers      = option.String("properties.bootstrap.servers").Required()
	optProps        = option.Prefix("properties.")
	optStartup      = option.Enum("scan.startup.mode", "earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets").Default("group-offsets")
	optSpecific     = option.String("scan.startup.specific-offsets")
	optDiscovery    = option.Duration("scan.topic-partition-discovery.interval").Default(5 * time.Minute)
	optParallelism  = option.Int("sink.parallelism")
	optGuarantee    = option.Enum("sink.delivery-guarantee", "at-least-once", "exactly-once", "none").Default("at-least-once").
			DeprecatedKey("sink.semantic", map[string]string{"exactly-once": "exactly-once", "at-least-once": "at-least-once", "none": "none"})
	optPrefixTx  = option.String("sink.transactional-id-prefix")
	optPartition = option.Enum("sink.partitioner", "default", "fixed", "round-robin").Default("default")
	optKeyFields = option.List("key.fields")
	optBuffer    = option.Size("sink.buffer-size").Default(option.MemorySize(64 << 20))
	optPassword  = option.String("sasl.password").Sensitive()
	optValueFmt  = FormatOption("value.format").FallbackKeys("format")
	optKeyFmt    = FormatOption("key.format")
	optEnabled   = option.Bool("enabled").Default(true)
	optMaxRows   = option.Long("sink.buffer-flush.max-rows").Default(0)
	optRatio     = option.Float("ratio")
	optHeaders   = option.Map("headers")
)

// Test format options.
var (
	fmtFail   = option.Bool("fail-on-missing-field").Default(false)
	fmtIgnore = option.Bool("ignore-parse-errors").Default(false)
	fmtToken  = option.String("token")
	fmtMode   = option.Enum("mode", "A", "B").Default("A")
	fmtLit    = option.String("literal")
)

type memSource struct{ table string }

func (memSource) Splits(context.Context) ([]connector.Split, error) { return nil, nil }
func (memSource) Open(context.Context, connector.TaskInfo, []connector.SplitState) (connector.Reader, error) {
	return nil, errors.New("not used")
}
func (memSource) Bounded() bool { return true }

type memSink struct{ table string }

func (memSink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return nil, errors.New("not used")
}

func testConnector() ConnectorFactory {
	return ConnectorFactory{
		Identifier:  "testkafka",
		Description: "A test connector shaped like Kafka.",
		Options: []option.Option{optTopic, optTopicPattern, optServers, optProps, optStartup, optSpecific, optDiscovery,
			optParallelism, optGuarantee, optPrefixTx, optPartition, optKeyFields, optBuffer, optPassword,
			optValueFmt, optKeyFmt, optEnabled, optMaxRows, optRatio, optHeaders},
		Rules: []option.Rule{
			option.OneOf("a table reads or writes either named topics or a pattern", optTopic, optTopicPattern),
			option.RequiredWhen(optSpecific, optStartup, []string{"specific-offsets"}, "the start offsets must be given"),
			option.RequiredWhen(optKeyFields, optKeyFmt, nil, "a key format needs the key columns"),
			option.Conflicts(optTopicPattern, optKeyFields, "test conflict between a pattern and key fields"),
			option.Check("'round-robin' partitioner only works when 'key.fields' is not specified", func(c *option.Config) error {
				if optPartition.Get(c) == "round-robin" && c.Has(optKeyFields) {
					return errors.New("remove 'key.fields' or choose another partitioner")
				}
				return nil
			}, optPartition, optKeyFields),
		},
		NewSource: func(ctx Context) (connector.Source, error) { return memSource{ctx.Table}, nil },
		NewSink:   func(ctx Context) (connector.Sink, error) { return memSink{ctx.Table}, nil },
	}
}

func testFormat() FormatFactory {
	return FormatFactory{
		Identifier: "tjson",
		Options:    []option.Option{fmtFail, fmtIgnore, fmtToken.Sensitive(), fmtMode, fmtLit},
		Rules: []option.Rule{
			option.Conflicts(fmtFail, fmtIgnore, "fail-on-missing-field and ignore-parse-errors are exclusive"),
			option.RequiredWhen(fmtLit, fmtMode, []string{"B"}, "mode B writes the literal"),
		},
		NewDecoder: func(FormatContext) (Decoder, error) { return nil, nil },
	}
}

func testRegistry(t *testing.T) *Registry {
	t.Helper()
	r := NewRegistry()
	if err := r.RegisterConnector(testConnector()); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterFormat(testFormat()); err != nil {
		t.Fatal(err)
	}
	src := ConnectorFactory{Identifier: "source-only", NewSource: func(Context) (connector.Source, error) { return memSource{}, nil }}
	if err := r.RegisterConnector(src); err != nil {
		t.Fatal(err)
	}
	return r
}

func base() map[string]string {
	return map[string]string{
		"connector":                    "testkafka",
		"topic":                        "orders",
		"properties.bootstrap.servers": "localhost:9092",
		"format":                       "tjson",
	}
}

func with(m map[string]string, kv ...string) map[string]string {
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "<delete>" {
			delete(m, kv[i])
			continue
		}
		m[kv[i]] = kv[i+1]
	}
	return m
}

func validate(t *testing.T, opts map[string]string) (*Validated, error) {
	t.Helper()
	v, err := testRegistry(t).Validate(Table{Name: "cat.db.orders", Options: opts})
	if err != nil {
		var te *TableError
		if !errors.As(err, &te) || te.Table != "cat.db.orders" {
			t.Fatalf("error is not a *TableError for the table: %v", err)
		}
	}
	return v, err
}

func TestValidateTypedConfig(t *testing.T) {
	v, err := validate(t, with(base(),
		"topic", "a; b;",
		"scan.topic-partition-discovery.interval", "30 s",
		"sink.parallelism", "4",
		"sink.buffer-size", "1 gb",
		"properties.group.id", "g1",
		"properties.isolation.level", "read_committed",
		"scan.startup.mode", "EARLIEST-OFFSET",
		"enabled", "FALSE",
		"sink.buffer-flush.max-rows", "9000000000",
		"ratio", "1.5",
		"headers", "a:1, b : x:y",
		"json.fail-on-missing-field", "<delete>",
		"tjson.fail-on-missing-field", "true",
	))
	if err != nil {
		t.Fatal(err)
	}
	c := v.Config
	if got := optTopic.Get(c); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("topic = %q", got)
	}
	if got := optDiscovery.Get(c); got != 30*time.Second {
		t.Errorf("discovery = %v", got)
	}
	if got := optParallelism.Get(c); got != 4 {
		t.Errorf("parallelism = %d", got)
	}
	if got := optBuffer.Get(c); got != 1<<30 {
		t.Errorf("buffer = %d", got)
	}
	if got := optProps.Get(c); !reflect.DeepEqual(got, map[string]string{"bootstrap.servers": "localhost:9092", "group.id": "g1", "isolation.level": "read_committed"}) {
		t.Errorf("properties = %v", got)
	}
	if got := optStartup.Get(c); got != "earliest-offset" {
		t.Errorf("startup mode = %q, want the declared spelling", got)
	}
	if optEnabled.Get(c) {
		t.Error("enabled should be false")
	}
	if optMaxRows.Get(c) != 9000000000 || optRatio.Get(c) != 1.5 {
		t.Error("long/float options not parsed")
	}
	if got := optHeaders.Get(c); !reflect.DeepEqual(got, map[string]string{"a": "1", "b": "x:y"}) {
		t.Errorf("headers = %v", got)
	}
	// Defaults apply when absent.
	if got := optGuarantee.Get(c); got != "at-least-once" {
		t.Errorf("guarantee default = %q", got)
	}
	if _, set := optGuarantee.Lookup(c); set || c.Has(optGuarantee) {
		t.Error("a default must not count as set")
	}
	// 'format' is the fallback of value.format, with the json. prefix.
	f := optValueFmt.Get(c)
	if f == nil || f.Identifier() != "tjson" || f.Prefix != "tjson." || f.Key != "format" {
		t.Fatalf("value format = %+v", f)
	}
	if !fmtFail.Get(f.Options) || fmtIgnore.Get(f.Options) {
		t.Error("format options not read under the tjson. prefix")
	}
	if optKeyFmt.Get(c) != nil {
		t.Error("key.format not set, Get must return nil")
	}
	if len(v.Warnings) != 0 {
		t.Errorf("unexpected warnings %v", v.Warnings)
	}
}

func TestFormatPrefixes(t *testing.T) {
	v, err := validate(t, with(base(), "format", "<delete>",
		"value.format", "tjson", "value.tjson.ignore-parse-errors", "true",
		"key.format", "tjson", "key.tjson.mode", "b", "key.tjson.literal", "x", "key.fields", "id"))
	if err != nil {
		t.Fatal(err)
	}
	vf, kf := optValueFmt.Get(v.Config), optKeyFmt.Get(v.Config)
	if vf.Prefix != "value.tjson." || !fmtIgnore.Get(vf.Options) {
		t.Errorf("value format %+v", vf)
	}
	if kf.Prefix != "key.tjson." || fmtMode.Get(kf.Options) != "B" || fmtLit.Get(kf.Options) != "x" {
		t.Errorf("key format %+v", kf)
	}
	// A format option under the wrong prefix is unsupported.
	_, err = validate(t, with(base(), "value.tjson.ignore-parse-errors", "true"))
	var ue *option.UnsupportedOptionsError
	if !errors.As(err, &ue) || !reflect.DeepEqual(ue.Keys, []string{"value.tjson.ignore-parse-errors"}) {
		t.Fatalf("want unsupported value.tjson.*, got %v", err)
	}
}

func TestMissingConnector(t *testing.T) {
	_, err := validate(t, with(base(), "connector", "<delete>"))
	var me *option.MissingOptionsError
	if !errors.As(err, &me) || !reflect.DeepEqual(me.Keys, []string{"connector"}) {
		t.Fatalf("got %v", err)
	}
}

// TestLegacyConnectorProperties: a table declared with Flink's pre-1.11
// properties (Nexmark's q13 side input) gets the missing 'connector' error
// with a hint how to write it today.
func TestLegacyConnectorProperties(t *testing.T) {
	_, err := validate(t, map[string]string{"connector.type": "filesystem", "connector.path": "file:///tmp/x", "format.type": "csv"})
	var me *option.MissingOptionsError
	if !errors.As(err, &me) || !reflect.DeepEqual(me.Keys, []string{"connector"}) {
		t.Fatalf("got %v", err)
	}
	var le *LegacyOptionsError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "'path' for 'connector.path'") {
		t.Fatalf("no legacy hint in %v", err)
	}
	_, err = validate(t, with(base(), "connector", "<delete>"))
	if errors.As(err, &le) {
		t.Fatalf("legacy hint without legacy properties: %v", err)
	}
}

func TestUnknownConnectorAndFormat(t *testing.T) {
	_, err := validate(t, with(base(), "connector", "testkafak"))
	var ue *UnknownFactoryError
	if !errors.As(err, &ue) || ue.Key != "connector" || !reflect.DeepEqual(ue.Available, []string{"source-only", "testkafka"}) {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "Did you mean 'testkafka'?") {
		t.Errorf("no suggestion in %q", err)
	}
	_, err = validate(t, with(base(), "format", "avro"))
	if !errors.As(err, &ue) || ue.Key != "format" || ue.Identifier != "avro" || !reflect.DeepEqual(ue.Available, []string{"tjson"}) {
		t.Fatalf("got %v", err)
	}
}

func TestMissingRequired(t *testing.T) {
	_, err := validate(t, with(base(), "properties.bootstrap.servers", "<delete>"))
	var me *option.MissingOptionsError
	if !errors.As(err, &me) || !reflect.DeepEqual(me.Keys, []string{"properties.bootstrap.servers"}) {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "Missing required options are:\n\nproperties.bootstrap.servers") {
		t.Errorf("message %q", err)
	}
}

func TestUnsupportedWithSuggestionAndDeprecatedMarks(t *testing.T) {
	_, err := validate(t, with(base(), "scan.startup.mod", "earliest-offset", "zzz", "1"))
	var ue *option.UnsupportedOptionsError
	if !errors.As(err, &ue) {
		t.Fatalf("got %v", err)
	}
	if !reflect.DeepEqual(ue.Keys, []string{"scan.startup.mod", "zzz"}) {
		t.Errorf("keys %v", ue.Keys)
	}
	if ue.Suggestions["scan.startup.mod"] != "scan.startup.mode" {
		t.Errorf("suggestions %v", ue.Suggestions)
	}
	if _, ok := ue.Suggestions["zzz"]; ok {
		t.Error("no suggestion expected for zzz")
	}
	var names []string
	for _, s := range ue.Supported {
		names = append(names, s.String())
	}
	for i := 1; i < len(ue.Supported); i++ {
		if ue.Supported[i-1].Key > ue.Supported[i].Key {
			t.Fatalf("supported list not sorted: %v", names)
		}
	}
	for _, want := range []string{"connector", "sink.semantic (deprecated)", "properties.*", "tjson.fail-on-missing-field", "format", "value.format"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("supported list lacks %q: %v", want, names)
		}
	}
	if !strings.Contains(err.Error(), "scan.startup.mod (did you mean 'scan.startup.mode'?)") {
		t.Errorf("message %q", err)
	}
}

func TestInvalidValues(t *testing.T) {
	cases := []struct {
		key, value string
		typ        option.ValueType
		allowed    []string
	}{
		{"sink.parallelism", "four", option.TypeInt, nil},
		{"sink.parallelism", "9999999999", option.TypeInt, nil},
		{"sink.buffer-flush.max-rows", "x", option.TypeLong, nil},
		{"ratio", "half", option.TypeFloat, nil},
		{"enabled", "yes", option.TypeBool, nil},
		{"scan.topic-partition-discovery.interval", "5 fortnights", option.TypeDuration, nil},
		{"scan.topic-partition-discovery.interval", "soon", option.TypeDuration, nil},
		{"sink.buffer-size", "64 parsecs", option.TypeMemorySize, nil},
		{"headers", "novalue", option.TypeMap, nil},
		{"scan.startup.mode", "earliest", option.TypeEnum, []string{"earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets"}},
		{"tjson.mode", "C", option.TypeEnum, []string{"A", "B"}},
	}
	for _, tc := range cases {
		_, err := validate(t, with(base(), tc.key, tc.value))
		var ie *option.InvalidValueError
		if !errors.As(err, &ie) {
			t.Errorf("%s=%s: got %v", tc.key, tc.value, err)
			continue
		}
		if ie.Key != tc.key || ie.Value != tc.value || ie.Type != tc.typ || !reflect.DeepEqual(ie.Allowed, tc.allowed) {
			t.Errorf("%s=%s: got %+v", tc.key, tc.value, ie)
		}
		if tc.allowed != nil && !strings.Contains(err.Error(), "allowed values are: "+strings.Join(tc.allowed, ", ")) {
			t.Errorf("message lacks allowed values: %q", err)
		}
	}
}

func TestSensitiveValuesMasked(t *testing.T) {
	// A declared sensitive option with a bad value... (strings never fail to
	// parse, so use a conflict via a format's sensitive option and the
	// outer listing.)
	_, err := validate(t, with(base(),
		"sasl.password", "hunter2",
		"properties.sasl.jaas.config", "secret-jaas",
		"tjson.token", "tok-123",
		"enabled", "maybe"))
	if err == nil {
		t.Fatal("want error")
	}
	msg := err.Error()
	for _, secret := range []string{"hunter2", "secret-jaas", "tok-123"} {
		if strings.Contains(msg, secret) {
			t.Errorf("secret %q leaked: %s", secret, msg)
		}
	}
	for _, want := range []string{"'sasl.password'='******'", "'properties.sasl.jaas.config'='******'", "'tjson.token'='******'", "'enabled'='maybe'"} {
		if !strings.Contains(msg, want) {
			t.Errorf("listing lacks %s: %s", want, msg)
		}
	}
	var te *TableError
	errors.As(err, &te)
	for i := 1; i < len(te.Options); i++ {
		if te.Options[i-1].Key > te.Options[i].Key {
			t.Error("options not sorted")
		}
	}
	// A sensitive enum-like value that fails to parse is masked in the
	// inner error too.
	r := NewRegistry()
	r.MustRegisterConnector(ConnectorFactory{Identifier: "s", Options: []option.Option{option.Int("secret.count").Sensitive()},
		NewSink: func(Context) (connector.Sink, error) { return memSink{}, nil }})
	_, err = r.Validate(Table{Name: "t", Options: map[string]string{"connector": "s", "secret.count": "pw-in-int"}})
	var ie *option.InvalidValueError
	if !errors.As(err, &ie) || ie.Value != option.Mask || strings.Contains(err.Error(), "pw-in-int") {
		t.Fatalf("got %v", err)
	}
}

func TestDeprecatedKey(t *testing.T) {
	v, err := validate(t, with(base(), "sink.semantic", "EXACTLY-ONCE", "sink.transactional-id-prefix", "p"))
	if err != nil {
		t.Fatal(err)
	}
	if got := optGuarantee.Get(v.Config); got != "exactly-once" {
		t.Errorf("guarantee = %q", got)
	}
	if v.Config.KeyUsed(optGuarantee) != "sink.semantic" {
		t.Errorf("key used = %q", v.Config.KeyUsed(optGuarantee))
	}
	if len(v.Warnings) != 1 || v.Warnings[0].Key != "sink.semantic" || v.Warnings[0].Replacement != "sink.delivery-guarantee" {
		t.Fatalf("warnings %v", v.Warnings)
	}
	// Same value under both keys: accepted, with the warning.
	v, err = validate(t, with(base(), "sink.semantic", "exactly-once", "sink.delivery-guarantee", "exactly-once"))
	if err != nil || len(v.Warnings) != 1 {
		t.Fatalf("err %v warnings %v", err, v)
	}
	// Different values: a conflict.
	_, err = validate(t, with(base(), "sink.semantic", "exactly-once", "sink.delivery-guarantee", "at-least-once"))
	var ce *option.ConflictError
	if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Keys, []string{"sink.delivery-guarantee", "sink.semantic"}) {
		t.Fatalf("got %v", err)
	}
	// A bad value under the deprecated key names that key.
	_, err = validate(t, with(base(), "sink.semantic", "twice"))
	var ie *option.InvalidValueError
	if !errors.As(err, &ie) || ie.Key != "sink.semantic" {
		t.Fatalf("got %v", err)
	}
}

func TestFallbackConflict(t *testing.T) {
	// 'format' and 'value.format' naming different formats conflict.
	r := testRegistry(t)
	f2 := testFormat()
	f2.Identifier = "tcsv"
	r.MustRegisterFormat(f2)
	_, err := r.Validate(Table{Name: "t", Options: with(base(), "value.format", "tcsv")})
	var ce *option.ConflictError
	if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Keys, []string{"value.format", "format"}) {
		t.Fatalf("got %v", err)
	}
}

func TestRules(t *testing.T) {
	var re *option.RequirementError
	var ce *option.ConflictError
	var rue *option.RuleError

	_, err := validate(t, with(base(), "scan.startup.mode", "specific-offsets"))
	if !errors.As(err, &re) || !reflect.DeepEqual(re.Keys, []string{"scan.startup.specific-offsets"}) || re.When != "scan.startup.mode" || re.Value != "specific-offsets" {
		t.Fatalf("required-when: %v", err)
	}
	if _, err := validate(t, with(base(), "scan.startup.mode", "specific-offsets", "scan.startup.specific-offsets", "partition:0,offset:1")); err != nil {
		t.Fatalf("satisfied required-when: %v", err)
	}
	_, err = validate(t, with(base(), "key.format", "tjson"))
	if !errors.As(err, &re) || re.Keys[0] != "key.fields" || re.When != "key.format" {
		t.Fatalf("required-when-set: %v", err)
	}
	_, err = validate(t, with(base(), "topic", "<delete>"))
	if !errors.As(err, &re) || !reflect.DeepEqual(re.Keys, []string{"topic", "topic-pattern"}) || re.When != "" {
		t.Fatalf("one-of none: %v", err)
	}
	_, err = validate(t, with(base(), "topic-pattern", "o.*"))
	if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Keys, []string{"topic", "topic-pattern"}) {
		t.Fatalf("one-of both: %v", err)
	}
	_, err = validate(t, with(base(), "topic", "<delete>", "topic-pattern", "o.*", "key.fields", "id"))
	if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Keys, []string{"topic-pattern", "key.fields"}) || ce.Reason == "" {
		t.Fatalf("conflict: %v", err)
	}
	_, err = validate(t, with(base(), "sink.partitioner", "round-robin", "key.fields", "id"))
	if !errors.As(err, &rue) || !strings.Contains(err.Error(), "round-robin") {
		t.Fatalf("check: %v", err)
	}
	// Format rules apply with the format's prefix.
	_, err = validate(t, with(base(), "tjson.fail-on-missing-field", "true", "tjson.ignore-parse-errors", "true"))
	if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Keys, []string{"tjson.fail-on-missing-field", "tjson.ignore-parse-errors"}) {
		t.Fatalf("format conflict: %v", err)
	}
	_, err = validate(t, with(base(), "tjson.mode", "B"))
	if !errors.As(err, &re) || re.Keys[0] != "tjson.literal" || re.When != "tjson.mode" {
		t.Fatalf("format required-when: %v", err)
	}
}

func TestSeveralProblemsReportedTogether(t *testing.T) {
	_, err := validate(t, with(base(), "properties.bootstrap.servers", "<delete>", "topik", "x", "enabled", "x"))
	var me *option.MissingOptionsError
	var ue *option.UnsupportedOptionsError
	var ie *option.InvalidValueError
	if !errors.As(err, &me) || !errors.As(err, &ue) || !errors.As(err, &ie) {
		t.Fatalf("want missing, unsupported and invalid together: %v", err)
	}
	if ue.Suggestions["topik"] != "topic" {
		t.Errorf("suggestions %v", ue.Suggestions)
	}
	if strings.Index(err.Error(), "unsupported") > strings.Index(err.Error(), "required options are missing") {
		t.Error("unsupported options should be reported first: they often explain missing ones")
	}
}

func TestCreateSourceAndSink(t *testing.T) {
	r := testRegistry(t)
	schema := Schema{Columns: []Column{{Name: "id", Type: types.BigInt()}, {Name: "ts", Type: types.TimestampLTZ(3), Kind: Metadata, MetadataKey: "timestamp"}}}
	src, v, err := r.CreateSource(context.Background(), Table{Name: "orders", Schema: schema, Options: base()})
	if err != nil {
		t.Fatal(err)
	}
	if src.(memSource).table != "orders" || v.Factory.Identifier != "testkafka" {
		t.Errorf("source %+v", src)
	}
	if got := v.Table.Schema.PhysicalFields(); len(got) != 1 || got[0].Name != "id" {
		t.Errorf("physical fields %v", got)
	}
	sink, _, err := r.CreateSink(context.Background(), Table{Name: "out", Options: base()})
	if err != nil || sink.(memSink).table != "out" {
		t.Fatalf("sink %v %v", sink, err)
	}
	_, _, err = r.CreateSink(context.Background(), Table{Name: "out", Options: map[string]string{"connector": "source-only"}})
	var ce *CapabilityError
	var te *TableError
	if !errors.As(err, &ce) || ce.Wanted != "sink" || !errors.As(err, &te) || te.Action != "sink" {
		t.Fatalf("got %v", err)
	}
	if !strings.HasPrefix(err.Error(), "unable to create a sink for writing table 'out': connector 'source-only' can only be used as a source") {
		t.Errorf("message %q", err)
	}
	// Factory errors are wrapped in the table error.
	boom := errors.New("boom")
	r.MustRegisterConnector(ConnectorFactory{Identifier: "failing", NewSource: func(Context) (connector.Source, error) { return nil, boom }})
	_, _, err = r.CreateSource(context.Background(), Table{Name: "t", Options: map[string]string{"connector": "failing"}})
	if !errors.Is(err, boom) || !errors.As(err, &te) || te.Action != "source" {
		t.Fatalf("got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := r.CreateSource(ctx, Table{Name: "t", Options: base()}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	ok := ConnectorFactory{Identifier: "a", NewSink: func(Context) (connector.Sink, error) { return memSink{}, nil }}
	if err := r.RegisterConnector(ok); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterConnector(ok); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate: %v", err)
	}
	bad := []ConnectorFactory{
		{Identifier: "", NewSink: ok.NewSink},
		{Identifier: " x", NewSink: ok.NewSink},
		{Identifier: "neither"},
		{Identifier: "nilopt", Options: []option.Option{nil}, NewSink: ok.NewSink},
		{Identifier: "dupopt", Options: []option.Option{option.String("k"), option.Int("k")}, NewSink: ok.NewSink},
		{Identifier: "dupdep", Options: []option.Option{option.String("k"), option.String("j").DeprecatedKey("k", nil)}, NewSink: ok.NewSink},
		{Identifier: "conn", Options: []option.Option{option.String("connector")}, NewSink: ok.NewSink},
		{Identifier: "enum", Options: []option.Option{option.Enum("e")}, NewSink: ok.NewSink},
		{Identifier: "enumdef", Options: []option.Option{option.Enum("e", "a").Default("b")}, NewSink: ok.NewSink},
		{Identifier: "rule", Rules: []option.Rule{option.Conflicts(option.String("x"), option.String("y"), "r")}, NewSink: ok.NewSink},
	}
	for _, f := range bad {
		if err := r.RegisterConnector(f); !errors.Is(err, ErrInvalidFactory) {
			t.Errorf("%q: want ErrInvalidFactory, got %v", f.Identifier, err)
		}
	}
	if err := r.RegisterFormat(FormatFactory{Identifier: "f", Options: []option.Option{FormatOption("format")}, NewEncoder: func(FormatContext) (Encoder, error) { return nil, nil }}); !errors.Is(err, ErrInvalidFactory) {
		t.Errorf("format declaring a format option: %v", err)
	}
	if err := r.RegisterFormat(FormatFactory{Identifier: "f"}); !errors.Is(err, ErrInvalidFactory) {
		t.Errorf("format with no codec: %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("MustRegisterConnector did not panic on a duplicate")
			}
		}()
		r.MustRegisterConnector(ok)
	}()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("MustRegisterFormat did not panic on an empty identifier")
			}
		}()
		r.MustRegisterFormat(FormatFactory{})
	}()

	c := r.Clone()
	c.MustRegisterConnector(ConnectorFactory{Identifier: "b", NewSink: ok.NewSink})
	c.MustRegisterFormat(testFormat())
	if !reflect.DeepEqual(r.Connectors(), []string{"a"}) || len(r.Formats()) != 0 {
		t.Errorf("clone changed the original: %v %v", r.Connectors(), r.Formats())
	}
	if !reflect.DeepEqual(c.Connectors(), []string{"a", "b"}) || !reflect.DeepEqual(c.Formats(), []string{"tjson"}) {
		t.Errorf("clone: %v %v", c.Connectors(), c.Formats())
	}
	if _, ok := c.Connector("b"); !ok {
		t.Error("Connector lookup")
	}
	if _, ok := c.Format("nope"); ok {
		t.Error("Format lookup")
	}
}

func TestOptDeclarationsAreValues(t *testing.T) {
	a := option.String("k")
	b := a.Required().Sensitive().Description("d")
	if a.Info().Required || a.Info().Sensitive || a.Info().Description != "" {
		t.Error("chained methods modified the original declaration")
	}
	if !b.Info().Required || b.Key() != "k" {
		t.Error("chained declaration lost")
	}
	var nilCfg *option.Config
	if nilCfg.Has(a) || b.Get(nilCfg) != "" {
		t.Error("nil config")
	}
	if _, ok := a.Lookup(nilCfg); ok {
		t.Error("nil config lookup")
	}
}

func TestPhysicalSchemaIsPhysicalFieldsInverse(t *testing.T) {
	fields := []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}}
	s := PhysicalSchema(fields)
	for _, c := range s.Columns {
		if c.Kind != Physical {
			t.Errorf("column %s is of kind %v, want Physical", c.Name, c.Kind)
		}
	}
	if got := s.PhysicalFields(); !reflect.DeepEqual(got, fields) {
		t.Errorf("PhysicalSchema(fields).PhysicalFields() = %v, want %v", got, fields)
	}
}
