package main

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/internal/errlist"
	"github.com/streamsql/streamsql/jobconfig"
)

// FuzzConfigFile feeds the YAML configuration file loader (--config)
// fuzzed file contents. No content panics; the loader returns options or
// an error, never both; every error is a *ConfigError naming the file
// (and the key, when there is one) and is the same on a second call;
// loaded options are known keys whose runtime settings parse. Run it with
//
//	go test -run '^$' -fuzz FuzzConfigFile -fuzztime 3m -parallel 1 ./cmd/streamsql
func FuzzConfigFile(f *testing.F) {
	for _, s := range []string{
		"",
		"# nothing\n",
		"~\n",
		"pipeline:\n  name: from-config\nexecution.checkpointing:\n  interval: 7s\n  timeout: 3 min\n",
		"state:\n  checkpoints:\n    dir: /tmp/ck\n    num-retained: 2\nrestart-strategy: fixed-delay\n",
		"execution.checkpointing.intervl: 5s\n",
		"execution:\n  checkpointing:\n    mode: EXACTLY_TWICE\n",
		"restart-strategy.type: [a, b]\n",
		"- a\n",
		"a: [\n",
		"execution.checkpointing.interval: 5s\nexecution:\n  checkpointing:\n    interval: 6s\n",
		"execution.checkpointing.interval: \n",
		"base: &b {interval: 5s}\nexecution.checkpointing: *b\n",
		"execution.checkpointing:\n  <<: {interval: 5s}\n",
		"? [a, b]\n: c\n",
		"!!binary execution.checkpointing.interval: aGVsbG8=\n",
		"execution.checkpointing.interval: !!int 5\n",
		"{execution.checkpointing.interval: 5s, restart-strategy.type: none}\n",
		"execution.checkpointing.interval: 5s\n---\npipeline.name: second\n",
		"table.local-time-zone: \"Europe/Paris\"\npipeline.name: 'a: b'\n",
		"restart-strategy:\n  type: exponential-delay\n  exponential-delay:\n    initial-backoff: 2 min\n    max-backoff: 1 min\n",
		"execution.checkpointing.dir: file://host/x\n",
		"\"\": 1\n",
		"a:\n  b:\n    c:\n      d:\n        e: 1\n",
		"\t- x\n",
		"\xef\xbb\xbfpipeline.name: bom\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<14 {
			return
		}
		const path = "fuzz.yaml"
		out, err := parseConfig(path, []byte(text))
		_, err2 := parseConfig(path, []byte(text))
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("parseConfig(%q) differs between calls: %v / %v", text, err, err2)
		}
		if err != nil {
			if out != nil {
				t.Fatalf("parseConfig(%q) returned options and an error: %v", text, err)
			}
			for _, e := range errlist.Flatten(err) {
				var ce *ConfigError
				if !errors.As(e, &ce) {
					t.Fatalf("parseConfig(%q): error %T is not a *ConfigError: %v", text, e, e)
				}
				if ce.File != path || ce.Reason == "" || !strings.HasPrefix(ce.Error(), path+": ") {
					t.Fatalf("parseConfig(%q): error %#v", text, ce)
				}
				if ce.Key != "" && !strings.Contains(ce.Error(), "'"+ce.Key+"'") {
					t.Fatalf("parseConfig(%q): error does not name its key: %#v", text, ce)
				}
			}
			return
		}
		if out == nil {
			t.Fatalf("parseConfig(%q) returned neither options nor an error", text)
		}
		known := knownKeys()
		for k := range out {
			if !slices.Contains(known, k) {
				t.Fatalf("parseConfig(%q) accepted unknown key %q", text, k)
			}
		}
		if _, err := jobconfig.ParseConfig(out); err != nil {
			t.Fatalf("parseConfig(%q) accepted %q, which the runtime rejects: %v", text, out, err)
		}
	})
}
