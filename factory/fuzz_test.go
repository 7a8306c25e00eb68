package factory_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// fuzzOpts are options of every value type, declared on the connector
// "fuzz" of fuzzOptionRegistry. Each has a deprecated alias (key + ".old")
// so that the comparison of an option with its alias parses too.
var (
	fuzzString   = option.String("s").DeprecatedKey("s.old", nil)
	fuzzInt      = option.Int("i").DeprecatedKey("i.old", nil)
	fuzzLong     = option.Long("l").DeprecatedKey("l.old", nil)
	fuzzFloat    = option.Float("f").DeprecatedKey("f.old", nil)
	fuzzBool     = option.Bool("b").DeprecatedKey("b.old", nil)
	fuzzDuration = option.Duration("d").DeprecatedKey("d.old", nil)
	fuzzSize     = option.Size("z").DeprecatedKey("z.old", nil)
	fuzzEnum     = option.Enum("e", "earliest-offset", "latest-offset", "GROUP_OFFSETS").
			DeprecatedKey("e.old", map[string]string{"earliest": "earliest-offset"})
	fuzzList   = option.List("list").DeprecatedKey("list.old", nil)
	fuzzMap    = option.Map("map").DeprecatedKey("map.old", nil)
	fuzzSecret = option.String("secret-value").Sensitive().DeprecatedKey("secret-value.old", nil)
	fuzzFormat = factory.FormatOption("value.format").FallbackKeys("format")
)

var fuzzOptions = []option.Option{fuzzString, fuzzInt, fuzzLong, fuzzFloat, fuzzBool, fuzzDuration, fuzzSize,
	fuzzEnum, fuzzList, fuzzMap, fuzzSecret, fuzzFormat}

