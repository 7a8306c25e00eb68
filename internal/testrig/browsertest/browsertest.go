// Package browsertest loads a web page in a real headless browser
// (Debian's chromium) for tests: DumpDOM returns the page's DOM after its
// scripts have run. A test that calls it fails under CI=true when the
// browser is missing (.ci/run installs it) and is skipped otherwise.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Browser returns the path of the headless-capable browser, failing t
// under CI=true when there is none and skipping t otherwise.
func Browser(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const how = "this test needs a headless browser: apt-get install -y chromium (as .ci/run does)"
	if os.Getenv("CI") == "true" {
		t.Fatal(how)
	}
	t.Skip(how)
	return ""
}

// DumpDOM loads url in a headless browser, lets the page's scripts run
// for virtual time (timers fire, fetches complete) and returns the DOM as
// it then is. A browser that fails or runs past two minutes fails t.
func DumpDOM(t testing.TB, browser, url string, virtual time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir="+t.TempDir(),
		"--virtual-time-budget="+strconv.FormatInt(virtual.Milliseconds(), 10), "--dump-dom", url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, stderr.String())
	}
	return string(out)
}
