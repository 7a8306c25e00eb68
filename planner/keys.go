package planner

import (
	"fmt"

	"github.com/streamsql/streamsql/option"
)

// The job settings the planner reads itself; the runtime reads the others
// (jobconfig.Options).
const (
	// SettingPipelineName is pipeline.name: the job's name (see
	// Plan.JobName).
	SettingPipelineName = "pipeline.name"
	// SettingLocalTimeZone is table.local-time-zone: the session time zone
	// of TIMESTAMP_LTZ values and conversions ("default": the machine's).
	SettingLocalTimeZone = "table.local-time-zone"
	// SettingNotNullEnforcer is table.exec.sink.not-null-enforcer: what a
	// row with NULL in a NOT NULL sink column does, ERROR (the default: the
	// job fails naming the table, the column and the row's source
	// position) or DROP (the row is dropped and counted in
	// streamsql_task_records_dropped_total), as in Flink.
	SettingNotNullEnforcer = "table.exec.sink.not-null-enforcer"
	// SettingScaleOut is pipeline.scale-out: run the job as several
	// cooperating processes (docs/scale-out.md).
	SettingScaleOut = "pipeline.scale-out"
	// SettingInstanceID is pipeline.instance-id: this process's stable
	// identity among the job's instances (the CLI's --instance-id).
	SettingInstanceID = "pipeline.instance-id"
	// SettingStateTTL is table.exec.state.ttl: how long a stateful
	// operator keeps a key's state after its last update (0: for ever).
	SettingStateTTL = "table.exec.state.ttl"
	// SettingDefaultParallelism is parallelism.default: the number of
	// tasks of each stateful operator.
	SettingDefaultParallelism = "parallelism.default"
	// SettingIdleTimeout is table.exec.source.idle-timeout: after how long
	// without rows a source split stops holding back the watermark.
	SettingIdleTimeout = "table.exec.source.idle-timeout"
	// SettingMiniBatch is table.exec.mini-batch.enabled (with
	// table.exec.mini-batch.allow-latency and table.exec.mini-batch.size):
	// Flink's buffering of a GROUP BY's input (see settingMiniBatch).
	SettingMiniBatch = "table.exec.mini-batch.enabled"
	// SettingMiniBatchLatency and SettingMiniBatchSize are
	// table.exec.mini-batch.allow-latency and table.exec.mini-batch.size.
	SettingMiniBatchLatency = "table.exec.mini-batch.allow-latency"
	SettingMiniBatchSize    = "table.exec.mini-batch.size"
	// SettingDistinctSplit is table.optimizer.distinct-agg.split.enabled.
	SettingDistinctSplit = "table.optimizer.distinct-agg.split.enabled"
)

