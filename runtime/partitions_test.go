package runtime_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// openRecorder is a SeqSource that records the split states it is opened
// with.
type openRecorder struct {
	*testkit.SeqSource
	mu     sync.Mutex
	opened map[string]connector.SplitState
}

func (o *openRecorder) Open(ctx context.Context, task connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	o.mu.Lock()
	for _, sp := range splits {
		o.opened[sp.ID] = sp
	}
	o.mu.Unlock()
	return o.SeqSource.Open(ctx, task, splits)
}

// TestRestoredRunMarksUnknownSplits (issue 15.5): a run that restores a
// checkpoint opens the splits that checkpoint does not know (a partition
// added while the job was down) with Added set, so that the reader reads
// them from their beginning; a fresh run, and the splits the checkpoint
// knows, are not marked.
func TestRestoredRunMarksUnknownSplits(t *testing.T) {
	r := newRig(t)
	r.partitions, r.per = 2, 40
	var rec *openRecorder
	r.tweak = func(s *runtime.JobSpec) {
		src := s.Pipelines[0].Sources[0].Source.(*testkit.SeqSource)
		rec = &openRecorder{SeqSource: src, opened: map[string]connector.SplitState{}}
		s.Pipelines[0].Sources[0].Source = rec
	}
	if err := runJob(t, r.job(t), time.Minute); err != nil {
		t.Fatal(err)
	}
	for id, sp := range rec.opened {
		if sp.Added || sp.State != nil {
			t.Fatalf("fresh run opened split %s with %+v, want no state and not added", id, sp)
		}
	}
	// The restart sees one more partition.
	r.partitions = 3
	if err := runJob(t, r.job(t), time.Minute); err != nil {
		t.Fatal(err)
	}
	if len(rec.opened) != 3 {
		t.Fatalf("restored run opened %v, want 3 splits", rec.opened)
	}
	for _, id := range []string{"p0", "p1"} {
		if sp := rec.opened[id]; sp.Added || string(sp.State) != "40" {
			t.Errorf("restored run opened known split %s with %+v, want state 40, not added", id, sp)
		}
	}
	if sp := rec.opened["p2"]; !sp.Added || sp.State != nil {
		t.Errorf("restored run opened new split p2 with %+v, want no state and Added", sp)
	}
	r.verify(t, r.full())
}

// scopedSink is a FileSink that records the sink ids it gets.
type scopedSink struct {
	*testkit.FileSink
	mu         sync.Mutex
	committers []string
	tasks      map[string]bool
}

func (s *scopedSink) ScopedCommitter(ctx context.Context, job, sink string) (connector.Committer, error) {
	s.mu.Lock()
	s.committers = append(s.committers, sink)
	s.mu.Unlock()
	return s.FileSink.Committer(ctx, job)
}

func (s *scopedSink) Open(ctx context.Context, task connector.TaskInfo) (connector.Writer, error) {
	s.mu.Lock()
	s.tasks[task.Sink] = true
	s.mu.Unlock()
	return s.FileSink.Open(ctx, task)
}

// TestSinkIDReachesSinks (issue 15.6): a connector.ScopedTwoPhaseSink gets
// its committer through ScopedCommitter with the sink's id in the job, and
// its writers get the same id in TaskInfo.Sink, so that two sinks of one
// table (two INSERTs) can tell their files apart.
func TestSinkIDReachesSinks(t *testing.T) {
	r := newRig(t)
	r.sinks, r.partitions, r.per = 2, 2, 20
	var sinks []*scopedSink
	r.tweak = func(s *runtime.JobSpec) {
		for i := range s.Pipelines[0].Sinks {
			sk := &scopedSink{FileSink: s.Pipelines[0].Sinks[i].Sink.(*testkit.FileSink), tasks: map[string]bool{}}
			s.Pipelines[0].Sinks[i].Sink = sk
			sinks = append(sinks, sk)
		}
	}
	if err := runJob(t, r.job(t), time.Minute); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"main/out-a", "main/out-b"} {
		s := sinks[i]
		if len(s.committers) != 1 || s.committers[0] != want || len(s.tasks) != 1 || !s.tasks[want] {
			t.Errorf("sink %d: committers for %q, tasks with Sink %v; want %q", i, s.committers, s.tasks, want)
		}
	}
	r.verify(t, r.full())
}
