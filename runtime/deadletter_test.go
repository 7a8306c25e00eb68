package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// dlSource is a bounded source of one split whose reader sets every third
// record aside as a dead letter, often in a Read that returns no rows, and
// lets the pipeline reject rows (BadRowHandler) as dead letters too. It
// records, per checkpoint, how many dead letters it had set aside when it
// snapshot its position.
type dlSource struct {
	n    int
	sink *dlSink

	mu      sync.Mutex
	atSnap  map[int64]int // checkpoint → dead letters set aside by then
	handled int           // rows handed to RejectRow
}

func (s *dlSource) Splits(context.Context) ([]connector.Split, error) {
	return []connector.Split{{ID: "only"}}, nil
}
func (s *dlSource) Bounded() bool { return true }
func (s *dlSource) Open(_ context.Context, _ connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r := &dlReader{s: s}
	if st := splits[0].State; st != nil {
		r.next, _ = strconv.Atoi(string(st))
	}
	return r, nil
}
func (s *dlSource) DeadLetterSink(cfg connector.DeadLetterConfig) (connector.Sink, error) {
	s.sink.name = cfg.Name
	return s.sink, nil
}

type dlReader struct {
	s     *dlSource
	next  int
	dead  []types.Row
	made  int // dead letters set aside
	batch []int
}

func (r *dlReader) Read(ctx context.Context) ([]types.Row, error) {
	if r.next >= r.s.n {
		return nil, io.EOF
	}
	time.Sleep(200 * time.Microsecond)
	i := r.next
	r.next++
	r.batch = r.batch[:0]
	if i%3 == 0 {
		r.dead = append(r.dead, types.Row{Fields: []types.Value{types.Int64(int64(i))}})
		r.made++
		return nil, nil // a batch of bad records only
	}
	r.batch = append(r.batch, i)
	return []types.Row{{Fields: []types.Value{types.Int64(int64(i))}}}, nil
}

func (r *dlReader) RejectRow(i int, err error) bool {
	if !errors.Is(err, connector.ErrBadRow) {
		return false
	}
	r.dead = append(r.dead, types.Row{Fields: []types.Value{types.Int64(int64(r.batch[i]))}})
	r.made++
	r.s.mu.Lock()
	r.s.handled++
	r.s.mu.Unlock()
	return true
}

func (r *dlReader) DeadLetters() []types.Row {
	out := r.dead
	r.dead = nil
	return out
}

func (r *dlReader) Snapshot(id int64) ([]connector.SplitState, error) {
	r.s.mu.Lock()
	r.s.atSnap[id] = r.made
	r.s.mu.Unlock()
	return []connector.SplitState{{ID: "only", State: []byte(strconv.Itoa(r.next))}}, nil
}
func (r *dlReader) Close() error { return nil }

// dlSink is a two-phase sink that records what each pre-commit held.
type dlSink struct {
	name string

	mu        sync.Mutex
	written   int
	atPre     map[int64]int // checkpoint → dead letters written by its pre-commit
	committed map[int64]bool
	rows      []int64
}

func (s *dlSink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return dlWriter{s}, nil
}
func (s *dlSink) Committer(context.Context, string) (connector.Committer, error) {
	return dlCommitter{s}, nil
}

type dlWriter struct{ s *dlSink }

func (w dlWriter) Write(_ context.Context, rows []types.Row) error {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.written += len(rows)
	for _, r := range rows {
		w.s.rows = append(w.s.rows, r.Fields[0].Int64())
	}
	return nil
}
func (w dlWriter) PreCommit(_ context.Context, id int64) ([]connector.Committable, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.atPre[id] = w.s.written
	return []connector.Committable{connector.Committable(strconv.FormatInt(id, 10))}, nil
}
func (w dlWriter) Close() error { return nil }

type dlCommitter struct{ s *dlSink }

func (c dlCommitter) Commit(_ context.Context, b connector.Committable) error {
	id, _ := strconv.ParseInt(string(b), 10, 64)
	c.s.mu.Lock()
	c.s.committed[id] = true
	c.s.mu.Unlock()
	return nil
}
func (c dlCommitter) Abort(context.Context, connector.Committable) error { return nil }
func (c dlCommitter) Recover(context.Context, []connector.Committable) error {
	return nil
}
func (c dlCommitter) Close() error { return nil }

type discardSink struct{}

