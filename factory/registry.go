package factory

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// ColumnKind says where a column's value comes from.
type ColumnKind uint8

// The column kinds of a CREATE TABLE.
const (
	// Physical columns are read from and written to the record's payload
	// by the formats.
	Physical ColumnKind = iota
	// Metadata columns map to connector metadata (METADATA [FROM 'key']).
	Metadata
	// Computed columns are expressions (name AS expr); connectors never
	// see their values.
	Computed
)

// Column is a column of a resolved table schema.
type Column struct {
	Name string
	Type types.Type
	Kind ColumnKind
	// MetadataKey is the metadata key of a Metadata column (the FROM
	// 'key', else the column name).
	MetadataKey string
	// Virtual marks a read-only metadata column (METADATA VIRTUAL): it is
	// not written by sinks.
	Virtual bool
	// Expr is the expression text of a Computed column.
	Expr string
}

// Schema is a table's resolved schema, filled by the planner.
type Schema struct {
	Columns []Column
	// PrimaryKey lists the primary-key column names (NOT ENFORCED), or is
	// empty.
	PrimaryKey []string
	// PartitionKeys lists the PARTITIONED BY column names in declaration
	// order, or is empty.
	PartitionKeys []string
}

// PhysicalFields returns the physical columns as row fields, in order: the
// layout formats decode into and encode from.
func (s Schema) PhysicalFields() []types.Field {
	var out []types.Field
	for _, c := range s.Columns {
		if c.Kind == Physical {
			out = append(out, types.Field{Name: c.Name, Type: c.Type})
		}
	}
	return out
}

// PhysicalSchema returns the schema of physical columns with the given
// fields, in order: the inverse of PhysicalFields, for tests and programs
// that create a table without SQL.
func PhysicalSchema(fields []types.Field) Schema {
	cols := make([]Column, len(fields))
	for i, f := range fields {
		cols[i] = Column{Name: f.Name, Type: f.Type, Kind: Physical}
	}
	return Schema{Columns: cols}
}

// Context is what a connector factory receives to create a source or sink.
type Context struct {
	// Table is the table's catalog name.
	Table string
	// ObjectName is the table's name within its database (see
	// Table.ObjectName); never empty.
	ObjectName string
	// Schema is the table's resolved schema.
	Schema Schema
	// Options are the validated options; read them with each Opt's Get.
	Options *option.Config
	// Job is the job the table belongs to; the zero value when not known.
	Job JobContext
	// Logger is the job's logger, for the connector's own messages
	// outside of a task (a task's logger is connector.TaskInfo.Logger):
	// the embedder's (see WithLogger), else slog.Default(). Never nil when
	// the registry creates the source or sink.
	Logger *slog.Logger
	// ReadFields, when not nil, says which fields of the source row the
	// job reads (Flink's projection pushdown): ReadFields[i] is for row
	// position i, the physical and metadata columns in schema order
	// (computed columns are not the connector's). It is set only for a
	// source, by the planner, from every column its pipeline uses (select
	// list, WHERE, computed columns and watermark through their columns,
	// primary key); nil means every field.
	//
	// Rows keep the table's full width either way. A source may leave an
	// unread field NULL and need not decode or validate it (so a bad value
	// there fails no record, as in Flink); one that ignores ReadFields
	// decodes everything, as before. A source whose reader serves several
	// pipelines must pass the union of their sets. Formats learn theirs
	// through FormatContext.ReadFields.
	ReadFields []bool
	// ReadRows, when not nil, narrows ReadFields into ROW columns (nested
	// projection): ReadRows[i], when not nil, says which fields of the
	// read ROW at row position i the job reads (from the paths such as
	// bid.price it uses); a nil entry means the whole value. A source may
	// leave an unread nested field NULL, as an unread column; one that
	// ignores ReadRows decodes whole ROWs. Formats learn theirs through
	// FormatContext.ReadRows.
	ReadRows []*RowRead
}

// ReadsAll reports whether every field is read (ReadFields is nil or all
// true).
func (c Context) ReadsAll() bool { return !slices.Contains(c.ReadFields, false) }

