package runtime

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestRecentLog keeps the latest warnings and errors, with their
// attributes, while the wrapped handler still gets what it enables.
func TestRecentLog(t *testing.T) {
	var out bytes.Buffer
	var rl recentLog
	log := slog.New(&recentHandler{inner: slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelError}), log: &rl}).
		With("job", "j", "source", "p/k")
	log.Info("not kept")
	log.WithGroup("g").Warn("first", "n", 1)
	for i := range RecentLogSize + 2 {
		log.Error("failure", "i", i)
	}
	got := rl.entries()
	if len(got) != RecentLogSize {
		t.Fatalf("%d entries, want %d", len(got), RecentLogSize)
	}
	if got[0].Attrs != "source=p/k i=2" || got[len(got)-1].Attrs != fmt.Sprintf("source=p/k i=%d", RecentLogSize+1) ||
		got[0].Level != slog.LevelError || got[0].Message != "failure" || got[0].Time.IsZero() {
		t.Errorf("entries %+v ... %+v", got[0], got[len(got)-1])
	}
	if s := out.String(); strings.Contains(s, "first") || strings.Contains(s, "not kept") || strings.Count(s, "failure") != RecentLogSize+2 {
		t.Errorf("the wrapped handler got:\n%s", s)
	}
	var rl2 recentLog
	slog.New(&recentHandler{inner: slog.DiscardHandler, log: &rl2}).With("source", "p/k").WithGroup("g").Warn("first", "n", 1)
	if got := rl2.entries(); len(got) != 1 || got[0].Attrs != "source=p/k g.n=1" || got[0].Level != slog.LevelWarn {
		t.Errorf("grouped warning kept as %+v", got)
	}
}
