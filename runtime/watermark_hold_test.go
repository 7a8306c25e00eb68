package runtime_test

import (
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// holdOp holds the watermark back by hold ms (stream.WatermarkHolder), as
// an interval join does, and passes rows on.
type holdOp struct {
	stream.Base
	hold int64
}

func (o *holdOp) Open(*stream.Context) error { return nil }
func (o *holdOp) Process(_ int, rows []types.Row, out *stream.Output) error {
	for _, r := range rows {
		out.Emit(r)
	}
	return nil
}
func (o *holdOp) OutputWatermark(wm int64) int64 {
	if wm == stream.MaxWatermark || wm == stream.MinWatermark {
		return wm
	}
	return wm - o.hold
}

// wmRecorder notes every watermark it is handed and the largest event
// time it saw.
type wmRecorder struct {
	stream.Base
	mu   *sync.Mutex
	seen *[]int64
	max  *int64
}

func (o *wmRecorder) Open(*stream.Context) error { return nil }
func (o *wmRecorder) Process(_ int, rows []types.Row, out *stream.Output) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range rows {
		*o.max = max(*o.max, r.Fields[2].Int64())
		out.Emit(r)
	}
	return nil
}
func (o *wmRecorder) Watermark(wm int64, _ *stream.Output) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	*o.seen = append(*o.seen, wm)
	return nil
}

// TestWatermarkHolder: an operator that holds the watermark back
// (stream.WatermarkHolder) hands the operators after it, fused in its
// task or behind an exchange, the held watermark, never the one it was
// given, and the maximum at the end of input.
func TestWatermarkHolder(t *testing.T) {
	for _, chained := range []bool{true, false} {
		var mu sync.Mutex
		var seen []int64
		var maxTime int64
		src := &eventSource{per: []int64{400}, times: func(_ int, seq int64) int64 { return 10_000 + seq*10 }}
		cfg := jobconfig.DefaultConfig()
		cfg.Restart.Strategy = jobconfig.RestartNone
		cfg.DisableChaining = !chained
		g := runtime.Graph{Vertices: []runtime.Vertex{
			{ID: "main/src", Source: &runtime.SourceVertex{Source: src, Watermark: &runtime.WatermarkSpec{Generate: eventTime}}},
			{ID: "main/hold", Operator: &runtime.OperatorVertex{New: func(stream.TaskInfo) (stream.Operator, error) { return &holdOp{hold: 1000}, nil }}},
			{ID: "main/rec", Operator: &runtime.OperatorVertex{New: func(stream.TaskInfo) (stream.Operator, error) {
				return &wmRecorder{mu: &mu, seen: &seen, max: &maxTime}, nil
			}}},
			{ID: "main/out", Sink: &runtime.SinkVertex{Sink: &countSink{}}}},
			Edges: []runtime.Edge{{From: 0, To: 1}, {From: 1, To: 2}, {From: 2, To: 3}}}
		if !chained {
			g.Edges[1].Exchange = runtime.Exchange{Kind: runtime.Single}
		}
		j, err := runtime.NewJob(runtime.JobSpec{Name: "hold", Config: cfg, Graph: g, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if err := runJob(t, j, time.Minute); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if len(seen) < 2 || seen[len(seen)-1] != stream.MaxWatermark {
			t.Fatalf("chained %v: watermarks %v, want some then the maximum", chained, seen)
		}
		for _, wm := range seen[:len(seen)-1] {
			// The source's watermark is at most the largest event time.
			if wm > maxTime-1000 {
				t.Fatalf("chained %v: watermark %d passed the held %d", chained, wm, maxTime-1000)
			}
		}
		mu.Unlock()
	}
}
