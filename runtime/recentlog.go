package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// RecentLogSize is how many of the latest warnings and errors
// Status.Recent keeps.
const RecentLogSize = 20

// LogEntry is one warning or error the job logged.
type LogEntry struct {
	Time    time.Time
	Level   slog.Level
	Message string
	// Attrs are the record's attributes as key=value text (the job's
	// name left out). Like the log itself they never hold an option
	// value of a table.
	Attrs string
}

// recentLog keeps the latest RecentLogSize entries.
type recentLog struct {
	mu   sync.Mutex
	ring []LogEntry
	next int // where the next entry goes once ring is full
}

func (r *recentLog) add(e LogEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ring) < RecentLogSize {
		r.ring = append(r.ring, e)
		return
	}
	r.ring[r.next] = e
	r.next = (r.next + 1) % RecentLogSize
}

// entries returns a copy, oldest first.
func (r *recentLog) entries() []LogEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]LogEntry, 0, len(r.ring))
	out = append(out, r.ring[r.next:]...)
	return append(out, r.ring[:r.next]...)
}

// recentHandler passes records to inner and keeps the warnings and errors
// in log.
type recentHandler struct {
	inner  slog.Handler
	log    *recentLog
	attrs  string // from WithAttrs, key=value text
	prefix string // from WithGroup
}

func (h *recentHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn || h.inner.Enabled(ctx, l)
}

func (h *recentHandler) Handle(ctx context.Context, rec slog.Record) error {
	if rec.Level >= slog.LevelWarn {
		var b strings.Builder
		b.WriteString(h.attrs)
		rec.Attrs(func(a slog.Attr) bool {
			appendAttr(&b, h.prefix, a)
			return true
		})
		h.log.add(LogEntry{Time: rec.Time, Level: rec.Level, Message: rec.Message, Attrs: b.String()})
	}
	if !h.inner.Enabled(ctx, rec.Level) {
		return nil
	}
	return h.inner.Handle(ctx, rec)
}

func (h *recentHandler) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range as {
		appendAttr(&b, h.prefix, a)
	}
	return &recentHandler{inner: h.inner.WithAttrs(as), log: h.log, attrs: b.String(), prefix: h.prefix}
}

func (h *recentHandler) WithGroup(name string) slog.Handler {
	return &recentHandler{inner: h.inner.WithGroup(name), log: h.log, attrs: h.attrs, prefix: h.prefix + name + "."}
}

// appendAttr writes " key=value" (the job's name is left out: the status
// names the job already).
func appendAttr(b *strings.Builder, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) || (prefix == "" && a.Key == "job") {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, g := range a.Value.Group() {
			appendAttr(b, prefix+a.Key+".", g)
		}
		return
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	fmt.Fprintf(b, "%s%s=%v", prefix, a.Key, a.Value.Any())
}
