package runtime_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// forgetSink is a sink whose writers copy each row's values at once and
// say, by ForgetsRows, that they keep no row past Write (when forget).
// It remembers the values and the rows' Fields addresses it saw.
type forgetSink struct {
	forget bool
	mu     sync.Mutex
	seqs   []int64
	// reused counts rows whose Fields sat where a row of an earlier
	// Write of the same writer had them.
	reused int
}

func (s *forgetSink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return &forgetWriter{s: s, seen: map[*types.Value]bool{}}, nil
}

type forgetWriter struct {
	s    *forgetSink
	seen map[*types.Value]bool
}

func (w *forgetWriter) Write(_ context.Context, rows []types.Row) error {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	var mine []*types.Value
	for _, r := range rows {
		w.s.seqs = append(w.s.seqs, r.Fields[1].Int64())
		if w.seen[&r.Fields[0]] {
			w.s.reused++
		}
		mine = append(mine, &r.Fields[0])
	}
	for _, p := range mine {
		w.seen[p] = true
	}
	return nil
}

func (w *forgetWriter) ForgetsRows() bool { return w.s.forget }

func (*forgetWriter) PreCommit(context.Context, int64) ([]connector.Committable, error) {
	return nil, nil
}

func (*forgetWriter) Close() error { return nil }

// exactlyEach fails unless seqs holds 0..per-1 once for each of parts
// partitions.
func exactlyEach(t *testing.T, seqs []int64, parts, per int) {
	t.Helper()
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	if len(seqs) != parts*per {
		t.Fatalf("%d rows written, want %d", len(seqs), parts*per)
	}
	for i, s := range seqs {
		if want := int64(i / parts); s != want {
			t.Fatalf("row %d of the sorted output has seq %d, want %d", i, s, want)
		}
	}
}

func reuseConfig(t *testing.T) jobconfig.Config {
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 20 * time.Millisecond
	cfg.Checkpoint.Dir = "file://" + t.TempDir()
	cfg.Restart.Strategy = jobconfig.RestartNone
	return cfg
}

