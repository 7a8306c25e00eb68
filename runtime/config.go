package runtime

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/runtime/checkpoint"

	"github.com/streamsql/streamsql/internal/duration"
	"github.com/streamsql/streamsql/internal/suggest"
)

// Mode is the checkpointing mode (execution.checkpointing.mode).
type Mode uint8

// The checkpointing modes.
const (
	// ExactlyOnce aligns barriers at tasks with several inputs.
	ExactlyOnce Mode = iota
	// AtLeastOnce does not align: rows after a barrier from a fast input
	// may be included in the checkpoint and replayed after a failure.
	AtLeastOnce
)

// String returns Flink's name of the mode.
func (m Mode) String() string {
	if m == AtLeastOnce {
		return "AT_LEAST_ONCE"
	}
	return "EXACTLY_ONCE"
}

// Retention is execution.checkpointing.externalized-checkpoint-retention.
type Retention uint8

// The retention policies.
const (
	// NoExternalizedCheckpoints is Flink's default. Checkpoints are kept
	// when the job stops gracefully (so that the next run resumes; a
	// deliberate deviation from Flink, which has savepoints for that) and
	// deleted when a bounded job finishes.
	NoExternalizedCheckpoints Retention = iota
	// DeleteOnCancellation deletes the checkpoints when the job stops
	// gracefully or finishes.
	DeleteOnCancellation
	// RetainOnCancellation keeps the checkpoints whatever the job's end.
	RetainOnCancellation
)

var retentionNames = []string{"NO_EXTERNALIZED_CHECKPOINTS", "DELETE_ON_CANCELLATION", "RETAIN_ON_CANCELLATION"}

// String returns Flink's name of the policy.
func (r Retention) String() string { return retentionNames[r] }

// RestartStrategy is restart-strategy.type.
type RestartStrategy uint8

// The restart strategies.
const (
	// RestartDefault is exponential-delay when checkpointing is on, none
	// otherwise (Flink 1.19+).
	RestartDefault RestartStrategy = iota
	// RestartNone fails the job at the first failure.
	RestartNone
	// RestartFixedDelay restarts a fixed number of times with a fixed delay.
	RestartFixedDelay
	// RestartFailureRate restarts unless too many failures happen within
	// an interval.
	RestartFailureRate
	// RestartExponentialDelay restarts with growing delays.
	RestartExponentialDelay
)

var strategyNames = []string{"default", "none", "fixed-delay", "failure-rate", "exponential-delay"}

// String returns the strategy's name as restart-strategy.type spells it.
func (s RestartStrategy) String() string { return strategyNames[s] }

// CheckpointConfig holds the execution.checkpointing.* options.
type CheckpointConfig struct {
	// Interval between checkpoint triggers; 0 disables periodic
	// checkpoints (a final checkpoint is still taken when a job stops or
	// finishes, so that two-phase sinks commit).
	Interval time.Duration
	// Mode is EXACTLY_ONCE (default) or AT_LEAST_ONCE.
	Mode Mode
	// Timeout after which an in-flight checkpoint is declared failed.
	// Default 10 min.
	Timeout time.Duration
	// MinPause is the least time between the end of one checkpoint and
	// the trigger of the next. Default 0.
	MinPause time.Duration
	// MaxConcurrent is the number of checkpoints in flight at once.
	// Default 1.
	MaxConcurrent int
	// TolerableFailed is the number of consecutive failed checkpoints
	// tolerated before the job fails over. Default 0.
	TolerableFailed int
	// NumRetained is the number of completed checkpoints kept. Default 1.
	NumRetained int
	// Retention is the externalized-checkpoint-retention policy.
	Retention Retention
	// Dir is execution.checkpointing.dir (deprecated: state.checkpoints.dir)
	// as given: a plain path or a file:// URI. Empty: checkpoints are kept
	// in memory and do not survive the process.
	Dir string
	// MaxUncommitted (streamsql's
	// execution.checkpointing.max-uncommitted-checkpoints, default 3) is
	// the number of checkpoints whose commits may be pending at once; when
	// it is reached no new checkpoint is triggered until commits catch up.
	MaxUncommitted int
}

