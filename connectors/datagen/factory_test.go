package datagen_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

var schema = factory.Schema{Columns: []factory.Column{
	{Name: "id", Type: types.BigInt()},
	{Name: "small", Type: types.TinyInt()},
	{Name: "name", Type: types.VarChar(10)},
	{Name: "code", Type: types.Char(3)},
	{Name: "ts", Type: types.TimestampType(3)},
	{Name: "total", Type: types.BigInt(), Kind: factory.Computed, Expr: "id * 2"},
}}

func table(opts map[string]string) factory.Table {
	all := map[string]string{"connector": "datagen"}
	for k, v := range opts {
		all[k] = v
	}
	return factory.Table{Name: "cat.db.gen", Schema: schema, Options: all}
}

func readAll(t *testing.T, src connector.Source) []types.Row {
	t.Helper()
	ctx := context.Background()
	splits, err := src.Splits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	states := make([]connector.SplitState, len(splits))
	for i, s := range splits {
		states[i] = connector.SplitState{ID: s.ID}
	}
	r, err := src.Open(ctx, connector.TaskInfo{Parallelism: 1}, states)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows []types.Row
	for {
		batch, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			return rows
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, batch...)
	}
}

func TestFactoryCreatesConfiguredSource(t *testing.T) {
	reg := factory.Default.Clone()
	src, _, err := reg.CreateSource(context.Background(), table(map[string]string{
		"rows-per-second":       "0",
		"scan.parallelism":      "2",
		"seed":                  "42",
		"fields.id.kind":        "SEQUENCE",
		"fields.id.start":       "1",
		"fields.id.end":         "20",
		"fields.small.min":      "-3",
		"fields.small.max":      "3",
		"fields.name.length":    "4",
		"fields.name.var-len":   "true",
		"fields.ts.max-past":    "1 min",
		"fields.code.null-rate": "1",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !src.(*datagen.Source).Bounded() || src.(*datagen.Source).Parallelism() != 2 {
		t.Fatalf("source is not bounded with 2 splits")
	}
	rows := readAll(t, src)
	var ids []int64
	now := time.Now()
	for _, r := range rows {
		if len(r.Fields) != 5 {
			t.Fatalf("row has %d fields, want the 5 physical columns", len(r.Fields))
		}
		ids = append(ids, r.Fields[0].Int64())
		if v := r.Fields[1].Int64(); v < -3 || v > 3 {
			t.Errorf("small = %d, outside [-3, 3]", v)
		}
		if n := len(r.Fields[2].Str()); n < 1 || n > 4 {
			t.Errorf("name %q has length %d, want 1..4", r.Fields[2].Str(), n)
		}
		if !r.Fields[3].IsNull() {
			t.Errorf("code = %v with null-rate 1", r.Fields[3])
		}
		at := r.Fields[4].Timestamp().Time()
		if at.After(now.Add(time.Second)) || at.Before(now.Add(-time.Minute-time.Hour*24)) {
			// TIMESTAMP is local wall time read as UTC; allow the zone offset.
			t.Errorf("ts %v is not within max-past of now", at)
		}
	}
	slices.Sort(ids)
	want := make([]int64, 20)
	for i := range want {
		want[i] = int64(i + 1)
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("ids = %v, want 1..20 once each", ids)
	}
}

func TestFactoryNumberOfRowsAndDefaults(t *testing.T) {
	reg := factory.Default.Clone()
	src, v, err := reg.CreateSource(context.Background(), table(map[string]string{"number-of-rows": "7", "rows-per-second": "0"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Warnings) != 0 {
		t.Errorf("warnings: %v", v.Warnings)
	}
	if got := len(readAll(t, src)); got != 7 {
		t.Fatalf("read %d rows, want number-of-rows 7", got)
	}
	src, _, err = reg.CreateSource(context.Background(), table(nil))
	if err != nil {
		t.Fatal(err)
	}
	if src.Bounded() {
		t.Fatal("a datagen table without number-of-rows or sequence is bounded")
	}
	if _, _, err := reg.CreateSink(context.Background(), table(nil)); !errors.As(err, new(*factory.CapabilityError)) {
		t.Fatalf("datagen as a sink: %v, want CapabilityError", err)
	}
}

// TestFactoryValidation checks each kind of mistake is reported with the
// factory's typed error, naming the option as written.
func TestFactoryValidation(t *testing.T) {
	cases := []struct {
		name  string
		opts  map[string]string
		check func(t *testing.T, err error)
	}{
		{"typo in connector option", map[string]string{"rows-per-secnd": "5"}, unsupported("rows-per-secnd", "rows-per-second")},
		{"unknown column", map[string]string{"fields.nmae.length": "5"}, unsupported("fields.nmae.length", "fields.name.length")},
		{"unknown sub-key", map[string]string{"fields.name.lenght": "5"}, unsupported("fields.name.lenght", "fields.name.length")},
		{"computed column", map[string]string{"fields.total.min": "5"}, unsupported("fields.total.min", "fields.small.min")},
		{"no sub-key", map[string]string{"fields.id": "5"}, unsupported("fields.id", "")},
		{"rate not a number", map[string]string{"rows-per-second": "fast"}, invalid("rows-per-second")},
		{"negative rows", map[string]string{"number-of-rows": "-1"}, rule("number-of-rows")},
		{"parallelism 0", map[string]string{"scan.parallelism": "0"}, rule("scan.parallelism")},
		{"bad kind", map[string]string{"fields.id.kind": "sequnce"}, invalid("fields.id.kind")},
		{"sequence without start and end", map[string]string{"fields.id.kind": "sequence"}, required("fields.id.start", "fields.id.end")},
		{"sequence without end", map[string]string{"fields.id.kind": "sequence", "fields.id.start": "1"}, required("fields.id.end")},
		{"sequence end below start", map[string]string{"fields.id.kind": "sequence", "fields.id.start": "5", "fields.id.end": "1"}, rule("fields.id.start")},
		{"start on a random field", map[string]string{"fields.id.start": "1"}, rule("fields.id.start")},
		{"min on a sequence", map[string]string{"fields.id.kind": "sequence", "fields.id.start": "1", "fields.id.end": "2", "fields.id.min": "0"}, rule("fields.id.min")},
		{"min on a string", map[string]string{"fields.name.min": "1"}, rule("fields.name.min")},
		{"max not a number", map[string]string{"fields.id.max": "lots"}, invalid("fields.id.max")},
		{"max out of TINYINT", map[string]string{"fields.small.max": "1000"}, invalid("fields.small.max")},
		{"max below min", map[string]string{"fields.small.min": "5", "fields.small.max": "1"}, rule("fields.small.min")},
		{"length over declared", map[string]string{"fields.name.length": "11"}, invalid("fields.name.length")},
		{"length on CHAR", map[string]string{"fields.code.length": "2"}, rule("fields.code.length")},
		{"var-len on CHAR", map[string]string{"fields.code.var-len": "true"}, rule("fields.code.var-len")},
		{"var-len not bool", map[string]string{"fields.name.var-len": "yes"}, invalid("fields.name.var-len")},
		{"max-past on a number", map[string]string{"fields.id.max-past": "1 min"}, rule("fields.id.max-past")},
		{"max-past not a duration", map[string]string{"fields.ts.max-past": "1 parsec"}, invalid("fields.ts.max-past")},
		{"null-rate above 1", map[string]string{"fields.id.null-rate": "1.5"}, invalid("fields.id.null-rate")},
		{"sequence on a timestamp", map[string]string{"fields.ts.kind": "sequence", "fields.ts.start": "1", "fields.ts.end": "2"}, rule("fields.ts.start")},
	}
	reg := factory.Default.Clone()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := reg.CreateSource(context.Background(), table(c.opts))
			if err == nil {
				t.Fatal("accepted")
			}
			var te *factory.TableError
			if !errors.As(err, &te) || te.Table != "cat.db.gen" {
				t.Fatalf("error %v is not a TableError naming the table", err)
			}
			c.check(t, err)
		})
	}
}

func unsupported(key, suggestion string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var e *option.UnsupportedOptionsError
		if !errors.As(err, &e) || !slices.Contains(e.Keys, key) {
			t.Fatalf("got %v, want UnsupportedOptionsError for %s", err, key)
		}
		if got := e.Suggestions[key]; got != suggestion {
			t.Errorf("suggestion for %s = %q, want %q", key, got, suggestion)
		}
		if suggestion != "" && !strings.Contains(err.Error(), "did you mean '"+suggestion+"'") {
			t.Errorf("message does not suggest %s:\n%v", suggestion, err)
		}
	}
}

func invalid(key string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var e *option.InvalidValueError
		if !errors.As(err, &e) || e.Key != key {
			t.Fatalf("got %v, want InvalidValueError for %s", err, key)
		}
	}
}

