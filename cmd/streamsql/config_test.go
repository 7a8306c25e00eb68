package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/planner"
)

// TestKnownKeysIncludeDeprecatedNames checks that the deprecated names
// taken from jobconfig.Settings are the ones the CLI used to list by hand,
// so that the set of keys a configuration file may use is unchanged.
func TestKnownKeysIncludeDeprecatedNames(t *testing.T) {
	// (state.checkpoint-storage and state.backend.incremental were
	// ignored keys' older names before execution.checkpointing.storage and
	// execution.checkpointing.incremental became settings; state.backend
	// is state.backend.type's older name.)
	wasListed := []string{"state.checkpoints.dir", "state.checkpoints.num-retained",
		"state.backend.fs.checkpointdir", "restart-strategy", "state.checkpoint-storage",
		"state.backend.incremental", "state.backend"}
	var deprecated []string
	for _, s := range jobconfig.Settings() {
		deprecated = append(deprecated, s.Deprecated...)
	}
	got := slices.Sorted(slices.Values(deprecated))
	if !slices.Equal(got, slices.Sorted(slices.Values(wasListed))) {
		t.Fatalf("deprecated names = %v, want %v", got, wasListed)
	}
	plannerKeys := planner.SettingKeys()
	// The other names of the S3 client's settings (Flink's other S3 file systems).
	otherNames := []string{"s3.path-style-access", "s3.endpoint.region"}
	want := slices.Concat(jobconfig.Keys(), jobconfig.IgnoredKeys(), wasListed, plannerKeys, otherNames)
	slices.Sort(want)
	if !slices.Equal(knownKeys(), slices.Compact(want)) {
		t.Fatalf("knownKeys() = %v, want %v", knownKeys(), want)
	}
}

// TestLoadConfigDeprecatedNames loads a file that uses Flink's older
// names and one that misspells one.
func TestLoadConfigDeprecatedNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	text := "state:\n  checkpoints:\n    dir: " + filepath.Join(dir, "ck") + "\n    num-retained: 2\n" +
		"restart-strategy: fixed-delay\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := loadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["state.checkpoints.num-retained"] != "2" || got["restart-strategy"] != "fixed-delay" {
		t.Fatalf("loadConfig = %v", got)
	}

	if err := os.WriteFile(path, []byte("state.checkpoints.num-retaind: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = loadConfig(path)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "state.checkpoints.num-retaind" {
		t.Fatalf("loadConfig with a misspelt key: %v", err)
	}
}
