package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DefaultDir returns the per-user folder a job's checkpoints go to when
// execution.checkpointing.dir is not set (the planner decides which jobs
// take it): $XDG_STATE_HOME/streamsql/checkpoints when XDG_STATE_HOME is
// an absolute path, else ~/.local/state/streamsql/checkpoints, the XDG
// Base Directory rule for state that outlives a process but is no user
// document. Each job writes the folder named after it inside. It is an
// error when neither XDG_STATE_HOME nor a home directory is known.
func DefaultDir() (string, error) { return defaultDir(os.Getenv, os.UserHomeDir) }

func defaultDir(getenv func(string) string, home func() (string, error)) (string, error) {
	if s := getenv("XDG_STATE_HOME"); s != "" && filepath.IsAbs(s) {
		return filepath.Join(s, "streamsql", "checkpoints"), nil
	}
	h, err := home()
	if err == nil && h == "" {
		err = errors.New("empty home directory")
	}
	if err != nil {
		return "", fmt.Errorf("neither XDG_STATE_HOME (an absolute path) nor a home directory is known (%w)", err)
	}
	return filepath.Join(h, ".local", "state", "streamsql", "checkpoints"), nil
}

// JobFolder returns the folder of job's checkpoints under base (a plain
// path or file:// URI), as OpenDir would use it, without creating it.
func JobFolder(base, job string) (string, error) {
	root, err := ResolveDir(base)
	if err != nil {
		return "", err
	}
	if err := ValidJobName(job); err != nil {
		return "", err
	}
	return filepath.Join(root, job), nil
}
