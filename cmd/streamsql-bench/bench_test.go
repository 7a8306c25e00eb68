package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestMain lets the test binary serve as the benchmark's pipe child.
func TestMain(m *testing.M) {
	if os.Getenv(envHog) == "1" {
		_ = hogMain()
	}
	if os.Getenv(envNexmark) == "1" {
		os.Exit(nexmarkChildMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv(envPipe) == "1" {
		if err := pipeMain(context.Background(), os.Args[1:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBenchSmoke runs a reduced benchmark end to end on the real broker:
// the reference pipes (raw copy and fastjson, at least once and
// transactional), the default encoding/json baselines and streamsql's four
// modes (at-least-once with and without checkpoints, exactly-once,
// upsert-kafka), with one CPU hog during the latency runs. It checks that
// every pipe consumed every record and produced exactly the records that
// pass the filter (every record for the raw copy; runAll fails otherwise,
// for the latency run too), that every figure and ratio was measured and
// that the targets table has a figure for every target; it asserts nothing
// about speed.
func TestBenchSmoke(t *testing.T) {
	b := kafkatest.Require(t)
	o := options{bootstrap: b.Addr, records: 5000, partitions: 3, runs: 1, latencyRate: 1000, latencySeconds: 2, latencyRuns: 1, hogs: 1}
	results, err := runAll(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var streamsql, refs, optional int
	for _, sc := range scenarios {
		if sc.Optional {
			optional++
		}
	}
	for _, r := range results {
		if strings.HasPrefix(r.Scenario, "streamsql-") {
			streamsql++
		}
		if sc, _ := scenarioByName(r.Scenario); sc.Reference != "" {
			refs++
		}
	}
	if len(results) != len(scenarios)-optional || streamsql != 4 || refs != 4 {
		t.Fatalf("%d results (%d streamsql, %d reference) for %d scenarios, %d optional", len(results), streamsql, refs, len(scenarios), optional)
	}
	var passing int64
	for i := range o.records {
		if makeRecord(i, zeroTime).passes() {
			passing++
		}
	}
	for _, r := range results {
		want := passing
		if sc, _ := scenarioByName(r.Scenario); sc.CopiesAll {
			want = o.records
		}
		if r.RecordsOut != want {
			t.Errorf("%s produced %d records, want %d", r.Scenario, r.RecordsOut, want)
		}
		if r.RecordsPerSec <= 0 || r.PeakRSSMB <= 0 || r.CPUSecPerMillon <= 0 || r.LatencyP99MS <= 0 || r.RatioDefault <= 0 ||
			r.RatioRaw <= 0 || r.RatioFastJSON <= 0 || r.CPURatioRaw <= 0 || r.StartToFirstMS <= 0 || r.Hogs != 1 ||
			len(r.LatencyRuns) != 1 || r.LatencyRuns[0].P99MS != r.LatencyP99MS {
			t.Errorf("%s: a figure was not measured: %+v", r.Scenario, r)
		}
		if strings.HasSuffix(r.Scenario, "-ckpt1s") && r.CheckpointP99MS <= 0 {
			t.Errorf("%s: no checkpoint duration measured: %+v", r.Scenario, r)
		}
		// streamsql's start-up phases: every one measured, none negative
		// (the child's and the parent's clocks agree), and together they
		// cover exec to the first output record of the run.
		if sc, _ := scenarioByName(r.Scenario); sc.mode.guarantee != "" {
			if len(r.StartPhases) != len(phaseNames) {
				t.Errorf("%s: start-up phases %+v, want %d", r.Scenario, r.StartPhases, len(phaseNames))
			}
			sum := 0.0
			for _, p := range r.StartPhases {
				if p.MedianMS < 0 {
					t.Errorf("%s: start-up phase %q took %.1f ms", r.Scenario, p.Phase, p.MedianMS)
				}
				sum += p.MedianMS
			}
			if sum <= 0 || math.Abs(sum-r.StartToFirstMS) > 0.5 {
				t.Errorf("%s: start-up phases add up to %.1f ms, start→first is %.1f ms (one run: they must agree)", r.Scenario, sum, r.StartToFirstMS)
			}
		} else if len(r.StartPhases) != 0 {
			t.Errorf("%s: start-up phases for a reference pipe: %+v", r.Scenario, r.StartPhases)
		}
	}
	for _, tg := range targets(results) {
		if tg.Figure == "" || tg.Met == "–" {
			t.Errorf("target %q has no figure", tg.Name)
		}
	}
	var md strings.Builder
	writeMarkdown(&md, results)
	scen, tgts, _ := strings.Cut(md.String(), "\n\n")
	if n := strings.Count(scen, "\n") + 1; n != 2+len(results) {
		t.Errorf("the Markdown scenario table has %d lines, want %d:\n%s", n, 2+len(results), md.String())
	}
	if n := strings.Count(strings.TrimSpace(tgts), "\n") + 1; n != 2+len(targets(results)) {
		t.Errorf("the Markdown targets table has %d lines, want %d:\n%s", n, 2+len(targets(results)), md.String())
	}
}

// TestTuneSmoke runs a one-step tuning sweep on the real broker: both
// candidates are measured (their runs check the counts) and one of them is
// returned.
func TestTuneSmoke(t *testing.T) {
	b := kafkatest.Require(t)
	o := options{bootstrap: b.Addr, records: 2000, partitions: 2, runs: 1}
	var log strings.Builder
	steps := []tuneStep{{"linger", []string{"linger=0s", "linger=10ms"}}}
	best, err := tune(context.Background(), o, steps, &log)
	if err != nil {
		t.Fatal(err)
	}
	if best.Linger != 0 && best.Linger != 10*time.Millisecond {
		t.Fatalf("tune returned %s, not one of the candidates", best)
	}
	if strings.Count(log.String(), "records/s") != 3 { // two candidates and the final line
		t.Fatalf("tune output:\n%s", log.String())
	}
}

// TestSettingsRoundTrip checks that parseSettings reads what String writes
// and names what it rejects.
func TestSettingsRoundTrip(t *testing.T) {
	for _, set := range []ClientSettings{defaultSettings, tunedSettings} {
		got, err := parseSettings(ClientSettings{}, set.String())
		if err != nil || got != set {
			t.Errorf("parseSettings(%q) = %+v, %v; want %+v", set.String(), got, err, set)
		}
	}
	for _, bad := range []string{"linger", "linger=soon", "compression=brotli", "buffered=-1", "colour=blue"} {
		if _, err := parseSettings(defaultSettings, bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("parseSettings(%q) = %v, want an error naming it", bad, err)
		}
	}
}

// TestQuantile pins the nearest-rank quantiles the report uses.
func TestQuantile(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{1, 2, 3}, 0.5, 2},
		{[]float64{1, 2, 3, 4}, 0.5, 2},
		{[]float64{5}, 0.99, 5},
		{[]float64{}, 0.5, 0},
	} {
		if got := quantile(c.xs, c.q); got != c.want {
			t.Errorf("quantile(%v, %v) = %v, want %v", c.xs, c.q, got, c.want)
		}
	}
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	if got := quantile(xs, 0.99); got != 990 {
		t.Errorf("p99 of 1..1000 = %v, want 990", got)
	}
	if got := median([]float64{191534, 106903, 112726}); got != 112726 {
		t.Errorf("median = %v, want 112726", got)
	}
}
