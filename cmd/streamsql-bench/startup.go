package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// processStart is when this process's main package was initialised: the
// first moment a child can name, close to its exec.
var processStart = time.Now()

// startPhases are the wall-clock times (unix nanoseconds) at which a
// streamsql child reached each step of its start-up. The child takes them
// from its own clock (the job's Status, polled every millisecond); the
// parent, on the same machine, turns them into durations from the moment
// it started the child and ends the last one at the moment its consumer
// saw the first output record.
type startPhases struct {
	Main      int64 `json:"main"`       // main package initialised
	Built     int64 `json:"built"`      // SQL parsed and planned (job.Compile returned)
	Running   int64 `json:"running"`    // sources, sinks and checkpoint storage built, checkpoint restored, sinks recovered, splits listed (StateRunning)
	FirstRead int64 `json:"first_read"` // a source task returned its first rows
	FirstSink int64 `json:"first_sink"` // a sink task was handed its first rows
}

// phaseNames name the steps between the times of startPhases, from the
// parent's exec to its consumer's first output record.
var phaseNames = []string{
	"exec→main",                    // process start, runtime and package init
	"plan",                         // parse and plan (job.Compile)
	"build+restore+recover+splits", // sources, sinks, checkpoint storage; restore/lock, committers, sink recovery, split listing
	"open+first read",              // readers and writers opened, first fetch and decode
	"to sink",                      // transform and hand-off to the sink task
	"produce+visible",              // first produce (writer, connection, linger) and the parent's consumer fetch
}

// durations returns the phases of one run in milliseconds, ending at
// first (the parent's first output record); nil when a time is missing.
// The child sees a step at its next 1 ms poll, later still on a busy
// machine: a step seen after the next one happened (the parent's consumer
// can see the first record before the child's poll sees it reach the
// sink) is taken to have happened with that one, so that no phase is
// negative and the phases add up to start→first.
func (p *startPhases) durations(started, first time.Time) []float64 {
	if p == nil || first.IsZero() {
		return nil
	}
	ts := []int64{started.UnixNano(), p.Main, p.Built, p.Running, p.FirstRead, p.FirstSink, first.UnixNano()}
	for i := len(ts) - 2; i >= 0; i-- {
		if ts[i] == 0 {
			return nil
		}
		ts[i] = min(ts[i], ts[i+1])
	}
	out := make([]float64, len(phaseNames))
	for i := range out {
		out[i] = float64(ts[i+1]-ts[i]) / 1e6
	}
	return out
}

// StartPhase is the median duration of one start-up step of a streamsql
// scenario over its runs (JSON).
type StartPhase struct {
	Phase    string  `json:"phase"`
	MedianMS float64 `json:"median_ms"`
}

// medianPhases returns the per-phase medians of runs (each as returned by
// durations), nil when no run has phases.
func medianPhases(runs [][]float64) []StartPhase {
	if len(runs) == 0 {
		return nil
	}
	out := make([]StartPhase, len(phaseNames))
	for i, name := range phaseNames {
		xs := make([]float64, len(runs))
		for j, r := range runs {
			xs[j] = r[i]
		}
		out[i] = StartPhase{Phase: name, MedianMS: median(xs)}
	}
	return out
}

// formatPhases writes one run's phases on a line.
func formatPhases(d []float64) string {
	s := ""
	for i, ms := range d {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %.0f", phaseNames[i], ms)
	}
	return s
}

// printPhases writes the median start-up phases of the scenarios that
// report them (streamsql's).
func printPhases(w io.Writer, results []Result) {
	if !slices.ContainsFunc(results, func(r Result) bool { return len(r.StartPhases) > 0 }) {
		return
	}
	fmt.Fprintln(w, "\nstart→first output by phase (median ms over the runs; the medians need not add up to start→first)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "scenario\t")
	for _, n := range phaseNames {
		fmt.Fprintf(tw, "%s\t", n)
	}
	fmt.Fprintln(tw, "start→first\t")
	for _, r := range results {
		if len(r.StartPhases) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t", r.Scenario)
		for _, p := range r.StartPhases {
			fmt.Fprintf(tw, "%.1f\t", p.MedianMS)
		}
		fmt.Fprintf(tw, "%.0f\t\n", r.StartToFirstMS)
	}
	tw.Flush()
}
