package factory

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/streamsql/streamsql/connector"
)

// Config holds the validated options of one factory (a connector or a
// format), parsed into their types. It is built once by validation and
// read with each Opt's Get; it is immutable afterwards.
type Config struct {
	values    map[string]any    // declared key → parsed value
	text      map[string]string // declared key → value text (after deprecated mapping)
	used      map[string]string // declared key → key actually written
	sensitive map[string]bool   // declared key → sensitive
}

func newConfig() *Config {
	return &Config{values: map[string]any{}, text: map[string]string{}, used: map[string]string{}, sensitive: map[string]bool{}}
}

// Has reports whether o was set (by its key, a deprecated or a fallback
// key). A default does not count.
func (c *Config) Has(o Option) bool {
	if c == nil {
		return false
	}
	_, ok := c.values[o.Key()]
	return ok
}

// KeyUsed returns the key the user wrote for o (its own key, or a
// deprecated or fallback key), or o's key when it is not set.
func (c *Config) KeyUsed(o Option) string { return c.keyUsed(o.Key()) }

func (c *Config) keyUsed(key string) string {
	if u, ok := c.used[key]; ok {
		return u
	}
	return key
}

func (c *Config) shown(key, value string) string {
	if c.sensitive[key] {
		return Mask
	}
	return value
}

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
	Config   *Config
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

// CreateSource validates t and creates its source. Errors are *TableError.
func (r *Registry) CreateSource(ctx context.Context, t Table) (connector.Source, *Validated, error) {
	v, err := r.validate(t)
	if err == nil && v.Factory.NewSource == nil {
		err = &CapabilityError{Connector: v.Factory.Identifier, Wanted: "source"}
	}
	var src connector.Source
	if err == nil {
		src, err = v.Factory.NewSource(v.context())
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, nil, &TableError{Table: t.Name, Action: "source", Options: MaskedOptions(t.Options, r), Err: err}
	}
	return src, v, nil
}

// CreateSink validates t and creates its sink. Errors are *TableError.
func (r *Registry) CreateSink(ctx context.Context, t Table) (connector.Sink, *Validated, error) {
	v, err := r.validate(t)
	if err == nil && v.Factory.NewSink == nil {
		err = &CapabilityError{Connector: v.Factory.Identifier, Wanted: "sink"}
	}
	var sink connector.Sink
	if err == nil {
		sink, err = v.Factory.NewSink(v.context())
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, nil, &TableError{Table: t.Name, Action: "sink", Options: MaskedOptions(t.Options, r), Err: err}
	}
	return sink, v, nil
}

func (v *Validated) context() Context {
	return Context{Table: v.Table.Name, ObjectName: v.Table.Object(), Schema: v.Table.Schema, Options: v.Config, Job: v.Table.Job}
}

