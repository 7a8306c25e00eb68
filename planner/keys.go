package planner

// The job settings the planner reads itself; the runtime reads the others
// (runtime.Keys).
const (
	// SettingPipelineName is pipeline.name: the job's name (see
	// Plan.JobName).
	SettingPipelineName = "pipeline.name"
	// SettingLocalTimeZone is table.local-time-zone: the session time zone
	// of TIMESTAMP_LTZ values and conversions ("default": the machine's).
	SettingLocalTimeZone = "table.local-time-zone"
)

// SettingKeys returns the keys of the job settings the planner reads
// itself.
func SettingKeys() []string { return []string{SettingPipelineName, SettingLocalTimeZone} }