func rule(key string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		for _, e := range leaves(err) {
			if r, ok := e.(*option.RuleError); ok && slices.Contains(r.Keys, key) {
				return
			}
		}
		t.Fatalf("got %v, want RuleError for %s", err, key)
	}
}

func required(keys ...string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var e *option.RequirementError
		if !errors.As(err, &e) || !slices.Equal(e.Keys, keys) || e.When != "fields.id.kind" {
			t.Fatalf("got %v, want RequirementError for %v", err, keys)
		}
	}
}

func TestFactoryRegisteredInDefault(t *testing.T) {
	if _, ok := factory.Default.Connector("datagen"); !ok {
		t.Fatal("datagen is not registered in factory.Default")
	}
	var b strings.Builder
	reg := factory.NewRegistry()
	reg.MustRegisterConnector(datagen.Factory())
	if err := reg.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"rows-per-second", "number-of-rows", "scan.parallelism", "seed", "fields.", "null-rate"} {
		if !strings.Contains(b.String(), k) {
			t.Errorf("reference does not mention %s:\n%s", k, b.String())
		}
	}
}

// leaves returns the errors joined or wrapped in err, depth first.
func leaves(err error) []error {
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		var out []error
		for _, x := range e.Unwrap() {
			out = append(out, leaves(x)...)
		}
		return out
	case interface{ Unwrap() error }:
		if inner := e.Unwrap(); inner != nil {
			return append([]error{err}, leaves(inner)...)
		}
	}
	return []error{err}
}
