package jobconfig

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/internal/ckptpath"
	"github.com/streamsql/streamsql/internal/duration"
	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/internal/suggest"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/state"
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

// The values of execution.checkpointing.storage (CheckpointConfig.Storage).
const (
	StorageJobManager = "jobmanager"
	StorageFilesystem = "filesystem"
)

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
	// as given: a plain path, a file:// URI or an s3:// URI (object
	// storage; the client is configured by Config.S3). Empty: checkpoints
	// are kept in memory and do not survive the process. (The planner
	// fills in the per-user default folder, ckptpath.Default, for a
	// job that checkpoints and does not set it.)
	Dir string
	// Storage is execution.checkpointing.storage (deprecated:
	// state.checkpoint-storage): "jobmanager" keeps checkpoints in memory
	// (no default folder), "filesystem" writes them to Dir or the default
	// folder whatever the job; "" lets the planner decide.
	Storage string
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

	// MaxFailuresPerRecord is streamsql's
	// restart-strategy.max-failures-per-record (3): the job fails, whatever
	// the strategy, when this many runs in a row failed on the same input
	// record (connector.BadRecordError); 0 never stops for that.
	MaxFailuresPerRecord int
}

// Config is a job's runtime configuration.
type Config struct {
	Checkpoint CheckpointConfig
	Restart    RestartConfig
	// S3 configures the S3 client of s3:// paths (s3.endpoint,
	// s3.path.style.access, s3.access-key, s3.secret-key, s3.region): the
	// checkpoint storage's, and the filesystem connector's. Its String
	// shows no credential.
	S3 s3fs.Config
	// StopTimeout bounds a graceful stop: the final checkpoint and its
	// commits. Past it the job is cancelled and the pending commits are
	// left to recovery. Default 1 min. (Not a Flink option.)
	StopTimeout time.Duration
	// ChannelCapacity is the number of batches a channel between two
	// tasks holds; it bounds memory. Default 8. (Not a Flink option.)
	ChannelCapacity int
	// StateBackend is state.backend.type: the registered name of the
	// keyed-state backend of stateful operators (state.Lookup). Default
	// "hashmap" (the in-memory backend, state/heap).
	StateBackend string
	// StateIncremental is execution.checkpointing.incremental: backends
	// that can (the on-disk one) write incremental snapshots.
	StateIncremental bool
	// StateMemoryLimit is state.backend.memory-limit: the most memory the
	// keyed state of one task of a stateful operator may take in an
	// in-memory backend; 0: no limit.
	StateMemoryLimit option.MemorySize
	// StateCompressJoinRows is state.backend.hashmap.compress-join-rows:
	// the in-memory backend keeps the full chunks of a regular join's
	// insert-only rows Huffman-coded (state.Config.CompressLists).
	// Default false.
	StateCompressJoinRows bool
	// StateSpillThreshold is state.backend.hashmap.spill-threshold: the
	// in-memory backend writes the full chunks of a regular join's
	// insert-only rows to a working file once a task's state takes more
	// memory than this (state.Config.SpillThreshold); 0: never.
	StateSpillThreshold option.MemorySize
	// MaxParallelism is pipeline.max-parallelism: the job's number of key
	// groups (state.KeyGroupOf), stored in its checkpoints. Default
	// state.DefaultMaxParallelism.
	MaxParallelism int
	// DisableChaining keeps a sink task in a goroutine of its own, fed
	// over a channel, even where it could run in its one source task's
	// loop (see the package doc, "Execution"). Default false: chained
	// where possible. (Not a Flink option; Flink's
	// pipeline.operator-chaining.enabled is the nearest.)
	DisableChaining bool
	// Ignored lists the Flink options ParseConfig accepted without effect
	// (see IgnoredKeys), for the caller to warn about.
	Ignored []string
}

// IgnoredKeys returns the Flink checkpointing options that job files
// written for Flink may set and that have no effect here (IgnoredSettings
// says why for each), deprecated names included. ParseConfig accepts them
// and lists them in Config.Ignored.
func IgnoredKeys() []string { return slices.Clone(ignoredKeys) }

