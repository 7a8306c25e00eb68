package option

import "strings"

type ruleKind uint8

const (
	ruleRequiredWhen ruleKind = iota + 1
	ruleConflict
	ruleOneOf
	ruleCheck
)

// Rule relates options of one declaration set: conditional requirements, conflicts
// and custom checks, each with the reason shown to the user. Rules are data:
// the configuration reference lists them, and validation applies them after
// every option has parsed.
type Rule struct {
	kind   ruleKind
	target []Option
	when   Option
	values []string
	reason string
	check  func(*Config) error
}

// Options returns the options the rule refers to.
func (r Rule) Options() []Option {
	out := append([]Option(nil), r.target...)
	if r.when != nil {
		out = append(out, r.when)
	}
	return out
}

// RequiredWhen requires target when option when is set to one of values
// (case-insensitive); with no values, whenever when is set at all. Example:
// scan.startup.specific-offsets is required when scan.startup.mode is
// specific-offsets.
func RequiredWhen(target, when Option, values []string, reason string) Rule {
	return Rule{kind: ruleRequiredWhen, target: []Option{target}, when: when, values: values, reason: reason}
}

// Conflicts rejects setting a and b together.
func Conflicts(a, b Option, reason string) Rule {
	return Rule{kind: ruleConflict, target: []Option{a, b}, reason: reason}
}

// OneOf requires exactly one of opts to be set (topic or topic-pattern).
// reason follows both of its errors, "'a' or 'b' must be set: reason" when
// none is set and "options 'a' and 'b' conflict: reason" when several are,
// so it must read right after either (say what the options are for, not
// which case went wrong).
func OneOf(reason string, opts ...Option) Rule {
	return Rule{kind: ruleOneOf, target: opts, reason: reason}
}

// Check is a custom rule over the validated options of the given keys. fn
// returns nil when the options are acceptable; its error is wrapped in a
// *RuleError carrying reason.
func Check(reason string, fn func(*Config) error, opts ...Option) Rule {
	return Rule{kind: ruleCheck, target: opts, reason: reason, check: fn}
}

// String returns the rule in words, for the configuration reference.
func (r Rule) String() string {
	keys := make([]string, len(r.target))
	for i, o := range r.target {
		keys[i] = "`" + o.Key() + "`"
	}
	switch r.kind {
	case ruleRequiredWhen:
		cond := "is set"
		if len(r.values) > 0 {
			cond = "is `" + strings.Join(r.values, "` or `") + "`"
		}
		return keys[0] + " is required when `" + r.when.Key() + "` " + cond + ": " + r.reason
	case ruleConflict:
		return keys[0] + " and " + keys[1] + " cannot be set together: " + r.reason
	case ruleOneOf:
		return "exactly one of " + strings.Join(keys, ", ") + " must be set: " + r.reason
	}
	if len(keys) > 0 {
		return strings.Join(keys, ", ") + ": " + r.reason
	}
	return r.reason
}

// apply checks the rule against c (whose keys are unprefixed) and returns
// its error. prefix is prepended to keys in errors (json., value.json.).
func (r Rule) apply(c *Config, prefix string) error {
	used := func(o Option) string { return prefix + c.keyUsed(o.Key()) }
	switch r.kind {
	case ruleRequiredWhen:
		wv, ok := c.text[r.when.Key()]
		if !ok {
			return nil
		}
		if len(r.values) > 0 && !containsFold(r.values, wv) {
			return nil
		}
		if c.Has(r.target[0]) {
			return nil
		}
		return &RequirementError{Keys: []string{prefix + r.target[0].Key()}, When: used(r.when), Value: c.shown(r.when.Key(), wv), Reason: r.reason}
	case ruleConflict:
		if c.Has(r.target[0]) && c.Has(r.target[1]) {
			return &ConflictError{Keys: []string{used(r.target[0]), used(r.target[1])}, Reason: r.reason}
		}
	case ruleOneOf:
		var set []string
		for _, o := range r.target {
			if c.Has(o) {
				set = append(set, used(o))
			}
		}
		switch {
		case len(set) > 1:
			return &ConflictError{Keys: set, Reason: r.reason}
		case len(set) == 0:
			keys := make([]string, len(r.target))
			for i, o := range r.target {
				keys[i] = prefix + o.Key()
			}
			return &RequirementError{Keys: keys, Reason: r.reason}
		}
	case ruleCheck:
		if err := r.check(c); err != nil {
			keys := make([]string, len(r.target))
			for i, o := range r.target {
				keys[i] = prefix + o.Key()
			}
			return &RuleError{Keys: keys, Reason: r.reason, Err: err}
		}
	}
	return nil
}

func containsFold(list []string, v string) bool {
	for _, x := range list {
		if strings.EqualFold(x, strings.TrimSpace(v)) {
			return true
		}
	}
	return false
}