func (discardSink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return discardWriter{}, nil
}

type discardWriter struct{}

func (discardWriter) Write(context.Context, []types.Row) error { return nil }
func (discardWriter) PreCommit(context.Context, int64) ([]connector.Committable, error) {
	return nil, nil
}
func (discardWriter) Close() error { return nil }

// TestDeadLetterSinkFollowsBarriers runs a source with a dead-letter sink
// (runtime.SourceSpec.DeadLetter): every dead letter the reader set aside
// before the snapshot of checkpoint N — from Reads that returned no rows,
// and from rows the transform rejected (connector.ErrBadRow) — is in the
// dead-letter sink's pre-commit for N, and none set aside after it; the
// dead-letter sink's committables are committed with the checkpoints; its
// id is "<pipeline>/<name>".
func TestDeadLetterSinkFollowsBarriers(t *testing.T) {
	dl := &dlSink{atPre: map[int64]int{}, committed: map[int64]bool{}}
	src := &dlSource{n: 600, sink: dl, atSnap: map[int64]int{}}
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 10 * time.Millisecond
	cfg.Restart.Strategy = jobconfig.RestartNone
	rejectEvery5th := func(in types.Row, out []types.Row) ([]types.Row, error) {
		if in.Fields[0].Int64()%5 == 0 {
			return out, fmt.Errorf("column 'x' is NOT NULL: %w", connector.ErrBadRow)
		}
		return append(out, in), nil
	}
	deadSink, err := src.DeadLetterSink(connector.DeadLetterConfig{Name: "main/src"})
	if err != nil {
		t.Fatal(err)
	}
	spec := runtime.JobSpec{Name: "dljob", Config: cfg, Logger: quietLogger(), Pipelines: []runtime.Pipeline{{Name: "main",
		Sources:   []runtime.SourceSpec{{Name: "src", Source: src, DeadLetter: &runtime.SinkSpec{Name: "src.dead-letter", Sink: deadSink}}},
		Transform: rejectEvery5th,
		Sinks:     []runtime.SinkSpec{{Name: "out", Sink: discardSink{}}}}}}
	j, err := runtime.NewJob(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	dl.mu.Lock()
	defer dl.mu.Unlock()
	if len(src.atSnap) < 2 {
		t.Fatalf("only %d checkpoints", len(src.atSnap))
	}
	for id, made := range src.atSnap {
		if got, ok := dl.atPre[id]; !ok || got != made {
			t.Errorf("checkpoint %d: the reader had set %d dead letters aside at its snapshot; the dead-letter sink pre-committed %d (present %v)", id, made, got, ok)
		}
		if !dl.committed[id] {
			t.Errorf("checkpoint %d: the dead-letter sink's committable was not committed", id)
		}
	}
	wantDead := 0
	for i := range 600 {
		if i%3 == 0 || i%5 == 0 {
			wantDead++
		}
	}
	if len(dl.rows) != wantDead || src.handled == 0 {
		t.Errorf("the dead-letter sink got %d rows, want %d (%d rejected rows among them)", len(dl.rows), wantDead, src.handled)
	}
	var deadTask bool
	for _, ts := range j.Status().Tasks {
		deadTask = deadTask || (ts.Kind == runtime.SinkTask && ts.Name == "main/src.dead-letter" && ts.RecordsIn == int64(wantDead))
	}
	if !deadTask || dl.name != "main/src" {
		t.Errorf("no sink task main/src.dead-letter with %d rows in the status (%+v), or the source's name %q", wantDead, j.Status().Tasks, dl.name)
	}
	// The status's graph: the transform is part of the source, the
	// dead-letter sink a vertex after it on a dead-letter edge.
	want := &runtime.GraphStatus{
		Vertices: []runtime.VertexStatus{
			{Kind: runtime.SinkTask, ID: "main/out", Name: "out", Parallelism: 1},
			{Kind: runtime.SourceTask, ID: "main/src", Name: "src", Parallelism: 1},
			{Kind: runtime.SinkTask, ID: "main/src.dead-letter", Name: "src.dead-letter", Parallelism: 1},
		},
		Edges: []runtime.EdgeStatus{{From: 1, To: 0, Exchange: "forward", Fused: true}, {From: 1, To: 2, Exchange: "dead-letter"}},
	}
	if got := j.Status().Graph; !reflect.DeepEqual(got, want) {
		t.Errorf("graph %+v, want %+v", got, want)
	}
}

// TestDeadLettersWithoutSink: dead letters from a source without a
// dead-letter sink fail the job instead of piling up.
func TestDeadLettersWithoutSink(t *testing.T) {
	src := &dlSource{n: 10, sink: &dlSink{}, atSnap: map[int64]int{}}
	cfg := jobconfig.DefaultConfig()
	cfg.Restart.Strategy = jobconfig.RestartNone
	j, err := runtime.NewJob(runtime.JobSpec{Name: "dljob", Config: cfg, Logger: quietLogger(), Pipelines: []runtime.Pipeline{{Name: "main",
		Sources: []runtime.SourceSpec{{Name: "src", Source: src}}, Sinks: []runtime.SinkSpec{{Name: "out", Sink: discardSink{}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := j.Run(ctx); err == nil || !strings.Contains(err.Error(), "no dead-letter sink") {
		t.Fatalf("job error %v, want one saying the source has no dead-letter sink", err)
	}
}

// txnSink is a two-phase pipeline sink whose writer takes dead letters in
// its transactions (connector.DeadLetterWriter); it records how many each
// pre-commit held.
type txnSink struct {
	dlSink
	wantDL connector.Sink // the dead-letter sink WriteDeadLetters must be given

	mu2      sync.Mutex
	dead     [2]int
	deadAt   map[int64]int // checkpoint → dead letters written by sink task 0's pre-commit
	wrongDL  int
	deadRows []int64
}

func (s *txnSink) Open(_ context.Context, task connector.TaskInfo) (connector.Writer, error) {
	return txnWriter{dlWriter{&s.dlSink}, s, task.Index}, nil
}
func (s *txnSink) Committer(context.Context, string) (connector.Committer, error) {
	return dlCommitter{&s.dlSink}, nil
}

type txnWriter struct {
	dlWriter
	s    *txnSink
	task int
}

func (w txnWriter) WriteDeadLetters(_ context.Context, dl connector.Sink, rows []types.Row) error {
	w.s.mu2.Lock()
	defer w.s.mu2.Unlock()
	if dl != w.s.wantDL {
		w.s.wrongDL++
	}
	w.s.dead[w.task] += len(rows)
	for _, r := range rows {
		w.s.deadRows = append(w.s.deadRows, r.Fields[0].Int64())
	}
	return nil
}

func (w txnWriter) PreCommit(ctx context.Context, id int64) ([]connector.Committable, error) {
	w.s.mu2.Lock()
	if w.task == 0 {
		w.s.deadAt[id] = w.s.dead[0]
	}
	w.s.mu2.Unlock()
	return w.dlWriter.PreCommit(ctx, id)
}

// unopenable is a dead-letter sink that must never be opened.
type unopenable struct{ opened *bool }

func (u unopenable) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	*u.opened = true
	return nil, errors.New("the dead-letter sink was opened")
}

// TestDeadLettersInSinkFollowBarriers runs a source whose dead letters go to
// the pipeline's sink (runtime.SourceSpec.DeadLettersInSink): every dead
// letter the reader set aside before the snapshot of checkpoint N — from
// Reads that returned no rows, and from rows the transform rejected — is
// written by the sink's writer before its pre-commit for N, and none set
// aside after it. They go to the sink task that receives the source task's
// rows (task 0 of 2); the writer is given the source's dead-letter sink,
// which the runtime never opens nor runs as a task.
func TestDeadLettersInSinkFollowBarriers(t *testing.T) {
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
		Sinks:     []runtime.SinkSpec{{Name: "out", Sink: snk, Parallelism: 2}}}}}
	j, err := runtime.NewJob(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
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
	if snk.dead[1] != 0 {
		t.Errorf("sink task 1, which receives no rows of the source task, got %d dead letters", snk.dead[1])
	}
	if len(snk.deadRows) != wantDead || src.handled == 0 || snk.wrongDL != 0 {
		t.Errorf("the sink got %d dead letters, want %d (%d rejected rows among them); %d writes named another dead-letter sink", len(snk.deadRows), wantDead, src.handled, snk.wrongDL)
	}
	if opened {
		t.Error("the dead-letter sink was opened")
	}
	for _, ts := range j.Status().Tasks {
		if ts.Name == "main/src.dead-letter" {
			t.Errorf("a task runs the dead-letter sink: %+v", ts)
		}
	}
}

// TestDeadLettersInSinkNeedsWriter: dead letters routed to a sink whose
// writer cannot take them fail the job when the writer opens, naming the
// sink and the interface.
func TestDeadLettersInSinkNeedsWriter(t *testing.T) {
	opened := false
	src := &dlSource{n: 10, sink: &dlSink{}, atSnap: map[int64]int{}}
	cfg := jobconfig.DefaultConfig()
	cfg.Restart.Strategy = jobconfig.RestartNone
	j, err := runtime.NewJob(runtime.JobSpec{Name: "dljob", Config: cfg, Logger: quietLogger(), Pipelines: []runtime.Pipeline{{Name: "main",
		Sources: []runtime.SourceSpec{{Name: "src", Source: src,
			DeadLetter: &runtime.SinkSpec{Name: "src.dead-letter", Sink: unopenable{&opened}}, DeadLettersInSink: true}},
		Sinks: []runtime.SinkSpec{{Name: "out", Sink: discardSink{}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := j.Run(ctx); err == nil || !strings.Contains(err.Error(), `sink "main/out"`) || !strings.Contains(err.Error(), "connector.DeadLetterWriter") {
		t.Fatalf("job error %v, want one naming the sink and connector.DeadLetterWriter", err)
	}
}

// TestDeadLettersInSinkRecoverOwnCommits: a checkpoint taken while a
// source's dead letters had transactions of their own (a dead-letter sink
// task) holds pending commits of that sink. A run that sends the dead
// letters to the pipeline's sink instead (DeadLettersInSink) restores it:
// recovery commits them with the dead-letter sink's committer, instead of
// refusing the checkpoint as one of a sink the job does not have.
func TestDeadLettersInSinkRecoverOwnCommits(t *testing.T) {
	dir := t.TempDir()
	dl := &dlSink{atPre: map[int64]int{}, committed: map[int64]bool{}}
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 10 * time.Millisecond
	cfg.Checkpoint.Dir = dir
	cfg.Restart.Strategy = jobconfig.RestartNone
	spec := func(src *dlSource, inSink bool, out connector.Sink, faults runtime.FaultInjector) runtime.JobSpec {
		return runtime.JobSpec{Name: "dljob", Config: cfg, Logger: quietLogger(), Faults: faults, Pipelines: []runtime.Pipeline{{Name: "main",
			Sources: []runtime.SourceSpec{{Name: "src", Source: src,
				DeadLetter: &runtime.SinkSpec{Name: "src.dead-letter", Sink: dl}, DeadLettersInSink: inSink}},
			Sinks: []runtime.SinkSpec{{Name: "out", Sink: out}}}}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// First run: its own dead-letter sink; it fails right after its second
	// checkpoint is written, before that checkpoint's commits.
	first := &dlSource{n: 600, sink: dl, atSnap: map[int64]int{}}
	faults := (&testkit.Faults{}).On(runtime.AfterCheckpointWritten, 2, testkit.Fail, 0)
	j, err := runtime.NewJob(spec(first, false, discardSink{}, faults))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); !errors.Is(err, testkit.ErrInjected) {
		t.Fatalf("first run: %v, want the injected failure", err)
	}
	dl.mu.Lock()
	pending := 0
	for id := range dl.atPre {
		if !dl.committed[id] {
			pending++
		}
	}
	dl.mu.Unlock()
	if pending == 0 {
		t.Fatal("the first run left no pending commit of the dead-letter sink")
	}

	// Second run: dead letters in the sink's transactions.
	snk := &txnSink{dlSink: dlSink{atPre: map[int64]int{}, committed: map[int64]bool{}}, wantDL: dl, deadAt: map[int64]int{}}
	second := &dlSource{n: 600, sink: dl, atSnap: map[int64]int{}}
	j, err = runtime.NewJob(spec(second, true, snk, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); err != nil {
		t.Fatalf("second run: %v", err)
	}
	dl.mu.Lock()
	defer dl.mu.Unlock()
	for id := range dl.atPre {
		if !dl.committed[id] {
			t.Errorf("the dead-letter sink's commit of checkpoint %d is still pending after the second run's recovery", id)
		}
	}
	snk.mu2.Lock()
	defer snk.mu2.Unlock()
	if len(snk.deadRows) == 0 {
		t.Error("the second run's dead letters did not go to the pipeline's sink")
	}
}
