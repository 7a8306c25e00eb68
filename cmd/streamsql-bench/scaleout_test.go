package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestScaleOutSmoke runs the scale-out mode end to end on the real broker:
// the streamsql binary built from this module, 2 instances exactly-once
// and 2 at-least-once pinned with taskset, one run each on a few thousand
// records. runScale fails unless the sink has every passing record
// (exactly-once: each once, read_committed) and nothing else; the test
// checks that and that every figure was measured, never the speed.
func TestScaleOutSmoke(t *testing.T) {
	b := kafkatest.Require(t)
	bin, err := buildStreamsql(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := options{bootstrap: b.Addr, records: 3000, partitions: 4, runs: 1}
	cfgs := []scaleConfig{{Guarantee: "exactly-once", Instances: 2}, {Guarantee: "at-least-once", Instances: 2, Pinned: true}}
	var log strings.Builder
	results, err := runScale(t.Context(), o, cfgs, bin, 0, &log)
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	var passing int64
	for i := range o.records {
		if makeRecord(i, zeroTime).passes() {
			passing++
		}
	}
	if len(results) != len(cfgs) {
		t.Fatalf("%d results for %d configurations", len(results), len(cfgs))
	}
	for i, r := range results {
		if r.Instances != cfgs[i].Instances || r.Pinned != cfgs[i].Pinned || r.Guarantee != cfgs[i].Guarantee {
			t.Errorf("result %d is for %+v, want %+v", i, r, cfgs[i])
		}
		if r.RecordsOut != passing {
			t.Errorf("%s: %d records out, want %d", r.Config, r.RecordsOut, passing)
		}
		if r.Guarantee == "exactly-once" && r.Duplicates != 0 {
			t.Errorf("%s: %d duplicates", r.Config, r.Duplicates)
		}
		if r.RecordsPerSec <= 0 || r.FirstMS <= 0 || r.CPUSecPerM <= 0 || r.BusyCores <= 0 || len(r.PeakRSSMB) != 2 ||
			r.PeakRSSMB[0] <= 0 || r.PeakRSSMB[1] <= 0 {
			t.Errorf("%s: a figure was not measured: %+v", r.Config, r)
		}
	}
}

// TestSinkWatchChecks feeds the scale-out mode's sink checker wrong
// records: a record that does not pass the filter, one never produced, one
// without an id, and (exactly-once only) a duplicate each fail the run;
// an at-least-once duplicate is counted, and the run completes once every
// passing id was seen.
func TestSinkWatchChecks(t *testing.T) {
	want := []bool{true, false, true, true}
	newWatch := func(eo bool) *sinkWatch {
		return &sinkWatch{want: want, passing: 3, eo: eo, complete: make(chan struct{}), failed: make(chan error, 1),
			seen: make([]uint8, len(want)), firstAt: make([]int64, len(want)), p10Count: 1, p90Count: 2}
	}
	rec := func(v string) *kgo.Record {
		return &kgo.Record{Topic: "out", Partition: 1, Offset: 7, Value: []byte(v)}
	}
	for _, c := range []struct {
		eo     bool
		values []string
		errHas string
	}{
		{false, []string{`{"id":1,"user":"u"}`}, "id 1 does not pass the filter"},
		{true, []string{`{"id":9}`}, "id 9 does not pass the filter or was never produced"},
		{true, []string{`{"user":"u"}`}, "without a readable id"},
		{true, []string{`{"id":0}`, `{"id":0}`}, "id 0 a second time (read_committed, exactly-once; first at partition 1 offset 6)"},
	} {
		w := newWatch(c.eo)
		for i, v := range c.values {
			r := rec(v)
			r.Offset += int64(i) - int64(len(c.values)-1) // the last one at offset 7
			w.record(r, time.Now())
		}
		select {
		case err := <-w.failed:
			if !strings.Contains(err.Error(), c.errHas) || !strings.Contains(err.Error(), "partition 1 offset 7") {
				t.Errorf("%v: error %q, want it to name the record and say %q", c.values, err, c.errHas)
			}
		default:
			t.Errorf("%v (exactly-once %v): no error", c.values, c.eo)
		}
	}

	// A record at an offset the consumer had passed is its re-delivery,
	// skipped; a second copy at a new offset is a duplicate.
	ew := newWatch(true)
	ew.record(&kgo.Record{Topic: "out", Partition: 2, Offset: 5, Value: []byte(`{"id":0}`)}, time.Now())
	ew.record(&kgo.Record{Topic: "out", Partition: 2, Offset: 5, Value: []byte(`{"id":0}`)}, time.Now())
	select {
	case err := <-ew.failed:
		t.Fatalf("a re-delivered record failed the run: %v", err)
	default:
	}
	if ew.redelivered != 1 || ew.duplicates() != 0 {
		t.Errorf("re-delivery: redelivered %d, duplicates %d; want 1 and 0", ew.redelivered, ew.duplicates())
	}

	w := newWatch(false)
	for i, v := range []string{`{"id":0}`, `{"id":0}`, `{"amount":1.5,"id":2}`, `{"id":3,"user":"u"}`} {
		w.record(&kgo.Record{Topic: "out", Partition: 1, Offset: int64(i), Value: []byte(v)}, time.Now())
	}
	select {
	case err := <-w.failed:
		t.Fatalf("at-least-once duplicate failed the run: %v", err)
	case <-w.complete:
	default:
		t.Fatal("every passing id was seen but the run is not complete")
	}
	if w.duplicates() != 1 || w.distinct() != 3 {
		t.Errorf("duplicates %d, distinct %d; want 1 and 3", w.duplicates(), w.distinct())
	}
}

// TestScaleConfigs pins the flags' configurations and their errors.
func TestScaleConfigs(t *testing.T) {
	cfgs, err := scaleFlags{counts: "1,2", guarantees: "exactly-once", pin: "both"}.configs()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cfgs {
		got = append(got, c.String())
	}
	if strings.Join(got, " ") != "eo-1 eo-2 eo-1-taskset eo-2-taskset" {
		t.Errorf("configs %v", got)
	}
	for _, f := range []scaleFlags{{counts: "1,x", guarantees: "exactly-once", pin: "no"}, {counts: "0", guarantees: "exactly-once", pin: "no"},
		{counts: "1", guarantees: "maybe", pin: "no"}, {counts: "1", guarantees: "exactly-once", pin: "sometimes"}} {
		if _, err := f.configs(); err == nil {
			t.Errorf("%+v: no error", f)
		}
	}
	if _, err := runScale(t.Context(), options{partitions: 2}, []scaleConfig{{Guarantee: "exactly-once", Instances: 4}}, "", 0, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "4 instances need at least as many source partitions") {
		t.Errorf("4 instances on 2 partitions: %v", err)
	}
}
