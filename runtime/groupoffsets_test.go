package runtime_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// groupSource is a SeqSource whose readers have consumer group positions
// (the split's next sequence number). Each direct commit checks, against
// the sink's committed output, that the group is never ahead of it.
type groupSource struct {
	testkit.SeqSource
	sinkDir string

	mu        sync.Mutex
	committed map[string]int64 // split → committed position
	commits   int
	ahead     []string
}

type groupReader struct {
	connector.Reader
	s    *groupSource
	last []connector.SplitState
}

func (s *groupSource) Open(ctx context.Context, task connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r, err := s.SeqSource.Open(ctx, task, splits)
	if err != nil {
		return nil, err
	}
	return &groupReader{Reader: r, s: s}, nil
}

func (r *groupReader) Snapshot(id int64) ([]connector.SplitState, error) {
	st, err := r.Reader.Snapshot(id)
	r.last = st
	return st, err
}

func (r *groupReader) GroupPositions() (connector.GroupPositions, bool) {
	p := connector.GroupPositions{Cluster: "c", Group: "g", Generation: -1}
	for _, st := range r.last {
		n, _ := strconv.ParseInt(string(st.State), 10, 64)
		part, _ := strconv.Atoi(st.ID[1:])
		p.Offsets = append(p.Offsets, connector.PartitionOffset{Topic: "t", Partition: int32(part), Offset: n})
	}
	return p, true
}

// CommitGroupPositions records p after checking that the sink's committed
// output holds every row before p.
func (r *groupReader) CommitGroupPositions(_ context.Context, p connector.GroupPositions) error {
	rows, err := testkit.ReadCommitted(r.s.sinkDir)
	if err != nil {
		return err
	}
	have := map[int64]int64{} // partition → committed rows
	for _, row := range rows {
		have[row[0]]++
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.s.commits++
	for _, o := range p.Offsets {
		if have[int64(o.Partition)] < o.Offset {
			r.s.ahead = append(r.s.ahead, fmt.Sprintf("partition %d: group at %d, %d rows committed", o.Partition, o.Offset, have[int64(o.Partition)]))
		}
		r.s.committed["p"+strconv.Itoa(int(o.Partition))] = o.Offset
	}
	return nil
}

// positionSink is a FileSink whose writers take group positions
// (connector.GroupPositionWriter) and record them.
type positionSink struct {
	*testkit.FileSink
	mu   sync.Mutex
	took int
}

type positionWriter struct {
	connector.Writer
	s *positionSink
}

func (s *positionSink) Open(ctx context.Context, task connector.TaskInfo) (connector.Writer, error) {
	w, err := s.FileSink.Open(ctx, task)
	if err != nil {
		return nil, err
	}
	return &positionWriter{Writer: w, s: s}, nil
}

func (w *positionWriter) AcceptsGroupPositions(p connector.GroupPositions) bool {
	return p.Cluster == "c"
}

func (w *positionWriter) PreCommitWithPositions(ctx context.Context, id int64, ps []connector.GroupPositions) ([]connector.Committable, error) {
	w.s.mu.Lock()
	w.s.took += len(ps)
	w.s.mu.Unlock()
	return w.Writer.PreCommit(ctx, id)
}

// TestGroupPositionsAfterCommits: with the commits of every checkpoint
// delayed, the group positions are committed only once the output before
// them is committed, and at the end (graceful finish) they are the input's
// end — the final checkpoint's positions are committed too.
func TestGroupPositionsAfterCommits(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.sinks = 1
	fs := &testkit.FileSink{Dir: r.dir + "/out/a"}
	r.fileSinks = []*testkit.FileSink{fs}
	src := &groupSource{SeqSource: testkit.SeqSource{Partitions: r.partitions, PerPartition: r.per, Batch: r.batch, Delay: r.delay},
		sinkDir: fs.Dir, committed: map[string]int64{}}
	faults := &testkit.Faults{}
	for i := 1; i <= 20; i++ {
		faults.On(runtime.CommitDelay, i, testkit.Delay, 15*time.Millisecond)
	}
	r.faults = faults
	r.tweak = func(s *runtime.JobSpec) {
		s.Pipelines[0].Sources[0].Source = src
		s.Pipelines[0].Partition = func(row types.Row, n int) int { return int(row.Fields[0].Int64()) % n }
	}
	if err := runJob(t, r.job(t), time.Minute); err != nil {
		t.Fatal(err)
	}
	r.verify(t, r.full())
	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.ahead) > 0 {
		t.Fatalf("group positions ahead of the committed output %d times, first: %v", len(src.ahead), src.ahead[:min(4, len(src.ahead))])
	}
	if src.commits == 0 {
		t.Fatal("no group positions were committed")
	}
	for p := range r.partitions {
		if got := src.committed["p"+strconv.Itoa(p)]; got != r.per {
			t.Errorf("split p%d: group at %d after the job finished, want %d (the final checkpoint's positions)", p, got, r.per)
		}
	}
}

// TestGroupPositionsToOneWriter: when every row of a source task goes to
// one sink task (no re-partitioning), the positions travel with the
// barrier to that writer, which takes them, and the source never commits
// them itself; with re-partitioning the writer never gets them.
func TestGroupPositionsToOneWriter(t *testing.T) {
	t.Parallel()
	for _, repartition := range []bool{false, true} {
		t.Run(fmt.Sprintf("repartition=%v", repartition), func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			fs := &testkit.FileSink{Dir: r.dir + "/out/a"}
			r.fileSinks = []*testkit.FileSink{fs}
			src := &groupSource{SeqSource: testkit.SeqSource{Partitions: r.partitions, PerPartition: r.per, Batch: r.batch, Delay: r.delay},
				sinkDir: fs.Dir, committed: map[string]int64{}}
			ps := &positionSink{FileSink: fs}
			r.tweak = func(s *runtime.JobSpec) {
				s.Pipelines[0].Sources[0].Source = src
				s.Pipelines[0].Sinks[0].Sink = ps
				if repartition {
					s.Pipelines[0].Partition = func(row types.Row, n int) int { return int(row.Fields[0].Int64()) % n }
				}
			}
			if err := runJob(t, r.job(t), time.Minute); err != nil {
				t.Fatal(err)
			}
			r.verify(t, r.full())
			src.mu.Lock()
			commits := src.commits
			src.mu.Unlock()
			ps.mu.Lock()
			took := ps.took
			ps.mu.Unlock()
			switch {
			case !repartition && (took == 0 || commits != 0):
				t.Fatalf("writer took %d positions, source committed %d times; want >0 and 0", took, commits)
			case repartition && (took != 0 || commits == 0):
				t.Fatalf("writer took %d positions, source committed %d times; want 0 and >0", took, commits)
			}
		})
	}
}
