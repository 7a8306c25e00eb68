// Command streamsql runs streaming jobs written as Flink SQL files.
//
// The job-running commands (run, validate, explain) arrive with the planner
// and CLI work; today the binary reports its version.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit code: 0 done,
// 2 usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "version" {
		fmt.Fprintln(stdout, "streamsql", version())
		return 0
	}
	fmt.Fprintln(stderr, "usage: streamsql version")
	return 2
}

// version returns the module version the binary was built from, or
// "(devel)" for a build from a work tree.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
