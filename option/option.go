package option

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ValueType is the type of an option's value, as shown in errors and in the
// generated configuration reference.
type ValueType uint8

// The option value types.
const (
	TypeString ValueType = iota + 1
	TypeInt
	TypeLong
	TypeFloat
	TypeBool
	TypeDuration
	TypeMemorySize
	TypeEnum
	TypeList
	TypeMap
	TypeFormat
)

var valueTypeNames = [...]string{
	TypeString:     "String",
	TypeInt:        "Integer",
	TypeLong:       "Long",
	TypeFloat:      "Double",
	TypeBool:       "Boolean",
	TypeDuration:   "Duration",
	TypeMemorySize: "MemorySize",
	TypeEnum:       "Enum",
	TypeList:       "List<String>",
	TypeMap:        "Map",
	TypeFormat:     "Format",
}

// String returns the type's name as Flink's documentation writes it.
func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) && valueTypeNames[t] != "" {
		return valueTypeNames[t]
	}
	return "ValueType(" + strconv.Itoa(int(t)) + ")"
}

// MemorySize is a number of bytes, written in options as Flink's MemorySize
// ("64mb", "1 gb", "512k", "100"; units are binary multiples).
type MemorySize int64

// String returns the size in the largest unit that divides it exactly,
// for example "64mb".
func (m MemorySize) String() string {
	units := []struct {
		name string
		size int64
	}{{"tb", 1 << 40}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}}
	for _, u := range units {
		if m != 0 && int64(m)%u.size == 0 {
			return strconv.FormatInt(int64(m)/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(int64(m), 10) + "b"
}

// Deprecated is a deprecated key of an option: still accepted, with a
// warning. Values, when set, maps the old key's values (case-insensitive) to
// the new option's values, as sink.semantic's "exactly-once" maps to
// sink.delivery-guarantee's "exactly-once".
type Deprecated struct {
	Key    string
	Values map[string]string
}

// spec is the untyped declaration behind every Opt.
type spec struct {
	key         string
	typ         ValueType
	required    bool
	hasDefault  bool
	def         any
	defText     string
	description string
	enum        []string
	deprecated  []Deprecated
	fallback    []string
	sensitive   bool
	prefix      bool
	parse       func(string, *spec) (any, error)
}

// Option is a declared option: of a connector or format factory, or a
// job setting. The only implementations are the Opt values made by this
// package's constructors (String, Int, Enum, Prefix, ...).
type Option interface {
	// Key returns the option's key (for a prefix option, the prefix).
	Key() string
	// Info describes the declaration, for references and tools.
	Info() Info
	decl() *spec
}

// Info describes an option's declaration.
type Info struct {
	// Key is the option's key (for a prefix option, the prefix).
	Key string
	// Type is the type of its value.
	Type ValueType
	// Required is set when validation fails without it.
	Required bool
	// HasDefault tells whether Default holds the default value.
	HasDefault bool
	// Default is the default value written in the option's syntax, so
	// that it parses back ("10 min", "EXACTLY_ONCE", "1.5").
	Default string
	// Description is the text of the configuration reference.
	Description string
	// Enum lists the allowed values of an enum option.
	Enum []string
	// Deprecated lists older keys that are still accepted.
	Deprecated []Deprecated
	// Fallback lists keys read when the option's own is absent.
	Fallback []string
	// Sensitive is set for options whose values are masked.
	Sensitive bool
	// Prefix is set for pass-through options (properties.*).
	Prefix bool
}

// DeprecatedKeys returns the keys of Deprecated.
func (i Info) DeprecatedKeys() []string {
	out := make([]string, len(i.Deprecated))
	for n, d := range i.Deprecated {
		out[n] = d.Key
	}
	return out
}

// Opt is a typed option declaration. Build one with a constructor such as
// String or Duration and refine it with the chained methods, which return
// modified copies; read its validated value from a Config with Get.
type Opt[T any] struct {
	s *spec
}

func newOpt[T any](key string, typ ValueType, parse func(string, *spec) (any, error)) Opt[T] {
	return Opt[T]{s: &spec{key: key, typ: typ, parse: parse}}
}

func (o Opt[T]) with(f func(*spec)) Opt[T] {
	c := *o.s
	c.enum = append([]string(nil), c.enum...)
	c.deprecated = append([]Deprecated(nil), c.deprecated...)
	c.fallback = append([]string(nil), c.fallback...)
	f(&c)
	return Opt[T]{s: &c}
}

// Key returns the option's key.
func (o Opt[T]) Key() string { return o.s.key }

func (o Opt[T]) decl() *spec { return o.s }

// Info describes o's declaration; the slices are copies.
func (o Opt[T]) Info() Info {
	s := o.s
	if s == nil {
		return Info{}
	}
	return Info{Key: s.key, Type: s.typ, Required: s.required, HasDefault: s.hasDefault, Default: s.defText,
		Description: s.description, Enum: append([]string(nil), s.enum...),
		Deprecated: append([]Deprecated(nil), s.deprecated...), Fallback: append([]string(nil), s.fallback...),
		Sensitive: s.sensitive, Prefix: s.prefix}
}

// Parse parses text as o's value (the check validation makes), without a
// Config: for tools that check one value.
func (o Opt[T]) Parse(text string) (T, error) {
	var zero T
	v, err := o.s.parse(text, o.s)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("option %s: value of type %T", o.s.key, v)
	}
	return t, nil
}

// Required returns o marked required: validation fails when it is absent
// (and none of its deprecated or fallback keys is set).
func (o Opt[T]) Required() Opt[T] { return o.with(func(s *spec) { s.required = true }) }

// Default returns o with a default value, used when the option is absent.
func (o Opt[T]) Default(v T) Opt[T] {
	return o.with(func(s *spec) {
		s.hasDefault = true
		s.def = v
		s.defText = formatValue(s.typ, v)
	})
}

// Description returns o with the description shown in the configuration
// reference.
func (o Opt[T]) Description(text string) Opt[T] {
	return o.with(func(s *spec) { s.description = text })
}

// DeprecatedKey returns o with a deprecated key that is still accepted (with
// a warning). values, if not nil, maps the old key's values to o's values.
func (o Opt[T]) DeprecatedKey(key string, values map[string]string) Opt[T] {
	return o.with(func(s *spec) { s.deprecated = append(s.deprecated, Deprecated{Key: key, Values: values}) })
}

// FallbackKeys returns o with keys read, in order, when o's own key is
// absent. Unlike deprecated keys they produce no warning; Flink's
// value.format falls back to format this way.
func (o Opt[T]) FallbackKeys(keys ...string) Opt[T] {
	return o.with(func(s *spec) { s.fallback = append(s.fallback, keys...) })
}

// Sensitive returns o marked sensitive: its value is masked as ****** in
// errors, warnings and listings.
func (o Opt[T]) Sensitive() Opt[T] { return o.with(func(s *spec) { s.sensitive = true }) }

// Get returns the option's validated value from c: the value set, else the
// default, else T's zero value. For a prefix option it returns the
// pass-through pairs with the prefix stripped. Get never parses: c was
// checked when it was built.
func (o Opt[T]) Get(c *Config) T {
	var zero T
	if c == nil {
		return zero
	}
	if v, ok := c.values[o.s.key]; ok {
		if t, ok := v.(T); ok {
			return t
		}
	}
	if o.s.hasDefault {
		if t, ok := o.s.def.(T); ok {
			return t
		}
	}
	return zero
}

// Format writes v in the option's syntax, so that it parses back: what
// the configuration reference shows of a default.
func (o Opt[T]) Format(v T) string { return formatValue(o.s.typ, v) }

// Lookup returns the option's value from c and whether it was set (by its
// own, a deprecated or a fallback key).
func (o Opt[T]) Lookup(c *Config) (T, bool) {
	var zero T
	if c == nil {
		return zero, false
	}
	v, ok := c.values[o.s.key]
	if !ok {
		return zero, false
	}
	t, ok := v.(T)
	return t, ok
}

// String declares a string option.
func String(key string) Opt[string] {
	return newOpt[string](key, TypeString, func(v string, _ *spec) (any, error) { return v, nil })
}

// Int declares a 32-bit integer option.
func Int(key string) Opt[int] {
	return newOpt[int](key, TypeInt, func(v string, _ *spec) (any, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("not an integer")
		}
		return int(n), nil
	})
}