// RestartConfig holds the restart-strategy.* options.
type RestartConfig struct {
	// Strategy is restart-strategy.type.
	Strategy RestartStrategy

	// FixedDelayAttempts is restart-strategy.fixed-delay.attempts (1).
	FixedDelayAttempts int
	// FixedDelay is restart-strategy.fixed-delay.delay (1 s).
	FixedDelay time.Duration

	// FailureRateMaxFailures is
	// restart-strategy.failure-rate.max-failures-per-interval (1). As in
	// Flink, the job fails when this many failures, the latest included,
	// fall within the interval.
	FailureRateMaxFailures int
	// FailureRateInterval is
	// restart-strategy.failure-rate.failure-rate-interval (1 min).
	FailureRateInterval time.Duration
	// FailureRateDelay is restart-strategy.failure-rate.delay (1 s).
	FailureRateDelay time.Duration

	// InitialBackoff is restart-strategy.exponential-delay.initial-backoff
	// (1 s).
	InitialBackoff time.Duration
	// MaxBackoff is restart-strategy.exponential-delay.max-backoff (1 min).
	MaxBackoff time.Duration
	// BackoffMultiplier is
	// restart-strategy.exponential-delay.backoff-multiplier (1.5).
	BackoffMultiplier float64
	// ResetBackoffThreshold is
	// restart-strategy.exponential-delay.reset-backoff-threshold (1 h): a
	// run that lasted this long resets the backoff.
	ResetBackoffThreshold time.Duration
	// JitterFactor is restart-strategy.exponential-delay.jitter-factor (0.1).
	JitterFactor float64
	// AttemptsBeforeReset is
	// restart-strategy.exponential-delay.attempts-before-reset-backoff
	// (unlimited: math.MaxInt32).
	AttemptsBeforeReset int
}

// Config is a job's runtime configuration.
type Config struct {
	Checkpoint CheckpointConfig
	Restart    RestartConfig
	// StopTimeout bounds a graceful stop: the final checkpoint and its
	// commits. Past it the job is cancelled and the pending commits are
	// left to recovery. Default 1 min. (Not a Flink option.)
	StopTimeout time.Duration
	// ChannelCapacity is the number of batches a channel between two
	// tasks holds; it bounds memory. Default 8. (Not a Flink option.)
	ChannelCapacity int
	// Ignored lists the Flink options ParseConfig accepted without effect
	// (see IgnoredKeys), for the caller to warn about.
	Ignored []string
}

// IgnoredKeys returns the Flink checkpointing options that job files
// written for Flink may set and that have no effect here (IgnoredSettings
// says why for each), deprecated names included. ParseConfig accepts them
// and lists them in Config.Ignored.
func IgnoredKeys() []string { return slices.Clone(ignoredKeys) }

// ignored declares the accepted Flink options that have no effect.
var ignored = []IgnoredSetting{
	{Key: "execution.checkpointing.storage", Deprecated: []string{"state.checkpoint-storage"},
		Reason: "Checkpoints are always files in execution.checkpointing.dir, or in memory without it."},
	{Key: "execution.checkpointing.savepoint-dir", Deprecated: []string{"state.savepoints.dir"},
		Reason: "streamsql has no savepoints: a gracefully stopped job resumes from its retained checkpoint."},
	{Key: "execution.checkpointing.incremental", Deprecated: []string{"state.backend.incremental"},
		Reason: "A checkpoint holds only source positions and pending commits, so it is always written whole."},
	{Key: "execution.checkpointing.unaligned.enabled", Deprecated: []string{"execution.checkpointing.unaligned"},
		Reason: "Checkpoints are always aligned under EXACTLY_ONCE, which is correct, only slower under backpressure."},
	{Key: "execution.checkpointing.aligned-checkpoint-timeout",
		Reason: "It switches to unaligned checkpoints, which streamsql does not have."},
	{Key: "execution.checkpointing.interval-during-backlog",
		Reason: "streamsql does not detect backlog: execution.checkpointing.interval applies throughout."},
	{Key: "execution.checkpointing.checkpoints-after-tasks-finish",
		Reason: "Finished sources always keep taking part in checkpoints (Flink's default, true), so the others' checkpoints go on."},
}

