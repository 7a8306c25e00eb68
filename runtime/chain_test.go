package runtime_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// chainedTasks returns, from the job's status, how many of its tasks run
// chained and how many tasks there are.
func chainedTasks(j *runtime.Job) (chained, all int) {
	for _, ts := range j.Status().Tasks {
		all++
		if ts.Chained {
			chained++
		}
	}
	return chained, all
}

// TestChainedWhereOneToOne checks which pipelines run their sink tasks in
// their source tasks' loops: exactly those where each sink task gets the
// rows of one source task and nothing else; and that each runs to the
// same output exactly once.
func TestChainedWhereOneToOne(t *testing.T) {
	byKey := func(row types.Row, n int) int { return int(row.Fields[0].Int64() % int64(n)) }
	cases := []struct {
		name                 string
		srcPar, sinkPar, snk int
		partition            bool
		disable              bool
		chained              bool
	}{
		{name: "1:1", srcPar: 1, sinkPar: 1, snk: 1, chained: true},
		{name: "2:2 forward", srcPar: 2, sinkPar: 2, snk: 1, chained: true},
		{name: "1:1 by key", srcPar: 1, sinkPar: 1, snk: 1, partition: true, chained: true},
		{name: "2:2 by key", srcPar: 2, sinkPar: 2, snk: 1, partition: true},
		{name: "2:1 fan-in", srcPar: 2, sinkPar: 1, snk: 1},
		{name: "1:2 fan-out", srcPar: 1, sinkPar: 2, snk: 1},
		{name: "two sinks", srcPar: 2, sinkPar: 2, snk: 2},
		{name: "disabled", srcPar: 2, sinkPar: 2, snk: 1, disable: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.per, r.srcPar, r.sinkPar, r.sinks = 200, c.srcPar, c.sinkPar, c.snk
			r.tweak = func(s *runtime.JobSpec) {
				s.Config.DisableChaining = c.disable
				if c.partition {
					s.Pipelines[0].Partition = byKey
				}
			}
			j := r.job(t)
			if err := runJob(t, j, 30*time.Second); err != nil {
				t.Fatal(err)
			}
			chained, all := chainedTasks(j)
			want := 0
			if c.chained {
				want = all
			}
			if all != c.srcPar+c.snk*c.sinkPar || chained != want {
				t.Fatalf("%d of %d tasks chained, want %d", chained, all, want)
			}
			r.verify(t, r.full())
		})
	}
}

// TestChainedFailurePointsInProcess is TestFailurePointsInProcess on two
// pipelines whose sink tasks are chained with their source tasks (one
// sink each, two tasks on each side): the job fails at each failure point, restarts
// within the process, and the committed output is the input exactly
// once, in order per partition.
func TestChainedFailurePointsInProcess(t *testing.T) {
	points := []runtime.FaultPoint{runtime.BeforePreCommit, runtime.AfterPreCommit, runtime.AfterCheckpointWritten,
		runtime.BetweenSinkCommits, runtime.AfterCommit, runtime.DuringRecovery}
	for _, p := range points {
		for at := 1; at <= 2; at++ {
			t.Run(fmt.Sprintf("%s@%d", p, at), func(t *testing.T) {
				r := newRig(t)
				r.sinks, r.split = 2, true
				f := &testkit.Faults{}
				if p == runtime.DuringRecovery {
					f.On(runtime.AfterCheckpointWritten, at, testkit.Fail, 0)
					f.On(p, 1, testkit.Fail, 0)
				} else {
					f.On(p, at, testkit.Fail, 0)
				}
				r.faults = f
				j := r.job(t)
				if err := runJob(t, j, 30*time.Second); err != nil {
					t.Fatal(err)
				}
				if !f.Fired(p) {
					t.Fatalf("failure point %s was not reached", p)
				}
				if got := j.Status().Restarts; got < 1 {
					t.Fatalf("restarts = %d, want >= 1", got)
				}
				if chained, all := chainedTasks(j); chained != all || all != 8 {
					t.Fatalf("%d of %d tasks chained, want all of 8", chained, all)
				}
				r.verify(t, r.full())
			})
		}
	}
}

