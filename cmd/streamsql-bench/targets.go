package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// target is one line of the targets table (issue 20): a figure of
// streamsql's, the reference it is held against and whether it is met.
type target struct {
	Name   string
	Figure string
	Met    string // "yes", "no" or "–" (not measured in this run)
}

// targets evaluates the targets on the results of one run.
// A target whose scenarios did not run (or whose figure is 0) is "–".
func targets(results []Result) []target {
	by := map[string]Result{}
	for _, r := range results {
		by[r.Scenario] = r
	}
	get := func(names ...string) ([]Result, bool) {
		var rs []Result
		for _, n := range names {
			r, ok := by[n]
			if !ok {
				return nil, false
			}
			rs = append(rs, r)
		}
		return rs, true
	}
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "no"
	}
	var ts []target
	ratio := func(name, s, ref string, min float64) {
		t := target{Name: name, Met: "–"}
		if rs, ok := get(s, ref); ok && rs[1].RecordsPerSec > 0 {
			x := rs[0].RecordsPerSec / rs[1].RecordsPerSec
			t.Figure = fmt.Sprintf("%.2f× (%.0f / %.0f records/s)", x, rs[0].RecordsPerSec, rs[1].RecordsPerSec)
			t.Met = yes(x >= min)
		}
		ts = append(ts, t)
	}
	ratio("ALO filter+projection ≥ 0.8× raw copy records/s", scenarioALO, scenarioRawALO, 0.8)
	ratio("EO, 1 s checkpoints ≥ 0.7× transactional raw copy", scenarioEO, scenarioRawTxn, 0.7)
	cpu := func(name, s, ref string) {
		t := target{Name: name, Met: "–"}
		if rs, ok := get(s, ref); ok && rs[1].CPUSecPerMillon > 0 {
			x := rs[0].CPUSecPerMillon / rs[1].CPUSecPerMillon
			t.Figure = fmt.Sprintf("%.2f× (%.2f / %.2f CPU s per M records)", x, rs[0].CPUSecPerMillon, rs[1].CPUSecPerMillon)
			t.Met = yes(x <= 1.6)
		}
		ts = append(ts, t)
	}
	cpu("CPU per record ≤ 1.6× raw copy's (ALO)", scenarioALO, scenarioRawALO)
	cpu("CPU per record ≤ 1.6× raw copy's (EO vs transactional)", scenarioEO, scenarioRawTxn)

	// Peak RSS and start→first hold for every streamsql scenario of the run.
	var rss, start []string
	rssOK, startOK, any := true, true, false
	for _, r := range results {
		if !strings.HasPrefix(r.Scenario, "streamsql-") {
			continue
		}
		any = true
		rss = append(rss, fmt.Sprintf("%s %.0f", strings.TrimPrefix(r.Scenario, "streamsql-"), r.PeakRSSMB))
		start = append(start, fmt.Sprintf("%s %.0f", strings.TrimPrefix(r.Scenario, "streamsql-"), r.StartToFirstMS))
		rssOK = rssOK && r.PeakRSSMB <= 50
		startOK = startOK && r.StartToFirstMS < 150
	}
	t := target{Name: "peak RSS ≤ 50 MB (every streamsql scenario)", Met: "–"}
	u := target{Name: "start → first output < 150 ms (every streamsql scenario)", Met: "–"}
	if any {
		t.Figure, t.Met = strings.Join(rss, ", ")+" MB", yes(rssOK)
		u.Figure, u.Met = strings.Join(start, ", ")+" ms", yes(startOK)
	}
	ts = append(ts, t, u)

	lat := func(name, s, ref string) {
		t := target{Name: name, Met: "–"}
		if rs, ok := get(s, ref); ok && rs[0].LatencyP99MS > 0 && rs[1].LatencyP99MS > 0 {
			t.Figure = fmt.Sprintf("%.1f ms vs %.1f ms (median of %d runs, %d CPU hogs)", rs[0].LatencyP99MS, rs[1].LatencyP99MS, max(1, len(rs[0].LatencyRuns)), rs[0].Hogs)
			t.Met = yes(rs[0].LatencyP99MS <= rs[1].LatencyP99MS)
		}
		ts = append(ts, t)
	}
	lat("p99 latency ≤ fastjson pipe's, ALO", scenarioALO, scenarioFastALO)
	lat("p99 latency ≤ fastjson pipe's, EO (1 s commits)", scenarioEO, scenarioFastTxn)
	return ts
}

// printTargets writes the targets table.
func printTargets(w io.Writer, results []Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tfigure\tmet?")
	for _, t := range targets(results) {
		fig := t.Figure
		if fig == "" {
			fig = "not measured"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, fig, t.Met)
	}
	tw.Flush()
}
