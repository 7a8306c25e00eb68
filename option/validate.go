package option

import (
	"fmt"
	"sort"
	"strings"
)

// Deprecation records an option written with a deprecated key, for the
// caller to warn about.
type Deprecation struct {
	// Key is the deprecated key as written; Replacement the key to use.
	Key, Replacement string
}

// Message is the warning shown to the user.
func (d Deprecation) Message() string {
	return fmt.Sprintf("option '%s' is deprecated and will be removed; use '%s' instead", d.Key, d.Replacement)
}

// Validator checks options written as one flat map of keys to values
// against declarations, once: a factory's WITH options (package factory
// drives it, formats included) or a job's settings (package runtime).
// Parse may be called several times with different prefixes; the findings
// accumulate in the exported fields, for the caller to report in the order
// that explains the problem best.
type Validator struct {
	// Options are the options as written, key → value.
	Options map[string]string
	// Resolve turns the value of a Named option (the identifier of a
	// format, say) into the value Get returns. It receives the key as
	// written and the trimmed value; its error is collected in Unresolved.
	// Nil leaves the identifier as a string.
	Resolve func(v *Validator, key, value string) (any, error)
	// FirstKeyWins makes an option's own key win over its deprecated and
	// fallback keys when several are set (job settings), instead of a
	// ConflictError when their values differ (table options).
	FirstKeyWins bool

	// Supported lists every key declared to Parse (deprecated ones
	// marked), in declaration order.
	Supported []SupportedKey
	// Missing lists required options that are absent (with prefix).
	Missing []string
	// Invalid holds an *InvalidValueError per value that did not parse.
	Invalid []error
	// Conflicts holds a *ConflictError per option whose keys disagree.
	Conflicts []error
	// Unresolved holds the errors of Resolve.
	Unresolved []error
	// Deprecations lists the deprecated keys used.
	Deprecations []Deprecation

	consumed map[string]bool
}

// Consume marks key as accounted for (a key the caller handles itself).
func (v *Validator) Consume(key string) {
	if v.consumed == nil {
		v.consumed = map[string]bool{}
	}
	v.consumed[key] = true
}

// Unconsumed returns, sorted, the keys of Options that no declaration
// passed to Parse (nor Consume) accounted for.
func (v *Validator) Unconsumed() []string {
	var out []string
	for k := range v.Options {
		if !v.consumed[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Parse validates decls, whose keys are written with prefix ("" for a
// connector's own options, "value.json." for a format's), and returns
// their config. Problems are collected in v's fields.
func (v *Validator) Parse(prefix string, decls []Option) *Config {
	cfg := newConfig()
	for _, o := range decls {
		s := o.decl()
		if s.prefix {
			v.Supported = append(v.Supported, SupportedKey{Key: prefix + s.key, Prefix: true})
			pass := map[string]string{}
			for k, val := range v.Options {
				if strings.HasPrefix(k, prefix+s.key) {
					v.Consume(k)
					pass[strings.TrimPrefix(k, prefix+s.key)] = val
				}
			}
			if len(pass) > 0 {
				cfg.values[s.key] = pass
			}
			continue
		}
		v.Supported = append(v.Supported, SupportedKey{Key: prefix + s.key})
		for _, d := range s.deprecated {
			v.Supported = append(v.Supported, SupportedKey{Key: prefix + d.Key, Deprecated: true})
		}
		for _, fb := range s.fallback {
			v.Supported = append(v.Supported, SupportedKey{Key: prefix + fb})
		}
		cfg.sensitive[s.key] = s.sensitive
		key, text, ok := v.lookup(prefix, s)
		if !ok {
			if s.required {
				v.Missing = append(v.Missing, prefix+s.key)
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
			v.Invalid = append(v.Invalid, ie)
			continue
		}
		cfg.used[s.key] = strings.TrimPrefix(key, prefix)
		if s.typ == TypeEnum {
			text = val.(string)
		}
		cfg.text[s.key] = text
		if s.typ == TypeFormat && v.Resolve != nil {
			r, err := v.Resolve(v, key, val.(string))
			if err != nil {
				v.Unresolved = append(v.Unresolved, err)
				continue
			}
			val = r
		}
		cfg.values[s.key] = val
	}
	return cfg
}

// lookup finds the value of s among its own, deprecated and fallback keys,
// recording deprecations and conflicts. It returns the key written (with
// prefix) and the value text, mapped to s's values for a deprecated key.
func (v *Validator) lookup(prefix string, s *spec) (string, string, bool) {
	type hit struct{ key, text string }
	var hits []hit
	if val, ok := v.Options[prefix+s.key]; ok {
		v.Consume(prefix + s.key)
		hits = append(hits, hit{prefix + s.key, val})
	}
	for _, d := range s.deprecated {
		k := prefix + d.Key
		val, ok := v.Options[k]
		if !ok {
			continue
		}
		v.Consume(k)
		mapped := val
		for from, to := range d.Values {
			if strings.EqualFold(from, strings.TrimSpace(val)) {
				mapped = to
			}
		}
		v.Deprecations = append(v.Deprecations, Deprecation{Key: k, Replacement: prefix + s.key})
		hits = append(hits, hit{k, mapped})
	}
	for _, fb := range s.fallback {
		k := prefix + fb
		if val, ok := v.Options[k]; ok {
			v.Consume(k)
			hits = append(hits, hit{k, val})
		}
	}
	if len(hits) == 0 {
		return "", "", false
	}
	first := hits[0]
	if v.FirstKeyWins {
		return first.key, first.text, true
	}
	for _, h := range hits[1:] {
		if !sameValue(s, first.text, h.text) {
			reason := fmt.Sprintf("'%s' is an alias of '%s' and they have different values", h.key, prefix+s.key)
			if !s.sensitive && !IsSensitiveKey(h.key) {
				reason += fmt.Sprintf(" ('%s' and '%s')", first.text, h.text)
			}
			reason += fmt.Sprintf("; set only '%s'", prefix+s.key)
			v.Conflicts = append(v.Conflicts, &ConflictError{Keys: []string{first.key, h.key}, Reason: reason})
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

// ApplyRules checks rules against cfg, whose keys Parse read with prefix,
// and returns their errors.
func ApplyRules(cfg *Config, prefix string, rules []Rule) []error {
	var errs []error
	for _, r := range rules {
		if err := r.apply(cfg, prefix); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Nearest returns the candidate closest to key, if it is close enough to
// be a plausible typo, else "".
func Nearest(key string, candidates []string) string { return nearest(key, candidates) }
