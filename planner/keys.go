package planner

import "github.com/streamsql/streamsql/option"

// The job settings the planner reads itself; the runtime reads the others
// (runtime.Options).
const (
	// SettingPipelineName is pipeline.name: the job's name (see
	// Plan.JobName).
	SettingPipelineName = "pipeline.name"
	// SettingLocalTimeZone is table.local-time-zone: the session time zone
	// of TIMESTAMP_LTZ values and conversions ("default": the machine's).
	SettingLocalTimeZone = "table.local-time-zone"
)

// The declarations of the planner's settings, with package option as the
// runtime's and the connectors' options are.
var (
	settingPipelineName = option.String(SettingPipelineName).
				Description("The job's name; unset: the job file's name without directory and extension. It names the " +
			"job's checkpoint folder in execution.checkpointing.dir and seeds the Kafka transactional-id prefixes " +
			"streamsql derives, so it must stay the same across restarts. It must not contain `/` or `\\`.")
	settingLocalTimeZone = option.String(SettingLocalTimeZone).Default("default").
				Description("The session time zone of TIMESTAMP_LTZ conversions and time functions: an IANA name such " +
			"as `Europe/Berlin`, or `default` for the local time zone of the process.")
)

// Settings returns the declarations of the job settings the planner
// reads itself, sorted by key.
func Settings() []option.Option {
	return []option.Option{settingPipelineName, settingLocalTimeZone}
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