// ConnectorFactory declares a connector: its identifier (the value of the
// 'connector' option), its options and rules, its traits (metadata keys,
// changelog modes, primary-key need) and how to describe, create a source
// and/or sink. A nil NewSource (NewSink) means the connector cannot be a
// source (sink). Everything the planner checks about a connector comes
// from here: built-in connectors and embedders' connectors are treated
// alike.
type ConnectorFactory struct {
	// Identifier is the value of the 'connector' option, such as "kafka".
	Identifier string
	// Description is one paragraph for the configuration reference.
	Description string
	// Options are the declared options ('connector' is implicit).
	Options []option.Option
	// Rules relate options: conditional requirements, conflicts, checks.
	Rules []option.Rule
	// ReadableMetadata maps each metadata key the source delivers to its
	// type (Flink's SupportsReadingMetadata); a metadata column may be
	// declared with any type that key's type casts to. nil means not
	// declared: any key is taken as declared by the table; an empty map
	// means the connector has no metadata.
	ReadableMetadata map[string]types.Type
	// ValueFormatMetadata is set when the source also delivers its value
	// format's metadata (FormatFactory.ReadableMetadata) as
	// 'value.<key>', as Flink's Kafka source does (debezium-json's
	// 'value.source.table', ...).
	ValueFormatMetadata bool
	// WritableMetadata maps each metadata key the sink writes to the type
	// it expects (SupportsWritingMetadata); a non-VIRTUAL metadata column
	// whose key is not writable makes the table unusable as a sink. nil
	// means not declared, as for ReadableMetadata.
	WritableMetadata map[string]types.Type
	// SourceChangelog is what the source produces and SinkChangelog what
	// the sink accepts (the zero value: INSERT only).
	SourceChangelog, SinkChangelog ChangelogMode
	// RequiresPrimaryKey is set for connectors whose tables must declare
	// a PRIMARY KEY (upsert-kafka: the key of its records).
	RequiresPrimaryKey bool
	// Lookup is set for connectors whose sources are
	// connector.LookupSources: their tables may be the right input of a
	// lookup join (jdbc). Such a connector declares the option.Lookup*
	// options.
	Lookup bool
	// Describe, when set, describes a validated table used in role in its
	// job (v.Table.Job): its delivery guarantee, derived options,
	// EXPLAIN's summary, warnings and exclusive resources (see TableInfo).
	// It connects nowhere. An error fails the job's planning; an
	// *OptionError is shown at the option's value.
	Describe func(v *Validated, role Role) (TableInfo, error)
	// NewSource creates a table source from validated options.
	NewSource func(ctx Context) (connector.Source, error)
	// NewSink creates a table sink from validated options.
	NewSink func(ctx Context) (connector.Sink, error)
}

// Decoder decodes one record's bytes into a row. Implementations are not
// safe for concurrent use: each task creates its own.
type Decoder interface {
	// Decode decodes data into row, reusing row.Fields when its capacity
	// allows; it sets row.Kind to Insert unless the format carries a change
	// kind. Decoded values never alias data: the caller may reuse data
	// once Decode returns. Errors are *DecodeError values naming the field
	// and byte offset, or wrap ErrSkipRecord when the record is to be
	// dropped: the format was told to ignore parse errors, or the record
	// holds no row (json's null or empty record, as in Flink).
	Decode(data []byte, row *types.Row) error
}

// ValueRecycler is implemented by decoders that can reuse the memory of the
// nested values (the fields of ROW values) of the rows they decoded.
// RecycleValues tells the decoder that nothing refers any more to the rows
// Decode filled before the call, nor to any ROW, ARRAY or MAP value in
// them: it may overwrite their memory from now on. From the first call on
// the decoder keeps that memory for reuse (a caller that cannot promise
// as much never calls it, and every nested value is then allocated anew).
// Connectors call it only when the runtime says so
// (connector.NestedRowRecycler).
type ValueRecycler interface {
	RecycleValues()
}

// MultiRowDecoder is implemented by the decoders of change-event formats,
// whose records may hold more than one row: a Debezium UPDATE is an
// UPDATE_BEFORE and an UPDATE_AFTER row, a Canal record a list of rows.
// Decode fills the first row; Next fills row with the next row of the same
// record (reusing row.Fields as Decode does) and reports false when there
// is none. Connectors call Next until it reports false before decoding the
// next record.
type MultiRowDecoder interface {
	Decoder
	Next(row *types.Row) bool
}

// Encoder encodes rows. Implementations are not safe for concurrent use.
type Encoder interface {
	// Encode appends the encoding of row to dst and returns the extended
	// slice.
	Encode(dst []byte, row types.Row) ([]byte, error)
}

