package runtime_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// snapCountingSource counts its readers' Snapshot calls: a reader takes
// part in a checkpoint when its task handles the barrier.
type snapCountingSource struct {
	*eventSource
	snaps *atomic.Int64
}

func (s snapCountingSource) Open(ctx context.Context, info connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r, err := s.eventSource.Open(ctx, info, splits)
	if err != nil {
		return nil, err
	}
	return snapCountingReader{r, s.snaps}, nil
}

type snapCountingReader struct {
	connector.Reader
	snaps *atomic.Int64
}

func (r snapCountingReader) Snapshot(id int64) ([]connector.SplitState, error) {
	r.snaps.Add(1)
	return r.Reader.Snapshot(id)
}

// gatedOpenOp is an operator whose second task's Open waits for gate.
type gatedOpenOp struct {
	stream.Base
	gate <-chan struct{}
	task int
}

func (o *gatedOpenOp) Open(ctx *stream.Context) error {
	if o.task == 1 {
		<-o.gate
	}
	return nil
}

func (o *gatedOpenOp) Process(_ int, rows []types.Row, out *stream.Output) error {
	for _, r := range rows {
		out.Emit(r)
	}
	return nil
}

// TestNoCheckpointBeforeEveryTaskOpens runs two tasks, the second of
// which takes long to open, with 10 ms checkpoints: no task may take part
// in a checkpoint before both are open (a checkpoint begun while one is
// still opening holds the other's pre-committed transaction open until
// it can finish, which deadlocked a Kafka reader waiting for stable group
// offsets), and checkpoints complete once both are.
func TestNoCheckpointBeforeEveryTaskOpens(t *testing.T) {
	gate := make(chan struct{})
	var snaps atomic.Int64
	src := snapCountingSource{&eventSource{per: []int64{1 << 40, 1 << 40}, times: func(_ int, seq int64) int64 { return seq },
		pace: []time.Duration{time.Millisecond, time.Millisecond}}, &snaps}
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 10 * time.Millisecond
	cfg.Restart.Strategy = jobconfig.RestartNone
	g := runtime.Graph{Vertices: []runtime.Vertex{
		{ID: "main/src", Parallelism: 2, Source: &runtime.SourceVertex{Source: src}},
		{ID: "main/op", Parallelism: 2, Operator: &runtime.OperatorVertex{New: func(info stream.TaskInfo) (stream.Operator, error) {
			return &gatedOpenOp{gate: gate, task: info.Index}, nil
		}}},
		{ID: "main/out", Parallelism: 2, Sink: &runtime.SinkVertex{Sink: &countSink{}}}},
		Edges: []runtime.Edge{{From: 0, To: 1}, {From: 1, To: 2}}}
	j, err := runtime.NewJob(runtime.JobSpec{Name: "gated", Config: cfg, Graph: g, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	// Thirty checkpoint intervals with the second task still opening.
	time.Sleep(300 * time.Millisecond)
	if n := snaps.Load(); n != 0 {
		t.Fatalf("readers took part in %d checkpoints while a task was still opening", n)
	}
	close(gate)
	deadline := time.Now().Add(time.Minute)
	for j.Status().Checkpoints.Completed < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c := j.Status().Checkpoints.Completed; c < 2 {
		t.Fatalf("%d checkpoints completed after every task opened, want 2", c)
	}
}

// TestFinalCheckpointWaitsForEveryTaskToOpen stops a job (its context
// cancelled) while one of its tasks is still opening: the final checkpoint
// waits for that task as the periodic ones do, so no reader takes part in
// it before every task is open, and the stop then completes it and ends
// the run cleanly.
func TestFinalCheckpointWaitsForEveryTaskToOpen(t *testing.T) {
	gate := make(chan struct{})
	var snaps atomic.Int64
	src := snapCountingSource{&eventSource{per: []int64{1 << 40, 1 << 40}, times: func(_ int, seq int64) int64 { return seq },
		pace: []time.Duration{time.Millisecond, time.Millisecond}}, &snaps}
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = time.Hour
	cfg.Restart.Strategy = jobconfig.RestartNone
	g := runtime.Graph{Vertices: []runtime.Vertex{
		{ID: "main/src", Parallelism: 2, Source: &runtime.SourceVertex{Source: src}},
		{ID: "main/op", Parallelism: 2, Operator: &runtime.OperatorVertex{New: func(info stream.TaskInfo) (stream.Operator, error) {
			return &gatedOpenOp{gate: gate, task: info.Index}, nil
		}}},
		{ID: "main/out", Parallelism: 2, Sink: &runtime.SinkVertex{Sink: &countSink{}}}},
		Edges: []runtime.Edge{{From: 0, To: 1}, {From: 1, To: 2}}}
	j, err := runtime.NewJob(runtime.JobSpec{Name: "gated-final", Config: cfg, Graph: g, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	time.Sleep(100 * time.Millisecond)
	cancel() // a graceful stop: a final checkpoint, then the end of the run
	time.Sleep(200 * time.Millisecond)
	if n := snaps.Load(); n != 0 {
		t.Fatalf("readers took part in %d checkpoints while a task was still opening", n)
	}
	close(gate)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the run did not stop within a minute of its last task opening")
	}
	if st := j.Status(); st.State != runtime.StateStopped || st.Checkpoints.Completed != 1 {
		t.Fatalf("state %s with %d checkpoints completed, want stopped after the final one", st.State, st.Checkpoints.Completed)
	}
	if n := snaps.Load(); n != 2 {
		t.Fatalf("readers took part in %d checkpoints, want 2 (the final one, one per reader)", n)
	}
}
