package jobconfig_test

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/jobconfig"
)

// TestSettingsDescribeEveryKey checks that Settings covers Keys in order
// and that every setting has a type, a default and a description.
func TestSettingsDescribeEveryKey(t *testing.T) {
	ss := jobconfig.Settings()
	keys := make([]string, len(ss))
	for i, s := range ss {
		keys[i] = s.Key
		if strings.TrimSpace(s.Description) == "" {
			t.Errorf("%s: no description", s.Key)
		}
		if s.Default == "" {
			t.Errorf("%s: no default", s.Key)
		}
		switch s.Type {
		case "Duration", "Integer", "Double", "String", "Boolean", "MemorySize":
			if s.Values != nil {
				t.Errorf("%s: %s with enum values %v", s.Key, s.Type, s.Values)
			}
		case "Enum":
			if len(s.Values) == 0 {
				t.Errorf("%s: enum without values", s.Key)
			}
			if s.Default != jobconfig.NoDefault && !slices.Contains(s.Values, s.Default) {
				t.Errorf("%s: default %q is not one of %v", s.Key, s.Default, s.Values)
			}
		default:
			t.Errorf("%s: type %q", s.Key, s.Type)
		}
	}
	if !slices.Equal(keys, jobconfig.Keys()) {
		t.Fatalf("Settings keys %v, Keys %v", keys, jobconfig.Keys())
	}
	// The result is a copy.
	ss[0].Deprecated = append(ss[0].Deprecated, "x")
	ss[0].Description = ""
	if again := jobconfig.Settings(); again[0].Description == "" || slices.Contains(again[0].Deprecated, "x") {
		t.Fatal("Settings returns shared state")
	}
}

// TestSettingsDefaultsRoundTrip checks that each rendered default, given
// to ParseConfig, yields DefaultConfig, and that the defaults rendered as
// (none) are the ones the runtime treats as unset.
func TestSettingsDefaultsRoundTrip(t *testing.T) {
	def := jobconfig.DefaultConfig()
	for _, s := range jobconfig.Settings() {
		if s.Default == jobconfig.NoDefault {
			continue
		}
		c, err := jobconfig.ParseConfig(map[string]string{s.Key: s.Default})
		if err != nil {
			t.Errorf("%s = %q: %v", s.Key, s.Default, err)
			continue
		}
		if !reflect.DeepEqual(c, def) {
			t.Errorf("%s = %q gives %+v, want the default %+v", s.Key, s.Default, c, def)
		}
	}
	none := map[string]bool{}
	for _, s := range jobconfig.Settings() {
		if s.Default == jobconfig.NoDefault {
			none[s.Key] = true
		}
	}
	want := map[string]bool{"execution.checkpointing.interval": true, "execution.checkpointing.dir": true, "execution.checkpointing.storage": true, "restart-strategy.type": true,
		"s3.endpoint": true, "s3.path.style.access": true, "s3.access-key": true, "s3.secret-key": true, "s3.region": true}
	if !reflect.DeepEqual(none, want) {
		t.Errorf("settings without default: %v, want %v", none, want)
	}
	if def.Checkpoint.Interval != 0 || def.Checkpoint.Dir != "" || def.Restart.Strategy != jobconfig.RestartDefault {
		t.Errorf("defaults of the (none) settings: %+v", def)
	}
	byKey := map[string]jobconfig.SettingInfo{}
	for _, s := range jobconfig.Settings() {
		byKey[s.Key] = s
	}
	for key, want := range map[string]string{
		"execution.checkpointing.timeout":                                  "10 min",
		"execution.checkpointing.min-pause":                                "0 ms",
		"execution.checkpointing.mode":                                     "EXACTLY_ONCE",
		"execution.checkpointing.externalized-checkpoint-retention":        "NO_EXTERNALIZED_CHECKPOINTS",
		"restart-strategy.exponential-delay.backoff-multiplier":            "1.5",
		"restart-strategy.exponential-delay.reset-backoff-threshold":       "1 h",
		"restart-strategy.exponential-delay.attempts-before-reset-backoff": "2147483647",
	} {
		if got := byKey[key].Default; got != want {
			t.Errorf("%s: default %q, want %q", key, got, want)
		}
	}
}

// TestSettingsRenderWhatParseConfigSets sets every setting to a value
// other than its default and checks that the value is rendered back, so
// that each entry reads the field it writes.
func TestSettingsRenderWhatParseConfigSets(t *testing.T) {
	sample := map[string]string{"Duration": "7 s", "Integer": "5", "Double": "1.25", "String": "/tmp/ck", "Boolean": "false", "MemorySize": "64mb"}
	// Settings whose values have a form of their own, and the settings
	// they go with.
	own := map[string]string{"s3.endpoint": "http://127.0.0.1:9000", "s3.path.style.access": "true", "s3.region": "eu-west-1",
		"state.backend.hashmap.compress-join-rows": "true", "state.backend.hashmap.spill-threshold": "7mb"}
	with := map[string]map[string]string{"s3.access-key": {"s3.secret-key": "x"}, "s3.secret-key": {"s3.access-key": "x"}}
	for _, s := range jobconfig.Settings() {
		vals := []string{sample[s.Type]}
		if v, ok := own[s.Key]; ok {
			vals = []string{v}
		}
		if s.Type == "Enum" {
			vals = s.Values
		}
		for _, v := range vals {
			opts := map[string]string{s.Key: v}
			maps.Copy(opts, with[s.Key])
			c, err := jobconfig.ParseConfig(opts)
			if err != nil {
				t.Errorf("%s = %q: %v", s.Key, v, err)
				continue
			}
			got := jobconfig.SettingValue(c, s.Key)
			if s.Type == "Enum" {
				// Aliases render as their canonical name, which must be
				// accepted and give the same configuration.
				back, err := jobconfig.ParseConfig(map[string]string{s.Key: got})
				if err != nil || !reflect.DeepEqual(back, c) {
					t.Errorf("%s = %q renders as %q, which parses to %+v, %v", s.Key, v, got, back, err)
				}
				continue
			}
			if got != v {
				t.Errorf("%s = %q renders as %q", s.Key, v, got)
			}
			if got == s.Default {
				t.Errorf("%s: the sample %q is the default", s.Key, v)
			}
		}
	}
}

func TestIgnoredSettings(t *testing.T) {
	var keys []string
	for _, s := range jobconfig.IgnoredSettings() {
		if strings.TrimSpace(s.Reason) == "" {
			t.Errorf("%s: no reason", s.Key)
		}
		keys = append(keys, s.Key)
		keys = append(keys, s.Deprecated...)
	}
	if !slices.Equal(keys, jobconfig.IgnoredKeys()) {
		t.Fatalf("IgnoredSettings keys %v, IgnoredKeys %v", keys, jobconfig.IgnoredKeys())
	}
	opts := map[string]string{}
	for _, k := range keys {
		opts[k] = "whatever"
	}
	c, err := jobconfig.ParseConfig(opts)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	if !slices.Equal(c.Ignored, keys) {
		t.Fatalf("Ignored %v, want %v", c.Ignored, keys)
	}
	c.Ignored = nil
	if !reflect.DeepEqual(c, jobconfig.DefaultConfig()) {
		t.Fatalf("ignored settings changed the configuration: %+v", c)
	}
}