// RecordScanner finds where records end in a byte stream, for connectors
// that read a stream (the filesystem source) rather than one message per
// record (kafka). A format whose records may span lines declares one
// (FormatFactory.NewRecordScanner); for the others a record is a line.
// A scanner holds the state of one record; it is not safe for concurrent
// use.
type RecordScanner interface {
	// Reset starts a new record.
	Reset()
	// Feed scans the next bytes of the record, in chunks of any size. It
	// returns the number of bytes of b that belong to the record and
	// whether the record ended there: the byte at n-1 is then the line
	// feed that ends it. When end is false, all of b belongs to the
	// record, which continues in the next bytes.
	Feed(b []byte) (n int, end bool)
	// Terminator returns the length of the line break that ended the
	// record (after Feed reported its end); it is not part of the record
	// handed to the decoder.
	Terminator() int
	// Unterminated reports, when the input ends, whether the bytes fed
	// since Reset cannot be a whole record: nil when they can, else a
	// *DecodeError with the offset in the record (a csv quoted field that
	// is never closed).
	Unterminated() error
}

// FormatContext is what a format factory receives to create a decoder or
// encoder.
type FormatContext struct {
	// Table is the table's catalog name.
	Table string
	// Fields are the columns the format handles, in row order (for Kafka:
	// the key fields or the value fields).
	Fields []types.Field
	// Options are the format's validated options, read with each Opt's Get
	// (the keys are declared without the json./value.json. prefix).
	Options *option.Config
	// Metadata are keys of the format's ReadableMetadata the table reads
	// (a decoder appends their values, in this order, after Fields).
	Metadata []string
	// Topic is the table's one topic when the connector has one (kafka
	// with a single 'topic'), else "". avro-confluent names its default
	// subject after it, as Flink does.
	Topic string
	// IsKey says the format encodes the record key ('key.format').
	IsKey bool
	// ReadFields, for a decoder, says which of Fields the job reads
	// (ReadFields[i] for Fields[i]); nil means all (see
	// Context.ReadFields). The decoded row still has one value per field
	// (then the metadata): a decoder may set an unread field to NULL
	// without decoding or validating it, as Flink's
	// ProjectableDecodingFormat does; one that ignores ReadFields decodes
	// every field. Metadata keys are always delivered.
	ReadFields []bool
	// ReadRows, for a decoder, narrows ReadFields into ROW fields (see
	// Context.ReadRows): nil, or ReadRows[i] for Fields[i], nil when the
	// whole value is read. A decoder may leave an unread nested field
	// NULL without decoding or validating it, as an unread field; the ROW
	// itself keeps its width, and is NULL exactly when the record's value
	// is.
	ReadRows []*RowRead
}

// FormatFactory declares a format: its identifier (the value of 'format',
// 'key.format' or 'value.format'), its options (declared without prefix)
// and how to create decoders and encoders. Type checks against the fields
// happen in NewDecoder / NewEncoder, which return *UnsupportedTypeError.
type FormatFactory struct {
	Identifier  string
	Description string
	Options     []option.Option
	Rules       []option.Rule
	// Changelog is what the format's decoder produces and its encoder
	// accepts (Flink's DecodingFormat/EncodingFormat getChangelogMode);
	// the zero value is INSERT only. A source or sink of a connector that
	// is INSERT only itself (kafka, filesystem) takes its value format's.
	Changelog ChangelogMode
	// ReadableMetadata maps the metadata keys a decoder can deliver to
	// their types (Flink's DecodingFormat.listReadableMetadata); a Kafka
	// table reads them as 'value.<key>'.
	ReadableMetadata map[string]types.Type
	NewDecoder       func(ctx FormatContext) (Decoder, error)
	NewEncoder       func(ctx FormatContext) (Encoder, error)
	// NewRecordScanner, when set, frames the format's records in a byte
	// stream (see RecordScanner); nil means a record is one line. Only
	// ctx.Options is set.
	NewRecordScanner func(ctx FormatContext) (RecordScanner, error)
}

// Format is a format resolved from a table's options: the factory and its
// validated options. FormatOption.Get returns it.
type Format struct {
	// Key is the option that named the format as written (format,
	// value.format, key.format).
	Key string
	// Prefix is the prefix of the format's options: json., key.json., ...
	Prefix  string
	Factory *FormatFactory
	Options *option.Config
	// Topic is set by a connector with a single topic; it reaches the
	// format as FormatContext.Topic.
	Topic string
	table string
}

// Identifier returns the format's identifier, such as "json".
func (f *Format) Identifier() string { return f.Factory.Identifier }

// NewDecoder creates a decoder for rows of fields.
func (f *Format) NewDecoder(fields []types.Field) (Decoder, error) {
	return f.NewMetadataDecoder(fields, nil)
}