var ignoredKeys = func() []string {
	var ks []string
	for _, s := range ignored {
		ks = append(ks, s.Key)
		ks = append(ks, s.Deprecated...)
	}
	return ks
}()

// DefaultConfig returns Flink's defaults: checkpointing off.
func DefaultConfig() Config {
	return Config{
		Checkpoint: CheckpointConfig{
			Timeout:        10 * time.Minute,
			MaxConcurrent:  1,
			NumRetained:    1,
			MaxUncommitted: 3,
		},
		Restart: RestartConfig{
			FixedDelayAttempts:     1,
			FixedDelay:             time.Second,
			FailureRateMaxFailures: 1,
			FailureRateInterval:    time.Minute,
			FailureRateDelay:       time.Second,
			InitialBackoff:         time.Second,
			MaxBackoff:             time.Minute,
			BackoffMultiplier:      1.5,
			ResetBackoffThreshold:  time.Hour,
			JitterFactor:           0.1,
			AttemptsBeforeReset:    math.MaxInt32,
		},
		StopTimeout:     time.Minute,
		ChannelCapacity: 8,
	}
}

// EffectiveStrategy resolves RestartDefault.
func (c Config) EffectiveStrategy() RestartStrategy {
	if c.Restart.Strategy != RestartDefault {
		return c.Restart.Strategy
	}
	if c.Checkpoint.Interval > 0 {
		return RestartExponentialDelay
	}
	return RestartNone
}

// ConfigError is returned for an option with a bad value or an unknown
// option in a namespace this package owns.
type ConfigError struct {
	// Key is the option; Value its value as given.
	Key, Value string
	// Reason says what is wrong and what to do.
	Reason string
}

func (e *ConfigError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("option '%s': %s", e.Key, e.Reason)
	}
	return fmt.Sprintf("option '%s' = '%s': %s", e.Key, e.Value, e.Reason)
}

type optKind uint8

const (
	kDuration optKind = iota
	kInt
	kFloat
	kEnum
	kString
)

// option declares one setting ParseConfig reads. Its default is not
// declared here: Settings renders get(DefaultConfig()).
type option struct {
	key        string
	deprecated []string
	kind       optKind
	enum       []string // accepted values (case-insensitive) for kEnum
	// field writes and reads the Config field of the setting: for a plain
	// field one of durationField and its siblings, for an enum its own.
	field accessor
	// none: the zero value of the field means "not set" and renders as
	// (none), as on Flink's configuration page.
	none bool
	// desc is the documentation of the setting: what it does here and
	// where streamsql differs from Flink.
	desc string
}

// accessor sets and gets one field of a Config. set receives the parsed
// value in the argument of the option's kind (an enum: the index of the
// value in enum); get returns the field: a time.Duration, int, float64,
// string, or (kEnum) a fmt.Stringer that renders one of enum.
type accessor struct {
	set func(c *Config, d time.Duration, i int, f float64, s string)
	get func(c *Config) any
}

// durationField, intField, floatField and stringField are the accessors
// of a Config field of their type, given by a function returning its
// address.
func durationField(p func(*Config) *time.Duration) accessor {
	return accessor{func(c *Config, d time.Duration, _ int, _ float64, _ string) { *p(c) = d }, func(c *Config) any { return *p(c) }}
}

func intField(p func(*Config) *int) accessor {
	return accessor{func(c *Config, _ time.Duration, i int, _ float64, _ string) { *p(c) = i }, func(c *Config) any { return *p(c) }}
}

func floatField(p func(*Config) *float64) accessor {
	return accessor{func(c *Config, _ time.Duration, _ int, f float64, _ string) { *p(c) = f }, func(c *Config) any { return *p(c) }}
}

func stringField(p func(*Config) *string) accessor {
	return accessor{func(c *Config, _ time.Duration, _ int, _ float64, s string) { *p(c) = s }, func(c *Config) any { return *p(c) }}
}

