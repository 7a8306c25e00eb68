package factory

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/option"
)

// Warning is a non-fatal finding of validation, such as the use of a
// deprecated key. Warnings are returned as data for the caller to show
// (the CLI prints them; EXPLAIN lists them).
type Warning struct {
	// Kind classifies the warning (WarnDeprecatedOption).
	Kind WarningKind
	// Key is the option the warning is about, as written.
	Key string
	// Replacement is the option to use instead, if any.
	Replacement string
	// Message is the text shown to the user.
	Message string
}

func (w Warning) String() string { return w.Message }

// Table is the input of validation: a table's name, resolved schema and
// WITH options, and the job it belongs to.
type Table struct {
	// Name is the table's catalog name (cat.db.t).
	Name string
	// ObjectName is the table's name within its database (t), from which
	// connectors derive names (a Kafka transactional-id prefix); "" means
	// Name.
	ObjectName string
	// DisplayName is the name messages show (the planner's short name: t
	// for a table of the default catalog and database); "" means Name.
	DisplayName string
	Schema      Schema
	Options     map[string]string
	// Job is the job the table belongs to; the zero value when not known.
	Job JobContext
}

// Object returns ObjectName, or Name when it is empty.
func (t Table) Object() string {
	if t.ObjectName != "" {
		return t.ObjectName
	}
	return t.Name
}

// Display returns DisplayName, or Name when it is empty.
func (t Table) Display() string {
	if t.DisplayName != "" {
		return t.DisplayName
	}
	return t.Name
}

// Validated is a table whose options passed validation: its connector
// factory, typed options and warnings.
type Validated struct {
	Table    Table
	Factory  *ConnectorFactory
	Config   *option.Config
	Warnings []Warning
}

// Validate resolves t's connector and formats and validates every option
// once, eagerly. Errors are a *TableError wrapping one or more (joined) of
// *MissingOptionsError, *UnsupportedOptionsError, *InvalidValueError,
// *ConflictError, *RequirementError, *RuleError and *UnknownFactoryError.
func (r *Registry) Validate(t Table) (*Validated, error) {
	v, err := r.validate(t)
	if err != nil {
		return nil, &TableError{Table: t.Name, Action: "validate", Options: MaskedOptions(t.Options, r), Err: err}
	}
	return v, nil
}

// CreateSource validates t and creates its source (Validate, then
// NewSource). Errors are *TableError.
func (r *Registry) CreateSource(ctx context.Context, t Table) (connector.Source, *Validated, error) {
	v, err := r.validate(t)
	if err != nil {
		return nil, nil, &TableError{Table: t.Name, Action: "source", Options: MaskedOptions(t.Options, r), Err: err}
	}
	src, err := r.NewSource(ctx, v)
	if err != nil {
		return nil, nil, err
	}
	return src, v, nil
}

// NewSource creates the source of a table validated by Validate, from
// its typed options, without validating them again. Errors are
// *TableError.
func (r *Registry) NewSource(ctx context.Context, v *Validated) (connector.Source, error) {
	return r.NewProjectedSource(ctx, v, nil, nil)
}

// NewProjectedSource is NewSource for a job that reads only the fields of
// the source row that read marks (Context.ReadFields; nil: all), and of
// its ROW fields those that rows marks (Context.ReadRows; nil: whole).
func (r *Registry) NewProjectedSource(ctx context.Context, v *Validated, read []bool, rows []*RowRead) (connector.Source, error) {
	var err error
	if v == nil || v.Factory == nil {
		return nil, errors.New("factory: NewSource needs a validated table")
	}
	if v.Factory.NewSource == nil {
		err = &CapabilityError{Connector: v.Factory.Identifier, Wanted: "source"}
	}
	var src connector.Source
	if err == nil {
		c := v.context(ctx)
		c.ReadFields, c.ReadRows = read, rows
		src, err = v.Factory.NewSource(c)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, &TableError{Table: v.Table.Name, Action: "source", Options: MaskedOptions(v.Table.Options, r), Err: err}
	}
	return src, nil
}

