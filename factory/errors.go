package factory

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/option"
)

// ErrSkipRecord is returned (wrapped) by a Decoder when a record is to be
// dropped: the format's ignore-parse-errors option made it discard a record
// that could not be decoded, or the record holds no row (json's null or
// empty record, as Flink skips them). The caller drops the record and
// counts it; it is not a failure.
var ErrSkipRecord = errors.New("record skipped: it could not be decoded and parse errors are ignored")

// The errors of option validation are package option's
// (option.MissingOptionsError, option.InvalidValueError, ...); a table's
// are wrapped in a *TableError.

// UnknownFactoryError is returned when the connector or a format names an
// identifier that is not registered.
type UnknownFactoryError struct {
	// Key is the option that names it: connector, format, key.format, ...
	Key string
	// Identifier is the unknown name.
	Identifier string
	// Available lists the registered identifiers of that kind, sorted.
	Available []string
	// NotYet is set when the identifier names a Flink connector or format
	// that streamsql does not support yet (see NotYetSupported).
	NotYet bool
}

func (e *UnknownFactoryError) Error() string {
	kind := "connector"
	if e.Key != "connector" {
		kind = "format"
	}
	msg := fmt.Sprintf("could not find any %s for '%s'='%s'.\n\nAvailable %s identifiers are:\n\n%s",
		kind, e.Key, e.Identifier, kind, strings.Join(e.Available, "\n"))
	if s := option.Nearest(e.Identifier, e.Available); s != "" {
		msg += fmt.Sprintf("\n\nDid you mean '%s'?", s)
	}
	return msg
}

// CapabilityError is returned when a connector is used as a source but can
// only be a sink, or the reverse.
type CapabilityError struct {
	Connector string
	// Wanted is "source" or "sink".
	Wanted string
}

func (e *CapabilityError) Error() string {
	other := "sink"
	if e.Wanted == "sink" {
		other = "source"
	}
	return fmt.Sprintf("connector '%s' can only be used as a %s. It cannot be used as a %s.", e.Connector, other, e.Wanted)
}

// UnsupportedTypeError is returned when a format cannot represent a column
// type (csv and MAP, raw and anything but one STRING or BYTES column).
type UnsupportedTypeError struct {
	Format string
	Field  string
	Type   string
	Reason string
}

func (e *UnsupportedTypeError) Error() string {
	return fmt.Sprintf("format '%s' does not support column %s of type %s: %s", e.Format, e.Field, e.Type, e.Reason)
}

// DecodeError is returned when a record cannot be decoded. The Kafka
// connector wraps it with topic, partition and offset.
type DecodeError struct {
	Format string
	// Field is the column (dotted for nested fields), or "" when the
	// record as a whole is malformed.
	Field string
	// Offset is the byte offset in the record where the problem was found.
	Offset int
	Err    error
}

func (e *DecodeError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: cannot decode record at byte %d: %v", e.Format, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: cannot decode field '%s' at byte %d: %v", e.Format, e.Field, e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// EncodeError is returned when a row cannot be encoded.
type EncodeError struct {
	Format string
	Field  string
	Err    error
}

func (e *EncodeError) Error() string {
	return fmt.Sprintf("%s: cannot encode field '%s': %v", e.Format, e.Field, e.Err)
}

func (e *EncodeError) Unwrap() error { return e.Err }

// legacyConnectorKey is the connector property of Flink before 1.11
// (FLIP-122), which streamsql does not read.
const legacyConnectorKey = "connector.type"

// LegacyOptionsError wraps the missing 'connector' error of a table
// declared with Flink's legacy connector properties ('connector.type',
// 'connector.path', 'format.type', ...), saying how to write them today.
type LegacyOptionsError struct {
	Err error // the *option.MissingOptionsError of 'connector'
}

func (e *LegacyOptionsError) Error() string {
	return e.Err.Error() + "\n\n'connector.type' and the other 'connector.*' and 'format.*' properties are Flink's " +
		"connector properties from before 1.11 (deprecated by FLIP-122), which streamsql does not read: write " +
		"'connector' = '<name>' with the connector's own options ('path' for 'connector.path', 'format' for " +
		"'format.type'; `streamsql options <name>` lists them)"
}

func (e *LegacyOptionsError) Unwrap() error { return e.Err }

// KeyValue is one table option, its value masked when sensitive.
type KeyValue struct {
	Key, Value string
}

// TableError is the outer error of everything that goes wrong while
// validating a table's options or creating its source or sink: it names
// the table and lists its options, sensitive values masked.
type TableError struct {
	Table string
	// Action is "source", "sink" or "validate".
	Action string
	// Options are the table's options, sorted by key, masked.
	Options []KeyValue
	Err     error
}

func (e *TableError) Error() string {
	var b strings.Builder
	switch e.Action {
	case "source":
		fmt.Fprintf(&b, "unable to create a source for reading table '%s'", e.Table)
	case "sink":
		fmt.Fprintf(&b, "unable to create a sink for writing table '%s'", e.Table)
	default:
		fmt.Fprintf(&b, "invalid options for table '%s'", e.Table)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	b.WriteString("\n\nTable options are:\n")
	for _, kv := range e.Options {
		fmt.Fprintf(&b, "\n'%s'='%s'", kv.Key, kv.Value)
	}
	return b.String()
}

func (e *TableError) Unwrap() error { return e.Err }
