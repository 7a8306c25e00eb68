package nexmark_test

import (
	"os"
	"testing"

	"github.com/streamsql/streamsql/runtime/testkit"
)

// TestMain runs the tests with XDG_STATE_HOME in a temporary folder: jobs
// that checkpoint without execution.checkpointing.dir write the default
// folder there, not in the user's home.
func TestMain(m *testing.M) { os.Exit(testkit.RunWithStateHome(m)) }
