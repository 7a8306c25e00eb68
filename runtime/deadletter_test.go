package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime"
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
	cfg := runtime.DefaultConfig()
	cfg.Checkpoint.Interval = 10 * time.Millisecond
	cfg.Restart.Strategy = runtime.RestartNone
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
}

// TestDeadLettersWithoutSink: dead letters from a source without a
// dead-letter sink fail the job instead of piling up.
func TestDeadLettersWithoutSink(t *testing.T) {
	src := &dlSource{n: 10, sink: &dlSink{}, atSnap: map[int64]int{}}
	cfg := runtime.DefaultConfig()
	cfg.Restart.Strategy = runtime.RestartNone
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
