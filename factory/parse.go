package factory

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/internal/secret"
	"github.com/streamsql/streamsql/internal/suggest"
)

var durationUnits = map[string]time.Duration{}

func init() {
	add := func(d time.Duration, names ...string) {
		for _, n := range names {
			durationUnits[n] = d
		}
	}
	add(24*time.Hour, "d", "day", "days")
	add(time.Hour, "h", "hour", "hours")
	add(time.Minute, "min", "m", "minute", "minutes", "mins")
	add(time.Second, "s", "sec", "secs", "second", "seconds")
	add(time.Millisecond, "ms", "milli", "millis", "millisecond", "milliseconds")
	add(time.Microsecond, "µs", "us", "micro", "micros", "microsecond", "microseconds")
	add(time.Nanosecond, "ns", "nano", "nanos", "nanosecond", "nanoseconds")
}

// ParseDuration parses a duration in Flink's syntax (TimeUtils.parseDuration):
// a non-negative integer, optional spaces and an optional unit — d, h, min
// (or m), s, ms, µs, ns and their long forms (day, hours, minute, seconds,
// millis, ...). Without a unit the number is milliseconds.
func ParseDuration(text string) (time.Duration, error) {
	s := strings.TrimSpace(text)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, errors.New("a duration is a number and a unit, such as 10s, 1 min or 500 ms")
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, errors.New("the number is too large")
	}
	unit := strings.ToLower(strings.TrimSpace(s[i:]))
	mult := time.Millisecond
	if unit != "" {
		m, ok := durationUnits[unit]
		if !ok {
			return 0, fmt.Errorf("unknown time unit %q (use d, h, min, s, ms, µs or ns)", unit)
		}
		mult = m
	}
	if n > math.MaxInt64/int64(mult) {
		return 0, errors.New("the duration is too large")
	}
	return time.Duration(n) * mult, nil
}

// FormatDuration writes d in Flink's syntax with the largest exact unit,
// for example "10 s", "5 min", "500 ms".
func FormatDuration(d time.Duration) string {
	units := []struct {
		name string
		d    time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"min", time.Minute}, {"s", time.Second},
		{"ms", time.Millisecond}, {"µs", time.Microsecond}}
	if d == 0 {
		return "0 ms"
	}
	for _, u := range units {
		if d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + " " + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10) + " ns"
}

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
