package jobconfig

// SettingInfo describes one job setting ParseConfig reads, for
// documentation and tools.
type SettingInfo struct {
	// Key is the setting's name, as Flink spells it.
	Key string
	// Type is the kind of value, named as on Flink's configuration page:
	// "Duration" (Flink's syntax: an integer and a unit, as option.ParseDuration
	// reads it), "Integer", "Double", "Enum" (one of Values, any case) or
	// "String".
	Type string
	// Default is the value in DefaultConfig, written in Flink's syntax so
	// that ParseConfig accepts it back ("10 min", "EXACTLY_ONCE", "1.5"),
	// or NoDefault, "(none)", when the setting is unset by default (Description says
	// what that means).
	Default string
	// Values lists the accepted values of an Enum, aliases included.
	Values []string
	// Deprecated lists Flink's older names of the setting, which
	// ParseConfig accepts too; the current name wins when both are set.
	Deprecated []string
	// Description says what the setting does in streamsql and where that
	// differs from Flink.
	Description string
}

// NoDefault is SettingInfo.Default of a setting that is unset by default.
const NoDefault = "(none)"

// Settings returns a description of every setting ParseConfig reads, in
// the order of Keys, from the settings' declarations (see Options). The
// result is a copy: changing it changes nothing in this package.
func Settings() []SettingInfo {
	opts := Options()
	out := make([]SettingInfo, len(opts))
	for i, o := range opts {
		info := o.Info()
		out[i] = SettingInfo{
			Key:         info.Key,
			Type:        info.Type.String(),
			Default:     NoDefault,
			Values:      info.Enum,
			Description: info.Description,
		}
		if info.HasDefault {
			out[i].Default = info.Default
		}
		if len(info.Deprecated) > 0 {
			out[i].Deprecated = info.DeprecatedKeys()
		}
	}
	return out
}

// IgnoredSetting describes a Flink setting that ParseConfig accepts and
// that has no effect in streamsql (see IgnoredKeys).
type IgnoredSetting struct {
	// Key is the setting's current Flink name.
	Key string
	// Deprecated lists its older Flink names, which are accepted too.
	Deprecated []string
	// Reason says in one sentence why it has no effect.
	Reason string
}

// IgnoredSettings returns the settings that ParseConfig accepts without
// effect, with the reason for each; IgnoredKeys lists the same keys.
func IgnoredSettings() []IgnoredSetting {
	out := make([]IgnoredSetting, len(ignored))
	for i, o := range ignored {
		info := o.Info()
		out[i] = IgnoredSetting{Key: info.Key, Reason: info.Description}
		if len(info.Deprecated) > 0 {
			out[i].Deprecated = info.DeprecatedKeys()
		}
	}
	return out
}