var options = []option{
	{key: "execution.checkpointing.interval", kind: kDuration, none: true,
		field: durationField(func(c *Config) *time.Duration { return &c.Checkpoint.Interval }),
		desc: "Interval between periodic checkpoints; at least 10 ms. Unset or 0: no periodic checkpoints; " +
			"unlike Flink, one final checkpoint is still taken when the job stops or finishes, so that two-phase " +
			"(exactly-once) sinks commit then and only then. Setting it also makes exponential-delay the default " +
			"restart strategy."},
	{key: "execution.checkpointing.mode", kind: kEnum, enum: []string{"EXACTLY_ONCE", "AT_LEAST_ONCE"},
		field: accessor{func(c *Config, _ time.Duration, i int, _ float64, _ string) { c.Checkpoint.Mode = Mode(i) },
			func(c *Config) any { return c.Checkpoint.Mode }},
		desc: "EXACTLY_ONCE aligns barriers at sink tasks with several inputs, so that a checkpoint holds exactly " +
			"the rows before it; AT_LEAST_ONCE does not align (less blocking when inputs are skewed), and rows " +
			"after a barrier may be written again after a failure. The mode governs the job's own checkpoints " +
			"only: a Kafka sink's output guarantee is its 'sink.delivery-guarantee'."},
	{key: "execution.checkpointing.timeout", kind: kDuration,
		field: durationField(func(c *Config) *time.Duration { return &c.Checkpoint.Timeout }),
		desc: "A checkpoint not complete within this time fails (at least 10 ms). The job keeps running as " +
			"execution.checkpointing.tolerable-failed-checkpoints allows, and the failed checkpoint's " +
			"pre-committed work is committed with the next one. A Kafka exactly-once sink's transaction " +
			"timeout should exceed the interval plus the min pause plus this timeout (else a warning)."},
	{key: "execution.checkpointing.min-pause", kind: kDuration,
		field: durationField(func(c *Config) *time.Duration { return &c.Checkpoint.MinPause }),
		desc:  "The least time between the end (completion or failure) of one checkpoint and the trigger of the next."},
	{key: "execution.checkpointing.max-concurrent-checkpoints", kind: kInt,
		field: intField(func(c *Config) *int { return &c.Checkpoint.MaxConcurrent }),
		desc:  "The number of checkpoints that may be in flight at once; at least 1."},
	{key: "execution.checkpointing.tolerable-failed-checkpoints", kind: kInt,
		field: intField(func(c *Config) *int { return &c.Checkpoint.TolerableFailed }),
		desc: "The number of consecutive failed checkpoints (timed out, or not written to storage) tolerated; " +
			"one more fails the run, and the restart strategy decides what follows. A failure of the final " +
			"checkpoint taken at a stop is never tolerated."},
	{key: "execution.checkpointing.num-retained", deprecated: []string{"state.checkpoints.num-retained"}, kind: kInt,
		field: intField(func(c *Config) *int { return &c.Checkpoint.NumRetained }),
		desc:  "The number of completed checkpoints kept; older ones are deleted. At least 1."},
	{key: "execution.checkpointing.externalized-checkpoint-retention", kind: kEnum, enum: retentionNames,
		field: accessor{func(c *Config, _ time.Duration, i int, _ float64, _ string) { c.Checkpoint.Retention = Retention(i) },
			func(c *Config) any { return c.Checkpoint.Retention }},
		desc: "What becomes of the checkpoints when the job ends. NO_EXTERNALIZED_CHECKPOINTS keeps them after a " +
			"graceful stop, so that the next run resumes from them (a deviation: Flink deletes them and resumes " +
			"from savepoints, which streamsql does not have), and deletes them when a bounded job finishes; " +
			"DELETE_ON_CANCELLATION deletes them after a graceful stop too; RETAIN_ON_CANCELLATION always keeps " +
			"them. The checkpoints of a failed job are always kept."},
	{key: "execution.checkpointing.dir", deprecated: []string{"state.checkpoints.dir", "state.backend.fs.checkpointdir"}, kind: kString, none: true,
		field: stringField(func(c *Config) *string { return &c.Checkpoint.Dir }),
		desc: "Where checkpoints are written: a local path or a file:// URI (no other scheme); each job uses the " +
			"folder named after pipeline.name inside it. Unset: checkpoints are kept in memory and survive " +
			"restarts within the process only; a new process starts the sources afresh and cannot commit the " +
			"previous one's pending transactions. Exactly-once sinks need it (validate and run refuse them " +
			"without it), unless their sources' Kafka offsets are committed in the sink's transactions " +
			"(docs/runtime.md)."},
	{key: "execution.checkpointing.max-uncommitted-checkpoints", kind: kInt,
		field: intField(func(c *Config) *int { return &c.Checkpoint.MaxUncommitted }),
		desc: "streamsql's own setting, not Flink's: the number of completed checkpoints whose sink commits may " +
			"be pending at once; at least 1. When it is reached, no checkpoint is triggered (with a warning " +
			"naming the lagging sink) until the commits catch up; the job keeps running."},
	{key: "restart-strategy.type", deprecated: []string{"restart-strategy"}, kind: kEnum, none: true,
		enum: []string{"none", "disable", "off", "fixed-delay", "fixeddelay", "failure-rate", "failurerate", "exponential-delay", "exponentialdelay"},
		field: accessor{func(c *Config, _ time.Duration, i int, _ float64, _ string) {
			c.Restart.Strategy = []RestartStrategy{RestartNone, RestartNone, RestartNone, RestartFixedDelay, RestartFixedDelay,
				RestartFailureRate, RestartFailureRate, RestartExponentialDelay, RestartExponentialDelay}[i]
		}, func(c *Config) any { return c.Restart.Strategy }},
		desc: "What happens after a failure: none (or disable, off) fails the job; fixed-delay, failure-rate and " +
			"exponential-delay (also written without the hyphen) restart it from the latest completed checkpoint, " +
			"within the process, as their own settings say. Unset: exponential-delay when " +
			"execution.checkpointing.interval is set, none otherwise, as in Flink 1.19 and later. A lost commit, a corrupt " +
			"checkpoint, an invalid job or a graceful stop that timed out fail the job whatever the strategy."},
	{key: "restart-strategy.fixed-delay.attempts", kind: kInt,
		field: intField(func(c *Config) *int { return &c.Restart.FixedDelayAttempts }),
		desc:  "fixed-delay: the number of restarts over the job's life before a failure fails the job; 0 never restarts."},
	{key: "restart-strategy.fixed-delay.delay", kind: kDuration,
		field: durationField(func(c *Config) *time.Duration { return &c.Restart.FixedDelay }),
		desc:  "fixed-delay: the wait before each restart."},
	{key: "restart-strategy.failure-rate.max-failures-per-interval", kind: kInt,
		field: intField(func(c *Config) *int { return &c.Restart.FailureRateMaxFailures }),
		desc: "failure-rate: the job fails when this many failures, the latest included, fall within " +
			"failure-rate-interval (as in Flink, so the default of 1 never restarts); at least 1."},
	{key: "restart-strategy.failure-rate.failure-rate-interval", kind: kDuration,
		field: durationField(func(c *Config) *time.Duration { return &c.Restart.FailureRateInterval }),
		desc:  "failure-rate: the sliding window in which failures are counted."},
	{key: "restart-strategy.failure-rate.delay", kind: kDuration,
		field: durationField(func(c *Config) *time.Duration { return &c.Restart.FailureRateDelay }),
		desc:  "failure-rate: the wait before each restart."},
	{key: "restart-strategy.exponential-delay.initial-backoff", kind: kDuration,
		field: durationField(func(c *Config) *time.Duration { return &c.Restart.InitialBackoff }),
		desc:  "exponential-delay: the wait before the first restart, and the first after a reset; positive."},
	{key: "restart-strategy.exponential-delay.max-backoff", kind: kDuration,
		field: durationField(func(c *Config) *time.Duration { return &c.Restart.MaxBackoff }),
		desc:  "exponential-delay: the upper bound of the wait, before jitter; not below initial-backoff."},
	{key: "restart-strategy.exponential-delay.backoff-multiplier", kind: kFloat,
		field: floatField(func(c *Config) *float64 { return &c.Restart.BackoffMultiplier }),
		desc:  "exponential-delay: the factor by which the wait grows after each restart; at least 1.0."},
	{key: "restart-strategy.exponential-delay.reset-backoff-threshold", kind: kDuration,
		field: durationField(func(c *Config) *time.Duration { return &c.Restart.ResetBackoffThreshold }),
		desc: "exponential-delay: a run that lasted at least this long before it failed resets the wait to " +
			"initial-backoff and the count of attempts."},
	{key: "restart-strategy.exponential-delay.jitter-factor", kind: kFloat,
		field: floatField(func(c *Config) *float64 { return &c.Restart.JitterFactor }),
		desc:  "exponential-delay: each wait varies at random by up to this fraction of it, either way; from 0 to 1."},
	{key: "restart-strategy.exponential-delay.attempts-before-reset-backoff", kind: kInt,
		field: intField(func(c *Config) *int { return &c.Restart.AttemptsBeforeReset }),
		desc: "exponential-delay: the number of restarts allowed between resets before a failure fails the " +
			"job; at least 1. The default, the largest 32-bit integer, means no limit."},
}

