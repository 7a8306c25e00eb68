package kafka

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/streamsql/streamsql/runtime/testkit"
)

// TestMain runs the crash tests' child process when asked to (see
// crash_test.go), and otherwise the tests, failing the package when a test
// leaves goroutines running: every client the writers, committers and
// readers create must be closed.
func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild())
	}
	if os.Getenv(rtChildEnv) != "" {
		os.Exit(runtimeChild())
	}
	if os.Getenv(scaleChildEnv) != "" {
		os.Exit(scaleChild())
	}
	if os.Getenv(copyChildEnv) != "" {
		os.Exit(copyChild())
	}
	if os.Getenv(dlChildEnv) != "" {
		os.Exit(deadLetterChild())
	}
	if os.Getenv(qaChildEnv) != "" {
		os.Exit(qaChild())
	}
	// Jobs that checkpoint without a folder write the default one in a
	// temporary folder, not the user's home.
	cleanup, err := testkit.IsolateStateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) { cleanup(); os.Exit(code) }))
}
