package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/streamsql/streamsql/connector"
)

// Degradation is a sink that cannot deliver now: what its writers or its
// committer report (connector.HealthReporter, for Kafka the brokers that
// cannot be reached), seen for at least a second. The job goes on (its
// records wait, and fail after the sink's delivery timeout), so its
// state stays RUNNING: Status.Degraded says what is wrong.
type Degradation struct {
	// Sink is the sink's id.
	Sink string
	// Task is the index of the sink task whose writer reports it; -1 when
	// the sink's committer does.
	Task int
	// Problem is what the connector reports.
	Problem string
	// Since is when it was first seen.
	Since time.Time
}

func (s *statsState) setDegraded(d []Degradation) {
	s.mu.Lock()
	s.degraded = d
	s.mu.Unlock()
}

// publishHealth publishes the sinks the coordinator's health watch found
// unhealthy for at least a second (Status.Degraded).
func (c *coordinator) publishHealth(now time.Time) {
	var out []Degradation
	for _, s := range c.a.sinks {
		if st := c.health[s]; st != nil && now.Sub(st.since) >= time.Second {
			out = append(out, Degradation{Sink: s.id, Task: st.task, Problem: st.problem, Since: st.since})
		}
	}
	c.a.j.stats.setDegraded(out)
}

// stopTimeoutError is the cause of a graceful stop cut short: by
// jobconfig.Config.StopTimeout, or by the delivery timeout of a sink that cannot
// deliver.
type stopTimeoutError struct {
	after time.Duration
	why   string
}

func (e *stopTimeoutError) Error() string {
	return fmt.Sprintf("%v after %s%s", errStopTimeout, e.after, e.why)
}

func (e *stopTimeoutError) Unwrap() error { return errStopTimeout }

// boundStop runs from the moment a graceful stop is requested until done:
// it cancels the run (cause: a *stopTimeoutError) once the stop has taken
// jobconfig.Config.StopTimeout, or, when a sink cannot deliver (Status.Degraded),
// once it has taken that sink's delivery timeout
// (connector.DeliveryTimeouter) if that is shorter: its records fail by
// then, and the final checkpoint cannot complete without them. It warns
// at once which sink the stop waits for and how long at most.
func (a *attempt) boundStop(done <-chan struct{}, cancel context.CancelCauseFunc) {
	j := a.j
	start := time.Now()
	limit, why := j.spec.Config.StopTimeout, " (the stop timeout)"
	warned := map[string]bool{}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		j.stats.mu.Lock()
		degraded := j.stats.degraded
		j.stats.mu.Unlock()
		for _, d := range degraded {
			if warned[d.Sink] {
				continue
			}
			warned[d.Sink] = true
			wait := limit
			if dt := a.deliveryTimeout(d.Sink); dt > 0 && dt < limit {
				limit, wait = dt, dt
				why = fmt.Sprintf(": sink %q cannot deliver (%s), and its records fail after its delivery timeout (%s)", d.Sink, d.Problem, dt)
			}
			j.log.Warn("stopping: the final checkpoint waits for a sink that cannot deliver; send the signal again to stop at once",
				"sink", d.Sink, "problem", d.Problem, "waits_at_most", (wait - time.Since(start)).Round(time.Second))
		}
		if time.Since(start) >= limit {
			cancel(&stopTimeoutError{after: limit, why: why})
			return
		}
		select {
		case <-done:
			return
		case <-t.C:
		}
	}
}

// deliveryTimeout is the longest delivery timeout of sink's writers
// (connector.DeliveryTimeouter); 0 when none reports one.
func (a *attempt) deliveryTimeout(sink string) time.Duration {
	var d time.Duration
	for _, s := range a.sinks {
		if s.id != sink {
			continue
		}
		for _, w := range s.tasks {
			w.mu.Lock()
			dt := w.deliveryTimeout
			w.mu.Unlock()
			d = max(d, dt)
		}
	}
	return d
}

// stopTimedOut returns the error of a run whose graceful stop was cut
// short (cause wraps errStopTimeout).
func stopTimedOut(job string, cause error) error {
	var se *stopTimeoutError
	if errors.As(cause, &se) {
		return fmt.Errorf("job %q: %w; pending commits are left to recovery", job, se)
	}
	return fmt.Errorf("job %q: %w; pending commits are left to recovery", job, cause)
}

// writerCounters takes what an opened writer reports beside its rows:
// its deliveries and its delivery timeout (w.mu is held).
func (w *writerTail) writerCounters(wr connector.Writer) {
	w.delivered, _ = wr.(connector.DeliveryCounter)
	if dt, ok := wr.(connector.DeliveryTimeouter); ok {
		w.deliveryTimeout = dt.DeliveryTimeout()
	}
}