// CreateSink validates t and creates its sink (Validate, then NewSink).
// Errors are *TableError.
func (r *Registry) CreateSink(ctx context.Context, t Table) (connector.Sink, *Validated, error) {
	v, err := r.validate(t)
	if err != nil {
		return nil, nil, &TableError{Table: t.Name, Action: "sink", Options: MaskedOptions(t.Options, r), Err: err}
	}
	sink, err := r.NewSink(ctx, v)
	if err != nil {
		return nil, nil, err
	}
	return sink, v, nil
}

// NewSink creates the sink of a table validated by Validate, from its
// typed options, without validating them again. Errors are *TableError.
func (r *Registry) NewSink(ctx context.Context, v *Validated) (connector.Sink, error) {
	var err error
	if v == nil || v.Factory == nil {
		return nil, errors.New("factory: NewSink needs a validated table")
	}
	if v.Factory.NewSink == nil {
		err = &CapabilityError{Connector: v.Factory.Identifier, Wanted: "sink"}
	}
	var sink connector.Sink
	if err == nil {
		sink, err = v.Factory.NewSink(v.context(ctx))
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, &TableError{Table: v.Table.Name, Action: "sink", Options: MaskedOptions(v.Table.Options, r), Err: err}
	}
	return sink, nil
}

func (v *Validated) context(ctx context.Context) Context {
	return Context{Table: v.Table.Name, ObjectName: v.Table.Object(), Schema: v.Table.Schema, Options: v.Config, Job: v.Table.Job,
		Logger: loggerFrom(ctx)}
}

// MaskedOptions returns options sorted by key with sensitive values
// replaced by Mask: values of options declared Sensitive by any factory in
// r (r may be nil) and of keys that look secret (IsSensitiveKey).
func MaskedOptions(options map[string]string, r *Registry) []KeyValue {
	declared := r.declaredSensitive()
	out := make([]KeyValue, 0, len(options))
	for _, k := range sortedKeys(options) {
		v := options[k]
		if option.IsSensitiveKey(k) || declared[k] || declaredSuffix(k, declared) {
			v = option.Mask
		}
		out = append(out, KeyValue{Key: k, Value: v})
	}
	return out
}

// IsSensitive reports whether option key holds a secret: its name looks
// secret (IsSensitiveKey), or a connector or format of r declares it
// Sensitive (also under a format's prefix, as 'value.<format>.<key>' or
// '<format>.<key>'). It is what MaskedOptions masks; the planner gives it to
// the parser so that parse errors mask the same values. r may be nil.
func (r *Registry) IsSensitive(key string) bool {
	if option.IsSensitiveKey(key) {
		return true
	}
	declared := r.declaredSensitive()
	return declared[key] || declaredSuffix(key, declared)
}

