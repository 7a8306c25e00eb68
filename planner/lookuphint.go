package planner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/internal/duration"
	"github.com/streamsql/streamsql/ops/lookup"
)

// lookupHint is a LOOKUP query hint, Flink's per-join settings of a lookup
// join:
//
//	SELECT /*+ LOOKUP('table' = 'c', 'async' = 'true', 'output-mode' = 'ordered',
//	    'capacity' = '100', 'timeout' = '180s', 'retry-predicate' = 'lookup_miss',
//	    'retry-strategy' = 'fixed_delay', 'fixed-delay' = '10s', 'max-attempts' = '3') */ ...
//
// 'table' names the looked-up table (its name or alias). 'async' = 'false'
// looks one key up at a time; otherwise 'capacity' bounds the lookups in
// flight (table.exec.async-lookup.buffer-capacity's default) and 'timeout'
// each one. The output keeps the input's order in either 'output-mode'
// (which 'allow_unordered' permits). The four retry options, all or none,
// look a key that finds no row up again up to 'max-attempts' times,
// 'fixed-delay' apart, as Flink's fixed-delay retry on a lookup miss does.
type lookupHint struct {
	pos   ddl.Pos
	table string
	used  bool

	async       string        // "", "true" or "false"
	capacity    int           // 0: not set
	timeout     time.Duration // 0: not set
	missRetries int
	missDelay   time.Duration
}

// lookupHintKeys are the LOOKUP hint's options.
var lookupHintKeys = []string{"table", "async", "output-mode", "capacity", "timeout", "retry-predicate", "retry-strategy", "fixed-delay", "max-attempts"}

// readLookupHint reads a LOOKUP hint.
func (p *planner) readLookupHint(h *ddl.Hint) (*lookupHint, error) {
	lh := &lookupHint{pos: h.Pos}
	bad := func(o ddl.Option, want string) error {
		return p.f.errorAt(o.ValuePos, ErrType, nil, fmt.Sprintf("LOOKUP('%s' = '%s'): %s", o.Key, o.Value, want))
	}
	opts := map[string]ddl.Option{}
	for _, o := range h.Options {
		key := strings.ToLower(o.Key)
		if !slices.Contains(lookupHintKeys, key) {
			return nil, p.f.errorAt(o.KeyPos, ErrType, nil, fmt.Sprintf("the LOOKUP hint has no option '%s'%s; its options: %s",
				o.Key, didYouMean(key, lookupHintKeys), strings.Join(lookupHintKeys, ", ")))
		}
		opts[key] = o
	}
	o, ok := opts["table"]
	if !ok {
		return nil, p.f.errorAt(h.Pos, ErrType, nil, "the LOOKUP hint needs 'table' = 'name': the table (or alias) its lookup join reads")
	}
	lh.table = o.Value
	if o, ok := opts["async"]; ok {
		if lh.async = strings.ToLower(o.Value); lh.async != "true" && lh.async != "false" {
			return nil, bad(o, "'true' or 'false'")
		}
	}
	if o, ok := opts["output-mode"]; ok {
		if m := strings.ToLower(o.Value); m != "ordered" && m != "allow_unordered" {
			return nil, bad(o, "'ordered' or 'allow_unordered'")
		}
	}
	if o, ok := opts["capacity"]; ok {
		n, err := strconv.Atoi(o.Value)
		if err != nil || n < 1 {
			return nil, bad(o, "a number of lookups in flight, at least 1")
		}
		lh.capacity = n
	}
	if o, ok := opts["timeout"]; ok {
		d, err := duration.Parse(o.Value)
		if err != nil || d <= 0 {
			return nil, bad(o, "a duration such as '180s'")
		}
		lh.timeout = d
	}
	retry := []string{"retry-predicate", "retry-strategy", "fixed-delay", "max-attempts"}
	n := 0
	for _, k := range retry {
		if _, ok := opts[k]; ok {
			n++
		}
	}
	switch n {
	case 0:
	case len(retry):
		if o := opts["retry-predicate"]; !strings.EqualFold(o.Value, "lookup_miss") {
			return nil, bad(o, "'lookup_miss' (a lookup that finds no row is retried)")
		}
		if o := opts["retry-strategy"]; !strings.EqualFold(o.Value, "fixed_delay") {
			return nil, bad(o, "'fixed_delay'")
		}
		o := opts["fixed-delay"]
		d, err := duration.Parse(o.Value)
		if err != nil || d <= 0 {
			return nil, bad(o, "a duration such as '10s'")
		}
		lh.missDelay = d
		o = opts["max-attempts"]
		if lh.missRetries, err = strconv.Atoi(o.Value); err != nil || lh.missRetries < 1 {
			return nil, bad(o, "a number of retries, at least 1")
		}
	default:
		return nil, p.f.errorAt(h.Pos, ErrType, nil, fmt.Sprintf("the LOOKUP hint's retry takes all of %s, or none", strings.Join(retry, ", ")))
	}
	return lh, nil
}

// apply sets what the hint says in a lookup join's spec.
func (h *lookupHint) apply(s *lookup.Spec) {
	if h.capacity > 0 {
		s.Concurrency = h.capacity
	}
	if h.async == "false" {
		s.Concurrency = 1
	}
	if h.timeout > 0 {
		s.Timeout = h.timeout
	}
	s.MissRetries, s.MissDelay = h.missRetries, h.missDelay
}
