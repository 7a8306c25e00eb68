package option

import (
	"fmt"
	"time"
)

// Options that many connectors take, declared once (as Flink's
// FactoryUtil.SINK_PARALLELISM is). A connector lists them among its
// options, refining the description if it wants; the planner reads them
// from any validated table with Get, whatever its connector.
var (
	// SinkParallelism is sink.parallelism: the number of sink tasks;
	// unset, the upstream operator's parallelism.
	SinkParallelism = Int("sink.parallelism").
			Description("The parallelism of the sink. By default, the parallelism of the upstream operator.")
	// ScanParallelism is scan.parallelism: the number of source tasks;
	// unset, the job's default.
	ScanParallelism = Int("scan.parallelism").
			Description("The parallelism of the source. By default, the job's.")

	// The lookup options of a table a lookup join reads (Flink's
	// LookupOptions), which connectors with lookup sources declare and
	// the lookup join's operator follows.

	// LookupCache is lookup.cache: NONE (every row looked up in the
	// table) or PARTIAL (an LRU cache of looked-up keys per task).
	LookupCache = Enum("lookup.cache", "NONE", "PARTIAL", "FULL").Default("NONE").
			Description("The caching of a lookup join's lookups in this table: `NONE` looks every key up; `PARTIAL` " +
			"keeps the rows of looked-up keys in a cache of each task, bounded by `lookup.partial-cache.max-rows` and " +
			"the expiry options (at least one must be set). `FULL` (the whole table, reloaded) is not supported yet.")
	// LookupMaxRows is lookup.partial-cache.max-rows.
	LookupMaxRows = Long("lookup.partial-cache.max-rows").
			Description("The most rows a task's PARTIAL lookup cache holds; the least recently used keys go first.")
	// LookupExpireAfterWrite is lookup.partial-cache.expire-after-write.
	LookupExpireAfterWrite = Duration("lookup.partial-cache.expire-after-write").
				Description("How long a PARTIAL lookup cache keeps a key's rows after looking them up.")
	// LookupExpireAfterAccess is
	// lookup.partial-cache.expire-after-access.
	LookupExpireAfterAccess = Duration("lookup.partial-cache.expire-after-access").
				Description("How long a PARTIAL lookup cache keeps a key's rows after their last use.")
	// LookupCacheMissingKey is lookup.partial-cache.cache-missing-key.
	LookupCacheMissingKey = Bool("lookup.partial-cache.cache-missing-key").Default(true).
				Description("Whether a PARTIAL lookup cache also keeps that a key has no rows.")
	// LookupMaxRetries is lookup.max-retries.
	LookupMaxRetries = Int("lookup.max-retries").Default(3).
				Description("How many times a failed lookup is retried (1 s, 2 s, ... apart) before the job fails.")
)

// LookupOptions returns the lookup options, for a connector's list.
func LookupOptions() []Option {
	return []Option{LookupCache, LookupMaxRows, LookupExpireAfterWrite, LookupExpireAfterAccess, LookupCacheMissingKey, LookupMaxRetries}
}

// LookupCacheConfig is a table's PARTIAL lookup cache.
type LookupCacheConfig struct {
	// MaxRows bounds the rows kept (0: no bound); ExpireAfterWrite and
	// ExpireAfterAccess expire a key's rows (0: never).
	MaxRows                             int64
	ExpireAfterWrite, ExpireAfterAccess time.Duration
	// CacheMissingKey keeps that a key has no rows.
	CacheMissingKey bool
}

// LookupCacheOf reads a validated table's lookup cache: nil for NONE.
func LookupCacheOf(c *Config) (*LookupCacheConfig, error) {
	switch LookupCache.Get(c) {
	case "NONE":
		return nil, nil
	case "FULL":
		return nil, fmt.Errorf("'%s' = 'FULL' is not supported yet: use 'PARTIAL'", LookupCache.Key())
	}
	lc := &LookupCacheConfig{MaxRows: LookupMaxRows.Get(c), ExpireAfterWrite: LookupExpireAfterWrite.Get(c),
		ExpireAfterAccess: LookupExpireAfterAccess.Get(c), CacheMissingKey: LookupCacheMissingKey.Get(c)}
	if lc.MaxRows <= 0 && lc.ExpireAfterWrite <= 0 && lc.ExpireAfterAccess <= 0 {
		return nil, fmt.Errorf("'%s' = 'PARTIAL' needs '%s', '%s' or '%s'", LookupCache.Key(), LookupMaxRows.Key(),
			LookupExpireAfterWrite.Key(), LookupExpireAfterAccess.Key())
	}
	return lc, nil
}

// AtLeastOne is the rule that a parallelism option, when set, is at least
// 1; its error wraps class when class is not nil (a connector's error
// class, such as ErrConfig).
func AtLeastOne(o Opt[int], class error) Rule {
	return Check(o.Key()+" must be at least 1", func(c *Config) error {
		p, ok := o.Lookup(c)
		switch {
		case !ok || p >= 1:
			return nil
		case class != nil:
			return fmt.Errorf("%w: got %d", class, p)
		}
		return fmt.Errorf("got %d", p)
	}, o)
}