// Keys returns the option keys ParseConfig understands, sorted, without
// deprecated aliases.
func Keys() []string {
	ks := make([]string, len(options))
	for i, o := range options {
		ks[i] = o.key
	}
	slices.Sort(ks)
	return ks
}

// ownedPrefixes are the namespaces in which unknown keys are errors.
var ownedPrefixes = []string{"execution.checkpointing.", "restart-strategy."}

// ParseConfig builds a Config from SET options, starting from
// DefaultConfig, and validates it. Keys outside the namespaces this
// package owns (execution.checkpointing.*, restart-strategy.*,
// state.checkpoints.*) are ignored: they belong to other parts of the job.
// Unknown keys inside them are errors that name the nearest known key.
// When both an option and its deprecated alias are set, the option wins.
func ParseConfig(opts map[string]string) (Config, error) {
	c := DefaultConfig()
	var errs []error
	known := map[string]bool{}
	for _, o := range options {
		known[o.key] = true
		for _, d := range o.deprecated {
			known[d] = true
		}
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if known[k] {
			continue
		}
		if slices.Contains(ignoredKeys, k) {
			c.Ignored = append(c.Ignored, k)
			continue
		}
		for _, p := range ownedPrefixes {
			if strings.HasPrefix(k, p) {
				errs = append(errs, &ConfigError{Key: k, Reason: unknownReason(k)})
			}
		}
	}
	for _, o := range options {
		key, v, ok := o.key, "", false
		if v, ok = opts[o.key]; !ok {
			for _, d := range o.deprecated {
				if v, ok = opts[d]; ok {
					key = d
					break
				}
			}
		}
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		var (
			d   time.Duration
			i   int
			f   float64
			err error
		)
		switch o.kind {
		case kDuration:
			d, err = ParseDuration(v)
		case kInt:
			var n int64
			n, err = strconv.ParseInt(v, 10, 32)
			i = int(n)
			if err != nil {
				err = errors.New("not an integer")
			}
		case kFloat:
			f, err = strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				err = errors.New("not a number")
			}
		case kEnum:
			i = slices.IndexFunc(o.enum, func(e string) bool { return strings.EqualFold(e, v) })
			if i < 0 {
				err = fmt.Errorf("must be one of %s", strings.Join(o.enum, ", "))
			}
		case kString:
		}
		if err != nil {
			errs = append(errs, &ConfigError{Key: key, Value: v, Reason: err.Error()})
			continue
		}
		o.field.set(&c, d, i, f, v)
	}
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	return c, c.Validate()
}