// declaredSensitive returns the keys (and older names) of the options
// declared Sensitive by r's connectors and formats; r may be nil.
func (r *Registry) declaredSensitive() map[string]bool {
	declared := map[string]bool{}
	if r == nil {
		return declared
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, f := range r.connectors {
		collectSensitive(f.Options, declared)
	}
	for _, f := range r.formats {
		collectSensitive(f.Options, declared)
	}
	return declared
}

func collectSensitive(opts []option.Option, into map[string]bool) {
	for _, o := range opts {
		s := o.Info()
		if !s.Sensitive {
			continue
		}
		into[s.Key] = true
		for _, d := range s.Deprecated {
			into[d.Key] = true
		}
		for _, f := range s.Fallback {
			into[f] = true
		}
	}
}

// declaredSuffix catches prefixed format options (value.json.secret).
func declaredSuffix(key string, declared map[string]bool) bool {
	for i := 0; i < len(key); i++ {
		if key[i] == '.' && declared[key[i+1:]] {
			return true
		}
	}
	return false
}

func (r *Registry) validate(t Table) (*Validated, error) {
	id, ok := t.Options[ConnectorKey]
	if !ok {
		var err error = &option.MissingOptionsError{Keys: []string{ConnectorKey}}
		if _, legacy := t.Options[legacyConnectorKey]; legacy {
			err = &LegacyOptionsError{Err: err}
		}
		return nil, err
	}
	id = strings.TrimSpace(id)
	f, ok := r.Connector(id)
	if !ok {
		return nil, &UnknownFactoryError{Key: ConnectorKey, Identifier: id, Available: r.Connectors(),
			NotYet: notYetConnectors[id]}
	}
	var formats []*Format
	v := &option.Validator{Options: t.Options}
	v.Resolve = func(v *option.Validator, key, id string) (any, error) {
		ff, ok := r.Format(id)
		if !ok {
			return nil, &UnknownFactoryError{Key: key, Identifier: id, Available: r.Formats(), NotYet: notYetFormats[id]}
		}
		fp := formatPrefix(key, id)
		fc := v.Parse(fp, ff.Options)
		fm := &Format{Key: key, Prefix: fp, Factory: ff, Options: fc, table: t.Name}
		formats = append(formats, fm)
		return fm, nil
	}
	v.Consume(ConnectorKey)
	v.Supported = append(v.Supported, option.SupportedKey{Key: ConnectorKey})
	cfg := v.Parse("", f.Options)

	// Report in the order that best explains the problem: an unknown key
	// is often a typo that also explains a "missing" one.
	var errs []error
	errs = append(errs, v.Unresolved...)
	if unsupported := v.Unconsumed(); len(unsupported) > 0 {
		supported := slices.Clone(v.Supported)
		sort.Slice(supported, func(i, j int) bool { return supported[i].Key < supported[j].Key })
		cands := make([]string, 0, len(supported))
		for _, s := range supported {
			if !s.Prefix {
				cands = append(cands, s.Key)
			}
		}
		sugg := map[string]string{}
		for _, k := range unsupported {
			if s := option.Nearest(k, cands); s != "" {
				sugg[k] = s
			}
		}
		errs = append(errs, &option.UnsupportedOptionsError{Factory: f.Identifier, Keys: unsupported, Suggestions: sugg, Supported: supported})
	}
	if len(v.Missing) > 0 {
		missing := slices.Clone(v.Missing)
		sort.Strings(missing)
		errs = append(errs, &option.MissingOptionsError{Keys: missing})
	}
	errs = append(errs, v.Invalid...)
	errs = append(errs, v.Conflicts...)
	if len(errs) == 0 {
		errs = append(errs, option.ApplyRules(cfg, "", f.Rules)...)
		for _, fm := range formats {
			errs = append(errs, option.ApplyRules(fm.Options, fm.Prefix, fm.Factory.Rules)...)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var warnings []Warning
	for _, d := range v.Deprecations {
		warnings = append(warnings, Warning{Kind: WarnDeprecatedOption, Key: d.Key, Replacement: d.Replacement, Message: d.Message()})
	}
	return &Validated{Table: t, Factory: f, Config: cfg, Warnings: warnings}, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// WithDerived returns v with options its connector derived after
// validation (TableInfo.DerivedOptions, such as a transactional-id
// prefix) added to its options and typed config, as though the table had
// set them. Only those options are parsed; the rest of v is not validated
// again. Each key must be one the connector declares.
func (v *Validated) WithDerived(derived map[string]string) (*Validated, error) {
	if len(derived) == 0 {
		return v, nil
	}
	out := *v
	out.Table.Options = maps.Clone(v.Table.Options)
	cfg := v.Config
	for _, k := range sortedKeys(derived) {
		i := slices.IndexFunc(v.Factory.Options, func(o option.Option) bool { return o.Key() == k })
		if i < 0 {
			return nil, fmt.Errorf("connector '%s' derived option '%s', which it does not declare", v.Factory.Identifier, k)
		}
		var err error
		if cfg, err = cfg.With(v.Factory.Options[i], derived[k]); err != nil {
			return nil, fmt.Errorf("connector '%s' derived an invalid value: %w", v.Factory.Identifier, err)
		}
		out.Table.Options[k] = derived[k]
	}
	out.Config = cfg
	return &out, nil
}