// TestReusingTransformOnlyIntoForgettingWriter: a pipeline's
// NewReusingTransform is used, once per source task, exactly when its
// output goes to a sink writer fused after it that forgets rows
// (connector.RowForgetter); its release comes after each batch was
// written, and the rows it reuses are written right. Anywhere else
// (the writer keeps rows, an exchange between, two sinks) NewTransform
// is used.
func TestReusingTransformOnlyIntoForgettingWriter(t *testing.T) {
	const per = 500
	for _, c := range []struct {
		name            string
		forget          bool
		srcPar, sinkPar int
		sinks           int
		reuse           bool
	}{
		{name: "forgets, fused", forget: true, srcPar: 2, sinkPar: 2, sinks: 1, reuse: true},
		{name: "keeps, fused", forget: false, srcPar: 2, sinkPar: 2, sinks: 1},
		{name: "forgets, fan-in", forget: true, srcPar: 2, sinkPar: 1, sinks: 1},
		{name: "forgets, two sinks", forget: true, srcPar: 1, sinkPar: 1, sinks: 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			var made, reusing, releases atomic.Int32
			// The plain transform copies each row into a slice of its own.
			newFn := func() func(types.Row, []types.Row) ([]types.Row, error) {
				made.Add(1)
				return func(in types.Row, out []types.Row) ([]types.Row, error) {
					return append(out, types.Row{Kind: in.Kind, Fields: append([]types.Value(nil), in.Fields...)}), nil
				}
			}
			// The reusing one cuts rows from one buffer, from its start
			// again after each release.
			newReusing := func() (func(types.Row, []types.Row) ([]types.Row, error), func()) {
				reusing.Add(1)
				var buf []types.Value
				used := 0
				fn := func(in types.Row, out []types.Row) ([]types.Row, error) {
					n := len(in.Fields)
					if used+n > len(buf) {
						buf = make([]types.Value, 64*n)
						used = 0
					}
					f := buf[used : used+n : used+n]
					used += n
					copy(f, in.Fields)
					return append(out, types.Row{Kind: in.Kind, Fields: f}), nil
				}
				return fn, func() { releases.Add(1); used = 0 }
			}
			var snks []*forgetSink
			var specs []runtime.SinkSpec
			for i := range c.sinks {
				s := &forgetSink{forget: c.forget}
				snks = append(snks, s)
				specs = append(specs, runtime.SinkSpec{Name: fmt.Sprintf("out%d", i), Sink: s, Parallelism: c.sinkPar})
			}
			src := runtime.SourceSpec{Name: "seq", Source: &testkit.SeqSource{Partitions: 2, PerPartition: per, Batch: 10}, Parallelism: c.srcPar}
			job, err := runtime.NewJob(runtime.JobSpec{Name: "reuse", Config: reuseConfig(t), Logger: quietLogger(), Pipelines: []runtime.Pipeline{{
				Sources:      []runtime.SourceSpec{src},
				NewTransform: newFn, NewReusingTransform: newReusing, TransformCopies: true,
				Sinks: specs,
			}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := runJob(t, job, time.Minute); err != nil {
				t.Fatal(err)
			}
			for _, s := range snks {
				exactlyEach(t, s.seqs, 2, per)
			}
			if c.reuse {
				if made.Load() != 0 || reusing.Load() != int32(c.srcPar) {
					t.Fatalf("NewTransform called %d times, NewReusingTransform %d; want 0 and %d (once per source task)", made.Load(), reusing.Load(), c.srcPar)
				}
				if releases.Load() < 2*per/10 || snks[0].reused == 0 {
					t.Fatalf("%d releases, %d rows in reused memory; want one release per batch (%d batches) and reuse", releases.Load(), snks[0].reused, 2*per/10)
				}
				return
			}
			if reusing.Load() != 0 || made.Load() != int32(c.srcPar) {
				t.Fatalf("NewReusingTransform called %d times, NewTransform %d; want 0 and %d", reusing.Load(), made.Load(), c.srcPar)
			}
			for _, s := range snks {
				if s.reused != 0 {
					t.Fatalf("%d rows written in memory of earlier rows; want none", s.reused)
				}
			}
		})
	}
}

// reuseOp emits a copy of each row, cut from one buffer that it reuses
// from its start at each release, once the runtime asked it to
// (stream.OutputReuser); before that each row gets a slice of its own.
type reuseOp struct {
	stream.Base
	asked, releases *atomic.Int32
	reuse           bool
	buf             []types.Value
	used            int
}

func (o *reuseOp) Open(*stream.Context) error { return nil }

func (o *reuseOp) ReuseOutput() func() {
	o.asked.Add(1)
	o.reuse = true
	return func() { o.releases.Add(1); o.used = 0 }
}

func (o *reuseOp) Process(_ int, rows []types.Row, out *stream.Output) error {
	for _, r := range rows {
		n := len(r.Fields)
		var f []types.Value
		if o.reuse {
			if o.used+n > len(o.buf) {
				o.buf = make([]types.Value, 64*n)
				o.used = 0
			}
			f = o.buf[o.used : o.used+n : o.used+n]
			o.used += n
		} else {
			f = make([]types.Value, n)
		}
		copy(f, r.Fields)
		out.Emit(types.Row{Kind: r.Kind, Fields: f})
	}
	return nil
}

// TestOutputReuserOnlyIntoForgettingWriter: the last operator of a
// chain is asked to reuse its output (stream.OutputReuser) exactly when
// a sink writer fused after it forgets rows, and released after each
// call; an operator followed by another, or by a writer that keeps
// rows, or by an exchange, is never asked, unless the operator after it
// forgets its input (stream.InputForgetter), whatever the writer does.
func TestOutputReuserOnlyIntoForgettingWriter(t *testing.T) {
	const per = 500
	for _, c := range []struct {
		name      string
		forget    bool
		opPar     int  // the sink's parallelism is 2
		copyAfter bool // a copyOp between the operator and the sink
		// forgetterAfter: a forgetOp between the operator and the sink.
		forgetterAfter bool
		wantReusing    bool
	}{
		{name: "forgets, fused", forget: true, opPar: 2, wantReusing: true},
		{name: "keeps, fused", forget: false, opPar: 2},
		{name: "forgets, not last", forget: true, opPar: 2, copyAfter: true},
		{name: "forgets, fan-out", forget: true, opPar: 1},
		{name: "keeps, an operator that forgets its input after", forget: false, opPar: 2, forgetterAfter: true, wantReusing: true},
		{name: "forgets, an operator that forgets its input after", forget: true, opPar: 2, forgetterAfter: true, wantReusing: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked, releases atomic.Int32
			newOp := func(stream.TaskInfo) (stream.Operator, error) {
				return &reuseOp{asked: &asked, releases: &releases}, nil
			}
			snk := &forgetSink{forget: c.forget}
			vs := []runtime.Vertex{
				{ID: "main/seq", Name: "seq", Parallelism: 2, Source: &runtime.SourceVertex{Source: &testkit.SeqSource{Partitions: 2, PerPartition: per, Batch: 10}}},
				{ID: "main/reuse", Parallelism: c.opPar, Operator: &runtime.OperatorVertex{New: newOp, Copies: true}},
			}
			if c.copyAfter {
				vs = append(vs, runtime.Vertex{ID: "main/copy", Parallelism: c.opPar, Operator: &runtime.OperatorVertex{New: newCopyOp, Copies: true}})
			}
			var forgetter atomic.Int32 // rows the forgetOps saw in reused memory
			if c.forgetterAfter {
				newForgetOp := func(stream.TaskInfo) (stream.Operator, error) {
					return &forgetOp{reused: &forgetter, seen: map[*types.Value]bool{}}, nil
				}
				vs = append(vs, runtime.Vertex{ID: "main/forget", Parallelism: c.opPar, Operator: &runtime.OperatorVertex{New: newForgetOp, Copies: true}})
			}
			vs = append(vs, runtime.Vertex{ID: "main/out", Name: "out", Parallelism: 2, Sink: &runtime.SinkVertex{Sink: snk}})
			var es []runtime.Edge
			for i := 1; i < len(vs); i++ {
				es = append(es, runtime.Edge{From: i - 1, To: i, Exchange: runtime.Exchange{Kind: runtime.Forward}})
			}
			job, err := runtime.NewJob(runtime.JobSpec{Name: "reuse", Config: reuseConfig(t), Logger: quietLogger(),
				Graph: runtime.Graph{Vertices: vs, Edges: es}})
			if err != nil {
				t.Fatal(err)
			}
			if err := runJob(t, job, time.Minute); err != nil {
				t.Fatal(err)
			}
			exactlyEach(t, snk.seqs, 2, per)
			if c.forgetterAfter {
				if asked.Load() != 2 || releases.Load() < 2*per/10 || forgetter.Load() == 0 {
					t.Fatalf("asked %d times, %d releases, %d rows in reused memory; want 2 (once per task), one release per batch (%d) and reuse",
						asked.Load(), releases.Load(), forgetter.Load(), 2*per/10)
				}
				return
			}
			if c.wantReusing {
				if asked.Load() != 2 || releases.Load() < 2*per/10 || snk.reused == 0 {
					t.Fatalf("asked %d times, %d releases, %d rows in reused memory; want 2 (once per task), one release per batch (%d) and reuse",
						asked.Load(), releases.Load(), snk.reused, 2*per/10)
				}
				return
			}
			if asked.Load() != 0 || snk.reused != 0 {
				t.Fatalf("asked %d times, %d rows in reused memory; want neither", asked.Load(), snk.reused)
			}
		})
	}
}

// forgetOp emits a copy of each row and says that it keeps nothing of its
// input past the call (stream.InputForgetter). It counts the rows whose
// Fields sat where an earlier call's row had them.
type forgetOp struct {
	stream.Base
	reused *atomic.Int32
	seen   map[*types.Value]bool
}

func (*forgetOp) Open(*stream.Context) error { return nil }

func (*forgetOp) ForgetsInput() bool { return true }

func (o *forgetOp) Process(_ int, rows []types.Row, out *stream.Output) error {
	var mine []*types.Value
	for _, r := range rows {
		if o.seen[&r.Fields[0]] {
			o.reused.Add(1)
		}
		mine = append(mine, &r.Fields[0])
		out.Emit(types.Row{Kind: r.Kind, Fields: slices.Clone(r.Fields)})
	}
	for _, p := range mine {
		o.seen[p] = true
	}
	return nil
}
