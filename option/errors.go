package option

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/internal/suggest"
)

// MissingOptionsError is returned when required options are absent.
type MissingOptionsError struct {
	// Keys are the missing options, sorted.
	Keys []string
}

func (e *MissingOptionsError) Error() string {
	return "one or more required options are missing.\n\nMissing required options are:\n\n" +
		strings.Join(e.Keys, "\n")
}

// SupportedKey is one entry of the supported-options list of an
// UnsupportedOptionsError.
type SupportedKey struct {
	Key        string
	Deprecated bool // a deprecated alias of another option
	Prefix     bool // a pass-through prefix such as properties.
}

func (k SupportedKey) String() string {
	switch {
	case k.Prefix:
		return k.Key + "*"
	case k.Deprecated:
		return k.Key + " (deprecated)"
	}
	return k.Key
}

// UnsupportedOptionsError is returned when options are set that neither the
// connector nor its formats declare.
type UnsupportedOptionsError struct {
	// Factory is the connector's identifier.
	Factory string
	// Keys are the unsupported options, sorted.
	Keys []string
	// Suggestions maps an unsupported key to the nearest supported one,
	// when one is close enough to be a likely typo.
	Suggestions map[string]string
	// Supported lists every accepted key, sorted. The message names only
	// the few nearest to Keys, and how to see them all.
	Supported []SupportedKey
}

func (e *UnsupportedOptionsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unsupported options found for '%s'.\n\nUnsupported options:\n\n", e.Factory)
	for _, k := range e.Keys {
		b.WriteString(k)
		if s, ok := e.Suggestions[k]; ok {
			fmt.Fprintf(&b, " (did you mean '%s'?)", s)
		}
		b.WriteByte('\n')
	}
	if len(e.Supported) <= 2*closestOptions {
		b.WriteString("\nSupported options:\n\n")
		for i, k := range e.Supported {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(k.String())
		}
		return b.String()
	}
	// The few options nearest to the unknown keys, not every one (a
	// connector with its formats has dozens): the reference lists them.
	var names []string
	for _, k := range e.Supported {
		names = append(names, k.Key)
	}
	var closest []string
	for _, k := range e.Keys {
		for _, c := range suggest.Closest(k, names, closestOptions) {
			if !slices.Contains(closest, c) {
				closest = append(closest, c)
			}
		}
	}
	b.WriteString("\nClosest supported options:\n\n")
	for i, c := range closest[:min(len(closest), 2*closestOptions)] {
		if i > 0 {
			b.WriteByte('\n')
		}
		k := e.Supported[slices.IndexFunc(e.Supported, func(s SupportedKey) bool { return s.Key == c })]
		b.WriteString(k.String())
	}
	fmt.Fprintf(&b, "\n\n(%d supported in all: `streamsql options %s` lists them with their meaning)", len(e.Supported), e.Factory)
	return b.String()
}

// closestOptions is how many supported options an UnsupportedOptionsError
// lists per unknown key.
const closestOptions = 5

// InvalidValueError is returned when an option's value does not parse as
// its type or is not one of its allowed values.
type InvalidValueError struct {
	// Key is the key as written (possibly a deprecated alias).
	Key string
	// Value is the value as written, or Mask for a sensitive option.
	Value string
	// Type is the option's declared type.
	Type ValueType
	// Allowed lists the allowed values of an enum option.
	Allowed []string
	// Err says what is wrong.
	Err error
}

func (e *InvalidValueError) Error() string {
	msg := fmt.Sprintf("invalid value for option '%s': '%s' is not a valid %s", e.Key, e.Value, e.Type)
	if len(e.Allowed) > 0 {
		msg += "; allowed values are: " + strings.Join(e.Allowed, ", ")
	} else if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *InvalidValueError) Unwrap() error { return e.Err }

// ConflictError is returned when options that exclude each other are set
// together, or an option and its deprecated alias disagree.
type ConflictError struct {
	// Keys are the conflicting options as written.
	Keys []string
	// Reason says why they conflict.
	Reason string
}

func (e *ConflictError) Error() string {
	quoted := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		quoted[i] = "'" + k + "'"
	}
	return fmt.Sprintf("options %s conflict: %s", strings.Join(quoted, " and "), e.Reason)
}

// RequirementError is returned when a conditional requirement is not met:
// an option that another option's value makes necessary is absent (or one
// of several alternatives must be set).
type RequirementError struct {
	// Keys are the options of which (at least) one is required.
	Keys []string
	// When is the option that makes them required ("" for a plain
	// one-of requirement), and Value its value.
	When, Value string
	// Reason says why.
	Reason string
}

func (e *RequirementError) Error() string {
	quoted := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		quoted[i] = "'" + k + "'"
	}
	what := strings.Join(quoted, " or ")
	if e.When == "" {
		return fmt.Sprintf("%s must be set: %s", what, e.Reason)
	}
	return fmt.Sprintf("%s is required when '%s' is '%s': %s", what, e.When, e.Value, e.Reason)
}

// RuleError is returned when a custom rule (see Check) rejects the options.
type RuleError struct {
	Keys   []string
	Reason string
	Err    error
}

func (e *RuleError) Error() string {
	if e.Err != nil {
		return e.Reason + ": " + e.Err.Error()
	}
	return e.Reason
}

func (e *RuleError) Unwrap() error { return e.Err }
