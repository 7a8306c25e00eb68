package checkpoint

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultDir: XDG_STATE_HOME when it is an absolute path (the XDG
// rule: a relative one is ignored), else ~/.local/state; an error naming
// both when neither is known.
func TestDefaultDir(t *testing.T) {
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
	if f, err := JobFolder("file:///var/lib/s", "j"); err != nil || f != filepath.FromSlash("/var/lib/s/j") {
		t.Errorf("JobFolder: %q, %v", f, err)
	}
}
