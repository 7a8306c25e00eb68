package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestNexmarkLoadUsage checks that `nexmark load` refuses a command line
// without its required flags or with a bad option, with exit code 2 and a
// message naming what is wrong, before connecting anywhere. (Loading
// itself is tested against a real broker in connectors/nexmark/nexmarkload.)
func TestNexmarkLoadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nexmark", "load", "--topic", "t", "--events", "5"}, "--bootstrap-servers"},
		{[]string{"nexmark", "load", "--bootstrap-servers", "127.0.0.1:1", "--topic", "t"}, "--events"},
		{[]string{"nexmark", "load", "--bootstrap-servers", "127.0.0.1:1", "--topic", "t", "--events", "5", "--option", "first-event.rate=0"}, "first-event.rate"},
		{[]string{"nexmark", "load", "--bootstrap-servers", "127.0.0.1:1", "--topic", "t", "--events", "5", "--option", "seeds=1"}, "seed"},
		{[]string{"nexmark", "load", "--bootstrap-servers", "127.0.0.1:1", "--topic", "t", "--events", "5", "--option", "seed"}, "key=value"},
	} {
		var out, errOut bytes.Buffer
		if code := run(tc.args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and a message naming %s", tc.args, code, errOut.String(), exitUsage, tc.want)
		}
	}
}
