package factory

import (
	"strings"
	"time"

	"github.com/streamsql/streamsql/option"
)

// The option declarations are package option's, shared with the job's
// settings; these names keep connector code written against factory.

// ValueType is the type of an option's value (option.ValueType).
type ValueType = option.ValueType

// The option value types.
const (
	TypeString     = option.TypeString
	TypeInt        = option.TypeInt
	TypeLong       = option.TypeLong
	TypeFloat      = option.TypeFloat
	TypeBool       = option.TypeBool
	TypeDuration   = option.TypeDuration
	TypeMemorySize = option.TypeMemorySize
	TypeEnum       = option.TypeEnum
	TypeList       = option.TypeList
	TypeMap        = option.TypeMap
	TypeFormat     = option.TypeFormat
)

// MemorySize is a number of bytes (option.MemorySize).
type MemorySize = option.MemorySize

// Deprecated is a deprecated key of an option (option.Deprecated).
type Deprecated = option.Deprecated

// Option is a declared option (option.Option).
type Option = option.Option

// Opt is a typed option declaration (option.Opt).
type Opt[T any] = option.Opt[T]

// Config holds a factory's validated options (option.Config).
type Config = option.Config

// Rule relates options of one factory (option.Rule).
type Rule = option.Rule

// String declares a string option.
func String(key string) Opt[string] { return option.String(key) }

// Int declares a 32-bit integer option.
func Int(key string) Opt[int] { return option.Int(key) }

// Long declares a 64-bit integer option.
func Long(key string) Opt[int64] { return option.Long(key) }

// Float declares a floating-point option.
func Float(key string) Opt[float64] { return option.Float(key) }

// Bool declares a boolean option; values are true or false in any case.
func Bool(key string) Opt[bool] { return option.Bool(key) }

// Duration declares a duration option in Flink's syntax (option.Duration).
func Duration(key string) Opt[time.Duration] { return option.Duration(key) }

// Size declares a memory-size option in Flink's syntax (option.Size).
func Size(key string) Opt[MemorySize] { return option.Size(key) }

// Enum declares an option whose value is one of values (option.Enum).
func Enum(key string, values ...string) Opt[string] { return option.Enum(key, values...) }

// List declares a ';'-separated list option (option.List).
func List(key string) Opt[[]string] { return option.List(key) }

// Map declares a map option written "k1:v1,k2:v2" (option.Map).
func Map(key string) Opt[map[string]string] { return option.Map(key) }

// Prefix declares pass-through options under prefix (option.Prefix).
func Prefix(prefix string) Opt[map[string]string] { return option.Prefix(prefix) }

// FormatOption declares an option whose value names a format ("json") in
// the registry, such as format, key.format or value.format. The format's own
// options are then accepted under the prefix Flink uses: with
// 'format'='json' they are json.*, with 'key.format'='json' key.json.*, with
// 'value.format'='json' value.json.*. Get returns the resolved format, or
// nil when the option is absent.
func FormatOption(key string) Opt[*Format] { return option.Named[*Format](key) }

// RequiredWhen requires target when option when is set to one of values
// (option.RequiredWhen).
func RequiredWhen(target, when Option, values []string, reason string) Rule {
	return option.RequiredWhen(target, when, values, reason)
}

// Conflicts rejects setting a and b together (option.Conflicts).
func Conflicts(a, b Option, reason string) Rule { return option.Conflicts(a, b, reason) }

// OneOf requires exactly one of opts to be set (option.OneOf).
func OneOf(reason string, opts ...Option) Rule { return option.OneOf(reason, opts...) }

// Check is a custom rule over the validated options (option.Check).
func Check(reason string, fn func(*Config) error, opts ...Option) Rule {
	return option.Check(reason, fn, opts...)
}

// ParseDuration parses a duration in Flink's syntax (option.ParseDuration).
func ParseDuration(text string) (time.Duration, error) { return option.ParseDuration(text) }

// FormatDuration writes d in Flink's syntax with the largest exact unit.
func FormatDuration(d time.Duration) string { return option.FormatDuration(d) }

// ParseMemorySize parses a size in Flink's syntax (option.ParseMemorySize).
func ParseMemorySize(text string) (MemorySize, error) { return option.ParseMemorySize(text) }

// ParseList splits a ';'-separated list (option.ParseList).
func ParseList(text string) []string { return option.ParseList(text) }

// ParseMap parses "k1:v1,k2:v2" (option.ParseMap).
func ParseMap(text string) (map[string]string, error) { return option.ParseMap(text) }

// IsSensitiveKey reports whether an option key looks like it holds a
// secret (option.IsSensitiveKey).
func IsSensitiveKey(key string) bool { return option.IsSensitiveKey(key) }

// Mask is what a sensitive value is shown as.
const Mask = option.Mask

// formatPrefix returns the prefix of a format's options given the key that
// named the format: format → json., key.format → key.json.
func formatPrefix(formatKey, identifier string) string {
	return strings.TrimSuffix(formatKey, "format") + identifier + "."
}

// nearest returns the candidate closest to key, if it is close enough to be
// a plausible typo.
func nearest(key string, candidates []string) string { return option.Nearest(key, candidates) }
