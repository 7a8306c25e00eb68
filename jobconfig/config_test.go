package jobconfig_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/jobconfig"
)

func TestParseConfigDefaults(t *testing.T) {
	c, err := jobconfig.ParseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	cp := c.Checkpoint
	if cp.Interval != 0 || cp.Mode != jobconfig.ExactlyOnce || cp.Timeout != 10*time.Minute || cp.MinPause != 0 ||
		cp.MaxConcurrent != 1 || cp.TolerableFailed != 0 || cp.NumRetained != 1 || cp.Retention != jobconfig.NoExternalizedCheckpoints {
		t.Fatalf("checkpoint defaults: %+v", cp)
	}
	r := c.Restart
	if r.FixedDelayAttempts != 1 || r.FixedDelay != time.Second || r.FailureRateMaxFailures != 1 ||
		r.FailureRateInterval != time.Minute || r.FailureRateDelay != time.Second || r.InitialBackoff != time.Second ||
		r.MaxBackoff != time.Minute || r.BackoffMultiplier != 1.5 || r.ResetBackoffThreshold != time.Hour ||
		r.JitterFactor != 0.1 || r.AttemptsBeforeReset != math.MaxInt32 {
		t.Fatalf("restart defaults: %+v", r)
	}
	if c.EffectiveStrategy() != jobconfig.RestartNone {
		t.Fatalf("default strategy without checkpointing: %s", c.EffectiveStrategy())
	}
}

func TestParseConfig(t *testing.T) {
	c, err := jobconfig.ParseConfig(map[string]string{
		"execution.checkpointing.interval":                          "5s",
		"execution.checkpointing.mode":                              "at_least_once",
		"execution.checkpointing.timeout":                           "1 min",
		"execution.checkpointing.min-pause":                         "500",
		"execution.checkpointing.max-concurrent-checkpoints":        "2",
		"execution.checkpointing.tolerable-failed-checkpoints":      "3",
		"state.checkpoints.num-retained":                            "4",
		"execution.checkpointing.externalized-checkpoint-retention": "RETAIN_ON_CANCELLATION",
		"state.checkpoints.dir":                                     "file:///tmp/ck",
		"restart-strategy":                                          "fixeddelay",
		"restart-strategy.fixed-delay.attempts":                     "7",
		"restart-strategy.fixed-delay.delay":                        "2 s",
		"pipeline.name":                                             "ignored: not ours",
		"execution.checkpointing.unaligned.enabled":                 "true",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ignored) != 1 || c.Ignored[0] != "execution.checkpointing.unaligned.enabled" {
		t.Fatalf("ignored options: %v", c.Ignored)
	}
	cp := c.Checkpoint
	if cp.Interval != 5*time.Second || cp.Mode != jobconfig.AtLeastOnce || cp.Timeout != time.Minute ||
		cp.MinPause != 500*time.Millisecond || cp.MaxConcurrent != 2 || cp.TolerableFailed != 3 || cp.NumRetained != 4 ||
		cp.Retention != jobconfig.RetainOnCancellation || cp.Dir != "file:///tmp/ck" {
		t.Fatalf("checkpoint config: %+v", cp)
	}
	if c.Restart.Strategy != jobconfig.RestartFixedDelay || c.Restart.FixedDelayAttempts != 7 || c.Restart.FixedDelay != 2*time.Second {
		t.Fatalf("restart config: %+v", c.Restart)
	}
	c, err = jobconfig.ParseConfig(map[string]string{"execution.checkpointing.interval": "1s"})
	if err != nil || c.EffectiveStrategy() != jobconfig.RestartExponentialDelay {
		t.Fatalf("default strategy with checkpointing: %v %v", c.EffectiveStrategy(), err)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]string
		key  string
		want string
	}{
		{map[string]string{"execution.checkpointing.interval": "soon"}, "execution.checkpointing.interval", "number"},
		{map[string]string{"execution.checkpointing.interval": "5 fortnights"}, "execution.checkpointing.interval", "unit"},
		{map[string]string{"execution.checkpointing.mode": "MAYBE"}, "execution.checkpointing.mode", "EXACTLY_ONCE"},
		{map[string]string{"execution.checkpointing.intervall": "5s"}, "execution.checkpointing.intervall", "did you mean 'execution.checkpointing.interval'"},
		{map[string]string{"execution.checkpointing.max-concurrent-checkpoints": "0"}, "execution.checkpointing.max-concurrent-checkpoints", "at least 1"},
		{map[string]string{"execution.checkpointing.dir": "gs://bucket/x"}, "execution.checkpointing.dir", "not supported"},
		{map[string]string{"execution.checkpointing.dir": "s3://Bucket/x"}, "execution.checkpointing.dir", "lower-case"},
		{map[string]string{"s3.access-key": "AKIA"}, "s3.access-key", "go together"},
		{map[string]string{"s3.endpoint": "ftp://h"}, "s3.endpoint", "http://host"},
		{map[string]string{"s3.path.style.access": "maybe"}, "s3.path.style.access", "true or false"},
		{map[string]string{"s3.endpoitn": "http://h"}, "s3.endpoitn", "did you mean 's3.endpoint'"},
		{map[string]string{"restart-strategy.type": "sometimes"}, "restart-strategy.type", "fixed-delay"},
		{map[string]string{"restart-strategy.type": "exponential-delay", "restart-strategy.exponential-delay.max-backoff": "10ms",
			"restart-strategy.exponential-delay.initial-backoff": "1s"}, "restart-strategy.exponential-delay.max-backoff", "initial-backoff (1s)"},
	} {
		_, err := jobconfig.ParseConfig(tc.opts)
		var ce *jobconfig.ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v; want a ConfigError for %s mentioning %q", tc.opts, err, tc.key, tc.want)
		}
	}
}

// TestParseConfigTrimsValues: values are read without surrounding spaces,
// the directory too, as before the settings were option declarations.
func TestParseConfigTrimsValues(t *testing.T) {
	c, err := jobconfig.ParseConfig(map[string]string{"execution.checkpointing.dir": " /tmp/ck ",
		"execution.checkpointing.mode": " at_least_once ", "execution.checkpointing.num-retained": " 2 "})
	if err != nil {
		t.Fatal(err)
	}
	if c.Checkpoint.Dir != "/tmp/ck" || c.Checkpoint.Mode != jobconfig.AtLeastOnce || c.Checkpoint.NumRetained != 2 {
		t.Fatalf("checkpoint config %+v", c.Checkpoint)
	}
}