// ignored declares the accepted Flink options that have no effect, with
// package option as the others: the description says why.
var ignored = []option.Option{
	option.String("execution.checkpointing.savepoint-dir").DeprecatedKey("state.savepoints.dir", nil).
		Description("streamsql has no savepoints: a gracefully stopped job resumes from its retained checkpoint."),
	option.String("execution.checkpointing.unaligned.enabled").DeprecatedKey("execution.checkpointing.unaligned", nil).
		Description("Checkpoints are always aligned under EXACTLY_ONCE, which is correct, only slower under backpressure."),
	option.String("execution.checkpointing.aligned-checkpoint-timeout").
		Description("It switches to unaligned checkpoints, which streamsql does not have."),
	option.String("execution.checkpointing.interval-during-backlog").
		Description("streamsql does not detect backlog: execution.checkpointing.interval applies throughout."),
	option.String("execution.checkpointing.checkpoints-after-tasks-finish").
		Description("Finished sources always keep taking part in checkpoints (Flink's default, true), so the others' checkpoints go on."),
}

var ignoredKeys = func() []string {
	var ks []string
	for _, o := range ignored {
		ks = append(ks, o.Key())
		ks = append(ks, o.Info().DeprecatedKeys()...)
	}
	return ks
}()

// DefaultConfig returns Flink's defaults (checkpointing off): the
// declared defaults of the settings.
func DefaultConfig() Config {
	c, _ := ParseConfig(nil)
	return c
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

// The settings ParseConfig reads, declared with package option as
// connector options are: key, type, default, deprecated keys and
// description in one place. fromOptions reads them into a Config.
var (
	settingInterval = option.Duration("execution.checkpointing.interval").
			Description("Interval between periodic checkpoints; at least 10 ms. Unset or 0: no periodic checkpoints; " +
			"unlike Flink, one final checkpoint is still taken when the job stops or finishes, so that two-phase " +
			"(exactly-once) sinks commit then and only then. Setting it also makes exponential-delay the default " +
			"restart strategy.")
	settingMode = option.Enum("execution.checkpointing.mode", "EXACTLY_ONCE", "AT_LEAST_ONCE").Default("EXACTLY_ONCE").
			Description("EXACTLY_ONCE aligns barriers at sink tasks with several inputs, so that a checkpoint holds exactly " +
			"the rows before it; AT_LEAST_ONCE does not align (less blocking when inputs are skewed), and rows " +
			"after a barrier may be written again after a failure. The mode governs the job's own checkpoints " +
			"only: a Kafka sink's output guarantee is its 'sink.delivery-guarantee'.")
	settingTimeout = option.Duration("execution.checkpointing.timeout").Default(10 * time.Minute).
			Description("A checkpoint not complete within this time fails (at least 10 ms). The job keeps running as " +
			"execution.checkpointing.tolerable-failed-checkpoints allows, and the failed checkpoint's " +
			"pre-committed work is committed with the next one. A Kafka exactly-once sink's transaction " +
			"timeout should exceed the interval plus the min pause plus this timeout (else a warning).")
	settingMinPause = option.Duration("execution.checkpointing.min-pause").Default(0).
			Description("The least time between the end (completion or failure) of one checkpoint and the trigger of the next.")
	settingMaxConcurrent = option.Int("execution.checkpointing.max-concurrent-checkpoints").Default(1).
				Description("The number of checkpoints that may be in flight at once; at least 1.")
	settingTolerableFailed = option.Int("execution.checkpointing.tolerable-failed-checkpoints").Default(0).
				Description("The number of consecutive failed checkpoints (timed out, or not written to storage) tolerated; " +
			"one more fails the run, and the restart strategy decides what follows. A failure of the final " +
			"checkpoint taken at a stop is never tolerated.")
	settingNumRetained = option.Int("execution.checkpointing.num-retained").Default(1).
				DeprecatedKey("state.checkpoints.num-retained", nil).
				Description("The number of completed checkpoints kept; older ones are deleted. At least 1.")
	settingRetention = option.Enum("execution.checkpointing.externalized-checkpoint-retention", retentionNames...).
				Default(retentionNames[NoExternalizedCheckpoints]).
				Description("What becomes of the checkpoints when the job ends. NO_EXTERNALIZED_CHECKPOINTS keeps them after a " +
			"graceful stop, so that the next run resumes from them (a deviation: Flink deletes them and resumes " +
			"from savepoints, which streamsql does not have), and deletes them when a bounded job finishes; " +
			"DELETE_ON_CANCELLATION deletes them after a graceful stop too; RETAIN_ON_CANCELLATION always keeps " +
			"them. The checkpoints of a failed job are always kept.")
	settingDir = option.String("execution.checkpointing.dir").
			DeprecatedKey("state.checkpoints.dir", nil).DeprecatedKey("state.backend.fs.checkpointdir", nil).
			Description("Where checkpoints are written: a local path, a file:// URI, or s3://bucket/prefix for S3-compatible " +
			"object storage (the client is configured by the s3.* settings; docs/s3.md); each job uses the " +
			"folder named after pipeline.name inside it. Unset: a job that checkpoints (execution.checkpointing.interval " +
			"set, or an exactly-once sink) uses the per-user default folder, $XDG_STATE_HOME/streamsql/checkpoints, " +
			"else ~/.local/state/streamsql/checkpoints, which EXPLAIN and streamsql run print; other jobs, and jobs " +
			"where neither is known, keep their checkpoints in memory: they survive restarts within the process only, " +
			"and a new process starts afresh (validate and run refuse exactly-once sinks then, unless their sources' " +
			"Kafka offsets are committed in the sink's transactions; docs/runtime.md). A scaled-out job takes no folder.")
	settingStorage = option.Enum("execution.checkpointing.storage", StorageJobManager, StorageFilesystem).
			DeprecatedKey("state.checkpoint-storage", nil).
			Description("Flink's choice of checkpoint storage. 'jobmanager' keeps checkpoints in memory: they survive restarts " +
			"within the process only, a new process starts afresh, and no default folder is used (exactly-once sinks are " +
			"refused then, unless their sources' Kafka offsets are committed in the sink's transactions). 'filesystem' " +
			"writes them to execution.checkpointing.dir, else to the default folder, whatever the job. Unset: the " +
			"default folder for a job that checkpoints, memory for the others (see execution.checkpointing.dir).")
	settingS3Endpoint = option.String(s3fs.KeyEndpoint).
				Description("The endpoint of the S3-compatible object storage of s3:// paths (execution.checkpointing.dir, filesystem tables): " +
			"http://host:port, https://host:port, or host[:port] for https. Unset: AWS's endpoint of the region. Flink's name.")
	settingS3PathStyle = option.Bool(s3fs.KeyPathStyle).FallbackKeys(s3fs.KeyPathStyleNative).
				Description("Whether buckets are addressed as a path (http://host/bucket/key) rather than as a host name " +
			"(http://bucket.host/key). Unset: true when s3.endpoint is set, as S3-compatible servers expect, false for AWS. " +
			"Flink's name; s3.path-style-access (Flink's native S3 file system) is read too.")
	settingS3AccessKey = option.String(s3fs.KeyAccessKey).Sensitive().
				Description("The access key id of static S3 credentials, with s3.secret-key. With neither set, the standard AWS " +
			"credential chain is used: environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), " +
			"shared credentials and config files (AWS_PROFILE), web identity tokens (EKS), container and instance roles. Flink's name.")
	settingS3SecretKey = option.String(s3fs.KeySecretKey).Sensitive().
				Description("The secret key of static S3 credentials, with s3.access-key; never shown in logs, EXPLAIN, errors or " +
			"checkpoint files. Prefer the AWS credential chain, or a ${VARIABLE}, to a secret in a job file. Flink's name.")
	settingS3Region = option.String(s3fs.KeyRegion).FallbackKeys(s3fs.KeyRegionHadoop).
			Description("The region of the S3 bucket. Unset: the AWS chain's (AWS_REGION, the shared config file), else us-east-1. " +
			"Flink's native S3 file system's name; s3.endpoint.region (Flink's Hadoop S3 file system) is read too.")
	settingMaxUncommitted = option.Int("execution.checkpointing.max-uncommitted-checkpoints").Default(3).
				Description("streamsql's own setting, not Flink's: the number of completed checkpoints whose sink commits may " +
			"be pending at once; at least 1. When it is reached, no checkpoint is triggered (with a warning " +
			"naming the lagging sink) until the commits catch up; the job keeps running.")
	settingMaxParallelism = option.Int("pipeline.max-parallelism").Default(state.DefaultMaxParallelism).
				Description("The number of key groups a job's keyed state is partitioned into: the most tasks a " +
			"stateful operator (a GROUP BY, a window) can have. Each key hashes into one group, and each task owns a " +
			"contiguous range of groups, so that a job restored with another parallelism gives each task the groups " +
			"it now owns. It is stored in the job's checkpoints: a checkpoint with operator state restores only with " +
			"the same value. From 1 to 32768; unlike Flink, the default does not depend on the parallelism.")
	settingStateBackend = option.String("state.backend.type").Default("hashmap").DeprecatedKey("state.backend", nil).
				Description("The keyed-state backend of stateful operators (GROUP BY, windows): hashmap (or heap) keeps " +
			"each task's state in memory as encoded bytes (a regular join's rows past " +
			"state.backend.hashmap.spill-threshold in a local working file) and writes it whole at each checkpoint; " +
			"rocksdb (or pebble) " +
			"keeps it on local disk, for state larger than memory, and writes incremental checkpoints. A checkpoint " +
			"restores only into the backend that wrote it.")
	settingStateIncremental = option.Bool("execution.checkpointing.incremental").Default(true).
				DeprecatedKey("state.backend.incremental", nil).
				Description("Whether a backend that can (rocksdb/pebble) writes incremental checkpoints: only the files " +
			"that changed since the previous checkpoint, the others shared by reference (and deleted once no retained " +
			"checkpoint references them). The in-memory backend always writes its state whole. Unlike Flink, the default " +
			"is true.")
	settingStateCompressJoinRows = option.Bool("state.backend.hashmap.compress-join-rows").Default(false).
					Description("streamsql's own setting: whether the in-memory backend (hashmap) keeps the rows a regular join " +
			"holds for an insert-only input (EXPLAIN: rows appended) Huffman-coded, 64 KiB at a time once a chunk is full, " +
			"and reads them back through a small cache of decoded chunks. Less memory for more CPU: on Nexmark's bids " +
			"the chunks take about 0.8 of their bytes and q20's peak RSS falls by about an eighth, for up to half again " +
			"its CPU per event on one core. Checkpoints are the same either way. The rocksdb backend ignores it.")
	settingStateSpillThreshold = option.Size("state.backend.hashmap.spill-threshold").Default(64 << 20).
					Description("streamsql's own setting: once the keyed state of one task of a stateful operator takes " +
			"more memory than this in the in-memory backend (hashmap), the rows a regular join holds for an insert-only " +
			"input (EXPLAIN: rows appended) move, 64 KiB at a time once a chunk is full, to a working file in a local " +
			"temporary folder, and are read back from it when they are probed or checkpointed; their index stays in " +
			"memory. Flink's proposed spillable heap backend does the same, so that a job on the hashmap backend does " +
			"not die of memory as its join state grows. The file is the task's own, never part of a checkpoint " +
			"(checkpoints are the same either way), and removed when the task ends; state.backend.memory-limit counts " +
			"what is in memory. 0 never spills. A table whose reads keep missing its cache of read-back chunks keeps " +
			"its new chunks in memory. The rocksdb backend ignores it.")
	settingStateMemoryLimit = option.Size("state.backend.memory-limit").Default(0).
				Description("streamsql's own setting: the most memory the keyed state of one task of a stateful operator " +
			"may take. In the in-memory backend (hashmap) a write past it fails the job with an error naming the " +
			"operator, rather than letting the process take the machine's memory (restarts then fail the same way: " +
			"raise the limit, or use the rocksdb backend); the on-disk backend (rocksdb) sizes its caches from it " +
			"(half for the block cache) and keeps the rest of its state on disk. 0: no limit (the on-disk backend " +
			"then uses 32 MiB of cache).")
	settingRestartType = option.Enum("restart-strategy.type", strategyValues...).
				DeprecatedKey("restart-strategy", nil).
				Description("What happens after a failure: none (or disable, off) fails the job; fixed-delay, failure-rate and " +
			"exponential-delay (also written without the hyphen) restart it from the latest completed checkpoint, " +
			"within the process, as their own settings say. Unset: exponential-delay when " +
			"execution.checkpointing.interval is set, none otherwise, as in Flink 1.19 and later. A lost commit, a corrupt " +
			"checkpoint, an invalid job or a graceful stop that timed out fail the job whatever the strategy.")
	settingFixedDelayAttempts = option.Int("restart-strategy.fixed-delay.attempts").Default(1).
					Description("fixed-delay: the number of restarts over the job's life before a failure fails the job; 0 never restarts.")
	settingFixedDelay = option.Duration("restart-strategy.fixed-delay.delay").Default(time.Second).
				Description("fixed-delay: the wait before each restart.")
	settingFailureRateMax = option.Int("restart-strategy.failure-rate.max-failures-per-interval").Default(1).
				Description("failure-rate: the job fails when this many failures, the latest included, fall within " +
			"failure-rate-interval (as in Flink, so the default of 1 never restarts); at least 1.")
	settingFailureRateInterval = option.Duration("restart-strategy.failure-rate.failure-rate-interval").Default(time.Minute).
					Description("failure-rate: the sliding window in which failures are counted.")
	settingFailureRateDelay = option.Duration("restart-strategy.failure-rate.delay").Default(time.Second).
				Description("failure-rate: the wait before each restart.")
	settingInitialBackoff = option.Duration("restart-strategy.exponential-delay.initial-backoff").Default(time.Second).
				Description("exponential-delay: the wait before the first restart, and the first after a reset; positive.")
	settingMaxBackoff = option.Duration("restart-strategy.exponential-delay.max-backoff").Default(time.Minute).
				Description("exponential-delay: the upper bound of the wait, before jitter; not below initial-backoff.")
	settingBackoffMultiplier = option.Float("restart-strategy.exponential-delay.backoff-multiplier").Default(1.5).
					Description("exponential-delay: the factor by which the wait grows after each restart; at least 1.0.")
	settingResetBackoff = option.Duration("restart-strategy.exponential-delay.reset-backoff-threshold").Default(time.Hour).
				Description("exponential-delay: a run that lasted at least this long before it failed resets the wait to " +
			"initial-backoff and the count of attempts.")
	settingJitter = option.Float("restart-strategy.exponential-delay.jitter-factor").Default(0.1).
			Description("exponential-delay: each wait varies at random by up to this fraction of it, either way; from 0 to 1.")
	settingMaxFailuresPerRecord = option.Int("restart-strategy.max-failures-per-record").Default(3).
					Description("streamsql's own setting, not Flink's: the job fails, whatever the restart strategy, when this many " +
			"runs in a row failed on the same input record (one that does not decode, or whose row is rejected: the error " +
			"names it, for Kafka by topic, partition and offset, and says which table option lets the job go past such " +
			"records, such as 'scan.bad-record.policy'). Restarting cannot get past such a record; Flink's strategies would " +
			"restart on it for ever (exponential-delay, the default with checkpointing, has no limit of attempts). 0: no limit.")
	settingAttemptsBeforeReset = option.Int("restart-strategy.exponential-delay.attempts-before-reset-backoff").Default(math.MaxInt32).
					Description("exponential-delay: the number of restarts allowed between resets before a failure fails the " +
			"job; at least 1. The default, the largest 32-bit integer, means no limit.")
)

// strategyValues are the values of restart-strategy.type, aliases
// included, and strategyOf what each means.
var (
	strategyValues = []string{"none", "disable", "off", "fixed-delay", "fixeddelay", "failure-rate", "failurerate",
		"exponential-delay", "exponentialdelay"}
	strategyOf = map[string]RestartStrategy{"none": RestartNone, "disable": RestartNone, "off": RestartNone,
		"fixed-delay": RestartFixedDelay, "fixeddelay": RestartFixedDelay, "failure-rate": RestartFailureRate,
		"failurerate": RestartFailureRate, "exponential-delay": RestartExponentialDelay,
		"exponentialdelay": RestartExponentialDelay}
)

// settings lists the declarations in the order ParseConfig reports their
// errors.
var settings = []option.Option{
	settingInterval, settingMode, settingTimeout, settingMinPause, settingMaxConcurrent, settingTolerableFailed,
	settingNumRetained, settingRetention, settingDir, settingStorage, settingMaxUncommitted, settingMaxParallelism,
	settingStateBackend, settingStateIncremental, settingStateMemoryLimit, settingStateCompressJoinRows,
	settingStateSpillThreshold,
	settingRestartType, settingFixedDelayAttempts, settingFixedDelay, settingFailureRateMax,
	settingFailureRateInterval, settingFailureRateDelay, settingInitialBackoff, settingMaxBackoff,
	settingBackoffMultiplier, settingResetBackoff, settingJitter, settingAttemptsBeforeReset, settingMaxFailuresPerRecord,
	settingS3Endpoint, settingS3PathStyle, settingS3AccessKey, settingS3SecretKey, settingS3Region,
}

// Options returns the declarations of the settings ParseConfig reads,
// sorted by key: for references (docs/configuration.md) and tools that
// list or check settings. The declarations are values; changing them
// changes nothing here.
func Options() []option.Option {
	out := slices.Clone(settings)
	slices.SortFunc(out, func(a, b option.Option) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// fromOptions reads validated settings into a Config; unset ones take
// their declared defaults.
func fromOptions(o *option.Config) Config {
	mode := ExactlyOnce
	if settingMode.Get(o) == AtLeastOnce.String() {
		mode = AtLeastOnce
	}
	strategy := RestartDefault
	if t, ok := settingRestartType.Lookup(o); ok {
		strategy = strategyOf[t]
	}
	return Config{
		Checkpoint: CheckpointConfig{
			Interval:        settingInterval.Get(o),
			Mode:            mode,
			Timeout:         settingTimeout.Get(o),
			MinPause:        settingMinPause.Get(o),
			MaxConcurrent:   settingMaxConcurrent.Get(o),
			TolerableFailed: settingTolerableFailed.Get(o),
			NumRetained:     settingNumRetained.Get(o),
			Retention:       Retention(slices.Index(retentionNames, settingRetention.Get(o))),
			Dir:             strings.TrimSpace(settingDir.Get(o)),
			Storage:         settingStorage.Get(o),
			MaxUncommitted:  settingMaxUncommitted.Get(o),
		},
		Restart: RestartConfig{
			Strategy:               strategy,
			FixedDelayAttempts:     settingFixedDelayAttempts.Get(o),
			FixedDelay:             settingFixedDelay.Get(o),
			FailureRateMaxFailures: settingFailureRateMax.Get(o),
			FailureRateInterval:    settingFailureRateInterval.Get(o),
			FailureRateDelay:       settingFailureRateDelay.Get(o),
			InitialBackoff:         settingInitialBackoff.Get(o),
			MaxBackoff:             settingMaxBackoff.Get(o),
			BackoffMultiplier:      settingBackoffMultiplier.Get(o),
			ResetBackoffThreshold:  settingResetBackoff.Get(o),
			JitterFactor:           settingJitter.Get(o),
			AttemptsBeforeReset:    settingAttemptsBeforeReset.Get(o),
			MaxFailuresPerRecord:   settingMaxFailuresPerRecord.Get(o),
		},
		MaxParallelism:        settingMaxParallelism.Get(o),
		StateBackend:          strings.TrimSpace(settingStateBackend.Get(o)),
		StateIncremental:      settingStateIncremental.Get(o),
		StateMemoryLimit:      settingStateMemoryLimit.Get(o),
		StateCompressJoinRows: settingStateCompressJoinRows.Get(o),
		StateSpillThreshold:   settingStateSpillThreshold.Get(o),
		StopTimeout:           time.Minute,
		ChannelCapacity:       8,
	}
}

// s3Config reads the S3 client's settings, validated by their
// declarations; s3fs.FromSettings checks the endpoint's form and what the
// settings say together.
func s3Config(o *option.Config) (s3fs.Config, error) {
	m := map[string]string{}
	for _, opt := range []option.Opt[string]{settingS3Endpoint, settingS3AccessKey, settingS3SecretKey, settingS3Region} {
		if v, ok := opt.Lookup(o); ok {
			m[opt.Key()] = v
		}
	}
	if v, ok := settingS3PathStyle.Lookup(o); ok {
		m[settingS3PathStyle.Key()] = strconv.FormatBool(v)
	}
	return s3fs.FromSettings(m)
}

// settingValues writes c back as settings, key → value in the settings'
// syntax: the inverse of fromOptions. The settings without a default
// (interval, dir, restart-strategy.type, s3.*) are NoDefault when unset;
// s3.path.style.access is written only where it differs from what
// s3.endpoint implies.
func settingValues(c Config) map[string]string {
	cp, r := c.Checkpoint, c.Restart
	orNone := func(v string) string {
		if v == "" {
			return NoDefault
		}
		return v
	}
	pathStyle := NoDefault
	if c.S3.PathStyle != (c.S3.Endpoint != "") {
		pathStyle = strconv.FormatBool(c.S3.PathStyle)
	}
	interval, dir, strategy := NoDefault, NoDefault, NoDefault
	if cp.Interval != 0 {
		interval = settingInterval.Format(cp.Interval)
	}
	if cp.Dir != "" {
		dir = cp.Dir
	}
	if r.Strategy != RestartDefault {
		strategy = r.Strategy.String()
	}
	return map[string]string{
		settingS3Endpoint.Key():            orNone(c.S3.Endpoint),
		settingS3PathStyle.Key():           pathStyle,
		settingS3AccessKey.Key():           orNone(c.S3.AccessKey),
		settingS3SecretKey.Key():           orNone(string(c.S3.SecretKey)),
		settingS3Region.Key():              orNone(c.S3.Region),
		settingInterval.Key():              interval,
		settingMode.Key():                  cp.Mode.String(),
		settingTimeout.Key():               settingTimeout.Format(cp.Timeout),
		settingMinPause.Key():              settingMinPause.Format(cp.MinPause),
		settingMaxConcurrent.Key():         settingMaxConcurrent.Format(cp.MaxConcurrent),
		settingTolerableFailed.Key():       settingTolerableFailed.Format(cp.TolerableFailed),
		settingNumRetained.Key():           settingNumRetained.Format(cp.NumRetained),
		settingRetention.Key():             cp.Retention.String(),
		settingDir.Key():                   dir,
		settingStorage.Key():               orNone(cp.Storage),
		settingMaxUncommitted.Key():        settingMaxUncommitted.Format(cp.MaxUncommitted),
		settingRestartType.Key():           strategy,
		settingFixedDelayAttempts.Key():    settingFixedDelayAttempts.Format(r.FixedDelayAttempts),
		settingFixedDelay.Key():            settingFixedDelay.Format(r.FixedDelay),
		settingFailureRateMax.Key():        settingFailureRateMax.Format(r.FailureRateMaxFailures),
		settingFailureRateInterval.Key():   settingFailureRateInterval.Format(r.FailureRateInterval),
		settingFailureRateDelay.Key():      settingFailureRateDelay.Format(r.FailureRateDelay),
		settingInitialBackoff.Key():        settingInitialBackoff.Format(r.InitialBackoff),
		settingMaxBackoff.Key():            settingMaxBackoff.Format(r.MaxBackoff),
		settingBackoffMultiplier.Key():     settingBackoffMultiplier.Format(r.BackoffMultiplier),
		settingResetBackoff.Key():          settingResetBackoff.Format(r.ResetBackoffThreshold),
		settingJitter.Key():                settingJitter.Format(r.JitterFactor),
		settingAttemptsBeforeReset.Key():   settingAttemptsBeforeReset.Format(r.AttemptsBeforeReset),
		settingMaxFailuresPerRecord.Key():  settingMaxFailuresPerRecord.Format(r.MaxFailuresPerRecord),
		settingMaxParallelism.Key():        settingMaxParallelism.Format(c.MaxParallelism),
		settingStateBackend.Key():          c.StateBackend,
		settingStateIncremental.Key():      settingStateIncremental.Format(c.StateIncremental),
		settingStateMemoryLimit.Key():      settingStateMemoryLimit.Format(c.StateMemoryLimit),
		settingStateCompressJoinRows.Key(): settingStateCompressJoinRows.Format(c.StateCompressJoinRows),
		settingStateSpillThreshold.Key():   settingStateSpillThreshold.Format(c.StateSpillThreshold),
	}
}

// Keys returns the option keys ParseConfig understands, sorted, without
// deprecated aliases.
func Keys() []string {
	ks := make([]string, len(settings))
	for i, o := range settings {
		ks[i] = o.Key()
	}
	slices.Sort(ks)
	return ks
}

// ownedPrefixes are the namespaces in which unknown keys are errors.
var ownedPrefixes = []string{"execution.checkpointing.", "restart-strategy.", "s3."}

// ParseConfig builds a Config from SET options, starting from
// DefaultConfig, and validates it. Keys outside the namespaces this
// package owns (execution.checkpointing.*, restart-strategy.*,
// state.checkpoints.*) are ignored: they belong to other parts of the job.
// Unknown keys inside them are errors that name the nearest known key.
// When both an option and its deprecated alias are set, the option wins.
func ParseConfig(opts map[string]string) (Config, error) {
	v := &option.Validator{Options: opts, FirstKeyWins: true}
	oc := v.Parse("", settings)
	c := fromOptions(oc)
	var errs []error
	s3c, s3err := s3Config(oc)
	c.S3 = s3c
	for _, e := range joined(s3err) {
		var se *s3fs.SettingError
		if errors.As(e, &se) {
			e = &ConfigError{Key: se.Key, Reason: se.Reason}
		}
		errs = append(errs, e)
	}
	for _, k := range v.Unconsumed() {
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
	for _, e := range v.Invalid {
		var ie *option.InvalidValueError
		if !errors.As(e, &ie) {
			errs = append(errs, e)
			continue
		}
		errs = append(errs, &ConfigError{Key: ie.Key, Value: strings.TrimSpace(ie.Value), Reason: invalidReason(ie)})
	}
	for _, o := range []option.Opt[float64]{settingBackoffMultiplier, settingJitter} {
		if f, ok := o.Lookup(oc); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			errs = append(errs, &ConfigError{Key: oc.KeyUsed(o), Value: strings.TrimSpace(opts[oc.KeyUsed(o)]), Reason: "not a number"})
		}
	}
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	return c, c.Validate()
}

// joined returns the errors joined in err; none for nil.
func joined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// invalidReason says what is wrong with a value that did not parse, as
// job settings say it.
func invalidReason(ie *option.InvalidValueError) string {
	var de *duration.Error
	switch {
	case len(ie.Allowed) > 0:
		return "must be one of " + strings.Join(ie.Allowed, ", ")
	case errors.As(ie.Err, &de):
		return de.Error()
	case ie.Err != nil:
		return ie.Err.Error()
	}
	return "not a valid " + ie.Type.String()
}

func unknownReason(k string) string {
	if best := suggest.Nearest(k, Keys(), len(k)/3); best != "" {
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
		if err := ckptpath.Check(cp.Dir); err != nil {
			bad("execution.checkpointing.dir", "%v", err)
		}
		if cp.Storage == StorageJobManager {
			bad("execution.checkpointing.storage", "'jobmanager' keeps checkpoints in memory, but execution.checkpointing.dir is set: "+
				"remove one of them (or set the storage to 'filesystem')")
		}
	}
	if err := c.S3.CheckCredentials(); err != nil {
		var se *s3fs.SettingError
		if errors.As(err, &se) {
			bad(se.Key, "%s", se.Reason)
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
	if r.MaxFailuresPerRecord < 0 {
		bad("restart-strategy.max-failures-per-record", "must not be negative")
	}
	if c.StopTimeout <= 0 {
		bad("StopTimeout", "must be positive")
	}
	if c.MaxParallelism < 1 || c.MaxParallelism > state.MaxMaxParallelism {
		bad("pipeline.max-parallelism", "must be from 1 to %d, is %d", state.MaxMaxParallelism, c.MaxParallelism)
	}
	if c.StateBackend == "" {
		bad("state.backend.type", "must name a backend")
	}
	if c.StateMemoryLimit < 0 {
		bad("state.backend.memory-limit", "must not be negative")
	}
	if c.StateSpillThreshold < 0 {
		bad("state.backend.hashmap.spill-threshold", "must not be negative")
	}
	if c.ChannelCapacity < 1 {
		bad("ChannelCapacity", "must be at least 1")
	}
	return errors.Join(errs...)
}