// NewMetadataDecoder creates a decoder for rows of fields followed by the
// format's metadata keys (see FormatContext.Metadata).
func (f *Format) NewMetadataDecoder(fields []types.Field, metadata []string) (Decoder, error) {
	return f.NewProjectedDecoder(fields, nil, metadata)
}

// NewProjectedDecoder creates a decoder for rows of fields followed by the
// format's metadata keys that needs to decode only the fields read says
// are read (see FormatContext.ReadFields; nil: all of them).
func (f *Format) NewProjectedDecoder(fields []types.Field, read []bool, metadata []string) (Decoder, error) {
	return f.NewNestedDecoder(fields, read, nil, metadata)
}

// NewNestedDecoder is NewProjectedDecoder that also narrows read ROW
// fields (FormatContext.ReadRows; nil: whole values).
func (f *Format) NewNestedDecoder(fields []types.Field, read []bool, rows []*RowRead, metadata []string) (Decoder, error) {
	if f.Factory.NewDecoder == nil {
		return nil, fmt.Errorf("format '%s' cannot decode (it is write-only)", f.Factory.Identifier)
	}
	if read != nil && len(read) != len(fields) {
		return nil, fmt.Errorf("format '%s': %d read flags for %d fields", f.Factory.Identifier, len(read), len(fields))
	}
	if !RowsFit(rows, fields) {
		return nil, fmt.Errorf("format '%s': nested read flags %v do not fit the fields", f.Factory.Identifier, rows)
	}
	if !slices.Contains(read, false) {
		read = nil
	}
	if !slices.ContainsFunc(rows, func(r *RowRead) bool { return r != nil }) {
		rows = nil
	}
	return f.Factory.NewDecoder(FormatContext{Table: f.table, Fields: fields, Options: f.Options, Metadata: metadata, Topic: f.Topic, IsKey: f.Key == "key.format", ReadFields: read, ReadRows: rows})
}

// NewRecordScanner returns a scanner that finds where the format's records
// end in a byte stream, or nil when a record is one line.
func (f *Format) NewRecordScanner() (RecordScanner, error) {
	if f.Factory.NewRecordScanner == nil {
		return nil, nil
	}
	return f.Factory.NewRecordScanner(FormatContext{Table: f.table, Options: f.Options, Topic: f.Topic, IsKey: f.Key == "key.format"})
}

// NewEncoder creates an encoder for rows of fields.
func (f *Format) NewEncoder(fields []types.Field) (Encoder, error) {
	if f.Factory.NewEncoder == nil {
		return nil, fmt.Errorf("format '%s' cannot encode (it is read-only)", f.Factory.Identifier)
	}
	return f.Factory.NewEncoder(FormatContext{Table: f.table, Fields: fields, Options: f.Options, Topic: f.Topic, IsKey: f.Key == "key.format"})
}

// Registry holds connector and format factories. The zero Registry is not
// usable; create one with NewRegistry or Clone. A Registry is safe for
// concurrent use.
type Registry struct {
	mu         sync.RWMutex
	connectors map[string]*ConnectorFactory
	formats    map[string]*FormatFactory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{connectors: map[string]*ConnectorFactory{}, formats: map[string]*FormatFactory{}}
}

// Default is the registry that built-in connectors and formats register
// into from init(), and that embedders extend with Register calls.
var Default = NewRegistry()

// ErrDuplicate is returned when an identifier is registered twice.
var ErrDuplicate = errors.New("identifier already registered")

// ErrInvalidFactory is returned when a factory declaration is malformed
// (empty identifier, duplicate option keys, a bad default, ...).
var ErrInvalidFactory = errors.New("invalid factory declaration")

