// Package jobconfig is a job's runtime configuration: the settings of
// checkpointing (execution.checkpointing.*), restarts
// (restart-strategy.*), the S3 client (s3.*), keyed state (state.*) and
// the runtime's own, read with Flink's names and defaults from a job's
// SET options by [ParseConfig] into a [Config].
//
// It sits below both of its readers: the planner validates the settings,
// explains them and derives the job's guarantees from them, and the
// runtime runs by them; job hands the one to the other. Each setting is a
// declaration with package option (see settings in config.go), from
// which [Settings] describes it for the generated reference
// (docs/configuration.md, tools/gendocs) and [Keys] lists it for the
// CLI's check of configuration keys.
package jobconfig