// fuzzOptionRegistry is the default registry (every built-in connector
// and format) plus the connector "fuzz" declaring fuzzOptions.
func fuzzOptionRegistry(tb testing.TB) *factory.Registry {
	r := factory.Default.Clone()
	err := r.RegisterConnector(factory.ConnectorFactory{
		Identifier: "fuzz",
		Options:    fuzzOptions,
		Rules: []option.Rule{
			option.RequiredWhen(fuzzMap, fuzzEnum, []string{"GROUP_OFFSETS"}, "group offsets need a map"),
			option.Conflicts(fuzzInt, fuzzLong, "one number only"),
		},
		NewSource: func(factory.Context) (connector.Source, error) { return nil, errors.New("not created") },
	})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// FuzzOptionValue checks every option value parser (String, Int, Long,
// Float, Bool, Duration, Size, Enum, List, Map, Format) through the one
// validation path, and the exported parsers directly: no value panics; a
// rejected value is an *InvalidValueError (or, for a format, an
// *UnknownFactoryError) naming its key, masked when sensitive; an accepted
// value reads back with Get and survives being written back in the
// syntax the configuration reference uses (FormatDuration,
// MemorySize.String, ';'-joined lists, "k:v,..." maps). Run it with
//
//	go test -run '^$' -fuzz FuzzOptionValue -fuzztime 3m -parallel 1 ./factory
func FuzzOptionValue(f *testing.F) {
	for _, v := range []string{"", " ", "0", "-1", "10", "2147483648", "9223372036854775808", "1.5", "NaN", "-Inf",
		"1e400", "true", "FALSE", "yes", "10s", "10 s", "1 min", "500", "9223372036854775807 ns", "106751 d",
		"106752 days", "µs", "5 µs", "64mb", "1 GB", "8388608 tb", "8388607 t", "512k", "a;b;;c ", ";", "a:1,b:2:3",
		"a:1,", ":1", "k:", "earliest", "group_offsets", "json", "csv", "avro", " json ", "\x00", "\xff\xfe", "1_000",
		"+5", "0x10", "1٣"} {
		f.Add(v, v)
	}
	f.Add("10 s", "10000")
	f.Add("64mb", "67108864 b")
	f.Add("a;b", "a ; b")
	reg := fuzzOptionRegistry(f)
	f.Fuzz(func(t *testing.T, text, alias string) {
		checkParsers(t, text)
		for _, o := range fuzzOptions {
			key := o.Key()
			opts := map[string]string{"connector": "fuzz", key: text}
			if o == option.Option(fuzzEnum) && strings.EqualFold(strings.TrimSpace(text), "group_offsets") {
				opts["map"] = "a:b"
			}
			v, err := reg.Validate(factory.Table{Name: "t", Options: opts})
			checkValidateResult(t, reg, opts, v, err)
			if err != nil {
				checkRejected(t, o, key, text, err)
			} else {
				checkAccepted(t, reg, o, text, v.Config)
			}
			// The option and its deprecated alias (or fallback) together:
			// equal values are accepted with a warning, different ones
			// conflict; neither panics.
			other := key + ".old"
			if o == option.Option(fuzzFormat) {
				other = "format"
			}
			opts[other] = alias
			v, err = reg.Validate(factory.Table{Name: "t", Options: opts})
			checkValidateResult(t, reg, opts, v, err)
		}
	})
}

// checkParsers checks the exported parsers on text.
func checkParsers(t *testing.T, text string) {
	if d, err := option.ParseDuration(text); err == nil {
		if d < 0 {
			t.Fatalf("ParseDuration(%q) = %v, negative", text, d)
		}
		if d2, err := option.ParseDuration(option.FormatDuration(d)); err != nil || d2 != d {
			t.Fatalf("ParseDuration(%q) = %v, written %q, read back %v, %v", text, d, option.FormatDuration(d), d2, err)
		}
	} else if err.Error() == "" {
		t.Fatal("empty ParseDuration error")
	}
	if m, err := option.ParseMemorySize(text); err == nil {
		if m < 0 {
			t.Fatalf("ParseMemorySize(%q) = %d, negative", text, m)
		}
		if m2, err := option.ParseMemorySize(m.String()); err != nil || m2 != m {
			t.Fatalf("ParseMemorySize(%q) = %d, written %q, read back %d, %v", text, m, m.String(), m2, err)
		}
	} else if err.Error() == "" {
		t.Fatal("empty ParseMemorySize error")
	}
	items := option.ParseList(text)
	for _, it := range items {
		if it == "" || it != strings.TrimSpace(it) || strings.Contains(it, ";") {
			t.Fatalf("ParseList(%q) = %q", text, items)
		}
	}
	if back := option.ParseList(strings.Join(items, ";")); !slices.Equal(back, items) {
		t.Fatalf("ParseList(%q) = %q, read back %q", text, items, back)
	}
	if m, err := option.ParseMap(text); err == nil {
		if back, err := option.ParseMap(writeMap(m)); err != nil || !maps.Equal(back, m) {
			t.Fatalf("ParseMap(%q) = %q, written %q, read back %q, %v", text, m, writeMap(m), back, err)
		}
	} else if err.Error() == "" {
		t.Fatal("empty ParseMap error")
	}
}

func writeMap(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+":"+m[k])
	}
	return strings.Join(parts, ",")
}

// checkValidateResult checks what holds of every Validate call: a result
// or an error, never both; the error a *TableError over non-empty typed
// errors, none showing a sensitive value.
func checkValidateResult(t *testing.T, reg *factory.Registry, opts map[string]string, v *factory.Validated, err error) {
	t.Helper()
	if (v == nil) == (err == nil) {
		t.Fatalf("Validate(%q) returned %v and %v", opts, v, err)
	}
	if err == nil {
		return
	}
	var te *factory.TableError
	if !errors.As(err, &te) {
		t.Fatalf("Validate(%q) error %T is not a *TableError: %v", opts, err, err)
	}
	for _, leaf := range leaves(te.Err) {
		if leaf.Error() == "" {
			t.Fatalf("Validate(%q): empty error %#v", opts, leaf)
		}
		checkNamesOption(t, opts, leaf)
	}
	checkMasked(t, reg, opts, err, func(o map[string]string) error {
		_, err := reg.Validate(factory.Table{Name: "t", Schema: fuzzSchema, Options: o})
		return err
	})
}