// TestChainedStop stops a chained job gracefully while it runs, in both
// checkpointing modes: the final checkpoint pre-commits and commits the
// chained writers' work, leaving no transaction open, and the committed
// output is a prefix of each partition exactly once; the next run
// finishes the input exactly once.
func TestChainedStop(t *testing.T) {
	for _, mode := range []jobconfig.Mode{jobconfig.ExactlyOnce, jobconfig.AtLeastOnce} {
		t.Run(mode.String(), func(t *testing.T) {
			r := newRig(t)
			r.per = 3000
			r.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.Mode = mode }
			j := r.job(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- j.Run(ctx) }()
			deadline := time.Now().Add(30 * time.Second)
			for j.Status().Checkpoints.Completed < 3 {
				if time.Now().After(deadline) {
					cancel()
					<-done
					t.Fatal("no 3 checkpoints completed")
				}
				time.Sleep(time.Millisecond)
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("the job did not stop")
			}
			if st := j.Status(); st.State != runtime.StateStopped {
				t.Fatalf("state %s after a graceful stop, want %s", st.State, runtime.StateStopped)
			}
			if chained, all := chainedTasks(j); chained != all || all != 4 {
				t.Fatalf("%d of %d tasks chained, want all of 4", chained, all)
			}
			counts := r.verify(t, nil)
			if left, err := testkit.PendingFiles(r.fileSinks[0].Dir); err != nil || len(left) > 0 {
				t.Fatalf("transactions left open after the stop: %v %v", left, err)
			}
			var sum int64
			for _, n := range counts[0] {
				sum += n
			}
			t.Logf("stopped with %d of %d rows committed", sum, int64(r.partitions)*r.per)
			j2 := r.job(t)
			if err := runJob(t, j2, 60*time.Second); err != nil {
				t.Fatal(err)
			}
			r.verify(t, r.full())
		})
	}
}

// TestChainedBlockedWriter blocks the writer of a chained 1:1 pipeline: the
// source task stops reading at once — one batch in the writer's hands and
// none queued, where the channels of an unchained pipeline hold up to
// 2×ChannelCapacity+3 batches (TestBackpressureBoundsMemory) — and once
// released the job stops gracefully.
func TestChainedBlockedWriter(t *testing.T) {
	r := newRig(t)
	r.per, r.delay, r.srcPar, r.sinkPar, r.partitions = 0, 0, 1, 1, 1
	bs := &blockingSink{release: make(chan struct{})}
	r.tweak = func(s *runtime.JobSpec) {
		s.Pipelines[0].Sinks = []runtime.SinkSpec{{Name: "blocked", Sink: bs}}
		s.Config.Checkpoint.Interval = 0
	}
	j := r.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := j.Status()
		if len(st.Tasks) == 2 && st.Tasks[1].RecordsIn > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the writer got no rows")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	st := j.Status()
	src, snk := st.Tasks[0], st.Tasks[1]
	if !src.Chained || !snk.Chained {
		t.Fatalf("tasks not chained: %+v", st.Tasks)
	}
	if src.RecordsIn != int64(r.batch) || src.RecordsOut != int64(r.batch) || snk.RecordsIn != int64(r.batch) {
		t.Fatalf("source read %d and sent %d rows, the writer got %d, with the writer blocked; want one batch (%d) each",
			src.RecordsIn, src.RecordsOut, snk.RecordsIn, r.batch)
	}
	close(bs.release)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the job did not stop")
	}
}

