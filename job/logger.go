package job

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// lateHandler is the handler of the logger a job's sources and sinks are
// created with (factory.WithLogger): it passes records to the
// embedder's logger (Options.Logger) until the runtime's job exists, then
// to the job's log, which adds the job's name and keeps warnings for
// Status.Recent — so a connector's warning (a Kafka topic waited for, a
// record skipped) is in the status like the runtime's own.
type lateHandler struct {
	first  slog.Handler
	target *atomic.Pointer[slog.Handler]
	// with replays WithAttrs and WithGroup on the target once it is set.
	with func(slog.Handler) slog.Handler
}

func newLateHandler(first slog.Handler) *lateHandler {
	return &lateHandler{first: first, target: new(atomic.Pointer[slog.Handler]), with: func(h slog.Handler) slog.Handler { return h }}
}

// set makes records go to h from now on.
func (l *lateHandler) set(h slog.Handler) { l.target.Store(&h) }

func (l *lateHandler) current() slog.Handler {
	if h := l.target.Load(); h != nil {
		return l.with(*h)
	}
	return l.with(l.first)
}

func (l *lateHandler) Enabled(ctx context.Context, lv slog.Level) bool {
	return l.current().Enabled(ctx, lv)
}

func (l *lateHandler) Handle(ctx context.Context, r slog.Record) error {
	return l.current().Handle(ctx, r)
}

func (l *lateHandler) WithAttrs(as []slog.Attr) slog.Handler {
	prev := l.with
	return &lateHandler{first: l.first, target: l.target, with: func(h slog.Handler) slog.Handler { return prev(h).WithAttrs(as) }}
}

func (l *lateHandler) WithGroup(name string) slog.Handler {
	prev := l.with
	return &lateHandler{first: l.first, target: l.target, with: func(h slog.Handler) slog.Handler { return prev(h).WithGroup(name) }}
}
