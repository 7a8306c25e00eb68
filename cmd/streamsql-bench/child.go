package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// envHog marks a child process that only burns CPU (see startHogs).
const envHog = "STREAMSQL_BENCH_HOG"

// childCommand returns the command that runs this binary as a child with
// args, pinned with taskset -c to o.taskset when it is set. The caller
// adds the environment variable that selects the child's role. The child
// is killed when the benchmark dies (Pdeathsig), so that a killed run
// leaves no CPU hog spinning and no unbounded pipe waiting for records.
func childCommand(ctx context.Context, o options, args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var c *exec.Cmd
	if o.taskset == "" {
		c = exec.CommandContext(ctx, exe, args...)
	} else {
		ts, err := exec.LookPath("taskset")
		if err != nil {
			return nil, fmt.Errorf("-taskset %s: %w", o.taskset, err)
		}
		c = exec.CommandContext(ctx, ts, append([]string{"-c", o.taskset, exe}, args...)...)
	}
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return c, nil
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

// hogMaxLife bounds a hog's life, far beyond any latency run.
const hogMaxLife = 15 * time.Minute

// hogMain spins one CPU until the process is killed or hogMaxLife has
// passed.
func hogMain() error {
	goruntime.GOMAXPROCS(1)
	end := time.Now().Add(hogMaxLife)
	var x uint64
	for i := 0; ; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			return errors.New("unreachable")
		}
		if i%(1<<24) == 0 && time.Now().After(end) {
			return nil
		}
	}
}

// awaitTopic waits until every partition of a topic just created answers
// a ListOffsets request from its leader. The metadata of a new topic names
// a leader before that broker has taken the partition on, and a producer
// that writes then gets NOT_LEADER_FOR_PARTITION and, because franz-go
// refreshes metadata at most every 5 s (MetadataMinAge), stalls for up to
// 5 s: seen on the pipes quickest to produce (the raw copy: 20,000 records
// in 5 s instead of 0.1 s), and it inflated start→first.
func awaitTopic(ctx context.Context, adm *kadm.Client, topic string, partitions int) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err == nil {
			n := 0
			ends.Each(func(o kadm.ListedOffset) {
				if o.Err == nil {
					n++
				} else {
					err = o.Err
				}
			})
			if n == partitions {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("topic %s: not every partition has a leader after 30 s (last error: %v)", topic, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