// Long declares a 64-bit integer option.
func Long(key string) Opt[int64] {
	return newOpt[int64](key, TypeLong, func(v string, _ *spec) (any, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("not a long integer")
		}
		return n, nil
	})
}

// Float declares a floating-point option.
func Float(key string) Opt[float64] {
	return newOpt[float64](key, TypeFloat, func(v string, _ *spec) (any, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, fmt.Errorf("not a number")
		}
		return f, nil
	})
}

// Bool declares a boolean option; values are true or false in any case.
func Bool(key string) Opt[bool] {
	return newOpt[bool](key, TypeBool, func(v string, _ *spec) (any, error) {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("not a boolean (true or false)")
	})
}

// Duration declares a duration option in Flink's syntax: an integer and a
// unit, such as "10s", "1 min", "500 ms", "2 h", "1d"; without a unit the
// number is milliseconds.
func Duration(key string) Opt[time.Duration] {
	return newOpt[time.Duration](key, TypeDuration, func(v string, _ *spec) (any, error) {
		return ParseDuration(v)
	})
}

// Size declares a memory-size option in Flink's syntax, such as "64mb",
// "1 gb", "512k"; without a unit the number is bytes.
func Size(key string) Opt[MemorySize] {
	return newOpt[MemorySize](key, TypeMemorySize, func(v string, _ *spec) (any, error) {
		return ParseMemorySize(v)
	})
}

