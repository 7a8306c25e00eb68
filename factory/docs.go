package factory

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/option"
)

// WriteMarkdown writes a configuration reference for every connector and
// format in r, in identifier order: one section per factory with a table of
// its options (key, required, default, type, description; deprecated keys,
// fallback keys and sensitivity noted) and its rules. The CLI uses it to
// generate docs/configuration.md (go run ./tools/gendocs).
func (r *Registry) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Connector and format options\n")
	for _, id := range r.Connectors() {
		f, _ := r.Connector(id)
		b.WriteString("\n")
		b.WriteString(ConnectorMarkdown(f))
	}
	for _, id := range r.Formats() {
		f, _ := r.Format(id)
		b.WriteString("\n")
		b.WriteString(FormatMarkdown(f))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ConnectorMarkdown returns the configuration reference of one connector.
func ConnectorMarkdown(f *ConnectorFactory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Connector `%s`\n\n", f.Identifier)
	if f.Description != "" {
		b.WriteString(f.Description + "\n\n")
	}
	var roles []string
	if f.NewSource != nil {
		roles = append(roles, "source")
	}
	if f.NewSink != nil {
		roles = append(roles, "sink")
	}
	fmt.Fprintf(&b, "Can be used as: %s.\n\n", strings.Join(roles, " and "))
	conn := option.String("connector").Required().Description(fmt.Sprintf("Must be `%s`.", f.Identifier))
	writeOptionTable(&b, "", append([]option.Option{conn}, f.Options...))
	writeRules(&b, f.Rules)
	return b.String()
}

// FormatMarkdown returns the configuration reference of one format, its
// keys shown with the prefix of 'format' (json.*); with key.format and
// value.format they take key.<id>. and value.<id>.
func FormatMarkdown(f *FormatFactory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Format `%s`\n\n", f.Identifier)
	if f.Description != "" {
		b.WriteString(f.Description + "\n\n")
	}
	fmt.Fprintf(&b, "Options are written `%[1]s.*` with `'format'='%[1]s'`, `key.%[1]s.*` with `'key.format'='%[1]s'` and `value.%[1]s.*` with `'value.format'='%[1]s'`.\n\n", f.Identifier)
	if f.Changelog != InsertOnly {
		fmt.Fprintf(&b, "Changelog: %s. As a table's value format it makes a source of a connector that is INSERT only itself (kafka) produce these rows, and its sink accept them.\n\n", f.Changelog)
	}
	if len(f.ReadableMetadata) > 0 {
		b.WriteString("Readable metadata, declared `METADATA FROM 'value.<key>'` on a Kafka table:\n\n| Key | Type |\n|---|---|\n")
		for _, k := range slices.Sorted(maps.Keys(f.ReadableMetadata)) {
			fmt.Fprintf(&b, "| `value.%s` | `%s` |\n", k, f.ReadableMetadata[k])
		}
		b.WriteString("\n")
	}
	writeOptionTable(&b, f.Identifier+".", f.Options)
	writeRules(&b, f.Rules)
	return b.String()
}

func writeOptionTable(b *strings.Builder, prefix string, opts []option.Option) {
	b.WriteString(option.Markdown(prefix, opts))
}

func writeRules(b *strings.Builder, rules []option.Rule) {
	b.WriteString(option.RulesMarkdown(rules))
}
