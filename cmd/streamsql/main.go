// Command streamsql runs streaming jobs written as Flink SQL files.
//
// Commands:
//
//	streamsql run JOB.sql        run the job until its bounded sources
//	                             end or it is stopped (SIGINT, SIGTERM)
//	streamsql validate JOB.sql   parse and plan the job, validate every table's
//	                             options without connecting anywhere, and list
//	                             every error
//	streamsql explain JOB.sql    print the plan: sources, filters and
//	                             projections, sinks, checkpoint settings and
//	                             warnings
//	streamsql nexmark load ...   fill a Kafka topic with Nexmark events
//	                             as JSON (docs/nexmark.md)
//	streamsql options [NAME]     list the connectors and formats, or every
//	                             option of one
//	streamsql checkpoint ...     list, show and edit a job's checkpoints
//	streamsql version            print the version
//
// run, validate and explain take --set key=value (repeatable) and
// --config FILE (YAML with the same keys as SET); precedence, lowest
// first: defaults, the config file, the file's SET statements, --set.
// ${NAME} references in the file are replaced from the environment. Exit
// codes: 0 done, 1 the job failed or the job file has errors, 2 the
// command line is wrong. See `streamsql run --help`.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	// Time zones for table.local-time-zone on machines without zoneinfo.
	_ "time/tzdata"

	"github.com/spf13/cobra"

	// The built-in connectors and formats.
	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/job"
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
	return execute(args, &env{stdout: stdout, stderr: stderr})
}

// env is what a command works with; tests replace parts of it.
type env struct {
	stdout, stderr io.Writer
	// reg validates table options and creates connectors; nil: the
	// registered ones (factory.Default).
	reg *factory.Registry
	// signals, when set, replaces the process's SIGINT and SIGTERM.
	signals <-chan os.Signal
	// exit ends the process at once on a second signal; nil: os.Exit.
	exit func(code int)
	// terminal forces (1) or disables (-1) terminal mode; 0 detects it.
	terminal int
	// testing holds the job's test knobs (fault injection).
	testing job.Testing
	// statusEvery is the period of status log lines when not on a
	// terminal; 0: 10 s.
	statusEvery time.Duration
}

