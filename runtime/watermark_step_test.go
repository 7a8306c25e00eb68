package runtime_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// bucketOp keeps its rows (time in field 2) in buckets of a second, as a
// tumbling window would, and emits a bucket's rows when the watermark
// reaches its end minus one; it steps the watermark over its buckets
// (stream.WatermarkStepper).
type bucketOp struct {
	stream.Base
	rows map[int64][]types.Row
	ends []int64 // the buckets' ends, ascending
}

func (o *bucketOp) Open(*stream.Context) error { o.rows = map[int64][]types.Row{}; return nil }
func (o *bucketOp) Process(_ int, rows []types.Row, _ *stream.Output) error {
	for _, r := range rows {
		end := r.Fields[2].Int64()/1000*1000 + 1000
		if _, ok := o.rows[end]; !ok {
			i, _ := slices.BinarySearch(o.ends, end)
			o.ends = slices.Insert(o.ends, i, end)
		}
		o.rows[end] = append(o.rows[end], r)
	}
	return nil
}
func (o *bucketOp) Watermark(wm int64, out *stream.Output) error {
	for len(o.ends) > 0 && o.ends[0]-1 <= wm {
		for _, r := range o.rows[o.ends[0]] {
			out.Emit(r)
		}
		delete(o.rows, o.ends[0])
		o.ends = o.ends[1:]
	}
	return nil
}
func (o *bucketOp) WatermarkStep(wm int64) (int64, bool) {
	if len(o.ends) == 0 {
		return 0, false
	}
	return o.ends[0] - 1, o.ends[0]-1 < wm
}

// stepLog notes the rows' times and the watermarks an operator is handed,
// in order (a watermark as -1 - wm, times being positive).
type stepLog struct {
	stream.Base
	mu  *sync.Mutex
	log *[]int64
}

func (o *stepLog) Open(*stream.Context) error { return nil }
func (o *stepLog) Process(_ int, rows []types.Row, out *stream.Output) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range rows {
		*o.log = append(*o.log, r.Fields[2].Int64())
		out.Emit(r)
	}
	return nil
}
func (o *stepLog) Watermark(wm int64, _ *stream.Output) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	*o.log = append(*o.log, -1-wm)
	return nil
}

// TestWatermarkStepper: a watermark that jumps over several of an
// operator's firing points (the maximum at the end of input, here the only
// watermark) reaches it in steps, one per bucket (stream.
// WatermarkStepper), and the operators after it, fused in its task or
// behind an exchange, get each bucket's rows followed by that bucket's
// watermark, before the next bucket's rows.
func TestWatermarkStepper(t *testing.T) {
	for _, chained := range []bool{true, false} {
		var mu sync.Mutex
		var log []int64
		// 400 rows 10 ms apart: buckets ending at 11 000 to 14 000.
		src := &eventSource{per: []int64{400}, times: func(_ int, seq int64) int64 { return 10_000 + seq*10 }}
		cfg := jobconfig.DefaultConfig()
		cfg.Restart.Strategy = jobconfig.RestartNone
		cfg.DisableChaining = !chained
		g := runtime.Graph{Vertices: []runtime.Vertex{
			{ID: "main/src", Source: &runtime.SourceVertex{Source: src}},
			{ID: "main/bucket", Operator: &runtime.OperatorVertex{New: func(stream.TaskInfo) (stream.Operator, error) { return &bucketOp{}, nil }}},
			{ID: "main/log", Operator: &runtime.OperatorVertex{New: func(stream.TaskInfo) (stream.Operator, error) {
				return &stepLog{mu: &mu, log: &log}, nil
			}}},
			{ID: "main/out", Sink: &runtime.SinkVertex{Sink: &countSink{}}}},
			Edges: []runtime.Edge{{From: 0, To: 1}, {From: 1, To: 2}, {From: 2, To: 3}}}
		if !chained {
			g.Edges[1].Exchange = runtime.Exchange{Kind: runtime.Single}
		}
		j, err := runtime.NewJob(runtime.JobSpec{Name: "step", Config: cfg, Graph: g, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if err := runJob(t, j, time.Minute); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		var wms []int64
		rows, last := 0, int64(stream.MinWatermark)
		for _, x := range log {
			if x < 0 {
				wm := -1 - x
				// Every row at or below the watermark came before it.
				if want := min(400, max(0, int((wm-10_000)/10+1))); rows != want {
					t.Fatalf("chained %v: watermark %d after %d rows, want %d (log %v)", chained, wm, rows, want, log)
				}
				wms, last = append(wms, wm), wm
				continue
			}
			if x <= last {
				t.Fatalf("chained %v: a row of time %d after watermark %d", chained, x, last)
			}
			rows++
		}
		if want := []int64{10_999, 11_999, 12_999, 13_999, stream.MaxWatermark}; !slices.Equal(wms, want) {
			t.Fatalf("chained %v: watermarks %v, want %v", chained, wms, want)
		}
		mu.Unlock()
	}
}
