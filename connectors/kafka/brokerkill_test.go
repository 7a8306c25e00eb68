package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/types"
)

// TestBrokerKilledMidRun (issue 15.9): a Kafka → Kafka exactly-once job
// (checkpoint directory set) runs against a broker of the test's own; the
// broker process is SIGKILLed mid-run, stays down for 6 s, and is started
// again on the same ports and data. The job keeps going or fails over
// (in-process restarts) and finishes; an independent read_committed
// reader then sees every input record exactly once, in order per key.
// Both transaction versions. STREAMSQL_SOAK=1 runs a longer job with more
// kills.
func TestBrokerKilledMidRun(t *testing.T) {
	soak := os.Getenv("STREAMSQL_SOAK") == "1"
	per, kills := int64(1000), 1
	if soak {
		per, kills = 5000, 5
	}
	for _, tv1 := range []bool{false, true} {
		name := "tv2"
		if tv1 {
			name = "tv1"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := kafkatest.StartOwn(t, tv1)
			if want := map[bool]int16{false: 2, true: 1}[tv1]; b.TransactionVersion != want {
				t.Fatalf("own broker has transaction version %d, want %d", b.TransactionVersion, want)
			}
			runBrokerKill(t, b, per, kills)
		})
	}
}

const killPartitions = 4

// killTable is the input (out false) or output table of the job on topic.
func killTable(b *kafkatest.OwnBroker, topic, job string, out bool) factory.Table {
	opts := map[string]string{"connector": "kafka", "topic": topic, "properties.bootstrap.servers": b.Addr,
		"value.format": "json", "scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset",
		"properties.isolation.level": "read_committed", "properties.max.poll.records": "20"}
	if out {
		opts["key.format"], opts["key.fields"] = "json", "p"
		opts["sink.delivery-guarantee"], opts["sink.transactional-id-prefix"] = "exactly-once", job
		delete(opts, "properties.max.poll.records")
	}
	return factory.Table{Name: "cat.db." + topic, Options: opts, Schema: factory.Schema{Columns: []factory.Column{
		{Name: "p", Type: types.BigInt()}, {Name: "seq", Type: types.BigInt()}}}}
}

func runBrokerKill(t *testing.T, b *kafkatest.OwnBroker, per int64, kills int) {
	ctx := context.Background()
	in, out := b.Topic(t, killPartitions), b.Topic(t, killPartitions)
	job := kafkatest.UniqueName(t)
	cl := b.Client(t, kgo.DefaultProduceTopic(in), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var recs []*kgo.Record
	for s := range per {
		for p := range int64(killPartitions) {
			recs = append(recs, &kgo.Record{Partition: int32(p), Value: fmt.Appendf(nil, `{"p":%d,"seq":%d}`, p, s)})
		}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl.Close()

	src, _, err := factory.Default.CreateSource(ctx, killTable(b, in, job, false))
	if err != nil {
		t.Fatal(err)
	}
	sink, _, err := factory.Default.CreateSink(ctx, killTable(b, out, job, true))
	if err != nil {
		t.Fatal(err)
	}
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 200 * time.Millisecond
	cfg.Checkpoint.Dir = filepath.Join(t.TempDir(), "checkpoints")
	cfg.Restart.Strategy = jobconfig.RestartFixedDelay
	cfg.Restart.FixedDelayAttempts = 1000
	cfg.Restart.FixedDelay = 200 * time.Millisecond
	level := slog.LevelError
	if os.Getenv("STREAMSQL_TEST_LOG") != "" {
		level = slog.LevelInfo
	}
	spec := runtime.JobSpec{Name: job, Config: cfg, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
		Pipelines: []runtime.Pipeline{{Name: "main",
			Sources: []runtime.SourceSpec{{Name: "in", Source: src, Parallelism: 2}},
			// Paced, so that the job is mid-run when the broker dies.
			Transform: func(in types.Row, out []types.Row) ([]types.Row, error) {
				time.Sleep(2 * time.Millisecond)
				return append(out, in), nil
			},
			Sinks: []runtime.SinkSpec{{Name: "out", Sink: sink, Parallelism: 2}}}}}
	j, err := runtime.NewJob(spec)
	if err != nil {
		t.Fatal(err)
	}
	// Deadlines catch hangs only.
	runCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- j.Run(runCtx) }()
	waitCheckpoints := func(n int64) {
		deadline := time.Now().Add(2 * time.Minute)
		for j.Status().Checkpoints.Completed < n {
			select {
			case err := <-done:
				t.Fatalf("the job ended before the broker was killed (%d checkpoints): %v; raise the input", j.Status().Checkpoints.Completed, err)
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("only %d checkpoints after 2 min", j.Status().Checkpoints.Completed)
			}
		}
	}
	var atKill int64
	for k := range kills {
		waitCheckpoints(j.Status().Checkpoints.Completed + 3 + int64(rand.IntN(5)))
		st := j.Status()
		if st.State != runtime.StateRunning {
			t.Fatalf("job %s when the broker was to be killed, want RUNNING", st.State)
		}
		if k == 0 {
			atKill = st.Checkpoints.Completed
		}
		t.Logf("kill %d: broker SIGKILLed after checkpoint %d", k+1, st.Checkpoints.LastID)
		b.Kill(t)
		time.Sleep(6 * time.Second)
		start := time.Now()
		b.Restart(t)
		t.Logf("kill %d: broker restarted in %v", k+1, time.Since(start).Round(time.Millisecond))
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("job failed: %v", err)
		}
	case <-time.After(6 * time.Minute):
		t.Fatal("job did not end")
	}
	st := j.Status()
	t.Logf("job finished: %d restarts, %d checkpoints completed", st.Restarts, st.Checkpoints.Completed)
	if st.Checkpoints.Completed <= atKill {
		t.Fatalf("no checkpoint completed after the broker came back (%d before the kill, %d at the end)", atKill, st.Checkpoints.Completed)
	}

	b.AwaitStable(t, out)
	rows, _, err := readTable(t, killTable(b, out, job+"-reader", false))
	if err != nil {
		t.Fatal(err)
	}
	seqs := make([][]int64, killPartitions)
	for _, r := range rows {
		p := r.Fields[0].Int64()
		if p < 0 || p >= killPartitions {
			t.Fatalf("row of key %d", p)
		}
		seqs[p] = append(seqs[p], r.Fields[1].Int64())
	}
	for p, got := range seqs {
		if int64(len(got)) != per {
			t.Errorf("key %d: %d rows, want %d exactly once", p, len(got), per)
		}
		for k, s := range got {
			if s != int64(k) {
				t.Errorf("key %d: row %d is seq %d (duplicate, loss or reordering)", p, k, s)
				break
			}
		}
	}
	if t.Failed() {
		t.Logf("broker log tail:\n%s", tail(b.Log(), 40))
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	end := len(s)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			if n--; n < 0 {
				return s[i+1 : end]
			}
		}
	}
	return s
}
