package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// tuneStep is one setting the -tune sweep varies.
type tuneStep struct {
	name   string
	values []string
}

// tuneSteps are what the -tune sweep varies, one step at a time; each value
// is a set of client settings (key=value,...) applied over the best found
// so far.
var tuneSteps = []tuneStep{
	{"compression", []string{"compression=none", "compression=lz4", "compression=snappy", "compression=zstd"}},
	{"linger", []string{"linger=0s", "linger=5ms", "linger=10ms", "linger=50ms"}},
	{"batch size", []string{"batch=262144", "batch=1000012"}},
	{"buffered records", []string{"buffered=10000", "buffered=50000", "buffered=200000"}},
	{"fetch sizes", []string{"fetch=2097152,partfetch=262144", "fetch=52428800,partfetch=1048576", "fetch=52428800,partfetch=4194304"}},
}

// tune searches for the client settings under which the at-least-once
// baseline pipe is fastest, by coordinate descent from streamsql's
// defaults: for each step, every value runs o.runs times (interleaved) and
// the one with the highest median throughput is kept. The value of each
// step that equals the settings so far is measured once. It prints each
// candidate's median and returns the settings found, to be written into
// tunedSettings.
func tune(ctx context.Context, o options, steps []tuneStep, log io.Writer) (ClientSettings, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(o.bootstrap))
	if err != nil {
		return ClientSettings{}, err
	}
	defer cl.Close()
	topics := &benchTopics{adm: kadm.NewClient(cl), stamp: time.Now().UnixNano()}
	defer topics.deleteAll()
	src, passing, _, err := loadSource(ctx, o, topics, log)
	if err != nil {
		return ClientSettings{}, err
	}
	base, _ := scenarioByName("baseline-alo-default")
	best := defaultSettings
	measuredRate := map[string]float64{} // settings → median records/s
	for _, step := range steps {
		var cands []ClientSettings
		for _, v := range step.values {
			c, err := parseSettings(best, v)
			if err != nil {
				return ClientSettings{}, err
			}
			cands = append(cands, c)
		}
		rates := make([][]float64, len(cands))
		for run := range o.runs {
			for i, c := range cands {
				if _, done := measuredRate[c.String()]; done {
					continue
				}
				m, err := throughputRun(ctx, o, topics, base.withSettings(c), src, passing)
				if err != nil {
					return ClientSettings{}, fmt.Errorf("tuning %s, %s, run %d: %w", step.name, step.values[i], run+1, err)
				}
				rates[i] = append(rates[i], float64(m.res.In)/(float64(m.res.ElapsedNS)/1e9))
			}
		}
		for i, c := range cands {
			if _, done := measuredRate[c.String()]; !done {
				measuredRate[c.String()] = median(rates[i])
			}
			fmt.Fprintf(log, "%-16s %-36s %9.0f records/s\n", step.name, step.values[i], measuredRate[c.String()])
			if measuredRate[c.String()] > measuredRate[best.String()] {
				best = c
			}
		}
		fmt.Fprintf(log, "%-16s kept: %s\n", step.name, best)
	}
	fmt.Fprintf(log, "best: %s (%.0f records/s; defaults %.0f)\n", best, measuredRate[best.String()], measuredRate[defaultSettings.String()])
	return best, nil
}
