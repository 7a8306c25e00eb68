package main

import (
	"fmt"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/connectors/nexmark/nexmarkload"
)

// nexmarkCommand builds `streamsql nexmark`, whose one subcommand fills a
// Kafka topic with the Nexmark events.
func nexmarkCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   nexmark.Identifier,
		Short: "Tools for the Nexmark benchmark",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(nexmarkLoadCommand(e))
	return cmd
}

func nexmarkLoadCommand(e *env) *cobra.Command {
	var (
		bootstrap  string
		topic      string
		events     int64
		partitions int32
		options    []string
	)
	cmd := &cobra.Command{
		Use:   "load --bootstrap-servers HOST:PORT --topic TOPIC --events N",
		Short: "Fill a Kafka topic with Nexmark events as JSON",
		Long: `Generate Nexmark events, as the nexmark connector does for the same options, and
write them to a Kafka topic as JSON, one record per event in the shape of the
public ddl_kafka.sql table (event_type, person, auction, bid; what Flink's json
format writes for it), so that the Kafka variant of the Nexmark queries reads
them. --option takes the nexmark connector's options (first-event.rate, seed,
base-time, scan.parallelism, ...; see docs/nexmark.md); scan.parallelism
generators are encoded in parallel. The command ends when every record is
acknowledged.

Exit codes: 0 done, 1 writing failed, 2 the command line is wrong.`,
		Example: `  streamsql nexmark load --bootstrap-servers localhost:9092 --topic nexmark --events 10000000 --partitions 8
  streamsql nexmark load --bootstrap-servers localhost:9092 --topic nexmark --events 1000000 \
      --option seed=7 --option 'base-time=2024-01-01 00:00:00' --option scan.parallelism=2`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if bootstrap == "" || topic == "" || events <= 0 {
				return fmt.Errorf("--bootstrap-servers, --topic and --events (above 0) are required")
			}
			opts := map[string]string{nexmark.OptionEventsNum: fmt.Sprint(events)}
			for _, kv := range options {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return fmt.Errorf("--option %q: want key=value", kv)
				}
				if k == nexmark.OptionEventsNum {
					return fmt.Errorf("--option %s: use --events", k)
				}
				opts[strings.TrimSpace(k)] = v
			}
			cfg, err := nexmark.ConfigFromOptions(opts)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			res, err := nexmarkload.Load(ctx, nexmarkload.Options{
				Brokers:    strings.Split(bootstrap, ","),
				Topic:      topic,
				Partitions: partitions,
				Config:     cfg,
				Progress: func(n int64) {
					fmt.Fprintf(e.stderr, "%d of %d events\n", n, events)
				},
			})
			if err != nil {
				fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
				return errFailed
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d events (%d bytes) to topic %s in %v (%.0f events/s)\n",
				res.Events, res.Bytes, topic, res.Elapsed.Round(1e6), float64(res.Events)/res.Elapsed.Seconds())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-servers", "", "Kafka bootstrap servers, comma-separated")
	f.StringVar(&topic, "topic", "", "the topic to fill")
	f.Int64Var(&events, "events", 0, "the number of events (the connector's events.num)")
	f.Int32Var(&partitions, "partitions", 0, "create the topic with this many partitions if it does not exist")
	f.StringArrayVar(&options, "option", nil, "a nexmark connector option, key=value (repeatable)")
	return cmd
}
