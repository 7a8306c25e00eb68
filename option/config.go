package option

import (
	"fmt"
	"maps"
)

// Config holds validated options, parsed into their types. It is built
// once by a Validator and read with each Opt's Get; it is immutable
// afterwards.
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

// Text returns the value of o as written (for an enum, in the declared
// spelling; for a deprecated key, mapped to o's values) and whether o was
// set.
func (c *Config) Text(o Option) (string, bool) {
	if c == nil {
		return "", false
	}
	t, ok := c.text[o.Key()]
	return t, ok
}

func (c *Config) keyUsed(key string) string {
	if c == nil {
		return key
	}
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

// With returns a copy of c in which o is set to the value text, parsed
// as o's type, as though the user had written it under o's own key. It is
// for values a connector derives after validation (a transactional-id
// prefix): one option is parsed, the others are shared with c unchanged.
// Prefix and format options cannot be set this way.
func (c *Config) With(o Option, text string) (*Config, error) {
	s := o.decl()
	if s.prefix || s.typ == TypeFormat {
		return nil, fmt.Errorf("option '%s': a %s option cannot be derived", s.key, s.typ)
	}
	val, err := s.parse(text, s)
	if err != nil {
		shown := text
		if s.sensitive || IsSensitiveKey(s.key) {
			shown = Mask
		}
		return nil, &InvalidValueError{Key: s.key, Value: shown, Type: s.typ, Err: err}
	}
	if s.typ == TypeEnum {
		text = val.(string)
	}
	out := newConfig()
	if c != nil {
		maps.Copy(out.values, c.values)
		maps.Copy(out.text, c.text)
		maps.Copy(out.used, c.used)
		maps.Copy(out.sensitive, c.sensitive)
	}
	out.sensitive[s.key] = s.sensitive
	out.values[s.key] = val
	out.text[s.key] = text
	out.used[s.key] = s.key
	return out, nil
}
