package runtime_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// A job as the planner builds it: SET options parsed into a Config, one
// pipeline with a filter, checkpoints every 10 ms under a folder named
// after the job.
func Example() {
	dir, err := os.MkdirTemp("", "streamsql-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	cfg, err := jobconfig.ParseConfig(map[string]string{
		"execution.checkpointing.interval": "10 ms",
		"execution.checkpointing.dir":      "file://" + filepath.Join(dir, "checkpoints"),
	})
	if err != nil {
		panic(err)
	}
	out := &testkit.FileSink{Dir: filepath.Join(dir, "out")}
	job, err := runtime.NewJob(runtime.JobSpec{
		Name:   "even-rows",
		Config: cfg,
		Pipelines: []runtime.Pipeline{{
			Sources: []runtime.SourceSpec{{Name: "seq", Source: &testkit.SeqSource{Partitions: 2, PerPartition: 100}, Parallelism: 2}},
			// WHERE seq % 2 = 0
			Transform: func(in types.Row, out []types.Row) ([]types.Row, error) {
				if in.Fields[1].Int64()%2 == 0 {
					out = append(out, in)
				}
				return out, nil
			},
			Sinks: []runtime.SinkSpec{{Name: "out", Sink: out}},
		}},
		Logger: quietLogger(),
	})
	if err != nil {
		panic(err)
	}
	if err := job.Run(context.Background()); err != nil {
		panic(err)
	}
	rows, err := testkit.ReadCommitted(out.Dir)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(rows), "rows committed; state", job.Status().State)
	// Output: 100 rows committed; state FINISHED
}
