package planner_test

import (
	"os"
	"testing"
)

// TestMain fixes the default checkpoint folder (ckptpath.Default) of
// the jobs planned here, so that EXPLAIN's golden files do not depend on
// the user running the tests. Nothing here writes to it.
func TestMain(m *testing.M) {
	os.Setenv("XDG_STATE_HOME", "/home/user/.local/state")
	os.Exit(m.Run())
}
