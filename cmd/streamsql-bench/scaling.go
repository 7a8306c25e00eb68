package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// scalePoint is one point of the scaling sweep: a source topic of
// partitions partitions holding records records of about payload bytes
// (0: the standard record), read by pipelines INSERT statements of one job.
type scalePoint struct {
	dimension  string // what the point varies: partitions, payload or pipelines
	partitions int
	payload    int
	pipelines  int
	records    int64
}

// ScaleResult is one scenario's figures at one point of the sweep.
type ScaleResult struct {
	Dimension     string  `json:"dimension"`
	Scenario      string  `json:"scenario"`
	Partitions    int     `json:"partitions"`
	Pipelines     int     `json:"pipelines"`
	PayloadBytes  float64 `json:"payload_bytes"`  // mean bytes of a source value, as loaded
	Records       int64   `json:"source_records"` // in the source topic; each pipeline reads them all
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	PeakRSSMB     float64 `json:"peak_rss_mb"`
	CPUSecPerM    float64 `json:"cpu_sec_per_million"`
	RatioRaw      float64 `json:"ratio_to_rawcopy,omitempty"`
	RatioFastJSON float64 `json:"ratio_to_fastjson,omitempty"`
	Runs          int     `json:"runs"`
}

// scalePoints are the points of the sweep for o: 4, 16 and 64 partitions
// (standard record); payloads of ~100 B (as small as the record gets,
// ~160 B), 1 KB and 10 KB at 4 partitions, with as many records as keep
// the bytes of the standard run (at most o.records); 1, 4 and 16 pipelines
// (one statement set, which reads the source once) at 4 partitions, over
// o.records / pipelines records so that the job's output stays the same.
func scalePoints(o options) []scalePoint {
	var ps []scalePoint
	for _, p := range []int{4, 16, 64} {
		ps = append(ps, scalePoint{dimension: "partitions", partitions: p, pipelines: 1, records: o.records})
	}
	for _, size := range []int{100, 1000, 10000} {
		n := min(o.records, o.records*265/int64(size))
		ps = append(ps, scalePoint{dimension: "payload", partitions: 4, payload: size, pipelines: 1, records: max(n, 1)})
	}
	for _, n := range []int{1, 4, 16} {
		ps = append(ps, scalePoint{dimension: "pipelines", partitions: 4, pipelines: n, records: max(o.records/int64(n), 1)})
	}
	return ps
}

// scalingMain runs the scaling sweep and prints (and with -json writes)
// its table.
func scalingMain(ctx context.Context, o options, w io.Writer) error {
	rs, err := runScaling(ctx, o, scalePoints(o), w)
	if err != nil {
		return err
	}
	printScaling(w, rs)
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(rs, "", "  ")
		return os.WriteFile(o.jsonOut, append(b, '\n'), 0o644)
	}
	return nil
}

// runScaling measures, at each point, at least once: the raw copy and the
// fastjson pipe (at one pipeline only: they have no notion of several) and
// streamsql, o.runs times each, interleaved, on a source topic of the point's own that is deleted
// after the point.
func runScaling(ctx context.Context, o options, points []scalePoint, log io.Writer) ([]ScaleResult, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(o.bootstrap))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	raw, _ := scenarioByName(scenarioRawALO)
	fast, _ := scenarioByName(scenarioFastALO)
	alo, _ := scenarioByName(scenarioALO)
	var out []ScaleResult
	for _, p := range points {
		po := o
		po.partitions, po.payload, po.records = p.partitions, p.payload, p.records
		scs := []scenario{alo.withPipelines(p.pipelines)}
		if p.pipelines == 1 {
			scs = []scenario{raw, fast, alo}
		}
		rs, err := scaleOne(ctx, po, cl, p, scs, log)
		if err != nil {
			return nil, fmt.Errorf("scaling point %s (partitions %d, payload %d, pipelines %d): %w",
				p.dimension, p.partitions, p.payload, p.pipelines, err)
		}
		out = append(out, rs...)
	}
	return out, nil
}

func scaleOne(ctx context.Context, o options, cl *kgo.Client, p scalePoint, scs []scenario, log io.Writer) ([]ScaleResult, error) {
	topics := &benchTopics{adm: kadm.NewClient(cl), stamp: time.Now().UnixNano()}
	defer topics.deleteAll()
	src, passing, loaded, err := loadSource(ctx, o, topics, log)
	if err != nil {
		return nil, err
	}
	rates := make([][]float64, len(scs))
	rs := make([]ScaleResult, len(scs))
	for run := range o.runs {
		for i, sc := range scs {
			m, err := throughputRun(ctx, o, topics, sc, src, passing)
			if err != nil {
				return nil, fmt.Errorf("%s run %d: %w", sc.Name, run+1, err)
			}
			secs := float64(m.res.ElapsedNS) / 1e9
			rates[i] = append(rates[i], float64(m.res.In)/secs)
			r := &rs[i]
			r.PeakRSSMB = max(r.PeakRSSMB, m.maxRSSMB)
			r.CPUSecPerM += m.cpu.Seconds() / (float64(m.res.In) / 1e6) / float64(o.runs)
			fmt.Fprintf(log, "%-10s partitions %2d payload %5.0f B pipelines %2d %-14s run %d: %.0f records/s, peak RSS %.0f MB\n",
				p.dimension, p.partitions, float64(loaded)/float64(o.records), max(1, sc.mode.pipelines), sc.Name, run+1,
				rates[i][run], m.maxRSSMB)
		}
	}
	for i, sc := range scs {
		r := &rs[i]
		r.Dimension, r.Scenario, r.Partitions, r.Pipelines, r.Records, r.Runs =
			p.dimension, sc.Name, p.partitions, max(1, sc.mode.pipelines), o.records, o.runs
		r.PayloadBytes = float64(loaded) / float64(o.records)
		r.RecordsPerSec = median(rates[i])
		r.MBPerSec = r.RecordsPerSec * r.PayloadBytes / 1e6
		for j, ref := range scs {
			switch {
			case j == i || rs[j].RecordsPerSec == 0:
			case ref.Reference == refRawCopy:
				r.RatioRaw = r.RecordsPerSec / rs[j].RecordsPerSec
			case ref.Reference == refFastJSON:
				r.RatioFastJSON = r.RecordsPerSec / rs[j].RecordsPerSec
			}
		}
	}
	return rs, nil
}

// printScaling writes the sweep's table. records/s counts the records read
// by all pipelines of the job.
func printScaling(w io.Writer, rs []ScaleResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	ratio := func(x float64) string {
		if x == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", x)
	}
	fmt.Fprintln(tw, "dimension\tscenario\tpartitions\tpayload B\tpipelines\tsource records\trecords/s\tMB/s\t×raw\t×fastjson\tCPU s/M\tpeak RSS MB\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%d\t%d\t%.0f\t%.1f\t%s\t%s\t%.2f\t%.0f\t\n", r.Dimension, r.Scenario, r.Partitions, r.PayloadBytes,
			r.Pipelines, r.Records, r.RecordsPerSec, r.MBPerSec, ratio(r.RatioRaw), ratio(r.RatioFastJSON), r.CPUSecPerM, r.PeakRSSMB)
	}
	tw.Flush()
}