// The declarations of the planner's settings, with package option as the
// runtime's and the connectors' options are.
var (
	settingPipelineName = option.String(SettingPipelineName).
				Description("The job's name; unset: the job file's name without directory and extension. It names the " +
			"job's checkpoint folder in execution.checkpointing.dir and seeds the Kafka transactional-id prefixes " +
			"streamsql derives, so it must stay the same across restarts. It must not contain `/` or `\\`.")
	settingScaleOut = option.Bool(SettingScaleOut).Default(false).
			Description("Run the job as several cooperating processes, each started with its own " +
			"`pipeline.instance-id` (`streamsql run --instance-id ID`): Kafka sources read as members of the consumer " +
			"group `properties.group.id` and each instance runs every pipeline over the partitions the group assigns " +
			"it. Positions live in the group (committed in exactly-once sinks' transactions), not in checkpoint files. " +
			"Tables that cannot take part are refused. See docs/scale-out.md.")
	settingInstanceID = option.String(SettingInstanceID).
				Description("This process's identity among the instances of a scaled-out job (`pipeline.scale-out`): " +
			"its static consumer group membership and the suffix of its Kafka transactional ids. It must be unique " +
			"among the job's instances and stay the same across the process's restarts (a Kubernetes StatefulSet's " +
			"pod name, say). Required to run a scaled-out job.")
	settingStateTTL = option.Duration(SettingStateTTL).Default(0).
			Description("How long a stateful operator (a GROUP BY, a join, a deduplication) keeps a key's state after " +
			"the key's last update; `0` keeps it for ever. As in Flink, expired state is never read again: a key " +
			"that comes back after expiring starts afresh (a GROUP BY then emits an INSERT for it, not an update). " +
			"Window aggregations do not need it: their state goes when their windows fire.")
	settingDefaultParallelism = option.Int(SettingDefaultParallelism).Default(1).
					Description("The number of tasks of each stateful operator (GROUP BY, window aggregation); rows reach " +
			"them hashed by key. Sources and sinks keep their own `scan.parallelism` and `sink.parallelism`. An " +
			"aggregation without GROUP BY keys always runs in one task.")
	settingIdleTimeout = option.Duration(SettingIdleTimeout).Default(0).
				Description("After how long without rows a source split (a Kafka partition) is idle: it no longer holds " +
			"back the watermark, so windows fire on the other splits' time. `0` never marks a split idle (an empty " +
			"partition then stops event-time windows from firing, as in Flink).")
	settingMiniBatch = option.Bool(SettingMiniBatch).Default(false).
				Description("A GROUP BY (and SELECT DISTINCT) folds the rows of each key in an input batch of at most " +
			"`table.exec.mini-batch.size` rows and emits one change per key (`+I`, or `-U`/`+U` when the result " +
			"changed) instead of one per row, as Flink's mini-batch emits one per key per bundle. streamsql holds no " +
			"row past the batch it arrived in (its batches are what the source read at once), so a change is never " +
			"held back by `table.exec.mini-batch.allow-latency` nor across a checkpoint's barrier. As in Flink, " +
			"`allow-latency` and `size` must be set (positive) when it is on. An aggregation with a state TTL, " +
			"LISTAGG, ARRAY_AGG, JSON_ARRAYAGG or JSON_OBJECTAGG still emits per row (EXPLAIN says so); other operators (windows, " +
			"joins, deduplication) are not changed by it.")
	settingMiniBatchLatency = option.Duration(SettingMiniBatchLatency).Default(0).
				Description("How long Flink may buffer a mini-batch; required (positive) with " +
			"`table.exec.mini-batch.enabled`. streamsql never holds rows longer than the input batch they came in.")
	settingMiniBatchSize = option.Long(SettingMiniBatchSize).Default(-1).
				Description("The most rows a mini-batch folds (`table.exec.mini-batch.enabled`); required (positive) " +
			"with it.")
	settingDistinctSplit = option.Bool(SettingDistinctSplit).Default(false).
				Description("Flink splits a COUNT(DISTINCT) into two aggregation levels to spread a hot key over tasks. " +
			"streamsql accepts the setting and does not split: each key's distinct values are kept by the task of " +
			"the key (EXPLAIN says so).")
	settingLocalTimeZone = option.String(SettingLocalTimeZone).Default("default").
				Description("The session time zone of TIMESTAMP_LTZ conversions and time functions: an IANA name such " +
			"as `Europe/Berlin`, or `default` for the local time zone of the process.")
	settingNotNullEnforcer = option.Enum(SettingNotNullEnforcer, "ERROR", "DROP").Default("ERROR").
				Description("What a row with NULL for a NOT NULL sink column does (every PRIMARY KEY column is NOT NULL; " +
			"a nullable query column may be written to one, as in Flink, and each row is checked): `ERROR` fails " +
			"the job naming the table, the column and the row's source position (topic, partition and offset " +
			"for Kafka); `DROP` drops the row and counts it in `streamsql_task_records_dropped_total`. Under either " +
			"value, the rows of a Kafka source table with `scan.bad-record.policy` = `skip` or `dead-letter` go by " +
			"that policy instead (skipped and counted, or their record written to the dead-letter topic) when the row " +
			"goes to the sink straight from its record; a row out of an aggregation, join, window or deduplication " +
			"is no single record's, and this setting decides.")
)

// Settings returns the declarations of the job settings the planner
// reads itself, sorted by key.
func Settings() []option.Option {
	return []option.Option{settingDefaultParallelism, settingInstanceID, settingPipelineName, settingScaleOut,
		settingMiniBatch, settingMiniBatchLatency, settingMiniBatchSize, settingNotNullEnforcer, settingIdleTimeout,
		settingStateTTL, settingLocalTimeZone, settingDistinctSplit, settingReuseSource, settingReuseSubPlan, settingAsyncLookupCapacity, settingAsyncLookupTimeout}
}

// SettingKeys returns the keys of the job settings the planner reads
// itself.
func SettingKeys() []string {
	var ks []string
	for _, o := range Settings() {
		ks = append(ks, o.Key())
	}
	return ks
}

// notNullDrop reads table.exec.sink.not-null-enforcer: true for DROP,
// false for ERROR (the default); an error names the accepted values.
func notNullDrop(settings map[string]string) (bool, error) {
	v, ok := settings[SettingNotNullEnforcer]
	if !ok {
		return false, nil
	}
	mode, err := settingNotNullEnforcer.Parse(v)
	if err == nil {
		return mode == "DROP", nil
	}
	return false, fmt.Errorf("%w: '%s' = '%s' is not a supported value; supported values are ERROR (the default: fail the job) and DROP (drop the row and count it)",
		ErrInvalidSetting, SettingNotNullEnforcer, v)
}
