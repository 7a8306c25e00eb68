package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
)

// envHog marks a child process that only burns CPU (see startHogs).
const envHog = "STREAMSQL_BENCH_HOG"

// childCommand returns the command that runs this binary as a child with
// args, pinned with taskset -c to o.taskset when it is set. The caller
// adds the environment variable that selects the child's role.
func childCommand(ctx context.Context, o options, args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if o.taskset == "" {
		return exec.CommandContext(ctx, exe, args...), nil
	}
	ts, err := exec.LookPath("taskset")
	if err != nil {
		return nil, fmt.Errorf("-taskset %s: %w", o.taskset, err)
	}
	return exec.CommandContext(ctx, ts, append([]string{"-c", o.taskset, exe}, args...)...), nil
}

// startHogs starts o.hogs child processes that each spin one CPU until
// stopped (pinned like the pipes under -taskset), to measure latency under
// CPU contention. The returned function kills and reaps them.
func startHogs(ctx context.Context, o options) (stop func(), err error) {
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	for range o.hogs {
		c, err := childCommand(ctx, o)
		if err != nil {
			stop()
			return nil, err
		}
		c.Env = append(os.Environ(), envHog+"=1")
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("starting a CPU hog: %w", err)
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// hogMain spins one CPU until the process is killed.
func hogMain() error {
	goruntime.GOMAXPROCS(1)
	var x uint64
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			return errors.New("unreachable")
		}
	}
}
