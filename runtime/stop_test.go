package runtime_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// TestGracefulStopAndResume stops an unbounded job twice and resumes it:
// every stop commits what the sources read, and the resumed run continues
// where the last checkpoint left off.
func TestGracefulStopAndResume(t *testing.T) {
	r := newRig(t)
	r.per = 0 // unbounded
	var last []int64
	for run := range 3 {
		j := r.job(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- j.Run(ctx) }()
		// Wait for checkpoints and for every split to move on (each
		// source task reads its two splits in turn, 8 rows a batch).
		for {
			st := j.Status()
			moved := len(st.Tasks) > 0
			for _, ts := range st.Tasks {
				if ts.Kind == runtime.SourceTask && ts.RecordsIn < 64 {
					moved = false
				}
			}
			if moved && st.Checkpoints.Completed >= 3 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if st := j.Status().State; st != runtime.StateStopped {
			t.Fatalf("run %d: state %s after a graceful stop", run, st)
		}
		counts := r.verify(t, nil)[0]
		// The latest checkpoint's source positions equal what was
		// committed: the stop committed everything it read.
		md, err := checkpoint.LoadPath(filepath.Join(r.dir, "checkpoints", "testjob"), "testjob")
		if err != nil {
			t.Fatal(err)
		}
		if len(md.Pending) != 0 {
			t.Fatalf("run %d: %d commits pending after a graceful stop", run, len(md.Pending))
		}
		var pos int64
		var total int64
		for _, st := range md.Sources["main/seq"] {
			var n int64
			for _, c := range st.State {
				n = n*10 + int64(c-'0')
			}
			pos += n
		}
		for p, n := range counts {
			total += n
			if last != nil && n <= last[p] {
				t.Fatalf("run %d: partition %d did not advance (%d rows, %d before)", run, p, n, last[p])
			}
		}
		if pos != total {
			t.Fatalf("run %d: sources at %d rows, %d committed", run, pos, total)
		}
		last = counts
	}
}

// trackSink wraps a FileSink and records what its writers pre-committed
// and what its committer committed.
type trackSink struct {
	*testkit.FileSink
	mu        sync.Mutex
	produced  map[int64][]string // checkpoint -> committables
	committed map[string]bool
	t         *testing.T
	durable   map[int64]bool
}

func (s *trackSink) Open(ctx context.Context, task connector.TaskInfo) (connector.Writer, error) {
	w, err := s.FileSink.Open(ctx, task)
	return &trackWriter{Writer: w, s: s, task: task}, err
}

func (s *trackSink) Committer(ctx context.Context, job string) (connector.Committer, error) {
	c, err := s.FileSink.Committer(ctx, job)
	return &trackCommitter{Committer: c, s: s}, err
}

type trackWriter struct {
	connector.Writer
	s    *trackSink
	task connector.TaskInfo
}

func (w *trackWriter) PreCommit(ctx context.Context, id int64) ([]connector.Committable, error) {
	s := w.s
	s.mu.Lock()
	// Whatever the tracker reports durable must be committed, and stays
	// durable.
	for c := range s.produced {
		d := w.task.Commits.Durable(c)
		if d {
			for _, x := range s.produced[c] {
				if !s.committed[x] {
					s.t.Errorf("checkpoint %d reported durable but %s is not committed", c, x)
				}
			}
			s.durable[c] = true
		} else if s.durable[c] {
			s.t.Errorf("checkpoint %d was durable and is not any more", c)
		}
	}
	s.mu.Unlock()
	cs, err := w.Writer.PreCommit(ctx, id)
	s.mu.Lock()
	for _, c := range cs {
		s.produced[id] = append(s.produced[id], string(c))
	}
	s.mu.Unlock()
	return cs, err
}

type trackCommitter struct {
	connector.Committer
	s *trackSink
}

func (c *trackCommitter) Commit(ctx context.Context, x connector.Committable) error {
	err := c.Committer.Commit(ctx, x)
	if err == nil {
		c.s.mu.Lock()
		c.s.committed[string(x)] = true
		c.s.mu.Unlock()
	}
	return err
}

// TestCommitTracker checks what writers see through TaskInfo.Commits:
// only committed work is reported durable, durability does not go back,
// and it is reported at all.
func TestCommitTracker(t *testing.T) {
	r := newRig(t)
	fs := &testkit.FileSink{Dir: t.TempDir()}
	ts := &trackSink{FileSink: fs, produced: map[int64][]string{}, committed: map[string]bool{}, durable: map[int64]bool{}, t: t}
	r.fileSinks = []*testkit.FileSink{fs}
	r.tweak = func(s *runtime.JobSpec) { s.Pipelines[0].Sinks[0].Sink = ts }
	j := r.job(t)
	if err := runJob(t, j, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.durable) == 0 {
		t.Fatal("no pre-committed checkpoint was ever reported durable")
	}
	r.verify(t, r.full())
}

// blockingSink's writers block in Write until released.
type blockingSink struct {
	release chan struct{}
}

func (s *blockingSink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return &blockingWriter{s: s}, nil
}

type blockingWriter struct{ s *blockingSink }

func (w *blockingWriter) Write(ctx context.Context, _ []types.Row) error {
	select {
	case <-w.s.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
func (w *blockingWriter) PreCommit(context.Context, int64) ([]connector.Committable, error) {
	return nil, nil
}
func (w *blockingWriter) Close() error { return nil }

// TestBackpressureBoundsMemory blocks the sink: the source stops once the
// channels between them are full, and the time it waits shows as
// backpressure.
func TestBackpressureBoundsMemory(t *testing.T) {
	r := newRig(t)
	r.per, r.delay, r.srcPar, r.sinkPar, r.partitions = 0, 0, 1, 1, 1
	bs := &blockingSink{release: make(chan struct{})}
	r.tweak = func(s *runtime.JobSpec) {
		s.Pipelines[0].Sinks = []runtime.SinkSpec{{Name: "blocked", Sink: bs}}
		s.Config.Checkpoint.Interval = 0
		// The channel between the tasks is what this test bounds; a
		// chained 1:1 pipeline has none (TestChainedBlockedWriter).
		s.Config.DisableChaining = true
	}
	j := r.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	var src runtime.TaskStatus
	for {
		st := j.Status()
		if len(st.Tasks) > 0 {
			src = st.Tasks[0]
			if src.Backpressure > 0 {
				break
			}
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	src = j.Status().Tasks[0]
	// One batch in the writer, ChannelCapacity in the input channel and in
	// the merged channel, one in the forwarder, one in the source's hand
	// (a sink task with one input, as here, reads that input directly:
	// no merged channel and no forwarder, so fewer).
	limit := int64(jobconfig.DefaultConfig().ChannelCapacity*2+3) * int64(r.batch)
	if src.RecordsOut > limit {
		t.Fatalf("source sent %d rows into a blocked sink; bound %d", src.RecordsOut, limit)
	}
	close(bs.release)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
