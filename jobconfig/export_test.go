package jobconfig

// SettingValue renders the value of the setting key in c, as Settings
// renders defaults.
func SettingValue(c Config, key string) string { return settingValues(c)[key] }
