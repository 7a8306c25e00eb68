package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestFastJSONTransform checks the fastjson pipe's record work against
// encoding/json: the same records pass, and each output decodes to the
// same projection; NULLs, escapes and wrong types are handled.
func TestFastJSONTransform(t *testing.T) {
	xf := newFastJSONTransform()
	var s slab
	for i := range int64(2000) {
		in := sizedRecord(i, time.UnixMicro(1764633600123456), int(i%3)*500)
		in.User += "\"é\\\n\x01"
		b, _ := json.Marshal(in)
		v, keep, err := xf(&s, &kgo.Record{Value: b})
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if keep != in.passes() {
			t.Fatalf("record %d: keep %v, want %v", i, keep, in.passes())
		}
		if !keep {
			continue
		}
		var got sinkRecord
		if err := json.Unmarshal(v, &got); err != nil {
			t.Fatalf("record %d: output %s: %v", i, v, err)
		}
		want := sinkRecord{ID: in.ID, User: in.User, Amount: in.Amount, Country: in.Country, TS: in.TS}
		if got != want {
			t.Fatalf("record %d: got %+v, want %+v", i, got, want)
		}
	}
	v, keep, err := xf(&s, &kgo.Record{Value: []byte(`{"amount":150,"user":null,"ts":null}`)})
	if err != nil || !keep || string(v) != `{"id":null,"user":null,"amount":150,"country":null,"ts":null}` {
		t.Errorf("NULLs: %s, %v, %v", v, keep, err)
	}
	for _, bad := range []string{`{"amount":"x"}`, `{"id":1.5}`, `[1]`, `{"amount":`} {
		if _, _, err := xf(&s, &kgo.Record{Value: []byte(bad)}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestTargetsTable checks the verdicts of the targets table on made-up
// figures, one met and one missed for each kind of target.
func TestTargetsTable(t *testing.T) {
	rs := []Result{
		{Scenario: scenarioRawALO, RecordsPerSec: 1000, CPUSecPerMillon: 2, LatencyP99MS: 10, Hogs: 2},
		{Scenario: scenarioRawTxn, RecordsPerSec: 1000, CPUSecPerMillon: 2},
		{Scenario: scenarioFastALO, RecordsPerSec: 900, LatencyP99MS: 20, Hogs: 2},
		{Scenario: scenarioFastTxn, RecordsPerSec: 900, LatencyP99MS: 1000, Hogs: 2},
		{Scenario: scenarioALO, RecordsPerSec: 800, CPUSecPerMillon: 3.2, PeakRSSMB: 50, StartToFirstMS: 149, LatencyP99MS: 20, Hogs: 2},
		{Scenario: scenarioEO, RecordsPerSec: 690, CPUSecPerMillon: 3.3, PeakRSSMB: 51, StartToFirstMS: 100, LatencyP99MS: 1001, Hogs: 2},
	}
	want := []string{"yes", "no", "yes", "no", "no", "yes", "yes", "no"}
	got := targets(rs)
	if len(got) != len(want) {
		t.Fatalf("%d targets, want %d", len(got), len(want))
	}
	for i, tg := range got {
		if tg.Met != want[i] || tg.Figure == "" {
			t.Errorf("%s: %q met %q, want %q", tg.Name, tg.Figure, tg.Met, want[i])
		}
	}
	if got := targets(rs[:1]); got[0].Met != "–" || got[5].Met != "–" {
		t.Errorf("targets without streamsql's figures: %+v", got)
	}
}

// TestLatencyMedian checks that a scenario's reported p50 and p99 are the
// medians of its latency runs' figures, each taken on its own, and that
// the text table keeps every run's p99.
func TestLatencyMedian(t *testing.T) {
	r := Result{Scenario: scenarioALO, LatencyRuns: []LatencyRun{{P50MS: 12, P99MS: 900}, {P50MS: 10, P99MS: 30}, {P50MS: 11, P99MS: 60}}}
	r.summarizeLatency()
	if r.LatencyP50MS != 11 || r.LatencyP99MS != 60 {
		t.Errorf("p50 %.0f, p99 %.0f; want the medians 11 and 60", r.LatencyP50MS, r.LatencyP99MS)
	}
	var b strings.Builder
	printTable(&b, []Result{r})
	if !strings.Contains(b.String(), "900/30/60") {
		t.Errorf("the table lacks the per-run p99s:\n%s", b.String())
	}
}

// TestScalingSmoke runs two points of the scaling sweep at a tiny size on
// the real broker, under -taskset 0: 1 KB payloads (raw copy, fastjson and
// streamsql)
// and two pipelines in one job (a statement set: streamsql reading the
// source once into two sinks). The throughput runs check the counts; this
// checks that every figure was measured.
func TestScalingSmoke(t *testing.T) {
	b := kafkatest.Require(t)
	o := options{bootstrap: b.Addr, records: 1000, partitions: 2, runs: 1, taskset: "0"}
	points := []scalePoint{
		{dimension: "payload", partitions: 2, payload: 1000, pipelines: 1, records: 1000},
		{dimension: "pipelines", partitions: 2, pipelines: 2, records: 1000},
	}
	var log strings.Builder
	rs, err := runScaling(context.Background(), o, points, &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || rs[0].Scenario != scenarioRawALO || rs[1].Scenario != scenarioFastALO || rs[3].Pipelines != 2 {
		t.Fatalf("results: %+v", rs)
	}
	for _, r := range rs {
		if r.RecordsPerSec <= 0 || r.PeakRSSMB <= 0 || r.CPUSecPerM <= 0 {
			t.Errorf("a figure was not measured: %+v", r)
		}
	}
	if rs[0].PayloadBytes < 900 || rs[0].PayloadBytes > 1100 || rs[2].RatioRaw <= 0 || rs[2].RatioFastJSON <= 0 {
		t.Errorf("payload point: %+v", rs[:3])
	}
	printScaling(io.Discard, rs)
}