// checkNamesOption checks that a typed validation error names the options
// it is about, and that they are options of the table.
func checkNamesOption(t *testing.T, opts map[string]string, err error) {
	t.Helper()
	var keys []string
	msg := err.Error()
	switch e := err.(type) {
	case *option.InvalidValueError:
		keys = []string{e.Key}
		if !strings.Contains(msg, "'"+e.Key+"'") {
			t.Fatalf("invalid value error does not name '%s': %s", e.Key, msg)
		}
	case *option.UnsupportedOptionsError:
		keys = e.Keys
	case *option.ConflictError:
		keys = e.Keys
	case *option.MissingOptionsError:
		if len(e.Keys) == 0 {
			t.Fatalf("missing options error without keys: %s", msg)
		}
		for _, k := range e.Keys {
			if !strings.Contains(msg, k) {
				t.Fatalf("missing options error does not name %s: %s", k, msg)
			}
		}
		return
	default:
		return
	}
	if len(keys) == 0 {
		t.Fatalf("%T without keys: %s", err, msg)
	}
	for _, k := range keys {
		if _, ok := opts[k]; !ok {
			t.Fatalf("%T names '%s', which the table does not set: %s", err, k, msg)
		}
		if !strings.Contains(msg, k) {
			t.Fatalf("%T does not name '%s': %s", err, k, msg)
		}
	}
}

// checkMasked checks that err shows no value of an option whose value is
// masked in listings. Only values that cannot appear by chance (at least
// 6 bytes, not part of any key or of the other values) are checked, and a
// value found is reported only if the error of the same call with that
// value replaced (again) contains it: it is not part of the error's
// boilerplate. A JAAS configuration is left out: its parser masks the
// excerpts of its errors token by token, showing login module class names
// (and its own fuzz target, in connectors/kafka, checks that).
func checkMasked(t *testing.T, reg *factory.Registry, opts map[string]string, err error, again func(map[string]string) error) {
	t.Helper()
	msg := err.Error()
	var visible strings.Builder
	for _, kv := range factory.MaskedOptions(opts, reg) {
		visible.WriteString(kv.Key + "\x00" + kv.Value + "\x00")
	}
	for _, kv := range factory.MaskedOptions(opts, reg) {
		secret := strings.TrimSpace(opts[kv.Key])
		if kv.Value != option.Mask || len(secret) < 6 || strings.HasSuffix(kv.Key, "jaas.config") || strings.Contains(visible.String(), secret) ||
			!strings.Contains(msg, secret) {
			continue
		}
		replaced := maps.Clone(opts)
		replaced[kv.Key] = strings.Repeat("\x01", len(opts[kv.Key]))
		if err2 := again(replaced); err2 != nil && strings.Contains(err2.Error(), secret) {
			continue
		}
		t.Fatalf("the value of sensitive option '%s' appears in the error:\n%s", kv.Key, msg)
	}
}

// leaves returns the errors joined in err.
func leaves(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, c := range j.Unwrap() {
			out = append(out, leaves(c)...)
		}
		return out
	}
	return []error{err}
}

// checkRejected checks the error of a value rejected alone.
func checkRejected(t *testing.T, o option.Option, key, text string, err error) {
	t.Helper()
	var ie *option.InvalidValueError
	var ue *factory.UnknownFactoryError
	switch {
	case errors.As(err, &ie):
		if ie.Key != key {
			t.Fatalf("option '%s' = %q: invalid value error names '%s'", key, text, ie.Key)
		}
		if o == option.Option(fuzzSecret) && ie.Value != option.Mask {
			t.Fatalf("sensitive value shown as %q", ie.Value)
		}
	case errors.As(err, &ue):
		if o != option.Option(fuzzFormat) || ue.Key != key {
			t.Fatalf("option '%s' = %q: %v", key, text, err)
		}
	case o == option.Option(fuzzFormat):
		// A known format may reject the table (a missing option of its
		// own); that names no value of ours.
	default:
		t.Fatalf("option '%s' = %q rejected with %v", key, text, err)
	}
}

