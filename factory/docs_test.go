package factory

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/option"
)

func TestMarkdownReference(t *testing.T) {
	r := NewRegistry()
	mode := option.Enum("mode", "fast", "safe").Default("safe").Description("How to write.")
	r.MustRegisterConnector(ConnectorFactory{
		Identifier:  "mem",
		Description: "Keeps rows in memory.",
		Options: []option.Option{
			option.String("name").Required().Description("Name of the | buffer."),
			mode.DeprecatedKey("old-mode", nil),
			option.String("secret.key").Sensitive().FallbackKeys("legacy.key"),
			option.Prefix("properties."),
			option.Duration("flush.interval").Default(0),
		},
		Rules:   []option.Rule{option.Conflicts(option.String("name"), option.String("secret.key"), "test reason")},
		NewSink: func(Context) (connector.Sink, error) { return memSink{}, nil },
	})
	r.MustRegisterFormat(FormatFactory{Identifier: "f", Options: []option.Option{option.Bool("strict").Default(true)},
		NewEncoder: func(FormatContext) (Encoder, error) { return nil, nil }})
	var b strings.Builder
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "# Connector and format options\n" +
		"\n## Connector `mem`\n\nKeeps rows in memory.\n\nCan be used as: sink.\n\n" +
		"| Option | Required | Default | Type | Description |\n|---|---|---|---|---|\n" +
		"| `connector` | required | (none) | String | Must be `mem`. |\n" +
		"| `name` | required | (none) | String | Name of the \\| buffer. |\n" +
		"| `mode` | optional | `safe` | Enum: `fast`, `safe` | How to write. Deprecated key: `old-mode`. |\n" +
		"| `secret.key` | optional | (none) | String | Falls back to `legacy.key`. Sensitive: masked in errors and listings. |\n" +
		"| `properties.*` | optional | (none) | pass-through |  |\n" +
		"| `flush.interval` | optional | `0 ms` | Duration |  |\n" +
		"\nRules:\n\n- `name` and `secret.key` cannot be set together: test reason\n" +
		"\n## Format `f`\n\nOptions are written `f.*` with `'format'='f'`, `key.f.*` with `'key.format'='f'` and `value.f.*` with `'value.format'='f'`.\n\n" +
		"| Option | Required | Default | Type | Description |\n|---|---|---|---|---|\n" +
		"| `f.strict` | optional | `true` | Boolean |  |\n"
	if got := b.String(); got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
	// Every rule kind is described in words.
	for _, rule := range []option.Rule{
		option.RequiredWhen(option.String("a"), option.String("b"), []string{"x", "y"}, "why"),
		option.RequiredWhen(option.String("a"), option.String("b"), nil, "why"),
		option.OneOf("why", option.String("a"), option.String("b")),
		option.Check("why", func(*option.Config) error { return nil }, option.String("a")),
	} {
		if d := rule.String(); !strings.Contains(d, "`a`") || !strings.HasSuffix(d, "why") {
			t.Errorf("describe = %q", d)
		}
	}
}