func unknownReason(k string) string {
	keys := make([]string, len(options))
	for i, o := range options {
		keys[i] = o.key
	}
	if best := suggest.Nearest(k, keys, len(k)/3); best != "" {
		return fmt.Sprintf("unknown option; did you mean '%s'?", best)
	}
	return "unknown option; supported: " + strings.Join(Keys(), ", ")
}

// Validate checks the configuration; errors name the options involved.
func (c Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &ConfigError{Key: key, Reason: fmt.Sprintf(format, args...)})
	}
	cp := c.Checkpoint
	if cp.Interval < 0 {
		bad("execution.checkpointing.interval", "must not be negative")
	} else if cp.Interval > 0 && cp.Interval < 10*time.Millisecond {
		bad("execution.checkpointing.interval", "%s is below the minimum of 10 ms", cp.Interval)
	}
	if cp.Timeout < 10*time.Millisecond {
		bad("execution.checkpointing.timeout", "%s is below the minimum of 10 ms", cp.Timeout)
	}
	if cp.MinPause < 0 {
		bad("execution.checkpointing.min-pause", "must not be negative")
	}
	if cp.MaxConcurrent < 1 {
		bad("execution.checkpointing.max-concurrent-checkpoints", "must be at least 1, is %d", cp.MaxConcurrent)
	}
	if cp.TolerableFailed < 0 {
		bad("execution.checkpointing.tolerable-failed-checkpoints", "must not be negative")
	}
	if cp.NumRetained < 1 {
		bad("execution.checkpointing.num-retained", "must be at least 1, is %d", cp.NumRetained)
	}
	if cp.MaxUncommitted < 1 {
		bad("execution.checkpointing.max-uncommitted-checkpoints", "must be at least 1, is %d", cp.MaxUncommitted)
	}
	if cp.Dir != "" {
		if _, err := checkpoint.ResolveDir(cp.Dir); err != nil {
			bad("execution.checkpointing.dir", "%v", err)
		}
	}
	r := c.Restart
	switch c.Restart.Strategy {
	case RestartFixedDelay:
		if r.FixedDelayAttempts < 0 {
			bad("restart-strategy.fixed-delay.attempts", "must not be negative")
		}
		if r.FixedDelay < 0 {
			bad("restart-strategy.fixed-delay.delay", "must not be negative")
		}
	case RestartFailureRate:
		if r.FailureRateMaxFailures < 1 {
			bad("restart-strategy.failure-rate.max-failures-per-interval", "must be at least 1")
		}
		if r.FailureRateInterval <= 0 {
			bad("restart-strategy.failure-rate.failure-rate-interval", "must be positive")
		}
		if r.FailureRateDelay < 0 {
			bad("restart-strategy.failure-rate.delay", "must not be negative")
		}
	}
	if c.EffectiveStrategy() == RestartExponentialDelay {
		if r.InitialBackoff <= 0 {
			bad("restart-strategy.exponential-delay.initial-backoff", "must be positive")
		}
		if r.MaxBackoff < r.InitialBackoff {
			bad("restart-strategy.exponential-delay.max-backoff", "(%s) must not be below restart-strategy.exponential-delay.initial-backoff (%s)", r.MaxBackoff, r.InitialBackoff)
		}
		if r.BackoffMultiplier < 1 {
			bad("restart-strategy.exponential-delay.backoff-multiplier", "must be at least 1.0, is %g", r.BackoffMultiplier)
		}
		if r.JitterFactor < 0 || r.JitterFactor > 1 {
			bad("restart-strategy.exponential-delay.jitter-factor", "must be within [0, 1], is %g", r.JitterFactor)
		}
		if r.ResetBackoffThreshold <= 0 {
			bad("restart-strategy.exponential-delay.reset-backoff-threshold", "must be positive")
		}
		if r.AttemptsBeforeReset < 1 {
			bad("restart-strategy.exponential-delay.attempts-before-reset-backoff", "must be at least 1")
		}
	}
	if c.StopTimeout <= 0 {
		bad("StopTimeout", "must be positive")
	}
	if c.ChannelCapacity < 1 {
		bad("ChannelCapacity", "must be at least 1")
	}
	return errors.Join(errs...)
}

// ParseDuration parses a duration the way Flink does: an integer with an
// optional unit (d, h, min/m, s, ms, us, ns and their long forms; no unit
// means milliseconds), for example "10s", "1 min", "500".
func ParseDuration(s string) (time.Duration, error) { return duration.Parse(s) }