// MaskedOptions returns options sorted by key with sensitive values
// replaced by Mask: values of options declared Sensitive by any factory in
// r (r may be nil) and of keys that look secret (IsSensitiveKey).
func MaskedOptions(options map[string]string, r *Registry) []KeyValue {
	declared := r.declaredSensitive()
	out := make([]KeyValue, 0, len(options))
	for _, k := range sortedKeys(options) {
		v := options[k]
		if IsSensitiveKey(k) || declared[k] || declaredSuffix(k, declared) {
			v = Mask
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
	if IsSensitiveKey(key) {
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

func collectSensitive(opts []Option, into map[string]bool) {
	for _, o := range opts {
		s := o.decl()
		if !s.sensitive {
			continue
		}
		into[s.key] = true
		for _, d := range s.deprecated {
			into[d.Key] = true
		}
		for _, f := range s.fallback {
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

// validator carries one validation run.
type validator struct {
	reg       *Registry
	opts      map[string]string
	consumed  map[string]bool
	supported []SupportedKey
	missing   []string
	invalid   []error
	conflicts []error
	unknown   []error
	warnings  []Warning
}

func (r *Registry) validate(t Table) (*Validated, error) {
	id, ok := t.Options[ConnectorKey]
	if !ok {
		return nil, &MissingOptionsError{Keys: []string{ConnectorKey}}
	}
	id = strings.TrimSpace(id)
	f, ok := r.Connector(id)
	if !ok {
		return nil, &UnknownFactoryError{Key: ConnectorKey, Identifier: id, Available: r.Connectors(),
			NotYet: notYetConnectors[id]}
	}
	v := &validator{reg: r, opts: t.Options, consumed: map[string]bool{ConnectorKey: true}}
	v.supported = append(v.supported, SupportedKey{Key: ConnectorKey})
	cfg := v.options("", f.Options, t.Name)

	// Report in the order that best explains the problem: an unknown key
	// is often a typo that also explains a "missing" one.
	var errs []error
	errs = append(errs, v.unknown...)
	var unsupported []string
	for k := range t.Options {
		if !v.consumed[k] {
			unsupported = append(unsupported, k)
		}
	}
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		sort.Slice(v.supported, func(i, j int) bool { return v.supported[i].Key < v.supported[j].Key })
		cands := make([]string, 0, len(v.supported))
		for _, s := range v.supported {
			if !s.Prefix {
				cands = append(cands, s.Key)
			}
		}
		sugg := map[string]string{}
		for _, k := range unsupported {
			if s := nearest(k, cands); s != "" {
				sugg[k] = s
			}
		}
		errs = append(errs, &UnsupportedOptionsError{Factory: f.Identifier, Keys: unsupported, Suggestions: sugg, Supported: v.supported})
	}
	if len(v.missing) > 0 {
		sort.Strings(v.missing)
		errs = append(errs, &MissingOptionsError{Keys: v.missing})
	}
	errs = append(errs, v.invalid...)
	errs = append(errs, v.conflicts...)
	if len(errs) == 0 {
		errs = append(errs, v.rules(cfg, "", f.Rules)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Validated{Table: t, Factory: f, Config: cfg, Warnings: v.warnings}, nil
}

// rules applies rules of the connector and, recursively, of its formats.
func (v *validator) rules(cfg *Config, prefix string, rules []Rule) []error {
	var errs []error
	for _, r := range rules {
		if err := r.apply(cfg, prefix); err != nil {
			errs = append(errs, err)
		}
	}
	for _, val := range cfg.values {
		if f, ok := val.(*Format); ok {
			errs = append(errs, v.rules(f.Options, f.Prefix, f.Factory.Rules)...)
		}
	}
	return errs
}

// options validates decls whose keys are written with prefix ("" for the
// connector, "value.json." for a format) and returns their config.
func (v *validator) options(prefix string, decls []Option, table string) *Config {
	cfg := newConfig()
	for _, o := range decls {
		s := o.decl()
		if s.prefix {
			v.supported = append(v.supported, SupportedKey{Key: prefix + s.key, Prefix: true})
			pass := map[string]string{}
			for k, val := range v.opts {
				if strings.HasPrefix(k, prefix+s.key) {
					v.consumed[k] = true
					pass[strings.TrimPrefix(k, prefix+s.key)] = val
				}
			}
			if len(pass) > 0 {
				cfg.values[s.key] = pass
			}
			continue
		}
		v.supported = append(v.supported, SupportedKey{Key: prefix + s.key})
		for _, d := range s.deprecated {
			v.supported = append(v.supported, SupportedKey{Key: prefix + d.Key, Deprecated: true})
		}
		for _, fb := range s.fallback {
			v.supported = append(v.supported, SupportedKey{Key: prefix + fb})
		}
		cfg.sensitive[s.key] = s.sensitive
		key, text, ok := v.lookup(prefix, s)
		if !ok {
			if s.required {
				v.missing = append(v.missing, prefix+s.key)
			}
			continue
		}
		val, err := s.parse(text, s)
		if err != nil {
			shown := text
			if s.sensitive || IsSensitiveKey(key) {
				shown = Mask
			}
			ie := &InvalidValueError{Key: key, Value: shown, Type: s.typ, Err: err}
			if s.typ == TypeEnum {
				ie.Allowed = s.enum
			}
			v.invalid = append(v.invalid, ie)
			continue
		}
		cfg.used[s.key] = strings.TrimPrefix(key, prefix)
		if s.typ == TypeEnum {
			text = val.(string)
		}
		cfg.text[s.key] = text
		if s.typ == TypeFormat {
			id := val.(string)
			ff, ok := v.reg.Format(id)
			if !ok {
				v.unknown = append(v.unknown, &UnknownFactoryError{Key: key, Identifier: id, Available: v.reg.Formats(),
					NotYet: notYetFormats[id]})
				continue
			}
			fp := formatPrefix(key, id)
			fc := v.options(fp, ff.Options, table)
			val = &Format{Key: key, Prefix: fp, Factory: ff, Options: fc, table: table}
		}
		cfg.values[s.key] = val
	}
	return cfg
}

// lookup finds the value of s among its own, deprecated and fallback keys,
// recording warnings and conflicts. It returns the key written (with
// prefix) and the value text, mapped to s's values for a deprecated key.
func (v *validator) lookup(prefix string, s *spec) (string, string, bool) {
	type hit struct{ key, text string }
	var hits []hit
	if val, ok := v.opts[prefix+s.key]; ok {
		v.consumed[prefix+s.key] = true
		hits = append(hits, hit{prefix + s.key, val})
	}
	for _, d := range s.deprecated {
		k := prefix + d.Key
		val, ok := v.opts[k]
		if !ok {
			continue
		}
		v.consumed[k] = true
		mapped := val
		for from, to := range d.Values {
			if strings.EqualFold(from, strings.TrimSpace(val)) {
				mapped = to
			}
		}
		v.warnings = append(v.warnings, Warning{Kind: WarnDeprecatedOption, Key: k, Replacement: prefix + s.key,
			Message: fmt.Sprintf("option '%s' is deprecated and will be removed; use '%s' instead", k, prefix+s.key)})
		hits = append(hits, hit{k, mapped})
	}
	for _, fb := range s.fallback {
		k := prefix + fb
		if val, ok := v.opts[k]; ok {
			v.consumed[k] = true
			hits = append(hits, hit{k, val})
		}
	}
	if len(hits) == 0 {
		return "", "", false
	}
	first := hits[0]
	for _, h := range hits[1:] {
		if !sameValue(s, first.text, h.text) {
			reason := fmt.Sprintf("'%s' is an alias of '%s' and they have different values", h.key, prefix+s.key)
			if !s.sensitive && !IsSensitiveKey(h.key) {
				reason += fmt.Sprintf(" ('%s' and '%s')", first.text, h.text)
			}
			reason += fmt.Sprintf("; set only '%s'", prefix+s.key)
			v.conflicts = append(v.conflicts, &ConflictError{Keys: []string{first.key, h.key}, Reason: reason})
			break
		}
	}
	return first.key, first.text, true
}

// sameValue compares two texts of an option by their parsed values.
func sameValue(s *spec, a, b string) bool {
	va, errA := s.parse(a, s)
	vb, errB := s.parse(b, s)
	if errA != nil || errB != nil {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	return formatValue(s.typ, va) == formatValue(s.typ, vb)
}
