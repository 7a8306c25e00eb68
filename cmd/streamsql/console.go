package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
)

// isTerminal reports whether the status line should be drawn: forced by
// tests, else whether standard error is a character device (and TERM is
// not "dumb").
func (e *env) isTerminal() bool {
	switch {
	case e.terminal > 0:
		return true
	case e.terminal < 0:
		return false
	}
	return isTerminalWriter(e.stderr) && os.Getenv("TERM") != "dumb"
}

// isTerminalWriter reports whether w is a file on a character device.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// console is standard error shared by logs and, on a terminal, a status
// line that every other write clears first and redraws after.
type console struct {
	mu     sync.Mutex
	w      io.Writer
	term   bool
	status string
}

func newConsole(w io.Writer, term bool) *console { return &console{w: w, term: term} }

// Write writes p above the status line.
func (c *console) Write(p []byte) (int, error) {
	return c.writeTo(c.w, p)
}

func (c *console) writeTo(w io.Writer, p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.term && c.status != "" {
		io.WriteString(c.w, "\r\033[K")
	}
	n, err := w.Write(p)
	if c.term && c.status != "" {
		io.WriteString(c.w, c.status)
	}
	return n, err
}

// setStatus replaces the status line (terminal only).
func (c *console) setStatus(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status = s
	io.WriteString(c.w, "\r\033[K"+s)
}

// clearStatus removes the status line.
func (c *console) clearStatus() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.status != "" {
		io.WriteString(c.w, "\r\033[K")
		c.status = ""
	}
}

// other returns a writer for another stream on the same terminal
// (standard output) that keeps the status line below its output.
func (c *console) other(w io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) { return c.writeTo(w, p) })
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// handler returns the slog handler of the run: text or JSON on standard
// error (above the status line on a terminal, which shows the last
// checkpoint instead of a line per checkpoint).
func (c *console) handler(format string) slog.Handler {
	var h slog.Handler = slog.NewTextHandler(c, nil)
	if format == "json" {
		h = slog.NewJSONHandler(c, nil)
	}
	if c.term {
		h = statusLineHandler{h}
	}
	return h
}

// statusLineHandler leaves out the records the status line shows.
type statusLineHandler struct{ slog.Handler }

func (h statusLineHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "checkpoint completed" {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h statusLineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return statusLineHandler{h.Handler.WithAttrs(as)}
}

func (h statusLineHandler) WithGroup(name string) slog.Handler {
	return statusLineHandler{h.Handler.WithGroup(name)}
}

// headerWriter writes header (set before the job runs) before the first
// write. It serialises the writes of several printing sinks (one per bare
// query).
type headerWriter struct {
	mu      sync.Mutex
	written bool
	w       io.Writer
	header  string
}

func (h *headerWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.written {
		h.written = true
		if _, err := io.WriteString(h.w, h.header); err != nil {
			return 0, err
		}
	}
	return h.w.Write(p)
}

// totals returns the rows read by sources and the records sinks
// delivered (acknowledged by the external system where the connector
// counts them: runtime.TaskStatus.RecordsOut).
func totals(st runtime.Status) (in, out int64) {
	for _, t := range st.Tasks {
		if t.Kind == runtime.SourceTask {
			in += t.RecordsIn
		} else {
			out += t.RecordsOut
		}
	}
	return in, out
}

// degradedText says which sinks cannot deliver, "" when all do.
func degradedText(st runtime.Status) string {
	var parts []string
	for _, d := range st.Degraded {
		parts = append(parts, fmt.Sprintf("sink %s: %s", d.Sink, d.Problem))
	}
	return strings.Join(parts, "; ")
}

// totalRows returns how many rows the job's sources will read when that
// is known in advance (VALUES, and sources whose connector says so, such
// as datagen with number-of-rows), else 0.
func totalRows(j *job.Job) int64 {
	var n int64
	for _, p := range j.Describe() {
		for _, src := range p.Sources {
			switch {
			case src.Connector == "values":
				n += int64(src.Rows)
			case src.BoundedRows > 0:
				n += src.BoundedRows
			default:
				return 0
			}
		}
	}
	return n
}

// monitor draws the status line on a terminal; otherwise it logs the
// job's progress periodically (the runtime logs each checkpoint as it
// completes), and at once when a sink starts or stops being degraded.
type monitor struct {
	done chan struct{}
	wg   sync.WaitGroup
}

func startMonitor(job runtime.Metrics, c *console, log *slog.Logger, term bool, every time.Duration, total int64) *monitor {
	if every <= 0 {
		every = 10 * time.Second
	}
	tick := min(every, time.Second)
	m := &monitor{done: make(chan struct{})}
	m.wg.Go(func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		var lastIn, lastOut int64
		lastDegraded := ""
		last := time.Now()
		lastLog := last
		for {
			select {
			case <-m.done:
				if term {
					c.clearStatus()
				}
				return
			case now := <-t.C:
				st := job.Status()
				in, out := totals(st)
				secs := now.Sub(last).Seconds()
				rin, rout := float64(in-lastIn)/secs, float64(out-lastOut)/secs
				lastIn, lastOut, last = in, out, now
				degraded := degradedText(st)
				if degraded != lastDegraded && !term {
					if degraded != "" {
						log.Warn("DEGRADED: a sink cannot deliver; its output waits", "degraded", degraded, "records_out", out)
					} else {
						log.Info("no sink is degraded any more")
					}
				}
				lastDegraded = degraded
				if term {
					c.setStatus(statusLine(st, now, rin, rout, in, total))
				} else if now.Sub(lastLog) >= every-time.Millisecond {
					lastLog = now
					attrs := []any{"state", string(st.State), "records_in", in, "records_out", out,
						"records_in_per_sec", int64(rin), "records_out_per_sec", int64(rout),
						"last_checkpoint", st.Checkpoints.LastID, "pending_commits", st.PendingCommits}
					if degraded != "" {
						attrs = append(attrs, "degraded", degraded)
					}
					log.Info("status", attrs...)
				}
			}
		}
	})
	return m
}

func (m *monitor) stop() {
	close(m.done)
	m.wg.Wait()
}

// statusLine is the terminal's status line.
func statusLine(st runtime.Status, now time.Time, rin, rout float64, in, total int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  in %.0f/s  out %.0f/s", st.State, rin, rout)
	if d := degradedText(st); d != "" {
		fmt.Fprintf(&b, "  DEGRADED (%s)", d)
	}
	if c := st.Checkpoints; c.LastID > 0 {
		fmt.Fprintf(&b, "  checkpoint %d (%s ago)", c.LastID, c.LastAge(now).Round(time.Second))
	} else {
		b.WriteString("  no checkpoint yet")
	}
	if st.PendingCommits > 0 {
		fmt.Fprintf(&b, "  pending commits %d (oldest %s)", st.PendingCommits, st.OldestPendingCommitAge.Round(time.Second))
	}
	if total > 0 {
		frac := min(float64(in)/float64(total), 1)
		const width = 20
		done := int(frac * width)
		fmt.Fprintf(&b, "  [%s%s] %3.0f%%", strings.Repeat("#", done), strings.Repeat(".", width-done), frac*100)
	}
	return b.String()
}
