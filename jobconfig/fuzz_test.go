package jobconfig_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/jobconfig"
)

// fuzzKeys are the keys FuzzParseConfig picks from: every key ParseConfig
// reads, their deprecated names, the ignored keys, a key of another
// namespace and unknown keys in the namespaces the runtime owns.
func fuzzKeys() []string {
	ks := jobconfig.Keys()
	for _, s := range jobconfig.Settings() {
		ks = append(ks, s.Deprecated...)
	}
	ks = append(ks, jobconfig.IgnoredKeys()...)
	return append(ks, "pipeline.name", "execution.checkpointing.intervall", "restart-strategy.fixed-delay.atempts")
}

// FuzzParseConfig feeds ParseConfig settings whose keys are picked from
// the known keys (one per line of values, the key chosen by the byte of
// picks at the same index; a line "key=value" gives its key literally)
// with fuzzed values. No input panics; an error is a join of
// *jobconfig.ConfigError values, each naming its key, and is the same on a
// second call; a nil error means Validate passes, the ignored keys are
// reported, and the configuration written back in Flink's syntax (as
// Settings writes defaults) parses to the same configuration. Run it with
//
//	go test -run '^$' -fuzz FuzzParseConfig -fuzztime 3m -parallel 1 ./runtime
func FuzzParseConfig(f *testing.F) {
	keys := fuzzKeys()
	index := func(key string) byte { return byte(slices.Index(keys, key)) }
	f.Add([]byte{index("execution.checkpointing.interval"), index("execution.checkpointing.mode")}, "10 s\nat_least_once")
	f.Add([]byte{index("restart-strategy.type"), index("restart-strategy.exponential-delay.initial-backoff"),
		index("restart-strategy.exponential-delay.max-backoff"), index("execution.checkpointing.interval")}, "exponentialdelay\n2 min\n1 min\n1")
	f.Add([]byte{index("restart-strategy"), index("restart-strategy.failure-rate.failure-rate-interval")}, "failure-rate\n0")
	f.Add([]byte{index("state.checkpoints.dir"), index("execution.checkpointing.dir")}, "file://host/x\n/tmp/ck")
	f.Add([]byte{index("restart-strategy.exponential-delay.jitter-factor"), index("restart-strategy.exponential-delay.backoff-multiplier")}, "NaN\n1e308")
	f.Add([]byte{index("execution.checkpointing.timeout")}, "9223372036854775807 ns")
	f.Add([]byte{index("execution.checkpointing.timeout")}, "106752 d")
	f.Add([]byte{index("execution.checkpointing.max-concurrent-checkpoints")}, "2147483648")
	f.Add([]byte{}, "execution.checkpointing.unaligned=true\nexecution.checkpointing.foo=1\nstate.backend.incremental=false")
	f.Add([]byte{index("execution.checkpointing.externalized-checkpoint-retention")}, "retain_on_cancellation")
	f.Add([]byte{index("execution.checkpointing.dir")}, "(none)")
	f.Fuzz(func(t *testing.T, picks []byte, values string) {
		opts := map[string]string{}
		for i, line := range strings.Split(values, "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				opts[k] = v
			} else if len(picks) > 0 {
				opts[keys[int(picks[i%len(picks)])%len(keys)]] = line
			}
		}
		c, err := jobconfig.ParseConfig(opts)
		_, err2 := jobconfig.ParseConfig(opts)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("ParseConfig(%q) differs between calls: %v / %v", opts, err, err2)
		}
		if err != nil {
			checkConfigErrors(t, opts, err)
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("ParseConfig(%q) succeeded but Validate fails: %v", opts, err)
		}
		for _, k := range c.Ignored {
			if !slices.Contains(jobconfig.IgnoredKeys(), k) {
				t.Fatalf("ParseConfig(%q) ignored %q, not an ignored key", opts, k)
			}
			if _, ok := opts[k]; !ok {
				t.Fatalf("ParseConfig(%q) ignored %q, which is not set", opts, k)
			}
		}
		// A string setting whose value is literally "(none)" is written as
		// NoDefault, like an unset one: the written form cannot hold it.
		for _, v := range opts {
			if strings.TrimSpace(v) == jobconfig.NoDefault {
				return
			}
		}
		written := map[string]string{}
		for _, k := range jobconfig.Keys() {
			if v := jobconfig.SettingValue(c, k); v != jobconfig.NoDefault {
				written[k] = v
			}
		}
		back, err := jobconfig.ParseConfig(written)
		if err != nil {
			t.Fatalf("ParseConfig(%q) succeeded; written back as %q it fails: %v", opts, written, err)
		}
		back.Ignored, c.Ignored = nil, nil
		if !reflect.DeepEqual(back, c) {
			t.Fatalf("ParseConfig(%q) = %+v; written back as %q it reads %+v", opts, c, written, back)
		}
	})
}

// checkConfigErrors checks that err joins *jobconfig.ConfigError values,
// each with a reason and naming a key that was set or (for a rule over
// several settings, or a value given under a deprecated name) a setting.
func checkConfigErrors(t *testing.T, opts map[string]string, err error) {
	t.Helper()
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	if len(list) == 0 {
		t.Fatalf("ParseConfig(%q): empty error", opts)
	}
	for _, e := range list {
		var ce *jobconfig.ConfigError
		if !errors.As(e, &ce) {
			t.Fatalf("ParseConfig(%q): error %T is not a *jobconfig.ConfigError: %v", opts, e, e)
		}
		if ce.Reason == "" || !strings.Contains(ce.Error(), "'"+ce.Key+"'") {
			t.Fatalf("ParseConfig(%q): error without reason or key: %#v", opts, ce)
		}
		if _, ok := opts[ce.Key]; !ok && !slices.Contains(jobconfig.Keys(), ce.Key) {
			t.Fatalf("ParseConfig(%q): error names '%s', neither set nor a setting: %v", opts, ce.Key, ce)
		}
	}
}
