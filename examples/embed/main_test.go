package main

import "testing"

// TestRun runs the bounded example: with every user kept, the sink counts
// every generated row; with none kept, no row. The example checkpoints
// without execution.checkpointing.dir, so each case gets a fresh default
// folder (not the user's, and not the other case's: a job that finished
// leaves a record there, and a second run of it does nothing).
func TestRun(t *testing.T) {
	for _, c := range []struct{ maxUser, want int }{{100, 20}, {0, 0}} {
		t.Setenv("XDG_STATE_HOME", t.TempDir())
		got, err := run(20, c.maxUser)
		if err != nil {
			t.Fatal(err)
		}
		if got != int64(c.want) {
			t.Errorf("max-user %d: sink kept %d rows, want %d", c.maxUser, got, c.want)
		}
	}
}
