package factory

import (
	"context"
	"log/slog"
)

// loggerKey keys the job's logger in a context.
type loggerKey struct{}

// WithLogger returns ctx carrying log, the job's logger: the sources and
// sinks that NewSource and NewSink create with ctx get it as
// Context.Logger, for their own messages (package job passes the
// embedder's Options.Logger, through the job's log).
func WithLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, log)
}

// loggerFrom returns the logger WithLogger put in ctx, else
// slog.Default().
func loggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	return slog.Default()
}
