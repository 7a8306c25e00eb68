package factory

import (
	"strings"

	"github.com/streamsql/streamsql/option"
)

// Options are declared with package option (option.String, option.Enum,
// ...), which the job's settings share; factory adds the one kind of option
// that names a format of its registry.

// FormatOption declares an option whose value names a format ("json") in
// the registry, such as format, key.format or value.format. The format's own
// options are then accepted under the prefix Flink uses: with
// 'format'='json' they are json.*, with 'key.format'='json' key.json.*, with
// 'value.format'='json' value.json.*. Get returns the resolved format, or
// nil when the option is absent.
func FormatOption(key string) option.Opt[*Format] { return option.Named[*Format](key) }

// formatPrefix returns the prefix of a format's options given the key that
// named the format: format → json., key.format → key.json.
func formatPrefix(formatKey, identifier string) string {
	return strings.TrimSuffix(formatKey, "format") + identifier + "."
}
