package option

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/internal/duration"
	"github.com/streamsql/streamsql/internal/secret"
	"github.com/streamsql/streamsql/internal/suggest"
)

// ParseDuration parses a duration in Flink's syntax (TimeUtils.parseDuration):
// a non-negative integer, optional spaces and an optional unit — d, h, min
// (or m), s, ms, µs, ns and their long forms (day, hours, minute, seconds,
// millis, ...). Without a unit the number is milliseconds.
//
// The syntax is internal/duration's, which job settings share; the
// messages here are written to follow "option 'x' = 'value': ".
func ParseDuration(text string) (time.Duration, error) {
	d, err := duration.Parse(text)
	var de *duration.Error
	if !errors.As(err, &de) {
		return d, err
	}
	msg := "the duration is too large"
	switch de.Problem {
	case duration.NoNumber:
		msg = "a duration is a number and a unit, such as 10s, 1 min or 500 ms"
	case duration.NumberTooLarge:
		msg = "the number is too large"
	case duration.UnknownUnit:
		msg = fmt.Sprintf("unknown time unit %q (use d, h, min, s, ms, µs or ns)", de.Unit)
	}
	return 0, &durationError{msg: msg, err: de}
}

// durationError is ParseDuration's error: its message follows "option 'x'
// = 'value': "; it unwraps to internal/duration's *Error.
type durationError struct {
	msg string
	err error
}

func (e *durationError) Error() string { return e.msg }
func (e *durationError) Unwrap() error { return e.err }

// FormatDuration writes d in Flink's syntax with the largest exact unit,
// for example "10 s", "5 min", "500 ms".
func FormatDuration(d time.Duration) string { return duration.Format(d) }

var sizeUnits = map[string]int64{
	"b": 1, "bytes": 1,
	"k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mebibytes": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tebibytes": 1 << 40,
}

// ParseMemorySize parses a size in Flink's syntax (MemorySize.parse): a
// non-negative integer and an optional unit b, k/kb, m/mb, g/gb, t/tb (binary
// multiples, any case). Without a unit the number is bytes.
func ParseMemorySize(text string) (MemorySize, error) {
	s := strings.TrimSpace(text)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, errors.New("a memory size is a number and a unit, such as 64mb or 1 gb")
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, errors.New("the number is too large")
	}
	mult := int64(1)
	if unit := strings.ToLower(strings.TrimSpace(s[i:])); unit != "" {
		m, ok := sizeUnits[unit]
		if !ok {
			return 0, fmt.Errorf("unknown memory unit %q (use b, kb, mb, gb or tb)", unit)
		}
		mult = m
	}
	if n > math.MaxInt64/mult {
		return 0, errors.New("the size is too large")
	}
	return MemorySize(n * mult), nil
}

// ParseList splits a ';'-separated list, trimming items and dropping empty
// ones.
func ParseList(text string) []string {
	var out []string
	for _, p := range strings.Split(text, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseMap parses "k1:v1,k2:v2". Keys and values are trimmed; a value may
// contain ':' after the first one.
func ParseMap(text string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(text) == "" {
		return out, nil
	}
	for _, p := range strings.Split(text, ",") {
		k, v, ok := strings.Cut(p, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("entry %q is not key:value", strings.TrimSpace(p))
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// IsSensitiveKey reports whether an option key looks like it holds a
// secret (password, secret, token, jaas.config, ...: Flink's
// GlobalConfiguration.SENSITIVE_KEYS plus Kafka's inline private keys),
// whether or not it is declared sensitive. Such values are always masked,
// by ddl's parse errors too.
func IsSensitiveKey(key string) bool { return secret.IsSensitiveKey(key) }

// Mask is what a sensitive value is shown as.
const Mask = secret.Mask

// nearest returns the candidate closest to key, if it is close enough to be
// a plausible typo.
func nearest(key string, candidates []string) string {
	return suggest.Nearest(key, candidates, max(2, len(key)/3))
}