// Enum declares an option whose value is one of values. Matching is
// case-insensitive, as Flink's enum options are; Get returns the declared
// spelling.
func Enum(key string, values ...string) Opt[string] {
	o := newOpt[string](key, TypeEnum, func(v string, s *spec) (any, error) {
		t := strings.TrimSpace(v)
		for _, e := range s.enum {
			if strings.EqualFold(e, t) {
				return e, nil
			}
		}
		return nil, errNotInEnum
	})
	o.s.enum = append([]string(nil), values...)
	return o
}

// List declares a ';'-separated list option ('t1;t2'). Empty items are
// dropped and items are trimmed.
func List(key string) Opt[[]string] {
	return newOpt[[]string](key, TypeList, func(v string, _ *spec) (any, error) {
		return ParseList(v), nil
	})
}

// Map declares a map option written "k1:v1,k2:v2".
func Map(key string) Opt[map[string]string] {
	return newOpt[map[string]string](key, TypeMap, func(v string, _ *spec) (any, error) {
		return ParseMap(v)
	})
}

// Prefix declares pass-through options: every key that starts with prefix
// (for example "properties.") is accepted unchecked, and Get returns the
// pairs with the prefix stripped. Keys under the prefix that look like
// secrets (see IsSensitiveKey) are masked in errors.
func Prefix(prefix string) Opt[map[string]string] {
	o := newOpt[map[string]string](prefix, TypeString, func(v string, _ *spec) (any, error) { return v, nil })
	o.s.prefix = true
	return o
}

// Named declares an option whose value names something a Validator's
// Resolve hook turns into a T (package factory's FormatOption: a format of
// the registry). Without the hook, or before it ran, the value is the
// trimmed identifier.
func Named[T any](key string) Opt[T] {
	return newOpt[T](key, TypeFormat, func(v string, _ *spec) (any, error) {
		return strings.TrimSpace(v), nil
	})
}

var errNotInEnum = fmt.Errorf("not one of the allowed values")

func formatValue(t ValueType, v any) string {
	switch x := v.(type) {
	case string:
		return x
	case time.Duration:
		return FormatDuration(x)
	case MemorySize:
		return x.String()
	case []string:
		return strings.Join(x, ";")
	case map[string]string:
		keys := sortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + x[k]
		}
		return strings.Join(parts, ",")
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
