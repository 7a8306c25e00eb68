package runtime_test

import (
	"testing"
	"time"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
)

// BenchmarkCheckpointCost measures the throughput of the file-writing test
// sink without periodic checkpoints (one final checkpoint commits all) and
// with checkpoints every second, and the mean checkpoint duration. Run it
// with a benchtime of several seconds so that checkpoints happen:
//
//	go test -run '^$' -bench CheckpointCost -benchtime 10s ./runtime/
func BenchmarkCheckpointCost(b *testing.B) {
	for _, tc := range []struct {
		name     string
		interval time.Duration
	}{{"none", 0}, {"1s", time.Second}} {
		b.Run(tc.name, func(b *testing.B) {
			r := newRig(b)
			r.partitions, r.srcPar, r.sinkPar, r.delay, r.batch = 4, 1, 1, 0, 512
			r.per = max(int64(b.N)/4, 1)
			r.interval = tc.interval
			r.tweak = func(s *runtime.JobSpec) { s.Config.Restart.Strategy = jobconfig.RestartNone }
			j := r.job(b)
			b.ResetTimer()
			start := time.Now()
			if err := runJob(b, j, 10*time.Minute); err != nil {
				b.Fatal(err)
			}
			el := time.Since(start)
			b.StopTimer()
			st := j.Status().Checkpoints
			b.ReportMetric(float64(4*r.per)/el.Seconds(), "rows/s")
			b.ReportMetric(float64(st.Completed), "checkpoints")
			if st.Completed > 0 {
				b.ReportMetric(float64(st.TotalDuration.Microseconds())/float64(st.Completed)/1000, "ms/checkpoint")
			}
		})
	}
}
