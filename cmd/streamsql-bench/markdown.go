package main

import (
	"fmt"
	"io"
	"strings"
)

// writeMarkdown writes the figures of one run of the throughput suite as
// Markdown tables for BENCHMARKS.md (-md FILE): the scenarios, then the
// targets (scripts/bench-record.sh puts them between the file's markers).
func writeMarkdown(w io.Writer, results []Result) {
	ratio := func(x float64) string {
		if x == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", x)
	}
	fmt.Fprintln(w, "| scenario | records/s | ×raw | ×fastjson | CPU s/M | CPU ×raw | peak RSS MB | start→first ms | p99 ms (runs) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		name := r.Scenario
		if strings.HasPrefix(name, "streamsql-") {
			name = "**" + name + "**"
		}
		p99 := "–"
		if r.LatencyP99MS > 0 {
			p99 = fmt.Sprintf("%.0f (%s)", r.LatencyP99MS, latencyRuns(r.LatencyRuns))
		}
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %.2f | %s | %.0f | %.0f | %s |\n", name, r.RecordsPerSec,
			ratio(r.RatioRaw), ratio(r.RatioFastJSON), r.CPUSecPerMillon, ratio(r.CPURatioRaw), r.PeakRSSMB, r.StartToFirstMS, p99)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | figure | met? |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, t := range targets(results) {
		fig := t.Figure
		if fig == "" {
			fig = "not measured"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", t.Name, fig, t.Met)
	}
}
