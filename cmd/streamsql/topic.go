package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/streamsql/streamsql/cmd/streamsql/internal/topicload"
)

// topicCommand builds `streamsql topic`, whose one subcommand loads lines
// into a Kafka topic.
func topicCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "topic",
		Short: "Create a Kafka topic and load records into it",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(topicLoadCommand(e))
	return cmd
}

func topicLoadCommand(e *env) *cobra.Command {
	var (
		bootstrap  string
		topic      string
		partitions int32
	)
	cmd := &cobra.Command{
		Use:   "load --bootstrap-servers HOST:PORT --topic TOPIC FILE...",
		Short: "Create a Kafka topic unless it exists and write each line of FILE to it",
		Long: `Create the topic unless it exists (--partitions, default 1) and write each line
of the files (- for standard input), in order, to it as one record's value,
without key: JSON lines for a table with 'format' = 'json' or 'debezium-json',
say. An empty line is a record without value (a tombstone). The command ends
when the broker has acknowledged every record; it prints how many it wrote.
It connects without TLS or SASL. The examples' input files are
examples/data/EXAMPLE/TOPIC.jsonl (each example says how to load its own), and 'streamsql run --embedded-kafka
--load TOPIC=FILE' does the same on the embedded broker before the job starts.

Exit codes: 0 done, 1 reading or writing failed, 2 the command line is wrong.`,
		Example: `  streamsql topic load --bootstrap-servers localhost:9092 --topic orders examples/data/exactly_once/orders.jsonl
  printf '{"id":1}\n{"id":2}\n' | streamsql topic load --bootstrap-servers localhost:9092 --topic orders -`,
		RunE: func(cmd *cobra.Command, files []string) error {
			if bootstrap == "" || topic == "" || len(files) == 0 {
				return fmt.Errorf("--bootstrap-servers, --topic and at least one FILE (- for standard input) are required")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			total := 0
			for _, name := range files {
				n, err := loadFile(ctx, cmd.InOrStdin(), name, topicload.Options{Brokers: strings.Split(bootstrap, ","), Topic: topic, Partitions: partitions})
				total += n
				if err != nil {
					fmt.Fprintf(e.stderr, "streamsql: %s: %v\n", name, err)
					return errFailed
				}
				if ctx.Err() != nil {
					return errFailed
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d records to topic %s\n", total, topic)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-servers", "", "Kafka bootstrap servers, comma-separated")
	f.StringVar(&topic, "topic", "", "the topic to write (created unless it exists)")
	f.Int32Var(&partitions, "partitions", 1, "the number of partitions of the topic if it is created")
	return cmd
}

// loadFile writes the lines of the file name (- for standard input) to
// the topic of o.
func loadFile(ctx context.Context, stdin io.Reader, name string, o topicload.Options) (int, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		r = f
	}
	return topicload.Load(ctx, o, r)
}
