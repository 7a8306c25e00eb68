// Command streamsql runs streaming jobs written as Flink SQL files.
//
// Commands:
//
//	streamsql validate JOB.sql   parse and plan the job, validate every table's
//	                             options without connecting anywhere, and list
//	                             every error
//	streamsql explain JOB.sql    print the plan: sources, filters and
//	                             projections, sinks, checkpoint settings and
//	                             warnings
//	streamsql version            print the version
//
// validate and explain take --set key=value (repeatable), applied after
// the file's SET statements. ${NAME} references in the file are replaced
// from the environment. Exit codes: 0 done, 1 the job file has errors, 2
// the command line is wrong.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	// Time zones for table.local-time-zone on machines without zoneinfo.
	_ "time/tzdata"

	"github.com/spf13/cobra"

	// The built-in connectors and formats.
	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/planner"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	usageFooter = "Run 'streamsql --help' for usage."
)

// errFailed is returned by a command whose job file has errors, after it
// has printed them.
var errFailed = errors.New("failed")

// run executes the command line args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(args, stdout, stderr, factory.Default)
}

// runWith is run with the registry that validates table options.
func runWith(args []string, stdout, stderr io.Writer, reg *factory.Registry) int {
	root := newRoot(stdout, stderr, reg)
	root.SetArgs(args)
	err := root.Execute()
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFailed):
		return exitFailed
	}
	fmt.Fprintf(stderr, "streamsql: %v\n%s\n", err, usageFooter)
	return exitUsage
}

// newRoot builds the command tree. reg validates table options.
func newRoot(stdout, stderr io.Writer, reg *factory.Registry) *cobra.Command {
	root := &cobra.Command{
		Use:   "streamsql",
		Short: "Run streaming jobs written as Flink SQL files",
		Long: `streamsql runs streaming jobs written as Flink SQL files: SET, CREATE TABLE,
CREATE VIEW and INSERT INTO ... SELECT, with Kafka, datagen, print, blackhole
and filesystem connectors, and exactly-once delivery through checkpoints.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return err })
	root.AddCommand(
		&cobra.Command{
			Use:   "version",
			Short: "Print the version",
			Args:  noArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				fmt.Fprintln(cmd.OutOrStdout(), "streamsql", version())
				return nil
			},
		},
		jobCommand("validate", reg, stdout, stderr),
		jobCommand("explain", reg, stdout, stderr),
	)
	return root
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
	}
	return nil
}

// jobCommand builds validate or explain.
func jobCommand(name string, reg *factory.Registry, stdout, stderr io.Writer) *cobra.Command {
	var sets []string
	cmd := &cobra.Command{
		Use:  name + " JOB.sql",
		Args: exactlyOneFile,
	}
	switch name {
	case "validate":
		cmd.Short = "Check a job file without running it"
		cmd.Long = `Parse and plan a job file and validate every table's options, without
connecting to anything. Every error is listed with its file, line and column;
warnings are printed too. The exit code is 0 when the file is clean, 1 when
it has errors.`
		cmd.Example = `  streamsql validate job.sql
  KAFKA_BOOTSTRAP=localhost:9092 streamsql validate examples/sql/exactly_once.sql
  streamsql validate --set execution.checkpointing.interval=10s job.sql`
	default:
		cmd.Short = "Print the plan of a job file"
		cmd.Long = `Plan a job file and print, for each INSERT, its sources (connector, topics,
startup and bounded modes, isolation level), filter and projections, and its
sink (connector, delivery guarantee, transactional-id prefix), then the
checkpoint settings in effect and any warnings. Secrets are masked.`
		cmd.Example = `  streamsql explain job.sql
  streamsql explain --set pipeline.name=orders-v2 --set execution.checkpointing.interval=5s job.sql`
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "set a job option `key=value`, after the file's SET statements (repeatable)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		set := map[string]string{}
		for _, s := range sets {
			k, v, ok := strings.Cut(s, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return fmt.Errorf("--set %q: want key=value", s)
			}
			set[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		plan, err := planner.CompileFile(context.Background(), args[0], planner.Options{
			Registry: reg, Env: os.LookupEnv, Set: set,
		})
		if err != nil {
			errs := planner.Errors(err)
			for _, e := range errs {
				fmt.Fprintf(stderr, "%v\n\n", e)
			}
			fmt.Fprintf(stderr, "%s: %d error(s)\n", args[0], len(errs))
			return errFailed
		}
		if name == "explain" {
			return plan.Explain(stdout)
		}
		for _, w := range plan.Warnings {
			if w.Pos.IsValid() {
				fmt.Fprintf(stderr, "%s:%d:%d: warning: %s\n", args[0], w.Pos.Line, w.Pos.Column, w.Message)
			} else {
				fmt.Fprintf(stderr, "%s: warning: %s\n", args[0], w.Message)
			}
		}
		fmt.Fprintf(stdout, "%s: OK (job %s, %d pipeline(s), %d warning(s))\n", args[0], plan.JobName, len(plan.Inserts), len(plan.Warnings))
		return nil
	}
	return cmd
}

func exactlyOneFile(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("%s takes one job file, got %d arguments", cmd.Name(), len(args))
	}
	return nil
}

// version returns the module version the binary was built from, or
// "(devel)" for a build from a work tree.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
