package ckptpath

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefault: XDG_STATE_HOME when it is an absolute path (the XDG rule:
// a relative one is ignored), else ~/.local/state; an error naming both
// when neither is known.
func TestDefault(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "XDG_STATE_HOME" {
				return v
			}
			return ""
		}
	}
	home := func(h string, err error) func() (string, error) { return func() (string, error) { return h, err } }
	for _, c := range []struct {
		xdg, home string
		homeErr   error
		want      string
	}{
		{xdg: "/s", home: "/h", want: "/s/streamsql/checkpoints"},
		{xdg: "", home: "/h", want: "/h/.local/state/streamsql/checkpoints"},
		{xdg: "rel/s", home: "/h", want: "/h/.local/state/streamsql/checkpoints"},
		{xdg: "", home: "", homeErr: errors.New("$HOME is not defined")},
		{xdg: "rel", home: ""},
	} {
		got, err := defaultDir(env(c.xdg), home(c.home, c.homeErr))
		if c.want == "" {
			if err == nil || !strings.Contains(err.Error(), "neither XDG_STATE_HOME") {
				t.Errorf("%+v: %q, %v; want an error", c, got, err)
			}
			continue
		}
		if err != nil || got != filepath.FromSlash(c.want) {
			t.Errorf("%+v: %q, %v; want %q", c, got, err, c.want)
		}
	}
}

// TestJobFolder: the job's name joined to the resolved base; a bad base or
// name is an error.
func TestJobFolder(t *testing.T) {
	if f, err := JobFolder("file:///var/lib/s", "j"); err != nil || f != filepath.FromSlash("/var/lib/s/j") {
		t.Errorf("JobFolder: %q, %v", f, err)
	}
	if _, err := JobFolder("/var/lib/s", "a/b"); err == nil {
		t.Error("JobFolder of a job name with a slash succeeded")
	}
	if _, err := JobFolder("hdfs:///x", "j"); err == nil {
		t.Error("JobFolder of an hdfs:// base succeeded")
	}
}

// TestResolve: plain paths and file:// URIs name local folders; empty
// values, other schemes and file URIs with a host do not; names that
// cannot be a folder are refused.
func TestResolve(t *testing.T) {
	for in, want := range map[string]string{"/a/b": "/a/b", "file:///a/b/": "/a/b", "file:/a": "/a", "rel/x": "rel/x"} {
		if got, err := Resolve(in); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "s3://b/x", "file://host/x", "hdfs:///x"} {
		if _, err := Resolve(in); err == nil {
			t.Errorf("Resolve(%q) succeeded", in)
		}
	}
	for _, job := range []string{"", ".", "..", "a/b", "a\\b"} {
		if ValidJobName(job) == nil {
			t.Errorf("job name %q accepted", job)
		}
	}
}

// TestCheck: local paths, file:// and well-formed s3:// URIs pass; a bad
// bucket name and an unknown scheme fail, the latter naming what is
// supported.
func TestCheck(t *testing.T) {
	for _, ok := range []string{"/a/b", "rel", "file:///a", "s3://bucket/x", "s3a://bucket/x"} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%q): %v", ok, err)
		}
	}
	if err := Check("s3://Bad_Bucket/x"); err == nil {
		t.Error("Check of a bad bucket name succeeded")
	}
	if err := Check("hdfs:///x"); err == nil || !strings.Contains(err.Error(), "s3://") {
		t.Errorf("Check of hdfs:///x: %v; want an error naming the supported schemes", err)
	}
	if err := Check("file://host/x"); err == nil {
		t.Error("Check of a file URI with a host succeeded")
	}
}