// RegisterConnector adds a connector factory. It returns an error wrapping
// ErrInvalidFactory or ErrDuplicate.
func (r *Registry) RegisterConnector(f ConnectorFactory) error {
	if err := checkDecl(f.Identifier, f.Options, f.Rules, true); err != nil {
		return err
	}
	if f.NewSource == nil && f.NewSink == nil {
		return fmt.Errorf("%w: connector '%s' creates neither sources nor sinks", ErrInvalidFactory, f.Identifier)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.connectors[f.Identifier]; dup {
		return fmt.Errorf("connector '%s': %w", f.Identifier, ErrDuplicate)
	}
	r.connectors[f.Identifier] = &f
	return nil
}

// RegisterFormat adds a format factory. It returns an error wrapping
// ErrInvalidFactory or ErrDuplicate.
func (r *Registry) RegisterFormat(f FormatFactory) error {
	if err := checkDecl(f.Identifier, f.Options, f.Rules, false); err != nil {
		return err
	}
	if f.NewDecoder == nil && f.NewEncoder == nil {
		return fmt.Errorf("%w: format '%s' creates neither decoders nor encoders", ErrInvalidFactory, f.Identifier)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.formats[f.Identifier]; dup {
		return fmt.Errorf("format '%s': %w", f.Identifier, ErrDuplicate)
	}
	r.formats[f.Identifier] = &f
	return nil
}

// MustRegisterConnector is RegisterConnector that panics on error, for use
// in init().
func (r *Registry) MustRegisterConnector(f ConnectorFactory) {
	if err := r.RegisterConnector(f); err != nil {
		panic("factory: " + err.Error())
	}
}

// MustRegisterFormat is RegisterFormat that panics on error, for use in
// init().
func (r *Registry) MustRegisterFormat(f FormatFactory) {
	if err := r.RegisterFormat(f); err != nil {
		panic("factory: " + err.Error())
	}
}

// RegisterConnector adds a connector factory to Default.
func RegisterConnector(f ConnectorFactory) error { return Default.RegisterConnector(f) }

// RegisterFormat adds a format factory to Default.
func RegisterFormat(f FormatFactory) error { return Default.RegisterFormat(f) }

// MustRegisterConnector adds a connector factory to Default and panics on
// a nil, empty or duplicate declaration, as database/sql.Register does.
func MustRegisterConnector(f ConnectorFactory) { Default.MustRegisterConnector(f) }

// MustRegisterFormat adds a format factory to Default and panics on error.
func MustRegisterFormat(f FormatFactory) { Default.MustRegisterFormat(f) }

// Clone returns a copy of r that shares its factories but not its tables:
// registering into the copy does not change r.
func (r *Registry) Clone() *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := NewRegistry()
	for k, v := range r.connectors {
		c.connectors[k] = v
	}
	for k, v := range r.formats {
		c.formats[k] = v
	}
	return c
}

// Connectors returns the registered connector identifiers, sorted.
func (r *Registry) Connectors() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return sortedKeys(r.connectors)
}

// Formats returns the registered format identifiers, sorted.
func (r *Registry) Formats() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return sortedKeys(r.formats)
}

// Connector returns the connector factory registered as id.
func (r *Registry) Connector(id string) (*ConnectorFactory, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.connectors[id]
	return f, ok
}

// Format returns the format factory registered as id.
func (r *Registry) Format(id string) (*FormatFactory, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.formats[id]
	return f, ok
}

// checkDecl checks a factory's declarations once, at registration.
func checkDecl(id string, opts []option.Option, rules []option.Rule, isConnector bool) error {
	if id == "" || strings.TrimSpace(id) != id {
		return fmt.Errorf("%w: empty or padded identifier %q", ErrInvalidFactory, id)
	}
	seen := map[string]bool{}
	if isConnector {
		seen["connector"] = true
	}
	for _, o := range opts {
		if o == nil || o.Info().Type == 0 {
			return fmt.Errorf("%w: '%s' declares a nil option", ErrInvalidFactory, id)
		}
		s := o.Info()
		keys := append([]string{s.Key}, s.DeprecatedKeys()...)
		keys = append(keys, s.Fallback...)
		for _, k := range keys {
			if k == "" || seen[k] {
				return fmt.Errorf("%w: '%s' declares option key %q twice (or empty)", ErrInvalidFactory, id, k)
			}
			seen[k] = true
		}
		if s.Type == option.TypeEnum && len(s.Enum) == 0 {
			return fmt.Errorf("%w: '%s': enum option '%s' has no values", ErrInvalidFactory, id, s.Key)
		}
		if s.HasDefault && s.Type == option.TypeEnum && !slices.ContainsFunc(s.Enum, func(e string) bool { return strings.EqualFold(e, strings.TrimSpace(s.Default)) }) {
			return fmt.Errorf("%w: '%s': default %q of '%s' is not an allowed value", ErrInvalidFactory, id, s.Default, s.Key)
		}
		if s.Type == option.TypeFormat && !isConnector {
			return fmt.Errorf("%w: format '%s' declares a format option '%s'", ErrInvalidFactory, id, s.Key)
		}
	}
	for _, r := range rules {
		for _, o := range r.Options() {
			if o == nil || !seen[o.Key()] {
				return fmt.Errorf("%w: '%s': a rule refers to an undeclared option", ErrInvalidFactory, id)
			}
		}
	}
	return nil
}