// checkAccepted checks that an accepted value reads back with Get and that
// the value written in the reference's syntax validates to the same value.
func checkAccepted(t *testing.T, reg *factory.Registry, o option.Option, text string, c *option.Config) {
	t.Helper()
	var got any
	var written string
	switch o {
	case option.Option(fuzzString):
		got, written = fuzzString.Get(c), fuzzString.Get(c)
	case option.Option(fuzzSecret):
		got, written = fuzzSecret.Get(c), fuzzSecret.Get(c)
	case option.Option(fuzzInt):
		got, written = fuzzInt.Get(c), fmt.Sprint(fuzzInt.Get(c))
	case option.Option(fuzzLong):
		got, written = fuzzLong.Get(c), fmt.Sprint(fuzzLong.Get(c))
	case option.Option(fuzzFloat):
		got, written = fuzzFloat.Get(c), fmt.Sprint(fuzzFloat.Get(c))
	case option.Option(fuzzBool):
		got, written = fuzzBool.Get(c), fmt.Sprint(fuzzBool.Get(c))
	case option.Option(fuzzDuration):
		d := fuzzDuration.Get(c)
		if d < 0 {
			t.Fatalf("duration %q read as %v", text, d)
		}
		got, written = d, option.FormatDuration(d)
	case option.Option(fuzzSize):
		got, written = fuzzSize.Get(c), fuzzSize.Get(c).String()
	case option.Option(fuzzEnum):
		e := fuzzEnum.Get(c)
		if !slices.Contains([]string{"earliest-offset", "latest-offset", "GROUP_OFFSETS"}, e) {
			t.Fatalf("enum %q read as %q", text, e)
		}
		got, written = e, e
	case option.Option(fuzzList):
		got, written = fuzzList.Get(c), strings.Join(fuzzList.Get(c), ";")
	case option.Option(fuzzMap):
		got, written = fuzzMap.Get(c), writeMap(fuzzMap.Get(c))
	case option.Option(fuzzFormat):
		fm := fuzzFormat.Get(c)
		if fm == nil {
			t.Fatalf("format %q accepted but Get returns nil", text)
		}
		got, written = fm.Identifier(), fm.Identifier()
	}
	opts := map[string]string{"connector": "fuzz", o.Key(): written}
	if o == option.Option(fuzzEnum) && written == "GROUP_OFFSETS" {
		opts["map"] = "a:b"
	}
	v, err := reg.Validate(factory.Table{Name: "t", Options: opts})
	if err != nil {
		t.Fatalf("%q accepted as %v, written back as %q: %v", text, got, written, err)
	}
	var back any
	switch o {
	case option.Option(fuzzString):
		back = fuzzString.Get(v.Config)
	case option.Option(fuzzSecret):
		back = fuzzSecret.Get(v.Config)
	case option.Option(fuzzInt):
		back = fuzzInt.Get(v.Config)
	case option.Option(fuzzLong):
		back = fuzzLong.Get(v.Config)
	case option.Option(fuzzFloat):
		back = fuzzFloat.Get(v.Config)
	case option.Option(fuzzBool):
		back = fuzzBool.Get(v.Config)
	case option.Option(fuzzDuration):
		back = fuzzDuration.Get(v.Config)
	case option.Option(fuzzSize):
		back = fuzzSize.Get(v.Config)
	case option.Option(fuzzEnum):
		back = fuzzEnum.Get(v.Config)
	case option.Option(fuzzList):
		back = fuzzList.Get(v.Config)
	case option.Option(fuzzMap):
		back = fuzzMap.Get(v.Config)
	case option.Option(fuzzFormat):
		back = fuzzFormat.Get(v.Config).Identifier()
	}
	if !reflect.DeepEqual(got, back) && !(o == option.Option(fuzzFloat) && got.(float64) != got.(float64)) {
		t.Fatalf("%q accepted as %#v, written back as %q, read as %#v", text, got, written, back)
	}
}

// fuzzSchema is the schema FuzzConnectorOptions creates sources and sinks
// with (datagen's fields.* options refer to its columns).
var fuzzSchema = factory.Schema{Columns: []factory.Column{
	{Name: "id", Type: types.BigInt()},
	{Name: "name", Type: types.String()},
	{Name: "price", Type: types.DecimalType(10, 2)},
	{Name: "ts", Type: types.TimestampType(3)},
}}

// parseOptions reads "key=value" lines.
func parseOptions(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		k, v, _ := strings.Cut(line, "=")
		out[k] = v
	}
	return out
}

