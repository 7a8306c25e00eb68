// Package crashtest is the harness of the crash tests, which prove
// exactly-once by killing real processes: a test binary runs one of its own
// roles as a child process, the test kills the child with SIGKILL at a
// moment it chooses (or a fault point of runtime/testkit kills it from
// inside), runs it again, and checks the output with a reader of its own.
//
// A package's TestMain calls Main first, with its roles; in a child, Main
// runs the role the environment names and exits with its code. The test
// then starts children with Start (or Run, Exec: start, kill after a delay,
// wait), and draws its random kill times from Rand, which logs the seed so
// that a failing run can be repeated.
package crashtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// roleEnv names the role a child runs.
const roleEnv = "STREAMSQL_CRASHTEST_ROLE"

// SeedEnv, when set to a number, is the seed Rand uses instead of the
// clock's, to repeat the kill times of a logged run.
const SeedEnv = "STREAMSQL_CRASH_SEED"

// Main runs the role named by the environment when this process is a child
// started by Start, and exits with the code the role returns; an unknown
// role exits 2. In the test process itself it returns at once. Call it
// first in TestMain.
func Main(roles map[string]func() int) {
	role := os.Getenv(roleEnv)
	if role == "" {
		return
	}
	run, ok := roles[role]
	if !ok {
		fmt.Fprintf(os.Stderr, "crashtest: unknown child role %q\n", role)
		os.Exit(2)
	}
	os.Exit(run())
}

// Spec describes a child process.
type Spec struct {
	// Role is the role Main runs in the child.
	Role string
	// Env is added to the test process's environment (KEY=VALUE).
	Env []string
	// Stdout, when set, receives the child's standard output (else it is
	// discarded). Stderr, when set, receives its standard error; else the
	// child keeps it, for Wait's error and Stderr.
	Stdout, Stderr io.Writer
}

// Child is a running child process. Its methods may be called from any
// goroutine. A child still running when its test ends is killed.
type Child struct {
	spec   Spec
	cmd    *exec.Cmd
	stderr lockedBuffer
	done   chan struct{}
	err    error // cmd.Wait's, set before done is closed
}

// Start starts the test binary as a child that runs spec.Role. It fails t
// when the process cannot be started.
func Start(t testing.TB, spec Spec) *Child {
	t.Helper()
	c := &Child{spec: spec, done: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], "-test.run=^$")
	c.cmd.Env = append(append(os.Environ(), roleEnv+"="+spec.Role), spec.Env...)
	c.cmd.Stdout = spec.Stdout
	c.cmd.Stderr = spec.Stderr
	if spec.Stderr == nil {
		c.cmd.Stderr = &c.stderr
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("starting child %s: %v", spec.Role, err)
	}
	// The goroutine ends when the process does; Cleanup makes sure it
	// does by the end of the test.
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.Signal(syscall.SIGKILL)
		<-c.done
	})
	return c
}

// Pid is the child's process id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Done is closed when the child has ended.
func (c *Child) Done() <-chan struct{} { return c.done }

// Signal sends sig to the child unless it has ended.
func (c *Child) Signal(sig os.Signal) {
	select {
	case <-c.done:
	default:
		_ = c.cmd.Process.Signal(sig)
	}
}

// Kill SIGKILLs the child and waits for its end.
func (c *Child) Kill() {
	c.Signal(syscall.SIGKILL)
	<-c.done
}

// Wait waits for the child's end. killed reports that it died of SIGKILL;
// err is any other failure (a non-zero exit, another signal), with the
// child's standard error when the child kept it.
func (c *Child) Wait() (killed bool, err error) {
	<-c.done
	if c.err == nil {
		return false, nil
	}
	var ee *exec.ExitError
	if errors.As(c.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true, nil
		}
	}
	// The environment is left out: it may hold a test server's password.
	return false, fmt.Errorf("child %s failed: %w\n%s", c.spec.Role, c.err, c.stderr.String())
}

// ExitCode is the child's exit code once it has ended (-1 when a signal
// ended it).
func (c *Child) ExitCode() int {
	<-c.done
	return c.cmd.ProcessState.ExitCode()
}

// Stderr returns what the child wrote to its standard error so far, when
// it keeps it (Spec.Stderr nil).
func (c *Child) Stderr() string { return c.stderr.String() }

// Exec runs a child of spec, SIGKILLs it killAfter after its start when
// killAfter is positive and it still runs, and waits for its end: killed
// reports the SIGKILL, err any other failure.
func Exec(t testing.TB, spec Spec, killAfter time.Duration) (killed bool, stderr string, err error) {
	t.Helper()
	c := Start(t, spec)
	if killAfter > 0 {
		timer := time.NewTimer(killAfter)
		select {
		case <-c.Done():
		case <-timer.C:
			c.Signal(syscall.SIGKILL)
		}
		timer.Stop()
	}
	killed, err = c.Wait()
	return killed, c.Stderr(), err
}

// Run is Exec that fails t when the child fails other than by SIGKILL.
func Run(t testing.TB, spec Spec, killAfter time.Duration) (killed bool) {
	t.Helper()
	killed, _, err := Exec(t, spec, killAfter)
	if err != nil {
		t.Fatal(err)
	}
	return killed
}

// Rand returns a random source for a test's kill times, seeded from
// SeedEnv when it is set, else from the clock, and logs the seed so that a
// failure can be repeated with STREAMSQL_CRASH_SEED. stream separates the
// sources of one test's several random parts.
func Rand(t testing.TB, stream uint64) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(SeedEnv); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", SeedEnv, v, err)
		}
		seed = s
	}
	t.Logf("random kill times: seed %d (%s=%d repeats them)", seed, SeedEnv, seed)
	return rand.New(rand.NewPCG(seed, stream))
}

// lockedBuffer is a bytes.Buffer safe for the child's writes and the test's
// reads at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
