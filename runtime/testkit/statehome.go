package testkit

import (
	"fmt"
	"os"
)

// stateHomeEnv marks a process tree whose XDG_STATE_HOME IsolateStateHome
// set: the child processes a test starts keep their parent's folder.
const stateHomeEnv = "STREAMSQL_TEST_STATE_HOME"

// IsolateStateHome points XDG_STATE_HOME at a new temporary folder for the
// test binary (a TestMain calls it before m.Run), so that jobs that
// checkpoint without execution.checkpointing.dir write their default
// folder (ckptpath.Default) there, never into the user's home. Child
// processes inherit it: a child re-executing the test binary keeps the
// folder its parent made. The returned function removes the folder (a
// no-op in a child).
func IsolateStateHome() (cleanup func(), err error) {
	if dir := os.Getenv(stateHomeEnv); dir != "" {
		return func() {}, os.Setenv("XDG_STATE_HOME", dir)
	}
	dir, err := os.MkdirTemp("", "streamsql-state-")
	if err != nil {
		return nil, fmt.Errorf("testkit: state home: %w", err)
	}
	if err := os.Setenv("XDG_STATE_HOME", dir); err != nil {
		return nil, err
	}
	if err := os.Setenv(stateHomeEnv, dir); err != nil {
		return nil, err
	}
	return func() { os.RemoveAll(dir) }, nil
}

// RunWithStateHome runs a test binary's tests (a *testing.M) with
// IsolateStateHome and returns their exit code, for a TestMain's
// os.Exit.
func RunWithStateHome(m interface{ Run() int }) int {
	cleanup, err := IsolateStateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer cleanup()
	return m.Run()
}