// FuzzConnectorOptions validates fuzzed option maps ("key=value" lines)
// against every registered connector (the first byte picks it unless the
// lines set 'connector') and, when they are valid, creates the source and
// the sink (creating connects nowhere; options that name key or trust
// store files are not created, so that no fuzzed path is read). No input
// panics; errors are *TableError values over typed errors that name the
// options concerned; sensitive values never appear in errors. Run it with
//
//	go test -run '^$' -fuzz FuzzConnectorOptions -fuzztime 3m -parallel 1 ./factory
func FuzzConnectorOptions(f *testing.F) {
	f.Add(byte(0), "rows-per-second=10\nnumber-of-rows=5\nfields.id.kind=sequence\nfields.id.start=1\nfields.id.end=5\nfields.name.length=3")
	f.Add(byte(0), "fields.price.min=1.5\nfields.price.max=2.5\nfields.ts.max-past=10 s\nfields.name.null-rate=0.5\nfields.name.var-len=true")
	f.Add(byte(0), "scan.parallelism=0\nseed=-3\nfields.id.min=9\nfields.id.max=1")
	f.Add(byte(1), "topic=a;b\nproperties.bootstrap.servers=127.0.0.1:9092\nformat=json\nscan.startup.mode=specific-offsets\n"+
		"scan.startup.specific-offsets=partition:0,offset:42;partition:1,offset:300")
	f.Add(byte(1), "topic-pattern=a.*\nproperties.bootstrap.servers=b:9092\nvalue.format=csv\ncsv.field-delimiter=;\n"+
		"sink.delivery-guarantee=exactly-once\nsink.transactional-id-prefix=p\nscan.bounded.mode=timestamp\nscan.bounded.timestamp-millis=5")
	f.Add(byte(1), "topic=t\nproperties.bootstrap.servers=b:9092\nformat=json\nproperties.security.protocol=SASL_SSL\n"+
		"properties.sasl.mechanism=PLAIN\nproperties.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"s3cr3t-pw\";")
	f.Add(byte(2), "topic=t\nproperties.bootstrap.servers=b:9092\nkey.format=json\nvalue.format=json\nsink.buffer-flush.max-rows=10\nsink.buffer-flush.interval=1 s")
	f.Add(byte(3), "path=/nonexistent/x\nformat=csv\nsink.rolling-policy.file-size=1 mb\npartition.default-name=d")
	f.Add(byte(4), "print-identifier=x\nstandard-error=true\nsink.parallelism=2")
	f.Add(byte(5), "")
	f.Add(byte(0), "connector=nope")
	reg := factory.Default.Clone()
	ids := reg.Connectors()
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, pick byte, text string) {
		if len(text) > 1<<14 {
			return
		}
		opts := parseOptions(text)
		if _, ok := opts["connector"]; !ok {
			opts["connector"] = ids[int(pick)%len(ids)]
		}
		v, err := reg.Validate(factory.Table{Name: "t", Schema: fuzzSchema, Options: opts})
		checkValidateResult(t, reg, opts, v, err)
		if err != nil || fileOption(opts) {
			return
		}
		if v.Factory.NewSource != nil {
			src, v2, err := reg.CreateSource(ctx, factory.Table{Name: "t", Schema: fuzzSchema, Options: opts})
			checkCreated(t, reg, opts, src != nil, v2, err, func(o map[string]string) error {
				_, _, err := reg.CreateSource(ctx, factory.Table{Name: "t", Schema: fuzzSchema, Options: o})
				return err
			})
		}
		if v.Factory.NewSink != nil {
			snk, v2, err := reg.CreateSink(ctx, factory.Table{Name: "t", Schema: fuzzSchema, Options: opts})
			checkCreated(t, reg, opts, snk != nil, v2, err, func(o map[string]string) error {
				_, _, err := reg.CreateSink(ctx, factory.Table{Name: "t", Schema: fuzzSchema, Options: o})
				return err
			})
		}
	})
}

// fileOption reports whether an option names a file that creating the
// source or sink would read (Kafka's ssl.*.location).
func fileOption(opts map[string]string) bool {
	for k := range opts {
		if strings.Contains(strings.ToLower(k), "location") {
			return true
		}
	}
	return false
}

// checkCreated checks the result of CreateSource or CreateSink; again
// repeats the call on other options.
func checkCreated(t *testing.T, reg *factory.Registry, opts map[string]string, created bool, v *factory.Validated, err error,
	again func(map[string]string) error) {
	t.Helper()
	if err == nil && (!created || v == nil) {
		t.Fatalf("created nothing and no error for %q", opts)
	}
	if err != nil {
		if created || v != nil {
			t.Fatalf("created something and an error for %q: %v", opts, err)
		}
		var te *factory.TableError
		if !errors.As(err, &te) || te.Err == nil || te.Err.Error() == "" {
			t.Fatalf("error %#v for %q", err, opts)
		}
		checkMasked(t, reg, opts, err, again)
	}
}