// execute runs the command line args in e and returns the exit code.
func execute(args []string, e *env) int {
	stderr := e.stderr
	root := newRoot(e)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
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
func newRoot(e *env) *cobra.Command {
	stdout, stderr := e.stdout, e.stderr
	reg := e.reg
	if reg == nil {
		reg = factory.Default
	}
	root := &cobra.Command{
		Use:   "streamsql",
		Short: "Run streaming jobs written as Flink SQL files",
		Long: `streamsql runs streaming jobs written as Flink SQL files: SET, CREATE TABLE,
CREATE VIEW and INSERT INTO ... SELECT, with exactly-once delivery through
checkpoints.

` + factoryList(reg) + `
'streamsql options NAME' prints every option of one of them.

Exit codes (every command):
  0  done (a job ended: bounded sources finished, or it was stopped)
  1  the job failed, or the job file has errors
  2  usage error: wrong command line or --config file`,
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
		runCommand(e),
		jobCommand("validate", e),
		jobCommand("explain", e),
		checkpointCommand(e),
		nexmarkCommand(e),
		topicCommand(e),
		optionsCommand(e),
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
func jobCommand(name string, e *env) *cobra.Command {
	var jf jobFlags
	cmd := &cobra.Command{
		Use:  name + " JOB.sql",
		Args: exactlyOneFile,
	}
	switch name {
	case "validate":
		cmd.Short = "Check a job file without running it"
		cmd.Long = `Parse and plan a job file and validate every table's options, without
connecting to anything. Every error is listed with its file, line and column,
syntax and planning errors together in file order; warnings are printed too.

Exit codes: 0 the file is clean, 1 it has errors, 2 the command line (or the
--config file) is wrong.`
		cmd.Example = `  streamsql validate job.sql
  KAFKA_BOOTSTRAP=localhost:9092 streamsql validate examples/sql/exactly_once.sql
  streamsql validate --set execution.checkpointing.interval=10s job.sql
  streamsql validate --config prod.yaml job.sql`
	default:
		cmd.Short = "Print the plan of a job file"
		cmd.Long = `Plan a job file and print, for each INSERT, its sources (connector, topics,
startup and bounded modes, isolation level), filter and projections, and its
sink (connector, delivery guarantee, transactional-id prefix), then the
checkpoint settings in effect and any warnings. Secrets are masked.

Exit codes: 0 done, 1 the file has errors, 2 the command line (or the
--config file) is wrong.`
		cmd.Example = `  streamsql explain job.sql
  streamsql explain --set pipeline.name=orders-v2 --set execution.checkpointing.interval=5s job.sql
  streamsql explain --config prod.yaml job.sql`
	}
	jf.register(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		// validate and explain connect nowhere: a ${NAME} that is not set
		// (a broker's address, a password) is planned with a placeholder,
		// and said so, rather than failing the check.
		j, err := jf.compile(cmd.Context(), e, args[0])
		if err != nil {
			return err
		}
		if name == "explain" {
			return j.Explain(e.stdout)
		}
		warnings := j.Warnings()
		printWarnings(e.stderr, args[0], warnings)
		fmt.Fprintf(e.stdout, "%s: OK (job %s, %d pipeline(s), %d warning(s))\n", args[0], j.Name(), len(j.Pipelines()), len(warnings))
		return nil
	}
	return cmd
}

// printWarnings writes the job file's warnings with their positions.
func printWarnings(w io.Writer, file string, warnings []job.Warning) {
	for _, wa := range warnings {
		if wa.Line > 0 {
			fmt.Fprintf(w, "%s:%d:%d: warning: %s\n", file, wa.Line, wa.Column, wa.Message)
		} else {
			fmt.Fprintf(w, "%s: warning: %s\n", file, wa.Message)
		}
	}
}

// jobFlags are the flags every command that plans a job file takes.
type jobFlags struct {
	sets    []string
	config  string
	jobName string
}

func (jf *jobFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&jf.sets, "set", nil, "set a job option `key=value`, after the file's SET statements (repeatable)")
	cmd.Flags().StringVar(&jf.config, "config", "", "read job options from a YAML `FILE` (same keys as SET; below the file's SET statements)")
}

// compile compiles the job file, with ${NAME} values from the
// environment, for the commands that connect nowhere (validate, explain,
// checkpoint): a ${NAME} without default that is not set (a broker's
// address, a password) is planned with the reference itself in its place,
// and a note on standard error says which.
func (jf *jobFlags) compile(ctx context.Context, e *env, file string) (*job.Job, error) {
	unset := map[string]bool{}
	j, err := jf.compileWith(ctx, e, file, job.Options{UnsetVar: func(name string) (string, bool) {
		unset[name] = true
		return unsetPlaceholder(name), true
	}})
	printUnset(e.stderr, file, unset)
	return j, err
}

// compileWith compiles the job file with opts and the options of the
// config file, the job file and --set, in that order of precedence
// (lowest first). A wrong --set or config file is a usage error; errors in
// the job file are printed and errFailed returned.
func (jf *jobFlags) compileWith(ctx context.Context, e *env, file string, opts job.Options) (*job.Job, error) {
	flags, err := parseSets(jf.sets)
	if err != nil {
		return nil, err
	}
	cfg := map[string]string{}
	if jf.config != "" {
		if cfg, err = loadConfig(jf.config); err != nil {
			return nil, err
		}
	}
	if opts.Env == nil {
		opts.Env = os.LookupEnv
	}
	opts.Registry, opts.JobName = e.reg, jf.jobName
	opts.Defaults, opts.Set = cfg, flags
	j, err := job.CompileFile(ctx, file, opts)
	if err != nil {
		errs := job.Errors(err)
		for _, pe := range errs {
			fmt.Fprintf(e.stderr, "%v\n\n", pe)
		}
		fmt.Fprintf(e.stderr, "%s: %d error(s)\n", file, len(errs))
		return nil, errFailed
	}
	return j, nil
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

// unsetPlaceholder is the value validate and explain give a ${NAME} that
// is not set: the reference itself, so that EXPLAIN shows it as written.
func unsetPlaceholder(name string) string { return "${" + name + "}" }

// printUnset says which ${NAME} references validate or explain planned
// with a placeholder.
func printUnset(w io.Writer, file string, unset map[string]bool) {
	if len(unset) == 0 {
		return
	}
	names := slices.Sorted(maps.Keys(unset))
	for i, n := range names {
		names[i] = "${" + n + "}"
	}
	fmt.Fprintf(w, "%s: note: %s not set: checked with the reference itself in its place (nothing connects); set %s to run the job\n",
		file, strings.Join(names, ", "), map[bool]string{true: "it", false: "them"}[len(names) == 1])
}
