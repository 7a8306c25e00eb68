package print_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamsql/streamsql/connector"
	_ "github.com/streamsql/streamsql/connectors/print"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

var schema = factory.Schema{Columns: []factory.Column{
	{Name: "id", Type: types.BigInt()},
	{Name: "name", Type: types.String()},
	{Name: "amount", Type: types.DecimalType(5, 2)},
	{Name: "doubled", Type: types.BigInt(), Kind: factory.Computed, Expr: "id * 2"},
}}

// captureStream replaces *stream (os.Stdout or os.Stderr) by a file for the
// duration of the test and returns a function that reads what was written.
func captureStream(t *testing.T, stream **os.File) func() string {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	orig := *stream
	*stream = f
	t.Cleanup(func() { *stream = orig; f.Close() })
	return func() string {
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

func TestPrintThroughFactory(t *testing.T) {
	cases := []struct {
		name   string
		opts   map[string]string
		stream **os.File
		task   connector.TaskInfo
		want   string
	}{
		{"stdout, no identifier", nil, &os.Stdout, connector.TaskInfo{Parallelism: 1},
			"+I[1, alice, 12.50]\n-D[2, null, null]\n"},
		{"stderr with identifier, task 2 of 3",
			map[string]string{"print-identifier": "orders", "standard-error": "TRUE", "sink.parallelism": "3"},
			&os.Stderr, connector.TaskInfo{Index: 1, Parallelism: 3},
			"orders:2> +I[1, alice, 12.50]\norders:2> -D[2, null, null]\n"},
	}
	amount, _ := types.ParseDecimal("12.50")
	rows := []types.Row{
		{Kind: types.Insert, Fields: []types.Value{types.Int64(1), types.Str("alice"), types.DecimalValue(amount)}},
		{Kind: types.Delete, Fields: []types.Value{types.Int64(2), {}, {}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			read := captureStream(t, c.stream)
			opts := map[string]string{"connector": "print"}
			for k, v := range c.opts {
				opts[k] = v
			}
			ctx := context.Background()
			sink, _, err := factory.Default.Clone().CreateSink(ctx, factory.Table{Name: "out", Schema: schema, Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			if p := sink.(interface{ Parallelism() int }).Parallelism(); p != c.task.Parallelism && c.opts["sink.parallelism"] != "" {
				t.Errorf("Parallelism() = %d, want sink.parallelism %s", p, c.opts["sink.parallelism"])
			}
			w, err := sink.Open(ctx, c.task)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(ctx, rows); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := read(); got != c.want {
				t.Errorf("printed %q, want %q", got, c.want)
			}
		})
	}
}

func TestPrintFactoryValidation(t *testing.T) {
	reg := factory.Default.Clone()
	create := func(opts map[string]string) error {
		all := map[string]string{"connector": "print"}
		for k, v := range opts {
			all[k] = v
		}
		_, _, err := reg.CreateSink(context.Background(), factory.Table{Name: "out", Schema: schema, Options: all})
		return err
	}
	var unsup *option.UnsupportedOptionsError
	if err := create(map[string]string{"print-identifer": "x"}); !errors.As(err, &unsup) || unsup.Suggestions["print-identifer"] != "print-identifier" {
		t.Errorf("typo: %v, want UnsupportedOptionsError suggesting print-identifier", err)
	}
	var inv *option.InvalidValueError
	if err := create(map[string]string{"standard-error": "maybe"}); !errors.As(err, &inv) || inv.Key != "standard-error" {
		t.Errorf("standard-error=maybe: %v, want InvalidValueError", err)
	}
	if err := create(map[string]string{"sink.parallelism": "two"}); !errors.As(err, &inv) || inv.Key != "sink.parallelism" {
		t.Errorf("sink.parallelism=two: %v, want InvalidValueError", err)
	}
	var rule *option.RuleError
	if err := create(map[string]string{"sink.parallelism": "0"}); !errors.As(err, &rule) {
		t.Errorf("sink.parallelism=0: %v, want RuleError", err)
	}
	_, _, err := reg.CreateSource(context.Background(), factory.Table{Name: "out", Schema: schema, Options: map[string]string{"connector": "print"}})
	if !errors.As(err, new(*factory.CapabilityError)) {
		t.Errorf("print as a source: %v, want CapabilityError", err)
	}
}
