// Package ckptpath holds what the setting execution.checkpointing.dir and
// a job's name mean as places: which names a job may have, the local
// folder a plain path or file:// URI names, the per-user default folder,
// and a job's folder under a base. It touches no file: the planner, the
// job settings and the checkpoint storage (runtime/checkpoint) read the
// setting the same way through it.
package ckptpath

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/streamsql/streamsql/internal/s3fs"
)

// ValidJobName reports an error when job cannot name a checkpoint folder.
func ValidJobName(job string) error {
	switch {
	case job == "":
		return errors.New("job name is empty")
	case job == "." || job == "..":
		return fmt.Errorf("job name %q cannot name a directory", job)
	case strings.ContainsAny(job, `/\`+"\x00"):
		return fmt.Errorf("job name %q must not contain / or \\", job)
	}
	return nil
}

// Resolve turns the value of execution.checkpointing.dir (a plain path
// or a file:// URI) into a local directory path.
func Resolve(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("checkpoint directory is empty")
	}
	if i := strings.Index(dir, "://"); i > 0 || strings.HasPrefix(dir, "file:") {
		u, err := url.Parse(dir)
		if err != nil {
			return "", fmt.Errorf("checkpoint directory %q: %w", dir, err)
		}
		if u.Scheme != "file" {
			return "", fmt.Errorf("checkpoint directory %q: scheme %q is not supported; use a local path or a file:// URI", dir, u.Scheme)
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", fmt.Errorf("checkpoint directory %q: file URIs must not name a host (use file:///path)", dir)
		}
		p := u.Path
		if p == "" {
			p = u.Opaque
		}
		if p == "" {
			return "", fmt.Errorf("checkpoint directory %q has no path", dir)
		}
		return filepath.Clean(p), nil
	}
	return filepath.Clean(dir), nil
}

// Check reports an error when dir (execution.checkpointing.dir) cannot
// name a checkpoint location: a local path, a file:// URI or an s3:// (or
// s3a://) URI. It looks at the text only; whether the program links the
// object storage in (runtime/checkpoint/s3store) is checked when the
// storage is opened.
func Check(dir string) error {
	if s3fs.IsURI(dir) {
		_, err := s3fs.ParseURI(dir)
		return err
	}
	if name, _, found := strings.Cut(dir, "://"); found && name != "" && !strings.EqualFold(name, "file") {
		return fmt.Errorf("checkpoint directory %q: scheme %q is not supported; use a local path, a file:// URI or an s3:// URI",
			dir, name)
	}
	_, err := Resolve(dir)
	return err
}

// Default returns the per-user folder a job's checkpoints go to when
// execution.checkpointing.dir is not set (the planner decides which jobs
// take it): $XDG_STATE_HOME/streamsql/checkpoints when XDG_STATE_HOME is
// an absolute path, else ~/.local/state/streamsql/checkpoints, the XDG
// Base Directory rule for state that outlives a process but is no user
// document. Each job writes the folder named after it inside. It is an
// error when neither XDG_STATE_HOME nor a home directory is known.
func Default() (string, error) { return defaultDir(os.Getenv, os.UserHomeDir) }

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
// path or file:// URI), as the checkpoint storage uses it, without
// creating it.
func JobFolder(base, job string) (string, error) {
	root, err := Resolve(base)
	if err != nil {
		return "", err
	}
	if err := ValidJobName(job); err != nil {
		return "", err
	}
	return filepath.Join(root, job), nil
}
