package job

import (
	"errors"
	"slices"

	"github.com/streamsql/streamsql/internal/errlist"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/planner"
)

// SettingKeys returns, sorted, every key a job's settings may name (in SET
// statements, Options.Set and Options.Defaults), from the settings'
// declarations: the runtime's (jobconfig.Options) and the planner's
// (planner.Settings, pipeline.name and table.local-time-zone) with Flink's
// older and other names of them (s3.path-style-access, s3.endpoint.region), and the Flink options the runtime accepts and
// ignores (jobconfig.IgnoredKeys).
func SettingKeys() []string {
	ks := jobconfig.IgnoredKeys()
	for _, o := range slices.Concat(jobconfig.Options(), planner.Settings()) {
		ks = append(ks, o.Key())
		ks = append(ks, o.Info().DeprecatedKeys()...)
		ks = append(ks, o.Info().Fallback...)
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// SettingError is an invalid value of a job setting (see CheckSettings).
type SettingError struct {
	// Key is the setting; Value its value, "" when the error is about
	// settings together (a relation between two of them).
	Key, Value string
	// Reason says what is wrong.
	Reason string

	err error
}

func (e *SettingError) Error() string { return e.err.Error() }

// Unwrap returns the runtime's error (a *jobconfig.ConfigError).
func (e *SettingError) Unwrap() error { return e.err }

// CheckSettings validates job settings given apart from a job file (a
// configuration file, say) as the runtime parses them: it returns nil, or
// the errors joined, each a *SettingError when it concerns a setting.
// Keys it does not know are not its concern (see SettingKeys).
func CheckSettings(settings map[string]string) error {
	_, err := jobconfig.ParseConfig(settings)
	if err == nil {
		return nil
	}
	var errs []error
	for _, e := range errlist.Flatten(err) {
		var ce *jobconfig.ConfigError
		if errors.As(e, &ce) {
			e = &SettingError{Key: ce.Key, Value: ce.Value, Reason: ce.Reason, err: e}
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}
