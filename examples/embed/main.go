// Command embed shows streamsql embedded in a Go program: it compiles a
// job from SQL text with a variable, runs it under a context that
// SIGINT/SIGTERM cancel (a graceful stop with a final checkpoint), and
// logs the job's status every second while it runs. Its sink is the
// program's own connector, 'counter', registered in a copy of the
// registry of the built-in connectors (imported from connectors/all) and
// named from SQL.
//
//	go run ./examples/embed            # 20 rows, then it ends
//	go run ./examples/embed -rows 0    # unbounded; Ctrl-C stops
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/streamsql/streamsql/connector"
	// The built-in connectors and formats; package job registers none.
	// A program may import only the ones its SQL names instead (here
	// connectors/datagen), which keeps the others' dependencies, such as
	// the Kafka client, out of its binary.
	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/types"
)

const jobSQL = `
SET 'execution.checkpointing.interval' = '1s';

CREATE TABLE clicks (user_id BIGINT, url STRING) WITH (
  'connector' = 'datagen', 'rows-per-second' = '10', 'seed' = '1',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '100',
  'fields.url.length' = '8'
);

CREATE TABLE counted (user_id BIGINT, url STRING) WITH ('connector' = 'counter');

INSERT INTO counted SELECT user_id, url FROM clicks WHERE user_id <= ${MAX_USER};
`

// counter is a sink connector that counts the rows written to it.
type counter struct{ rows atomic.Int64 }

func (c *counter) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return c, nil
}

func (c *counter) Write(_ context.Context, rows []types.Row) error {
	c.rows.Add(int64(len(rows)))
	return nil
}

func (c *counter) PreCommit(context.Context, int64) ([]connector.Committable, error) {
	return nil, nil
}

func (c *counter) Close() error { return nil }

func main() {
	rows := flag.Int("rows", 20, "rows to generate; 0 runs until stopped")
	maxUser := flag.Int("max-user", 50, "keep the clicks of users up to this id")
	flag.Parse()
	if _, err := run(*rows, *maxUser); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run runs the job and returns the number of rows the sink kept.
func run(rows, maxUser int) (int64, error) {
	sink := &counter{}
	reg := job.NewRegistry()
	if err := reg.RegisterConnector(factory.ConnectorFactory{
		Identifier:  "counter",
		Description: "Counts the rows written to it.",
		NewSink:     func(factory.Context) (connector.Sink, error) { return sink, nil },
	}); err != nil {
		return 0, err
	}
	// A demo starts afresh each time, so its checkpoints go to a folder of
	// its own that it removes; a real program keeps them in a durable
	// folder (the default: ~/.local/state/streamsql/checkpoints/<job>), so
	// that a restart resumes, and a bounded job that finished does not run
	// again.
	dir, err := os.MkdirTemp("", "embed-example-checkpoints")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	opts := job.Options{
		Registry: reg,
		Vars:     map[string]string{"MAX_USER": strconv.Itoa(maxUser)},
		JobName:  "embed-example",
		Set:      map[string]string{"execution.checkpointing.dir": dir},
	}
	if rows > 0 {
		opts.Hints = map[string]map[string]string{"clicks": {"number-of-rows": strconv.Itoa(rows)}}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	j, err := job.Compile(ctx, "embed.sql", jobSQL, opts)
	if err != nil {
		return 0, err
	}

	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			st := j.Status()
			slog.Info("job ended", "state", st.State, "rows kept", sink.rows.Load(),
				"checkpoints", st.Checkpoints.Completed)
			return sink.rows.Load(), err
		case <-tick.C:
			st := j.Status()
			slog.Info("status", "state", st.State, "rows kept", sink.rows.Load(),
				"checkpoints", st.Checkpoints.Completed, "pending commits", st.PendingCommits)
		}
	}
}