// TestChainedDeadLettersInSink is TestDeadLettersInSinkFollowBarriers on a
// chained 1:1 pipeline: the source task writes its dead letters to its
// chained writer's transaction (runtime.SourceSpec.DeadLettersInSink), and
// every dead letter set aside before the snapshot of checkpoint N is in
// the writer's pre-commit for N, none set aside after it.
func TestChainedDeadLettersInSink(t *testing.T) {
	opened := false
	dead := unopenable{&opened}
	snk := &txnSink{dlSink: dlSink{atPre: map[int64]int{}, committed: map[int64]bool{}}, wantDL: dead, deadAt: map[int64]int{}}
	src := &dlSource{n: 600, sink: &dlSink{}, atSnap: map[int64]int{}}
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 10 * time.Millisecond
	cfg.Restart.Strategy = jobconfig.RestartNone
	rejectEvery5th := func(in types.Row, out []types.Row) ([]types.Row, error) {
		if in.Fields[0].Int64()%5 == 0 {
			return out, fmt.Errorf("column 'x' is NOT NULL: %w", connector.ErrBadRow)
		}
		return append(out, in), nil
	}
	spec := runtime.JobSpec{Name: "dljob", Config: cfg, Logger: quietLogger(), Pipelines: []runtime.Pipeline{{Name: "main",
		Sources: []runtime.SourceSpec{{Name: "src", Source: src, Parallelism: 1,
			DeadLetter: &runtime.SinkSpec{Name: "src.dead-letter", Sink: dead}, DeadLettersInSink: true}},
		Transform: rejectEvery5th,
		Sinks:     []runtime.SinkSpec{{Name: "out", Sink: snk, Parallelism: 1}}}}}
	j, err := runtime.NewJob(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := runJob(t, j, time.Minute); err != nil {
		t.Fatal(err)
	}
	if chained, all := chainedTasks(j); chained != all || all != 2 {
		t.Fatalf("%d of %d tasks chained, want all of 2", chained, all)
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	snk.mu2.Lock()
	defer snk.mu2.Unlock()
	if len(src.atSnap) < 2 {
		t.Fatalf("only %d checkpoints", len(src.atSnap))
	}
	for id, made := range src.atSnap {
		if got, ok := snk.deadAt[id]; !ok || got != made {
			t.Errorf("checkpoint %d: the reader had set %d dead letters aside at its snapshot; the sink's pre-commit held %d (present %v)", id, made, got, ok)
		}
	}
	wantDead := 0
	for i := range 600 {
		if i%3 == 0 || i%5 == 0 {
			wantDead++
		}
	}
	if len(snk.deadRows) != wantDead || src.handled == 0 || snk.wrongDL != 0 {
		t.Errorf("the sink got %d dead letters, want %d (%d rejected rows among them); %d writes named another dead-letter sink", len(snk.deadRows), wantDead, src.handled, snk.wrongDL)
	}
	if opened {
		t.Error("the dead-letter sink was opened")
	}
}

// idleSource is an unbounded source of one split whose reader never has
// rows: Read blocks until its context ends.
type idleSource struct{}

func (idleSource) Splits(context.Context) ([]connector.Split, error) {
	return []connector.Split{{ID: "only"}}, nil
}
func (idleSource) Bounded() bool { return false }
func (idleSource) Open(context.Context, connector.TaskInfo, []connector.SplitState) (connector.Reader, error) {
	return idleReader{}, nil
}

type idleReader struct{}

func (idleReader) Read(ctx context.Context) ([]types.Row, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
func (idleReader) Snapshot(int64) ([]connector.SplitState, error) {
	return []connector.SplitState{{ID: "only"}}, nil
}
func (idleReader) Close() error { return nil }

// listenSink's writer listens for completed checkpoints and records, in
// order, its pre-commits (positive ids) and notifications (negative ids).
type listenSink struct {
	mu     sync.Mutex
	events []int64
}

func (s *listenSink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return listenWriter{s}, nil
}

type listenWriter struct{ s *listenSink }

func (w listenWriter) Write(context.Context, []types.Row) error { return nil }
func (w listenWriter) PreCommit(_ context.Context, id int64) ([]connector.Committable, error) {
	w.s.mu.Lock()
	w.s.events = append(w.s.events, id)
	w.s.mu.Unlock()
	return nil, nil
}
func (w listenWriter) CheckpointComplete(_ context.Context, id int64) error {
	w.s.mu.Lock()
	w.s.events = append(w.s.events, -id)
	w.s.mu.Unlock()
	return nil
}
func (w listenWriter) Close() error { return nil }

// TestChainedWriterListener checks that a writer which listens for completed
// checkpoints is told of checkpoint N before its pre-commit for N+1 while
// its source reads nothing, chained (the coordinator interrupts the
// source task's blocked Read) as unchained (the sink task's own select).
func TestChainedWriterListener(t *testing.T) {
	for _, disable := range []bool{false, true} {
		t.Run(fmt.Sprintf("unchained=%v", disable), func(t *testing.T) {
			snk := &listenSink{}
			cfg := jobconfig.DefaultConfig()
			// The interval leaves a loaded machine time to deliver the
			// notification before the next barrier.
			cfg.Checkpoint.Interval = 200 * time.Millisecond
			cfg.Restart.Strategy = jobconfig.RestartNone
			cfg.DisableChaining = disable
			j, err := runtime.NewJob(runtime.JobSpec{Name: "listen", Config: cfg, Logger: quietLogger(), Pipelines: []runtime.Pipeline{{Name: "main",
				Sources: []runtime.SourceSpec{{Name: "src", Source: idleSource{}}},
				Sinks:   []runtime.SinkSpec{{Name: "out", Sink: snk}}}}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- j.Run(ctx) }()
			deadline := time.Now().Add(30 * time.Second)
			for j.Status().Checkpoints.Completed < 5 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if chained, all := chainedTasks(j); (chained == all) == disable || all != 2 {
				t.Fatalf("%d of %d tasks chained with DisableChaining %v", chained, all, disable)
			}
			snk.mu.Lock()
			defer snk.mu.Unlock()
			told := map[int64]bool{}
			pre := 0
			for _, e := range snk.events {
				if e < 0 {
					told[-e] = true
					continue
				}
				if pre++; e > 1 && pre <= 5 && !told[e-1] {
					t.Fatalf("pre-commit for checkpoint %d before the writer was told checkpoint %d completed; events (negative: told) %v", e, e-1, snk.events)
				}
			}
			if pre < 5 {
				t.Fatalf("only %d pre-commits: %v", pre, snk.events)
			}
		})
	}
}
